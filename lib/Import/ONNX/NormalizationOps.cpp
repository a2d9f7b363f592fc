//===- NormalizationOps.cpp - ONNX normalization ops ----------------------===//
//
// Handlers for BatchNormalization (inference and opset 14 training mode),
// LayerNormalization, InstanceNormalization, GroupNormalization (18, 21),
// RMSNormalization (23), LRN, LpNormalization and
// MeanVarianceNormalization.
//
// Handlers only read operands and attributes (with the ONNX operator spec's
// defaults for the model's opset) and call the shared builders in
// mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"
#include "TensorConversion.h"

#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Normalization.h"

using namespace mlir;

namespace mlprog::onnx_import {

namespace {

/// BatchNormalization in training mode (opset 14+, training_mode = 1):
/// normalizes with the batch statistics and returns the running averages
/// `running * momentum + batch * (1 - momentum)` (biased batch variance) as
/// outputs 1 and 2.
LogicalResult importBatchNormTraining(NodeContext &ctx, ArrayRef<Value> in) {
  FailureOr<BatchNormTrainingResult> r = buildBatchNormTraining(
      ctx.b, ctx.loc, in[0], in[1], in[2], ctx.getFloat("epsilon", 1e-5));
  if (failed(r) || failed(ctx.setResult(0, r->output)))
    return failure();
  double momentum = ctx.getFloat("momentum", 0.9);
  if (ctx.hasOutput(1) &&
      failed(ctx.setResult(
          1, buildRunningAverage(ctx.b, ctx.loc, in[3], r->mean, momentum))))
    return failure();
  if (ctx.hasOutput(2) &&
      failed(ctx.setResult(2, buildRunningAverage(ctx.b, ctx.loc, in[4],
                                                  r->biasedVar, momentum))))
    return failure();
  return success();
}

/// BatchNormalization: inference (before opset 9: spatial = 1), or training
/// mode from opset 14 (training_mode = 1, see importBatchNormTraining).
/// The training outputs of opsets before 14 are rejected.
LogicalResult importBatchNorm(NodeContext &ctx) {
  int64_t mode = ctx.getInt("training_mode", 0);
  if (mode != 0 && (mode != 1 || ctx.opset < 14))
    return emitError(ctx.loc)
           << "unsupported BatchNormalization attribute training_mode=" << mode;
  if (ctx.opset < 9 && ctx.getInt("spatial", 1) != 1)
    return emitError(ctx.loc)
           << "unsupported BatchNormalization attribute spatial="
           << ctx.getInt("spatial", 1);
  if (!mode)
    for (int i = 1; i < ctx.node.output_size(); ++i)
      if (ctx.hasOutput(i))
        return emitError(ctx.loc) << "unsupported BatchNormalization training "
                                     "output "
                                  << i;
  SmallVector<Value> in;
  for (unsigned i = 0; i < 5; ++i) {
    FailureOr<Value> v = ctx.input(i);
    if (failed(v))
      return failure();
    in.push_back(*v);
  }
  if (mode)
    return importBatchNormTraining(ctx, in);
  return ctx.setResult(
      0, buildBatchNormInference(ctx.b, ctx.loc, in[0], in[1], in[2], in[3],
                                 in[4], ctx.getFloat("epsilon", 1e-5)));
}

/// LayerNormalization (opset 17: axis -1, epsilon 1e-5; optional Mean and
/// InvStdDev outputs). stash_type other than 1 (float) is unsupported.
LogicalResult importLayerNorm(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), scale = ctx.input(1);
  if (failed(x) || failed(scale))
    return failure();
  if (int64_t stash = ctx.getInt("stash_type", 1); stash != 1)
    return emitError(ctx.loc)
           << "unsupported LayerNormalization stash_type " << stash;
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", -1), rankOf(*x));
  if (failed(axis))
    return failure();
  FailureOr<LayerNormResult> r = buildLayerNorm(
      ctx.b, ctx.loc, *x, llvm::to_vector(llvm::seq(*axis, rankOf(*x))), *scale,
      ctx.optionalInput(2), ctx.getFloat("epsilon", 1e-5));
  if (failed(r))
    return failure();
  if (failed(ctx.setResult(0, r->y)) || failed(ctx.setResult(1, r->mean)))
    return failure();
  return ctx.setResult(2, r->invStdDev);
}

/// The float type of a stash_type attribute (default 1: float), or a located
/// error naming `op`.
FailureOr<Type> stashType(NodeContext &ctx, StringRef op) {
  int64_t stash = ctx.getInt("stash_type", 1);
  FailureOr<Type> type = convertElementType(ctx.loc, int32_t(stash));
  if (failed(type) || !isa<FloatType>(*type))
    return emitError(ctx.loc)
           << "unsupported " << op << " stash_type " << stash;
  return type;
}

/// RMSNormalization (opset 23: axis -1, epsilon 1e-5, stash_type 1).
LogicalResult importRMSNorm(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), scale = ctx.input(1);
  if (failed(x) || failed(scale))
    return failure();
  FailureOr<Type> stash = stashType(ctx, "RMSNormalization");
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", -1), rankOf(*x));
  if (failed(stash) || failed(axis))
    return failure();
  return ctx.setResult(
      0, buildRMSNorm(ctx.b, ctx.loc, *x,
                      llvm::to_vector(llvm::seq(*axis, rankOf(*x))), *scale,
                      ctx.getFloat("epsilon", 1e-5), *stash));
}

/// GroupNormalization (num_groups required, epsilon 1e-5): opset 18 scales
/// and shifts per group in the input type, opset 21 per channel with the
/// statistics in stash_type (default 1: float).
LogicalResult importGroupNorm(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), scale = ctx.input(1), bias = ctx.input(2);
  if (failed(x) || failed(scale) || failed(bias))
    return failure();
  if (!ctx.attribute("num_groups"))
    return emitError(ctx.loc) << "GroupNormalization needs a 'num_groups' "
                                 "attribute";
  Type compute;
  if (ctx.opset >= 21) {
    FailureOr<Type> stash = stashType(ctx, "GroupNormalization");
    if (failed(stash))
      return failure();
    compute = *stash;
  }
  return ctx.setResult(
      0, buildGroupNorm(ctx.b, ctx.loc, *x, ctx.getInt("num_groups", 1), *scale,
                        *bias, ctx.getFloat("epsilon", 1e-5), compute));
}

/// InstanceNormalization (epsilon 1e-5).
LogicalResult importInstanceNorm(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), scale = ctx.input(1), bias = ctx.input(2);
  if (failed(x) || failed(scale) || failed(bias))
    return failure();
  return ctx.setResult(0, buildInstanceNorm(ctx.b, ctx.loc, *x, *scale, *bias,
                                            ctx.getFloat("epsilon", 1e-5)));
}

/// LRN (size required; alpha 1e-4, beta 0.75, bias 1).
LogicalResult importLRN(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  if (!ctx.attribute("size"))
    return emitError(ctx.loc) << "LRN needs a 'size' attribute";
  return ctx.setResult(0, buildLRN(ctx.b, ctx.loc, *x, ctx.getInt("size", 1),
                                   ctx.getFloat("alpha", 1e-4),
                                   ctx.getFloat("beta", 0.75),
                                   ctx.getFloat("bias", 1.0)));
}

/// MeanVarianceNormalization (axes [0, 2, 3] by default).
LogicalResult importMVN(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  SmallVector<int64_t> axes = ctx.getInts("axes");
  if (!ctx.attribute("axes"))
    axes = {0, 2, 3};
  return ctx.setResult(
      0, buildMeanVarianceNormalization(ctx.b, ctx.loc, *x, axes));
}

/// LpNormalization: axis -1 and p 2 by default.
LogicalResult importLpNormalization(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildLpNormalization(ctx.b, ctx.loc, *x,
                                               ctx.getInt("axis", -1),
                                               ctx.getInt("p", 2)));
}

} // namespace

void registerNormalizationOps(OpTable &table) {
  table.add({
      {"BatchNormalization", importBatchNorm},
      {"GroupNormalization", importGroupNorm},
      {"InstanceNormalization", importInstanceNorm},
      {"LRN", importLRN},
      {"LayerNormalization", importLayerNorm},
      {"LpNormalization", importLpNormalization},
      {"MeanVarianceNormalization", importMVN},
      {"RMSNormalization", importRMSNorm},
  });
}

} // namespace mlprog::onnx_import
