//===- LinearAlgebra.cpp - Matrix factorizations --------------------------===//

#include "mlprog/Import/Common/LinearAlgebra.h"
#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

/// Determinant of the square matrix `a` [M, M] by Gaussian elimination
/// with partial pivoting, carried out on a copy threaded through the loops.
static Value luDeterminant(OpBuilder &b, Location loc, Value a, Value m) {
  Type et = cast<RankedTensorType>(a.getType()).getElementType();
  Value one = cIndex(b, loc, 1);
  Value zeroF = createScalar(b, loc, et, 0.0);
  auto at = [](OpBuilder &nb, Location nl, Value t, Value i, Value j) {
    return tensor::ExtractOp::create(nb, nl, t, ValueRange{i, j}).getResult();
  };
  return loop(
      b, loc, cIndex(b, loc, 0), m,
      ValueRange{a, createScalar(b, loc, et, 1.0)},
      [&](OpBuilder &nb, Location nl, Value k,
          ValueRange st) -> SmallVector<Value> {
        Value mat = st[0], det = st[1];
        // Pivot: the row p >= k with the largest |a[p, k]| (first on ties).
        Value p = loop(
            nb, nl, k, m, ValueRange{createScalar(nb, nl, et, -1.0), k},
            [&](OpBuilder &lb, Location ll, Value i,
                ValueRange bs) -> SmallVector<Value> {
              Value v = math::AbsFOp::create(lb, ll, at(lb, ll, mat, i, k));
              Value gt = arith::CmpFOp::create(
                  lb, ll, arith::CmpFPredicate::OGT, v, bs[0]);
              return {
                  arith::SelectOp::create(lb, ll, gt, v, bs[0]).getResult(),
                  arith::SelectOp::create(lb, ll, gt, i, bs[1]).getResult()};
            })[1];
        Value swap =
            arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ne, p, k);
        SmallVector<Value> swapped = ifElse(
            nb, nl, swap,
            [&](OpBuilder &sb, Location sl) -> SmallVector<Value> {
              Value t = loop(sb, sl, cIndex(sb, sl, 0), m, mat,
                             [&](OpBuilder &cb, Location cl, Value j,
                                 ValueRange cs) -> SmallVector<Value> {
                               Value rowK = at(cb, cl, cs[0], k, j);
                               Value rowP = at(cb, cl, cs[0], p, j);
                               Value t1 = tensor::InsertOp::create(
                                   cb, cl, rowP, cs[0], ValueRange{k, j});
                               return {tensor::InsertOp::create(
                                           cb, cl, rowK, t1, ValueRange{p, j})
                                           .getResult()};
                             })[0];
              return {t, arith::NegFOp::create(sb, sl, det).getResult()};
            },
            [&](OpBuilder &, Location) -> SmallVector<Value> {
              return {mat, det};
            });
        mat = swapped[0];
        Value pivot = at(nb, nl, mat, k, k);
        det = arith::MulFOp::create(nb, nl, swapped[1], pivot);
        // Eliminate below the pivot unless the column is all zero (then
        // det is already 0 and the division would make NaNs).
        Value nonZero = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::UNE,
                                              pivot, zeroF);
        Value next = arith::AddIOp::create(nb, nl, k, one);
        Value reduced = ifElse(
            nb, nl, nonZero,
            [&](OpBuilder &eb, Location el) -> SmallVector<Value> {
              return loop(
                  eb, el, next, m, mat,
                  [&](OpBuilder &rb, Location rl, Value i,
                      ValueRange rs) -> SmallVector<Value> {
                    Value f = arith::DivFOp::create(
                        rb, rl, at(rb, rl, rs[0], i, k), pivot);
                    return loop(
                        rb, rl, next, m, rs[0],
                        [&](OpBuilder &cb, Location cl, Value j,
                            ValueRange cs) -> SmallVector<Value> {
                          Value v = arith::SubFOp::create(
                              cb, cl, at(cb, cl, cs[0], i, j),
                              arith::MulFOp::create(cb, cl, f,
                                                    at(cb, cl, cs[0], k, j)));
                          return {tensor::InsertOp::create(cb, cl, v, cs[0],
                                                           ValueRange{i, j})
                                      .getResult()};
                        });
                  });
            },
            [&](OpBuilder &, Location) -> SmallVector<Value> {
              return {mat};
            })[0];
        return {reduced, det};
      })[1];
}

FailureOr<Value> mlprog::buildDeterminant(OpBuilder &b, Location loc, Value x) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "det");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  Type et = type->getElementType();
  if (rank < 2 || !isa<FloatType>(et))
    return emitError(loc) << "det: expected a float tensor of rank >= 2, got "
                          << *type;
  int64_t m = type->getDimSize(rank - 1), m2 = type->getDimSize(rank - 2);
  if (!ShapedType::isDynamic(m) && !ShapedType::isDynamic(m2) && m != m2)
    return emitError(loc) << "det: matrices of " << *type << " are not square";
  int64_t batch = rank - 2;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  Value init = createEmpty(b, loc, ArrayRef(sizes).take_front(batch), et);
  OpFoldResult mSize = sizes[rank - 1];
  Value mv = getValueOrCreateConstantIndexOp(b, loc, mSize);
  auto matType = RankedTensorType::get({m, m}, et);
  SmallVector<Value> ubs = getValueOrCreateConstantIndexOp(
      b, loc, ArrayRef(sizes).take_front(batch));
  Value zero = cIndex(b, loc, 0), one = cIndex(b, loc, 1);
  SmallVector<Value> lbs(batch, zero), steps(batch, one);
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, init,
      [&](OpBuilder &nb, Location nl, ValueRange ivs,
          ValueRange args) -> scf::ValueVector {
        SmallVector<OpFoldResult> offsets(getAsOpFoldResult(ivs));
        offsets.append(2, nb.getIndexAttr(0));
        SmallVector<OpFoldResult> slab(batch, nb.getIndexAttr(1));
        slab.push_back(mSize);
        slab.push_back(mSize);
        SmallVector<OpFoldResult> strides(rank, nb.getIndexAttr(1));
        Value mat = tensor::ExtractSliceOp::create(nb, nl, matType, x, offsets,
                                                   slab, strides);
        Value det = luDeterminant(nb, nl, mat, mv);
        return {
            tensor::InsertOp::create(nb, nl, det, args[0], ivs).getResult()};
      });
  return nest.results[0];
}
