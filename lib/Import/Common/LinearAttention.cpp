//===- LinearAttention.cpp - Recurrent linear attention -------------------===//
//
// buildLinearAttention: linear attention (and its gated and delta-rule
// variants) as an scf.for over the sequence that carries the per-head state
// [B, Hkv, dk, dv] and the outputs; each step is a handful of einsums and
// elementwise ops on [B, H, 1, d] slices, computed in f32.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"
#include "mlprog/Import/Common/Attention.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/LinearAlgebra.h"
#include "mlprog/Import/Common/Rearrange.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

namespace {

/// [B, T, H * d] -> [B, H, T, d] in f32 (static H * d).
FailureOr<Value> toHeads(OpBuilder &b, Location loc, Value x, int64_t heads,
                         StringRef what) {
  auto t = cast<RankedTensorType>(x.getType());
  int64_t hd = t.getDimSize(2);
  if (ShapedType::isDynamic(hd) || heads <= 0 || hd % heads != 0)
    return emitError(loc) << "linear attention: " << what << " " << t
                          << " does not split into " << heads << " heads";
  SmallVector<int64_t> shape = {t.getDimSize(0), t.getDimSize(1), heads,
                                hd / heads};
  Value split = splitDim(b, loc, x, 2, heads);
  FailureOr<Value> moved = buildTranspose(b, loc, split, {0, 2, 1, 3});
  if (failed(moved))
    return failure();
  return buildConvertElementType(b, loc, *moved, b.getF32Type());
}

/// Step `t` of the [B, H, T, d] tensor `x`: [B, H, 1, d].
Value step(OpBuilder &b, Location loc, Value x, Value t) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  SmallVector<OpFoldResult> offsets(4, b.getIndexAttr(0));
  offsets[2] = t;
  sizes[2] = b.getIndexAttr(1);
  SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, x, offsets, sizes, strides);
}

} // namespace

FailureOr<LinearAttentionResult>
mlprog::buildLinearAttention(OpBuilder &b, Location loc, Value query, Value key,
                             Value value, Value pastState, Value decay,
                             Value beta, int64_t qHeads, int64_t kvHeads,
                             double scale, LinearAttentionRule rule) {
  bool gating = rule == LinearAttentionRule::Gated ||
                rule == LinearAttentionRule::GatedDelta;
  bool delta = rule == LinearAttentionRule::Delta ||
               rule == LinearAttentionRule::GatedDelta;
  if (gating != bool(decay) || delta != bool(beta))
    return emitError(loc) << "linear attention: the update rule needs "
                          << (gating ? "a" : "no") << " decay and "
                          << (delta ? "a" : "no") << " beta";
  for (Value v : {query, key, value, decay, beta}) {
    auto t = v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
    if (v && (!t || t.getRank() != 3 || !isa<FloatType>(t.getElementType())))
      return emitError(loc) << "linear attention: expected float [B, T, *] "
                               "operands, got "
                            << v.getType();
  }
  if (qHeads <= 0 || kvHeads <= 0 || qHeads % kvHeads != 0)
    return emitError(loc) << "linear attention: " << qHeads
                          << " query heads are not a multiple of " << kvHeads
                          << " key/value heads";
  Type outType = cast<RankedTensorType>(query.getType()).getElementType();
  FailureOr<Value> q = toHeads(b, loc, query, qHeads, "query");
  FailureOr<Value> k = toHeads(b, loc, key, kvHeads, "key");
  FailureOr<Value> v = toHeads(b, loc, value, kvHeads, "value");
  if (failed(q) || failed(k) || failed(v))
    return failure();
  int64_t dk = cast<RankedTensorType>(q->getType()).getDimSize(3);
  int64_t dv = cast<RankedTensorType>(v->getType()).getDimSize(3);
  if (cast<RankedTensorType>(k->getType()).getDimSize(3) != dk)
    return emitError(loc) << "linear attention: query and key head sizes "
                             "differ";
  // decay [B, T, Hkv or Hkv * dk] -> [B, Hkv, T, 1 or dk]; beta [B, T,
  // Hkv or 1] -> [B, Hkv or 1, T, 1].
  Value g, bt;
  if (decay) {
    int64_t last = cast<RankedTensorType>(decay.getType()).getDimSize(2);
    if (last != kvHeads && last != kvHeads * dk)
      return emitError(loc)
             << "linear attention: decay " << decay.getType() << " must end in "
             << kvHeads << " or " << kvHeads * dk;
    FailureOr<Value> heads = toHeads(b, loc, decay, kvHeads, "decay");
    if (failed(heads))
      return failure();
    g = *heads;
  }
  if (beta) {
    int64_t last = cast<RankedTensorType>(beta.getType()).getDimSize(2);
    if (last != kvHeads && last != 1)
      return emitError(loc) << "linear attention: beta " << beta.getType()
                            << " must end in " << kvHeads << " or 1";
    FailureOr<Value> heads = toHeads(b, loc, beta, last, "beta");
    if (failed(heads))
      return failure();
    bt = *heads;
  }
  SmallVector<OpFoldResult> qSizes = tensor::getMixedSizes(b, loc, *q);
  OpFoldResult batch = qSizes[0], steps = qSizes[2];
  SmallVector<OpFoldResult> stateSizes = {
      batch, b.getIndexAttr(kvHeads), b.getIndexAttr(dk), b.getIndexAttr(dv)};
  Type f32 = b.getF32Type();
  Type stateType = outType;
  Value state;
  if (pastState) {
    auto pt = dyn_cast<RankedTensorType>(pastState.getType());
    if (!pt || pt.getRank() != 4 || !isa<FloatType>(pt.getElementType()) ||
        pt.getDimSize(1) != kvHeads || pt.getDimSize(2) != dk ||
        pt.getDimSize(3) != dv)
      return emitError(loc)
             << "linear attention: past state " << pastState.getType()
             << " is not [B, " << kvHeads << ", " << dk << ", " << dv << "]";
    stateType = pt.getElementType();
    FailureOr<Value> s = buildConvertElementType(b, loc, pastState, f32);
    if (failed(s))
      return failure();
    state = *s;
  } else {
    state = createFilled(b, loc, stateSizes, b.getZeroAttr(f32));
  }
  double sc = scale == 0.0 ? 1.0 / std::sqrt(double(dk)) : scale;
  Value outputs = createEmpty(
      b, loc, {batch, b.getIndexAttr(qHeads), steps, b.getIndexAttr(dv)}, f32);
  int64_t group = qHeads / kvHeads;
  bool ok = true;
  auto fail = [&]() -> SmallVector<Value> {
    ok = false;
    return {};
  };
  SmallVector<Value> results = loop(
      b, loc, cIndex(b, loc, 0), getValueOrCreateConstantIndexOp(b, loc, steps),
      ValueRange{state, outputs},
      [&](OpBuilder &nb, Location nl, Value t,
          ValueRange args) -> SmallVector<Value> {
        Value s = args[0];
        Value qt = step(nb, nl, *q, t), kt = step(nb, nl, *k, t),
              vt = step(nb, nl, *v, t);
        if (g) {
          // exp(g) [B, H, 1, 1 or dk] scales the key rows of S.
          FailureOr<Value> gt =
              buildTranspose(nb, nl, step(nb, nl, g, t), {0, 1, 3, 2});
          if (failed(gt))
            return fail();
          Value e = unaryOrNull(nb, nl, UnaryOpKind::Exp, *gt);
          s = e ? binaryOrNull(nb, nl, BinaryOpKind::Mul, s, e) : Value();
          if (!s)
            return fail();
        }
        if (bt) {
          FailureOr<Value> retrieved =
              buildEinsum(nb, nl, "bhdm,bhxd->bhxm", {s, kt});
          if (failed(retrieved))
            return fail();
          Value diff = binaryOrNull(nb, nl, BinaryOpKind::Sub, vt, *retrieved);
          vt = diff ? binaryOrNull(nb, nl, BinaryOpKind::Mul,
                                   step(nb, nl, bt, t), diff)
                    : Value();
          if (!vt)
            return fail();
        }
        FailureOr<Value> outer =
            buildEinsum(nb, nl, "bhxd,bhxm->bhdm", {kt, vt});
        if (failed(outer))
          return fail();
        s = binaryOrNull(nb, nl, BinaryOpKind::Add, s, *outer);
        if (!s)
          return fail();
        Value read = s;
        if (group > 1) {
          FailureOr<Value> r =
              buildRepeatInterleave(nb, nl, s, Value(), group, 1, qHeads);
          if (failed(r))
            return fail();
          read = *r;
        }
        FailureOr<Value> o = buildEinsum(nb, nl, "bhxd,bhdm->bhxm", {qt, read});
        if (failed(o))
          return fail();
        Value scaled = binaryOrNull(
            nb, nl, BinaryOpKind::Mul, *o,
            arith::ConstantOp::create(
                nb, nl,
                DenseElementsAttr::get(RankedTensorType::get({}, f32),
                                       nb.getFloatAttr(f32, sc))));
        if (!scaled)
          return fail();
        SmallVector<OpFoldResult> offsets(4, nb.getIndexAttr(0));
        offsets[2] = t;
        SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(nb, nl, scaled);
        SmallVector<OpFoldResult> strides(4, nb.getIndexAttr(1));
        Value outs = tensor::InsertSliceOp::create(nb, nl, scaled, args[1],
                                                   offsets, sizes, strides);
        return {s, outs};
      });
  if (!ok)
    return failure();
  // [B, Hq, T, dv] -> [B, T, Hq * dv] in the query's type.
  FailureOr<Value> moved = buildTranspose(b, loc, results[1], {0, 2, 1, 3});
  if (failed(moved))
    return failure();
  FailureOr<Value> merged = buildCollapseDims(b, loc, *moved, 2, 3);
  if (failed(merged))
    return failure();
  FailureOr<Value> output = buildConvertElementType(b, loc, *merged, outType);
  FailureOr<Value> present =
      buildConvertElementType(b, loc, results[0], stateType);
  if (failed(output) || failed(present))
    return failure();
  return LinearAttentionResult{*output, *present};
}
