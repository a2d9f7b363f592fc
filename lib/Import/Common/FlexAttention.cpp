//===- FlexAttention.cpp - Attention with score and probability mods ------===//
//
// buildFlexAttention: scaled dot-product attention whose scores and
// probabilities pass through caller-supplied modifiers (ONNX FlexAttention's
// score_mod / prob_mod subgraphs), built from the shared contraction,
// softmax and conversion builders.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"
#include "mlprog/Import/Common/Attention.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/LinearAlgebra.h"
#include "mlprog/Import/Common/Rearrange.h"
#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

FailureOr<Value> mlprog::buildFlexAttention(OpBuilder &b, Location loc, Value q,
                                            Value k, Value v,
                                            std::optional<double> scale,
                                            Type computeType,
                                            AttentionModifier scoreMod,
                                            AttentionModifier probMod) {
  auto qt = dyn_cast<RankedTensorType>(q.getType());
  auto kt = dyn_cast<RankedTensorType>(k.getType());
  auto vt = dyn_cast<RankedTensorType>(v.getType());
  if (!qt || !kt || !vt || qt.getRank() != 4 || kt.getRank() != 4 ||
      vt.getRank() != 4)
    return emitError(loc) << "flex attention: expected rank-4 query, key and "
                             "value";
  Type et = qt.getElementType();
  if (!isa<FloatType>(et) || kt.getElementType() != et ||
      vt.getElementType() != et)
    return emitError(loc) << "flex attention: query, key and value must "
                             "share one float type";
  int64_t hq = qt.getDimSize(1), hkv = kt.getDimSize(1), e = qt.getDimSize(3);
  if (ShapedType::isDynamic(hq) || ShapedType::isDynamic(hkv) ||
      ShapedType::isDynamic(e))
    return emitError(loc)
           << "unsupported flex attention with dynamic heads or head size";
  if (hkv <= 0 || hq % hkv != 0 || vt.getDimSize(1) != hkv ||
      kt.getDimSize(3) != e)
    return emitError(loc) << "flex attention: query " << qt << ", key " << kt
                          << " and value " << vt << " do not match";
  if (!computeType)
    computeType = et.isF64() ? et : Type(b.getF32Type());

  // Both operands are scaled by sqrt(scale), rounded to f32 and then to the
  // inputs' type (the reference's order).
  double s = scale.value_or(1.0 / std::sqrt(double(e)));
  double root = double(std::sqrt(float(s)));
  Value rootTensor = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({}, et),
                             b.getFloatAttr(et, root)));
  Value qs = binaryOrNull(b, loc, BinaryOpKind::Mul, q, rootTensor);
  Value ks = binaryOrNull(b, loc, BinaryOpKind::Mul, k, rootTensor);
  if (!qs || !ks)
    return failure();
  Value vv = v;
  if (hq != hkv) {
    FailureOr<Value> kr =
        buildRepeatInterleave(b, loc, ks, Value(), hq / hkv, 1, hq);
    FailureOr<Value> vr =
        buildRepeatInterleave(b, loc, v, Value(), hq / hkv, 1, hq);
    if (failed(kr) || failed(vr))
      return failure();
    ks = *kr, vv = *vr;
  }
  FailureOr<Value> kT = buildTranspose(b, loc, ks, {0, 1, 3, 2});
  if (failed(kT))
    return failure();
  FailureOr<Value> scores = buildMatMul(b, loc, qs, *kT);
  if (failed(scores))
    return failure();
  scores = buildConvertElementType(b, loc, *scores, computeType);
  if (failed(scores))
    return failure();
  auto checkMod = [&](FailureOr<Value> modded, Value before,
                      StringRef what) -> FailureOr<Value> {
    if (failed(modded))
      return failure();
    if (modded->getType() != before.getType()) {
      auto mt = dyn_cast<RankedTensorType>(modded->getType());
      auto bt = cast<RankedTensorType>(before.getType());
      if (!mt || mt.getElementType() != bt.getElementType() ||
          mt.getRank() != bt.getRank())
        return emitError(loc)
               << "flex attention: " << what << " gives " << modded->getType()
               << " for " << before.getType();
    }
    return modded;
  };
  if (scoreMod) {
    scores = checkMod(scoreMod(*scores), *scores, "score_mod");
    if (failed(scores))
      return failure();
  }
  FailureOr<Value> probs = buildSoftmax(b, loc, *scores, {3});
  if (failed(probs))
    return failure();
  if (probMod) {
    probs = checkMod(probMod(*probs), *probs, "prob_mod");
    if (failed(probs))
      return failure();
  }
  FailureOr<Value> vc = buildConvertElementType(b, loc, vv, computeType);
  if (failed(vc))
    return failure();
  FailureOr<Value> out = buildMatMul(b, loc, *probs, *vc);
  if (failed(out))
    return failure();
  return buildConvertElementType(b, loc, *out, et);
}
