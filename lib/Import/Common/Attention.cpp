//===- Attention.cpp - Scaled dot-product attention and RoPE --------------===//

#include "mlprog/Import/Common/Attention.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/LinearAlgebra.h"
#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"

#include <cmath>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

/// `x * c` elementwise, `c` rounded to x's element type.
static FailureOr<Value> scaleBy(OpBuilder &b, Location loc, Value x, double c) {
  Type et = elementTypeOf(x);
  return buildBroadcastedGeneric(
      b, loc, {x}, et, [&](OpBuilder &nb, Location nl, ValueRange a) {
        return arith::MulFOp::create(nb, nl, a[0], createScalar(nb, nl, et, c))
            .getResult();
      });
}

/// numpy matmul of `a` and `bm`; f16 and bf16 operands are multiplied and
/// summed in f32 and the result rounded once, as numpy (and ml_dtypes) do.
static FailureOr<Value> matmulRoundOnce(OpBuilder &b, Location loc, Value a,
                                        Value bm) {
  Type et = elementTypeOf(a);
  if (!et.isF16() && !et.isBF16())
    return buildMatMul(b, loc, a, bm);
  FailureOr<Value> wa = buildConvertElementType(b, loc, a, b.getF32Type());
  FailureOr<Value> wb = buildConvertElementType(b, loc, bm, b.getF32Type());
  if (failed(wa) || failed(wb))
    return failure();
  FailureOr<Value> r = buildMatMul(b, loc, *wa, *wb);
  if (failed(r))
    return failure();
  return buildConvertElementType(b, loc, *r, et);
}

/// [B, Hkv, T, X] -> [B, Hkv * reps, T, X], each head repeated `reps`
/// times in place (h0, h0, h1, h1, ...), as numpy.repeat along axis 1.
static FailureOr<Value> repeatHeads(OpBuilder &b, Location loc, Value x,
                                    int64_t reps) {
  if (reps == 1)
    return x;
  SmallVector<int64_t> shape = {-1, -1, reps, -1, -1};
  FailureOr<Value> expanded =
      buildExpand(b, loc, insertUnitDim(b, loc, x, 2), shape);
  if (failed(expanded))
    return failure();
  return mergeDims(b, loc, *expanded, 1);
}

namespace {
/// What the additive attention bias is built from.
struct BiasSpec {
  Value mask;      ///< i1 or float mask, padded to T keys, or null
  Value kvLengths; ///< [B] i64, or null
  Value pastLen;   ///< index: P, or null
  SmallVector<OpFoldResult> sizes; ///< B, Hq, Sq, T
};
} // namespace

/// Pads the last dim of `mask` to `total` keys with false / -inf (static
/// extents); a dynamic extent is taken to be `total` already.
static FailureOr<Value> padMask(OpBuilder &b, Location loc, Value mask,
                                int64_t total) {
  auto mt = cast<RankedTensorType>(mask.getType());
  int64_t last = mt.getShape().back();
  if (ShapedType::isDynamic(last) || ShapedType::isDynamic(total) ||
      last == total)
    return mask;
  if (last > total)
    return emitError(loc) << "attention mask has " << last
                          << " keys, more than the " << total << " keys";
  Type et = mt.getElementType();
  TypedAttr fill = et.isInteger(1) ? TypedAttr(b.getBoolAttr(false))
                                   : TypedAttr(getLowestAttr(et));
  SmallVector<int64_t> low(mt.getRank(), 0), high(mt.getRank(), 0);
  high.back() = total - last;
  return padStatic(b, loc, mask, low, high, fill);
}

/// The additive bias [B or 1, Hq or 1, Sq, T] of element type `et`: the float
/// mask where allowed, -inf where the bool mask, the causal or window
/// frontier or the key lengths disallow a key.
static FailureOr<Value> buildBias(OpBuilder &b, Location loc, Type et,
                                  const BiasSpec &spec,
                                  const AttentionOptions &options) {
  MLIRContext *ctx = b.getContext();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  bool batchFull = bool(spec.kvLengths), headsFull = false;
  bool boolMask = false;
  if (spec.mask) {
    auto mt = cast<RankedTensorType>(spec.mask.getType());
    ArrayRef<int64_t> ms = mt.getShape();
    int64_t mr = mt.getRank();
    boolMask = mt.getElementType().isInteger(1);
    batchFull |= mr == 4 && ms[0] != 1;
    headsFull = mr >= 3 && ms[mr - 3] != 1;
    SmallVector<AffineExpr> exprs;
    for (int64_t d = 0; d < mr; ++d) {
      int64_t loopDim = 4 - mr + d;
      std::optional<int64_t> target = getConstantIntValue(spec.sizes[loopDim]);
      if (!ShapedType::isDynamic(ms[d]) && ms[d] != 1 && target &&
          *target != ms[d])
        return emitError(loc) << "attention mask of type " << mt
                              << " does not broadcast to the scores";
      exprs.push_back(ms[d] == 1 ? getAffineConstantExpr(0, ctx)
                                 : getAffineDimExpr(loopDim, ctx));
    }
    inputs.push_back(spec.mask);
    maps.push_back(AffineMap::get(4, 0, exprs, ctx));
  }
  if (spec.kvLengths) {
    inputs.push_back(spec.kvLengths);
    maps.push_back(AffineMap::get(4, 0, {getAffineDimExpr(0, ctx)}, ctx));
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(4, ctx));
  SmallVector<OpFoldResult> sizes = spec.sizes;
  if (!batchFull)
    sizes[0] = b.getIndexAttr(1);
  if (!headsFull)
    sizes[1] = b.getIndexAttr(1);
  Value init = createEmpty(b, loc, sizes, et);
  Value seqQ = getValueOrCreateConstantIndexOp(b, loc, spec.sizes[2]);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), inputs, init, maps, parallelIterators(4),
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        IndexMath m{nb, nl};
        Value i = linalg::IndexOp::create(nb, nl, 2);
        Value j = linalg::IndexOp::create(nb, nl, 3);
        Value kvLen =
            spec.kvLengths ? m.index(args[spec.mask ? 1 : 0]) : Value();
        Value offset = spec.pastLen ? spec.pastLen
                       : kvLen      ? m.sub(kvLen, seqQ)
                                    : m.c(0);
        Value pos = m.add(i, offset);
        Value allowed = arith::ConstantOp::create(nb, nl, nb.getBoolAttr(true));
        auto both = [&](Value c) {
          allowed = arith::AndIOp::create(nb, nl, allowed, c);
        };
        if (options.isCausal)
          both(m.cmp(arith::CmpIPredicate::sle, j, pos));
        if (options.leftWindow >= 0)
          both(m.cmp(arith::CmpIPredicate::sle, m.sub(pos, j),
                     m.c(options.leftWindow)));
        if (options.rightWindow >= 0)
          both(m.cmp(arith::CmpIPredicate::sle, m.sub(j, pos),
                     m.c(options.rightWindow)));
        if (kvLen)
          both(m.lt(j, kvLen));
        if (boolMask)
          both(args[0]);
        Value v =
            m.select(allowed, createScalar(nb, nl, et, 0.0),
                     arith::ConstantOp::create(nb, nl, getLowestAttr(et)));
        if (spec.mask && !boolMask)
          v = arith::AddFOp::create(nb, nl, args[0], v);
        linalg::YieldOp::create(nb, nl, v);
      });
  return generic.getResult(0);
}

/// softcap * tanh(x / softcap), rounding per op.
static FailureOr<Value> softcapScores(OpBuilder &b, Location loc, Value x,
                                      double softcap) {
  Type et = elementTypeOf(x);
  return buildBroadcastedGeneric(
      b, loc, {x}, et, [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value c = createScalar(nb, nl, et, softcap);
        Value t = math::TanhOp::create(nb, nl,
                                       arith::DivFOp::create(nb, nl, a[0], c));
        return arith::MulFOp::create(nb, nl, t, c).getResult();
      });
}

/// Softmax over the last of the 4 dims of `x`. For f16 the sum of the
/// exponentials accumulates in f32 and is rounded once (numpy sums float16
/// in float); other types round per op (buildSoftmax).
static FailureOr<Value> softmaxOverKeys(OpBuilder &b, Location loc, Value x) {
  Type et = elementTypeOf(x);
  if (!et.isF16())
    return buildSoftmax(b, loc, x, {3});
  FailureOr<Value> max =
      buildReduce(b, loc, ReduceKind::Max, x, {3}, /*keepDims=*/true);
  if (failed(max))
    return failure();
  Value exps = unaryOrNull(b, loc, UnaryOpKind::Exp,
                           binaryOrNull(b, loc, BinaryOpKind::Sub, x, *max));
  FailureOr<Value> wide =
      exps ? buildConvertElementType(b, loc, exps, b.getF32Type())
           : FailureOr<Value>(failure());
  if (failed(wide))
    return failure();
  FailureOr<Value> sum =
      buildReduce(b, loc, ReduceKind::Sum, *wide, {3}, /*keepDims=*/true);
  if (succeeded(sum))
    sum = buildConvertElementType(b, loc, *sum, et);
  if (failed(sum))
    return failure();
  return buildElementwiseBinary(b, loc, BinaryOpKind::Div, exps, *sum);
}

/// Zeroes the probabilities of rows whose bias maximum is -inf.
static FailureOr<Value> zeroMaskedRows(OpBuilder &b, Location loc, Value probs,
                                       Value bias) {
  FailureOr<Value> rowMax =
      buildReduce(b, loc, ReduceKind::Max, bias, {3}, /*keepDims=*/true);
  if (failed(rowMax))
    return failure();
  Type et = elementTypeOf(probs);
  Type bt = elementTypeOf(bias);
  return buildBroadcastedGeneric(
      b, loc, {*rowMax, probs}, et,
      [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value negInf = arith::ConstantOp::create(nb, nl, getLowestAttr(bt));
        Value masked = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ,
                                             a[0], negInf);
        return arith::SelectOp::create(nb, nl, masked,
                                       createScalar(nb, nl, et, 0.0), a[1])
            .getResult();
      });
}

/// Checks the operand types of buildAttention.
static LogicalResult checkAttentionOperands(Location loc, Value q, Value k,
                                            Value v, Value mask, Value pastKey,
                                            Value pastValue, Value kvLengths) {
  auto qt = dyn_cast<RankedTensorType>(q.getType());
  if (!qt || qt.getRank() != 4 || !isa<FloatType>(qt.getElementType()))
    return emitError(loc) << "attention needs a 4-D float query, got "
                          << q.getType();
  Type et = qt.getElementType();
  for (Value x : {k, v, pastKey, pastValue}) {
    if (!x)
      continue;
    auto t = dyn_cast<RankedTensorType>(x.getType());
    if (!t || t.getRank() != 4 || t.getElementType() != et)
      return emitError(loc)
             << "attention key/value operand of type " << x.getType()
             << " does not match the query " << q.getType();
  }
  if (bool(pastKey) != bool(pastValue))
    return emitError(loc) << "attention needs both a past key and a past value";
  if (pastKey && kvLengths)
    return emitError(loc)
           << "attention key lengths cannot be combined with a past cache";
  if (mask) {
    auto mt = dyn_cast<RankedTensorType>(mask.getType());
    if (!mt || mt.getRank() > 4 || mt.getRank() < 1 ||
        (!mt.getElementType().isInteger(1) && mt.getElementType() != et))
      return emitError(loc)
             << "unsupported attention mask of type " << mask.getType()
             << " (needs i1 or " << et << ", rank 1 to 4)";
  }
  if (kvLengths) {
    auto lt = dyn_cast<RankedTensorType>(kvLengths.getType());
    if (!lt || lt.getRank() != 1 || !lt.getElementType().isSignlessInteger())
      return emitError(loc) << "attention key lengths must be a 1-D integer "
                               "tensor, got "
                            << kvLengths.getType();
  }
  // Static extents: batch, heads and sequence of K and V, head size of Q/K.
  auto dim = [](Value x, int64_t d) {
    return cast<RankedTensorType>(x.getType()).getDimSize(d);
  };
  auto clash = [](int64_t a, int64_t b) {
    return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
  };
  if (clash(dim(q, 0), dim(k, 0)) || clash(dim(k, 0), dim(v, 0)) ||
      clash(dim(k, 1), dim(v, 1)) || clash(dim(k, 2), dim(v, 2)) ||
      clash(dim(q, 3), dim(k, 3)) ||
      (pastKey && (clash(dim(pastKey, 1), dim(k, 1)) ||
                   clash(dim(pastKey, 3), dim(k, 3)) ||
                   clash(dim(pastValue, 3), dim(v, 3)) ||
                   clash(dim(pastKey, 2), dim(pastValue, 2)))))
    return emitError(loc) << "attention operands of mismatched shapes: query "
                          << q.getType() << ", key " << k.getType()
                          << ", value " << v.getType();
  return success();
}

FailureOr<AttentionResult>
mlprog::buildAttention(OpBuilder &b, Location loc, Value q, Value k, Value v,
                       Value mask, Value pastKey, Value pastValue,
                       Value kvLengths, const AttentionOptions &options) {
  if (failed(checkAttentionOperands(loc, q, k, v, mask, pastKey, pastValue,
                                    kvLengths)))
    return failure();
  auto qt = cast<RankedTensorType>(q.getType());
  Type et = qt.getElementType();
  int64_t headsQ = qt.getDimSize(1);
  int64_t headsKV = cast<RankedTensorType>(k.getType()).getDimSize(1);
  int64_t reps = 1;
  if (headsQ != headsKV) {
    if (ShapedType::isDynamic(headsQ) || ShapedType::isDynamic(headsKV) ||
        headsQ % headsKV != 0)
      return emitError(loc) << "attention needs static query heads (" << headsQ
                            << ") that are a multiple of the key/value heads ("
                            << headsKV << ")";
    reps = headsQ / headsKV;
  }
  double scale;
  if (options.scale) {
    scale = *options.scale;
  } else if (ShapedType::isDynamic(qt.getDimSize(3))) {
    return emitError(loc) << "attention without a scale needs a static head "
                             "size, got "
                          << q.getType();
  } else {
    scale = 1.0 / std::sqrt(double(qt.getDimSize(3)));
  }

  AttentionResult r;
  r.presentKey = k;
  r.presentValue = v;
  if (pastKey) {
    FailureOr<Value> pk = buildConcat(b, loc, {pastKey, k}, 2);
    FailureOr<Value> pv = buildConcat(b, loc, {pastValue, v}, 2);
    if (failed(pk) || failed(pv))
      return failure();
    r.presentKey = *pk;
    r.presentValue = *pv;
  }

  // Scores [B, Hq, Sq, T].
  double rootScale = std::sqrt(scale);
  FailureOr<Value> qs = scaleBy(b, loc, q, rootScale);
  FailureOr<Value> ks = scaleBy(b, loc, r.presentKey, rootScale);
  if (failed(qs) || failed(ks))
    return failure();
  FailureOr<Value> kr = repeatHeads(b, loc, *ks, reps);
  FailureOr<Value> vr = repeatHeads(b, loc, r.presentValue, reps);
  if (failed(kr) || failed(vr))
    return failure();
  FailureOr<Value> kt = buildTranspose(b, loc, *kr, {0, 1, 3, 2});
  if (failed(kt))
    return failure();
  FailureOr<Value> product = matmulRoundOnce(b, loc, *qs, *kt);
  if (failed(product))
    return failure();
  Value scores = *product;
  auto want = [&](AttentionScoresKind kind) {
    if (options.scoresKind == kind)
      r.scores = scores;
  };
  want(AttentionScoresKind::MatMul);
  if (options.softcap > 0) {
    FailureOr<Value> capped = softcapScores(b, loc, scores, options.softcap);
    if (failed(capped))
      return failure();
    scores = *capped;
  }
  want(AttentionScoresKind::Softcapped);

  Value bias;
  if (mask || kvLengths || options.isCausal || options.leftWindow >= 0 ||
      options.rightWindow >= 0) {
    BiasSpec spec;
    spec.kvLengths = kvLengths;
    spec.sizes = tensor::getMixedSizes(b, loc, scores);
    if (pastKey)
      spec.pastLen = tensor::DimOp::create(b, loc, pastKey, 2);
    if (mask) {
      auto st = cast<RankedTensorType>(scores.getType());
      FailureOr<Value> padded = padMask(b, loc, mask, st.getDimSize(3));
      if (failed(padded))
        return failure();
      spec.mask = *padded;
    }
    FailureOr<Value> built = buildBias(b, loc, et, spec, options);
    if (failed(built))
      return failure();
    bias = *built;
    FailureOr<Value> sum =
        buildElementwiseBinary(b, loc, BinaryOpKind::Add, scores, bias);
    if (failed(sum))
      return failure();
    scores = *sum;
  }
  want(AttentionScoresKind::Biased);

  Type softmaxType = options.softmaxType ? options.softmaxType : et;
  FailureOr<Value> wide = buildConvertElementType(b, loc, scores, softmaxType);
  if (failed(wide))
    return failure();
  FailureOr<Value> probs = softmaxOverKeys(b, loc, *wide);
  if (failed(probs))
    return failure();
  probs = buildConvertElementType(b, loc, *probs, et);
  if (succeeded(probs) && bias)
    probs = zeroMaskedRows(b, loc, *probs, bias);
  if (failed(probs))
    return failure();
  scores = *probs;
  want(AttentionScoresKind::Softmax);

  FailureOr<Value> out = matmulRoundOnce(b, loc, *probs, *vr);
  if (failed(out))
    return failure();
  r.output = *out;
  return r;
}

FailureOr<Value> mlprog::buildSplitHeads(OpBuilder &b, Location loc, Value x,
                                         int64_t numHeads) {
  auto t = dyn_cast<RankedTensorType>(x.getType());
  if (!t || t.getRank() != 3 || numHeads <= 0 ||
      ShapedType::isDynamic(t.getDimSize(2)) || t.getDimSize(2) % numHeads != 0)
    return emitError(loc) << "cannot split " << x.getType() << " into "
                          << numHeads
                          << " heads (needs [batch, sequence, hidden] with a "
                             "static hidden size divisible by the heads)";
  return buildTranspose(b, loc, splitDim(b, loc, x, 2, numHeads), {0, 2, 1, 3});
}

FailureOr<Value> mlprog::buildMergeHeads(OpBuilder &b, Location loc, Value x) {
  auto t = dyn_cast<RankedTensorType>(x.getType());
  if (!t || t.getRank() != 4 || t.isDynamicDim(1) || t.isDynamicDim(3))
    return emitError(loc) << "cannot merge the heads of " << x.getType()
                          << " (needs [batch, heads, sequence, head size] "
                             "with static heads and head size)";
  FailureOr<Value> moved = buildTranspose(b, loc, x, {0, 2, 1, 3});
  if (failed(moved))
    return failure();
  return mergeDims(b, loc, *moved, 2);
}

/// x W^T + bias (x [..., K], weight [N, K], bias [N]).
static FailureOr<Value> linearOf(OpBuilder &b, Location loc, Value x,
                                 Value weight, Value bias) {
  FailureOr<Value> wt = buildTranspose(b, loc, weight, {1, 0});
  if (failed(wt))
    return failure();
  FailureOr<Value> y = buildMatMul(b, loc, x, *wt);
  if (failed(y))
    return failure();
  return buildElementwiseBinary(b, loc, BinaryOpKind::Add, *y, bias);
}

/// Rows [i * e, (i + 1) * e) of `x` along dim 0.
static FailureOr<Value> rowBlock(OpBuilder &b, Location loc, Value x, int64_t i,
                                 int64_t e) {
  SmallVector<SliceDim> dims(cast<RankedTensorType>(x.getType()).getRank());
  dims[0].start = i * e;
  dims[0].stop = (i + 1) * e;
  return buildSlice(b, loc, x, dims);
}

FailureOr<MultiHeadAttentionResult> mlprog::buildPackedMultiHeadAttention(
    OpBuilder &b, Location loc, Value query, Value key, Value value,
    int64_t numHeads, Value qkvWeight, Value qkvBias, Value projWeight,
    Value projBias, bool needWeights, bool averageWeights) {
  auto qt = dyn_cast<RankedTensorType>(query.getType());
  if (!qt || qt.getRank() != 3 || qt.isDynamicDim(2) ||
      !isa<FloatType>(qt.getElementType()))
    return emitError(loc) << "multi-head attention needs a float [batch, "
                             "sequence, embedding] query with a static "
                             "embedding size, got "
                          << query.getType();
  int64_t e = qt.getDimSize(2);
  Type et = qt.getElementType();
  auto hasShape = [&](Value v, ArrayRef<int64_t> shape) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t && t.getElementType() == et && t.getShape() == shape;
  };
  for (Value v : {key, value}) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || t.getRank() != 3 || t.getElementType() != et ||
        t.getDimSize(2) != e)
      return emitError(loc)
             << "multi-head attention: key and value must be "
                "[batch, sequence, "
             << e << "] of the query's type, got " << v.getType();
  }
  if (!hasShape(qkvWeight, {3 * e, e}) || !hasShape(qkvBias, {3 * e}) ||
      !hasShape(projWeight, {e, e}) || !hasShape(projBias, {e}))
    return emitError(loc) << "multi-head attention: projections must be ["
                          << 3 * e << ", " << e << "], [" << 3 * e << "], ["
                          << e << ", " << e << "] and [" << e << "], got "
                          << qkvWeight.getType() << ", " << qkvBias.getType()
                          << ", " << projWeight.getType() << ", "
                          << projBias.getType();
  if (numHeads <= 0 || e % numHeads != 0)
    return emitError(loc) << "multi-head attention: " << numHeads
                          << " heads do not divide the embedding size " << e;
  SmallVector<Value> qkv;
  if (query == key && key == value) {
    FailureOr<Value> all = linearOf(b, loc, query, qkvWeight, qkvBias);
    if (failed(all))
      return failure();
    for (int64_t i = 0; i < 3; ++i) {
      SmallVector<SliceDim> dims(3);
      dims[2].start = i * e;
      dims[2].stop = (i + 1) * e;
      FailureOr<Value> part = buildSlice(b, loc, *all, dims);
      if (failed(part))
        return failure();
      qkv.push_back(*part);
    }
  } else {
    for (auto [i, x] : llvm::enumerate(SmallVector<Value>{query, key, value})) {
      FailureOr<Value> w = rowBlock(b, loc, qkvWeight, i, e);
      FailureOr<Value> bias = rowBlock(b, loc, qkvBias, i, e);
      if (failed(w) || failed(bias))
        return failure();
      FailureOr<Value> y = linearOf(b, loc, x, *w, *bias);
      if (failed(y))
        return failure();
      qkv.push_back(*y);
    }
  }
  for (Value &x : qkv) {
    FailureOr<Value> heads = buildSplitHeads(b, loc, x, numHeads);
    if (failed(heads))
      return failure();
    x = *heads;
  }
  AttentionOptions options;
  if (needWeights)
    options.scoresKind = AttentionScoresKind::Softmax;
  FailureOr<AttentionResult> att =
      buildAttention(b, loc, qkv[0], qkv[1], qkv[2], Value(), Value(), Value(),
                     Value(), options);
  if (failed(att))
    return failure();
  FailureOr<Value> merged = buildMergeHeads(b, loc, att->output);
  if (failed(merged))
    return failure();
  MultiHeadAttentionResult r;
  FailureOr<Value> out = linearOf(b, loc, *merged, projWeight, projBias);
  if (failed(out))
    return failure();
  r.output = *out;
  if (needWeights) {
    r.weights = att->scores;
    if (averageWeights) {
      FailureOr<Value> mean =
          buildReduce(b, loc, ReduceKind::Mean, r.weights, {1}, false);
      if (failed(mean))
        return failure();
      r.weights = *mean;
    }
  }
  return r;
}

/// The last dim of `x` from `start` (with `step`), other dims whole.
static FailureOr<Value> sliceLast(OpBuilder &b, Location loc, Value x,
                                  int64_t start, int64_t stop,
                                  int64_t step = 1) {
  SmallVector<SliceDim> dims(cast<RankedTensorType>(x.getType()).getRank());
  dims.back() = SliceDim{start, stop, step};
  return buildSlice(b, loc, x, dims);
}

/// One half of the rotation: c1 * x1 - s1 * x2 (`negate`) or c1 * x1 + s1 *
/// x2, with numpy's per-op rounding.
static FailureOr<Value> rotateHalf(OpBuilder &b, Location loc, Value c1,
                                   Value x1, Value s1, Value x2, bool negate) {
  return buildBroadcastedGeneric(
      b, loc, {c1, x1, s1, x2}, elementTypeOf(x1),
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value l = arith::MulFOp::create(nb, nl, a[0], a[1]);
        Value r = arith::MulFOp::create(nb, nl, a[2], a[3]);
        if (negate)
          return arith::SubFOp::create(nb, nl, l, r);
        return arith::AddFOp::create(nb, nl, l, r);
      });
}

/// Reads the cos/sin table `cache` at `positionIds` when given and checks it
/// is [B, S, half]; returns it with a unit heads dim at `headAxis`.
static FailureOr<Value> prepareCache(OpBuilder &b, Location loc, Value cache,
                                     Value positionIds, Type et, int64_t half,
                                     unsigned headAxis) {
  if (positionIds) {
    auto pt = dyn_cast<RankedTensorType>(positionIds.getType());
    auto ct = dyn_cast<RankedTensorType>(cache.getType());
    if (!pt || pt.getRank() != 2 || !pt.getElementType().isSignlessInteger() ||
        !ct || ct.getRank() != 2)
      return emitError(loc)
             << "rotary embedding needs [positions, R/2] "
                "tables and [batch, sequence] integer position "
                "ids, got "
             << cache.getType() << " and " << positionIds.getType();
    FailureOr<Value> read = buildGather(b, loc, cache, positionIds, 0);
    if (failed(read))
      return failure();
    cache = *read;
  }
  auto ct = dyn_cast<RankedTensorType>(cache.getType());
  if (!ct || ct.getRank() != 3 || ct.getElementType() != et ||
      (!ct.isDynamicDim(2) && ct.getDimSize(2) != half))
    return emitError(loc) << "rotary embedding cache of type "
                          << cache.getType() << " is not [batch, sequence, "
                          << half << "] of " << et;
  return insertUnitDim(b, loc, cache, headAxis);
}

FailureOr<Value>
mlprog::buildRotaryEmbedding(OpBuilder &b, Location loc, Value x, Value cos,
                             Value sin, Value positionIds, bool interleaved,
                             int64_t rotaryDim, int64_t numHeads) {
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  if (!xt || !isa<FloatType>(xt.getElementType()) ||
      xt.getRank() != (numHeads > 0 ? 3 : 4))
    return emitError(loc) << "rotary embedding needs a float [batch, heads, "
                             "sequence, head size] tensor, or [batch, "
                             "sequence, hidden] with a head count, got "
                          << x.getType();
  Value x4 = x;
  unsigned headAxis = 1;
  if (numHeads > 0) {
    if (xt.isDynamicDim(2) || xt.getDimSize(2) % numHeads != 0)
      return emitError(loc)
             << "rotary embedding: hidden size of " << x.getType()
             << " is not a multiple of " << numHeads << " heads";
    x4 = splitDim(b, loc, x, 2, numHeads);
    headAxis = 2;
  }
  int64_t headSize = cast<RankedTensorType>(x4.getType()).getDimSize(3);
  int64_t dim = rotaryDim > 0 ? rotaryDim : headSize;
  if (ShapedType::isDynamic(headSize) || dim % 2 != 0 || dim > headSize ||
      rotaryDim < 0)
    return emitError(loc) << "rotary embedding: rotary dim " << dim
                          << " must be even and at most the static head size "
                          << headSize;
  Type et = xt.getElementType();
  FailureOr<Value> c =
      prepareCache(b, loc, cos, positionIds, et, dim / 2, headAxis);
  FailureOr<Value> s =
      prepareCache(b, loc, sin, positionIds, et, dim / 2, headAxis);
  if (failed(c) || failed(s))
    return failure();
  FailureOr<Value> x1 = interleaved ? sliceLast(b, loc, x4, 0, dim, 2)
                                    : sliceLast(b, loc, x4, 0, dim / 2);
  FailureOr<Value> x2 = interleaved ? sliceLast(b, loc, x4, 1, dim, 2)
                                    : sliceLast(b, loc, x4, dim / 2, dim);
  if (failed(x1) || failed(x2))
    return failure();
  FailureOr<Value> real = rotateHalf(b, loc, *c, *x1, *s, *x2, true);
  FailureOr<Value> imag = rotateHalf(b, loc, *s, *x1, *c, *x2, false);
  if (failed(real) || failed(imag))
    return failure();
  FailureOr<Value> rotated;
  if (interleaved) {
    // [..., R/2] pairs -> [..., R/2, 2] -> [..., R]: real and imag alternate.
    rotated = buildConcat(
        b, loc,
        {insertUnitDim(b, loc, *real, 4), insertUnitDim(b, loc, *imag, 4)}, 4);
    if (succeeded(rotated))
      rotated = mergeDims(b, loc, *rotated, 3);
  } else {
    rotated = buildConcat(b, loc, {*real, *imag}, 3);
  }
  if (failed(rotated))
    return failure();
  Value y = *rotated;
  if (dim < headSize) {
    FailureOr<Value> rest = sliceLast(b, loc, x4, dim, headSize);
    FailureOr<Value> joined =
        succeeded(rest) ? buildConcat(b, loc, {y, *rest}, 3) : rest;
    if (failed(joined))
      return failure();
    y = *joined;
  }
  return numHeads > 0 ? mergeDims(b, loc, y, 2) : y;
}
