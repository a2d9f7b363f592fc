//===- SpecialFunctions.cpp - Zeta, polygamma, incomplete gamma, ndtri ----===//
//
// Special functions computed per element in f64 and rounded once to the
// element type: the Hurwitz zeta function by direct summation and the
// Euler-Maclaurin formula (its coefficients derived here from the Bernoulli
// numbers), polygamma from zeta, the multivariate log-gamma, the regularized
// incomplete gamma functions by their power series and continued fraction
// (DLMF 8.9.2, modified Lentz; Temme's uniform expansion for large a), ndtri by
// Newton's method on erfc from the Abramowitz-Stegun 26.2.23 start, and j0(x) =
// sin(x) / x.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Import/Common/SpecialFunctions.h"
#include "SpecialScalar.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <cmath>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

namespace {
constexpr double kEps = 1.11022302462515654042e-16;

/// Elementwise over `operands` (same float type) in f64, rounded once.
FailureOr<Value> generic64(OpBuilder &b, Location loc, ValueRange operands,
                           StringRef what,
                           llvm::function_ref<Value(Scalar &, ValueRange)> fn) {
  Type et = elementTypeOf(operands.front());
  for (Value v : operands)
    if (!isa_and_nonnull<FloatType>(et) || elementTypeOf(v) != et)
      return emitError(loc) << what
                            << ": operands must be float tensors of one "
                               "element type, got "
                            << v.getType();
  return buildBroadcastedGeneric(
      b, loc, operands, et, [&](OpBuilder &nb, Location nl, ValueRange a) {
        Scalar s{nb, nl, nb.getF64Type()};
        SmallVector<Value> wide;
        for (Value v : a)
          wide.push_back(s.to(v));
        return buildConvertScalar(nb, nl, fn(s, wide), et);
      });
}

/// i1 constant.
Value boolConst(Scalar &s, bool v) {
  return arith::ConstantOp::create(s.b, s.loc, s.b.getBoolAttr(v));
}

/// a^e for an integer e where a < 0 (math.powf needs a >= 0).
Value powSigned(Scalar &s, Value a, Value e) {
  Value mag = s.pow(s.abs(a), e);
  Value half = s.mul(e, s.c(0.5));
  Value odd = s.ne(half, s.floor(half));
  Value negate = s.andI(s.lt(a, s.c(0)), odd);
  return s.sel(negate, s.neg(mag), mag);
}

/// (2j)! / B_2j for j = 1..12, the Euler-Maclaurin divisors.
SmallVector<double> eulerMaclaurinDivisors() {
  // Bernoulli numbers B_2 .. B_24 as numerator / denominator.
  const double num[] = {1, -1,    1,     -1,      5,      -691,
                        7, -3617, 43867, -174611, 854513, -236364091};
  const double den[] = {6, 30, 42, 30, 66, 2730, 6, 510, 798, 330, 138, 2730};
  SmallVector<double> out;
  double fact = 1;
  for (int j = 1; j <= 12; ++j) {
    fact *= (2 * j - 1) * (2 * j);
    out.push_back(fact * den[j - 1] / num[j - 1]);
  }
  return out;
}

/// zeta(s, q) in f64.
Value hurwitzZeta(Scalar &s, Value x, Value q) {
  OpBuilder &b = s.b;
  Location loc = s.loc;
  Type t = s.t, i64 = b.getI64Type();
  Value one = s.c(1);
  Value poleS = s.eq(x, one);
  Value belowOne = s.lt(x, one);
  Value qNonPositive = s.le(q, s.c(0));
  Value poleQ = s.andI(qNonPositive, s.isInteger(q));
  Value nanQ = s.andI(qNonPositive, s.notI(s.isInteger(x)));
  Value special = s.orI(s.orI(poleS, belowOne), s.orI(poleQ, nanQ));
  Value negX = s.neg(x);

  // Direct sum of (q + k)^-s while k < 10 or q + k <= 9, stopping early
  // once a term no longer changes the sum.
  Value first = powSigned(s, q, negX);
  Value zeroI = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
  auto direct = scf::WhileOp::create(
      b, loc, TypeRange{i64, t, t, t, b.getI1Type()},
      ValueRange{zeroI, q, first, s.c(0), special},
      [&](OpBuilder &nb, Location nl, ValueRange a) {
        Scalar d{nb, nl, t};
        Value few = arith::CmpIOp::create(
            nb, nl, arith::CmpIPredicate::slt, a[0],
            arith::ConstantOp::create(nb, nl, nb.getI64IntegerAttr(9)));
        Value more = d.orI(few, d.le(a[1], d.c(9)));
        scf::ConditionOp::create(nb, nl, d.andI(more, d.notI(a[4])), a);
      },
      [&](OpBuilder &nb, Location nl, ValueRange a) {
        Scalar d{nb, nl, t};
        Value i = arith::AddIOp::create(
            nb, nl, a[0],
            arith::ConstantOp::create(nb, nl, nb.getI64IntegerAttr(1)));
        Value next = d.add(a[1], d.c(1));
        Value term = powSigned(d, next, d.neg(x));
        Value sum = d.add(a[2], term);
        Value tol = d.mul(d.c(kEps), sum);
        Value done = d.andI(d.lt(d.neg(tol), term), d.lt(term, tol));
        scf::YieldOp::create(nb, nl, ValueRange{i, next, sum, term, done});
      });
  Value w = direct.getResult(1), sum = direct.getResult(2);
  Value term = direct.getResult(3), done = direct.getResult(4);

  // Euler-Maclaurin tail at w = q + k.
  Value tail = s.add(sum, s.div(s.mul(term, w), s.sub(x, one)));
  tail = s.sub(tail, s.mul(s.c(0.5), term));
  Value rising = one, k = s.c(0), bk = term, tailDone = boolConst(s, false);
  for (double divisor : eulerMaclaurinDivisors()) {
    rising = s.mul(rising, s.add(x, k));
    bk = s.div(bk, w);
    Value c = s.div(s.mul(rising, bk), s.c(divisor));
    tail = s.sel(tailDone, tail, s.add(tail, c));
    tailDone = s.orI(tailDone, s.lt(s.abs(s.div(c, tail)), s.c(kEps)));
    k = s.add(k, one);
    rising = s.mul(rising, s.add(x, k));
    bk = s.div(bk, w);
    k = s.add(k, one);
  }
  Value r = s.sel(done, sum, tail);
  r = s.sel(nanQ, s.nan(), r);
  r = s.sel(poleQ, s.inf(), r);
  r = s.sel(belowOne, s.nan(), r);
  return s.sel(poleS, s.inf(), r);
}

/// Above this a, P and Q come from Temme's expansion with its first
/// coefficient, whose error is below 1 / (540 a sqrt(2 pi a)).
constexpr double kTemmeAbove = 1e4;

/// (P, Q) at a > kTemmeAbove (DLMF 8.12.3-8.12.4, 8.12.8):
/// Q = erfc(eta sqrt(a/2)) / 2 + exp(-a eta^2 / 2) / sqrt(2 pi a) c0(eta),
/// eta^2 / 2 = lambda - 1 - log(lambda), lambda = x / a.
std::pair<Value, Value> temme(Scalar &s, Value a, Value x) {
  Value mu = s.sub(s.div(x, a), s.c(1));
  // lambda - 1 - log(lambda) = mu - log1p(mu): its series near mu = 0.
  Value smallMu = s.lt(s.abs(mu), s.c(0.1));
  Value muS = s.sel(smallMu, mu, s.c(0));
  Value series = s.c(0), power = s.mul(muS, muS);
  for (int k = 2; k < 20; ++k) {
    series = s.add(series, s.mul(s.c((k % 2 ? -1.0 : 1.0) / k), power));
    power = s.mul(power, muS);
  }
  Value muL = s.sel(smallMu, s.c(1), mu);
  Value direct = s.sub(muL, math::Log1pOp::create(s.b, s.loc, muL));
  Value halfEta2 = s.sel(smallMu, series, direct);
  Value eta = s.sqrt(s.mul(s.c(2), halfEta2));
  eta = s.sel(s.lt(mu, s.c(0)), s.neg(eta), eta);
  // c0(eta) = 1 / mu - 1 / eta, by its Taylor series for small eta.
  Value smallEta = s.lt(s.abs(eta), s.c(1e-2));
  Value etaS = s.sel(smallEta, eta, s.c(0));
  Value c0Near =
      s.poly(etaS, {1.0 / 2835, 1.0 / 864, -2.0 / 135, 1.0 / 12, -1.0 / 3});
  Value etaL = s.sel(smallEta, s.c(1), eta);
  Value muE = s.sel(smallEta, s.c(1), mu);
  Value c0 =
      s.sel(smallEta, c0Near, s.sub(s.div(s.c(1), muE), s.div(s.c(1), etaL)));
  Value r = s.mul(
      s.div(s.exp(s.neg(s.mul(a, halfEta2))), s.sqrt(s.mul(s.c(2 * M_PI), a))),
      c0);
  Value arg = s.mul(eta, s.sqrt(s.mul(a, s.c(0.5))));
  Value q = s.add(s.mul(s.c(0.5), math::ErfcOp::create(s.b, s.loc, arg)), r);
  Value p =
      s.sub(s.mul(s.c(0.5), math::ErfcOp::create(s.b, s.loc, s.neg(arg))), r);
  return {p, q};
}

/// P(a, x) (or Q with `upper`) for a, x in f64.
Value incompleteGamma(Scalar &s, bool upper, Value a, Value x) {
  OpBuilder &b = s.b;
  Location loc = s.loc;
  Type t = s.t, i64 = b.getI64Type();
  const int64_t maxIter = 10000;
  Value zero = s.c(0), one = s.c(1);
  Value finite = s.andI(s.lt(s.abs(a), s.inf()), s.lt(s.abs(x), s.inf()));
  Value regular = s.andI(finite, s.andI(s.gt(a, zero), s.gt(x, zero)));
  // Large a: Temme's uniform expansion, where the series and the fraction
  // would need O(sqrt(a)) steps.
  Value large = s.gt(a, s.c(kTemmeAbove));
  Value iterate = s.andI(regular, s.notI(large));
  Value useSeries = s.andI(iterate, s.lt(x, s.add(a, one)));
  Value useFraction = s.andI(iterate, s.notI(useSeries));
  // log(x^a e^-x / Gamma(a)), keeping the logs finite off the regular set.
  Value sa = s.sel(regular, a, one), sx = s.sel(regular, x, one);
  Value lg = buildSpecialScalar(b, loc, SpecialFunctionKind::Lgamma, sa);
  Value prefactor = s.exp(s.sub(s.sub(s.mul(sa, s.log(sx)), sx), lg));

  // Series: P = prefactor * sum_k x^k / (a (a+1) ... (a+k)).
  Value zeroI = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
  Value first = s.div(one, sa);
  auto series = scf::WhileOp::create(
      b, loc, TypeRange{i64, t, t, t}, ValueRange{zeroI, sa, first, first},
      [&](OpBuilder &nb, Location nl, ValueRange v) {
        Scalar d{nb, nl, t};
        Value more = arith::CmpIOp::create(
            nb, nl, arith::CmpIPredicate::slt, v[0],
            arith::ConstantOp::create(nb, nl, nb.getI64IntegerAttr(maxIter)));
        Value big = d.ge(d.abs(v[2]), d.mul(d.abs(v[3]), d.c(kEps)));
        scf::ConditionOp::create(nb, nl, d.andI(useSeries, d.andI(more, big)),
                                 v);
      },
      [&](OpBuilder &nb, Location nl, ValueRange v) {
        Scalar d{nb, nl, t};
        Value i = arith::AddIOp::create(
            nb, nl, v[0],
            arith::ConstantOp::create(nb, nl, nb.getI64IntegerAttr(1)));
        Value ap = d.add(v[1], d.c(1));
        Value term = d.mul(v[2], d.div(sx, ap));
        scf::YieldOp::create(nb, nl,
                             ValueRange{i, ap, term, d.add(v[3], term)});
      });
  Value lower = s.mul(prefactor, series.getResult(3));

  // Continued fraction of Q (modified Lentz): state i, b, c, d, h.
  double tiny = 1e-300;
  Value b0 = s.add(s.sub(sx, sa), one);
  Value d0 = s.div(one, b0);
  auto fraction = scf::WhileOp::create(
      b, loc, TypeRange{t, t, t, t, t, b.getI1Type()},
      ValueRange{one, b0, s.c(1 / tiny), d0, d0, boolConst(s, false)},
      [&](OpBuilder &nb, Location nl, ValueRange v) {
        Scalar d{nb, nl, t};
        Value more = d.le(v[0], d.c(maxIter));
        Value go = d.andI(useFraction, d.andI(more, d.notI(v[5])));
        scf::ConditionOp::create(nb, nl, go, v);
      },
      [&](OpBuilder &nb, Location nl, ValueRange v) {
        Scalar d{nb, nl, t};
        Value an = d.neg(d.mul(v[0], d.sub(v[0], sa)));
        Value bn = d.add(v[1], d.c(2));
        auto guard = [&](Value z) {
          return d.sel(d.lt(d.abs(z), d.c(tiny)), d.c(tiny), z);
        };
        Value dn = d.div(d.c(1), guard(d.add(d.mul(an, v[3]), bn)));
        Value cn = guard(d.add(bn, d.div(an, v[2])));
        Value delta = d.mul(dn, cn);
        Value h = d.mul(v[4], delta);
        Value done = d.lt(d.abs(d.sub(delta, d.c(1))), d.c(kEps));
        scf::YieldOp::create(
            nb, nl, ValueRange{d.add(v[0], d.c(1)), bn, cn, dn, h, done});
      });
  Value upperQ = s.mul(prefactor, fraction.getResult(4));

  auto [pT, qT] = temme(s, s.sel(large, sa, s.c(2 * kTemmeAbove)), sx);
  Value p = s.sel(useSeries, lower, s.sub(one, upperQ));
  Value q = s.sel(useSeries, s.sub(one, lower), upperQ);
  p = s.sel(large, pT, p);
  q = s.sel(large, qT, q);
  Value r = upper ? q : p;
  // Boundaries, in torch's order of tests.
  Value pAt = [&](double pv) { return s.c(upper ? 1 - pv : pv); }(0);
  Value nan = s.nan();
  Value isInfA = s.eq(s.abs(a), s.inf()), isInfX = s.eq(s.abs(x), s.inf());
  r = s.sel(isInfX, s.c(upper ? 0 : 1), r);
  r = s.sel(isInfA, s.sel(isInfX, nan, pAt), r);
  r = s.sel(s.eq(x, zero), pAt, r);
  r = s.sel(s.eq(a, zero), s.sel(s.gt(x, zero), s.c(upper ? 0 : 1), nan), r);
  r = s.sel(s.orI(s.lt(x, zero), s.lt(a, zero)), nan, r);
  return s.sel(s.orI(s.isNaN(a), s.isNaN(x)), nan, r);
}

/// psi'(x) in the compute type of `s`: the reflection
/// psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x) below 1/2, six steps of
/// psi'(x) = psi'(x + 1) + 1 / x^2, then the asymptotic series
/// (1 + 1/(2x) + sum_k B_2k / x^2k) / x.
Value trigamma(Scalar &s, Value x) {
  Value reflect = s.lt(x, s.c(0.5));
  Value sinPiX = s.sin(s.mul(s.c(M_PI), x));
  Value acc = s.sel(
      reflect, s.neg(s.div(s.c(M_PI * M_PI), s.mul(sinPiX, sinPiX))), s.c(0));
  Value y = s.sel(reflect, s.sub(s.c(1), x), x);
  for (int i = 0; i < 6; ++i) {
    acc = s.add(acc, s.div(s.c(1), s.mul(y, y)));
    y = s.add(y, s.c(1));
  }
  Value inv2 = s.div(s.c(1), s.mul(y, y));
  Value series = s.sub(s.c(1.0 / 30), s.mul(inv2, s.c(1.0 / 42)));
  series = s.sub(s.c(1.0 / 6), s.mul(inv2, series));
  series = s.add(s.add(s.c(1), s.div(s.c(1), s.mul(s.c(2), y))),
                 s.mul(inv2, series));
  acc = s.add(acc, s.div(series, y));
  return s.sel(reflect, s.neg(acc), acc);
}

/// polygamma(1, x) in the element type (f32 for narrower floats): torch
/// computes it so, and its float32 reflection differs from the f64 value
/// by more than torch's tolerance for negative x.
FailureOr<Value> buildTrigamma(OpBuilder &b, Location loc, Value x) {
  Type et = elementTypeOf(x);
  if (!isa_and_nonnull<FloatType>(et))
    return emitError(loc) << "polygamma: expected a float tensor, got "
                          << x.getType();
  return buildBroadcastedGeneric(
      b, loc, x, et, [&](OpBuilder &nb, Location nl, ValueRange a) {
        Type ct = et.getIntOrFloatBitWidth() < 32 ? nb.getF32Type() : et;
        Scalar s{nb, nl, ct};
        return buildConvertScalar(nb, nl, trigamma(s, s.to(a[0])), et);
      });
}

/// Inverse of the standard normal CDF in f64.
Value ndtri(Scalar &s, Value p) {
  Value q = s.sel(s.lt(p, s.c(0.5)), p, s.sub(s.c(1), p));
  // Keep the start finite off (0, 1).
  Value qs = s.sel(s.andI(s.gt(q, s.c(0)), s.le(q, s.c(0.5))), q, s.c(0.5));
  Value t = s.sqrt(s.mul(s.c(-2), s.log(qs)));
  Value z =
      s.neg(s.sub(t, s.div(s.poly(t, {0.010328, 0.802853, 2.515517}),
                           s.poly(t, {0.001308, 0.189269, 1.432788, 1}))));
  for (int i = 0; i < 4; ++i) {
    Value cdf = s.mul(
        s.c(0.5), math::ErfcOp::create(s.b, s.loc, s.mul(z, s.c(-M_SQRT1_2))));
    Value pdf = s.mul(s.c(0.5 * M_2_SQRTPI * M_SQRT1_2),
                      s.exp(s.mul(s.c(-0.5), s.mul(z, z))));
    z = s.sub(z, s.div(s.sub(cdf, qs), pdf));
  }
  Value r = s.sel(s.lt(p, s.c(0.5)), z, s.neg(z));
  r = s.sel(s.eq(p, s.c(0.5)), s.c(0), r);
  r = s.sel(s.eq(p, s.c(0)), s.neg(s.inf()), r);
  r = s.sel(s.eq(p, s.c(1)), s.inf(), r);
  Value outside = s.orI(s.cmp(arith::CmpFPredicate::ULT, p, s.c(0)),
                        s.cmp(arith::CmpFPredicate::UGT, p, s.c(1)));
  return s.sel(outside, s.nan(), r);
}

/// sin(x) / x, by its Taylor series near 0.
Value sphericalBesselJ0(Scalar &s, Value x) {
  SmallVector<double> coeffs;
  double fact = 1;
  for (int k = 0; k <= 7; ++k) {
    if (k > 0)
      fact *= (2 * k) * (2 * k + 1);
    coeffs.insert(coeffs.begin(), (k % 2 ? -1 : 1) / fact);
  }
  Value xx = s.mul(x, x);
  Value near = s.poly(xx, coeffs);
  Value far = s.div(s.sin(x), x);
  Value r = s.sel(s.lt(s.abs(x), s.c(0.5)), near, far);
  return s.sel(s.eq(s.abs(x), s.inf()), s.c(0), r);
}
} // namespace

FailureOr<Value> mlprog::buildSpecialUnary(OpBuilder &b, Location loc,
                                           SpecialUnaryKind kind, Value x) {
  return generic64(b, loc, x, "special function", [&](Scalar &s, ValueRange a) {
    if (kind == SpecialUnaryKind::Ndtri)
      return ndtri(s, a[0]);
    if (kind == SpecialUnaryKind::SphericalBesselJ0)
      return sphericalBesselJ0(s, a[0]);
    return buildBesselScalar(s, kind, a[0]);
  });
}

FailureOr<Value> mlprog::buildMultivariateLgamma(OpBuilder &b, Location loc,
                                                 Value x, int64_t p) {
  if (p < 1)
    return emitError(loc) << "mvlgamma: p must be at least 1, got " << p;
  return generic64(b, loc, x, "mvlgamma", [&](Scalar &s, ValueRange a) {
    Value init = s.c(double(p) * double(p - 1) / 4 * std::log(M_PI));
    SmallVector<Value> sum =
        loop(s.b, s.loc, cIndex(s.b, s.loc, 0), cIndex(s.b, s.loc, p), init,
             [&](OpBuilder &nb, Location nl, Value j, ValueRange acc) {
               Scalar d{nb, nl, s.t};
               Value jf =
                   d.to(arith::IndexCastOp::create(nb, nl, nb.getI64Type(), j));
               Value lg =
                   buildSpecialScalar(nb, nl, SpecialFunctionKind::Lgamma,
                                      d.sub(a[0], d.mul(jf, d.c(0.5))));
               return SmallVector<Value>{d.add(acc[0], lg)};
             });
    return sum[0];
  });
}

FailureOr<Value> mlprog::buildHurwitzZeta(OpBuilder &b, Location loc, Value s,
                                          Value q) {
  return generic64(
      b, loc, ValueRange{s, q}, "zeta",
      [&](Scalar &d, ValueRange a) { return hurwitzZeta(d, a[0], a[1]); });
}

FailureOr<Value> mlprog::buildPolygamma(OpBuilder &b, Location loc, int64_t n,
                                        Value x) {
  if (n < 0)
    return emitError(loc) << "polygamma: the order must be >= 0, got " << n;
  if (n == 0)
    return generic64(b, loc, x, "polygamma", [&](Scalar &s, ValueRange a) {
      return buildSpecialScalar(s.b, s.loc, SpecialFunctionKind::Digamma, a[0]);
    });
  if (n == 1)
    return buildTrigamma(b, loc, x);
  double factorial = 1;
  for (int64_t k = 2; k <= n && std::isfinite(factorial); ++k)
    factorial *= double(k);
  double scale = (n % 2 ? 1 : -1) * factorial;
  return generic64(b, loc, x, "polygamma", [&](Scalar &s, ValueRange a) {
    return s.mul(s.c(scale), hurwitzZeta(s, s.c(double(n + 1)), a[0]));
  });
}

FailureOr<Value> mlprog::buildIncompleteGamma(OpBuilder &b, Location loc,
                                              IncompleteGammaKind kind, Value a,
                                              Value x) {
  return generic64(b, loc, ValueRange{a, x}, "igamma",
                   [&](Scalar &s, ValueRange v) {
                     return incompleteGamma(
                         s, kind == IncompleteGammaKind::Upper, v[0], v[1]);
                   });
}
