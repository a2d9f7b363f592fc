//===- ElementwiseActivation.cpp - Activations and Python division --------===//

#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

namespace {
/// Small helper to write scalar float formulas.
struct F {
  OpBuilder &b;
  Location loc;
  Type t;
  Value c(double v) { return createScalar(b, loc, t, v); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value max(Value x, Value y) {
    return arith::MaximumFOp::create(b, loc, x, y);
  }
  Value min(Value x, Value y) {
    return arith::MinimumFOp::create(b, loc, x, y);
  }
  Value exp(Value x) { return math::ExpOp::create(b, loc, x); }
  Value log(Value x) { return math::LogOp::create(b, loc, x); }
  Value tanh(Value x) { return math::TanhOp::create(b, loc, x); }
  Value gt(Value x, Value y) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, y);
  }
  Value sel(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value sigmoid(Value x) {
    return div(c(1), add(c(1), exp(arith::NegFOp::create(b, loc, x))));
  }
  Value relu6(Value x) { return min(max(x, c(0)), c(6)); }
  /// log(1 + exp(x)) without overflow: max(x, 0) + log1p(exp(-|x|)).
  Value softplus(Value x) {
    Value negAbs =
        arith::NegFOp::create(b, loc, math::AbsFOp::create(b, loc, x));
    return add(max(x, c(0)), math::Log1pOp::create(b, loc, exp(negAbs)));
  }
};
} // namespace

static Value pointwiseScalar(OpBuilder &b, Location loc, PointwiseKind kind,
                             Value x) {
  F f{b, loc, x.getType()};
  switch (kind) {
  case PointwiseKind::Rsqrt:
    // math.rsqrt would lower to a libm `rsqrtf`, which does not exist.
    return f.div(f.c(1), math::SqrtOp::create(b, loc, x));
  case PointwiseKind::Reciprocal:
    return f.div(f.c(1), x);
  case PointwiseKind::Floor:
    return math::FloorOp::create(b, loc, x);
  case PointwiseKind::Ceil:
    return math::CeilOp::create(b, loc, x);
  case PointwiseKind::Round:
    return math::RoundEvenOp::create(b, loc, x);
  case PointwiseKind::Sin:
    return math::SinOp::create(b, loc, x);
  case PointwiseKind::Cos:
    return math::CosOp::create(b, loc, x);
  case PointwiseKind::Sign: {
    Value pos = arith::UIToFPOp::create(b, loc, x.getType(), f.gt(x, f.c(0)));
    Value neg = arith::UIToFPOp::create(b, loc, x.getType(), f.gt(f.c(0), x));
    return f.sub(pos, neg);
  }
  case PointwiseKind::Gelu:
    return f.mul(
        f.mul(x, f.c(0.5)),
        f.add(f.c(1), math::ErfOp::create(b, loc, f.mul(x, f.c(M_SQRT1_2)))));
  case PointwiseKind::GeluTanh: {
    Value cube = f.mul(f.mul(x, x), x);
    Value inner =
        f.mul(f.c(std::sqrt(2.0 / M_PI)), f.add(x, f.mul(f.c(0.044715), cube)));
    return f.mul(f.mul(f.c(0.5), x), f.add(f.c(1), f.tanh(inner)));
  }
  case PointwiseKind::Silu:
    return f.mul(x, f.sigmoid(x));
  case PointwiseKind::Hardswish:
    return f.div(f.mul(x, f.relu6(f.add(x, f.c(3)))), f.c(6));
  case PointwiseKind::Hardsigmoid:
    return f.div(f.relu6(f.add(x, f.c(3))), f.c(6));
  case PointwiseKind::Mish:
    return f.mul(x, f.tanh(f.softplus(x)));
  case PointwiseKind::Log1p:
    return math::Log1pOp::create(b, loc, x);
  case PointwiseKind::Expm1:
    return math::ExpM1Op::create(b, loc, x);
  case PointwiseKind::Log2:
    return math::Log2Op::create(b, loc, x);
  case PointwiseKind::Log10:
    return math::Log10Op::create(b, loc, x);
  case PointwiseKind::Softsign:
    return f.div(x, f.add(f.c(1), math::AbsFOp::create(b, loc, x)));
  case PointwiseKind::Softplus:
    return f.softplus(x);
  case PointwiseKind::GeluSigmoid:
    return f.mul(x, f.sigmoid(f.mul(x, f.c(1.702))));
  case PointwiseKind::Trunc:
    return math::TruncOp::create(b, loc, x);
  case PointwiseKind::Frac:
    return f.sub(x, math::TruncOp::create(b, loc, x));
  case PointwiseKind::Exp2:
    return math::Exp2Op::create(b, loc, x);
  case PointwiseKind::Erfc:
    return math::ErfcOp::create(b, loc, x);
  case PointwiseKind::Deg2Rad:
    return f.mul(x, f.c(M_PI / 180.0));
  case PointwiseKind::Rad2Deg:
    return f.mul(x, f.c(180.0 / M_PI));
  case PointwiseKind::LogSigmoid:
    return arith::NegFOp::create(b, loc,
                                 f.softplus(arith::NegFOp::create(b, loc, x)));
  case PointwiseKind::Logit:
    return f.log(f.div(x, f.sub(f.c(1), x)));
  case PointwiseKind::Sinc: {
    // As ATen: sin(pi x) / (pi x) with the product rounded once, 1 at 0.
    Value px = f.mul(x, f.c(M_PI));
    Value isZero =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, f.c(0));
    return f.sel(isZero, f.c(1), f.div(math::SinOp::create(b, loc, px), px));
  }
  }
  return Value();
}

/// Runs `body` elementwise over float tensor `x`.
static FailureOr<Value>
floatMap(OpBuilder &b, Location loc, Value x, StringRef what,
         function_ref<Value(OpBuilder &, Location, Value)> body) {
  auto t = dyn_cast<RankedTensorType>(x.getType());
  if (!t || !isa<FloatType>(t.getElementType()))
    return emitError(loc) << what << " needs a float tensor, got "
                          << x.getType();
  return buildBroadcastedGeneric(b, loc, x, t.getElementType(),
                                 [&](OpBuilder &nb, Location nl, ValueRange a) {
                                   return body(nb, nl, a[0]);
                                 });
}

FailureOr<Value> mlprog::buildPointwise(OpBuilder &b, Location loc,
                                        PointwiseKind kind, Value x) {
  Type et = elementTypeOf(x);
  if (kind == PointwiseKind::Sign && et && et.isSignlessInteger()) {
    // Integers: (x > 0) - (x < 0) in their own type; i1 is its own sign.
    if (et.isInteger(1))
      return x;
    return buildBroadcastedGeneric(
        b, loc, x, et, [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
          Value zero = createScalar(nb, nl, et, 0);
          auto is = [&](arith::CmpIPredicate p) -> Value {
            return arith::ExtUIOp::create(
                nb, nl, et, arith::CmpIOp::create(nb, nl, p, a[0], zero));
          };
          return arith::SubIOp::create(nb, nl, is(arith::CmpIPredicate::sgt),
                                       is(arith::CmpIPredicate::slt));
        });
  }
  return floatMap(b, loc, x, "pointwise op",
                  [&](OpBuilder &nb, Location nl, Value v) {
                    return pointwiseScalar(nb, nl, kind, v);
                  });
}

FailureOr<Value> mlprog::buildClamp(OpBuilder &b, Location loc, Value x,
                                    std::optional<double> lo,
                                    std::optional<double> hi) {
  auto t = dyn_cast<RankedTensorType>(x.getType());
  if (!t || !t.getElementType().isIntOrFloat())
    return emitError(loc) << "clamp needs an int or float tensor, got "
                          << x.getType();
  Type et = t.getElementType();
  bool isFloat = isa<FloatType>(et);
  return buildBroadcastedGeneric(
      b, loc, x, et, [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value v = a[0];
        if (lo) {
          Value c = createScalar(nb, nl, et, *lo);
          v = isFloat ? arith::MaximumFOp::create(nb, nl, v, c).getResult()
                      : arith::MaxSIOp::create(nb, nl, v, c).getResult();
        }
        if (hi) {
          Value c = createScalar(nb, nl, et, *hi);
          v = isFloat ? arith::MinimumFOp::create(nb, nl, v, c).getResult()
                      : arith::MinSIOp::create(nb, nl, v, c).getResult();
        }
        return v;
      });
}

FailureOr<Value> mlprog::buildGlu(OpBuilder &b, Location loc, Value x,
                                  int64_t axis) {
  auto t = dyn_cast<RankedTensorType>(x.getType());
  if (!t || !isa<FloatType>(t.getElementType()))
    return emitError(loc) << "glu needs a float tensor, got " << x.getType();
  if (axis < 0 || axis >= t.getRank())
    return emitError(loc) << "glu axis " << axis << " out of range for rank "
                          << t.getRank();
  int64_t extent = t.getDimSize(axis);
  if (ShapedType::isDynamic(extent) || extent % 2 != 0)
    return emitError(loc) << "glu needs an even static extent along axis "
                          << axis << ", got " << x.getType();
  Type et = t.getElementType();
  if (t.hasStaticShape() && t.getNumElements() == 0) {
    // Nothing to compute (and no slice of an empty tensor to take).
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < t.getRank(); ++d)
      sizes.push_back(b.getIndexAttr(d == axis ? extent / 2 : t.getDimSize(d)));
    return createEmpty(b, loc, sizes, et);
  }
  FailureOr<SmallVector<Value>> halves =
      buildSplit(b, loc, x, axis, {extent / 2, extent / 2});
  if (failed(halves))
    return failure();
  return buildBroadcastedGeneric(b, loc, *halves, et,
                                 [&](OpBuilder &nb, Location nl, ValueRange a) {
                                   F f{nb, nl, et};
                                   return f.mul(a[0], f.sigmoid(a[1]));
                                 });
}

FailureOr<Value> mlprog::buildLeakyRelu(OpBuilder &b, Location loc, Value x,
                                        double alpha) {
  return floatMap(
      b, loc, x, "leaky relu", [&](OpBuilder &nb, Location nl, Value v) {
        F f{nb, nl, v.getType()};
        Value pos =
            arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OGE, v, f.c(0));
        return f.sel(pos, v, f.mul(v, f.c(alpha)));
      });
}

FailureOr<Value> mlprog::buildAddScalar(OpBuilder &b, Location loc, Value x,
                                        double c) {
  return floatMap(b, loc, x, "add", [&](OpBuilder &nb, Location nl, Value v) {
    F f{nb, nl, v.getType()};
    return f.add(v, f.c(c));
  });
}

FailureOr<Value> mlprog::buildElu(OpBuilder &b, Location loc, Value x,
                                  double alpha, double scale,
                                  double inputScale) {
  return floatMap(b, loc, x, "elu", [&](OpBuilder &nb, Location nl, Value v) {
    F f{nb, nl, v.getType()};
    Value neg = f.mul(f.c(alpha),
                      math::ExpM1Op::create(nb, nl, f.mul(v, f.c(inputScale))));
    return f.mul(f.c(scale), f.sel(f.gt(v, f.c(0)), v, neg));
  });
}

FailureOr<Value> mlprog::buildSoftplus(OpBuilder &b, Location loc, Value x,
                                       double beta, double threshold) {
  return floatMap(b, loc, x, "softplus",
                  [&](OpBuilder &nb, Location nl, Value v) {
                    F f{nb, nl, v.getType()};
                    Value bx = f.mul(v, f.c(beta));
                    Value soft = f.div(f.softplus(bx), f.c(beta));
                    return f.sel(f.gt(bx, f.c(threshold)), v, soft);
                  });
}

Value mlprog::buildScalarDivision(OpBuilder &b, Location loc, DivisionKind kind,
                                  Value l, Value r) {
  Type t = l.getType();
  if (isa<FloatType>(t)) {
    F f{b, loc, t};
    Value q = f.div(l, r);
    switch (kind) {
    case DivisionKind::FloorDivide:
      return math::FloorOp::create(b, loc, q);
    case DivisionKind::TruncDivide:
      return math::TruncOp::create(b, loc, q);
    case DivisionKind::Remainder: {
      Value m = arith::RemFOp::create(b, loc, l, r);
      // Move a nonzero remainder whose sign differs from the divisor's.
      Value zero = f.c(0);
      Value mNeg = f.gt(zero, m), rNeg = f.gt(zero, r);
      Value mNz =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, m, zero);
      Value differ = arith::XOrIOp::create(b, loc, mNeg, rNeg);
      Value fix = arith::AndIOp::create(b, loc, differ, mNz);
      return f.sel(fix, f.add(m, r), m);
    }
    }
  }
  switch (kind) {
  case DivisionKind::FloorDivide:
    return arith::FloorDivSIOp::create(b, loc, l, r);
  case DivisionKind::TruncDivide:
    return arith::DivSIOp::create(b, loc, l, r);
  case DivisionKind::Remainder: {
    Value m = arith::RemSIOp::create(b, loc, l, r);
    Value zero = createScalar(b, loc, t, 0);
    Value mNeg =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, m, zero);
    Value rNeg =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, r, zero);
    Value mNz =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, m, zero);
    Value differ = arith::XOrIOp::create(b, loc, mNeg, rNeg);
    Value fix = arith::AndIOp::create(b, loc, differ, mNz);
    return arith::SelectOp::create(b, loc, fix,
                                   arith::AddIOp::create(b, loc, m, r), m);
  }
  }
  return Value();
}

FailureOr<Value> mlprog::buildDivision(OpBuilder &b, Location loc,
                                       DivisionKind kind, Value lhs,
                                       Value rhs) {
  auto lt = dyn_cast<RankedTensorType>(lhs.getType());
  auto rt = dyn_cast<RankedTensorType>(rhs.getType());
  if (!lt || !rt || lt.getElementType() != rt.getElementType() ||
      !lt.getElementType().isIntOrFloat())
    return emitError(loc) << "division needs ranked tensors of one element "
                             "type, got "
                          << lhs.getType() << " and " << rhs.getType();
  return buildBroadcastedGeneric(b, loc, {lhs, rhs}, lt.getElementType(),
                                 [&](OpBuilder &nb, Location nl, ValueRange a) {
                                   return buildScalarDivision(nb, nl, kind,
                                                              a[0], a[1]);
                                 });
}
