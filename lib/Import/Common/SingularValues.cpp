//===- SingularValues.cpp - SVD-based matrix functions --------------------===//
//
// Singular values, symmetric eigenvalues, pseudo-inverses, ranks and
// condition numbers from one-sided Jacobi rotations (Hestenes), computed in
// f64 per matrix (MatrixLoops.h) and rounded once to the operand's type.
//
//===----------------------------------------------------------------------===//

#include "MatrixLoops.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/LinearAlgebra.h"
#include "mlprog/Import/Common/MatrixFactorization.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

namespace {

/// Sweeps of one-sided Jacobi: each sweep rotates every column pair once;
/// convergence is quadratic, and 12 sweeps leave the columns of the
/// matrices models use these ops on (tens of rows) orthogonal to f64
/// rounding. A pair already orthogonal is left alone.
constexpr int64_t kJacobiSweeps = 12;

/// sum_i x[i, p] * x[i, q] over the rows of [R, C] `x`.
Value columnDot(OpBuilder &b, Location loc, Value x, Value p, Value q) {
  auto t = cast<RankedTensorType>(x.getType());
  return loop(b, loc, cIndex(b, loc, 0), cIndex(b, loc, t.getDimSize(0)),
              createScalar(b, loc, t.getElementType(), 0.0),
              [&](OpBuilder &nb, Location nl, Value i,
                  ValueRange s) -> SmallVector<Value> {
                Value m = arith::MulFOp::create(nb, nl, at(nb, nl, x, {i, p}),
                                                at(nb, nl, x, {i, q}));
                return {arith::AddFOp::create(nb, nl, s[0], m)};
              })[0];
}

/// Columns p and q of [R, C] `x` rotated: (c x_p - s x_q, s x_p + c x_q).
Value rotateColumns(OpBuilder &b, Location loc, Value x, Value p, Value q,
                    Value c, Value s) {
  auto t = cast<RankedTensorType>(x.getType());
  return loop(
      b, loc, cIndex(b, loc, 0), cIndex(b, loc, t.getDimSize(0)), x,
      [&](OpBuilder &nb, Location nl, Value i,
          ValueRange st) -> SmallVector<Value> {
        Value xp = at(nb, nl, st[0], {i, p});
        Value xq = at(nb, nl, st[0], {i, q});
        Value np =
            arith::SubFOp::create(nb, nl, arith::MulFOp::create(nb, nl, c, xp),
                                  arith::MulFOp::create(nb, nl, s, xq));
        Value nq =
            arith::AddFOp::create(nb, nl, arith::MulFOp::create(nb, nl, s, xp),
                                  arith::MulFOp::create(nb, nl, c, xq));
        return {put(nb, nl, nq, put(nb, nl, np, st[0], {i, p}), {i, q})};
      })[0];
}

/// One-sided Jacobi on one f64 [M, N] matrix: {W, V} with A = W V^T, the
/// columns of W mutually orthogonal (their norms are the singular values)
/// and V [N, N] orthogonal (null unless `wantV`).
std::pair<Value, Value> jacobi(OpBuilder &b, Location loc, Value a,
                               bool wantV) {
  auto t = cast<RankedTensorType>(a.getType());
  int64_t n = t.getDimSize(1);
  Type f64 = t.getElementType();
  SmallVector<Value> init{a};
  if (wantV)
    init.push_back(identity(b, loc, n, f64));
  Value zero = createScalar(b, loc, f64, 0.0),
        one = createScalar(b, loc, f64, 1.0);
  SmallVector<Value> r = loop(
      b, loc, cIndex(b, loc, 0), cIndex(b, loc, kJacobiSweeps), init,
      [&](OpBuilder &sb, Location sl, Value, ValueRange ss) {
        return loop(
            sb, sl, cIndex(sb, sl, 0), cIndex(sb, sl, n), ss,
            [&](OpBuilder &pb, Location pl, Value p, ValueRange ps) {
              return loop(
                  pb, pl, addI(pb, pl, p, 1), cIndex(pb, pl, n), ps,
                  [&](OpBuilder &qb, Location ql, Value q,
                      ValueRange qs) -> SmallVector<Value> {
                    Value w = qs[0];
                    Value alpha = columnDot(qb, ql, w, p, p);
                    Value beta = columnDot(qb, ql, w, q, q);
                    Value gamma = columnDot(qb, ql, w, p, q);
                    // Rotate unless |gamma| <= 1e-300 + 1e-15 sqrt(ab).
                    Value bound = arith::AddFOp::create(
                        qb, ql, createScalar(qb, ql, f64, 1e-300),
                        arith::MulFOp::create(
                            qb, ql, createScalar(qb, ql, f64, 1e-15),
                            math::SqrtOp::create(
                                qb, ql,
                                arith::MulFOp::create(qb, ql, alpha, beta))));
                    Value rotate = arith::CmpFOp::create(
                        qb, ql, arith::CmpFPredicate::OGT,
                        math::AbsFOp::create(qb, ql, gamma), bound);
                    return ifElse(
                        qb, ql, rotate,
                        [&](OpBuilder &rb, Location rl) -> SmallVector<Value> {
                          // zeta = (beta - alpha) / (2 gamma),
                          // t = sign(zeta) / (|zeta| + sqrt(1 + zeta^2)).
                          Value zeta = arith::DivFOp::create(
                              rb, rl,
                              arith::SubFOp::create(rb, rl, beta, alpha),
                              arith::MulFOp::create(
                                  rb, rl, createScalar(rb, rl, f64, 2.0),
                                  gamma));
                          Value az = math::AbsFOp::create(rb, rl, zeta);
                          Value root = math::SqrtOp::create(
                              rb, rl,
                              arith::AddFOp::create(
                                  rb, rl, one,
                                  arith::MulFOp::create(rb, rl, zeta, zeta)));
                          Value sign = arith::SelectOp::create(
                              rb, rl,
                              arith::CmpFOp::create(rb, rl,
                                                    arith::CmpFPredicate::OLT,
                                                    zeta, zero),
                              createScalar(rb, rl, f64, -1.0), one);
                          Value tt = arith::DivFOp::create(
                              rb, rl, sign,
                              arith::AddFOp::create(rb, rl, az, root));
                          Value c = arith::DivFOp::create(
                              rb, rl, one,
                              math::SqrtOp::create(
                                  rb, rl,
                                  arith::AddFOp::create(
                                      rb, rl, one,
                                      arith::MulFOp::create(rb, rl, tt, tt))));
                          Value s = arith::MulFOp::create(rb, rl, c, tt);
                          SmallVector<Value> out{
                              rotateColumns(rb, rl, w, p, q, c, s)};
                          if (wantV)
                            out.push_back(
                                rotateColumns(rb, rl, qs[1], p, q, c, s));
                          return out;
                        },
                        [&](OpBuilder &, Location) -> SmallVector<Value> {
                          return SmallVector<Value>(qs);
                        });
                  });
            });
      });
  return {r[0], wantV ? r[1] : Value()};
}

/// The norms of the columns of [R, C] `w`, [C].
Value columnNorms(OpBuilder &b, Location loc, Value w) {
  auto t = cast<RankedTensorType>(w.getType());
  int64_t c = t.getDimSize(1);
  Value init =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{c}, t.getElementType());
  return loop(b, loc, cIndex(b, loc, 0), cIndex(b, loc, c), init,
              [&](OpBuilder &nb, Location nl, Value j,
                  ValueRange s) -> SmallVector<Value> {
                Value norm =
                    math::SqrtOp::create(nb, nl, columnDot(nb, nl, w, j, j));
                return {put(nb, nl, norm, s[0], {j})};
              })[0];
}

/// `v` [N] sorted (selection sort) descending, or ascending.
Value sortVector(OpBuilder &b, Location loc, Value v, bool descending) {
  int64_t n = cast<RankedTensorType>(v.getType()).getDimSize(0);
  auto pred =
      descending ? arith::CmpFPredicate::OGT : arith::CmpFPredicate::OLT;
  return loop(
      b, loc, cIndex(b, loc, 0), cIndex(b, loc, n), v,
      [&](OpBuilder &nb, Location nl, Value i,
          ValueRange st) -> SmallVector<Value> {
        Value best =
            loop(nb, nl, addI(nb, nl, i, 1), cIndex(nb, nl, n), i,
                 [&](OpBuilder &lb, Location ll, Value j,
                     ValueRange bs) -> SmallVector<Value> {
                   Value better = arith::CmpFOp::create(
                       lb, ll, pred, at(lb, ll, st[0], {j}),
                       at(lb, ll, st[0], {bs[0]}));
                   return {arith::SelectOp::create(lb, ll, better, j, bs[0])};
                 })[0];
        Value x = at(nb, nl, st[0], {i}), y = at(nb, nl, st[0], {best});
        return {put(nb, nl, x, put(nb, nl, y, st[0], {i}), {best})};
      })[0];
}

/// `a` [*, M, N] in f64, transposed to [*, N, M] when M < N (Jacobi wants
/// at least as many rows as columns), and with its upper triangle replaced
/// by the lower one's mirror when `symmetrize` (square only; the upper one
/// mirrored when `upper`).
FailureOr<Value> jacobiOperand(OpBuilder &b, Location loc, Value a,
                               bool symmetrize, bool upper, bool &transposed) {
  FailureOr<Value> x = buildConvertElementType(b, loc, a, b.getF64Type());
  if (failed(x))
    return failure();
  auto t = cast<RankedTensorType>(x->getType());
  int64_t m = t.getDimSize(t.getRank() - 2), n = t.getShape().back();
  transposed = false;
  if (symmetrize) {
    if (upper) {
      x = transposeMatrices(b, loc, *x);
      if (failed(x))
        return failure();
    }
    return forEachMatrix(
        b, loc, t.getShape().drop_back(2), *x, {typeOf({n, n}, b.getF64Type())},
        [&](OpBuilder &nb, Location nl, ValueRange mats) -> SmallVector<Value> {
          return {loop(nb, nl, cIndex(nb, nl, 0), cIndex(nb, nl, n), mats[0],
                       [&](OpBuilder &ib, Location il, Value i, ValueRange is) {
                         return loop(
                             ib, il, addI(ib, il, i, 1), cIndex(ib, il, n), is,
                             [&](OpBuilder &jb, Location jl, Value j,
                                 ValueRange js) -> SmallVector<Value> {
                               return {put(jb, jl, at(jb, jl, js[0], {j, i}),
                                           js[0], {i, j})};
                             });
                       })[0]};
        })[0];
  }
  if (m < n) {
    transposed = true;
    return transposeMatrices(b, loc, *x);
  }
  return x;
}

/// The per-batch tolerance max(atol, rtol * smax) (see RankTolerance) for
/// f64 singular values, given `smax`, with atol/rtol slabs (rank 0, or
/// null) of A's element type `et`.
Value rankTolerance(OpBuilder &b, Location loc, Value atol, Value rtol,
                    Value smax, Type et, int64_t m, int64_t n) {
  Type f64 = b.getF64Type();
  auto read = [&](Value t) {
    Value v = tensor::ExtractOp::create(b, loc, t, ValueRange{});
    return et == f64 ? v : arith::ExtFOp::create(b, loc, f64, v).getResult();
  };
  Value zero = createScalar(b, loc, f64, 0.0);
  Value a = atol ? read(atol) : zero;
  Value r;
  if (rtol) {
    r = read(rtol);
  } else {
    // The machine epsilon of A's type: 2^(1 - precision).
    double eps =
        std::ldexp(1.0, 1 - static_cast<int>(APFloat::semanticsPrecision(
                                cast<FloatType>(et).getFloatSemantics())));
    r = createScalar(b, loc, f64, eps * std::max(m, n));
    if (atol)
      r = arith::SelectOp::create(
          b, loc,
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, a, zero),
          zero, r);
  }
  return arith::MaximumFOp::create(b, loc, a,
                                   arith::MulFOp::create(b, loc, r, smax));
}

/// `v` (a float tensor broadcasting against `batch`, or null) as [batch].
FailureOr<Value> batchTolerance(OpBuilder &b, Location loc, Value v,
                                ArrayRef<int64_t> batch, Type et) {
  if (!v)
    return Value();
  FailureOr<Value> c = buildConvertElementType(b, loc, v, et);
  if (failed(c))
    return failure();
  return buildExpand(b, loc, *c, batch);
}

} // namespace

FailureOr<Value> mlprog::buildSingularValues(OpBuilder &b, Location loc,
                                             Value a) {
  FailureOr<RankedTensorType> t = staticFloat(loc, a, "svdvals", "A");
  if (failed(t))
    return failure();
  bool transposed;
  FailureOr<Value> x = jacobiOperand(b, loc, a, false, false, transposed);
  if (failed(x))
    return failure();
  int64_t k = cast<RankedTensorType>(x->getType()).getShape().back();
  Value s = forEachMatrix(
      b, loc, t->getShape().drop_back(2), *x, {typeOf({k}, b.getF64Type())},
      [&](OpBuilder &nb, Location nl, ValueRange mats) -> SmallVector<Value> {
        Value w = jacobi(nb, nl, mats[0], /*wantV=*/false).first;
        return {sortVector(nb, nl, columnNorms(nb, nl, w), true)};
      })[0];
  return buildConvertElementType(b, loc, s, t->getElementType());
}

FailureOr<Value> mlprog::buildSymmetricEigenvalues(OpBuilder &b, Location loc,
                                                   Value a, bool upper) {
  FailureOr<RankedTensorType> t = squareMatrices(loc, a, "eigvalsh", "A");
  if (failed(t))
    return failure();
  bool transposed;
  FailureOr<Value> x = jacobiOperand(b, loc, a, true, upper, transposed);
  if (failed(x))
    return failure();
  int64_t n = t->getShape().back();
  Type f64 = b.getF64Type();
  Value e = forEachMatrix(
      b, loc, t->getShape().drop_back(2), *x, {typeOf({n}, f64)},
      [&](OpBuilder &nb, Location nl, ValueRange mats) -> SmallVector<Value> {
        auto [w, v] = jacobi(nb, nl, mats[0], /*wantV=*/true);
        // A = W V^T with W = V diag(lambda): lambda_j = (w_j . v_j).
        Value init = tensor::EmptyOp::create(nb, nl, ArrayRef<int64_t>{n}, f64);
        Value lambda =
            loop(nb, nl, cIndex(nb, nl, 0), cIndex(nb, nl, n), init,
                 [&](OpBuilder &lb, Location ll, Value j,
                     ValueRange s) -> SmallVector<Value> {
                   Value d =
                       loop(lb, ll, cIndex(lb, ll, 0), cIndex(lb, ll, n),
                            createScalar(lb, ll, f64, 0.0),
                            [&](OpBuilder &ib, Location il, Value i,
                                ValueRange acc) -> SmallVector<Value> {
                              Value m = arith::MulFOp::create(
                                  ib, il, at(ib, il, w, {i, j}),
                                  at(ib, il, v, {i, j}));
                              return {arith::AddFOp::create(ib, il, acc[0], m)};
                            })[0];
                   return {put(lb, ll, d, s[0], {j})};
                 })[0];
        return {sortVector(nb, nl, lambda, /*descending=*/false)};
      })[0];
  return buildConvertElementType(b, loc, e, t->getElementType());
}

/// pinv and matrix rank: the shared SVD and tolerance.
static FailureOr<Value> rankRevealing(OpBuilder &b, Location loc, Value a,
                                      RankTolerance tol, bool hermitian,
                                      bool inverse) {
  StringRef op = inverse ? "pinv" : "matrix_rank";
  FailureOr<RankedTensorType> t = hermitian ? squareMatrices(loc, a, op, "A")
                                            : staticFloat(loc, a, op, "A");
  if (failed(t))
    return failure();
  ArrayRef<int64_t> shape = t->getShape();
  int64_t m = shape[shape.size() - 2], n = shape.back();
  ArrayRef<int64_t> batch = shape.drop_back(2);
  Type et = t->getElementType(), f64 = b.getF64Type();
  bool transposed;
  FailureOr<Value> x = jacobiOperand(b, loc, a, hermitian, false, transposed);
  FailureOr<Value> atol = batchTolerance(b, loc, tol.atol, batch, et);
  FailureOr<Value> rtol = batchTolerance(b, loc, tol.rtol, batch, et);
  if (failed(x) || failed(atol) || failed(rtol))
    return failure();
  auto xt = cast<RankedTensorType>(x->getType());
  int64_t rows = xt.getDimSize(xt.getRank() - 2), cols = xt.getShape().back();
  SmallVector<Value> operands{*x};
  if (*atol)
    operands.push_back(*atol);
  if (*rtol)
    operands.push_back(*rtol);
  RankedTensorType result =
      inverse ? typeOf({cols, rows}, f64) : typeOf({}, b.getI64Type());
  Value r = forEachMatrix(
      b, loc, batch, operands, {result},
      [&](OpBuilder &nb, Location nl, ValueRange mats) -> SmallVector<Value> {
        auto [w, v] = jacobi(nb, nl, mats[0], /*wantV=*/inverse);
        Value s = columnNorms(nb, nl, w);
        Value zero = createScalar(nb, nl, f64, 0.0);
        Value smax = loop(nb, nl, cIndex(nb, nl, 0), cIndex(nb, nl, cols), zero,
                          [&](OpBuilder &lb, Location ll, Value j,
                              ValueRange acc) -> SmallVector<Value> {
                            return {arith::MaximumFOp::create(
                                lb, ll, acc[0], at(lb, ll, s, {j}))};
                          })[0];
        unsigned next = 1;
        Value at_ = *atol ? mats[next++] : Value();
        Value rt = *rtol ? mats[next++] : Value();
        Value cut = rankTolerance(nb, nl, at_, rt, smax, et, m, n);
        if (!inverse) {
          Value count = loop(
              nb, nl, cIndex(nb, nl, 0), cIndex(nb, nl, cols),
              Value(arith::ConstantOp::create(nb, nl, nb.getI64IntegerAttr(0))),
              [&](OpBuilder &lb, Location ll, Value j,
                  ValueRange acc) -> SmallVector<Value> {
                Value above = arith::CmpFOp::create(
                    lb, ll, arith::CmpFPredicate::OGT, at(lb, ll, s, {j}), cut);
                Value inc =
                    arith::ExtUIOp::create(lb, ll, lb.getI64Type(), above);
                return {arith::AddIOp::create(lb, ll, acc[0], inc)};
              })[0];
          return {scalarTensor(nb, nl, count)};
        }
        // pinv = V diag(1 / s^2 where s > tol) W^T (W = U diag(s)).
        Value init =
            tensor::EmptyOp::create(nb, nl, ArrayRef<int64_t>{cols, rows}, f64);
        Value p = loop(
            nb, nl, cIndex(nb, nl, 0), cIndex(nb, nl, cols), init,
            [&](OpBuilder &ib, Location il, Value i, ValueRange is) {
              return loop(
                  ib, il, cIndex(ib, il, 0), cIndex(ib, il, rows), is,
                  [&](OpBuilder &jb, Location jl, Value j,
                      ValueRange js) -> SmallVector<Value> {
                    Value sum = loop(
                        jb, jl, cIndex(jb, jl, 0), cIndex(jb, jl, cols), zero,
                        [&](OpBuilder &kb, Location kl, Value k,
                            ValueRange acc) -> SmallVector<Value> {
                          Value sk = at(kb, kl, s, {k});
                          Value keep = arith::CmpFOp::create(
                              kb, kl, arith::CmpFPredicate::OGT, sk, cut);
                          Value inv = arith::DivFOp::create(
                              kb, kl, createScalar(kb, kl, f64, 1.0),
                              arith::MulFOp::create(kb, kl, sk, sk));
                          inv =
                              arith::SelectOp::create(kb, kl, keep, inv, zero);
                          Value term = arith::MulFOp::create(
                              kb, kl,
                              arith::MulFOp::create(kb, kl,
                                                    at(kb, kl, v, {i, k}), inv),
                              at(kb, kl, w, {j, k}));
                          return {arith::AddFOp::create(kb, kl, acc[0], term)};
                        })[0];
                    return {put(jb, jl, sum, js[0], {i, j})};
                  });
            })[0];
        return {p};
      })[0];
  if (!inverse)
    return r;
  if (transposed) {
    FailureOr<Value> rt = transposeMatrices(b, loc, r);
    if (failed(rt))
      return failure();
    r = *rt;
  }
  return buildConvertElementType(b, loc, r, et);
}

FailureOr<Value> mlprog::buildPseudoInverse(OpBuilder &b, Location loc, Value a,
                                            RankTolerance tol, bool hermitian) {
  return rankRevealing(b, loc, a, tol, hermitian, /*inverse=*/true);
}

FailureOr<Value> mlprog::buildMatrixRank(OpBuilder &b, Location loc, Value a,
                                         RankTolerance tol, bool hermitian) {
  return rankRevealing(b, loc, a, tol, hermitian, /*inverse=*/false);
}

FailureOr<Value> mlprog::buildConditionNumber(OpBuilder &b, Location loc,
                                              Value a, bool inverse) {
  FailureOr<Value> s = buildSingularValues(b, loc, a);
  if (failed(s))
    return failure();
  auto t = cast<RankedTensorType>(s->getType());
  int64_t k = t.getShape().back();
  if (k == 0)
    return emitError(loc) << "cond: unsupported empty matrices";
  return forEachMatrix(
      b, loc, t.getShape().drop_back(), *s, {typeOf({}, t.getElementType())},
      [&](OpBuilder &nb, Location nl, ValueRange v) -> SmallVector<Value> {
        Value smax = at(nb, nl, v[0], {cIndex(nb, nl, 0)});
        Value smin = at(nb, nl, v[0], {cIndex(nb, nl, k - 1)});
        Value r = inverse ? arith::DivFOp::create(nb, nl, smin, smax)
                          : arith::DivFOp::create(nb, nl, smax, smin);
        return {scalarTensor(nb, nl, r)};
      })[0];
}

FailureOr<LeastSquaresResult>
mlprog::buildLeastSquares(OpBuilder &b, Location loc, Value a, Value rhs,
                          std::optional<double> rcond,
                          LeastSquaresDriver driver) {
  FailureOr<RankedTensorType> at_ = staticFloat(loc, a, "lstsq", "A");
  FailureOr<RankedTensorType> bt = staticFloat(loc, rhs, "lstsq", "B");
  if (failed(at_) || failed(bt))
    return failure();
  ArrayRef<int64_t> shape = at_->getShape();
  int64_t m = shape[shape.size() - 2], n = shape.back();
  ArrayRef<int64_t> batch = shape.drop_back(2);
  Type et = at_->getElementType();
  if (bt->getShape().drop_back(2) != batch ||
      bt->getDimSize(bt->getRank() - 2) != m || bt->getElementType() != et)
    return emitError(loc) << "lstsq: B " << *bt << " does not fit A " << *at_
                          << " (equal batch dims and rows)";
  int64_t r = bt->getShape().back();
  RankTolerance tol;
  if (rcond) {
    auto scalar = RankedTensorType::get({}, et);
    tol.rtol = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(scalar, b.getFloatAttr(et, *rcond)));
  }
  FailureOr<Value> pinv = buildPseudoInverse(b, loc, a, tol, false);
  if (failed(pinv))
    return failure();
  FailureOr<Value> x = buildMatMul(b, loc, *pinv, rhs);
  if (failed(x))
    return failure();
  LeastSquaresResult out;
  out.solution = *x;
  auto empty = [&](Type t) -> Value {
    return arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get({0}, t),
                               ArrayRef<Attribute>{}));
  };
  out.residuals = empty(et);
  if (m > n && driver != LeastSquaresDriver::Gelsy) {
    // ||A x_c - b_c||^2 per column c.
    out.residuals = forEachMatrix(
        b, loc, batch, {a, *x, rhs}, {typeOf({r}, et)},
        [&](OpBuilder &nb, Location nl, ValueRange mats) -> SmallVector<Value> {
          Value init =
              tensor::EmptyOp::create(nb, nl, ArrayRef<int64_t>{r}, et);
          Value zero = createScalar(nb, nl, et, 0.0);
          auto sum =
              [&](OpBuilder &sb, Location sl, int64_t count, Value from,
                  function_ref<Value(OpBuilder &, Location, Value)> term) {
                return loop(sb, sl, cIndex(sb, sl, 0), cIndex(sb, sl, count),
                            from,
                            [&](OpBuilder &tb, Location tl, Value k,
                                ValueRange acc) -> SmallVector<Value> {
                              return {arith::AddFOp::create(tb, tl, acc[0],
                                                            term(tb, tl, k))};
                            })[0];
              };
          return {loop(
              nb, nl, cIndex(nb, nl, 0), cIndex(nb, nl, r), init,
              [&](OpBuilder &cb, Location cl, Value c,
                  ValueRange cs) -> SmallVector<Value> {
                Value ss = sum(
                    cb, cl, m, zero, [&](OpBuilder &ib, Location il, Value i) {
                      Value ax =
                          sum(ib, il, n,
                              arith::NegFOp::create(
                                  ib, il, at(ib, il, mats[2], {i, c})),
                              [&](OpBuilder &jb, Location jl, Value j) {
                                return arith::MulFOp::create(
                                           jb, jl, at(jb, jl, mats[0], {i, j}),
                                           at(jb, jl, mats[1], {j, c}))
                                    .getResult();
                              });
                      return arith::MulFOp::create(ib, il, ax, ax).getResult();
                    });
                return {put(cb, cl, ss, cs[0], {c})};
              })[0]};
        })[0];
  }
  out.rank = empty(b.getI64Type());
  if (driver != LeastSquaresDriver::Gels) {
    FailureOr<Value> rank = buildMatrixRank(b, loc, a, tol, false);
    if (failed(rank))
      return failure();
    out.rank = *rank;
  }
  out.singularValues = empty(et);
  if (driver == LeastSquaresDriver::Gelsd ||
      driver == LeastSquaresDriver::Gelss) {
    FailureOr<Value> s = buildSingularValues(b, loc, a);
    if (failed(s))
      return failure();
    out.singularValues = *s;
  }
  return out;
}

FailureOr<Value> mlprog::buildSingularValueNorm(OpBuilder &b, Location loc,
                                                Value x, SingularValueNorm kind,
                                                int64_t rowDim, int64_t colDim,
                                                bool keepDims) {
  FailureOr<RankedTensorType> t = staticFloat(loc, x, "matrix norm", "A");
  if (failed(t))
    return failure();
  int64_t rank = t->getRank();
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    if (d != rowDim && d != colDim)
      perm.push_back(d);
  perm.push_back(rowDim);
  perm.push_back(colDim);
  FailureOr<Value> m = buildTranspose(b, loc, x, perm);
  if (failed(m))
    return failure();
  FailureOr<Value> s = buildSingularValues(b, loc, *m);
  if (failed(s))
    return failure();
  auto st = cast<RankedTensorType>(s->getType());
  int64_t k = st.getShape().back();
  Type et = st.getElementType();
  if (k == 0 && kind != SingularValueNorm::Sum)
    return emitError(loc) << "matrix norm: the 2-norm of empty matrices " << *t
                          << " is not defined";
  Value r = forEachMatrix(
      b, loc, st.getShape().drop_back(), *s, {typeOf({}, et)},
      [&](OpBuilder &nb, Location nl, ValueRange v) -> SmallVector<Value> {
        // Sorted descending: the first, the last, or the sum.
        if (kind == SingularValueNorm::Largest)
          return {scalarTensor(nb, nl, at(nb, nl, v[0], {cIndex(nb, nl, 0)}))};
        if (kind == SingularValueNorm::Smallest)
          return {
              scalarTensor(nb, nl, at(nb, nl, v[0], {cIndex(nb, nl, k - 1)}))};
        Value sum = loop(nb, nl, cIndex(nb, nl, 0), cIndex(nb, nl, k),
                         createScalar(nb, nl, et, 0.0),
                         [&](OpBuilder &lb, Location ll, Value i,
                             ValueRange acc) -> SmallVector<Value> {
                           return {arith::AddFOp::create(
                               lb, ll, acc[0], at(lb, ll, v[0], {i}))};
                         })[0];
        return {scalarTensor(nb, nl, sum)};
      })[0];
  if (!keepDims)
    return r;
  for (int64_t d : {std::min(rowDim, colDim), std::max(rowDim, colDim)}) {
    FailureOr<Value> u = buildUnsqueeze(b, loc, r, d);
    if (failed(u))
      return failure();
    r = *u;
  }
  return r;
}
