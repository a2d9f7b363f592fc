//===- HandlerUtils.cpp - Operand helpers shared by ONNX handlers ---------===//
//
// Run-time arguments and compile-time folding for the ONNX op handlers.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"

#include "mlprog/Import/Common/Creation.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace mlprog::onnx_import {

FailureOr<SmallVector<Value>> allInputs(NodeContext &ctx) {
  SmallVector<Value> values;
  for (int i = 0; i < ctx.node.input_size(); ++i) {
    FailureOr<Value> v = ctx.input(i);
    if (failed(v))
      return failure();
    values.push_back(*v);
  }
  return values;
}

SmallVector<int64_t> intValues(DenseElementsAttr a) {
  SmallVector<int64_t> v;
  for (const APInt &x : a.getValues<APInt>())
    v.push_back(x.getSExtValue());
  return v;
}

LogicalResult setFolded(NodeContext &ctx, unsigned i, DenseElementsAttr value) {
  ctx.setConstantResult(i, buildConstant(ctx.b, ctx.loc, value), value);
  return success();
}

bool foldable(DenseElementsAttr a) {
  return a && (a.isSplat() || a.getNumElements() <= kFoldLimit);
}

SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

DenseElementsAttr foldMap(DenseElementsAttr src, ArrayRef<int64_t> outShape,
                          function_ref<int64_t(ArrayRef<int64_t>)> srcFlat) {
  auto type = RankedTensorType::get(outShape, src.getElementType());
  if (src.isSplat())
    return DenseElementsAttr::get(type, src.getSplatValue<Attribute>());
  SmallVector<Attribute> in(src.getValues<Attribute>());
  int64_t n = type.getNumElements();
  SmallVector<Attribute> out;
  out.reserve(n);
  SmallVector<int64_t> idx(outShape.size(), 0);
  for (int64_t f = 0; f < n; ++f) {
    out.push_back(in[srcFlat(idx)]);
    for (int64_t d = int64_t(idx.size()) - 1; d >= 0; --d) {
      if (++idx[d] < outShape[d])
        break;
      idx[d] = 0;
    }
  }
  return DenseElementsAttr::get(type, out);
}

std::optional<SmallVector<int64_t>> constantInts(NodeContext &ctx, unsigned i) {
  if (DenseElementsAttr a = ctx.optionalConstantInput(i))
    if (a.getElementType().isSignlessInteger())
      return intValues(a);
  return std::nullopt;
}

FailureOr<Value> argumentTensor(NodeContext &ctx, unsigned i, StringRef what) {
  FailureOr<Value> v = ctx.input(i);
  if (failed(v))
    return failure();
  auto t = dyn_cast<RankedTensorType>(v->getType());
  if (!t || t.getRank() != 1 || t.isDynamicDim(0) ||
      !t.getElementType().isSignlessInteger())
    return emitError(ctx.loc)
           << ctx.node.op_type() << ": " << what
           << " must be a 1-D integer tensor of static length, got "
           << v->getType();
  return *v;
}

int64_t lengthOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getDimSize(0);
}

FailureOr<Value> scalarIndexInput(NodeContext &ctx, unsigned i, StringRef what,
                                  bool allowFloat) {
  FailureOr<Value> v = ctx.input(i);
  if (failed(v))
    return failure();
  auto t = dyn_cast<RankedTensorType>(v->getType());
  Type et = t ? t.getElementType() : Type();
  if (!t || !t.hasStaticShape() || t.getNumElements() != 1 ||
      !(et.isSignlessInteger() || (allowFloat && isa<FloatType>(et))))
    return emitError(ctx.loc)
           << ctx.node.op_type() << ": " << what << " must be a one-element "
           << (allowFloat ? "numeric" : "integer") << " tensor, got "
           << v->getType();
  Value zero = arith::ConstantIndexOp::create(ctx.b, ctx.loc, 0);
  Value e = tensor::ExtractOp::create(ctx.b, ctx.loc, *v,
                                      SmallVector<Value>(t.getRank(), zero));
  if (isa<FloatType>(et))
    e = arith::FPToSIOp::create(ctx.b, ctx.loc, ctx.b.getI64Type(), e);
  return Value(
      arith::IndexCastOp::create(ctx.b, ctx.loc, ctx.b.getIndexType(), e));
}

SmallVector<OpFoldResult> shapeSizesInput(NodeContext &ctx, unsigned i,
                                          Value shape) {
  SmallVector<OpFoldResult> sizes = extractShapeSizes(ctx.b, ctx.loc, shape);
  std::optional<SmallVector<int64_t>> known = ctx.knownInputElements(i);
  if (!known || known->size() != sizes.size())
    return sizes;
  for (auto [size, k] : llvm::zip(sizes, *known))
    if (!ShapedType::isDynamic(k))
      size = ctx.b.getIndexAttr(k);
  return sizes;
}

SmallVector<int64_t> outputHint(NodeContext &ctx, unsigned i) {
  std::optional<SmallVector<int64_t>> s = ctx.staticOutputShape(i);
  return s ? *s : SmallVector<int64_t>();
}

} // namespace mlprog::onnx_import
