//===- MatrixFactorization.cpp - LU, Cholesky and solves ------------------===//
//
// Each builder checks its operands, broadcasts their batch dims, and runs a
// per-matrix algorithm once per matrix of the batch (forEachMatrix). The
// per-matrix algorithms thread the matrix being updated through scf.for
// loops as a tensor (tensor.extract / tensor.insert); bufferization turns
// that into in-place updates of one buffer.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Import/Common/MatrixFactorization.h"
#include "MatrixLoops.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

namespace {

/// The numpy broadcast of two static batch shapes, or an error.
FailureOr<SmallVector<int64_t>> broadcastBatch(Location loc, StringRef op,
                                               ArrayRef<int64_t> x,
                                               ArrayRef<int64_t> y) {
  size_t rank = std::max(x.size(), y.size());
  SmallVector<int64_t> out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t a = i < rank - x.size() ? 1 : x[i - (rank - x.size())];
    int64_t c = i < rank - y.size() ? 1 : y[i - (rank - y.size())];
    if (a != c && a != 1 && c != 1)
      return emitError(loc) << op << ": batch dims " << shapeText(x) << " and "
                            << shapeText(y) << " do not broadcast";
    out[i] = a == 1 ? c : a;
  }
  return out;
}

/// `v` [*, trailing] expanded to [batch, trailing] (`trailing` dims kept).
FailureOr<Value> expandBatch(OpBuilder &b, Location loc, Value v,
                             ArrayRef<int64_t> batch, int64_t trailing) {
  auto t = cast<RankedTensorType>(v.getType());
  if (t.getShape().drop_back(trailing) == batch)
    return v;
  SmallVector<int64_t> shape(batch);
  shape.append(trailing, -1);
  return buildExpand(b, loc, v, shape);
}

/// `t` with rows r1 and r2 (index values) of its [R, C] swapped.
Value swapRows(OpBuilder &b, Location loc, Value t, Value r1, Value r2) {
  int64_t cols = cast<RankedTensorType>(t.getType()).getDimSize(1);
  Value differ =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, r1, r2);
  return ifElse(
      b, loc, differ,
      [&](OpBuilder &sb, Location sl) -> SmallVector<Value> {
        return loop(sb, sl, cIndex(sb, sl, 0), cIndex(sb, sl, cols), t,
                    [&](OpBuilder &cb, Location cl, Value j,
                        ValueRange cs) -> SmallVector<Value> {
                      Value x = at(cb, cl, cs[0], {r1, j});
                      Value y = at(cb, cl, cs[0], {r2, j});
                      Value t1 = put(cb, cl, y, cs[0], {r1, j});
                      return {put(cb, cl, x, t1, {r2, j})};
                    });
      },
      [&](OpBuilder &, Location) -> SmallVector<Value> { return {t}; })[0];
}

/// The 0-based row of 1-based pivot `j` of `piv` (i32).
Value pivotRow(OpBuilder &b, Location loc, Value piv, Value j) {
  Value p = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                       at(b, loc, piv, {j}));
  return addI(b, loc, p, -1);
}

/// Applies the row interchanges of `piv` [K] to `x` [N, R]: in order
/// (P^T x) or, with `reverse`, backwards (P x).
Value permuteRows(OpBuilder &b, Location loc, Value x, Value piv,
                  bool reverse) {
  int64_t k = cast<RankedTensorType>(piv.getType()).getDimSize(0);
  return loop(b, loc, cIndex(b, loc, 0), cIndex(b, loc, k), x,
              [&](OpBuilder &nb, Location nl, Value t,
                  ValueRange st) -> SmallVector<Value> {
                Value j = reverse ? arith::SubIOp::create(
                                        nb, nl, cIndex(nb, nl, k - 1), t)
                                        .getResult()
                                  : t;
                return {swapRows(nb, nl, st[0], j, pivotRow(nb, nl, piv, j))};
              })[0];
}

/// LU with partial pivoting of one [M, N] matrix: {lu, pivots [K] i32,
/// info (i32 scalar)}.
SmallVector<Value> luMatrix(OpBuilder &b, Location loc, Value a) {
  auto t = cast<RankedTensorType>(a.getType());
  int64_t m = t.getDimSize(0), n = t.getDimSize(1), k = std::min(m, n);
  Type et = t.getElementType(), i32 = b.getI32Type();
  Value piv0 = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{k}, i32);
  Value info0 = arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0));
  Value cm = cIndex(b, loc, m), cn = cIndex(b, loc, n);
  SmallVector<Value> out = loop(
      b, loc, cIndex(b, loc, 0), cIndex(b, loc, k), {a, piv0, info0},
      [&](OpBuilder &nb, Location nl, Value j,
          ValueRange st) -> SmallVector<Value> {
        // The first row p >= j of largest |a[p, j]|.
        Value p = loop(
            nb, nl, j, cm, {createScalar(nb, nl, et, -1.0), j},
            [&](OpBuilder &lb, Location ll, Value i,
                ValueRange bs) -> SmallVector<Value> {
              Value v = math::AbsFOp::create(lb, ll, at(lb, ll, st[0], {i, j}));
              Value gt = arith::CmpFOp::create(
                  lb, ll, arith::CmpFPredicate::OGT, v, bs[0]);
              return {arith::SelectOp::create(lb, ll, gt, v, bs[0]),
                      arith::SelectOp::create(lb, ll, gt, i, bs[1])};
            })[1];
        Value piv = put(
            nb, nl, arith::IndexCastOp::create(nb, nl, i32, addI(nb, nl, p, 1)),
            st[1], {j});
        Value mat = swapRows(nb, nl, st[0], j, p);
        Value pivot = at(nb, nl, mat, {j, j});
        Value isZero =
            arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ, pivot,
                                  createScalar(nb, nl, et, 0.0));
        Value noInfo = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq,
                                             st[2], info0);
        Value first = arith::AndIOp::create(nb, nl, isZero, noInfo);
        Value info = arith::SelectOp::create(
            nb, nl, first,
            arith::IndexCastOp::create(nb, nl, i32, addI(nb, nl, j, 1)), st[2]);
        Value next = addI(nb, nl, j, 1);
        Value reduced = ifElse(
            nb, nl, isZero,
            [&](OpBuilder &, Location) -> SmallVector<Value> { return {mat}; },
            [&](OpBuilder &eb, Location el) -> SmallVector<Value> {
              return loop(
                  eb, el, next, cm, mat,
                  [&](OpBuilder &rb, Location rl, Value i,
                      ValueRange rs) -> SmallVector<Value> {
                    Value f = arith::DivFOp::create(
                        rb, rl, at(rb, rl, rs[0], {i, j}), pivot);
                    Value row = put(rb, rl, f, rs[0], {i, j});
                    return loop(
                        rb, rl, next, cn, row,
                        [&](OpBuilder &cb, Location cl, Value c,
                            ValueRange cs) -> SmallVector<Value> {
                          Value v = arith::SubFOp::create(
                              cb, cl, at(cb, cl, cs[0], {i, c}),
                              arith::MulFOp::create(cb, cl, f,
                                                    at(cb, cl, cs[0], {j, c})));
                          return {put(cb, cl, v, cs[0], {i, c})};
                        });
                  });
            })[0];
        return {reduced, piv, info};
      });
  return out;
}

/// Solves a x = rhs for one [N, N] triangular `a` (its lower triangle, or
/// upper with `upper`) and rhs [N, R]; the diagonal is 1 with `unit`.
Value triangularSolveMatrix(OpBuilder &b, Location loc, Value a, Value rhs,
                            bool upper, bool unit) {
  auto at_ = cast<RankedTensorType>(a.getType());
  int64_t n = at_.getDimSize(0);
  int64_t r = cast<RankedTensorType>(rhs.getType()).getDimSize(1);
  return loop(
      b, loc, cIndex(b, loc, 0), cIndex(b, loc, n), rhs,
      [&](OpBuilder &nb, Location nl, Value t,
          ValueRange st) -> SmallVector<Value> {
        Value i = upper
                      ? arith::SubIOp::create(nb, nl, cIndex(nb, nl, n - 1), t)
                            .getResult()
                      : t;
        Value lo = upper ? addI(nb, nl, i, 1) : cIndex(nb, nl, 0);
        Value hi = upper ? cIndex(nb, nl, n) : i;
        return loop(
            nb, nl, cIndex(nb, nl, 0), cIndex(nb, nl, r), st[0],
            [&](OpBuilder &cb, Location cl, Value c,
                ValueRange cs) -> SmallVector<Value> {
              Value s = loop(cb, cl, lo, hi, at(cb, cl, cs[0], {i, c}),
                             [&](OpBuilder &kb, Location kl, Value j,
                                 ValueRange ks) -> SmallVector<Value> {
                               Value p = arith::MulFOp::create(
                                   kb, kl, at(kb, kl, a, {i, j}),
                                   at(kb, kl, cs[0], {j, c}));
                               return {arith::SubFOp::create(kb, kl, ks[0], p)};
                             })[0];
              if (!unit)
                s = arith::DivFOp::create(cb, cl, s, at(cb, cl, a, {i, i}));
              return {put(cb, cl, s, cs[0], {i, c})};
            });
      })[0];
}

/// Checks and broadcasts `a` [*, N, N] and `rhs` [*, N, R] (left) or
/// [*, R, N] for a solve; returns the batch shape, the operands expanded.
FailureOr<SmallVector<int64_t>>
prepareSolve(OpBuilder &b, Location loc, StringRef op, Value &a, Value &rhs,
             bool left, SmallVectorImpl<Value> *extra = nullptr) {
  FailureOr<RankedTensorType> at_ = squareMatrices(loc, a, op, "A");
  FailureOr<RankedTensorType> bt = staticFloat(loc, rhs, op, "B");
  if (failed(at_) || failed(bt))
    return failure();
  if (at_->getElementType() != bt->getElementType())
    return emitError(loc) << op << ": A " << *at_ << " and B " << *bt
                          << " have different element types";
  int64_t n = at_->getShape().back();
  int64_t bn = left ? bt->getDimSize(bt->getRank() - 2) : bt->getShape().back();
  if (bn != n)
    return emitError(loc) << op << ": B " << *bt << " does not fit A " << *at_
                          << (left ? " (A X = B)" : " (X A = B)");
  FailureOr<SmallVector<int64_t>> batch = broadcastBatch(
      loc, op, at_->getShape().drop_back(2), bt->getShape().drop_back(2));
  if (failed(batch))
    return failure();
  FailureOr<Value> ae = expandBatch(b, loc, a, *batch, 2);
  FailureOr<Value> be = expandBatch(b, loc, rhs, *batch, 2);
  if (failed(ae) || failed(be))
    return failure();
  a = *ae;
  rhs = *be;
  if (extra)
    for (Value &v : *extra) {
      FailureOr<Value> e = expandBatch(b, loc, v, *batch, 1);
      if (failed(e))
        return failure();
      v = *e;
    }
  return batch;
}

} // namespace

FailureOr<LUFactorization> mlprog::buildLUFactor(OpBuilder &b, Location loc,
                                                 Value a) {
  FailureOr<RankedTensorType> t = staticFloat(loc, a, "lu_factor", "A");
  if (failed(t))
    return failure();
  ArrayRef<int64_t> shape = t->getShape();
  int64_t m = shape[shape.size() - 2], n = shape.back(), k = std::min(m, n);
  Type i32 = b.getI32Type();
  SmallVector<Value> r = forEachMatrix(
      b, loc, shape.drop_back(2), a,
      {typeOf({m, n}, t->getElementType()), typeOf({k}, i32), typeOf({}, i32)},
      [&](OpBuilder &nb, Location nl, ValueRange mats) -> SmallVector<Value> {
        SmallVector<Value> f = luMatrix(nb, nl, mats[0]);
        return {f[0], f[1], scalarTensor(nb, nl, f[2])};
      });
  return LUFactorization{r[0], r[1], r[2]};
}

FailureOr<SmallVector<Value, 3>>
mlprog::buildLUUnpack(OpBuilder &b, Location loc, Value lu, Value pivots) {
  FailureOr<RankedTensorType> t = staticFloat(loc, lu, "lu_unpack", "LU");
  if (failed(t))
    return failure();
  ArrayRef<int64_t> shape = t->getShape();
  int64_t m = shape[shape.size() - 2], n = shape.back(), k = std::min(m, n);
  ArrayRef<int64_t> batch = shape.drop_back(2);
  SmallVector<int64_t> pivShape(batch);
  pivShape.push_back(k);
  auto pt = dyn_cast<RankedTensorType>(pivots.getType());
  if (!pt || pt.getShape() != ArrayRef<int64_t>(pivShape) ||
      !isa<IntegerType>(pt.getElementType()))
    return emitError(loc) << "lu_unpack: pivots must be integers of shape "
                          << shapeText(pivShape) << ", got "
                          << pivots.getType();
  Type et = t->getElementType();
  SmallVector<Value> r = forEachMatrix(
      b, loc, batch, {lu, pivots},
      {typeOf({m, m}, et), typeOf({m, k}, et), typeOf({k, n}, et)},
      [&](OpBuilder &nb, Location nl, ValueRange mats) -> SmallVector<Value> {
        Value f = mats[0], piv = mats[1];
        Value zero = createScalar(nb, nl, et, 0.0);
        Value one = createScalar(nb, nl, et, 1.0);
        // perm[i]: the row of A that row i of P^T A is.
        Value perm0 = tensor::EmptyOp::create(nb, nl, ArrayRef<int64_t>{m},
                                              nb.getIndexType());
        Value perm = loop(nb, nl, cIndex(nb, nl, 0), cIndex(nb, nl, m), perm0,
                          [&](OpBuilder &lb, Location ll, Value i,
                              ValueRange s) -> SmallVector<Value> {
                            return {put(lb, ll, i, s[0], {i})};
                          })[0];
        perm = loop(nb, nl, cIndex(nb, nl, 0), cIndex(nb, nl, k), perm,
                    [&](OpBuilder &lb, Location ll, Value j,
                        ValueRange s) -> SmallVector<Value> {
                      Value p = pivotRow(lb, ll, piv, j);
                      Value x = at(lb, ll, s[0], {j});
                      Value y = at(lb, ll, s[0], {p});
                      return {put(lb, ll, x, put(lb, ll, y, s[0], {j}), {p})};
                    })[0];
        Value pm =
            createFilled(nb, nl, {nb.getIndexAttr(m), nb.getIndexAttr(m)},
                         nb.getZeroAttr(et));
        pm = loop(nb, nl, cIndex(nb, nl, 0), cIndex(nb, nl, m), pm,
                  [&](OpBuilder &lb, Location ll, Value i,
                      ValueRange s) -> SmallVector<Value> {
                    return {put(lb, ll, one, s[0], {at(lb, ll, perm, {i}), i})};
                  })[0];
        // L [M, K] and U [K, N], element by element.
        auto triangle = [&](int64_t rows, int64_t cols, bool lower) {
          Value init = tensor::EmptyOp::create(
              nb, nl, ArrayRef<int64_t>{rows, cols}, et);
          return loop(
              nb, nl, cIndex(nb, nl, 0), cIndex(nb, nl, rows), init,
              [&](OpBuilder &lb, Location ll, Value i,
                  ValueRange s) -> SmallVector<Value> {
                return loop(
                    lb, ll, cIndex(lb, ll, 0), cIndex(lb, ll, cols), s[0],
                    [&](OpBuilder &cb, Location cl, Value j,
                        ValueRange cs) -> SmallVector<Value> {
                      auto pred = lower ? arith::CmpIPredicate::sgt
                                        : arith::CmpIPredicate::sle;
                      Value inside = arith::CmpIOp::create(cb, cl, pred, i, j);
                      Value diag = arith::CmpIOp::create(
                          cb, cl, arith::CmpIPredicate::eq, i, j);
                      Value v = arith::SelectOp::create(
                          cb, cl, inside, at(cb, cl, f, {i, j}), zero);
                      if (lower)
                        v = arith::SelectOp::create(cb, cl, diag, one, v);
                      return {put(cb, cl, v, cs[0], {i, j})};
                    });
              })[0];
        };
        return {pm, triangle(m, k, true), triangle(k, n, false)};
      });
  return SmallVector<Value, 3>{r[0], r[1], r[2]};
}

FailureOr<Value> mlprog::buildTriangularSolve(OpBuilder &b, Location loc,
                                              Value a, Value rhs, bool upper,
                                              bool left, bool unitDiagonal) {
  FailureOr<SmallVector<int64_t>> batch =
      prepareSolve(b, loc, "solve_triangular", a, rhs, left);
  if (failed(batch))
    return failure();
  // X A = B is A^T X^T = B^T, with the other triangle.
  if (!left) {
    FailureOr<Value> at_ = transposeMatrices(b, loc, a);
    FailureOr<Value> bt = transposeMatrices(b, loc, rhs);
    if (failed(at_) || failed(bt))
      return failure();
    a = *at_;
    rhs = *bt;
    upper = !upper;
  }
  auto bt = cast<RankedTensorType>(rhs.getType());
  SmallVector<Value> r = forEachMatrix(
      b, loc, *batch, {a, rhs},
      {typeOf(bt.getShape().take_back(2), bt.getElementType())},
      [&](OpBuilder &nb, Location nl, ValueRange mats) -> SmallVector<Value> {
        return {triangularSolveMatrix(nb, nl, mats[0], mats[1], upper,
                                      unitDiagonal)};
      });
  return left ? FailureOr<Value>(r[0]) : transposeMatrices(b, loc, r[0]);
}

FailureOr<Value> mlprog::buildLUSolve(OpBuilder &b, Location loc, Value lu,
                                      Value pivots, Value rhs, bool left,
                                      bool adjoint) {
  SmallVector<Value> extra{pivots};
  FailureOr<SmallVector<int64_t>> batch =
      prepareSolve(b, loc, "lu_solve", lu, rhs, left, &extra);
  if (failed(batch))
    return failure();
  pivots = extra[0];
  // X A = B is A^T X^T = B^T; X A^T = B is A X^T = B^T.
  if (!left) {
    FailureOr<Value> bt = transposeMatrices(b, loc, rhs);
    if (failed(bt))
      return failure();
    rhs = *bt;
    adjoint = !adjoint;
  }
  FailureOr<Value> luT = transposeMatrices(b, loc, lu);
  if (failed(luT))
    return failure();
  auto bt = cast<RankedTensorType>(rhs.getType());
  SmallVector<Value> r = forEachMatrix(
      b, loc, *batch, {lu, *luT, pivots, rhs},
      {typeOf(bt.getShape().take_back(2), bt.getElementType())},
      [&](OpBuilder &nb, Location nl, ValueRange mats) -> SmallVector<Value> {
        Value f = mats[0], fT = mats[1], piv = mats[2], x = mats[3];
        if (!adjoint) {
          // A = P L U: x = U^-1 L^-1 P^T b.
          x = permuteRows(nb, nl, x, piv, /*reverse=*/false);
          x = triangularSolveMatrix(nb, nl, f, x, /*upper=*/false, true);
          return {triangularSolveMatrix(nb, nl, f, x, /*upper=*/true, false)};
        }
        // A^T = U^T L^T P^T: x = P L^-T U^-T b.
        x = triangularSolveMatrix(nb, nl, fT, x, /*upper=*/false, false);
        x = triangularSolveMatrix(nb, nl, fT, x, /*upper=*/true, true);
        return {permuteRows(nb, nl, x, piv, /*reverse=*/true)};
      });
  return left ? FailureOr<Value>(r[0]) : transposeMatrices(b, loc, r[0]);
}

FailureOr<SolveResult> mlprog::buildSolve(OpBuilder &b, Location loc, Value a,
                                          Value rhs, bool left) {
  FailureOr<RankedTensorType> at_ = squareMatrices(loc, a, "solve", "A");
  FailureOr<RankedTensorType> bt = staticFloat(loc, rhs, "solve", "B", 1);
  if (failed(at_) || failed(bt))
    return failure();
  // torch's vector case: B is [*, N] with A's batch dims, or 1-D.
  bool vector =
      bt->getRank() == 1 || (bt->getRank() == at_->getRank() - 1 &&
                             bt->getShape() == at_->getShape().drop_back());
  if (vector) {
    FailureOr<Value> u =
        buildUnsqueeze(b, loc, rhs, bt->getRank() - (left ? 0 : 1));
    if (failed(u))
      return failure();
    rhs = *u;
  }
  FailureOr<LUFactorization> f = buildLUFactor(b, loc, a);
  if (failed(f))
    return failure();
  FailureOr<Value> x =
      buildLUSolve(b, loc, f->lu, f->pivots, rhs, left, /*adjoint=*/false);
  if (failed(x))
    return failure();
  if (vector) {
    int64_t rank = cast<RankedTensorType>(x->getType()).getRank();
    x = buildSqueeze(b, loc, *x, {left ? rank - 1 : rank - 2});
    if (failed(x))
      return failure();
  }
  return SolveResult{*x, f->info};
}

FailureOr<SolveResult> mlprog::buildInverse(OpBuilder &b, Location loc,
                                            Value a) {
  FailureOr<RankedTensorType> t = squareMatrices(loc, a, "inv", "A");
  if (failed(t))
    return failure();
  int64_t n = t->getShape().back();
  Type et = t->getElementType();
  FailureOr<LUFactorization> f = buildLUFactor(b, loc, a);
  if (failed(f))
    return failure();
  Value eye = identity(b, loc, n, et);
  FailureOr<Value> x = buildLUSolve(b, loc, f->lu, f->pivots, eye,
                                    /*left=*/true, /*adjoint=*/false);
  if (failed(x))
    return failure();
  return SolveResult{*x, f->info};
}

FailureOr<CholeskyFactorization>
mlprog::buildCholesky(OpBuilder &b, Location loc, Value a, bool upper) {
  FailureOr<RankedTensorType> t = squareMatrices(loc, a, "cholesky", "A");
  if (failed(t))
    return failure();
  // U^T U = A reads A's upper triangle: factor A^T, whose lower one it is.
  if (upper) {
    FailureOr<Value> at_ = transposeMatrices(b, loc, a);
    if (failed(at_))
      return failure();
    a = *at_;
  }
  int64_t n = t->getShape().back();
  Type et = t->getElementType(), i32 = b.getI32Type();
  SmallVector<Value> r = forEachMatrix(
      b, loc, t->getShape().drop_back(2), a,
      {typeOf({n, n}, et), typeOf({}, i32)},
      [&](OpBuilder &nb, Location nl, ValueRange mats) -> SmallVector<Value> {
        Value m = mats[0];
        Value l0 =
            createFilled(nb, nl, {nb.getIndexAttr(n), nb.getIndexAttr(n)},
                         nb.getZeroAttr(et));
        Value info0 =
            arith::ConstantOp::create(nb, nl, nb.getI32IntegerAttr(0));
        SmallVector<Value> st = loop(
            nb, nl, cIndex(nb, nl, 0), cIndex(nb, nl, n), {l0, info0},
            [&](OpBuilder &jb, Location jl, Value j,
                ValueRange js) -> SmallVector<Value> {
              Value l = js[0];
              // init - sum_{k < j} L[row, k] L[j, k], L being `lm`.
              auto reduce = [&](OpBuilder &rb, Location rl, Value lm, Value row,
                                Value init) {
                return loop(rb, rl, cIndex(rb, rl, 0), j, init,
                            [&](OpBuilder &kb, Location kl, Value k,
                                ValueRange ks) -> SmallVector<Value> {
                              Value p = arith::MulFOp::create(
                                  kb, kl, at(kb, kl, lm, {row, k}),
                                  at(kb, kl, lm, {j, k}));
                              return {arith::SubFOp::create(kb, kl, ks[0], p)};
                            })[0];
              };
              Value s = reduce(jb, jl, l, j, at(jb, jl, m, {j, j}));
              Value bad =
                  arith::CmpFOp::create(jb, jl, arith::CmpFPredicate::ULE, s,
                                        createScalar(jb, jl, et, 0.0));
              Value noInfo = arith::CmpIOp::create(
                  jb, jl, arith::CmpIPredicate::eq, js[1], info0);
              Value info = arith::SelectOp::create(
                  jb, jl, arith::AndIOp::create(jb, jl, bad, noInfo),
                  arith::IndexCastOp::create(jb, jl, i32, addI(jb, jl, j, 1)),
                  js[1]);
              Value d = math::SqrtOp::create(jb, jl, s);
              l = put(jb, jl, d, l, {j, j});
              l = loop(jb, jl, addI(jb, jl, j, 1), cIndex(jb, jl, n), l,
                       [&](OpBuilder &ib, Location il, Value i,
                           ValueRange is) -> SmallVector<Value> {
                         Value v = arith::DivFOp::create(
                             ib, il,
                             reduce(ib, il, is[0], i, at(ib, il, m, {i, j})),
                             d);
                         return {put(ib, il, v, is[0], {i, j})};
                       })[0];
              return {l, info};
            });
        return {st[0], scalarTensor(nb, nl, st[1])};
      });
  Value factor = r[0];
  if (upper) {
    FailureOr<Value> ut = transposeMatrices(b, loc, factor);
    if (failed(ut))
      return failure();
    factor = *ut;
  }
  return CholeskyFactorization{factor, r[1]};
}

FailureOr<Value> mlprog::buildCholeskySolve(OpBuilder &b, Location loc,
                                            Value factor, Value rhs,
                                            bool upper) {
  FailureOr<SmallVector<int64_t>> batch =
      prepareSolve(b, loc, "cholesky_solve", factor, rhs, /*left=*/true);
  if (failed(batch))
    return failure();
  FailureOr<Value> ft = transposeMatrices(b, loc, factor);
  if (failed(ft))
    return failure();
  // A = L L^T: the lower factor and its transpose.
  Value lower = upper ? *ft : factor, lowerT = upper ? factor : *ft;
  auto bt = cast<RankedTensorType>(rhs.getType());
  return forEachMatrix(
      b, loc, *batch, {lower, lowerT, rhs},
      {typeOf(bt.getShape().take_back(2), bt.getElementType())},
      [&](OpBuilder &nb, Location nl, ValueRange mats) -> SmallVector<Value> {
        Value y = triangularSolveMatrix(nb, nl, mats[0], mats[2],
                                        /*upper=*/false, false);
        return {
            triangularSolveMatrix(nb, nl, mats[1], y, /*upper=*/true, false)};
      })[0];
}

FailureOr<std::pair<Value, Value>>
mlprog::buildSignLogDeterminant(OpBuilder &b, Location loc, Value a,
                                bool logDeterminant) {
  FailureOr<RankedTensorType> t = squareMatrices(loc, a, "slogdet", "A");
  if (failed(t))
    return failure();
  FailureOr<LUFactorization> f = buildLUFactor(b, loc, a);
  if (failed(f))
    return failure();
  int64_t n = t->getShape().back();
  Type et = t->getElementType();
  SmallVector<Value> r = forEachMatrix(
      b, loc, t->getShape().drop_back(2), {f->lu, f->pivots},
      {typeOf({}, et), typeOf({}, et)},
      [&](OpBuilder &nb, Location nl, ValueRange mats) -> SmallVector<Value> {
        Value zero = createScalar(nb, nl, et, 0.0);
        Value one = createScalar(nb, nl, et, 1.0);
        SmallVector<Value> st = loop(
            nb, nl, cIndex(nb, nl, 0), cIndex(nb, nl, n), {one, zero},
            [&](OpBuilder &lb, Location ll, Value j,
                ValueRange s) -> SmallVector<Value> {
              Value d = at(lb, ll, mats[0], {j, j});
              Value pos = arith::CmpFOp::create(
                  lb, ll, arith::CmpFPredicate::OGT, d, zero);
              Value neg = arith::CmpFOp::create(
                  lb, ll, arith::CmpFPredicate::OLT, d, zero);
              Value sd = arith::SelectOp::create(
                  lb, ll, pos, one,
                  arith::SelectOp::create(
                      lb, ll, neg, createScalar(lb, ll, et, -1.0), zero));
              Value swapped =
                  arith::CmpIOp::create(lb, ll, arith::CmpIPredicate::ne,
                                        pivotRow(lb, ll, mats[1], j), j);
              Value sign = arith::MulFOp::create(lb, ll, s[0], sd);
              sign = arith::SelectOp::create(
                  lb, ll, swapped, arith::NegFOp::create(lb, ll, sign), sign);
              Value logAbs = arith::AddFOp::create(
                  lb, ll, s[1],
                  math::LogOp::create(lb, ll, math::AbsFOp::create(lb, ll, d)));
              return {sign, logAbs};
            });
        Value sign = st[0], logAbs = st[1];
        if (logDeterminant) {
          Value negative = arith::CmpFOp::create(
              nb, nl, arith::CmpFPredicate::OLT, sign, zero);
          logAbs = arith::SelectOp::create(
              nb, nl, negative,
              createScalar(nb, nl, et,
                           std::numeric_limits<double>::quiet_NaN()),
              logAbs);
        }
        return {scalarTensor(nb, nl, sign), scalarTensor(nb, nl, logAbs)};
      });
  if (logDeterminant)
    return std::make_pair(Value(), r[1]);
  return std::make_pair(r[0], r[1]);
}

FailureOr<Value> mlprog::buildCholeskyInverse(OpBuilder &b, Location loc,
                                              Value factor, bool upper) {
  FailureOr<RankedTensorType> t =
      squareMatrices(loc, factor, "cholesky_inverse", "the factor");
  if (failed(t))
    return failure();
  return buildCholeskySolve(
      b, loc, factor,
      identity(b, loc, t->getShape().back(), t->getElementType()), upper);
}
