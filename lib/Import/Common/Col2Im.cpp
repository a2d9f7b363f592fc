//===- Col2Im.cpp - Columns back into images ------------------------------===//
//
// buildCol2Im: scatters every column entry to its image position and adds;
// image and block extents may be known only at run time, so this is three
// scf.for loops (batch, row, column) carrying the image.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"
#include "mlprog/Import/Common/Conv.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

FailureOr<Value> mlprog::buildCol2Im(OpBuilder &b, Location loc, Value input,
                                     Value imageShape, Value blockShape,
                                     const WindowParams &params) {
  auto it = dyn_cast<RankedTensorType>(input.getType());
  if (!it || it.getRank() != 3 || !isa<FloatType>(it.getElementType()))
    return emitError(loc) << "col2im: input must be a float [N, C * prod(K), "
                             "L] tensor, got "
                          << input.getType();
  auto isShape = [](Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t && t.getRank() == 1 && !t.isDynamicDim(0) &&
           t.getElementType().isSignlessInteger();
  };
  if (!isShape(imageShape) || !isShape(blockShape))
    return emitError(loc) << "col2im: image and block shapes must be 1-D "
                             "integer tensors of static length";
  int64_t n = cast<RankedTensorType>(imageShape.getType()).getDimSize(0);
  if (cast<RankedTensorType>(blockShape.getType()).getDimSize(0) != n || n < 1)
    return emitError(loc) << "col2im: image and block shapes differ in length";
  auto orDefault = [&](ArrayRef<int64_t> v, int64_t d) {
    return v.empty() ? SmallVector<int64_t>(n, d) : SmallVector<int64_t>(v);
  };
  SmallVector<int64_t> strides = orDefault(params.strides, 1),
                       dilations = orDefault(params.dilations, 1),
                       padsBegin = orDefault(params.padsBegin, 0),
                       padsEnd = orDefault(params.padsEnd, 0);
  if (int64_t(strides.size()) != n || int64_t(dilations.size()) != n ||
      int64_t(padsBegin.size()) != n || int64_t(padsEnd.size()) != n)
    return emitError(loc) << "col2im: strides, dilations and pads need " << n
                          << " entries";
  for (int64_t d = 0; d < n; ++d)
    if (strides[d] < 1 || dilations[d] < 1)
      return emitError(loc) << "col2im: strides and dilations must be "
                               "positive";
  IndexMath m{b, loc};
  SmallVector<Value> image = readIndices(m, imageShape);
  SmallVector<Value> block = readIndices(m, blockShape);
  // Block extents read at run time are at least 1, so that no division
  // below is by zero (an empty block leaves the image zero anyway).
  for (Value &k : block)
    k = m.max(k, m.c(1));
  Value blockSize = m.c(1);
  for (Value k : block)
    blockSize = m.mul(blockSize, k);
  // Positions of the window per dim, as the convolution counts them.
  SmallVector<Value> positions;
  for (int64_t d = 0; d < n; ++d) {
    Value span =
        m.sub(m.add(image[d], m.c(padsBegin[d] + padsEnd[d])),
              m.add(m.mul(m.c(dilations[d]), m.sub(block[d], m.c(1))), m.c(1)));
    positions.push_back(m.max(
        m.add(arith::DivSIOp::create(b, loc, span, m.c(strides[d])), m.c(1)),
        m.c(1)));
  }
  Value batch = tensor::DimOp::create(b, loc, input, 0);
  Value rows = tensor::DimOp::create(b, loc, input, 1);
  Value cols = tensor::DimOp::create(b, loc, input, 2);
  Value channels = arith::DivSIOp::create(b, loc, rows, blockSize);
  SmallVector<OpFoldResult> outSizes = {batch, channels};
  for (Value e : image)
    outSizes.push_back(e);
  Type et = it.getElementType();
  Value out = createFilled(b, loc, outSizes, b.getZeroAttr(et));
  Value zero = m.c(0);
  return loop(
      b, loc, zero, batch, out,
      [&](OpBuilder &b1, Location l1, Value bn,
          ValueRange a1) -> SmallVector<Value> {
        return loop(
            b1, l1, zero, rows, a1,
            [&](OpBuilder &b2, Location l2, Value row,
                ValueRange a2) -> SmallVector<Value> {
              return loop(
                  b2, l2, zero, cols, a2,
                  [&](OpBuilder &b3, Location l3, Value col,
                      ValueRange a3) -> SmallVector<Value> {
                    IndexMath x{b3, l3};
                    Value c = arith::DivSIOp::create(b3, l3, row, blockSize);
                    Value k = arith::RemSIOp::create(b3, l3, row, blockSize);
                    Value l = col;
                    // Row-major decomposition, last dim fastest.
                    SmallVector<Value> kd(n), ld(n);
                    for (int64_t d = n - 1; d >= 0; --d) {
                      kd[d] = arith::RemSIOp::create(b3, l3, k, block[d]);
                      k = arith::DivSIOp::create(b3, l3, k, block[d]);
                      ld[d] = arith::RemSIOp::create(b3, l3, l, positions[d]);
                      l = arith::DivSIOp::create(b3, l3, l, positions[d]);
                    }
                    SmallVector<Value> at = {bn, c};
                    Value inside;
                    for (int64_t d = 0; d < n; ++d) {
                      Value y = x.add(x.sub(x.mul(ld[d], x.c(strides[d])),
                                            x.c(padsBegin[d])),
                                      x.mul(kd[d], x.c(dilations[d])));
                      Value ok = arith::AndIOp::create(
                          b3, l3, x.cmp(arith::CmpIPredicate::sge, y, x.c(0)),
                          x.lt(y, image[d]));
                      inside = inside
                                   ? arith::AndIOp::create(b3, l3, inside, ok)
                                         .getResult()
                                   : ok;
                      at.push_back(y);
                    }
                    return ifElse(
                        b3, l3, inside,
                        [&](OpBuilder &tb, Location tl) -> SmallVector<Value> {
                          Value v = tensor::ExtractOp::create(
                              tb, tl, input, ValueRange{bn, row, col});
                          Value old =
                              tensor::ExtractOp::create(tb, tl, a3[0], at);
                          Value sum = arith::AddFOp::create(tb, tl, old, v);
                          return {
                              tensor::InsertOp::create(tb, tl, sum, a3[0], at)
                                  .getResult()};
                        },
                        [&](OpBuilder &, Location) -> SmallVector<Value> {
                          return {a3[0]};
                        });
                  });
            });
      })[0];
}
