//===- ElementwiseMath.cpp - Trigonometry, remainders, shifts, clips ------===//

#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

static LogicalResult requireFloat(Location loc, Value x, StringRef what) {
  if (!isa_and_nonnull<FloatType>(elementTypeOf(x)))
    return emitError(loc) << what << " needs a ranked float tensor, got "
                          << x.getType();
  return success();
}

static LogicalResult requireSameNumeric(Location loc, Value lhs, Value rhs,
                                        StringRef what) {
  Type l = elementTypeOf(lhs), r = elementTypeOf(rhs);
  if (!l || l != r || !l.isIntOrFloat())
    return emitError(loc) << what
                          << " needs ranked numeric tensors of one element "
                             "type, got "
                          << lhs.getType() << " and " << rhs.getType();
  return success();
}

FailureOr<Value> mlprog::buildMathFunction(OpBuilder &b, Location loc,
                                           MathFunctionKind kind, Value x) {
  if (failed(requireFloat(loc, x, "math function")))
    return failure();
  return buildBroadcastedGeneric(
      b, loc, x, elementTypeOf(x),
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        switch (kind) {
        case MathFunctionKind::Tan:
          return math::TanOp::create(nb, nl, a[0]);
        case MathFunctionKind::Asin:
          return math::AsinOp::create(nb, nl, a[0]);
        case MathFunctionKind::Acos:
          return math::AcosOp::create(nb, nl, a[0]);
        case MathFunctionKind::Atan:
          return math::AtanOp::create(nb, nl, a[0]);
        case MathFunctionKind::Sinh:
          return math::SinhOp::create(nb, nl, a[0]);
        case MathFunctionKind::Cosh:
          return math::CoshOp::create(nb, nl, a[0]);
        case MathFunctionKind::Asinh:
          return math::AsinhOp::create(nb, nl, a[0]);
        case MathFunctionKind::Acosh:
          return math::AcoshOp::create(nb, nl, a[0]);
        case MathFunctionKind::Atanh:
          return math::AtanhOp::create(nb, nl, a[0]);
        }
        return Value();
      });
}

FailureOr<Value> mlprog::buildIsNaN(OpBuilder &b, Location loc, Value x) {
  if (failed(requireFloat(loc, x, "isnan")))
    return failure();
  return buildBroadcastedGeneric(
      b, loc, x, b.getI1Type(),
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        return arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::UNO, a[0],
                                     a[0]);
      });
}

FailureOr<Value> mlprog::buildIsInf(OpBuilder &b, Location loc, Value x,
                                    bool detectPositive, bool detectNegative) {
  if (failed(requireFloat(loc, x, "isinf")))
    return failure();
  auto ft = cast<FloatType>(elementTypeOf(x));
  return buildBroadcastedGeneric(
      b, loc, x, b.getI1Type(),
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value result = arith::ConstantOp::create(nb, nl, nb.getBoolAttr(false));
        auto check = [&](bool negative) {
          Value inf = arith::ConstantOp::create(
              nb, nl,
              nb.getFloatAttr(
                  ft, APFloat::getInf(ft.getFloatSemantics(), negative)));
          Value eq = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ,
                                           a[0], inf);
          result = arith::OrIOp::create(nb, nl, result, eq);
        };
        if (detectPositive)
          check(false);
        if (detectNegative)
          check(true);
        return result;
      });
}

FailureOr<Value> mlprog::buildRemainder(OpBuilder &b, Location loc, Value lhs,
                                        Value rhs, bool truncated,
                                        bool isUnsigned) {
  if (failed(requireSameNumeric(loc, lhs, rhs, "remainder")))
    return failure();
  Type et = elementTypeOf(lhs);
  bool isFloat = isa<FloatType>(et);
  return buildBroadcastedGeneric(
      b, loc, {lhs, rhs}, et,
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        if (!isFloat && isUnsigned)
          return arith::RemUIOp::create(nb, nl, a[0], a[1]);
        Value r = isFloat
                      ? arith::RemFOp::create(nb, nl, a[0], a[1]).getResult()
                      : arith::RemSIOp::create(nb, nl, a[0], a[1]).getResult();
        if (truncated)
          return r;
        // Floored: move a nonzero remainder whose sign differs from the
        // divisor's into the divisor's range.
        Value zero = createScalar(nb, nl, et, 0.0);
        Value rNeg, bNeg, rNonZero;
        if (isFloat) {
          rNeg =
              arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OLT, r, zero);
          bNeg = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OLT, a[1],
                                       zero);
          rNonZero =
              arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::ONE, r, zero);
        } else {
          rNeg =
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt, r, zero);
          bNeg = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt, a[1],
                                       zero);
          rNonZero =
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ne, r, zero);
        }
        Value differ = arith::XOrIOp::create(nb, nl, rNeg, bNeg);
        Value fix = arith::AndIOp::create(nb, nl, differ, rNonZero);
        Value shifted =
            isFloat ? arith::AddFOp::create(nb, nl, r, a[1]).getResult()
                    : arith::AddIOp::create(nb, nl, r, a[1]).getResult();
        return arith::SelectOp::create(nb, nl, fix, shifted, r);
      });
}

FailureOr<Value> mlprog::buildBitShift(OpBuilder &b, Location loc, Value lhs,
                                       Value rhs, bool left, bool isSigned) {
  if (failed(requireSameNumeric(loc, lhs, rhs, "bit shift")))
    return failure();
  Type et = elementTypeOf(lhs);
  if (!et.isSignlessInteger())
    return emitError(loc) << "bit shift needs integer tensors, got "
                          << lhs.getType();
  return buildBroadcastedGeneric(
      b, loc, {lhs, rhs}, et,
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        if (isSigned && !left) {
          // Amounts out of [0, width) (negative ones compare huge unsigned)
          // shift by width - 1: only the sign remains (-1 or 0).
          Value last =
              createScalar(nb, nl, et, double(et.getIntOrFloatBitWidth() - 1));
          Value amount = arith::MinUIOp::create(nb, nl, a[1], last);
          return arith::ShRSIOp::create(nb, nl, a[0], amount);
        }
        Value shifted =
            left ? arith::ShLIOp::create(nb, nl, a[0], a[1]).getResult()
                 : arith::ShRUIOp::create(nb, nl, a[0], a[1]).getResult();
        Value width =
            createScalar(nb, nl, et, double(et.getIntOrFloatBitWidth()));
        Value tooFar = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::uge,
                                             a[1], width);
        return arith::SelectOp::create(nb, nl, tooFar,
                                       createScalar(nb, nl, et, 0.0), shifted);
      });
}

FailureOr<Value> mlprog::buildPowMixed(OpBuilder &b, Location loc, Value base,
                                       Value exponent, bool baseUnsigned,
                                       bool exponentUnsigned) {
  Type bt = elementTypeOf(base), et = elementTypeOf(exponent);
  if (!bt || !et || !bt.isIntOrFloat() || !et.isIntOrFloat() ||
      bt.isInteger(1) || et.isInteger(1))
    return emitError(loc) << "pow needs ranked numeric tensors, got "
                          << base.getType() << " and " << exponent.getType();
  Type compute = isa<FloatType>(bt) ? bt : b.getF64Type();
  return buildBroadcastedGeneric(
      b, loc, {base, exponent}, bt,
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value x = buildConvertScalar(nb, nl, a[0], compute, baseUnsigned);
        Value y = buildConvertScalar(nb, nl, a[1], compute, exponentUnsigned);
        Value r = math::PowFOp::create(nb, nl, x, y);
        if (compute == bt)
          return r;
        return baseUnsigned
                   ? arith::FPToUIOp::create(nb, nl, bt, r).getResult()
                   : arith::FPToSIOp::create(nb, nl, bt, r).getResult();
      });
}

/// Scalar `v * sigmoid(alpha * v)` of float type `et`.
static Value swishScalar(OpBuilder &b, Location loc, Value v, Type et,
                         double alpha) {
  Value one = createScalar(b, loc, et, 1.0);
  Value ax = arith::MulFOp::create(b, loc, v, createScalar(b, loc, et, alpha));
  Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, ax));
  return arith::DivFOp::create(b, loc, v,
                               arith::AddFOp::create(b, loc, one, e));
}

FailureOr<Value> mlprog::buildSwiGLU(OpBuilder &b, Location loc, Value gate,
                                     Value value, double alpha) {
  if (failed(requireFloat(loc, gate, "swiglu")) ||
      failed(requireSameNumeric(loc, gate, value, "swiglu")))
    return failure();
  auto gt = cast<RankedTensorType>(gate.getType());
  auto vt = cast<RankedTensorType>(value.getType());
  if (gt.getRank() != vt.getRank() ||
      failed(verifyCompatibleShape(gt.getShape(), vt.getShape())))
    return emitError(loc) << "swiglu needs inputs of one shape, got " << gt
                          << " and " << vt;
  Type et = gt.getElementType();
  return buildBroadcastedGeneric(
      b, loc, {gate, value}, et,
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        return arith::MulFOp::create(
            nb, nl, swishScalar(nb, nl, a[0], et, alpha), a[1]);
      });
}

/// One parameterized activation of the float scalar `v` of type `ct`.
static Value paramActivationScalar(OpBuilder &nb, Location nl,
                                   ParamActivationKind kind, Value v, Type ct,
                                   double alpha, double beta) {
  auto c = [&](double d) { return createScalar(nb, nl, ct, d); };
  auto cmp = [&](arith::CmpFPredicate p, Value l, Value r) -> Value {
    return arith::CmpFOp::create(nb, nl, p, l, r);
  };
  auto hardSigmoid = [&](double al, double be) -> Value {
    Value y = arith::AddFOp::create(
        nb, nl, arith::MulFOp::create(nb, nl, v, c(al)), c(be));
    y = arith::MaximumFOp::create(nb, nl, y, c(0.0));
    return arith::MinimumFOp::create(nb, nl, y, c(1.0));
  };
  switch (kind) {
  case ParamActivationKind::HardSigmoid:
    return hardSigmoid(alpha, beta);
  case ParamActivationKind::HardSwish:
    return arith::MulFOp::create(nb, nl, v, hardSigmoid(1.0 / 6.0, 0.5));
  case ParamActivationKind::Swish:
    return swishScalar(nb, nl, v, ct, alpha);
  case ParamActivationKind::ThresholdedRelu:
    return arith::SelectOp::create(
        nb, nl, cmp(arith::CmpFPredicate::OGT, v, c(alpha)), v, c(0.0));
  case ParamActivationKind::Shrink: {
    Value low = arith::AddFOp::create(nb, nl, v, c(beta));
    Value high = arith::SubFOp::create(nb, nl, v, c(beta));
    Value r = arith::SelectOp::create(
        nb, nl, cmp(arith::CmpFPredicate::OGT, v, c(alpha)), high, c(0.0));
    return arith::SelectOp::create(
        nb, nl, cmp(arith::CmpFPredicate::OLT, v, c(-alpha)), low, r);
  }
  case ParamActivationKind::ThresholdedReluInclusive:
    return arith::SelectOp::create(
        nb, nl, cmp(arith::CmpFPredicate::OGE, v, c(alpha)), v, c(0.0));
  case ParamActivationKind::ClampedRelu: {
    Value scaled = arith::MulFOp::create(nb, nl, v, c(alpha));
    Value y = arith::SelectOp::create(
        nb, nl, cmp(arith::CmpFPredicate::OGE, v, c(0.0)), v, scaled);
    return arith::MinimumFOp::create(nb, nl, y, c(beta));
  }
  case ParamActivationKind::ScaledTanh:
    return arith::MulFOp::create(
        nb, nl, c(alpha),
        math::TanhOp::create(nb, nl,
                             arith::MulFOp::create(nb, nl, v, c(beta))));
  case ParamActivationKind::Affine:
    return arith::AddFOp::create(
        nb, nl, arith::MulFOp::create(nb, nl, v, c(alpha)), c(beta));
  case ParamActivationKind::Threshold:
    // An unordered compare keeps NaN (torch: x <= t ? value : x).
    return arith::SelectOp::create(
        nb, nl, cmp(arith::CmpFPredicate::OLE, v, c(alpha)), c(beta), v);
  case ParamActivationKind::Celu: {
    Value e =
        math::ExpOp::create(nb, nl, arith::DivFOp::create(nb, nl, v, c(alpha)));
    Value neg = arith::MulFOp::create(nb, nl, c(alpha),
                                      arith::SubFOp::create(nb, nl, e, c(1.0)));
    return arith::AddFOp::create(
        nb, nl, arith::MaximumFOp::create(nb, nl, v, c(0.0)),
        arith::MinimumFOp::create(nb, nl, neg, c(0.0)));
  }
  }
  return Value();
}

FailureOr<Value> mlprog::buildParamActivation(OpBuilder &b, Location loc,
                                              ParamActivationKind kind, Value x,
                                              double alpha, double beta) {
  if (failed(requireFloat(loc, x, "activation")))
    return failure();
  Type et = elementTypeOf(x);
  // f16 and bf16 compute in f32 and round once, as the references do.
  Type ct = et.isF16() || et.isBF16() ? Type(b.getF32Type()) : et;
  return buildBroadcastedGeneric(
      b, loc, x, et, [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value v = ct == et ? a[0] : arith::ExtFOp::create(nb, nl, ct, a[0]);
        Value r = paramActivationScalar(nb, nl, kind, v, ct, alpha, beta);
        return ct == et ? r : arith::TruncFOp::create(nb, nl, et, r);
      });
}

FailureOr<Value> mlprog::buildPRelu(OpBuilder &b, Location loc, Value x,
                                    Value slope) {
  if (failed(requireSameNumeric(loc, x, slope, "prelu")))
    return failure();
  Type et = elementTypeOf(x);
  bool isFloat = isa<FloatType>(et);
  return buildBroadcastedGeneric(
      b, loc, {x, slope}, et,
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value zero = createScalar(nb, nl, et, 0.0);
        Value neg = isFloat ? arith::CmpFOp::create(
                                  nb, nl, arith::CmpFPredicate::OLT, a[0], zero)
                                  .getResult()
                            : arith::CmpIOp::create(
                                  nb, nl, arith::CmpIPredicate::slt, a[0], zero)
                                  .getResult();
        Value scaled =
            isFloat ? arith::MulFOp::create(nb, nl, a[0], a[1]).getResult()
                    : arith::MulIOp::create(nb, nl, a[0], a[1]).getResult();
        return arith::SelectOp::create(nb, nl, neg, scaled, a[0]);
      });
}

FailureOr<Value> mlprog::buildClipTensor(OpBuilder &b, Location loc, Value x,
                                         Value lo, Value hi, bool isUnsigned) {
  for (Value bound : {lo, hi})
    if (bound && failed(requireSameNumeric(loc, x, bound, "clip")))
      return failure();
  if (failed(requireSameNumeric(loc, x, x, "clip")))
    return failure();
  Type et = elementTypeOf(x);
  bool isFloat = isa<FloatType>(et);
  // Booleans order false < true (signed i1 would read true as -1).
  isUnsigned |= et.isInteger(1);
  SmallVector<Value> operands = {x};
  if (lo)
    operands.push_back(lo);
  if (hi)
    operands.push_back(hi);
  return buildBroadcastedGeneric(
      b, loc, operands, et,
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value v = a[0];
        unsigned next = 1;
        if (lo) {
          Value l = a[next++];
          if (isFloat) {
            // Keep a NaN input NaN; a bound is never NaN in practice.
            Value less =
                arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OLT, v, l);
            v = arith::SelectOp::create(nb, nl, less, l, v);
          } else {
            v = isUnsigned ? arith::MaxUIOp::create(nb, nl, v, l).getResult()
                           : arith::MaxSIOp::create(nb, nl, v, l).getResult();
          }
        }
        if (hi) {
          Value h = a[next++];
          if (isFloat) {
            Value more =
                arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OGT, v, h);
            v = arith::SelectOp::create(nb, nl, more, h, v);
          } else {
            v = isUnsigned ? arith::MinUIOp::create(nb, nl, v, h).getResult()
                           : arith::MinSIOp::create(nb, nl, v, h).getResult();
          }
        }
        return v;
      });
}
