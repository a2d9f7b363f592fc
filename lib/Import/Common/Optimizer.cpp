//===- Optimizer.cpp - Training update rules ------------------------------===//

#include "mlprog/Import/Common/Optimizer.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

namespace {

/// Builds the float scalar arithmetic of one update: constants of the
/// element type and the usual operators.
struct ScalarMath {
  OpBuilder &b;
  Location loc;
  Type type;

  Value c(double v) const { return createScalar(b, loc, type, v); }
  Value add(Value l, Value r) const {
    return arith::AddFOp::create(b, loc, l, r);
  }
  Value sub(Value l, Value r) const {
    return arith::SubFOp::create(b, loc, l, r);
  }
  Value mul(Value l, Value r) const {
    return arith::MulFOp::create(b, loc, l, r);
  }
  Value div(Value l, Value r) const {
    return arith::DivFOp::create(b, loc, l, r);
  }
  Value sqrt(Value x) const { return math::SqrtOp::create(b, loc, x); }
  /// norm_coefficient * X + G.
  Value regularized(double norm, Value x, Value g) const {
    return add(mul(c(norm), x), g);
  }
};

/// The operands of an update, checked: X float, the state tensors of X's
/// type, R and T rank-0 (R float, T integer).
LogicalResult checkOperands(Location loc, StringRef op, Value r, Value t,
                            ArrayRef<Value> tensors) {
  auto xType = dyn_cast<RankedTensorType>(tensors[0].getType());
  if (!xType || !isa<FloatType>(xType.getElementType()))
    return emitError(loc) << op << ": X must be a float tensor";
  for (Value v : tensors.drop_front())
    if (v.getType() != xType)
      return emitError(loc)
             << op << ": the gradient and state tensors must "
             << "have X's type " << xType << ", got " << v.getType();
  auto rType = dyn_cast<RankedTensorType>(r.getType());
  auto tType = dyn_cast<RankedTensorType>(t.getType());
  if (!rType || rType.getRank() != 0 || !isa<FloatType>(rType.getElementType()))
    return emitError(loc) << op << ": R must be a float scalar";
  if (!tType || tType.getRank() != 0 ||
      !isa<IntegerType>(tType.getElementType()))
    return emitError(loc) << op << ": T must be an integer scalar";
  return success();
}

/// The f64 value of the rank-0 tensor `v` (float or signed integer).
Value extractF64(OpBuilder &b, Location loc, Value v) {
  Value s = tensor::ExtractOp::create(b, loc, v, ValueRange{});
  Type f64 = b.getF64Type();
  if (isa<IntegerType>(s.getType()))
    return arith::SIToFPOp::create(b, loc, f64, s);
  if (s.getType() != f64)
    return arith::ExtFOp::create(b, loc, f64, s);
  return s;
}

/// The f64 scalar `v` as a rank-0 tensor of `type`, for broadcasting.
Value toTensor(OpBuilder &b, Location loc, Value v, Type type) {
  if (type != v.getType())
    v = arith::TruncFOp::create(b, loc, type, v);
  return tensor::FromElementsOp::create(b, loc, RankedTensorType::get({}, type),
                                        v);
}

/// `T > 0` as an i1 scalar.
Value isPositive(OpBuilder &b, Location loc, Value tF64) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, tF64,
                               createScalar(b, loc, b.getF64Type(), 0.0));
}

} // namespace

FailureOr<SmallVector<Value>> mlprog::buildAdagrad(OpBuilder &b, Location loc,
                                                   Value r, Value t, Value x,
                                                   Value g, Value h,
                                                   const AdagradParams &p) {
  if (failed(checkOperands(loc, "Adagrad", r, t, {x, g, h})))
    return failure();
  Type type = elementTypeOf(x);
  ScalarMath f64{b, loc, b.getF64Type()};
  // r' = R / (1 + T * decay_factor), in f64 as ONNX's reference does.
  Value rate = f64.div(extractF64(b, loc, r),
                       f64.add(f64.c(1.0), f64.mul(extractF64(b, loc, t),
                                                   f64.c(p.decayFactor))));
  Value rateT = toTensor(b, loc, rate, type);
  FailureOr<Value> hNew = buildBroadcastedGeneric(
      b, loc, {x, g, h}, type, [&](OpBuilder &nb, Location l, ValueRange a) {
        ScalarMath m{nb, l, type};
        Value gr = m.regularized(p.normCoefficient, a[0], a[1]);
        return m.add(a[2], m.mul(gr, gr));
      });
  if (failed(hNew))
    return failure();
  FailureOr<Value> xNew = buildBroadcastedGeneric(
      b, loc, {x, g, *hNew, rateT}, type,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        ScalarMath m{nb, l, type};
        Value gr = m.regularized(p.normCoefficient, a[0], a[1]);
        Value adaptive = m.add(m.sqrt(a[2]), m.c(p.epsilon));
        return m.sub(a[0], m.div(m.mul(a[3], gr), adaptive));
      });
  if (failed(xNew))
    return failure();
  return SmallVector<Value>{*xNew, *hNew};
}

FailureOr<SmallVector<Value>> mlprog::buildMomentum(OpBuilder &b, Location loc,
                                                    Value r, Value t, Value x,
                                                    Value g, Value v,
                                                    const MomentumParams &p) {
  if (failed(checkOperands(loc, "Momentum", r, t, {x, g, v})))
    return failure();
  Type type = elementTypeOf(x);
  ScalarMath f64{b, loc, b.getF64Type()};
  Value beta =
      arith::SelectOp::create(b, loc, isPositive(b, loc, extractF64(b, loc, t)),
                              f64.c(p.beta), f64.c(1.0));
  Value betaT = toTensor(b, loc, beta, type);
  Value rateT = toTensor(b, loc, extractF64(b, loc, r), type);
  FailureOr<Value> vNew = buildBroadcastedGeneric(
      b, loc, {x, g, v, betaT}, type,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        ScalarMath m{nb, l, type};
        Value gr = m.regularized(p.normCoefficient, a[0], a[1]);
        return m.add(m.mul(m.c(p.alpha), a[2]), m.mul(a[3], gr));
      });
  if (failed(vNew))
    return failure();
  FailureOr<Value> xNew = buildBroadcastedGeneric(
      b, loc, {x, g, *vNew, rateT}, type,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        ScalarMath m{nb, l, type};
        Value step = a[2];
        if (p.nesterov)
          step = m.add(m.regularized(p.normCoefficient, a[0], a[1]),
                       m.mul(m.c(p.alpha), a[2]));
        return m.sub(a[0], m.mul(a[3], step));
      });
  if (failed(xNew))
    return failure();
  return SmallVector<Value>{*xNew, *vNew};
}

FailureOr<SmallVector<Value>> mlprog::buildAdam(OpBuilder &b, Location loc,
                                                Value r, Value t, Value x,
                                                Value g, Value v, Value h,
                                                const AdamParams &p) {
  if (failed(checkOperands(loc, "Adam", r, t, {x, g, v, h})))
    return failure();
  Type type = elementTypeOf(x);
  ScalarMath f64{b, loc, b.getF64Type()};
  // r' = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R, in f64.
  Value rate = extractF64(b, loc, r);
  Value count = extractF64(b, loc, t);
  Value alphaT = math::PowFOp::create(b, loc, f64.c(p.alpha), count);
  Value betaT = math::PowFOp::create(b, loc, f64.c(p.beta), count);
  Value corrected = f64.div(f64.mul(rate, f64.sqrt(f64.sub(f64.c(1.0), betaT))),
                            f64.sub(f64.c(1.0), alphaT));
  Value adjusted = arith::SelectOp::create(b, loc, isPositive(b, loc, count),
                                           corrected, rate);
  Value rateT = toTensor(b, loc, adjusted, type);
  FailureOr<Value> vNew = buildBroadcastedGeneric(
      b, loc, {x, g, v}, type, [&](OpBuilder &nb, Location l, ValueRange a) {
        ScalarMath m{nb, l, type};
        Value gr = m.regularized(p.normCoefficient, a[0], a[1]);
        return m.add(m.mul(m.c(p.alpha), a[2]), m.mul(m.c(1.0 - p.alpha), gr));
      });
  FailureOr<Value> hNew = buildBroadcastedGeneric(
      b, loc, {x, g, h}, type, [&](OpBuilder &nb, Location l, ValueRange a) {
        ScalarMath m{nb, l, type};
        Value gr = m.regularized(p.normCoefficient, a[0], a[1]);
        return m.add(m.mul(m.c(p.beta), a[2]),
                     m.mul(m.c(1.0 - p.beta), m.mul(gr, gr)));
      });
  if (failed(vNew) || failed(hNew))
    return failure();
  FailureOr<Value> xNew = buildBroadcastedGeneric(
      b, loc, {x, *vNew, *hNew, rateT}, type,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        ScalarMath m{nb, l, type};
        Value denom = m.add(m.sqrt(a[2]), m.c(p.epsilon));
        Value updated = m.sub(a[0], m.mul(a[3], m.div(a[1], denom)));
        return m.mul(m.c(1.0 - p.normCoefficientPost), updated);
      });
  if (failed(xNew))
    return failure();
  return SmallVector<Value>{*xNew, *vNew, *hNew};
}
