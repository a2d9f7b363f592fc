//===- AttentionOps.cpp - aten scaled_dot_product_attention ---------------===//
//
// `scaled_dot_product_attention` on buildAttention and
// `_native_multi_head_attention` on buildPackedMultiHeadAttention
// (Common/Attention.h).
// Torch 1.13 has no such op: IR text may use it all the same (see
// registerPositionalOps), and the handler reads its arguments by position
// only, whatever schema the node has.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "HandlerUtils.h"

#include "mlprog/Import/Common/Attention.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <torch/csrc/jit/runtime/operator.h>

#include <mutex>
#include <stdexcept>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// scaled_dot_product_attention(query [..., L, E], key [..., S, E], value
/// [..., S, Ev], attn_mask=None, dropout_p=0., is_causal=False, *,
/// scale=None, enable_gqa=False) -> [..., L, Ev], for inputs of rank 3
/// ([B, L, E]) or 4 ([B, H, L, E]). attn_mask is bool (True attends) or of
/// the query's dtype (added to the scores), broadcastable to [..., L, S];
/// is_causal keeps key j for query i iff j <= i. Only dropout_p = 0 is
/// supported. Fully masked rows give 0 (PyTorch gives NaN).
LogicalResult scaledDotProductAttention(Im &im, Node *n) {
  Location l = im.loc(n);
  unsigned numInputs = n->inputs().size();
  if (numInputs < 3)
    return emitError(l) << "scaled_dot_product_attention expects at least 3 "
                           "inputs, got "
                        << numInputs;
  FailureOr<Value> q = im.tensorInput(n, 0), k = im.tensorInput(n, 1),
                   v = im.tensorInput(n, 2);
  if (failed(q) || failed(k) || failed(v))
    return failure();
  Value mask;
  if (numInputs > 3 && !im.isNoneInput(n, 3)) {
    FailureOr<Value> m = im.tensorInput(n, 3);
    if (failed(m))
      return failure();
    mask = *m;
  }
  if (numInputs > 4 && !im.isNoneInput(n, 4)) {
    FailureOr<double> p = im.numberInput(n, 4);
    if (failed(p))
      return failure();
    if (*p != 0)
      return im.unsupported(n, "scaled_dot_product_attention with dropout_p "
                               "!= 0 (random)");
  }
  AttentionOptions options;
  if (numInputs > 5 && !im.isNoneInput(n, 5)) {
    FailureOr<bool> causal = im.boolInput(n, 5);
    if (failed(causal))
      return failure();
    options.isCausal = *causal;
  }
  if (numInputs > 6 && !im.isNoneInput(n, 6)) {
    FailureOr<double> scale = im.numberInput(n, 6);
    if (failed(scale))
      return failure();
    options.scale = *scale;
  }
  bool enableGqa = false;
  if (numInputs > 7 && !im.isNoneInput(n, 7)) {
    FailureOr<bool> gqa = im.boolInput(n, 7);
    if (failed(gqa))
      return failure();
    enableGqa = *gqa;
  }
  if (options.isCausal && mask)
    return emitError(l) << "scaled_dot_product_attention: attn_mask and "
                           "is_causal cannot both be set";
  int64_t rank = std::max({rankOf(*q), rankOf(*k), rankOf(*v)});
  if (rank != 3 && rank != 4)
    return im.unsupported(n, "scaled_dot_product_attention on rank-" +
                                 std::to_string(rank) +
                                 " inputs (only 3-D and 4-D)");
  if (rankOf(*q) < 2 || rankOf(*k) < 2 || rankOf(*v) < 2)
    return emitError(l) << "scaled_dot_product_attention: query, key and "
                           "value need at least 2 dims, got "
                        << q->getType() << ", " << k->getType() << ", "
                        << v->getType();
  // Batch dims broadcast (aten's matmul rule): lower ranks get leading unit
  // dims, then unit batch extents stretch to the others' (the head dims of
  // grouped-query attention stay as they are).
  if (rankOf(*q) != rank || rankOf(*k) != rank || rankOf(*v) != rank) {
    for (Value *t : {&*q, &*k, &*v})
      while (rankOf(*t) < rank) {
        FailureOr<Value> u = buildUnsqueeze(im.b, l, *t, 0);
        if (failed(u))
          return failure();
        *t = *u;
      }
    for (int64_t d = 0; d < rank - 2; ++d) {
      int64_t extent = 1;
      for (Value t : {*q, *k, *v})
        extent =
            std::max(extent, cast<RankedTensorType>(t.getType()).getDimSize(d));
      if (enableGqa && d == 1)
        continue;
      for (Value *t : {&*q, &*k, &*v}) {
        if (cast<RankedTensorType>(t->getType()).getDimSize(d) != 1 ||
            extent == 1)
          continue;
        SmallVector<int64_t> shape(rank, -1);
        shape[d] = extent;
        FailureOr<Value> e = buildExpand(im.b, l, *t, shape);
        if (failed(e))
          return failure();
        *t = *e;
      }
    }
  }
  if (rank == 4) {
    int64_t hq = cast<RankedTensorType>(q->getType()).getDimSize(1);
    int64_t hkv = cast<RankedTensorType>(k->getType()).getDimSize(1);
    if (!enableGqa && !ShapedType::isDynamic(hq) &&
        !ShapedType::isDynamic(hkv) && hq != hkv)
      return emitError(l) << "scaled_dot_product_attention: " << hq
                          << " query heads and " << hkv
                          << " key/value heads need enable_gqa=True";
  }
  if (mask && isa<FloatType>(elemOf(mask)) && elemOf(mask) != elemOf(*q)) {
    FailureOr<Value> m = buildConvertElementType(im.b, l, mask, elemOf(*q));
    if (failed(m))
      return failure();
    mask = *m;
  }
  // Rank 3: one head.
  if (rank == 3) {
    for (Value *t : {&*q, &*k, &*v}) {
      FailureOr<Value> u = buildUnsqueeze(im.b, l, *t, 1);
      if (failed(u))
        return failure();
      *t = *u;
    }
    if (mask && rankOf(mask) == 3) {
      FailureOr<Value> u = buildUnsqueeze(im.b, l, mask, 1);
      if (failed(u))
        return failure();
      mask = *u;
    }
  }
  FailureOr<AttentionResult> res = buildAttention(
      im.b, l, *q, *k, *v, mask, Value(), Value(), Value(), options);
  if (failed(res))
    return failure();
  if (rank == 3)
    return im.setTensor(n, 0, buildSqueeze(im.b, l, res->output, {1}));
  return im.setTensor(n, 0, res->output);
}

/// _native_multi_head_attention(query, key, value, embed_dim, num_head,
/// qkv_weight, qkv_bias, proj_weight, proj_bias, mask=None,
/// need_weights=True, average_attn_weights=True, mask_type=None) ->
/// (output, weights): the eval-mode fast path of nn.MultiheadAttention
/// (batch first). Without need_weights the weights are an empty tensor
/// (aten returns an undefined one).
LogicalResult nativeMultiHeadAttention(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> q = im.tensorInput(n, 0), k = im.tensorInput(n, 1),
                   v = im.tensorInput(n, 2);
  FailureOr<int64_t> embedDim = im.intInput(n, 3), heads = im.intInput(n, 4);
  FailureOr<Value> qkvW = im.tensorInput(n, 5), qkvB = im.tensorInput(n, 6),
                   projW = im.tensorInput(n, 7), projB = im.tensorInput(n, 8);
  if (failed(q) || failed(k) || failed(v) || failed(embedDim) ||
      failed(heads) || failed(qkvW) || failed(qkvB) || failed(projW) ||
      failed(projB))
    return failure();
  if (!im.isNoneInput(n, 9))
    return im.unsupported(n, "_native_multi_head_attention with a mask");
  FailureOr<bool> needWeights = im.boolInput(n, 10),
                  average = im.boolInput(n, 11);
  if (failed(needWeights) || failed(average))
    return failure();
  if (rankOf(*q) != 3 ||
      cast<RankedTensorType>(q->getType()).getDimSize(2) != *embedDim)
    return emitError(l) << "_native_multi_head_attention: query must be "
                           "[batch, sequence, "
                        << *embedDim << "], got " << q->getType();
  FailureOr<MultiHeadAttentionResult> r =
      buildPackedMultiHeadAttention(im.b, l, *q, *k, *v, *heads, *qkvW, *qkvB,
                                    *projW, *projB, *needWeights, *average);
  if (failed(r) || failed(im.setTensor(n, 0, r->output)))
    return failure();
  Value weights = r->weights;
  if (!weights)
    weights = tensor::EmptyOp::create(im.b, l, ArrayRef<int64_t>{0},
                                      elemOf(r->output));
  return im.setTensor(n, 1, weights);
}

} // namespace

void mlprog::torchscript::registerPositionalOps() {
  static std::once_flag once;
  std::call_once(once, [] {
    namespace jit = torch::jit;
    // torch >= 2.5's schema: its IR text lists all 8 inputs.
    static const char *const schemas[][2] = {
        {"aten::scaled_dot_product_attention",
         "aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor "
         "value, Tensor? attn_mask=None, float dropout_p=0., bool "
         "is_causal=False, *, float? scale=None, bool enable_gqa=False) -> "
         "Tensor"},
    };
    for (const auto &[name, schema] : schemas) {
      try {
        if (!jit::getAllOperatorsFor(c10::Symbol::fromQualString(name)).empty())
          continue;
        jit::registerOperator(jit::Operator(
            schema,
            [](jit::Stack &) {
              throw std::runtime_error("registered by mlprog for import only");
            },
            c10::AliasAnalysisKind::FROM_SCHEMA));
      } catch (const std::exception &) {
        // Then IR text using the op fails the schema check, with a located
        // error.
      }
    }
  });
}

void mlprog::torchscript::registerAttentionOps(OpTable &table) {
  table.add({
      {"aten::scaled_dot_product_attention", scaledDotProductAttention},
      {"aten::_native_multi_head_attention", nativeMultiHeadAttention},
  });
}
