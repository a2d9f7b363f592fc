//===- Attention.h - Scaled dot-product attention, RoPE ---------*- C++ -*-===//
//
// Format-independent builders for the transformer blocks that are more than
// a matmul: scaled dot-product attention (multi-head, grouped-query and
// multi-query, with masks, causal and sliding-window frontiers, KV caches
// and soft-capping), splitting and merging attention heads, and rotary
// position embeddings. They are composed from the matmul, softmax,
// elementwise, shape and gather builders.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_ATTENTION_H
#define MLPROG_IMPORT_COMMON_ATTENTION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlprog {

/// Which intermediate of buildAttention is returned as `scores`, all
/// [B, Hq, Sq, T] in Q's element type.
enum class AttentionScoresKind {
  MatMul,     ///< scaled Q K^T
  Softcapped, ///< after soft-capping (before the bias)
  Biased,     ///< after soft-capping and adding the mask/causal bias
  Softmax,    ///< the attention probabilities (fully masked rows are 0)
};

/// Attributes of buildAttention.
struct AttentionOptions {
  /// Factor applied to Q K^T; default 1 / sqrt(D). Q and K are each
  /// multiplied by sqrt(scale), rounded to Q's element type, before the
  /// product (this keeps half-precision products from overflowing).
  std::optional<double> scale;
  /// Causal frontier: query i attends key j iff j <= i + offset, offset the
  /// number of valid keys before the query block (see buildAttention).
  bool isCausal = false;
  /// With softcap > 0, scores become softcap * tanh(scores / softcap)
  /// before the bias is added.
  double softcap = 0.0;
  /// Sliding window: with a bound >= 0, query i attends only keys j with
  /// i + offset - left <= j (left) and j <= i + offset + right (right);
  /// -1 leaves that side unbounded.
  int64_t leftWindow = -1, rightWindow = -1;
  /// Float type the softmax is computed in; null means Q's element type.
  mlir::Type softmaxType;
  /// The intermediate to return as AttentionResult::scores, if any.
  std::optional<AttentionScoresKind> scoresKind;
};

/// Results of buildAttention.
struct AttentionResult {
  mlir::Value output;       ///< [B, Hq, Sq, Dv], Q's element type
  mlir::Value presentKey;   ///< [B, Hkv, P + Skv, D]: past key ++ key
  mlir::Value presentValue; ///< [B, Hkv, P + Skv, Dv]: past value ++ value
  mlir::Value scores;       ///< [B, Hq, Sq, T] when options.scoresKind is set
};

/// Scaled dot-product attention on 4-D float tensors:
/// `q` [B, Hq, Sq, D], `k` [B, Hkv, Skv, D], `v` [B, Hkv, Skv, Dv], one
/// element type (f16, bf16, f32 or f64). Hq must be a multiple of Hkv: query
/// head h reads key/value head h / (Hq / Hkv) (grouped-query attention;
/// Hkv = 1 is multi-query; K and V are broadcast to Hq heads).
///
/// Optional operands (null when absent):
///  - `pastKey` [B, Hkv, P, D] and `pastValue` [B, Hkv, P, Dv] (together):
///    the cache is concatenated before `k`/`v` along the sequence, giving
///    T = P + Skv keys and the present key/value results (k and v
///    themselves when there is no past);
///  - `mask`, broadcastable (numpy, right-aligned) to [B, Hq, Sq, T]: i1
///    (true = attend) or Q's element type (added to the scores). A last
///    extent shorter than T (static) is padded with false / -inf;
///  - `kvLengths` [B] (i64, not with a past cache): keys j >= kvLengths[b]
///    are padding and masked out.
/// `offset` of the causal and window frontiers is P with a past cache,
/// kvLengths[b] - Sq with kvLengths (bottom-right aligned), 0 otherwise.
///
/// Computation: S = (q * s) (k * s)^T with s = sqrt(scale); soft-capping;
/// S + bias where bias holds the float mask, and -inf where the bool mask,
/// the frontiers or kvLengths disallow a key; softmax over the keys in
/// `softmaxType`, converted back; rows whose bias is -inf everywhere give
/// probability 0 (and output 0, not NaN); output = probabilities x v.
/// f16 and bf16 matrix products and f16 softmax sums accumulate in f32 and
/// round once (as numpy does); every other step rounds per op.
///
/// Errors: ranks other than 4, mismatched element types or extents, Hq not
/// a multiple of Hkv, half a cache, a cache with kvLengths, a mask of another
/// element type, rank above 4 or longer than T.
/// Spec: ONNX Attention (opsets 23-25: nonpad_kv_seqlen is kvLengths, the
/// window is opset 25's left/right_window_size); aten::
/// scaled_dot_product_attention (scale, is_causal, enable_gqa).
mlir::FailureOr<AttentionResult>
buildAttention(mlir::OpBuilder &b, mlir::Location loc, mlir::Value q,
               mlir::Value k, mlir::Value v, mlir::Value mask,
               mlir::Value pastKey, mlir::Value pastValue,
               mlir::Value kvLengths, const AttentionOptions &options);

/// Rewrites attention scores or probabilities [B, H, L, S] (the compute
/// type) into a tensor of the same shape and type; errors are emitted.
using AttentionModifier =
    llvm::function_ref<mlir::FailureOr<mlir::Value>(mlir::Value)>;

/// Attention with user modifiers, as ONNX FlexAttention defines it: `q`
/// [B, Hq, L, E], `k` [B, Hkv, S, E], `v` [B, Hkv, S, Ev] (one float type;
/// Hq a multiple of Hkv, whose heads are repeated for grouped queries).
/// scores = (q sqrt(scale)) (k sqrt(scale))^T in q's type (scale
/// 1 / sqrt(E) when absent; sqrt(scale) rounded to f32, then to q's type),
/// converted to `computeType` (null: f32, or f64 for f64 inputs), passed
/// through `scoreMod` (may be null), softmax over S, `probMod` (may be
/// null), times v in `computeType`, converted to v's type: [B, Hq, L, Ev].
/// Errors: ranks other than 4, mismatched types or extents, Hq not a
/// multiple of Hkv, a modifier result of another type.
/// Spec: ONNX ai.onnx.preview FlexAttention (version 1);
/// torch.nn.attention.flex_attention.
mlir::FailureOr<mlir::Value>
buildFlexAttention(mlir::OpBuilder &b, mlir::Location loc, mlir::Value q,
                   mlir::Value k, mlir::Value v, std::optional<double> scale,
                   mlir::Type computeType, AttentionModifier scoreMod,
                   AttentionModifier probMod);

/// How buildLinearAttention updates its state S [dk, dv] per head and step.
enum class LinearAttentionRule {
  Linear,     ///< S += k v^T
  Gated,      ///< S = exp(g) S; S += k v^T
  Delta,      ///< v = beta (v - S^T k); S += k v^T
  GatedDelta, ///< S = exp(g) S; v = beta (v - S^T k); S += k v^T
};

/// Results of buildLinearAttention.
struct LinearAttentionResult {
  mlir::Value output;       ///< [B, T, Hq * dv], the query's type
  mlir::Value presentState; ///< [B, Hkv, dk, dv], the past state's type
};

/// Linear attention as a recurrence over the T steps of `query` [B, T,
/// Hq * dk], `key` [B, T, Hkv * dk] and `value` [B, T, Hkv * dv] (one float
/// type, computed in f32): per step, the state [B, Hkv, dk, dv] (from
/// `pastState`, or zeros) is updated by `rule` with `decay` g ([B, T, Hkv]
/// or [B, T, Hkv * dk], applied as exp(g) per key row; gated rules only) and
/// `beta` ([B, T, Hkv] or [B, T, 1]; delta rules only), and the output of
/// the step is scale * q^T S, query head h reading state head h / (Hq /
/// Hkv). `scale` 0 means 1 / sqrt(dk).
/// Errors: ranks other than 3, extents that do not split into the heads,
/// a missing or unexpected decay/beta for the rule, a past state of another
/// shape.
/// Spec: ONNX LinearAttention (opset 27).
mlir::FailureOr<LinearAttentionResult>
buildLinearAttention(mlir::OpBuilder &b, mlir::Location loc, mlir::Value query,
                     mlir::Value key, mlir::Value value, mlir::Value pastState,
                     mlir::Value decay, mlir::Value beta, int64_t qHeads,
                     int64_t kvHeads, double scale, LinearAttentionRule rule);

/// A key/value cache update: `cache` [B, ..., M, ...] with `update`
/// [B, ..., S, ...] (S <= M along `axis`, in [-rank, rank), the same
/// extents elsewhere, one element type) written at sequence positions
/// writeIndices[b] + s of batch b (`writeIndices` int64 [B], null: 0),
/// modulo M when `circular` (a later s wins); positions past M in linear
/// mode are not written. Built as one linalg.generic over the cache.
/// Errors: ranks or extents that do not match, a bad axis.
/// Spec: ONNX TensorScatter (opset 24).
mlir::FailureOr<mlir::Value>
buildTensorScatter(mlir::OpBuilder &b, mlir::Location loc, mlir::Value cache,
                   mlir::Value update, mlir::Value writeIndices, int64_t axis,
                   bool circular);

/// Results of buildPackedMultiHeadAttention.
struct MultiHeadAttentionResult {
  mlir::Value output;  ///< [B, L, E], the query's element type
  mlir::Value weights; ///< [B, L, S] or [B, H, L, S]; null unless asked for
};

/// Multi-head attention with packed input projections, as
/// torch.nn.MultiheadAttention (batch first) computes it: `query`
/// [B, L, E], `key` [B, S, E] and `value` [B, S, E] (one float element type,
/// static E) are projected by the row blocks of `qkvWeight` [3E, E] and
/// `qkvBias` [3E] (x W_i^T + b_i for i = q, k, v; one product and a split
/// when query, key and value are one value), split into `numHeads` heads
/// (E divisible by them), attended with buildAttention (scale
/// 1 / sqrt(E / numHeads), no mask), merged, and projected by `projWeight`
/// [E, E] and `projBias` [E]. With `needWeights` the attention
/// probabilities are returned too, averaged over the heads ([B, L, S]) when
/// `averageWeights`, else per head ([B, H, L, S]).
/// Errors: ranks, element types or extents that do not match.
/// Spec: aten::_native_multi_head_attention (without mask);
/// torch.nn.MultiheadAttention's fast path.
mlir::FailureOr<MultiHeadAttentionResult> buildPackedMultiHeadAttention(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value query, mlir::Value key,
    mlir::Value value, int64_t numHeads, mlir::Value qkvWeight,
    mlir::Value qkvBias, mlir::Value projWeight, mlir::Value projBias,
    bool needWeights, bool averageWeights);

/// Splits the hidden dim of `x` [B, S, H * D] (static hidden size, a
/// multiple of `numHeads`) into heads: [B, H, S, D].
/// Errors: rank other than 3, a dynamic or indivisible hidden size.
/// Spec: ONNX Attention / RotaryEmbedding 3-D inputs (q_num_heads,
/// kv_num_heads, num_heads).
mlir::FailureOr<mlir::Value> buildSplitHeads(mlir::OpBuilder &b,
                                             mlir::Location loc, mlir::Value x,
                                             int64_t numHeads);

/// Inverse of buildSplitHeads: [B, H, S, D] -> [B, S, H * D] (H and D
/// static).
/// Errors: rank other than 4, dynamic H or D.
/// Spec: ONNX Attention 3-D output.
mlir::FailureOr<mlir::Value> buildMergeHeads(mlir::OpBuilder &b,
                                             mlir::Location loc, mlir::Value x);

/// Rotary position embedding of float `x` [B, H, S, D] (`numHeads` = 0) or
/// [B, S, H * D] (`numHeads` = H > 0), same shape and type out. The first
/// R = `rotaryDim` (0: D) entries of each head are rotated, the rest kept:
/// pairs (x1, x2) become (x1 cos - x2 sin, x1 sin + x2 cos), the pairs being
/// (i, i + R/2) or, `interleaved`, (2i, 2i + 1), for i < R/2.
/// `cos`/`sin` (x's element type) are [B, S, R/2], or tables [P, R/2] read
/// at `positionIds` [B, S] (signless integers) when that is non-null.
/// Errors: ranks, odd or too large R, cache shapes that do not match.
/// Spec: ONNX RotaryEmbedding (opset 23).
mlir::FailureOr<mlir::Value>
buildRotaryEmbedding(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                     mlir::Value cos, mlir::Value sin, mlir::Value positionIds,
                     bool interleaved, int64_t rotaryDim, int64_t numHeads);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_ATTENTION_H
