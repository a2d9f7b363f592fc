//===- ElementwiseSpecial.cpp - Gamma, error and Bessel functions ---------===//
//
// Special functions computed in f64 from libm-backed math ops, series and
// rational approximations, rounded once to the element type. The Bessel
// expansions, the erfinv approximation and log_ndtr follow ATen's
// native/Math.h (derived from the Cephes Math Library, Copyright (c) 2018,
// Steven Moshier, 3-clause BSD license; and from SciPy).
//
//===----------------------------------------------------------------------===//

#include "SpecialScalar.h"
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
/// f64 scalar formulas.
struct D {
  OpBuilder &b;
  Location loc;
  /// The type computed in: f64, except ATen's float arithmetic for I1.
  Type t;
  Value c(double v) { return createScalar(b, loc, t, v); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value neg(Value x) { return arith::NegFOp::create(b, loc, x); }
  Value abs(Value x) { return math::AbsFOp::create(b, loc, x); }
  Value exp(Value x) { return math::ExpOp::create(b, loc, x); }
  Value log(Value x) { return math::LogOp::create(b, loc, x); }
  Value sqrt(Value x) { return math::SqrtOp::create(b, loc, x); }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value lt(Value x, Value y) { return cmp(arith::CmpFPredicate::OLT, x, y); }
  Value le(Value x, Value y) { return cmp(arith::CmpFPredicate::OLE, x, y); }
  Value eq(Value x, Value y) { return cmp(arith::CmpFPredicate::OEQ, x, y); }
  Value sel(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
  /// |x| with the sign of y (the CPU lowering has no math.copysign).
  Value copySign(Value x, Value y) {
    Type it = b.getIntegerType(t.getIntOrFloatBitWidth());
    Value negative = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::slt,
        arith::BitcastOp::create(b, loc, it, y),
        arith::ConstantOp::create(b, loc, IntegerAttr::get(it, 0)));
    Value ax = abs(x);
    return sel(negative, neg(ax), ax);
  }
  /// Horner's rule, highest coefficient first.
  Value poly(Value x, ArrayRef<double> coeffs) {
    Value r = c(coeffs.front());
    for (double k : coeffs.drop_front())
      r = add(mul(r, x), c(k));
    return r;
  }
  /// Cephes chbevl: the Chebyshev series `coeffs` at x.
  Value chebyshev(Value x, ArrayRef<double> coeffs) {
    Value b0 = c(coeffs.front()), b1 = c(0), b2 = c(0);
    for (double k : coeffs.drop_front()) {
      b2 = b1;
      b1 = b0;
      b0 = add(sub(mul(x, b1), b2), c(k));
    }
    return mul(c(0.5), sub(b0, b2));
  }
};

// Chebyshev coefficients of exp(-x) I0(x) on [0, 8] and of
// exp(-x) sqrt(x) I0(x) on [8, inf) (Cephes i0.c).
const double kI0eA[] = {-4.41534164647933937950E-18, 3.33079451882223809783E-17,
                        -2.43127984654795469359E-16, 1.71539128555513303061E-15,
                        -1.16853328779934516808E-14, 7.67618549860493561688E-14,
                        -4.85644678311192946090E-13, 2.95505266312963983461E-12,
                        -1.72682629144155570723E-11, 9.67580903537323691224E-11,
                        -5.18979560163526290666E-10, 2.65982372468238665035E-9,
                        -1.30002500998624804212E-8,  6.04699502254191894932E-8,
                        -2.67079385394061173391E-7,  1.11738753912010371815E-6,
                        -4.41673835845875056359E-6,  1.64484480707288970893E-5,
                        -5.75419501008210370398E-5,  1.88502885095841655729E-4,
                        -5.76375574538582365885E-4,  1.63947561694133579842E-3,
                        -4.32430999505057594430E-3,  1.05464603945949983183E-2,
                        -2.37374148058994688156E-2,  4.93052842396707084878E-2,
                        -9.49010970480476444210E-2,  1.71620901522208775349E-1,
                        -3.04682672343198398683E-1,  6.76795274409476084995E-1};
const double kI0eB[] = {
    -7.23318048787475395456E-18, -4.83050448594418207126E-18,
    4.46562142029675999901E-17,  3.46122286769746109310E-17,
    -2.82762398051658348494E-16, -3.42548561967721913462E-16,
    1.77256013305652638360E-15,  3.81168066935262242075E-15,
    -9.55484669882830764870E-15, -4.15056934728722208663E-14,
    1.54008621752140982691E-14,  3.85277838274214270114E-13,
    7.18012445138366623367E-13,  -1.79417853150680611778E-12,
    -1.32158118404477131188E-11, -3.14991652796324136454E-11,
    1.18891471078464383424E-11,  4.94060238822496958910E-10,
    3.39623202570838634515E-9,   2.26666899049817806459E-8,
    2.04891858946906374183E-7,   2.89137052083475648297E-6,
    6.88975834691682398426E-5,   3.36911647825569408990E-3,
    8.04490411014108831608E-1};
// The same for I1 (Cephes i1.c).
const double kI1eA[] = {2.77791411276104639959E-18, -2.11142121435816608115E-17,
                        1.55363195773620046921E-16, -1.10559694773538630805E-15,
                        7.60068429473540693410E-15, -5.04218550472791168711E-14,
                        3.22379336594557470981E-13, -1.98397439776494371520E-12,
                        1.17361862988909016308E-11, -6.66348972350202774223E-11,
                        3.62559028155211703701E-10, -1.88724975172282928790E-9,
                        9.38153738649577178388E-9,  -4.44505912879632808065E-8,
                        2.00329475355213526229E-7,  -8.56872026469545474066E-7,
                        3.47025130813767847674E-6,  -1.32731636560394358279E-5,
                        4.78156510755005422638E-5,  -1.61760815825896745588E-4,
                        5.12285956168575772895E-4,  -1.51357245063125314899E-3,
                        4.15642294431288815669E-3,  -1.05640848946261981558E-2,
                        2.47264490306265168283E-2,  -5.29459812080949914269E-2,
                        1.02643658689847095384E-1,  -1.76416518357834055153E-1,
                        2.52587186443633654823E-1};
const double kI1eB[] = {
    7.51729631084210481353E-18,  4.41434832307170791151E-18,
    -4.65030536848935832153E-17, -3.20952592199342395980E-17,
    2.96262899764595013876E-16,  3.30820231092092828324E-16,
    -1.88035477551078244854E-15, -3.81440307243700780478E-15,
    1.04202769841288027642E-14,  4.27244001671195135429E-14,
    -2.10154184277266431302E-14, -4.08355111109219731823E-13,
    -7.19855177624590851209E-13, 2.03562854414708950722E-12,
    1.41258074366137813316E-11,  3.25260358301548823856E-11,
    -1.89749581235054123450E-11, -5.58974346219658380687E-10,
    -3.83538038596423702205E-9,  -2.63146884688951950684E-8,
    -2.51223623787020892529E-7,  -3.88256480887769039346E-6,
    -1.10588938762623716291E-4,  -9.76109749136146840777E-3,
    7.78576235018280120474E-1};

/// Lanczos coefficients (g = 7, n = 9).
const double kLanczos[] = {
    0.99999999999980993,  676.5203681218851,     -1259.1392167224028,
    771.32342877765313,   -176.61502916214059,   12.507343278686905,
    -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};
} // namespace

/// exp(-|x|) I0(x) or, with `order1`, exp(-|x|) I1(x) (odd in x); `scaled`
/// false multiplies exp(|x|) back.
/// `narrow`: for floats of 32 bits or fewer, ATen's I1 series keeps only
/// the last 17 (on [0, 8]) and 7 (beyond) coefficients; so do we, to give
/// torch's values rather than more accurate ones.
static Value besselI(D &d, Value x, bool order1, bool scaled, bool narrow) {
  Value ax = d.abs(x);
  Value small = d.le(ax, d.c(8));
  ArrayRef<double> a = order1 ? ArrayRef<double>(kI1eA) : kI0eA;
  ArrayRef<double> bc = order1 ? ArrayRef<double>(kI1eB) : kI0eB;
  if (order1 && narrow) {
    a = a.take_back(17);
    bc = bc.take_back(7);
  }
  Value inner = d.chebyshev(d.sub(d.div(ax, d.c(2)), d.c(2)), a);
  if (order1)
    inner = d.mul(inner, ax);
  // Keep the outer argument finite where |x| <= 8 (32 / 0 would be inf).
  Value axOuter = d.sel(small, d.c(8), ax);
  Value outer = d.div(d.chebyshev(d.sub(d.div(d.c(32), axOuter), d.c(2)), bc),
                      d.sqrt(axOuter));
  Value r = d.sel(small, inner, outer);
  if (!scaled)
    r = d.mul(d.exp(ax), r);
  if (order1)
    r = d.sel(d.lt(x, d.c(0)), d.neg(r), r);
  return r;
}

/// log Gamma(x) for x >= 0.5 (Lanczos).
static Value lgammaPositive(D &d, Value x) {
  Value z = d.sub(x, d.c(1));
  Value sum = d.c(kLanczos[0]);
  for (int i = 1; i < 9; ++i)
    sum = d.add(sum, d.div(d.c(kLanczos[i]), d.add(z, d.c(i))));
  Value t = d.add(z, d.c(7.5));
  return d.add(d.add(d.c(0.5 * std::log(2 * M_PI)),
                     d.sub(d.mul(d.add(z, d.c(0.5)), d.log(t)), t)),
               d.log(sum));
}

static Value lgamma(D &d, Value x) {
  // Reflection: lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x), with
  // sin evaluated on the exact fractional part of x.
  Value reflect = d.lt(x, d.c(0.5));
  Value y = d.sel(reflect, d.sub(d.c(1), x), x);
  Value lg = lgammaPositive(d, y);
  Value frac = d.sub(x, math::FloorOp::create(d.b, d.loc, x));
  Value s = d.abs(math::SinOp::create(d.b, d.loc, d.mul(d.c(M_PI), frac)));
  Value reflected = d.sub(d.log(d.div(d.c(M_PI), s)), lg);
  Value r = d.sel(reflect, reflected, lg);
  Value inf = d.c(std::numeric_limits<double>::infinity());
  return d.sel(d.eq(d.abs(x), inf), inf, r);
}

static Value digamma(D &d, Value x) {
  Value neg = d.lt(x, d.c(0));
  Value y = d.sel(neg, d.sub(d.c(1), x), x);
  // Shift y to >= 10 with psi(y) = psi(y + 10) - sum 1 / (y + i), then the
  // asymptotic series (Cephes psi.c).
  Value sum = d.c(0);
  for (int i = 0; i < 10; ++i)
    sum = d.add(sum, d.div(d.c(1), d.add(y, d.c(i))));
  Value w = d.add(y, d.c(10));
  Value z = d.div(d.c(1), d.mul(w, w));
  Value series =
      d.mul(z, d.poly(z, {8.33333333333333333333E-2, -2.10927960927960927961E-2,
                          7.57575757575757575758E-3, -4.16666666666666666667E-3,
                          3.96825396825396825397E-3, -8.33333333333333333333E-3,
                          8.33333333333333333333E-2}));
  Value psi = d.sub(d.sub(d.sub(d.log(w), d.div(d.c(0.5), w)), series), sum);
  // psi(x) = psi(1 - x) - pi / tan(pi r) for x < 0, r the fraction of x.
  Value trunc = math::TruncOp::create(d.b, d.loc, x);
  Value r = d.sub(x, trunc);
  Value reflected =
      d.sub(psi, d.div(d.c(M_PI),
                       math::TanOp::create(d.b, d.loc, d.mul(d.c(M_PI), r))));
  Value result = d.sel(neg, reflected, psi);
  Value nan = d.c(std::numeric_limits<double>::quiet_NaN());
  result = d.sel(arith::AndIOp::create(d.b, d.loc, neg, d.eq(x, trunc)), nan,
                 result);
  // +-0 gives -+inf (C++ and SciPy).
  Value zeroInf =
      d.copySign(d.c(std::numeric_limits<double>::infinity()), d.neg(x));
  return d.sel(d.eq(x, d.c(0)), zeroInf, result);
}

static Value erfinv(D &d, Value y) {
  Value ay = d.abs(y);
  Value z = d.mul(y, y);
  Value central = d.div(
      d.mul(y,
            d.poly(z, {-0.140543331, 0.914624893, -1.645349621, 0.886226899})),
      d.poly(z, {0.012229801, -0.329097515, 1.442710462, -2.118377725, 1.0}));
  // Keep the tail's log argument positive where |y| >= 1.
  Value tailY = d.sel(d.lt(ay, d.c(1)), ay, d.c(0.5));
  Value t = d.sqrt(d.neg(d.log(d.div(d.sub(d.c(1), tailY), d.c(2)))));
  Value tail = d.div(
      d.copySign(
          d.poly(t, {1.641345311, 3.429567803, -1.624906493, -1.970840454}), y),
      d.poly(t, {1.637067800, 3.543889200, 1.0}));
  Value x = d.sel(d.le(ay, d.c(0.7)), central, tail);
  for (int i = 0; i < 2; ++i) {
    Value err = d.sub(math::ErfOp::create(d.b, d.loc, x), y);
    Value slope = d.mul(d.c(2 / std::sqrt(M_PI)), d.exp(d.neg(d.mul(x, x))));
    x = d.sub(x, d.div(err, slope));
  }
  Value inf = d.copySign(d.c(std::numeric_limits<double>::infinity()), y);
  x = d.sel(d.eq(ay, d.c(1)), inf, x);
  // |y| > 1 and NaN give NaN.
  return d.sel(d.cmp(arith::CmpFPredicate::UGT, ay, d.c(1)),
               d.c(std::numeric_limits<double>::quiet_NaN()), x);
}

static Value erfc(D &d, Value x) { return math::ErfcOp::create(d.b, d.loc, x); }

/// exp(x^2) erfc(x) for x >= 0: the direct product while erfc(x) is a
/// normal double, else the continued fraction of the asymptotic expansion.
static Value erfcxNonNegative(D &d, Value x) {
  Value xc = d.sel(d.lt(x, d.c(26)), x, d.c(0));
  Value direct = d.mul(d.exp(d.mul(xc, xc)), erfc(d, xc));
  Value xx = d.mul(x, x);
  // ispi * (x^2 (x^2 + 4.5) + 2) / (x (x^2 (x^2 + 5) + 3.75)) (ATen).
  Value ispi = d.c(0.56418958354775628694807945156);
  Value cf = d.div(d.mul(ispi, d.add(d.mul(xx, d.add(xx, d.c(4.5))), d.c(2))),
                   d.mul(x, d.add(d.mul(xx, d.add(xx, d.c(5))), d.c(3.75))));
  cf = d.sel(d.cmp(arith::CmpFPredicate::OGT, x, d.c(5e7)), d.div(ispi, x), cf);
  return d.sel(d.lt(x, d.c(26)), direct, cf);
}

static Value erfcx(D &d, Value x) {
  Value pos = erfcxNonNegative(d, d.abs(x));
  // erfcx(x) = 2 exp(x^2) - erfcx(-x) for x < 0 (inf below -26.7).
  Value xc = d.sel(d.lt(x, d.c(-26.7)), d.c(0), x);
  Value negative = d.sub(d.mul(d.c(2), d.exp(d.mul(xc, xc))), pos);
  negative = d.sel(d.lt(x, d.c(-26.7)),
                   d.c(std::numeric_limits<double>::infinity()), negative);
  Value r = d.sel(d.lt(x, d.c(0)), negative, pos);
  return d.sel(d.cmp(arith::CmpFPredicate::UNO, x, x), x, r);
}

static Value specialScalar(D &d, SpecialFunctionKind kind, Value x,
                           bool narrow) {
  switch (kind) {
  case SpecialFunctionKind::Erfinv:
    return erfinv(d, x);
  case SpecialFunctionKind::Lgamma:
    return lgamma(d, x);
  case SpecialFunctionKind::Digamma:
    return digamma(d, x);
  case SpecialFunctionKind::Ndtr:
    return d.mul(d.c(0.5), erfc(d, d.mul(x, d.c(-M_SQRT1_2))));
  case SpecialFunctionKind::LogNdtr: {
    // SciPy: log(erfcx(-t) / 2) - t^2 for x < -1, log1p(-erfc(t) / 2) else.
    Value t = d.mul(x, d.c(M_SQRT1_2));
    Value left = d.sub(d.log(d.div(erfcx(d, d.neg(t)), d.c(2))), d.mul(t, t));
    Value right =
        math::Log1pOp::create(d.b, d.loc, d.neg(d.div(erfc(d, t), d.c(2))));
    return d.sel(d.lt(x, d.c(-1)), left, right);
  }
  case SpecialFunctionKind::Erfcx:
    return erfcx(d, x);
  case SpecialFunctionKind::Entr: {
    Value xlogx = d.neg(d.mul(x, d.log(x)));
    Value r = d.sel(d.eq(x, d.c(0)), d.c(0), xlogx);
    return d.sel(d.lt(x, d.c(0)), d.c(-std::numeric_limits<double>::infinity()),
                 r);
  }
  case SpecialFunctionKind::I0:
    return besselI(d, x, /*order1=*/false, /*scaled=*/false, narrow);
  case SpecialFunctionKind::I0e:
    return besselI(d, x, /*order1=*/false, /*scaled=*/true, narrow);
  case SpecialFunctionKind::I1:
    return besselI(d, x, /*order1=*/true, /*scaled=*/false, narrow);
  case SpecialFunctionKind::I1e:
    return besselI(d, x, /*order1=*/true, /*scaled=*/true, narrow);
  }
  return Value();
}

FailureOr<Value> mlprog::buildSpecialFunction(OpBuilder &b, Location loc,
                                              SpecialFunctionKind kind,
                                              Value x) {
  Type et = elementTypeOf(x);
  if (!isa_and_nonnull<FloatType>(et))
    return emitError(loc) << "special function needs a ranked float tensor, "
                             "got "
                          << x.getType();
  return buildBroadcastedGeneric(
      b, loc, x, et, [&](OpBuilder &nb, Location nl, ValueRange a) {
        // I1 and I1e of 32-bit and narrower floats: in f32 as ATen does
        // (its truncated series and float rounding differ from the f64
        // result by more than torch's tolerance of these ops).
        bool narrow = et.getIntOrFloatBitWidth() <= 32;
        bool inF32 = narrow && (kind == SpecialFunctionKind::I1 ||
                                kind == SpecialFunctionKind::I1e);
        Type ct = inF32 ? nb.getF32Type() : nb.getF64Type();
        D d{nb, nl, ct};
        Value wide = buildConvertScalar(nb, nl, a[0], ct);
        return buildConvertScalar(nb, nl, specialScalar(d, kind, wide, narrow),
                                  et);
      });
}

Value mlprog::detail::buildSpecialScalar(OpBuilder &b, Location loc,
                                         SpecialFunctionKind kind, Value x) {
  D d{b, loc, x.getType()};
  return specialScalar(d, kind, x, /*narrow=*/false);
}
