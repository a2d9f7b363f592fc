//===- OrthogonalPolynomials.cpp - Chebyshev, Hermite, Laguerre, Legendre -===//
//
// One builder for the twelve polynomial families of torch.special: each
// family is a row of coefficients of its three-term recurrence, its start
// values, its values at the ends of [-1, 1] and its closed trigonometric
// form. The element loop is an scf.while inside the linalg.generic body,
// computed in the element type (as torch does, so that results near the
// roots match torch's rounding rather than a more accurate value).
//
//===----------------------------------------------------------------------===//

#include "SpecialScalar.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/SpecialFunctions.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

namespace {
/// A value at an end of [-1, 1]: 1, n + 1 or 2n + 1.
enum class End { None, One, NPlus1, TwoNPlus1 };
/// The closed form on (-1, 1), t = acos(y).
enum class Trig { None, T, U, V, W };

/// One polynomial family. With y the argument (x, or 2x - 1 when shifted):
///   P0 = 1, P1 = p1y * y + p1c,
///   P(m+1) = (A(m) P(m) - B(m) P(m-1)) / (divide ? m + 1 : 1), m >= 1,
///   A(m) = (am m + ay) y, plus (bm m) + b0 added as (bm m) + (b0 + ...),
///   B(m) = pm m + p0.
struct Rule {
  bool shifted;
  double p1y, p1c;
  double am, ay, bm, b0;
  double pm, p0;
  bool divide;
  End plus, minus;
  Trig trig;
  int64_t trigAbove;
  bool hermite;
  bool oneAtZero;
};

Rule ruleOf(OrthogonalPolynomialKind kind) {
  using K = OrthogonalPolynomialKind;
  // Chebyshev kinds: P(m+1) = 2y P(m) - P(m-1).
  auto chebyshev = [](bool shifted, double p1c, End plus, End minus, Trig trig,
                      int64_t above, double p1y = 2) {
    return Rule{shifted, p1y,   p1c,  0,     2,    0,     0,     0,
                1,       false, plus, minus, trig, above, false, false};
  };
  switch (kind) {
  case K::ChebyshevT:
    return chebyshev(false, 0, End::One, End::One, Trig::T, 6, 1);
  case K::ChebyshevU:
    return chebyshev(false, 0, End::NPlus1, End::NPlus1, Trig::U, 8);
  case K::ChebyshevV:
    return chebyshev(false, -1, End::One, End::TwoNPlus1, Trig::V, 8);
  case K::ChebyshevW:
    return chebyshev(false, 1, End::TwoNPlus1, End::One, Trig::W, 8);
  case K::ShiftedChebyshevT:
    return chebyshev(true, 0, End::One, End::One, Trig::T, 6, 1);
  case K::ShiftedChebyshevU:
    return chebyshev(true, 0, End::NPlus1, End::NPlus1, Trig::U, 6);
  case K::ShiftedChebyshevV:
    return chebyshev(true, -1, End::One, End::TwoNPlus1, Trig::V, 6);
  case K::ShiftedChebyshevW:
    return chebyshev(true, 1, End::TwoNPlus1, End::One, Trig::W, 4);
  // Fields: shifted, p1y, p1c, am, ay, bm, b0, pm, p0, divide, plus, minus,
  // trig, trigAbove, hermite, oneAtZero.
  case K::HermiteH: // H(m+1) = 2x H(m) - 2m H(m-1)
    return Rule{false, 2,     0,         0,         2,          0, 0,    2,
                0,     false, End::None, End::None, Trig::None, 0, true, false};
  case K::HermiteHe: // He(m+1) = x He(m) - m He(m-1)
    return Rule{false, 1,     0,         0,         1,          0, 0,    1,
                0,     false, End::None, End::None, Trig::None, 0, true, false};
  case K::LaguerreL: // (m+1) L(m+1) = (2m + (1 - x)) L(m) - m L(m-1)
    return Rule{false, -1,   1,         0,         -1,         2, 1,     1,
                0,     true, End::None, End::None, Trig::None, 0, false, true};
  case K::LegendreP: // (m+1) P(m+1) = (2m + 1) x P(m) - m P(m-1)
    return Rule{false, 1,    0,        2,        1,          0, 0,     1,
                0,     true, End::One, End::One, Trig::None, 0, false, false};
  }
  return Rule{};
}

/// One polynomial value: `x` in the compute type, `nf` the degree as given.
struct PolynomialEval {
  Scalar &s;
  const Rule &r;

  Value i64(int64_t v) {
    return arith::ConstantOp::create(s.b, s.loc, s.b.getI64IntegerAttr(v));
  }
  Value addI(Value a, Value c) {
    return arith::AddIOp::create(s.b, s.loc, a, c);
  }
  Value cmpI(arith::CmpIPredicate p, Value a, Value c) {
    return arith::CmpIOp::create(s.b, s.loc, p, a, c);
  }

  /// 1, n + 1 or 2n + 1 as a float; negated at -1 for odd n.
  Value endValue(End e, Value n, bool minusEnd) {
    Value v = e == End::NPlus1      ? s.to(addI(n, i64(1)))
              : e == End::TwoNPlus1 ? s.to(addI(addI(n, n), i64(1)))
                                    : s.c(1);
    if (!minusEnd)
      return v;
    Value odd = cmpI(arith::CmpIPredicate::ne,
                     arith::AndIOp::create(s.b, s.loc, n, i64(1)), i64(0));
    return s.sel(odd, s.neg(v), v);
  }

  /// The closed form at y in (-1, 1).
  Value trigValue(Value y, Value n, Value plusEnd, Value minusEnd) {
    Value t = s.acos(y);
    Value nf = s.to(n);
    Value n1 = s.to(addI(n, i64(1)));
    Value nHalf = s.add(nf, s.c(0.5));
    Value half = s.div(t, s.c(2));
    switch (r.trig) {
    case Trig::None:
      return s.c(0);
    case Trig::T:
      return s.cos(s.mul(nf, t));
    case Trig::U: {
      Value st = s.sin(t);
      Value a = s.div(s.sin(s.mul(n1, t)), st);
      Value b = s.div(s.mul(n1, s.cos(s.mul(n1, t))), y);
      return s.sel(s.ne(st, s.c(0)), a, b);
    }
    case Trig::V: {
      Value a = s.div(s.cos(s.mul(nHalf, t)), s.cos(half));
      return s.sel(s.ne(s.sin(half), s.c(1)), a, minusEnd);
    }
    case Trig::W: {
      Value a = s.div(s.sin(s.mul(nHalf, t)), s.sin(half));
      Value end = s.sel(s.gt(y, s.c(0)), plusEnd, minusEnd);
      return s.sel(s.ne(s.cos(half), s.c(1)), a, end);
    }
    }
    return s.c(0);
  }

  /// P(m+1) from P(m) = q, P(m-1) = p.
  Value step(Scalar &d, Value y, Value mi, Value p, Value q) {
    Value m = d.to(mi);
    Value a = r.ay == 1 ? y : r.ay == -1 ? d.neg(y) : d.mul(d.c(r.ay), y);
    if (r.am != 0)
      a = d.mul(d.add(d.mul(d.c(r.am), m), d.c(r.ay)), y);
    if (r.b0 != 0)
      a = d.add(d.c(r.b0), a);
    if (r.bm != 0)
      a = d.add(d.mul(d.c(r.bm), m), a);
    Value bcoef = r.pm == 0 ? d.c(r.p0) : d.mul(d.c(r.pm), m);
    if (r.pm != 0 && r.p0 != 0)
      bcoef = d.add(bcoef, d.c(r.p0));
    // a q - b p with one rounding of a q, as torch's kernels compiled with
    // FMA contraction compute it (the recurrence amplifies the difference).
    Value next = math::FmaOp::create(d.b, d.loc, a, q, d.neg(d.mul(bcoef, p)));
    if (r.divide)
      next = d.div(next, d.add(m, d.c(1)));
    return next;
  }

  Value eval(Value x, Value nf, unsigned width) {
    OpBuilder &b = s.b;
    Location loc = s.loc;
    // The degree as torch's cast to int64 reads it on x86: NaN, infinite
    // and out-of-range values give a negative degree.
    Value inRange = s.lt(s.abs(nf), s.c(9.2233720368547758e18));
    Value n = arith::FPToSIOp::create(b, loc, b.getI64Type(),
                                      s.sel(inRange, nf, s.c(-1)));
    Value y = r.shifted ? s.sub(s.add(x, x), s.c(1)) : x;
    Value negative = cmpI(arith::CmpIPredicate::slt, n, i64(0));
    Value plusEnd, minusEnd;
    if (r.plus != End::None) {
      plusEnd = endValue(r.plus, n, false);
      minusEnd = endValue(r.minus, n, true);
    }

    Value false_ = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
    Value atEnd = false_, endVal = s.c(0);
    if (r.plus != End::None) {
      Value atPlus = r.shifted ? s.eq(x, s.c(1)) : s.eq(y, s.c(1));
      Value atMinus = r.shifted ? s.eq(x, s.c(0)) : s.eq(y, s.c(-1));
      atEnd = s.orI(atPlus, atMinus);
      endVal = s.sel(atPlus, plusEnd, minusEnd);
    }
    if (r.oneAtZero) {
      atEnd = s.eq(x, s.c(0));
      endVal = s.c(1);
    }
    Value useTrig = false_, trigVal = s.c(0);
    if (r.trig != Trig::None) {
      useTrig = s.andI(cmpI(arith::CmpIPredicate::sgt, n, i64(r.trigAbove)),
                       s.lt(s.abs(y), s.c(1)));
      // Keep acos's argument in range where the closed form is not used.
      trigVal = trigValue(s.sel(useTrig, y, s.c(0)), n, plusEnd, minusEnd);
    }
    Value overLimit = false_;
    if (r.hermite)
      overLimit =
          cmpI(arith::CmpIPredicate::sgt, n, i64(width <= 32 ? 128 : 512));

    Value special = s.orI(s.orI(negative, atEnd), s.orI(useTrig, overLimit));
    Value bound = arith::SelectOp::create(b, loc, special, i64(1), n);
    // P1 in torch's order of operations (1 - x, x + x - 1, ...).
    Value p1;
    if (r.p1y == -1)
      p1 = r.p1c != 0 ? s.sub(s.c(r.p1c), y) : s.neg(y);
    else
      p1 = r.p1y == 1 ? y : r.p1y == 2 ? s.add(y, y) : s.mul(s.c(r.p1y), y);
    if (r.p1c != 0 && r.p1y != -1)
      p1 = s.add(p1, s.c(r.p1c));

    Type i64t = b.getI64Type(), t = s.t;
    auto loop = scf::WhileOp::create(
        b, loc, TypeRange{i64t, t, t}, ValueRange{i64(1), s.c(1), p1},
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Scalar d{nb, nl, t};
          Value more = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::slt,
                                             args[0], bound);
          Value go = d.andI(more, d.notI(d.isNaN(args[2])));
          scf::ConditionOp::create(nb, nl, go, args);
        },
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Scalar d{nb, nl, t};
          Value next = step(d, y, args[0], args[1], args[2]);
          Value m1 = arith::AddIOp::create(
              nb, nl, args[0],
              arith::ConstantOp::create(nb, nl, nb.getI64IntegerAttr(1)));
          scf::YieldOp::create(nb, nl, ValueRange{m1, args[2], next});
        });
    Value result = loop.getResult(2);
    result = s.sel(cmpI(arith::CmpIPredicate::eq, n, i64(0)), s.c(1), result);
    result = s.sel(overLimit, s.nan(), result);
    result = s.sel(useTrig, trigVal, result);
    result = s.sel(atEnd, endVal, result);
    return s.sel(negative, s.c(0), result);
  }
};
} // namespace

FailureOr<Value>
mlprog::buildOrthogonalPolynomial(OpBuilder &b, Location loc,
                                  OrthogonalPolynomialKind kind, Value x,
                                  Value n) {
  Type et = elementTypeOf(x);
  if (!isa_and_nonnull<FloatType>(et) || elementTypeOf(n) != et)
    return emitError(loc) << "orthogonal polynomial: x and n must be float "
                             "tensors of one element type, got "
                          << x.getType() << " and " << n.getType();
  Rule rule = ruleOf(kind);
  unsigned width = et.getIntOrFloatBitWidth();
  return buildBroadcastedGeneric(b, loc, ValueRange{x, n}, et,
                                 [&](OpBuilder &nb, Location nl, ValueRange a) {
                                   Type ct = width < 32 ? nb.getF32Type() : et;
                                   Scalar s{nb, nl, ct};
                                   PolynomialEval e{s, rule};
                                   Value v = e.eval(s.to(a[0]), s.to(a[1]),
                                                    width < 32 ? 32 : width);
                                   return buildConvertScalar(nb, nl, v, et);
                                 });
}
