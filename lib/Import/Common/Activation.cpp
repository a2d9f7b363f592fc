//===- Activation.cpp - Activation and extra elementwise builders ---------===//

#include "mlprog/Import/Common/Activation.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

/// Checks that `x` is a ranked float tensor.
static LogicalResult checkFloat(Location loc, Value x, StringRef what) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || !isa<FloatType>(type.getElementType()))
    return emitError(loc) << what << " needs a ranked float tensor, got "
                          << x.getType();
  return success();
}

/// Builds `f(x)` elementwise on float `x`.
static FailureOr<Value>
mapFloat(OpBuilder &b, Location loc, Value x, StringRef what,
         function_ref<Value(OpBuilder &, Location, Value)> f) {
  if (failed(checkFloat(loc, x, what)))
    return failure();
  Type et = cast<RankedTensorType>(x.getType()).getElementType();
  return buildBroadcastedGeneric(
      b, loc, x, et, [&](OpBuilder &nb, Location nl, ValueRange args) {
        return f(nb, nl, args[0]);
      });
}

static Value sigmoid(OpBuilder &b, Location loc, Value x) {
  Value one = createScalar(b, loc, x.getType(), 1.0);
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
  return arith::DivFOp::create(b, loc, one,
                               arith::AddFOp::create(b, loc, one, e));
}

FailureOr<Value> mlprog::buildGelu(OpBuilder &b, Location loc, Value x,
                                   GeluApproximation approximation) {
  return mapFloat(b, loc, x, "gelu", [&](OpBuilder &nb, Location nl, Value v) {
    Type t = v.getType();
    auto c = [&](double d) { return createScalar(nb, nl, t, d); };
    switch (approximation) {
    case GeluApproximation::None: {
      Value scaled = arith::MulFOp::create(nb, nl, v, c(M_SQRT1_2));
      Value erf = math::ErfOp::create(nb, nl, scaled);
      Value onePlus = arith::AddFOp::create(nb, nl, c(1.0), erf);
      Value half = arith::MulFOp::create(nb, nl, v, c(0.5));
      return arith::MulFOp::create(nb, nl, half, onePlus).getResult();
    }
    case GeluApproximation::Tanh: {
      Value cube =
          arith::MulFOp::create(nb, nl, v, arith::MulFOp::create(nb, nl, v, v));
      Value inner = arith::AddFOp::create(
          nb, nl, v, arith::MulFOp::create(nb, nl, cube, c(0.044715)));
      Value t2 = math::TanhOp::create(
          nb, nl,
          arith::MulFOp::create(nb, nl, inner, c(std::sqrt(2.0 / M_PI))));
      Value onePlus = arith::AddFOp::create(nb, nl, c(1.0), t2);
      Value half = arith::MulFOp::create(nb, nl, v, c(0.5));
      return arith::MulFOp::create(nb, nl, half, onePlus).getResult();
    }
    case GeluApproximation::Sigmoid:
      return arith::MulFOp::create(
                 nb, nl, v,
                 sigmoid(nb, nl, arith::MulFOp::create(nb, nl, v, c(1.702))))
          .getResult();
    }
    return Value();
  });
}

FailureOr<Value> mlprog::buildActivation(OpBuilder &b, Location loc,
                                         ActivationKind kind, Value x) {
  return mapFloat(
      b, loc, x, "activation", [&](OpBuilder &nb, Location nl, Value v) {
        Type t = v.getType();
        switch (kind) {
        case ActivationKind::Silu:
          return arith::MulFOp::create(nb, nl, v, sigmoid(nb, nl, v))
              .getResult();
        case ActivationKind::Softplus: {
          Value zero = createScalar(nb, nl, t, 0.0);
          Value relu = arith::MaximumFOp::create(nb, nl, v, zero);
          Value negAbs =
              arith::NegFOp::create(nb, nl, math::AbsFOp::create(nb, nl, v));
          Value l = math::Log1pOp::create(nb, nl,
                                          math::ExpOp::create(nb, nl, negAbs));
          return arith::AddFOp::create(nb, nl, relu, l).getResult();
        }
        case ActivationKind::Rsqrt:
          // 1 / sqrt(x): math.rsqrt would lower to a libm rsqrtf that does
          // not exist.
          return arith::DivFOp::create(nb, nl, createScalar(nb, nl, t, 1.0),
                                       math::SqrtOp::create(nb, nl, v))
              .getResult();
        case ActivationKind::Floor:
          return math::FloorOp::create(nb, nl, v).getResult();
        case ActivationKind::Ceil:
          return math::CeilOp::create(nb, nl, v).getResult();
        case ActivationKind::Round:
          return math::RoundEvenOp::create(nb, nl, v).getResult();
        case ActivationKind::Sign: {
          Value zero = createScalar(nb, nl, t, 0.0);
          Value one = createScalar(nb, nl, t, 1.0);
          Value minusOne = createScalar(nb, nl, t, -1.0);
          Value pos =
              arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OGT, v, zero);
          Value neg =
              arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OLT, v, zero);
          Value r = arith::SelectOp::create(nb, nl, neg, minusOne, zero);
          return arith::SelectOp::create(nb, nl, pos, one, r).getResult();
        }
        case ActivationKind::Sin:
          return math::SinOp::create(nb, nl, v).getResult();
        case ActivationKind::Cos:
          return math::CosOp::create(nb, nl, v).getResult();
        }
        return Value();
      });
}

FailureOr<Value> mlprog::buildLeakyRelu(OpBuilder &b, Location loc, Value x,
                                        double alpha) {
  return mapFloat(
      b, loc, x, "leaky_relu", [&](OpBuilder &nb, Location nl, Value v) {
        Type t = v.getType();
        Value zero = createScalar(nb, nl, t, 0.0);
        Value scaled =
            arith::MulFOp::create(nb, nl, v, createScalar(nb, nl, t, alpha));
        Value pos =
            arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OGE, v, zero);
        return arith::SelectOp::create(nb, nl, pos, v, scaled).getResult();
      });
}

FailureOr<Value> mlprog::buildClip(OpBuilder &b, Location loc, Value x,
                                   std::optional<double> lo,
                                   std::optional<double> hi) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "clip");
  if (failed(type))
    return failure();
  Type et = type->getElementType();
  if (!et.isIntOrFloat())
    return emitError(loc) << "clip needs a numeric tensor, got " << x.getType();
  bool isFloat = isa<FloatType>(et);
  return buildBroadcastedGeneric(
      b, loc, x, et, [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value v = args[0];
        if (lo) {
          Value l = createScalar(nb, nl, et, *lo);
          v = isFloat ? arith::MaximumFOp::create(nb, nl, v, l).getResult()
                      : arith::MaxSIOp::create(nb, nl, v, l).getResult();
        }
        if (hi) {
          Value h = createScalar(nb, nl, et, *hi);
          v = isFloat ? arith::MinimumFOp::create(nb, nl, v, h).getResult()
                      : arith::MinSIOp::create(nb, nl, v, h).getResult();
        }
        return v;
      });
}

FailureOr<Value> mlprog::buildAddScalar(OpBuilder &b, Location loc, Value x,
                                        double c) {
  return mapFloat(b, loc, x, "add", [&](OpBuilder &nb, Location nl, Value v) {
    return arith::AddFOp::create(nb, nl, v,
                                 createScalar(nb, nl, v.getType(), c))
        .getResult();
  });
}

FailureOr<Value> mlprog::buildFloorDiv(OpBuilder &b, Location loc, Value x,
                                       Value y) {
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  auto yt = dyn_cast<RankedTensorType>(y.getType());
  if (!xt || !yt || xt.getElementType() != yt.getElementType() ||
      !xt.getElementType().isIntOrFloat())
    return emitError(loc) << "floor_div needs ranked numeric tensors of one "
                             "element type, got "
                          << x.getType() << " and " << y.getType();
  Type et = xt.getElementType();
  return buildBroadcastedGeneric(
      b, loc, {x, y}, et, [&](OpBuilder &nb, Location nl, ValueRange args) {
        if (isa<FloatType>(et))
          return math::FloorOp::create(
                     nb, nl, arith::DivFOp::create(nb, nl, args[0], args[1]))
              .getResult();
        return arith::FloorDivSIOp::create(nb, nl, args[0], args[1])
            .getResult();
      });
}
