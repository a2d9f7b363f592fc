//===- NormalizationOps.cpp - MIL normalization ops -----------------------===//
//
// batch_norm, instance_norm and layer_norm.
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
  return ctx.setResult(
      0, buildBatchNormInference(ctx.b, ctx.loc, *x, g, bt, *mean, *var, *eps));
}

LogicalResult importInstanceNorm(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<Value> gamma = ctx.optionalInput("gamma"),
                   beta = ctx.optionalInput("beta");
  FailureOr<double> eps = ctx.getFloat("epsilon", 1e-5);
  if (failed(x) || failed(gamma) || failed(beta) || failed(eps))
    return failure();
  return ctx.setResult(
      0, buildInstanceNorm(ctx.b, ctx.loc, *x, *gamma, *beta, *eps));
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
  FailureOr<LayerNormResult> r =
      buildLayerNorm(ctx.b, ctx.loc, *x, *axes, *gamma, *beta, *eps);
  if (failed(r))
    return failure();
  return ctx.setResult(0, r->y);
}

} // namespace

void registerNormalizationOps(OpTable &table) {
  table.add({
      {"batch_norm", importBatchNorm},
      {"instance_norm", importInstanceNorm},
      {"layer_norm", importLayerNorm},
  });
}

} // namespace mlprog::mil_import
