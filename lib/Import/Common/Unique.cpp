//===- Unique.cpp - Distinct slices of a tensor
//----------------------------===//
//
// buildUnique: the distinct slices of a tensor along an axis, with first
// indices, inverse indices and counts. The result length is known only at
// run time, so the builder is scalar loops over a [n, s] view of the input
// (n slices of s elements each), like NonZero and Compress.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/Statistics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

namespace {

/// Compares slices of the [n, s] tensor `x2`: -1, 0 or 1 (i32) as slice `i`
/// orders before, equal to or after slice `j`, deciding at the first
/// element that differs. Floats compare ordered, so a NaN is unequal to
/// everything and orders neither before nor after (treated as after).
struct SliceComparator {
  Value x2;
  Value s;
  bool isUnsigned;

  Value compare(OpBuilder &b, Location loc, Value i, Value j) const {
    Type i32 = b.getI32Type();
    Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
    Value minus = arith::ConstantIntOp::create(b, loc, i32, -1);
    Value plus = arith::ConstantIntOp::create(b, loc, i32, 1);
    return loop(
        b, loc, cIndex(b, loc, 0), s, zero,
        [&](OpBuilder &nb, Location nl, Value k,
            ValueRange args) -> SmallVector<Value> {
          Value a = tensor::ExtractOp::create(nb, nl, x2, {i, k});
          Value c = tensor::ExtractOp::create(nb, nl, x2, {j, k});
          Value lt, eq;
          if (isa<FloatType>(a.getType())) {
            lt = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OLT, a, c);
            eq = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ, a, c);
          } else {
            lt = arith::CmpIOp::create(nb, nl,
                                       isUnsigned ? arith::CmpIPredicate::ult
                                                  : arith::CmpIPredicate::slt,
                                       a, c);
            eq = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, a, c);
          }
          Value here = arith::SelectOp::create(
              nb, nl, lt, minus,
              arith::SelectOp::create(nb, nl, eq, zero, plus));
          Value undecided = arith::CmpIOp::create(
              nb, nl, arith::CmpIPredicate::eq, args[0], zero);
          return {arith::SelectOp::create(nb, nl, undecided, here, args[0])
                      .getResult()};
        })[0];
  }
};

/// An i32 comparison `v <pred> 0`.
Value cmpZero(OpBuilder &b, Location loc, arith::CmpIPredicate pred, Value v) {
  Value zero = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
  return arith::CmpIOp::create(b, loc, pred, v, zero);
}

} // namespace

FailureOr<UniqueResult> mlprog::buildUnique(OpBuilder &b, Location loc, Value x,
                                            std::optional<int64_t> axis,
                                            UniqueOrder order,
                                            bool isUnsigned) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "unique");
  if (failed(type))
    return failure();
  Type et = type->getElementType();
  if (!et.isIntOrFloat())
    return emitError(loc) << "unique: unsupported element type in " << *type;
  int64_t rank = type->getRank();

  // View the input as [n, s]: slice i is row i.
  SmallVector<int64_t> perm;
  Value x2;
  if (axis) {
    if (rank == 0 || *axis < -rank || *axis >= rank)
      return emitError(loc)
             << "unique: axis " << *axis << " out of range for rank " << rank;
    int64_t ax = (*axis + rank) % rank;
    perm.push_back(ax);
    for (int64_t d = 0; d < rank; ++d)
      if (d != ax)
        perm.push_back(d);
    FailureOr<Value> moved = buildTranspose(b, loc, x, perm);
    if (failed(moved))
      return failure();
    x2 = *moved;
    if (rank == 1) {
      x2 = insertUnitDim(b, loc, x2, 1);
    } else {
      FailureOr<Value> merged = buildCollapseDims(b, loc, x2, 1, rank - 1);
      if (failed(merged))
        return failure();
      x2 = *merged;
    }
  } else {
    if (rank == 0) {
      x2 = insertUnitDim(b, loc, x, 0);
    } else {
      FailureOr<Value> flat = buildCollapseDims(b, loc, x, 0, rank - 1);
      if (failed(flat))
        return failure();
      x2 = *flat;
    }
    x2 = insertUnitDim(b, loc, x2, 1);
  }

  IndexMath m{b, loc};
  Value n = tensor::DimOp::create(b, loc, x2, 0);
  Value s = tensor::DimOp::create(b, loc, x2, 1);
  Value zero = m.c(0);
  SliceComparator cmp{x2, s, isUnsigned};
  Type indexType = b.getIndexType();

  // Pass 1: first[i], the slice that stands for slice i's group, and
  // rank[i], the position of slice i's group in the result when slice i is
  // its group's first.
  Value firstInit = createEmpty(b, loc, {OpFoldResult(n)}, indexType);
  SmallVector<Value> pass1 = loop(
      b, loc, zero, n, ValueRange{firstInit, zero},
      [&](OpBuilder &nb, Location nl, Value i,
          ValueRange args) -> SmallVector<Value> {
        IndexMath nm{nb, nl};
        Value first;
        if (order == UniqueOrder::Consecutive) {
          Value hasPrev = nm.cmp(arith::CmpIPredicate::sgt, i, nm.c(0));
          Value prev = nm.select(hasPrev, nm.sub(i, nm.c(1)), nm.c(0));
          Value same =
              arith::AndIOp::create(nb, nl, hasPrev,
                                    cmpZero(nb, nl, arith::CmpIPredicate::eq,
                                            cmp.compare(nb, nl, i, prev)));
          Value prevFirst =
              tensor::ExtractOp::create(nb, nl, args[0], ValueRange{prev});
          first = nm.select(same, prevFirst, i);
        } else {
          // The earliest j <= i whose slice equals slice i.
          first = loop(nb, nl, nm.c(0), i, ValueRange{i},
                       [&](OpBuilder &lb, Location ll, Value j,
                           ValueRange acc) -> SmallVector<Value> {
                         IndexMath lm{lb, ll};
                         Value unset = lm.eq(acc[0], i);
                         Value equal = cmpZero(lb, ll, arith::CmpIPredicate::eq,
                                               cmp.compare(lb, ll, i, j));
                         Value take =
                             arith::AndIOp::create(lb, ll, unset, equal);
                         return {lm.select(take, j, acc[0])};
                       })[0];
        }
        Value isFirst = nm.eq(first, i);
        Value firsts =
            tensor::InsertOp::create(nb, nl, first, args[0], ValueRange{i});
        Value count = nm.select(isFirst, nm.add(args[1], nm.c(1)), args[1]);
        return {firsts, count};
      });
  Value firsts = pass1[0], numUnique = pass1[1];

  // rank[i] for the group heads: the number of heads before slice i (input
  // order) or the number of heads whose slice orders before slice i.
  Value rankInit = createEmpty(b, loc, {OpFoldResult(n)}, indexType);
  Value ranks = loop(
      b, loc, zero, n, ValueRange{rankInit, zero},
      [&](OpBuilder &nb, Location nl, Value i,
          ValueRange args) -> SmallVector<Value> {
        IndexMath nm{nb, nl};
        Value isHead =
            nm.eq(tensor::ExtractOp::create(nb, nl, firsts, ValueRange{i}), i);
        Value r = args[1];
        if (order == UniqueOrder::Sorted) {
          r = loop(
              nb, nl, nm.c(0), n, ValueRange{nm.c(0)},
              [&](OpBuilder &lb, Location ll, Value j,
                  ValueRange acc) -> SmallVector<Value> {
                IndexMath lm{lb, ll};
                Value head = lm.eq(
                    tensor::ExtractOp::create(lb, ll, firsts, ValueRange{j}),
                    j);
                Value before = cmpZero(lb, ll, arith::CmpIPredicate::slt,
                                       cmp.compare(lb, ll, j, i));
                Value counts = arith::AndIOp::create(lb, ll, head, before);
                return {lm.select(counts, lm.add(acc[0], lm.c(1)), acc[0])};
              })[0];
        }
        Value ranks =
            tensor::InsertOp::create(nb, nl, r, args[0], ValueRange{i});
        return {ranks, nm.select(isHead, nm.add(args[1], nm.c(1)), args[1])};
      })[0];

  // Pass 2: scatter the heads into the results, count every slice.
  Type i64 = b.getI64Type();
  Value values =
      createEmpty(b, loc, {OpFoldResult(numUnique), OpFoldResult(s)}, et);
  Value firstIdx = createEmpty(b, loc, {OpFoldResult(numUnique)}, i64);
  Value counts =
      createFilled(b, loc, {OpFoldResult(numUnique)}, b.getIntegerAttr(i64, 0));
  Value inverse = createEmpty(b, loc, {OpFoldResult(n)}, i64);
  SmallVector<Value> pass2 = loop(
      b, loc, zero, n, ValueRange{values, firstIdx, counts, inverse},
      [&](OpBuilder &nb, Location nl, Value i,
          ValueRange args) -> SmallVector<Value> {
        IndexMath nm{nb, nl};
        Value head = tensor::ExtractOp::create(nb, nl, firsts, ValueRange{i});
        Value r = tensor::ExtractOp::create(nb, nl, ranks, ValueRange{head});
        Value r64 = arith::IndexCastOp::create(nb, nl, i64, r);
        Value inv =
            tensor::InsertOp::create(nb, nl, r64, args[3], ValueRange{i});
        Value old = tensor::ExtractOp::create(nb, nl, args[2], ValueRange{r});
        Value bumped = arith::AddIOp::create(
            nb, nl, old, arith::ConstantIntOp::create(nb, nl, i64, 1));
        Value cnt =
            tensor::InsertOp::create(nb, nl, bumped, args[2], ValueRange{r});
        SmallVector<Value> heads = ifElse(
            nb, nl, nm.eq(head, i),
            [&](OpBuilder &tb, Location tl) -> SmallVector<Value> {
              IndexMath tm{tb, tl};
              SmallVector<OpFoldResult> offs = {i, tm.c(0)};
              SmallVector<OpFoldResult> sizes = {tb.getIndexAttr(1), s};
              SmallVector<OpFoldResult> strides(2, tb.getIndexAttr(1));
              Value row = tensor::ExtractSliceOp::create(tb, tl, x2, offs,
                                                         sizes, strides);
              SmallVector<OpFoldResult> dst = {r, tm.c(0)};
              Value vals = tensor::InsertSliceOp::create(tb, tl, row, args[0],
                                                         dst, sizes, strides);
              Value i64i = arith::IndexCastOp::create(tb, tl, i64, i);
              Value fi = tensor::InsertOp::create(tb, tl, i64i, args[1],
                                                  ValueRange{r});
              return {vals, fi};
            },
            [&](OpBuilder &, Location) -> SmallVector<Value> {
              return {args[0], args[1]};
            });
        return {heads[0], heads[1], cnt, inv};
      });

  UniqueResult result;
  result.firstIndices = pass2[1];
  result.counts = pass2[2];
  result.inverseIndices = pass2[3];
  Value vals = pass2[0];
  if (!axis) {
    result.values = dropUnitDim(b, loc, vals, 1);
    return result;
  }
  // [m, s] -> [m, moved dims...] -> the input's dim order.
  SmallVector<Value> sizes = {numUnique};
  SmallVector<int64_t> hint = {ShapedType::kDynamic};
  for (size_t k = 1; k < perm.size(); ++k) {
    sizes.push_back(tensor::DimOp::create(b, loc, x, perm[k]));
    hint.push_back(type->getDimSize(perm[k]));
  }
  vals = reshapeToExtents(b, loc, vals, sizes, hint);
  SmallVector<int64_t> inversePerm(perm.size());
  for (size_t k = 0; k < perm.size(); ++k)
    inversePerm[perm[k]] = k;
  FailureOr<Value> back = buildTranspose(b, loc, vals, inversePerm);
  if (failed(back))
    return failure();
  result.values = *back;
  return result;
}
