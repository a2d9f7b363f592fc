//===- AttentionOps.cpp - ONNX Attention and RotaryEmbedding --------------===//
//
// Handlers for the transformer ops of opsets 23-25: Attention (23, 24 adds
// nonpad_kv_seqlen, 25 the sliding window) and RotaryEmbedding (23).
//
// Handlers only read operands and attributes (with the ONNX operator spec's
// defaults for the node's opset) and call the shared builders in
// mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"
#include "TensorConversion.h"

#include "mlprog/Import/Common/Attention.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace mlprog::onnx_import {

namespace {

/// The builder options from the Attention attributes of `ctx.opset`.
FailureOr<AttentionOptions> attentionOptions(NodeContext &ctx) {
  AttentionOptions o;
  if (ctx.attribute("scale"))
    o.scale = ctx.getFloat("scale", 0.0);
  o.isCausal = ctx.getInt("is_causal", 0) != 0;
  o.softcap = ctx.getFloat("softcap", 0.0);
  if (ctx.opset >= 25) {
    o.leftWindow = ctx.getInt("left_window_size", -1);
    o.rightWindow = ctx.getInt("right_window_size", -1);
    if (o.leftWindow < -1 || o.rightWindow < -1)
      return emitError(ctx.loc) << "unsupported Attention window sizes "
                                << o.leftWindow << ", " << o.rightWindow;
  }
  if (ctx.attribute("softmax_precision")) {
    int64_t precision = ctx.getInt("softmax_precision", 0);
    FailureOr<Type> type = convertElementType(ctx.loc, int32_t(precision));
    if (failed(type) || !isa<FloatType>(*type))
      return emitError(ctx.loc)
             << "unsupported Attention softmax_precision " << precision;
    o.softmaxType = *type;
  }
  if (ctx.hasOutput(3)) {
    int64_t mode = ctx.getInt("qk_matmul_output_mode", 0);
    if (mode < 0 || mode > 3)
      return emitError(ctx.loc)
             << "unsupported Attention qk_matmul_output_mode " << mode;
    o.scoresKind = AttentionScoresKind(mode);
  }
  return o;
}

/// Attention (opsets 23-25): 4-D [batch, heads, sequence, head size]
/// inputs, or 3-D [batch, sequence, hidden] ones split into q_num_heads /
/// kv_num_heads heads (the output merged back).
LogicalResult importAttention(NodeContext &ctx) {
  FailureOr<Value> q = ctx.input(0), k = ctx.input(1), v = ctx.input(2);
  if (failed(q) || failed(k) || failed(v))
    return failure();
  int64_t rank = rankOf(*q);
  if ((rank != 3 && rank != 4) || rankOf(*k) != rank || rankOf(*v) != rank)
    return emitError(ctx.loc)
           << "unsupported Attention inputs of ranks " << rank << ", "
           << rankOf(*k) << ", " << rankOf(*v) << " (needs all 3-D or all 4-D)";
  if (rank == 3) {
    if (!ctx.attribute("q_num_heads") || !ctx.attribute("kv_num_heads"))
      return emitError(ctx.loc) << "Attention with 3-D inputs needs the "
                                   "q_num_heads and kv_num_heads attributes";
    int64_t headsQ = ctx.getInt("q_num_heads", 0);
    int64_t headsKV = ctx.getInt("kv_num_heads", 0);
    q = buildSplitHeads(ctx.b, ctx.loc, *q, headsQ);
    if (succeeded(q))
      k = buildSplitHeads(ctx.b, ctx.loc, *k, headsKV);
    if (succeeded(k))
      v = buildSplitHeads(ctx.b, ctx.loc, *v, headsKV);
    if (failed(q) || failed(k) || failed(v))
      return failure();
  }
  FailureOr<AttentionOptions> options = attentionOptions(ctx);
  if (failed(options))
    return failure();
  FailureOr<AttentionResult> r = buildAttention(
      ctx.b, ctx.loc, *q, *k, *v, ctx.optionalInput(3), ctx.optionalInput(4),
      ctx.optionalInput(5), ctx.opset >= 24 ? ctx.optionalInput(6) : Value(),
      *options);
  if (failed(r))
    return failure();
  FailureOr<Value> y = rank == 3 ? buildMergeHeads(ctx.b, ctx.loc, r->output)
                                 : FailureOr<Value>(r->output);
  if (failed(ctx.setResult(0, y)) || failed(ctx.setResult(1, r->presentKey)) ||
      failed(ctx.setResult(2, r->presentValue)))
    return failure();
  return ctx.hasOutput(3) ? ctx.setResult(3, r->scores) : success();
}

/// RotaryEmbedding (opset 23): interleaved 0, rotary_embedding_dim 0 (the
/// whole head), num_heads needed for 3-D input.
LogicalResult importRotaryEmbedding(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), cos = ctx.input(1), sin = ctx.input(2);
  if (failed(x) || failed(cos) || failed(sin))
    return failure();
  int64_t numHeads = 0;
  if (rankOf(*x) == 3) {
    numHeads = ctx.getInt("num_heads", 0);
    if (numHeads <= 0)
      return emitError(ctx.loc) << "RotaryEmbedding with a 3-D input needs a "
                                   "positive num_heads attribute";
  }
  return ctx.setResult(
      0,
      buildRotaryEmbedding(ctx.b, ctx.loc, *x, *cos, *sin, ctx.optionalInput(3),
                           ctx.getInt("interleaved", 0) != 0,
                           ctx.getInt("rotary_embedding_dim", 0), numHeads));
}

/// FlexAttention (domain ai.onnx.preview, version 1): rank-4 Q, K, V;
/// attributes `scale`, `softmax_precision` (the compute type's ONNX data
/// type), and the `score_mod` / `prob_mod` graphs, each of one input and one
/// output of the scores' shape and type.
LogicalResult importFlexAttention(NodeContext &ctx) {
  FailureOr<Value> q = ctx.input(0), k = ctx.input(1), v = ctx.input(2);
  if (failed(q) || failed(k) || failed(v))
    return failure();
  std::optional<double> scale;
  if (ctx.attribute("scale"))
    scale = ctx.getFloat("scale", 1.0);
  Type computeType;
  if (ctx.attribute("softmax_precision")) {
    FailureOr<Type> t = convertElementType(
        ctx.loc, int32_t(ctx.getInt("softmax_precision", 1)));
    if (failed(t))
      return failure();
    if (!isa<FloatType>(*t))
      return emitError(ctx.loc)
             << "FlexAttention: softmax_precision must be a float type";
    computeType = *t;
  }
  const onnx::GraphProto *scoreGraph = ctx.getGraph("score_mod");
  const onnx::GraphProto *probGraph = ctx.getGraph("prob_mod");
  auto runGraph = [&](const onnx::GraphProto *g, StringRef what,
                      Value in) -> FailureOr<Value> {
    if (g->input_size() != 1 || g->output_size() != 1)
      return emitError(ctx.loc) << "FlexAttention: " << what
                                << " must have one input and one output";
    if (!ctx.importSubgraph)
      return emitError(ctx.loc)
             << "unsupported FlexAttention " << what << " here";
    FailureOr<SmallVector<Value>> out = (*ctx.importSubgraph)(*g, in);
    if (failed(out))
      return failure();
    return (*out)[0];
  };
  auto scoreMod = [&](Value in) {
    return runGraph(scoreGraph, "score_mod", in);
  };
  auto probMod = [&](Value in) { return runGraph(probGraph, "prob_mod", in); };
  return ctx.setResult(
      0, buildFlexAttention(
             ctx.b, ctx.loc, *q, *k, *v, scale, computeType,
             scoreGraph ? AttentionModifier(scoreMod) : AttentionModifier(),
             probGraph ? AttentionModifier(probMod) : AttentionModifier()));
}

/// LinearAttention (opset 27): query, key, value [B, T, H * d], optional
/// past_state, decay and beta; attributes q_num_heads, kv_num_heads
/// (required), scale (0: 1 / sqrt(dk)), update_rule (linear, gated, delta,
/// gated_delta: the default); chunk_size is a tuning hint without effect.
LogicalResult importLinearAttention(NodeContext &ctx) {
  FailureOr<Value> q = ctx.input(0), k = ctx.input(1), v = ctx.input(2);
  if (failed(q) || failed(k) || failed(v))
    return failure();
  std::string ruleName = ctx.getString("update_rule", "gated_delta");
  std::optional<LinearAttentionRule> rule =
      llvm::StringSwitch<std::optional<LinearAttentionRule>>(ruleName)
          .Case("linear", LinearAttentionRule::Linear)
          .Case("gated", LinearAttentionRule::Gated)
          .Case("delta", LinearAttentionRule::Delta)
          .Case("gated_delta", LinearAttentionRule::GatedDelta)
          .Default(std::nullopt);
  if (!rule)
    return emitError(ctx.loc)
           << "LinearAttention: unknown update_rule '" << ruleName << "'";
  if (!ctx.attribute("q_num_heads") || !ctx.attribute("kv_num_heads"))
    return emitError(ctx.loc)
           << "LinearAttention needs the q_num_heads and kv_num_heads "
              "attributes";
  FailureOr<LinearAttentionResult> r = buildLinearAttention(
      ctx.b, ctx.loc, *q, *k, *v, ctx.optionalInput(3), ctx.optionalInput(4),
      ctx.optionalInput(5), ctx.getInt("q_num_heads", 0),
      ctx.getInt("kv_num_heads", 0), ctx.getFloat("scale", 0.0), *rule);
  if (failed(r) || failed(ctx.setResult(0, r->output)))
    return failure();
  return ctx.setResult(1, r->presentState);
}

/// TensorScatter (opset 24): past_cache, update, optional write_indices;
/// attributes axis (default -2) and mode (linear or circular).
LogicalResult importTensorScatter(NodeContext &ctx) {
  FailureOr<Value> cache = ctx.input(0), update = ctx.input(1);
  if (failed(cache) || failed(update))
    return failure();
  std::string mode = ctx.getString("mode", "linear");
  if (mode != "linear" && mode != "circular")
    return emitError(ctx.loc) << "TensorScatter: mode must be linear or "
                                 "circular, got '"
                              << mode << "'";
  return ctx.setResult(0, buildTensorScatter(ctx.b, ctx.loc, *cache, *update,
                                             ctx.optionalInput(2),
                                             ctx.getInt("axis", -2),
                                             mode == "circular"));
}

} // namespace

void registerAttentionOps(OpTable &table) {
  table.add({
      {"Attention", importAttention},
      {"LinearAttention", importLinearAttention},
      {"RotaryEmbedding", importRotaryEmbedding},
      {"TensorScatter", importTensorScatter},
      {"ai.onnx.preview::FlexAttention", importFlexAttention},
  });
}

} // namespace mlprog::onnx_import
