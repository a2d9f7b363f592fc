//===- Bessel.cpp - Bessel functions of integer order and Airy Ai ---------===//
//
// f64 scalar formulas for torch.special's Bessel family, from the standard
// representations (DLMF chapter 10 and 9) rather than fitted rational
// approximations:
// - J0, J1, Y0, Y1: the power series (DLMF 10.2.2, 10.8.1) for |x| <= 12,
//   Hankel's asymptotic expansion (DLMF 10.17.3-4) beyond, truncated before
//   its terms grow;
// - K0, K1 and their scaled forms: the power series (DLMF 10.31.1) up to 2,
//   beyond it the trapezoidal rule, which converges
//   geometrically here, on exp(x) K_nu(x) = int_0^inf exp(-2x sinh^2(t/2))
//   cosh(nu t) dt (DLMF 10.32.9), cut where the integrand is below e^-40;
// - I0, I1: the Chebyshev expansions of buildSpecialFunction, in f64;
// - Ai: its Maclaurin series (DLMF 9.4.1) on [-8, 2], K_1/3 (DLMF 9.6.1)
//   above and J_{+-1/3} in Hankel's expansion (DLMF 9.6.6) below.
//
//===----------------------------------------------------------------------===//

#include "SpecialScalar.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/SpecialFunctions.h"

#include <cmath>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

namespace {
constexpr double kEulerGamma = 0.57721566490153286061;
/// Series and expansion lengths (see the file comment).
constexpr int kSeriesTerms = 34;
constexpr int kHankelTerms = 24;
constexpr int kTrapezoidPoints = 64;

/// Hankel's coefficients a_k(nu) = prod_{j<=k} (4 nu^2 - (2j - 1)^2) /
/// (k! 8^k).
SmallVector<double> hankelCoefficients(double nu) {
  SmallVector<double> a{1};
  double mu = 4 * nu * nu;
  for (int k = 1; k < kHankelTerms; ++k)
    a.push_back(a.back() * (mu - (2 * k - 1) * (2 * k - 1)) / (k * 8.0));
  return a;
}

/// Hankel's P and Q at x > 0.
std::pair<Value, Value> hankelPQ(Scalar &s, double nu, Value x) {
  SmallVector<double> a = hankelCoefficients(nu);
  Value inv = s.div(s.c(1), x);
  Value p = s.c(0), q = s.c(0), power = s.c(1);
  for (int k = 0; k < kHankelTerms; ++k) {
    // (-1)^floor(k/2) a_k / x^k into P (k even) or Q (k odd).
    Value term = s.mul(s.c((k / 2) % 2 ? -a[k] : a[k]), power);
    if (k % 2)
      q = s.add(q, term);
    else
      p = s.add(p, term);
    power = s.mul(power, inv);
  }
  return {p, q};
}

/// J_n(x) and Y_n(x) (n = 0, 1) for x > 0 by Hankel's expansion.
std::pair<Value, Value> besselHankel(Scalar &s, int n, Value x) {
  auto [p, q] = hankelPQ(s, n, x);
  Value chi = s.sub(x, s.c((n / 2.0 + 0.25) * M_PI));
  Value amp = s.sqrt(s.div(s.c(2 / M_PI), x));
  Value c = s.cos(chi), sn = s.sin(chi);
  Value j = s.mul(amp, s.sub(s.mul(p, c), s.mul(q, sn)));
  Value y = s.mul(amp, s.add(s.mul(p, sn), s.mul(q, c)));
  return {j, y};
}

/// The power series sums of order n = 0, 1 at x > 0 (DLMF 10.2.2, 10.8.1,
/// 10.25.2, 10.31.1): with w = -+(x/2)^2 (`modified`: +) and
/// t_k = w^k / (k! (k + n)!), (x/2)^n sum t_k (J_n or I_n) and
/// sum (psi(k + 1) + psi(k + n + 1)) t_k.
std::pair<Value, Value> seriesSums(Scalar &s, int n, bool modified, Value x) {
  Value half = s.mul(x, s.c(0.5));
  Value w = s.mul(half, half);
  if (!modified)
    w = s.neg(w);
  Value term = s.c(1), sumJ = s.c(0), sumPsi = s.c(0);
  double harmonicK = 0, harmonicKN = n ? 1 : 0;
  for (int k = 0; k < kSeriesTerms; ++k) {
    if (k > 0) {
      term = s.div(s.mul(term, w), s.c(double(k) * (k + n)));
      harmonicK += 1.0 / k;
      harmonicKN += 1.0 / (k + n);
    }
    sumJ = s.add(sumJ, term);
    double psiSum = harmonicK + harmonicKN - 2 * kEulerGamma;
    sumPsi = s.add(sumPsi, s.mul(s.c(psiSum), term));
  }
  return {n ? s.mul(half, sumJ) : sumJ, sumPsi};
}

/// J_n(x) and Y_n(x) (n = 0, 1) for x > 0 by the power series.
std::pair<Value, Value> besselSeries(Scalar &s, int n, Value x) {
  auto [j, sumPsi] = seriesSums(s, n, /*modified=*/false, x);
  Value half = s.mul(x, s.c(0.5));
  Value scale = n ? half : s.c(1);
  Value y = s.sub(s.mul(s.c(2 / M_PI), s.mul(s.log(half), j)),
                  s.mul(s.div(scale, s.c(M_PI)), sumPsi));
  if (n)
    y = s.sub(y, s.div(s.c(2 / M_PI), x));
  return {j, y};
}

/// K_n(x) (n = 0, 1) for x > 0 by the power series (DLMF 10.31.1).
Value besselKSeries(Scalar &s, int n, Value x) {
  auto [i, sumPsi] = seriesSums(s, n, /*modified=*/true, x);
  Value half = s.mul(x, s.c(0.5));
  Value logI = s.mul(s.log(half), i);
  if (n == 0)
    return s.add(s.neg(logI), s.mul(s.c(0.5), sumPsi));
  return s.add(s.add(s.div(s.c(1), x), logI),
               s.neg(s.mul(s.mul(s.c(0.5), half), sumPsi)));
}

Value besselJY(Scalar &s, int n, bool second, Value x) {
  Value ax = s.abs(x);
  Value large = s.gt(ax, s.c(12));
  // Keep each branch's argument where it is accurate and finite.
  Value xs = s.sel(large, s.c(1), ax);
  Value xh = s.sel(large, ax, s.c(13));
  auto [js, ys] = besselSeries(s, n, xs);
  auto [jh, yh] = besselHankel(s, n, xh);
  // +-inf gives NaN, as torch and SciPy do.
  Value isInf = s.eq(ax, s.inf());
  if (!second) {
    Value j = s.sel(large, jh, js);
    j = s.sel(isInf, s.nan(), j);
    return n ? s.sel(s.lt(x, s.c(0)), s.neg(j), j) : j;
  }
  Value y = s.sel(large, yh, ys);
  y = s.sel(isInf, s.nan(), y);
  y = s.sel(s.eq(x, s.c(0)), s.neg(s.inf()), y);
  return s.sel(s.lt(x, s.c(0)), s.nan(), y);
}

/// exp(x) K_nu(x) for x > 0.
Value scaledBesselK(Scalar &s, double nu, Value x) {
  // The integrand is below e^-40 beyond 2 sinh^2(t/2) = 40 / x.
  Value tMax = s.mul(
      s.c(2), math::AsinhOp::create(s.b, s.loc, s.sqrt(s.div(s.c(20), x))));
  Value h = s.div(tMax, s.c(kTrapezoidPoints));
  Type t = s.t;
  SmallVector<Value> sum = loop(
      s.b, s.loc, cIndex(s.b, s.loc, 1),
      cIndex(s.b, s.loc, kTrapezoidPoints + 1), ValueRange{s.c(0.5)},
      [&](OpBuilder &nb, Location nl, Value j, ValueRange acc) {
        Scalar d{nb, nl, t};
        Value tj = d.mul(
            d.to(arith::IndexCastOp::create(nb, nl, nb.getI64Type(), j)), h);
        Value sh = math::SinhOp::create(nb, nl, d.mul(tj, d.c(0.5)));
        Value f = d.exp(d.mul(d.c(-2), d.mul(x, d.mul(sh, sh))));
        if (nu != 0)
          f = d.mul(f, math::CoshOp::create(nb, nl, d.mul(d.c(nu), tj)));
        return SmallVector<Value>{d.add(acc[0], f)};
      });
  return s.mul(h, sum[0]);
}

Value besselK(Scalar &s, double nu, bool scaled, Value x) {
  Value positive = s.gt(x, s.c(0));
  Value finite = s.lt(x, s.inf());
  // The series up to 2, where the trapezoidal rule needs ever more points
  // as x -> 0; the integral beyond.
  Value small = s.le(x, s.c(2));
  Value xs = s.sel(small, x, s.c(1));
  Value xi = s.sel(s.andI(s.andI(positive, finite), s.notI(small)), x, s.c(3));
  Value series = besselKSeries(s, int(nu), xs);
  if (scaled)
    series = s.mul(series, s.exp(xs));
  Value r = scaledBesselK(s, nu, xi);
  if (!scaled)
    r = s.mul(r, s.exp(s.neg(xi)));
  r = s.sel(small, series, r);
  r = s.sel(finite, r, s.c(0));
  r = s.sel(s.eq(x, s.c(0)), s.inf(), r);
  return s.sel(s.cmp(arith::CmpFPredicate::ULT, x, s.c(0)), s.nan(), r);
}

/// Ai(x) by its Maclaurin series c1 f(x) - c2 g(x).
Value airySeries(Scalar &s, Value x) {
  const double c1 = 0.355028053887817239260, c2 = 0.258819403792806798405;
  Value x3 = s.mul(x, s.mul(x, x));
  Value a = s.c(1), bterm = x, f = s.c(0), g = s.c(0);
  for (int k = 0; k < 40; ++k) {
    if (k > 0) {
      a = s.div(s.mul(a, x3), s.c(double(3 * k - 1) * (3 * k)));
      bterm = s.div(s.mul(bterm, x3), s.c(double(3 * k) * (3 * k + 1)));
    }
    f = s.add(f, a);
    g = s.add(g, bterm);
  }
  return s.sub(s.mul(s.c(c1), f), s.mul(s.c(c2), g));
}

Value airyAi(Scalar &s, Value x) {
  Value above = s.gt(x, s.c(2)), below = s.lt(x, s.c(-8));
  Value xm = s.sel(s.orI(above, below), s.c(0), x);
  Value series = airySeries(s, xm);
  // x > 2: sqrt(x / 3) / pi * exp(-zeta) * (exp(zeta) K_1/3(zeta)).
  Value xp = s.sel(above, s.sel(s.lt(x, s.inf()), x, s.c(3)), s.c(3));
  Value zetaP = s.mul(s.c(2.0 / 3), s.mul(xp, s.sqrt(xp)));
  Value right =
      s.mul(s.mul(s.sqrt(s.div(xp, s.c(3))), s.c(1 / M_PI)),
            s.mul(s.exp(s.neg(zetaP)), scaledBesselK(s, 1.0 / 3, zetaP)));
  // x < -8: sqrt(|x|) / 3 (J_1/3(zeta) + J_-1/3(zeta)).
  Value xn =
      s.sel(below, s.sel(s.gt(x, s.neg(s.inf())), s.neg(x), s.c(9)), s.c(9));
  Value zetaN = s.mul(s.c(2.0 / 3), s.mul(xn, s.sqrt(xn)));
  auto [p, q] = hankelPQ(s, 1.0 / 3, zetaN);
  Value chiPlus = s.sub(zetaN, s.c((1.0 / 6 + 0.25) * M_PI));
  Value chiMinus = s.sub(zetaN, s.c((-1.0 / 6 + 0.25) * M_PI));
  Value cosSum = s.add(s.cos(chiPlus), s.cos(chiMinus));
  Value sinSum = s.add(s.sin(chiPlus), s.sin(chiMinus));
  Value jSum = s.mul(s.sqrt(s.div(s.c(2 / M_PI), zetaN)),
                     s.sub(s.mul(p, cosSum), s.mul(q, sinSum)));
  Value left = s.mul(s.div(s.sqrt(xn), s.c(3)), jSum);
  Value r = s.sel(above, right, s.sel(below, left, series));
  return s.sel(s.eq(s.abs(x), s.inf()), s.nan(), r);
}
} // namespace

Value mlprog::detail::buildBesselScalar(Scalar &s, SpecialUnaryKind kind,
                                        Value x) {
  using K = SpecialUnaryKind;
  switch (kind) {
  case K::BesselJ0:
    return besselJY(s, 0, false, x);
  case K::BesselJ1:
    return besselJY(s, 1, false, x);
  case K::BesselY0:
    return besselJY(s, 0, true, x);
  case K::BesselY1:
    return besselJY(s, 1, true, x);
  case K::ModifiedBesselI0:
    return buildSpecialScalar(s.b, s.loc, SpecialFunctionKind::I0, x);
  case K::ModifiedBesselI1:
    return buildSpecialScalar(s.b, s.loc, SpecialFunctionKind::I1, x);
  case K::ModifiedBesselK0:
    return besselK(s, 0, false, x);
  case K::ModifiedBesselK1:
    return besselK(s, 1, false, x);
  case K::ScaledModifiedBesselK0:
    return besselK(s, 0, true, x);
  case K::ScaledModifiedBesselK1:
    return besselK(s, 1, true, x);
  case K::AiryAi:
    return airyAi(s, x);
  case K::Ndtri:
  case K::SphericalBesselJ0:
    break;
  }
  return s.nan();
}
