//===- RecurrentOps.cpp - ONNX RNN, GRU, LSTM -----------------------------===//
//
// Handlers for ONNX RNN, GRU and LSTM: attributes and optional inputs are
// read here, the layer itself is built by buildRecurrent (Common/Recurrent.h)
// as an scf.for over the sequence.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"

#include "mlprog/Import/Common/Recurrent.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;

namespace mlprog::onnx_import {
namespace {

/// Reads the attributes shared by RNN, GRU and LSTM into `opt`: hidden_size
/// (or R's last extent when absent), direction, layout (opset 14),
/// activations with activation_alpha/beta (consumed in order by the
/// functions that take the parameter), clip.
LogicalResult readOptions(NodeContext &ctx, RecurrentCellKind cell,
                          RecurrentOptions &opt) {
  opt.cell = cell;
  std::string direction = ctx.getString("direction", "forward");
  if (direction == "forward")
    opt.direction = RecurrentDirection::Forward;
  else if (direction == "reverse")
    opt.direction = RecurrentDirection::Reverse;
  else if (direction == "bidirectional")
    opt.direction = RecurrentDirection::Bidirectional;
  else
    return emitError(ctx.loc)
           << ctx.node.op_type() << ": invalid direction '" << direction << "'";
  int64_t layout = ctx.getInt("layout", 0);
  if (layout != 0 && layout != 1)
    return emitError(ctx.loc)
           << ctx.node.op_type() << ": invalid layout " << layout;
  opt.batchFirst = layout == 1;

  opt.hiddenSize = ctx.getInt("hidden_size", 0);
  if (!ctx.attribute("hidden_size") && ctx.hasInput(2)) {
    // hidden_size is optional in the spec: R is [D, G*H, H].
    FailureOr<Value> r = ctx.input(2);
    if (failed(r))
      return failure();
    auto type = dyn_cast<RankedTensorType>(r->getType());
    if (!type || type.getRank() != 3 || type.isDynamicDim(2))
      return emitError(ctx.loc) << "unsupported " << ctx.node.op_type()
                                << " without hidden_size and a static R";
    opt.hiddenSize = type.getDimSize(2);
  }

  if (const onnx::AttributeProto *clip = ctx.attribute("clip"))
    opt.clip = clip->f();

  const onnx::AttributeProto *acts = ctx.attribute("activations");
  if (!acts)
    return success(); // The builder's defaults.
  const onnx::AttributeProto *alphas = ctx.attribute("activation_alpha");
  const onnx::AttributeProto *betas = ctx.attribute("activation_beta");
  int alphaIndex = 0, betaIndex = 0;
  for (const std::string &name : acts->strings()) {
    std::optional<RecurrentActivation> act = RecurrentActivation::parse(name);
    if (!act)
      return emitError(ctx.loc) << "unsupported " << ctx.node.op_type()
                                << " activation '" << name << "'";
    if (act->usesAlpha() && alphas && alphaIndex < alphas->floats_size())
      act->alpha = alphas->floats(alphaIndex++);
    if (act->usesBeta() && betas && betaIndex < betas->floats_size())
      act->beta = betas->floats(betaIndex++);
    opt.activations.push_back(*act);
  }
  return success();
}

/// RNN, GRU, LSTM (opsets 7 and 14). Inputs X, W, R, B, sequence_lens,
/// initial_h (and for LSTM initial_c, P); outputs Y, Y_h (and Y_c), any of
/// which may be omitted. GRU reads linear_before_reset, LSTM input_forget.
/// Opset 14's `layout` = 1 (batch-first) is supported.
LogicalResult importRecurrent(NodeContext &ctx, RecurrentCellKind cell) {
  RecurrentOptions opt;
  if (failed(readOptions(ctx, cell, opt)))
    return failure();
  if (cell == RecurrentCellKind::GRU)
    opt.linearBeforeReset = ctx.getInt("linear_before_reset", 0) != 0;
  if (cell == RecurrentCellKind::LSTM)
    opt.inputForget = ctx.getInt("input_forget", 0) != 0;
  opt.computeSequence = ctx.hasOutput(0);

  RecurrentOperands ops;
  FailureOr<Value> x = ctx.input(0), w = ctx.input(1), r = ctx.input(2);
  if (failed(x) || failed(w) || failed(r))
    return failure();
  ops.x = *x;
  ops.w = *w;
  ops.r = *r;
  ops.b = ctx.optionalInput(3);
  ops.sequenceLens = ctx.optionalInput(4);
  ops.initialH = ctx.optionalInput(5);
  if (cell == RecurrentCellKind::LSTM) {
    ops.initialC = ctx.optionalInput(6);
    ops.peepholes = ctx.optionalInput(7);
  } else if (ctx.node.input_size() > 6) {
    return emitError(ctx.loc)
           << ctx.node.op_type() << " takes at most 6 inputs, got "
           << ctx.node.input_size();
  }

  FailureOr<RecurrentResults> results =
      buildRecurrent(ctx.b, ctx.loc, ops, opt);
  if (failed(results))
    return failure();
  if (ctx.hasOutput(0) && failed(ctx.setResult(0, results->y)))
    return failure();
  if (failed(ctx.setResult(1, results->yH)))
    return failure();
  if (cell == RecurrentCellKind::LSTM && failed(ctx.setResult(2, results->yC)))
    return failure();
  return success();
}

LogicalResult importRNN(NodeContext &ctx) {
  return importRecurrent(ctx, RecurrentCellKind::RNN);
}
LogicalResult importGRU(NodeContext &ctx) {
  return importRecurrent(ctx, RecurrentCellKind::GRU);
}
LogicalResult importLSTM(NodeContext &ctx) {
  return importRecurrent(ctx, RecurrentCellKind::LSTM);
}

} // namespace

void registerRecurrentOps(OpTable &table) {
  table.add({
      {"RNN", importRNN},
      {"GRU", importGRU},
      {"LSTM", importLSTM},
  });
}

} // namespace mlprog::onnx_import
