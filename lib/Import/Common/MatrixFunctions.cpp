//===- MatrixFunctions.cpp - tensorinv, tensorsolve, matrix_exp, power ----===//
//
// Functions of matrices built on the factorizations: the inverse and solve
// of tensors viewed as matrices, the matrix exponential (per matrix in
// f64, MatrixLoops.h) and integer matrix powers.
//
//===----------------------------------------------------------------------===//

#include "MatrixLoops.h"
#include "Utils.h"
#include "mlprog/Import/Common/Creation.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/LinearAlgebra.h"
#include "mlprog/Import/Common/MatrixFactorization.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

FailureOr<Value> mlprog::buildTensorInverse(OpBuilder &b, Location loc, Value a,
                                            int64_t ind) {
  FailureOr<RankedTensorType> t = staticFloat(loc, a, "tensorinv", "A", 1);
  if (failed(t))
    return failure();
  ArrayRef<int64_t> shape = t->getShape();
  if (ind <= 0 || ind > t->getRank())
    return emitError(loc) << "tensorinv: ind " << ind << " out of range for "
                          << *t;
  int64_t rows = 1, cols = 1;
  for (int64_t e : shape.take_front(ind))
    rows *= e;
  for (int64_t e : shape.drop_front(ind))
    cols *= e;
  if (rows != cols)
    return emitError(loc) << "tensorinv: the product of the first " << ind
                          << " dims of " << *t
                          << " must equal the product of the others";
  FailureOr<Value> m = buildReshape(b, loc, a, {rows, cols});
  if (failed(m))
    return failure();
  FailureOr<SolveResult> inv = buildInverse(b, loc, *m);
  if (failed(inv))
    return failure();
  SmallVector<int64_t> out(shape.drop_front(ind));
  llvm::append_range(out, shape.take_front(ind));
  return buildReshape(b, loc, inv->x, out);
}

FailureOr<Value> mlprog::buildTensorSolve(OpBuilder &b, Location loc, Value a,
                                          Value rhs, ArrayRef<int64_t> dims) {
  FailureOr<RankedTensorType> t = staticFloat(loc, a, "tensorsolve", "A", 1);
  FailureOr<RankedTensorType> bt = staticFloat(loc, rhs, "tensorsolve", "B", 0);
  if (failed(t) || failed(bt))
    return failure();
  int64_t rank = t->getRank();
  if (!dims.empty()) {
    SmallVector<int64_t> perm;
    for (int64_t d = 0; d < rank; ++d)
      if (!llvm::is_contained(dims, d))
        perm.push_back(d);
    for (int64_t d : dims) {
      if (d < 0 || d >= rank)
        return emitError(loc)
               << "tensorsolve: dim " << d << " out of range for " << *t;
      perm.push_back(d);
    }
    if (static_cast<int64_t>(perm.size()) != rank)
      return emitError(loc) << "tensorsolve: repeated dims";
    FailureOr<Value> p = buildTranspose(b, loc, a, perm);
    if (failed(p))
      return failure();
    a = *p;
  }
  ArrayRef<int64_t> shape = cast<RankedTensorType>(a.getType()).getShape();
  // torch's rule: A's leading B.ndim dims hold as many elements as B, the
  // others are X's shape.
  int64_t nb = bt->getRank();
  int64_t rows = bt->getNumElements(), lead = 1, cols = 1;
  for (int64_t e : shape.take_front(std::min(nb, rank)))
    lead *= e;
  for (int64_t e : shape.drop_front(std::min(nb, rank)))
    cols *= e;
  if (nb > rank || lead != rows || rows != cols)
    return emitError(loc) << "tensorsolve: A " << a.getType()
                          << " does not give a square system for B " << *bt;
  FailureOr<Value> m = buildReshape(b, loc, a, {rows, cols});
  FailureOr<Value> v = buildReshape(b, loc, rhs, {rows});
  if (failed(m) || failed(v))
    return failure();
  FailureOr<SolveResult> x = buildSolve(b, loc, *m, *v, /*left=*/true);
  if (failed(x))
    return failure();
  return buildReshape(b, loc, x->x, shape.drop_front(nb));
}

FailureOr<Value> mlprog::buildMatrixExponential(OpBuilder &b, Location loc,
                                                Value a) {
  FailureOr<RankedTensorType> t = squareMatrices(loc, a, "matrix_exp", "A");
  if (failed(t))
    return failure();
  int64_t n = t->getShape().back();
  Type f64 = b.getF64Type();
  FailureOr<Value> x = buildConvertElementType(b, loc, a, f64);
  if (failed(x))
    return failure();
  // C = X Y for [N, N] matrices.
  auto matmul = [&](OpBuilder &mb, Location ml, Value x, Value y) {
    Value init = tensor::EmptyOp::create(mb, ml, ArrayRef<int64_t>{n, n}, f64);
    return loop(mb, ml, cIndex(mb, ml, 0), cIndex(mb, ml, n), init,
                [&](OpBuilder &ib, Location il, Value i, ValueRange is) {
                  return loop(
                      ib, il, cIndex(ib, il, 0), cIndex(ib, il, n), is,
                      [&](OpBuilder &jb, Location jl, Value j,
                          ValueRange js) -> SmallVector<Value> {
                        Value s = loop(
                            jb, jl, cIndex(jb, jl, 0), cIndex(jb, jl, n),
                            createScalar(jb, jl, f64, 0.0),
                            [&](OpBuilder &kb, Location kl, Value k,
                                ValueRange acc) -> SmallVector<Value> {
                              Value p = arith::MulFOp::create(
                                  kb, kl, at(kb, kl, x, {i, k}),
                                  at(kb, kl, y, {k, j}));
                              return {arith::AddFOp::create(kb, kl, acc[0], p)};
                            })[0];
                        return {put(jb, jl, s, js[0], {i, j})};
                      });
                })[0];
  };
  Value r = forEachMatrix(
      b, loc, t->getShape().drop_back(2), *x, {typeOf({n, n}, f64)},
      [&](OpBuilder &nb, Location nl, ValueRange mats) -> SmallVector<Value> {
        Value m = mats[0];
        // ||A||_1, then s = max(0, ceil(log2 ||A||_1) + 1): ||A / 2^s|| <= 1/2.
        Value norm = loop(
            nb, nl, cIndex(nb, nl, 0), cIndex(nb, nl, n),
            createScalar(nb, nl, f64, 0.0),
            [&](OpBuilder &cb, Location cl, Value j,
                ValueRange acc) -> SmallVector<Value> {
              Value col = loop(
                  cb, cl, cIndex(cb, cl, 0), cIndex(cb, cl, n),
                  createScalar(cb, cl, f64, 0.0),
                  [&](OpBuilder &ib, Location il, Value i,
                      ValueRange s) -> SmallVector<Value> {
                    return {arith::AddFOp::create(
                        ib, il, s[0],
                        math::AbsFOp::create(ib, il, at(ib, il, m, {i, j})))};
                  })[0];
              return {arith::MaximumFOp::create(cb, cl, acc[0], col)};
            })[0];
        Value lg =
            math::CeilOp::create(nb, nl, math::Log2Op::create(nb, nl, norm));
        Value sf = arith::MaximumFOp::create(
            nb, nl, createScalar(nb, nl, f64, 0.0),
            arith::AddFOp::create(nb, nl, lg, createScalar(nb, nl, f64, 1.0)));
        // A zero or non-finite norm: no scaling (log2 gives -inf or NaN).
        Value finite =
            arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OLT, sf,
                                  createScalar(nb, nl, f64, 1024));
        sf = arith::SelectOp::create(nb, nl, finite, sf,
                                     createScalar(nb, nl, f64, 0.0));
        Value scale =
            math::Exp2Op::create(nb, nl, arith::NegFOp::create(nb, nl, sf));
        Value steps = arith::IndexCastOp::create(
            nb, nl, nb.getIndexType(),
            arith::FPToSIOp::create(nb, nl, nb.getI64Type(), sf));
        Value xs = loop(
            nb, nl, cIndex(nb, nl, 0), cIndex(nb, nl, n * n), m,
            [&](OpBuilder &ib, Location il, Value k,
                ValueRange s) -> SmallVector<Value> {
              Value i = arith::DivUIOp::create(ib, il, k, cIndex(ib, il, n));
              Value j = arith::RemUIOp::create(ib, il, k, cIndex(ib, il, n));
              Value v = arith::MulFOp::create(ib, il, at(ib, il, s[0], {i, j}),
                                              scale);
              return {put(ib, il, v, s[0], {i, j})};
            })[0];
        // Horner: E = I + X/1 (I + X/2 (I + ... (I + X/18))).
        Value eye = identity(nb, nl, n, f64);
        Value e = eye;
        for (int64_t k = 18; k >= 1; --k) {
          Value p = matmul(nb, nl, xs, e);
          Value inv = createScalar(nb, nl, f64, 1.0 / static_cast<double>(k));
          e = loop(nb, nl, cIndex(nb, nl, 0), cIndex(nb, nl, n * n), p,
                   [&](OpBuilder &ib, Location il, Value q,
                       ValueRange s) -> SmallVector<Value> {
                     Value i =
                         arith::DivUIOp::create(ib, il, q, cIndex(ib, il, n));
                     Value j =
                         arith::RemUIOp::create(ib, il, q, cIndex(ib, il, n));
                     Value v = arith::AddFOp::create(
                         ib, il, at(ib, il, eye, {i, j}),
                         arith::MulFOp::create(ib, il, at(ib, il, s[0], {i, j}),
                                               inv));
                     return {put(ib, il, v, s[0], {i, j})};
                   })[0];
        }
        // Squaring s times.
        return {loop(nb, nl, cIndex(nb, nl, 0), steps, e,
                     [&](OpBuilder &sb, Location sl, Value,
                         ValueRange s) -> SmallVector<Value> {
                       return {matmul(sb, sl, s[0], s[0])};
                     })[0]};
      })[0];
  return buildConvertElementType(b, loc, r, t->getElementType());
}

FailureOr<Value> mlprog::buildMatrixPower(OpBuilder &b, Location loc, Value x,
                                          int64_t k) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  int64_t r = type ? type.getRank() : 0;
  if (!type || r < 2 || type.getDimSize(r - 1) != type.getDimSize(r - 2))
    return emitError(loc) << "linalg_matrix_power needs square matrices, got "
                          << x.getType();
  // A^-n = (A^-1)^n, as aten computes it.
  if (k < 0) {
    FailureOr<SolveResult> inv = buildInverse(b, loc, x);
    if (failed(inv))
      return failure();
    x = inv->x;
    k = -k;
  }
  if (k == 0) {
    if (!type.hasStaticShape())
      return emitError(loc)
             << "unsupported linalg_matrix_power 0 of a dynamic shape";
    int64_t m = type.getDimSize(r - 1);
    Type et = type.getElementType();
    SmallVector<Attribute> eye;
    for (int64_t i = 0; i < type.getNumElements(); ++i) {
      bool one = (i % (m * m)) % (m + 1) == 0;
      eye.push_back(isa<FloatType>(et) ? Attribute(b.getFloatAttr(et, one))
                                       : Attribute(b.getIntegerAttr(et, one)));
    }
    return buildConstant(b, loc, DenseElementsAttr::get(type, eye));
  }
  // aten's binary decomposition of k: the same products in the same order
  // (k <= 3 directly).
  if (k == 1)
    return x;
  if (k <= 3) {
    FailureOr<Value> sq = buildMatMul(b, loc, x, x);
    if (failed(sq) || k == 2)
      return sq;
    return buildMatMul(b, loc, *sq, x);
  }
  Value z, result;
  for (int64_t e = k; e > 0; e /= 2) {
    if (!z) {
      z = x;
    } else {
      FailureOr<Value> zz = buildMatMul(b, loc, z, z);
      if (failed(zz))
        return failure();
      z = *zz;
    }
    if (e % 2 == 0)
      continue;
    if (!result) {
      result = z;
      continue;
    }
    FailureOr<Value> rz = buildMatMul(b, loc, result, z);
    if (failed(rz))
      return failure();
    result = *rz;
  }
  return result;
}
