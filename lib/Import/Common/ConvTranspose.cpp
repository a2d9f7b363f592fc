//===- ConvTranspose.cpp - Transposed convolution builder -----------------===//

#include "Utils.h"
#include "mlprog/Import/Common/Spatial.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

/// W'[g * Fg + fo, ci, k] = W[g * Cg + ci, fo, K - 1 - k]: per group, swap
/// the channel dims and flip the window.
static Value transformFilter(OpBuilder &b, Location loc, Value filter,
                             int64_t groups) {
  auto type = cast<RankedTensorType>(filter.getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t cg = shape[0] / groups, fg = shape[1];
  unsigned rank = shape.size();
  MLIRContext *ctx = b.getContext();
  AffineExpr f = getAffineDimExpr(0, ctx), ci = getAffineDimExpr(1, ctx);
  SmallVector<AffineExpr> exprs = {f.floorDiv(fg) * cg + ci, f % fg};
  SmallVector<int64_t> outShape = {groups * fg, cg};
  for (unsigned d = 2; d < rank; ++d) {
    exprs.push_back(shape[d] - 1 - getAffineDimExpr(d, ctx));
    outShape.push_back(shape[d]);
  }
  Value init = tensor::EmptyOp::create(b, loc, outShape, type.getElementType());
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, ctx),
                                 AffineMap::getMultiDimIdentityMap(rank, ctx)};
  return linalg::GenericOp::create(
             b, loc, init.getType(), filter, init, maps,
             parallelIterators(rank),
             [](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl, args[0]);
             })
      .getResult(0);
}

FailureOr<Value>
mlprog::buildConvTranspose(OpBuilder &b, Location loc, Value input,
                           Value filter, Value bias, const WindowParams &params,
                           int64_t groups, ArrayRef<int64_t> outputPadding) {
  auto it = dyn_cast<RankedTensorType>(input.getType());
  auto ft = dyn_cast<RankedTensorType>(filter.getType());
  if (!it || !ft || it.getRank() < 3 || ft.getRank() != it.getRank() ||
      !isa<FloatType>(it.getElementType()) ||
      ft.getElementType() != it.getElementType())
    return emitError(loc) << "conv_transpose needs float input [N, C, D...] "
                             "and filter [C, F/groups, K...] of one element "
                             "type, got "
                          << input.getType() << " and " << filter.getType();
  size_t n = it.getRank() - 2;
  if (!it.hasStaticShape() || !ft.hasStaticShape())
    return emitError(loc) << "conv_transpose needs static shapes";
  if (groups < 1 || it.getDimSize(1) != ft.getDimSize(0) ||
      ft.getDimSize(0) % groups != 0)
    return emitError(loc) << "conv_transpose: filter " << ft
                          << " does not match input " << it << " with "
                          << groups << " groups";
  auto get = [&](ArrayRef<int64_t> v, size_t i, int64_t dflt) {
    return v.empty() ? dflt : v[i];
  };
  if ((!params.strides.empty() && params.strides.size() != n) ||
      (!params.dilations.empty() && params.dilations.size() != n) ||
      (!params.padsBegin.empty() && params.padsBegin.size() != n) ||
      (!params.padsEnd.empty() && params.padsEnd.size() != n) ||
      (!outputPadding.empty() && outputPadding.size() != n))
    return emitError(loc) << "conv_transpose: window parameters need " << n
                          << " values";
  // Insert stride - 1 zeros between input elements.
  Type et = it.getElementType();
  SmallVector<int64_t> dilatedShape(it.getShape());
  SmallVector<int64_t> strides(it.getRank(), 1);
  bool anyStride = false;
  for (size_t i = 0; i < n; ++i) {
    int64_t s = get(params.strides, i, 1);
    if (s < 1)
      return emitError(loc) << "conv_transpose: stride must be >= 1";
    dilatedShape[2 + i] = (it.getDimSize(2 + i) - 1) * s + 1;
    strides[2 + i] = s;
    anyStride |= s > 1;
  }
  Value x = input;
  if (anyStride) {
    Value zeros = createFilled(
        b, loc, getAsIndexOpFoldResult(b.getContext(), dilatedShape),
        b.getZeroAttr(et));
    SmallVector<int64_t> offsets(it.getRank(), 0);
    x = tensor::InsertSliceOp::create(
        b, loc, input, zeros, getAsIndexOpFoldResult(b.getContext(), offsets),
        getAsIndexOpFoldResult(b.getContext(), it.getShape()),
        getAsIndexOpFoldResult(b.getContext(), strides));
  }
  // Pad by dilation * (K - 1) - pad (+ output padding at the end); crop
  // where that is negative.
  SmallVector<int64_t> low(it.getRank(), 0), high(it.getRank(), 0);
  SmallVector<int64_t> cropLow(it.getRank(), 0), cropHigh(it.getRank(), 0);
  for (size_t i = 0; i < n; ++i) {
    int64_t d = get(params.dilations, i, 1);
    int64_t k = ft.getDimSize(2 + i);
    int64_t lo = d * (k - 1) - get(params.padsBegin, i, 0);
    int64_t hi =
        d * (k - 1) - get(params.padsEnd, i, 0) + get(outputPadding, i, 0);
    (lo >= 0 ? low : cropLow)[2 + i] = std::abs(lo);
    (hi >= 0 ? high : cropHigh)[2 + i] = std::abs(hi);
  }
  x = padStatic(b, loc, x, low, high, b.getZeroAttr(et));
  if (llvm::any_of(cropLow, [](int64_t c) { return c > 0; }) ||
      llvm::any_of(cropHigh, [](int64_t c) { return c > 0; })) {
    auto xt = cast<RankedTensorType>(x.getType());
    SmallVector<OpFoldResult> offsets, sizes, unit;
    for (int64_t d = 0; d < xt.getRank(); ++d) {
      int64_t size = xt.getDimSize(d) - cropLow[d] - cropHigh[d];
      if (d >= 2 && size < 1)
        return emitError(loc) << "conv_transpose: padding leaves no output";
      offsets.push_back(b.getIndexAttr(cropLow[d]));
      sizes.push_back(
          ShapedType::isDynamic(xt.getDimSize(d))
              ? OpFoldResult(tensor::DimOp::create(b, loc, x, d).getResult())
              : OpFoldResult(b.getIndexAttr(size)));
      unit.push_back(b.getIndexAttr(1));
    }
    x = tensor::ExtractSliceOp::create(b, loc, x, offsets, sizes, unit);
  }
  WindowParams convParams;
  convParams.dilations = params.dilations;
  return buildConv(b, loc, x, transformFilter(b, loc, filter, groups), bias,
                   convParams, groups);
}
