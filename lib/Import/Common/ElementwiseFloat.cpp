//===- ElementwiseFloat.cpp - IEEE functions, classification, lerp --------===//
//
// Binary functions of C99's math.h (copysign, hypot, fmax, fmin, nextafter)
// and their neighbours (logaddexp, xlogy, heaviside), float classification
// (isfinite, signbit, nan_to_num, frexp), lerp and isclose.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

namespace {
/// Scalar float formulas of type `t`.
struct F {
  OpBuilder &b;
  Location loc;
  Type t;
  Value c(double v) { return createScalar(b, loc, t, v); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value abs(Value x) { return math::AbsFOp::create(b, loc, x); }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value eq(Value x, Value y) { return cmp(arith::CmpFPredicate::OEQ, x, y); }
  Value isNaN(Value x) { return cmp(arith::CmpFPredicate::UNO, x, x); }
  Value sel(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
  Value inf() { return c(std::numeric_limits<double>::infinity()); }
  Value nan() { return c(std::numeric_limits<double>::quiet_NaN()); }
};
} // namespace

/// The signless integer type of `t`'s width (the bits of a float).
static IntegerType bitsType(Type t) {
  return IntegerType::get(t.getContext(), t.getIntOrFloatBitWidth());
}

/// |x| with the sign bit of y, on the bits: the CPU lowering has no
/// pattern for math.copysign.
static Value copySign(F &f, Value x, Value y) {
  IntegerType it = bitsType(f.t);
  unsigned width = it.getWidth();
  APInt signMask = APInt::getSignMask(width);
  Value sign =
      arith::ConstantOp::create(f.b, f.loc, IntegerAttr::get(it, signMask));
  Value rest =
      arith::ConstantOp::create(f.b, f.loc, IntegerAttr::get(it, ~signMask));
  Value xb = arith::BitcastOp::create(f.b, f.loc, it, x);
  Value yb = arith::BitcastOp::create(f.b, f.loc, it, y);
  Value bits = arith::OrIOp::create(
      f.b, f.loc, arith::AndIOp::create(f.b, f.loc, xb, rest),
      arith::AndIOp::create(f.b, f.loc, yb, sign));
  return arith::BitcastOp::create(f.b, f.loc, f.t, bits);
}

static Value nextAfter(F &f, Value x, Value y) {
  // Step the bit pattern of x by one toward y: up when |x| grows.
  IntegerType it = bitsType(f.t);
  Value bits = arith::BitcastOp::create(f.b, f.loc, it, x);
  Value one = arith::ConstantOp::create(f.b, f.loc, IntegerAttr::get(it, 1));
  Value up = arith::AddIOp::create(f.b, f.loc, bits, one);
  Value down = arith::SubIOp::create(f.b, f.loc, bits, one);
  Value towardLarger = f.cmp(arith::CmpFPredicate::OLT, x, y);
  Value positive = f.cmp(arith::CmpFPredicate::OGT, x, f.c(0));
  Value grows = arith::XOrIOp::create(
      f.b, f.loc, arith::XOrIOp::create(f.b, f.loc, towardLarger, positive),
      arith::ConstantOp::create(f.b, f.loc, f.b.getBoolAttr(true)));
  Value stepped =
      arith::BitcastOp::create(f.b, f.loc, f.t, f.sel(grows, up, down));
  // From zero: the smallest subnormal with y's sign.
  Value tiny = arith::BitcastOp::create(f.b, f.loc, f.t, one);
  Value fromZero = copySign(f, tiny, y);
  Value r = f.sel(f.eq(x, f.c(0)), fromZero, stepped);
  r = f.sel(f.eq(x, y), y, r);
  Value anyNaN = f.cmp(arith::CmpFPredicate::UNO, x, y);
  return f.sel(anyNaN, f.nan(), r);
}

static Value binaryMathFloat(F &f, BinaryMathKind kind, Value x, Value y) {
  switch (kind) {
  case BinaryMathKind::CopySign:
    return copySign(f, x, y);
  case BinaryMathKind::Hypot: {
    // m * sqrt(1 + (n / m)^2), m >= n the magnitudes; inf wins over NaN.
    Value ax = f.abs(x), ay = f.abs(y);
    Value m = arith::MaximumFOp::create(f.b, f.loc, ax, ay);
    Value n = arith::MinimumFOp::create(f.b, f.loc, ax, ay);
    Value q = f.div(n, m);
    Value r =
        f.mul(m, math::SqrtOp::create(f.b, f.loc, f.add(f.c(1), f.mul(q, q))));
    r = f.sel(f.eq(m, f.c(0)), f.c(0), r);
    Value anyInf =
        arith::OrIOp::create(f.b, f.loc, f.eq(ax, f.inf()), f.eq(ay, f.inf()));
    return f.sel(anyInf, f.inf(), r);
  }
  case BinaryMathKind::FMax:
    return arith::MaxNumFOp::create(f.b, f.loc, x, y);
  case BinaryMathKind::FMin:
    return arith::MinNumFOp::create(f.b, f.loc, x, y);
  case BinaryMathKind::NextAfter:
    return nextAfter(f, x, y);
  case BinaryMathKind::LogAddExp:
  case BinaryMathKind::LogAddExp2: {
    // max + log1p(b^-|x - y|) (/ ln 2); equal infinities give themselves.
    bool base2 = kind == BinaryMathKind::LogAddExp2;
    Value m = arith::MaximumFOp::create(f.b, f.loc, x, y);
    Value negDiff = arith::NegFOp::create(f.b, f.loc, f.abs(f.sub(x, y)));
    Value e = base2 ? math::Exp2Op::create(f.b, f.loc, negDiff).getResult()
                    : math::ExpOp::create(f.b, f.loc, negDiff).getResult();
    Value l = math::Log1pOp::create(f.b, f.loc, e);
    if (base2)
      l = f.mul(l, f.c(1 / M_LN2));
    Value r = f.add(m, l);
    Value sameInf =
        arith::AndIOp::create(f.b, f.loc, f.eq(x, y), f.eq(f.abs(x), f.inf()));
    return f.sel(sameInf, x, r);
  }
  case BinaryMathKind::Xlogy:
  case BinaryMathKind::Xlog1py: {
    Value l = kind == BinaryMathKind::Xlogy
                  ? math::LogOp::create(f.b, f.loc, y).getResult()
                  : math::Log1pOp::create(f.b, f.loc, y).getResult();
    Value r = f.sel(f.eq(x, f.c(0)), f.c(0), f.mul(x, l));
    return f.sel(f.isNaN(y), f.nan(), r);
  }
  case BinaryMathKind::Heaviside: {
    Value positive = arith::UIToFPOp::create(
        f.b, f.loc, f.t, f.cmp(arith::CmpFPredicate::OGT, x, f.c(0)));
    return f.sel(f.eq(x, f.c(0)), y, positive);
  }
  }
  return Value();
}

static Value binaryMathInt(OpBuilder &b, Location loc, BinaryMathKind kind,
                           Value x, Value y) {
  Type t = x.getType();
  bool isBool = t.isInteger(1);
  switch (kind) {
  case BinaryMathKind::FMax:
    return isBool ? arith::OrIOp::create(b, loc, x, y).getResult()
                  : arith::MaxSIOp::create(b, loc, x, y).getResult();
  case BinaryMathKind::FMin:
    return isBool ? arith::AndIOp::create(b, loc, x, y).getResult()
                  : arith::MinSIOp::create(b, loc, x, y).getResult();
  case BinaryMathKind::Heaviside: {
    Value zero = createScalar(b, loc, t, 0);
    Value isZero =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, zero);
    Value positive = arith::CmpIOp::create(
        b, loc, isBool ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt,
        x, zero);
    Value one = isBool ? positive : arith::ExtUIOp::create(b, loc, t, positive);
    return arith::SelectOp::create(b, loc, isZero, y, one);
  }
  default:
    return Value();
  }
}

FailureOr<Value> mlprog::buildBinaryMath(OpBuilder &b, Location loc,
                                         BinaryMathKind kind, Value lhs,
                                         Value rhs) {
  Type et = elementTypeOf(lhs);
  if (!et || et != elementTypeOf(rhs) || !et.isIntOrFloat())
    return emitError(loc) << "binary function needs ranked numeric tensors "
                             "of one element type, got "
                          << lhs.getType() << " and " << rhs.getType();
  bool intOk = kind == BinaryMathKind::FMax || kind == BinaryMathKind::FMin ||
               kind == BinaryMathKind::Heaviside;
  if (!isa<FloatType>(et) && !intOk)
    return emitError(loc) << "binary function needs float tensors, got "
                          << lhs.getType();
  return buildBroadcastedGeneric(
      b, loc, {lhs, rhs}, et, [&](OpBuilder &nb, Location nl, ValueRange a) {
        if (!isa<FloatType>(et))
          return binaryMathInt(nb, nl, kind, a[0], a[1]);
        F f{nb, nl, et};
        return binaryMathFloat(f, kind, a[0], a[1]);
      });
}

FailureOr<Value> mlprog::buildIsFinite(OpBuilder &b, Location loc, Value x) {
  Type et = elementTypeOf(x);
  if (!et || !et.isIntOrFloat())
    return emitError(loc) << "isfinite needs a ranked numeric tensor, got "
                          << x.getType();
  return buildBroadcastedGeneric(
      b, loc, x, b.getI1Type(),
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        if (!isa<FloatType>(et))
          return arith::ConstantOp::create(nb, nl, nb.getBoolAttr(true));
        F f{nb, nl, et};
        // |x| < inf is false for inf and (unordered) NaN.
        return f.cmp(arith::CmpFPredicate::OLT, f.abs(a[0]), f.inf());
      });
}

FailureOr<Value> mlprog::buildSignBit(OpBuilder &b, Location loc, Value x) {
  Type et = elementTypeOf(x);
  if (!et || !et.isIntOrFloat())
    return emitError(loc) << "signbit needs a ranked numeric tensor, got "
                          << x.getType();
  return buildBroadcastedGeneric(
      b, loc, x, b.getI1Type(),
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        if (et.isInteger(1))
          return arith::ConstantOp::create(nb, nl, nb.getBoolAttr(false));
        Value v = a[0];
        if (isa<FloatType>(et))
          v = arith::BitcastOp::create(nb, nl, bitsType(et), v);
        return arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt, v,
                                     createScalar(nb, nl, v.getType(), 0));
      });
}

FailureOr<Value> mlprog::buildAngle(OpBuilder &b, Location loc, Value x) {
  Type et = elementTypeOf(x);
  if (!et || !isa<FloatType>(et))
    return emitError(loc) << "angle needs a ranked float tensor, got "
                          << x.getType();
  return buildBroadcastedGeneric(
      b, loc, x, et, [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value v = a[0];
        Value neg = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OLT, v,
                                          createScalar(nb, nl, et, 0));
        Value nan =
            arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::UNO, v, v);
        Value r =
            arith::SelectOp::create(nb, nl, neg, createScalar(nb, nl, et, M_PI),
                                    createScalar(nb, nl, et, 0));
        return arith::SelectOp::create(nb, nl, nan, v, r);
      });
}

FailureOr<Value> mlprog::buildNanToNum(OpBuilder &b, Location loc, Value x,
                                       double nan, std::optional<double> posinf,
                                       std::optional<double> neginf) {
  auto ft = dyn_cast_or_null<FloatType>(elementTypeOf(x));
  if (!ft)
    return emitError(loc) << "nan_to_num needs a ranked float tensor, got "
                          << x.getType();
  const llvm::fltSemantics &sem = ft.getFloatSemantics();
  auto constant = [&](OpBuilder &nb, Location nl, std::optional<double> v,
                      bool negative) -> Value {
    if (v)
      return createScalar(nb, nl, ft, *v);
    return arith::ConstantOp::create(
        nb, nl, nb.getFloatAttr(ft, APFloat::getLargest(sem, negative)));
  };
  return buildBroadcastedGeneric(
      b, loc, x, ft, [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        F f{nb, nl, ft};
        Value v = a[0];
        Value r = f.sel(f.isNaN(v), f.c(nan), v);
        r = f.sel(f.eq(v, f.inf()), constant(nb, nl, posinf, false), r);
        return f.sel(f.eq(v, f.c(-std::numeric_limits<double>::infinity())),
                     constant(nb, nl, neginf, true), r);
      });
}

FailureOr<Value> mlprog::buildLerp(OpBuilder &b, Location loc, Value start,
                                   Value end, Value weight) {
  Type et = elementTypeOf(start);
  if (!isa_and_nonnull<FloatType>(et) || et != elementTypeOf(end) ||
      et != elementTypeOf(weight))
    return emitError(loc) << "lerp needs ranked float tensors of one element "
                             "type, got "
                          << start.getType() << ", " << end.getType() << " and "
                          << weight.getType();
  return buildBroadcastedGeneric(
      b, loc, {start, end, weight}, et,
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        F f{nb, nl, et};
        Value diff = f.sub(a[1], a[0]);
        Value small = f.cmp(arith::CmpFPredicate::OLT, f.abs(a[2]), f.c(0.5));
        Value fromStart = f.add(a[0], f.mul(a[2], diff));
        Value fromEnd = f.sub(a[1], f.mul(diff, f.sub(f.c(1), a[2])));
        return f.sel(small, fromStart, fromEnd);
      });
}

FailureOr<Value> mlprog::buildIsClose(OpBuilder &b, Location loc, Value a,
                                      Value bv, double rtol, double atol,
                                      bool equalNan) {
  Type et = elementTypeOf(a);
  if (!et || et != elementTypeOf(bv) || !et.isIntOrFloat())
    return emitError(loc) << "isclose needs ranked numeric tensors of one "
                             "element type, got "
                          << a.getType() << " and " << bv.getType();
  bool exactOnly = et.isInteger(1) || (rtol == 0 && atol == 0);
  return buildBroadcastedGeneric(
      b, loc, {a, bv}, b.getI1Type(),
      [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        Value x = args[0], y = args[1];
        if (!isa<FloatType>(et)) {
          Value same =
              arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, x, y);
          if (exactOnly)
            return same;
          x = buildConvertScalar(nb, nl, x, nb.getF64Type());
          y = buildConvertScalar(nb, nl, y, nb.getF64Type());
        }
        F f{nb, nl, x.getType()};
        Value close = f.eq(x, y);
        if (equalNan)
          close = arith::OrIOp::create(
              nb, nl, close,
              arith::AndIOp::create(nb, nl, f.isNaN(x), f.isNaN(y)));
        if (exactOnly)
          return close;
        Value allowed = f.add(f.c(atol), f.abs(f.mul(f.c(rtol), y)));
        Value actual = f.abs(f.sub(x, y));
        // A finite error within the tolerance (inf and NaN errors compare
        // false against a finite bound, and `<` inf fails for inf).
        Value within = arith::AndIOp::create(
            nb, nl, f.cmp(arith::CmpFPredicate::OLT, actual, f.inf()),
            f.cmp(arith::CmpFPredicate::OLE, actual, allowed));
        return arith::OrIOp::create(nb, nl, close, within);
      });
}

FailureOr<std::pair<Value, Value>> mlprog::buildFrexp(OpBuilder &b,
                                                      Location loc, Value x) {
  auto ft = dyn_cast_or_null<FloatType>(elementTypeOf(x));
  if (!ft || ft.getWidth() > 64)
    return emitError(loc) << "frexp needs a ranked float tensor of at most "
                             "64 bits, got "
                          << x.getType();
  Type i32 = b.getI32Type();
  // Computed in f64, where every narrower float (subnormals included) is a
  // normal number: the exponent field gives e, the mantissa is x / 2^e.
  auto parts = [&](OpBuilder &nb, Location nl, Value v) {
    F f{nb, nl, nb.getF64Type()};
    Value wide = buildConvertScalar(nb, nl, v, nb.getF64Type());
    Value scale = f.c(0x1p54);
    Value absWide = f.abs(wide);
    Value subnormal = f.cmp(arith::CmpFPredicate::OLT, absWide,
                            f.c(std::numeric_limits<double>::min()));
    Value normal = f.sel(subnormal, f.mul(wide, scale), wide);
    Value bits = arith::BitcastOp::create(nb, nl, nb.getI64Type(), normal);
    Value field = arith::AndIOp::create(
        nb, nl,
        arith::ShRUIOp::create(nb, nl, bits,
                               createScalar(nb, nl, nb.getI64Type(), 52)),
        createScalar(nb, nl, nb.getI64Type(), 0x7ff));
    Value e = arith::SubIOp::create(
        nb, nl, field, createScalar(nb, nl, nb.getI64Type(), 1022));
    e = arith::SelectOp::create(
        nb, nl, subnormal,
        arith::SubIOp::create(nb, nl, e,
                              createScalar(nb, nl, nb.getI64Type(), 54)),
        e);
    // Mantissa: the exponent field replaced by that of 0.5.
    auto i64 = [&](int64_t v) -> Value {
      return arith::ConstantOp::create(nb, nl, nb.getI64IntegerAttr(v));
    };
    Value mantBits = arith::OrIOp::create(
        nb, nl,
        arith::AndIOp::create(nb, nl, bits, i64(~(int64_t(0x7ff) << 52))),
        i64(int64_t(1022) << 52));
    Value mant = arith::BitcastOp::create(nb, nl, nb.getF64Type(), mantBits);
    // Zeros, infinities and NaN: x itself and exponent 0.
    Value special = arith::OrIOp::create(
        nb, nl, f.eq(wide, f.c(0)),
        f.cmp(arith::CmpFPredicate::UGE, absWide, f.inf()));
    mant = f.sel(special, wide, mant);
    e = arith::SelectOp::create(nb, nl, special,
                                createScalar(nb, nl, nb.getI64Type(), 0), e);
    return std::make_pair(buildConvertScalar(nb, nl, mant, ft),
                          arith::TruncIOp::create(nb, nl, i32, e).getResult());
  };
  FailureOr<Value> mantissa = buildBroadcastedGeneric(
      b, loc, x, ft, [&](OpBuilder &nb, Location nl, ValueRange a) {
        return parts(nb, nl, a[0]).first;
      });
  FailureOr<Value> exponent = buildBroadcastedGeneric(
      b, loc, x, i32, [&](OpBuilder &nb, Location nl, ValueRange a) {
        return parts(nb, nl, a[0]).second;
      });
  if (failed(mantissa) || failed(exponent))
    return failure();
  return std::make_pair(*mantissa, *exponent);
}
