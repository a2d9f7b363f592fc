//===- TrainingOps.cpp - ai.onnx.preview.training optimizers --------------===//
//
// Adagrad, Momentum and Adam (domain ai.onnx.preview.training, version 1):
// inputs R, T, then n tensors X, n gradients G and n of each state tensor;
// outputs n new X, then n of each new state. The update rules are the
// builders of mlprog/Import/Common/Optimizer.h, applied to each X in turn.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"
#include "mlprog/Import/Common/Optimizer.h"

using namespace mlir;

namespace mlprog::onnx_import {
namespace {

/// Updates `n` tensors, each by `update(r, t, operands)`, where operands are
/// X_i and its `numState + 1` followers (G_i and the state tensors), and
/// sets output k * n + i to result k of tensor i.
LogicalResult importOptimizer(
    NodeContext &ctx, StringRef op, unsigned numState,
    function_ref<FailureOr<SmallVector<Value>>(Value, Value, ArrayRef<Value>)>
        update) {
  unsigned groups = numState + 2; // X, G and each state tensor.
  int inputs = ctx.node.input_size() - 2;
  if (inputs <= 0 || inputs % groups != 0)
    return emitError(ctx.loc)
           << op << ": expected R, T and " << groups
           << " groups of tensors (X, G"
           << (numState == 1 ? ", one state" : ", two states") << "), got "
           << ctx.node.input_size() << " inputs";
  unsigned n = inputs / groups;
  FailureOr<Value> r = ctx.input(0), t = ctx.input(1);
  if (failed(r) || failed(t))
    return failure();
  for (unsigned i = 0; i < n; ++i) {
    SmallVector<Value> operands;
    for (unsigned k = 0; k < groups; ++k) {
      FailureOr<Value> v = ctx.input(2 + k * n + i);
      if (failed(v))
        return failure();
      operands.push_back(*v);
    }
    FailureOr<SmallVector<Value>> results = update(*r, *t, operands);
    if (failed(results))
      return failure();
    for (auto [k, value] : llvm::enumerate(*results))
      if (ctx.hasOutput(k * n + i) && failed(ctx.setResult(k * n + i, value)))
        return failure();
  }
  return success();
}

LogicalResult importAdagrad(NodeContext &ctx) {
  AdagradParams p;
  p.decayFactor = ctx.getFloat("decay_factor", 0.0);
  p.epsilon = ctx.getFloat("epsilon", 0.0);
  p.normCoefficient = ctx.getFloat("norm_coefficient", 0.0);
  return importOptimizer(
      ctx, "Adagrad", 1, [&](Value r, Value t, ArrayRef<Value> a) {
        return buildAdagrad(ctx.b, ctx.loc, r, t, a[0], a[1], a[2], p);
      });
}

LogicalResult importMomentum(NodeContext &ctx) {
  for (StringRef required : {"alpha", "beta", "mode", "norm_coefficient"})
    if (!ctx.attribute(required))
      return emitError(ctx.loc)
             << "Momentum: the attribute '" << required << "' is required";
  MomentumParams p;
  p.alpha = ctx.getFloat("alpha", 0.0);
  p.beta = ctx.getFloat("beta", 0.0);
  p.normCoefficient = ctx.getFloat("norm_coefficient", 0.0);
  std::string mode = ctx.getString("mode", "standard");
  if (mode != "standard" && mode != "nesterov")
    return emitError(ctx.loc) << "Momentum: mode must be 'standard' or "
                                 "'nesterov', got '"
                              << mode << "'";
  p.nesterov = mode == "nesterov";
  return importOptimizer(
      ctx, "Momentum", 1, [&](Value r, Value t, ArrayRef<Value> a) {
        return buildMomentum(ctx.b, ctx.loc, r, t, a[0], a[1], a[2], p);
      });
}

LogicalResult importAdam(NodeContext &ctx) {
  AdamParams p;
  p.alpha = ctx.getFloat("alpha", 0.9);
  p.beta = ctx.getFloat("beta", 0.999);
  p.epsilon = ctx.getFloat("epsilon", 1e-6);
  p.normCoefficient = ctx.getFloat("norm_coefficient", 0.0);
  p.normCoefficientPost = ctx.getFloat("norm_coefficient_post", 0.0);
  return importOptimizer(
      ctx, "Adam", 2, [&](Value r, Value t, ArrayRef<Value> a) {
        return buildAdam(ctx.b, ctx.loc, r, t, a[0], a[1], a[2], a[3], p);
      });
}

} // namespace

void registerTrainingOps(OpTable &table) {
  table.add({
      {"ai.onnx.preview.training::Adagrad", importAdagrad},
      {"ai.onnx.preview.training::Adam", importAdam},
      {"ai.onnx.preview.training::Momentum", importMomentum},
  });
}

} // namespace mlprog::onnx_import
