//===- NormalizationOps.cpp - MIL normalization ops -----------------------===//
//
// batch_norm, instance_norm, layer_norm, l2_norm and local_response_norm.
//
// Handlers read the op's named arguments and compile-time parameters
// (supplying the MIL spec defaults, iOS15+ semantics) and call the shared
// builders in mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"
#include "Importer.h"

#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Normalization.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace mlprog::mil_import {
namespace {

/// A [C] tensor of `value` matching the channel dim of `x`.
Value channelConstant(OpContext &ctx, Value x, double value) {
  RankedTensorType t = typeOf(x);
  auto type = RankedTensorType::get({t.getDimSize(1)}, t.getElementType());
  return arith::ConstantOp::create(
      ctx.b, ctx.loc,
      DenseElementsAttr::get(type,
                             ctx.b.getFloatAttr(t.getElementType(), value)));
}

/// `v` (may be null) converted to element type `et` (iOS17 lets the
/// parameters' float type differ from x's).
FailureOr<Value> convertTo(OpContext &ctx, Value v, Type et) {
  if (!v)
    return v;
  return buildConvertElementType(ctx.b, ctx.loc, v, et);
}

/// The element type normalization statistics are computed in: f32 for f16
/// `x`, whose sums of squares overflow f16 (65504) for inputs of magnitude
/// 100 over a few dozen elements; x's own type otherwise.
Type computeTypeFor(OpContext &ctx, Value x) {
  Type et = typeOf(x).getElementType();
  return et.isF16() ? ctx.b.getF32Type() : et;
}

/// Runs `build` on `x` and `params` converted to computeTypeFor(x) and
/// converts its result to the element type the op declares for its output
/// (x's when that is not a float tensor type: coremltools may declare an
/// fp16 result for an fp32 x with fp16 parameters).
LogicalResult normalizeIn(
    OpContext &ctx, Value x, SmallVector<Value> params,
    llvm::function_ref<FailureOr<Value>(Value, ArrayRef<Value>)> build) {
  Type et = typeOf(x).getElementType(), ct = computeTypeFor(ctx, x);
  if (ctx.numOutputs() && ctx.op.outputs(0).type().has_tensortype()) {
    FailureOr<Type> declared =
        convertDataType(ctx.loc, ctx.b.getContext(),
                        ctx.op.outputs(0).type().tensortype().datatype());
    if (succeeded(declared) && isa<FloatType>(*declared))
      et = *declared;
  }
  FailureOr<Value> cx = convertTo(ctx, x, ct);
  if (failed(cx))
    return failure();
  for (Value &p : params) {
    FailureOr<Value> cp = convertTo(ctx, p, ct);
    if (failed(cp))
      return failure();
    p = *cp;
  }
  FailureOr<Value> y = build(*cx, params);
  if (failed(y))
    return failure();
  return ctx.setResult(0, convertTo(ctx, *y, et));
}

LogicalResult importBatchNorm(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), mean = ctx.input("mean"),
                   var = ctx.input("variance");
  FailureOr<Value> gamma = ctx.optionalInput("gamma"),
                   beta = ctx.optionalInput("beta");
  FailureOr<double> eps = ctx.getFloat("epsilon", 1e-5);
  if (failed(x) || failed(mean) || failed(var) || failed(gamma) ||
      failed(beta) || failed(eps))
    return failure();
  if (rankOf(*x) < 2 || typeOf(*x).isDynamicDim(1))
    return emitError(ctx.loc)
           << "batch_norm needs a static channel dim, got " << x->getType();
  Value g = *gamma ? *gamma : channelConstant(ctx, *x, 1.0);
  Value bt = *beta ? *beta : channelConstant(ctx, *x, 0.0);
  return normalizeIn(ctx, *x, {g, bt, *mean, *var},
                     [&](Value cx, ArrayRef<Value> p) {
                       return buildBatchNormInference(ctx.b, ctx.loc, cx, p[0],
                                                      p[1], p[2], p[3], *eps);
                     });
}

LogicalResult importInstanceNorm(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<Value> gamma = ctx.optionalInput("gamma"),
                   beta = ctx.optionalInput("beta");
  FailureOr<double> eps = ctx.getFloat("epsilon", 1e-5);
  if (failed(x) || failed(gamma) || failed(beta) || failed(eps))
    return failure();
  return normalizeIn(
      ctx, *x, {*gamma, *beta}, [&](Value cx, ArrayRef<Value> p) {
        return buildInstanceNorm(ctx.b, ctx.loc, cx, p[0], p[1], *eps);
      });
}

LogicalResult importLayerNorm(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<Value> gamma = ctx.optionalInput("gamma"),
                   beta = ctx.optionalInput("beta");
  FailureOr<SmallVector<int64_t>> axes =
      ctx.getInts("axes", SmallVector<int64_t>());
  FailureOr<double> eps = ctx.getFloat("epsilon", 1e-5);
  if (failed(x) || failed(gamma) || failed(beta) || failed(axes) || failed(eps))
    return failure();
  return normalizeIn(ctx, *x, {*gamma, *beta},
                     [&](Value cx, ArrayRef<Value> p) -> FailureOr<Value> {
                       FailureOr<LayerNormResult> r = buildLayerNorm(
                           ctx.b, ctx.loc, cx, *axes, p[0], p[1], *eps);
                       if (failed(r))
                         return failure();
                       return r->y;
                     });
}

/// l2_norm(x [*B, D1, D2, D3], epsilon = 1e-6): each batch entry divided by
/// sqrt(its sum of squares + epsilon), over the last three dims.
LogicalResult importL2Norm(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<double> eps = ctx.getFloat("epsilon", 1e-6);
  if (failed(x) || failed(eps))
    return failure();
  if (rankOf(*x) < 3)
    return emitError(ctx.loc)
           << "l2_norm needs x of rank >= 3, got " << x->getType();
  return normalizeIn(ctx, *x, {}, [&](Value cx, ArrayRef<Value>) {
    return buildL2Normalize(ctx.b, ctx.loc, cx, {-3, -2, -1}, *eps);
  });
}

/// local_response_norm(x [..., C, H, W], size, alpha = 1e-4, beta = 0.75,
/// k = 1): across the channels at dim -3 (the op's smoke test pins this
/// for rank 3: [C, H, W]), the window of an even size reaching one channel
/// further back (as aten's). Leading dims (none for rank 3, N for rank 4,
/// several for rank 5 and up) are batch dims.
LogicalResult importLocalResponseNorm(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<int64_t> size = ctx.getInt("size");
  FailureOr<double> alpha = ctx.getFloat("alpha", 1e-4),
                    beta = ctx.getFloat("beta", 0.75),
                    k = ctx.getFloat("k", 1.0);
  if (failed(x) || failed(size) || failed(alpha) || failed(beta) || failed(k))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank();
  if (rank < 3)
    return emitError(ctx.loc) << "local_response_norm needs x of rank >= 3 "
                                 "([..., C, H, W]), got "
                              << x->getType();
  // One batch dim in front of [C, H, W].
  FailureOr<Value> input =
      rank == 3   ? buildUnsqueeze(ctx.b, ctx.loc, *x, 0)
      : rank == 4 ? FailureOr<Value>(*x)
                  : buildCollapseDims(ctx.b, ctx.loc, *x, 0, rank - 4);
  if (failed(input))
    return failure();
  FailureOr<Value> y = buildLRN(ctx.b, ctx.loc, *input, *size, *alpha, *beta,
                                *k, /*extraBefore=*/true);
  if (failed(y) || rank == 4)
    return ctx.setResult(0, y);
  if (rank == 3)
    return ctx.setResult(0, buildSqueeze(ctx.b, ctx.loc, *y, {0}));
  if (!type.hasStaticShape())
    return emitError(ctx.loc) << "unsupported local_response_norm of rank "
                              << rank << " with dynamic extents";
  return ctx.setResult(0, buildReshape(ctx.b, ctx.loc, *y, type.getShape()));
}

} // namespace

void registerNormalizationOps(OpTable &table) {
  table.add({
      {"batch_norm", importBatchNorm},
      {"instance_norm", importInstanceNorm},
      {"l2_norm", importL2Norm},
      {"layer_norm", importLayerNorm},
      {"local_response_norm", importLocalResponseNorm},
  });
}

} // namespace mlprog::mil_import
