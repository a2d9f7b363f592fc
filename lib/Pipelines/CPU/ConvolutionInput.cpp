//===- ConvolutionInput.cpp - Reading convolution inputs as vectors -------===//
//
// How the column tensors (Im2col.cpp) and the window ops (WindowOps.cpp)
// read a convolution's input: through its zero padding, which is never
// materialized, one row of output columns at a time as a vector.
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::cpu;

SmallVector<int64_t> cpu::getValues(DenseIntElementsAttr attr) {
  return llvm::to_vector(attr.getValues<int64_t>());
}

ConvSource cpu::getConvSource(Value input) {
  ConvSource result{input};
  auto pad = input.getDefiningOp<tensor::PadOp>();
  if (!pad)
    return result;
  Value padValue = pad.getConstantPaddingValue();
  auto sourceType = dyn_cast<RankedTensorType>(pad.getSource().getType());
  if (!padValue || !matchPattern(padValue, m_AnyZeroFloat()) || !sourceType ||
      sourceType.getRank() != 4 || !sourceType.hasStaticShape())
    return result;
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  for (int64_t i = 0; i < 4; ++i) {
    if (ShapedType::isDynamic(low[i]) || ShapedType::isDynamic(high[i]) ||
        low[i] < 0 || high[i] < 0)
      return result;
    if (i < 2 && (low[i] != 0 || high[i] != 0))
      return result;
  }
  return {pad.getSource(), low[2], low[3]};
}

/// Reads `len` columns ix0, ix0 + sw, ..., ix0 + (len - 1) * sw (sw = 1 or
/// 2) of the row of the f32 tensor `x` at `row` (all indices but the last),
/// whose rows have `width` elements; columns outside [0, width) read as 0
/// (zero padding). Stride 2 reads 2 * len contiguous elements and shuffles
/// every other one out. Reads that may pass the end of the row are masked; a
/// window that starts left of the row (ix0 < 0) is read from column 0 and
/// moved into place by the shuffle, its leading lanes selected to 0.
Value cpu::readRowColumns(OpBuilder &b, Location loc, Value x, ValueRange row,
                          int64_t ix0, int64_t len, int64_t sw, int64_t width) {
  Type f32 = cast<ShapedType>(x.getType()).getElementType();
  auto vecType = VectorType::get({len}, f32);
  Value zeroVec =
      arith::ConstantOp::create(b, loc, vecType, b.getZeroAttr(vecType));
  if (ix0 + (len - 1) * sw < 0 || ix0 >= width)
    return zeroVec;
  Value zero = arith::ConstantOp::create(b, loc, f32, b.getZeroAttr(f32));
  auto read = [&](int64_t col) -> Value {
    if (col >= width)
      return zeroVec;
    SmallVector<Value> indices(row);
    indices.push_back(arith::ConstantIndexOp::create(b, loc, col));
    return vector::TransferReadOp::create(b, loc, vecType, x, indices, zero,
                                          ArrayRef<bool>{col + len <= width});
  };
  if (ix0 >= 0 && sw == 1)
    return read(ix0);
  int64_t start = std::max<int64_t>(ix0, 0);
  Value lo = read(start);
  Value hi = sw == 1 ? lo : read(start + len);
  SmallVector<int64_t> lanes;
  SmallVector<bool> inside;
  for (int64_t i = 0; i < len; ++i) {
    int64_t col = ix0 + i * sw;
    lanes.push_back(std::max<int64_t>(col - start, 0));
    inside.push_back(col >= 0);
  }
  Value shuffled = vector::ShuffleOp::create(b, loc, lo, hi, lanes);
  if (ix0 >= 0)
    return shuffled;
  auto maskType = VectorType::get({len}, b.getI1Type());
  Value mask = arith::ConstantOp::create(
      b, loc, maskType, DenseElementsAttr::get(maskType, inside));
  return arith::SelectOp::create(b, loc, mask, shuffled, zeroVec);
}

SmallVector<int64_t> cpu::getRowVectorStarts(int64_t width, int64_t len) {
  SmallVector<int64_t> starts;
  for (int64_t j = 0; j + len <= width; j += len)
    starts.push_back(j);
  if (width % len != 0)
    starts.push_back(width - len);
  return starts;
}
