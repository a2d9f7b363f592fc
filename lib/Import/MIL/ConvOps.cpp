//===- ConvOps.cpp - MIL convolutions -------------------------------------===//
//
// conv and conv_transpose.
//
// Handlers read the op's named arguments and compile-time parameters
// (supplying the MIL spec defaults, iOS15+ semantics) and call the shared
// builders in mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"
#include "Importer.h"

#include "mlprog/Import/Common/Conv.h"
#include "mlprog/Import/Common/Elementwise.h"

using namespace mlir;

namespace mlprog::mil_import {
namespace {

/// iOS17 conv and conv_transpose take a weight and bias of another float
/// type than x (fp16 weights on fp32 activations, say) and compute in x's:
/// converts them to x's element type (the bias may be null).
LogicalResult convertToInputType(OpContext &ctx, Value x, Value &w,
                                 Value &bias) {
  Type et = typeOf(x).getElementType();
  for (Value *v : {&w, &bias}) {
    if (!*v || typeOf(*v).getElementType() == et || !isa<FloatType>(et) ||
        !isa<FloatType>(typeOf(*v).getElementType()))
      continue;
    FailureOr<Value> converted =
        buildConvertElementType(ctx.b, ctx.loc, *v, et);
    if (failed(converted))
      return failure();
    *v = *converted;
  }
  return success();
}

LogicalResult importConv(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), w = ctx.input("weight");
  FailureOr<Value> bias = ctx.optionalInput("bias");
  FailureOr<int64_t> groups = ctx.getInt("groups", 1);
  if (failed(x) || failed(w) || failed(bias) || failed(groups) ||
      failed(convertToInputType(ctx, *x, *w, *bias)))
    return failure();
  if (rankOf(*w) < 3)
    return emitError(ctx.loc) << "conv weight must have rank >= 3";
  FailureOr<WindowParams> params = getWindowParams(
      ctx, *x, typeOf(*w).getShape().drop_front(2), /*hasDilations=*/true);
  if (failed(params))
    return failure();
  return ctx.setResult(
      0, buildConv(ctx.b, ctx.loc, *x, *w, *bias, *params, *groups));
}

/// conv_transpose(x, weight [C, F / groups, K...], bias, pad_type, pad,
/// output_shape, strides, dilations, groups): output_shape, when given,
/// decides the output padding at the end of each spatial dim.
LogicalResult importConvTranspose(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), w = ctx.input("weight");
  FailureOr<Value> bias = ctx.optionalInput("bias");
  FailureOr<int64_t> groups = ctx.getInt("groups", 1);
  FailureOr<std::string> padType =
      ctx.getString("pad_type", std::string("valid"));
  if (failed(x) || failed(w) || failed(bias) || failed(groups) ||
      failed(padType) || failed(convertToInputType(ctx, *x, *w, *bias)))
    return failure();
  RankedTensorType xt = typeOf(*x), wt = typeOf(*w);
  if (wt.getRank() < 3 || xt.getRank() != wt.getRank())
    return emitError(ctx.loc) << "conv_transpose needs input and weight of "
                                 "one rank >= 3";
  if (!xt.hasStaticShape() || !wt.hasStaticShape())
    return emitError(ctx.loc) << "unsupported conv_transpose with extents "
                                 "unknown at import time";
  size_t n = wt.getRank() - 2;
  WindowParams params;
  if (*padType == "same" || *padType == "same_lower") {
    // Output extent = input extent * stride.
    FailureOr<SmallVector<int64_t>> strides =
        ctx.getInts("strides", SmallVector<int64_t>(n, 1));
    FailureOr<SmallVector<int64_t>> dilations =
        ctx.getInts("dilations", SmallVector<int64_t>(n, 1));
    if (failed(strides) || failed(dilations))
      return failure();
    if (strides->size() != n || dilations->size() != n)
      return emitError(ctx.loc) << "strides/dilations need " << n << " values";
    params.strides = *strides;
    params.dilations = *dilations;
    for (size_t i = 0; i < n; ++i) {
      int64_t total = std::max<int64_t>(
          0, (*dilations)[i] * (wt.getDimSize(2 + i) - 1) + 1 - (*strides)[i]);
      int64_t small = total / 2, big = total - small;
      params.padsBegin.push_back(*padType == "same" ? small : big);
      params.padsEnd.push_back(*padType == "same" ? big : small);
    }
  } else {
    FailureOr<WindowParams> p = getWindowParams(
        ctx, *x, wt.getShape().drop_front(2), /*hasDilations=*/true);
    if (failed(p))
      return failure();
    params = *p;
  }
  SmallVector<int64_t> outputPadding(n, 0);
  if (ctx.has("output_shape")) {
    FailureOr<SmallVector<int64_t>> shape = ctx.getInts("output_shape");
    if (failed(shape))
      return failure();
    if (shape->size() != n + 2 && shape->size() != n)
      return emitError(ctx.loc)
             << "conv_transpose: output_shape needs " << n + 2 << " values";
    ArrayRef<int64_t> spatial = ArrayRef<int64_t>(*shape).take_back(n);
    for (size_t i = 0; i < n; ++i) {
      int64_t s = params.strides.empty() ? 1 : params.strides[i];
      int64_t d = params.dilations.empty() ? 1 : params.dilations[i];
      int64_t pb = params.padsBegin.empty() ? 0 : params.padsBegin[i];
      int64_t pe = params.padsEnd.empty() ? 0 : params.padsEnd[i];
      int64_t natural = (xt.getDimSize(2 + i) - 1) * s - pb - pe +
                        d * (wt.getDimSize(2 + i) - 1) + 1;
      outputPadding[i] = spatial[i] - natural;
      if (outputPadding[i] < 0 || outputPadding[i] >= std::max(s, d))
        return emitError(ctx.loc)
               << "conv_transpose: output_shape extent " << spatial[i]
               << " is not reachable from " << natural;
    }
  }
  return ctx.setResult(0, buildConvTranspose(ctx.b, ctx.loc, *x, *w, *bias,
                                             params, *groups, outputPadding));
}

} // namespace

void registerConvOps(OpTable &table) {
  table.add({
      {"conv", importConv},
      {"conv_transpose", importConvTranspose},
  });
}

} // namespace mlprog::mil_import
