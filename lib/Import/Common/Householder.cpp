//===- Householder.cpp - QR factorization by Householder reflections ------===//
//
// geqrf, orgqr and ormqr as LAPACK defines them (dlarfg's reflector signs),
// one matrix at a time (MatrixLoops.h), unblocked.
//
//===----------------------------------------------------------------------===//

#include "MatrixLoops.h"
#include "Utils.h"
#include "mlprog/Import/Common/MatrixFactorization.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

namespace {

/// sum_{r > i} x[r, col] * y[r, c] + (the row-i term `head`).
Value tailDot(OpBuilder &b, Location loc, Value x, Value col, Value y, Value c,
              Value i, Value head) {
  int64_t m = cast<RankedTensorType>(x.getType()).getDimSize(0);
  return loop(b, loc, addI(b, loc, i, 1), cIndex(b, loc, m), head,
              [&](OpBuilder &nb, Location nl, Value r,
                  ValueRange s) -> SmallVector<Value> {
                Value p = arith::MulFOp::create(nb, nl, at(nb, nl, x, {r, col}),
                                                at(nb, nl, y, {r, c}));
                return {arith::AddFOp::create(nb, nl, s[0], p)};
              })[0];
}

/// Applies H_i = I - tau v v^T (v = [0.., 1, x[i+1:, i]]) to the columns
/// [c0, C) of `y` [M, C] (x and y may be the same matrix).
Value applyReflector(OpBuilder &b, Location loc, Value x, Value i, Value tau,
                     Value y, Value c0, bool sameMatrix) {
  auto t = cast<RankedTensorType>(y.getType());
  int64_t m = t.getDimSize(0), cols = t.getDimSize(1);
  return loop(
      b, loc, c0, cIndex(b, loc, cols), y,
      [&](OpBuilder &nb, Location nl, Value c,
          ValueRange st) -> SmallVector<Value> {
        Value cur = st[0];
        Value xs = sameMatrix ? cur : x;
        Value w = tailDot(nb, nl, xs, i, cur, c, i, at(nb, nl, cur, {i, c}));
        Value tw = arith::MulFOp::create(nb, nl, tau, w);
        cur = put(nb, nl,
                  arith::SubFOp::create(nb, nl, at(nb, nl, cur, {i, c}), tw),
                  cur, {i, c});
        return loop(nb, nl, addI(nb, nl, i, 1), cIndex(nb, nl, m), cur,
                    [&](OpBuilder &rb, Location rl, Value r,
                        ValueRange rs) -> SmallVector<Value> {
                      Value v = at(rb, rl, sameMatrix ? rs[0] : x, {r, i});
                      Value nv = arith::SubFOp::create(
                          rb, rl, at(rb, rl, rs[0], {r, c}),
                          arith::MulFOp::create(rb, rl, tw, v));
                      return {put(rb, rl, nv, rs[0], {r, c})};
                    });
      })[0];
}

/// geqrf of one [M, N] matrix: {a, tau [K]}.
SmallVector<Value> geqrfMatrix(OpBuilder &b, Location loc, Value a) {
  auto t = cast<RankedTensorType>(a.getType());
  int64_t m = t.getDimSize(0), n = t.getDimSize(1), k = std::min(m, n);
  Type et = t.getElementType();
  Value tau0 = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{k}, et);
  return loop(
      b, loc, cIndex(b, loc, 0), cIndex(b, loc, k), {a, tau0},
      [&](OpBuilder &nb, Location nl, Value i,
          ValueRange st) -> SmallVector<Value> {
        Value mat = st[0];
        Value zero = createScalar(nb, nl, et, 0.0);
        Value alpha = at(nb, nl, mat, {i, i});
        Value xnorm2 = tailDot(nb, nl, mat, i, mat, i, i, zero);
        Value trivial = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ,
                                              xnorm2, zero);
        SmallVector<Value> r = ifElse(
            nb, nl, trivial,
            [&](OpBuilder &, Location) -> SmallVector<Value> {
              return {mat, zero};
            },
            [&](OpBuilder &hb, Location hl) -> SmallVector<Value> {
              // beta = -sign(alpha) sqrt(alpha^2 + |x|^2),
              // tau = (beta - alpha) / beta, v = x / (alpha - beta).
              Value norm = math::SqrtOp::create(
                  hb, hl,
                  arith::AddFOp::create(
                      hb, hl, arith::MulFOp::create(hb, hl, alpha, alpha),
                      xnorm2));
              Value negative =
                  arith::CmpFOp::create(hb, hl, arith::CmpFPredicate::OLT,
                                        alpha, createScalar(hb, hl, et, 0.0));
              Value beta = arith::SelectOp::create(
                  hb, hl, negative, norm, arith::NegFOp::create(hb, hl, norm));
              Value tau = arith::DivFOp::create(
                  hb, hl, arith::SubFOp::create(hb, hl, beta, alpha), beta);
              Value scale = arith::DivFOp::create(
                  hb, hl, createScalar(hb, hl, et, 1.0),
                  arith::SubFOp::create(hb, hl, alpha, beta));
              Value v = loop(hb, hl, addI(hb, hl, i, 1), cIndex(hb, hl, m), mat,
                             [&](OpBuilder &rb, Location rl, Value row,
                                 ValueRange rs) -> SmallVector<Value> {
                               Value x = arith::MulFOp::create(
                                   rb, rl, at(rb, rl, rs[0], {row, i}), scale);
                               return {put(rb, rl, x, rs[0], {row, i})};
                             })[0];
              v = put(hb, hl, beta, v, {i, i});
              // The trailing columns: H_i applied from the left.
              v = applyReflector(hb, hl, v, i, tau, v, addI(hb, hl, i, 1),
                                 /*sameMatrix=*/true);
              return {v, tau};
            });
        return {r[0], put(nb, nl, r[1], st[1], {i})};
      });
}

/// H_0 ... H_{K-1} C (`transpose`: H_{K-1} ... H_0 C) for one matrix of
/// reflectors `x` [M, K'], `tau` [K] and `c` [M, R].
Value multiplyMatrix(OpBuilder &b, Location loc, Value x, Value tau, Value c,
                     bool transpose) {
  int64_t k = cast<RankedTensorType>(tau.getType()).getDimSize(0);
  return loop(b, loc, cIndex(b, loc, 0), cIndex(b, loc, k), c,
              [&](OpBuilder &nb, Location nl, Value t,
                  ValueRange st) -> SmallVector<Value> {
                // Q C applies H_{K-1} first; Q^T C applies H_0 first.
                Value i = transpose ? t
                                    : arith::SubIOp::create(
                                          nb, nl, cIndex(nb, nl, k - 1), t)
                                          .getResult();
                return {applyReflector(nb, nl, x, i, at(nb, nl, tau, {i}),
                                       st[0], cIndex(nb, nl, 0),
                                       /*sameMatrix=*/false)};
              })[0];
}

/// The first `cols` columns of the [M, M] identity, [M, cols].
Value identityColumns(OpBuilder &b, Location loc, int64_t m, int64_t cols,
                      Type et) {
  Value e = createFilled(b, loc, {b.getIndexAttr(m), b.getIndexAttr(cols)},
                         b.getZeroAttr(et));
  return loop(
      b, loc, cIndex(b, loc, 0), cIndex(b, loc, std::min(m, cols)), e,
      [&](OpBuilder &nb, Location nl, Value i,
          ValueRange s) -> SmallVector<Value> {
        return {put(nb, nl, createScalar(nb, nl, et, 1.0), s[0], {i, i})};
      })[0];
}

/// Checks that `tau` is [batch, K] of `et` with K <= maxK.
LogicalResult checkTau(Location loc, StringRef op, Value tau,
                       ArrayRef<int64_t> batch, int64_t maxK, Type et) {
  auto t = dyn_cast<RankedTensorType>(tau.getType());
  if (!t || !t.hasStaticShape() || t.getElementType() != et ||
      t.getRank() != static_cast<int64_t>(batch.size()) + 1 ||
      t.getShape().drop_back() != batch || t.getShape().back() > maxK)
    return emitError(loc) << op << ": tau must be " << et << " of shape "
                          << shapeText(batch) << " + [K <= " << maxK
                          << "], got " << tau.getType();
  return success();
}

} // namespace

FailureOr<HouseholderQR> mlprog::buildHouseholderQR(OpBuilder &b, Location loc,
                                                    Value a) {
  FailureOr<RankedTensorType> t = staticFloat(loc, a, "geqrf", "A");
  if (failed(t))
    return failure();
  ArrayRef<int64_t> shape = t->getShape();
  int64_t m = shape[shape.size() - 2], n = shape.back();
  SmallVector<Value> r = forEachMatrix(
      b, loc, shape.drop_back(2), a,
      {typeOf({m, n}, t->getElementType()),
       typeOf({std::min(m, n)}, t->getElementType())},
      [&](OpBuilder &nb, Location nl, ValueRange mats) -> SmallVector<Value> {
        return geqrfMatrix(nb, nl, mats[0]);
      });
  return HouseholderQR{r[0], r[1]};
}

FailureOr<Value> mlprog::buildHouseholderMultiply(OpBuilder &b, Location loc,
                                                  Value reflectors, Value tau,
                                                  Value other, bool left,
                                                  bool transpose) {
  FailureOr<RankedTensorType> xt =
      staticFloat(loc, reflectors, "ormqr", "the reflectors");
  FailureOr<RankedTensorType> ct = staticFloat(loc, other, "ormqr", "C");
  if (failed(xt) || failed(ct))
    return failure();
  ArrayRef<int64_t> shape = xt->getShape();
  ArrayRef<int64_t> batch = shape.drop_back(2);
  int64_t m = shape[shape.size() - 2];
  if (failed(checkTau(loc, "ormqr", tau, batch, std::min(m, shape.back()),
                      xt->getElementType())))
    return failure();
  int64_t cm = left ? ct->getDimSize(ct->getRank() - 2) : ct->getShape().back();
  if (ct->getShape().drop_back(2) != batch || cm != m ||
      ct->getElementType() != xt->getElementType())
    return emitError(loc) << "ormqr: C " << *ct << " does not fit reflectors "
                          << *xt;
  // C Q = (Q^T C^T)^T and C Q^T = (Q C^T)^T.
  if (!left) {
    FailureOr<Value> c = transposeMatrices(b, loc, other);
    if (failed(c))
      return failure();
    other = *c;
    transpose = !transpose;
  }
  auto ot = cast<RankedTensorType>(other.getType());
  Value r = forEachMatrix(
      b, loc, batch, {reflectors, tau, other},
      {typeOf(ot.getShape().take_back(2), ot.getElementType())},
      [&](OpBuilder &nb, Location nl, ValueRange mats) -> SmallVector<Value> {
        return {multiplyMatrix(nb, nl, mats[0], mats[1], mats[2], transpose)};
      })[0];
  return left ? FailureOr<Value>(r) : transposeMatrices(b, loc, r);
}

FailureOr<Value> mlprog::buildHouseholderProduct(OpBuilder &b, Location loc,
                                                 Value reflectors, Value tau) {
  FailureOr<RankedTensorType> xt =
      staticFloat(loc, reflectors, "householder_product", "the reflectors");
  if (failed(xt))
    return failure();
  ArrayRef<int64_t> shape = xt->getShape();
  int64_t m = shape[shape.size() - 2], n = shape.back();
  Type et = xt->getElementType();
  if (m < n)
    return emitError(loc) << "householder_product: the reflectors " << *xt
                          << " have more columns than rows";
  if (failed(
          checkTau(loc, "householder_product", tau, shape.drop_back(2), n, et)))
    return failure();
  Value eye = identityColumns(b, loc, m, n, et);
  return forEachMatrix(
      b, loc, shape.drop_back(2), {reflectors, tau}, {typeOf({m, n}, et)},
      [&](OpBuilder &nb, Location nl, ValueRange mats) -> SmallVector<Value> {
        return {multiplyMatrix(nb, nl, mats[0], mats[1], eye,
                               /*transpose=*/false)};
      })[0];
}

FailureOr<std::pair<Value, Value>> mlprog::buildQR(OpBuilder &b, Location loc,
                                                   Value a, QRMode mode) {
  FailureOr<HouseholderQR> f = buildHouseholderQR(b, loc, a);
  if (failed(f))
    return failure();
  auto t = cast<RankedTensorType>(f->a.getType());
  ArrayRef<int64_t> shape = t.getShape();
  int64_t m = shape[shape.size() - 2], n = shape.back(), k = std::min(m, n);
  Type et = t.getElementType();
  int64_t qCols = mode == QRMode::Complete ? m : k;
  int64_t rRows = mode == QRMode::Complete ? m : k;
  Value eye = identityColumns(b, loc, m, qCols, et);
  SmallVector<RankedTensorType> types{typeOf({rRows, n}, et)};
  if (mode != QRMode::R)
    types.push_back(typeOf({m, qCols}, et));
  SmallVector<Value> r = forEachMatrix(
      b, loc, shape.drop_back(2), {f->a, f->tau}, types,
      [&](OpBuilder &nb, Location nl, ValueRange mats) -> SmallVector<Value> {
        // R: the upper triangle of the first rRows rows.
        Value init =
            tensor::EmptyOp::create(nb, nl, ArrayRef<int64_t>{rRows, n}, et);
        Value zero = createScalar(nb, nl, et, 0.0);
        Value rm =
            loop(nb, nl, cIndex(nb, nl, 0), cIndex(nb, nl, rRows), init,
                 [&](OpBuilder &ib, Location il, Value i, ValueRange is) {
                   return loop(ib, il, cIndex(ib, il, 0), cIndex(ib, il, n), is,
                               [&](OpBuilder &jb, Location jl, Value j,
                                   ValueRange js) -> SmallVector<Value> {
                                 Value upper = arith::CmpIOp::create(
                                     jb, jl, arith::CmpIPredicate::sle, i, j);
                                 Value v = arith::SelectOp::create(
                                     jb, jl, upper, at(jb, jl, mats[0], {i, j}),
                                     zero);
                                 return {put(jb, jl, v, js[0], {i, j})};
                               });
                 })[0];
        SmallVector<Value> out{rm};
        if (mode != QRMode::R)
          out.push_back(multiplyMatrix(nb, nl, mats[0], mats[1], eye,
                                       /*transpose=*/false));
        return out;
      });
  return std::make_pair(mode == QRMode::R ? Value() : r[1], r[0]);
}
