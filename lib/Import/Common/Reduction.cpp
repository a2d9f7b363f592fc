//===- Reduction.cpp - Reductions, softmax, scans and top-k ---------------===//

#include "mlprog/Import/Common/Reduction.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <map>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

/// Marks `axes` (each in [-rank, rank), distinct; empty: every dim when
/// `emptyMeansAll`, else none) of a rank-`rank` tensor; fails on bad axes.
static FailureOr<SmallVector<bool>> markReduced(Location loc, int64_t rank,
                                                ArrayRef<int64_t> axes,
                                                bool emptyMeansAll,
                                                StringRef what) {
  SmallVector<bool> reduced(rank, emptyMeansAll && axes.empty());
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank || reduced[(axis + rank) % rank])
      return emitError(loc)
             << what << ": invalid axis " << axis << " for rank " << rank;
    reduced[(axis + rank) % rank] = true;
  }
  return reduced;
}

/// Divides every element of the reduction `r` of `x` over the `reduced` dims
/// by the number of reduced elements minus `correction`, at least 0 (read at
/// run time when dynamic).
static Value divideByCount(OpBuilder &b, Location loc, Value x, Value r,
                           ArrayRef<bool> reduced, double correction) {
  auto rt = cast<RankedTensorType>(r.getType());
  Type et = rt.getElementType();
  Value count = arith::ConstantIndexOp::create(b, loc, 1);
  for (auto [d, isReduced] : llvm::enumerate(reduced))
    if (isReduced)
      count = arith::MulIOp::create(b, loc, count,
                                    tensor::DimOp::create(b, loc, x, d));
  Value countInt = arith::IndexCastOp::create(b, loc, b.getI64Type(), count);
  Value countF = arith::SIToFPOp::create(b, loc, et, countInt);
  if (correction != 0)
    countF = arith::MaximumFOp::create(
        b, loc,
        arith::SubFOp::create(b, loc, countF,
                              createScalar(b, loc, et, correction)),
        createScalar(b, loc, et, 0.0));
  Value init = createEmpty(b, loc, tensor::getMixedSizes(b, loc, r), et);
  unsigned rr = rt.getRank();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rr, b.getContext());
  return linalg::GenericOp::create(
             b, loc, rt, r, init, SmallVector<AffineMap>{id, id},
             parallelIterators(rr),
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(
                   nb, nl,
                   arith::DivFOp::create(nb, nl, args[0], countF).getResult());
             })
      .getResult(0);
}

/// Re-inserts the reduced dims as extent 1.
static Value keepReducedDims(OpBuilder &b, Location loc, Value r,
                             ArrayRef<bool> reduced) {
  for (auto [d, isReduced] : llvm::enumerate(reduced))
    if (isReduced)
      r = insertUnitDim(b, loc, r, d);
  return r;
}

/// Indexing map from the loops of `x` to `x` without the `reduced` dims.
static AffineMap keptDimsMap(MLIRContext *ctx, ArrayRef<bool> reduced) {
  SmallVector<AffineExpr> exprs;
  for (auto [d, r] : llvm::enumerate(reduced))
    if (!r)
      exprs.push_back(getAffineDimExpr(d, ctx));
  return AffineMap::get(reduced.size(), 0, exprs, ctx);
}

/// Reduces `x` over the `reduced` dims, starting from `init` and combining
/// with `combine(element, accumulator)`.
static Value
reduce(OpBuilder &b, Location loc, Value x, ArrayRef<bool> reduced,
       TypedAttr init,
       function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  SmallVector<OpFoldResult> sizes;
  for (auto [d, size] : llvm::enumerate(tensor::getMixedSizes(b, loc, x)))
    if (!reduced[d])
      sizes.push_back(size);
  Value acc = createFilled(b, loc, sizes, init);
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(reduced.size(), ctx),
      keptDimsMap(ctx, reduced)};
  SmallVector<utils::IteratorType> iterators;
  for (bool r : reduced)
    iterators.push_back(r ? utils::IteratorType::reduction
                          : utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, acc.getType(), x, acc, maps, iterators,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl,
                                       combine(nb, nl, args[0], args[1]));
             })
      .getResult(0);
}

/// Elementwise `f(x, r)` where `r` is a reduction of `x` broadcast back.
static Value
combineWithReduced(OpBuilder &b, Location loc, Value x, Value r,
                   ArrayRef<bool> reduced,
                   function_ref<Value(OpBuilder &, Location, Value, Value)> f) {
  MLIRContext *ctx = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(reduced.size(), ctx);
  SmallVector<AffineMap> maps = {identity, keptDimsMap(ctx, reduced), identity};
  auto type = cast<RankedTensorType>(x.getType());
  Value init = createEmpty(b, loc, tensor::getMixedSizes(b, loc, x),
                           type.getElementType());
  return linalg::GenericOp::create(
             b, loc, type, ValueRange{x, r}, init, maps,
             parallelIterators(reduced.size()),
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl, f(nb, nl, args[0], args[1]));
             })
      .getResult(0);
}

FailureOr<Value> mlprog::buildSoftmax(OpBuilder &b, Location loc, Value x,
                                      ArrayRef<int64_t> axes) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || !isa<FloatType>(type.getElementType()))
    return emitError(loc) << "softmax needs a float tensor, got "
                          << x.getType();
  FailureOr<SmallVector<bool>> marked = markReduced(
      loc, type.getRank(), axes, /*emptyMeansAll=*/false, "softmax");
  if (failed(marked))
    return failure();
  ArrayRef<bool> reduced = *marked;
  Type et = type.getElementType();
  Value max =
      reduce(b, loc, x, reduced, getLowestAttr(et),
             [](OpBuilder &nb, Location nl, Value v, Value acc) {
               return arith::MaximumFOp::create(nb, nl, v, acc).getResult();
             });
  Value exps = combineWithReduced(
      b, loc, x, max, reduced,
      [](OpBuilder &nb, Location nl, Value v, Value m) {
        return math::ExpOp::create(nb, nl, arith::SubFOp::create(nb, nl, v, m))
            .getResult();
      });
  Value sum = reduce(b, loc, exps, reduced, b.getZeroAttr(et),
                     [](OpBuilder &nb, Location nl, Value v, Value acc) {
                       return arith::AddFOp::create(nb, nl, v, acc).getResult();
                     });
  return combineWithReduced(
      b, loc, exps, sum, reduced,
      [](OpBuilder &nb, Location nl, Value v, Value s) {
        return arith::DivFOp::create(nb, nl, v, s).getResult();
      });
}

TypedAttr mlprog::detail::reductionInit(OpBuilder &b, ReduceKind kind,
                                        Type et) {
  bool isFloat = isa<FloatType>(et);
  // Bools compare unsigned (false < true): max starts at false, min at true.
  if (et.isInteger(1) && (kind == ReduceKind::Max || kind == ReduceKind::Min))
    return b.getBoolAttr(kind == ReduceKind::Min);
  switch (kind) {
  case ReduceKind::Sum:
  case ReduceKind::Mean:
    return b.getZeroAttr(et);
  case ReduceKind::Prod:
    return isFloat ? TypedAttr(b.getFloatAttr(et, 1.0))
                   : TypedAttr(b.getIntegerAttr(et, 1));
  case ReduceKind::Max:
    return getLowestAttr(et);
  case ReduceKind::Min:
    return isFloat
               ? TypedAttr(FloatAttr::get(
                     et,
                     APFloat::getInf(cast<FloatType>(et).getFloatSemantics())))
               : TypedAttr(IntegerAttr::get(
                     et, APInt::getSignedMaxValue(et.getIntOrFloatBitWidth())));
  }
  return TypedAttr();
}

Value mlprog::detail::reductionCombine(OpBuilder &b, Location loc,
                                       ReduceKind kind, Value v, Value acc) {
  bool isFloat = isa<FloatType>(v.getType());
  // Bools: max is `or`, min is `and`.
  if (v.getType().isInteger(1) && kind == ReduceKind::Max)
    return arith::OrIOp::create(b, loc, v, acc);
  if (v.getType().isInteger(1) && kind == ReduceKind::Min)
    return arith::AndIOp::create(b, loc, v, acc);
  switch (kind) {
  case ReduceKind::Sum:
  case ReduceKind::Mean:
    return isFloat ? arith::AddFOp::create(b, loc, v, acc).getResult()
                   : arith::AddIOp::create(b, loc, v, acc).getResult();
  case ReduceKind::Prod:
    return isFloat ? arith::MulFOp::create(b, loc, v, acc).getResult()
                   : arith::MulIOp::create(b, loc, v, acc).getResult();
  case ReduceKind::Max:
    return isFloat ? arith::MaximumFOp::create(b, loc, v, acc).getResult()
                   : arith::MaxSIOp::create(b, loc, v, acc).getResult();
  case ReduceKind::Min:
    return isFloat ? arith::MinimumFOp::create(b, loc, v, acc).getResult()
                   : arith::MinSIOp::create(b, loc, v, acc).getResult();
  }
  return Value();
}

FailureOr<Value> mlprog::buildReduce(OpBuilder &b, Location loc,
                                     ReduceKind kind, Value x,
                                     ArrayRef<int64_t> axes, bool keepDims) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || !type.getElementType().isIntOrFloat())
    return emitError(loc) << "reduction needs a ranked numeric tensor, got "
                          << x.getType();
  Type et = type.getElementType();
  bool isFloat = isa<FloatType>(et);
  if (kind == ReduceKind::Mean && !isFloat)
    return emitError(loc) << "mean reduction needs a float tensor, got "
                          << x.getType();
  int64_t rank = type.getRank();
  // A scalar tensor has nothing to reduce (aten::sum of a 0-d tensor).
  if (rank == 0 && axes.empty())
    return x;
  FailureOr<SmallVector<bool>> marked =
      markReduced(loc, rank, axes, /*emptyMeansAll=*/true, "reduction");
  if (failed(marked))
    return failure();
  ArrayRef<bool> reduced = *marked;
  Value r = reduce(b, loc, x, reduced, reductionInit(b, kind, et),
                   [&](OpBuilder &nb, Location nl, Value v, Value acc) {
                     return reductionCombine(nb, nl, kind, v, acc);
                   });
  if (kind == ReduceKind::Mean)
    r = divideByCount(b, loc, x, r, reduced, /*correction=*/0);
  return keepDims ? keepReducedDims(b, loc, r, reduced) : r;
}

FailureOr<Value> mlprog::buildVariance(OpBuilder &b, Location loc, Value x,
                                       ArrayRef<int64_t> axes, bool keepDims,
                                       double correction) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || !isa<FloatType>(type.getElementType()))
    return emitError(loc) << "variance needs a float tensor, got "
                          << x.getType();
  FailureOr<SmallVector<bool>> reduced = markReduced(
      loc, type.getRank(), axes, /*emptyMeansAll=*/true, "reduction");
  if (failed(reduced))
    return failure();
  FailureOr<Value> mean =
      buildReduce(b, loc, ReduceKind::Mean, x, axes, /*keepDims=*/true);
  if (failed(mean))
    return failure();
  FailureOr<Value> diff =
      buildElementwiseBinary(b, loc, BinaryOpKind::Sub, x, *mean);
  if (failed(diff))
    return failure();
  FailureOr<Value> sq =
      buildElementwiseBinary(b, loc, BinaryOpKind::Mul, *diff, *diff);
  if (failed(sq))
    return failure();
  Value r = reduce(b, loc, *sq, *reduced, b.getZeroAttr(type.getElementType()),
                   [](OpBuilder &nb, Location nl, Value v, Value acc) {
                     return arith::AddFOp::create(nb, nl, v, acc).getResult();
                   });
  r = divideByCount(b, loc, x, r, *reduced, correction);
  return keepDims ? keepReducedDims(b, loc, r, *reduced) : r;
}

FailureOr<Value> mlprog::buildArgReduce(OpBuilder &b, Location loc, Value x,
                                        int64_t axis, bool keepDims, bool isMax,
                                        bool selectLast, bool isUnsigned) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || !type.getElementType().isIntOrFloat() || type.getRank() == 0)
    return emitError(loc) << "arg max/min needs a ranked int or float "
                             "tensor of rank >= 1, got "
                          << x.getType();
  int64_t rank = type.getRank();
  if (axis < -rank || axis >= rank)
    return emitError(loc) << "arg max/min: axis " << axis
                          << " out of range for rank " << rank;
  axis = (axis + rank) % rank;
  Type et = type.getElementType();
  bool isFloat = isa<FloatType>(et);
  MLIRContext *ctx = b.getContext();
  SmallVector<OpFoldResult> sizes;
  SmallVector<AffineExpr> kept;
  for (auto [d, size] : llvm::enumerate(tensor::getMixedSizes(b, loc, x)))
    if (int64_t(d) != axis) {
      sizes.push_back(size);
      kept.push_back(getAffineDimExpr(d, ctx));
    }
  TypedAttr init = getLowestAttr(et);
  if (isMax && isUnsigned)
    init = b.getZeroAttr(et);
  if (!isMax) {
    if (isUnsigned)
      init =
          IntegerAttr::get(et, APInt::getMaxValue(et.getIntOrFloatBitWidth()));
    else if (auto ft = dyn_cast<FloatType>(et))
      init = FloatAttr::get(ft, APFloat::getInf(ft.getFloatSemantics()));
    else
      init = IntegerAttr::get(
          et, APInt::getSignedMaxValue(et.getIntOrFloatBitWidth()));
  }
  Value vals = createFilled(b, loc, sizes, init);
  Value idxs = createFilled(b, loc, sizes, b.getI64IntegerAttr(0));
  AffineMap keptMap = AffineMap::get(rank, 0, kept, ctx);
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                 keptMap, keptMap};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  iterators[axis] = utils::IteratorType::reduction;
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{vals.getType(), idxs.getType()}, x,
      ValueRange{vals, idxs}, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value i = linalg::IndexOp::create(nb, nl, axis);
        Value i64 = arith::IndexCastOp::create(nb, nl, nb.getI64Type(), i);
        Value better;
        using FP = arith::CmpFPredicate;
        using IP = arith::CmpIPredicate;
        // Ties go to the later index with `selectLast` (loops run upwards).
        if (isFloat) {
          better =
              arith::CmpFOp::create(nb, nl,
                                    isMax ? (selectLast ? FP::OGE : FP::OGT)
                                          : (selectLast ? FP::OLE : FP::OLT),
                                    a[0], a[1]);
          // NaN is the extreme of both: the first NaN wins and stays.
          Value nan = arith::CmpFOp::create(nb, nl, FP::UNO, a[0], a[0]);
          Value accNotNan = arith::CmpFOp::create(nb, nl, FP::ORD, a[1], a[1]);
          better = arith::OrIOp::create(
              nb, nl, better, arith::AndIOp::create(nb, nl, nan, accNotNan));
        } else if (isUnsigned)
          better =
              arith::CmpIOp::create(nb, nl,
                                    isMax ? (selectLast ? IP::uge : IP::ugt)
                                          : (selectLast ? IP::ule : IP::ult),
                                    a[0], a[1]);
        else
          better =
              arith::CmpIOp::create(nb, nl,
                                    isMax ? (selectLast ? IP::sge : IP::sgt)
                                          : (selectLast ? IP::sle : IP::slt),
                                    a[0], a[1]);
        Value v = arith::SelectOp::create(nb, nl, better, a[0], a[1]);
        Value idx = arith::SelectOp::create(nb, nl, better, i64, a[2]);
        linalg::YieldOp::create(nb, nl, ValueRange{v, idx});
      });
  Value r = generic.getResult(1);
  return keepDims ? insertUnitDim(b, loc, r, axis) : r;
}

FailureOr<Value> mlprog::buildLogSoftmax(OpBuilder &b, Location loc, Value x,
                                         ArrayRef<int64_t> axes) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || !isa<FloatType>(type.getElementType()))
    return emitError(loc) << "log_softmax needs a float tensor, got "
                          << x.getType();
  FailureOr<Value> max = buildReduce(b, loc, ReduceKind::Max, x, axes, true);
  if (failed(max))
    return failure();
  FailureOr<Value> shifted =
      buildElementwiseBinary(b, loc, BinaryOpKind::Sub, x, *max);
  if (failed(shifted))
    return failure();
  FailureOr<Value> exps =
      buildElementwiseUnary(b, loc, UnaryOpKind::Exp, *shifted);
  if (failed(exps))
    return failure();
  FailureOr<Value> sum =
      buildReduce(b, loc, ReduceKind::Sum, *exps, axes, true);
  if (failed(sum))
    return failure();
  FailureOr<Value> logSum =
      buildElementwiseUnary(b, loc, UnaryOpKind::Log, *sum);
  if (failed(logSum))
    return failure();
  return buildElementwiseBinary(b, loc, BinaryOpKind::Sub, *shifted, *logSum);
}

FailureOr<Value> mlprog::buildNormReduce(OpBuilder &b, Location loc,
                                         NormReduceKind kind, Value x,
                                         ArrayRef<int64_t> axes,
                                         bool keepDims) {
  Type et = elementTypeOf(x);
  bool needsFloat =
      kind != NormReduceKind::L1 && kind != NormReduceKind::SumSquare;
  if (!et || !et.isIntOrFloat() || (needsFloat && !isa<FloatType>(et)))
    return emitError(loc) << "norm reduction needs a ranked "
                          << (needsFloat ? "float" : "numeric")
                          << " tensor, got " << x.getType();
  switch (kind) {
  case NormReduceKind::L1: {
    Value a = unaryOrNull(b, loc, UnaryOpKind::Abs, x);
    if (!a)
      return failure();
    return buildReduce(b, loc, ReduceKind::Sum, a, axes, keepDims);
  }
  case NormReduceKind::L2:
  case NormReduceKind::SumSquare: {
    Value sq = binaryOrNull(b, loc, BinaryOpKind::Mul, x, x);
    FailureOr<Value> s =
        buildReduce(b, loc, ReduceKind::Sum, sq, axes, keepDims);
    if (failed(s) || kind == NormReduceKind::SumSquare)
      return s;
    return buildElementwiseUnary(b, loc, UnaryOpKind::Sqrt, *s);
  }
  case NormReduceKind::LogSum: {
    FailureOr<Value> s =
        buildReduce(b, loc, ReduceKind::Sum, x, axes, keepDims);
    if (failed(s))
      return failure();
    return buildElementwiseUnary(b, loc, UnaryOpKind::Log, *s);
  }
  case NormReduceKind::LogSumExp:
    return buildLogSumExp(b, loc, x, axes, keepDims);
  }
  return failure();
}

/// Hardmax along the single dim `axis` (normalized).
static FailureOr<Value> hardmaxOneAxis(OpBuilder &b, Location loc, Value x,
                                       int64_t axis) {
  FailureOr<Value> idx = buildArgReduce(b, loc, x, axis, /*keepDims=*/true,
                                        /*isMax=*/true);
  if (failed(idx))
    return failure();
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> idxExprs;
  for (int64_t d = 0; d < rank; ++d)
    idxExprs.push_back(d == axis ? getAffineConstantExpr(0, ctx)
                                 : getAffineDimExpr(d, ctx));
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, idxExprs, ctx), id};
  Value init = createEmpty(b, loc, tensor::getMixedSizes(b, loc, x),
                           type.getElementType());
  Type et = type.getElementType();
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{*idx}, init, maps,
      parallelIterators(rank), [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value i = linalg::IndexOp::create(nb, nl, axis);
        Value i64 = arith::IndexCastOp::create(nb, nl, nb.getI64Type(), i);
        Value hit =
            arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, i64, a[0]);
        Value r =
            arith::SelectOp::create(nb, nl, hit, createScalar(nb, nl, et, 1.0),
                                    createScalar(nb, nl, et, 0.0));
        linalg::YieldOp::create(nb, nl, r);
      });
  return generic.getResult(0);
}

FailureOr<Value> mlprog::buildHardmax(OpBuilder &b, Location loc, Value x,
                                      int64_t axis, bool coerce) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || type.getRank() == 0 || !type.getElementType().isIntOrFloat())
    return emitError(loc) << "hardmax needs a ranked numeric tensor of rank "
                             ">= 1, got "
                          << x.getType();
  int64_t rank = type.getRank();
  if (axis < -rank || axis >= rank)
    return emitError(loc) << "hardmax: axis " << axis
                          << " out of range for rank " << rank;
  axis = (axis + rank) % rank;
  if (!coerce || axis == rank - 1)
    return hardmaxOneAxis(b, loc, x, axis);
  // Collapse [axis, rank) into one dim, take the hardmax there, expand back.
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < axis; ++d)
    groups.push_back({d});
  ReassociationIndices tail;
  for (int64_t d = axis; d < rank; ++d)
    tail.push_back(d);
  groups.push_back(tail);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  Value flat = tensor::CollapseShapeOp::create(b, loc, x, groups);
  FailureOr<Value> h = hardmaxOneAxis(b, loc, flat, axis);
  if (failed(h))
    return failure();
  return tensor::ExpandShapeOp::create(b, loc, type, *h, groups, sizes)
      .getResult();
}

FailureOr<Value> mlprog::buildCumSum(OpBuilder &b, Location loc, Value x,
                                     int64_t axis, bool exclusive, bool reverse,
                                     ReduceKind kind) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || type.getRank() == 0 || !type.getElementType().isIntOrFloat() ||
      type.getElementType().isInteger(1))
    return emitError(loc) << "cumsum needs a ranked numeric tensor of rank "
                             ">= 1, got "
                          << x.getType();
  int64_t rank = type.getRank();
  if (axis < -rank || axis >= rank)
    return emitError(loc) << "cumsum: axis " << axis
                          << " out of range for rank " << rank;
  axis = (axis + rank) % rank;
  Type et = type.getElementType();
  MLIRContext *ctx = b.getContext();
  // Loops: the result dims, then j (the summed position along `axis`).
  SmallVector<AffineExpr> inExprs;
  for (int64_t d = 0; d < rank; ++d)
    inExprs.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
  SmallVector<AffineExpr> outExprs;
  for (int64_t d = 0; d < rank; ++d)
    outExprs.push_back(getAffineDimExpr(d, ctx));
  SmallVector<AffineMap> maps = {AffineMap::get(rank + 1, 0, inExprs, ctx),
                                 AffineMap::get(rank + 1, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iterators = parallelIterators(rank);
  iterators.push_back(utils::IteratorType::reduction);
  if (kind != ReduceKind::Sum && kind != ReduceKind::Prod)
    return emitError(loc) << "cumulative reductions are sums or products";
  TypedAttr identity = reductionInit(b, kind, et);
  Value init = createFilled(b, loc, tensor::getMixedSizes(b, loc, x), identity);
  arith::CmpIPredicate pred =
      reverse
          ? (exclusive ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::sge)
          : (exclusive ? arith::CmpIPredicate::slt : arith::CmpIPredicate::sle);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{x}, init, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value i = linalg::IndexOp::create(nb, nl, axis);
        Value j = linalg::IndexOp::create(nb, nl, rank);
        Value take = arith::CmpIOp::create(nb, nl, pred, j, i);
        Value v = arith::SelectOp::create(
            nb, nl, take, a[0], arith::ConstantOp::create(nb, nl, identity));
        linalg::YieldOp::create(nb, nl,
                                reductionCombine(nb, nl, kind, v, a[1]));
      });
  return generic.getResult(0);
}

/// Extents up to which TopK counts ranks (O(n^2) compares per slice, but one
/// parallel, vectorized linalg.generic); longer or dynamic extents are merge
/// sorted.
static constexpr int64_t kRankCountTopKLimit = 512;

/// One merge pass of the bottom-up merge sort behind topKByMergeSort: the
/// runs of `srcV`/`srcI` [B, n] that start at multiples of 2 * `width`
/// (each holding min(width, kc, n - start) sorted entries) are merged
/// pairwise into `dstV`/`dstI` at the same starts, keeping the first kc
/// entries of each merge. The left run wins ties, so equal values keep
/// ascending positions. Returns the new (dstV, dstI).
static SmallVector<Value> mergePass(OpBuilder &b, Location loc, Value srcV,
                                    Value srcI, Value dstV, Value dstI,
                                    Value width, Value n, Value kc,
                                    bool largest) {
  Value zero = cIndex(b, loc, 0), one = cIndex(b, loc, 1);
  Value rows = tensor::DimOp::create(b, loc, srcV, 0);
  Value span = arith::MulIOp::create(b, loc, width, cIndex(b, loc, 2));
  Value pairs = arith::CeilDivSIOp::create(b, loc, n, span);
  bool isFloat = isa<FloatType>(elementTypeOf(srcV));
  auto minI = [&](OpBuilder &nb, Location nl, Value l, Value r) -> Value {
    return arith::MinSIOp::create(nb, nl, l, r);
  };
  return loop(
      b, loc, zero, rows, ValueRange{dstV, dstI},
      [&](OpBuilder &rb, Location rl, Value row,
          ValueRange rowArgs) -> SmallVector<Value> {
        return loop(
            rb, rl, zero, pairs, rowArgs,
            [&](OpBuilder &pb, Location pl, Value pair,
                ValueRange pairArgs) -> SmallVector<Value> {
              Value lo = arith::MulIOp::create(pb, pl, pair, span);
              Value mid = arith::AddIOp::create(pb, pl, lo, width);
              Value leftLen = minI(pb, pl, minI(pb, pl, width, kc),
                                   arith::SubIOp::create(pb, pl, n, lo));
              Value rightLen = arith::MaxSIOp::create(
                  pb, pl, zero,
                  minI(pb, pl, minI(pb, pl, width, kc),
                       arith::SubIOp::create(pb, pl, n, mid)));
              Value outLen = minI(
                  pb, pl, arith::AddIOp::create(pb, pl, leftLen, rightLen), kc);
              Value lastLeft = arith::SubIOp::create(
                  pb, pl, arith::AddIOp::create(pb, pl, lo, leftLen), one);
              Value last = arith::SubIOp::create(pb, pl, n, one);
              SmallVector<Value> r = loop(
                  pb, pl, zero, outLen,
                  ValueRange{zero, zero, pairArgs[0], pairArgs[1]},
                  [&](OpBuilder &mb, Location ml, Value o,
                      ValueRange st) -> SmallVector<Value> {
                    Value i = st[0], j = st[1];
                    // Clamped positions: an exhausted run's read is unused.
                    Value li = minI(
                        mb, ml, arith::AddIOp::create(mb, ml, lo, i), lastLeft);
                    Value ri = minI(
                        mb, ml, arith::AddIOp::create(mb, ml, mid, j), last);
                    Value lv = tensor::ExtractOp::create(mb, ml, srcV,
                                                         ValueRange{row, li});
                    Value rv = tensor::ExtractOp::create(mb, ml, srcV,
                                                         ValueRange{row, ri});
                    Value better =
                        isFloat ? arith::CmpFOp::create(
                                      mb, ml,
                                      largest ? arith::CmpFPredicate::OGT
                                              : arith::CmpFPredicate::OLT,
                                      rv, lv)
                                      .getResult()
                                : arith::CmpIOp::create(
                                      mb, ml,
                                      largest ? arith::CmpIPredicate::sgt
                                              : arith::CmpIPredicate::slt,
                                      rv, lv)
                                      .getResult();
                    Value leftDone = arith::CmpIOp::create(
                        mb, ml, arith::CmpIPredicate::sge, i, leftLen);
                    Value rightLeft = arith::CmpIOp::create(
                        mb, ml, arith::CmpIPredicate::slt, j, rightLen);
                    Value takeRight = arith::AndIOp::create(
                        mb, ml, rightLeft,
                        arith::OrIOp::create(mb, ml, leftDone, better));
                    Value li64 = tensor::ExtractOp::create(mb, ml, srcI,
                                                           ValueRange{row, li});
                    Value ri64 = tensor::ExtractOp::create(mb, ml, srcI,
                                                           ValueRange{row, ri});
                    Value at = arith::AddIOp::create(mb, ml, lo, o);
                    Value v = tensor::InsertOp::create(
                        mb, ml,
                        arith::SelectOp::create(mb, ml, takeRight, rv, lv),
                        st[2], ValueRange{row, at});
                    Value idx = tensor::InsertOp::create(
                        mb, ml,
                        arith::SelectOp::create(mb, ml, takeRight, ri64, li64),
                        st[3], ValueRange{row, at});
                    Value step = arith::IndexCastOp::create(
                        mb, ml, mb.getIndexType(),
                        arith::ExtUIOp::create(mb, ml, mb.getI64Type(),
                                               takeRight));
                    return {arith::AddIOp::create(
                                mb, ml, i,
                                arith::SubIOp::create(mb, ml, one, step)),
                            arith::AddIOp::create(mb, ml, j, step), v, idx};
                  });
              return {r[2], r[3]};
            });
      });
}

/// TopK over the last dim of `x` [B, n] by a bottom-up merge sort of
/// (value, position) pairs whose runs are cut to min(k, n) entries:
/// O(n log min(n, k)) compares per row, in place in two buffers. Returns
/// [B, k] values and i64 positions (entries past n are 0).
static std::pair<Value, Value> topKByMergeSort(OpBuilder &b, Location loc,
                                               Value x, OpFoldResult k,
                                               bool largest) {
  MLIRContext *ctx = b.getContext();
  auto type = cast<RankedTensorType>(x.getType());
  Type et = type.getElementType();
  Type i64 = b.getI64Type();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  Value n = getValueOrCreateConstantIndexOp(b, loc, sizes[1]);
  Value kv = getValueOrCreateConstantIndexOp(b, loc, k);
  Value kc = arith::MinSIOp::create(b, loc, kv, n);
  // Runs of width 1: the values and their positions.
  Value positions =
      linalg::GenericOp::create(
          b, loc, TypeRange{RankedTensorType::get(type.getShape(), i64)},
          ValueRange{}, ValueRange{createEmpty(b, loc, sizes, i64)},
          SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(2, ctx)},
          parallelIterators(2),
          [&](OpBuilder &nb, Location nl, ValueRange) {
            linalg::YieldOp::create(
                nb, nl,
                ValueRange{arith::IndexCastOp::create(
                    nb, nl, i64, linalg::IndexOp::create(nb, nl, 1))});
          })
          .getResult(0);
  Value spareV = createEmpty(b, loc, sizes, et);
  Value spareI = createEmpty(b, loc, sizes, i64);
  // Each step merges A into B at width w, then B back into A at 2w, so the
  // sorted runs end in A and every loop-carried buffer stays in place.
  SmallVector<Value> init = {cIndex(b, loc, 1), x, positions, spareV, spareI};
  SmallVector<Type> types = llvm::to_vector(ValueRange(init).getTypes());
  SmallVector<Location> locs(init.size(), loc);
  auto whileOp = scf::WhileOp::create(b, loc, types, init);
  {
    OpBuilder::InsertionGuard guard(b);
    Block *before = b.createBlock(&whileOp.getBefore(), {}, types, locs);
    Value more = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                       before->getArgument(0), n);
    scf::ConditionOp::create(b, loc, more, before->getArguments());
    Block *after = b.createBlock(&whileOp.getAfter(), {}, types, locs);
    Value w = after->getArgument(0);
    SmallVector<Value> toB = mergePass(
        b, loc, after->getArgument(1), after->getArgument(2),
        after->getArgument(3), after->getArgument(4), w, n, kc, largest);
    Value w2 = arith::MulIOp::create(b, loc, w, cIndex(b, loc, 2));
    SmallVector<Value> toA =
        mergePass(b, loc, toB[0], toB[1], after->getArgument(1),
                  after->getArgument(2), w2, n, kc, largest);
    Value w4 = arith::MulIOp::create(b, loc, w2, cIndex(b, loc, 2));
    scf::YieldOp::create(b, loc,
                         ValueRange{w4, toA[0], toA[1], toB[0], toB[1]});
  }
  SmallVector<OpFoldResult> zeros(2, b.getIndexAttr(0)),
      ones(2, b.getIndexAttr(1));
  SmallVector<OpFoldResult> keptSizes = {sizes[0], kc};
  SmallVector<OpFoldResult> outSizes = {sizes[0], k};
  std::optional<int64_t> kConst = getConstantIntValue(k);
  bool exact = kConst && !type.isDynamicDim(1) && *kConst <= type.getDimSize(1);
  SmallVector<Value> out;
  for (auto [sorted, elem] : {std::pair<Value, Type>{whileOp.getResult(1), et},
                              {whileOp.getResult(2), i64}}) {
    if (exact) {
      out.push_back(tensor::ExtractSliceOp::create(b, loc, sorted, zeros,
                                                   outSizes, ones));
      continue;
    }
    Value kept =
        tensor::ExtractSliceOp::create(b, loc, sorted, zeros, keptSizes, ones);
    Value filled =
        createFilled(b, loc, outSizes, cast<TypedAttr>(b.getZeroAttr(elem)));
    out.push_back(tensor::InsertSliceOp::create(b, loc, kept, filled, zeros,
                                                keptSizes, ones));
  }
  return {out[0], out[1]};
}

/// topKByMergeSort along `axis` of `x` of any rank: the axis is moved last
/// and the other dims merged into one, then both are restored.
static FailureOr<std::pair<Value, Value>>
topKSortedAlongAxis(OpBuilder &b, Location loc, Value x, OpFoldResult k,
                    int64_t axis, bool largest) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      perm.push_back(d);
  perm.push_back(axis);
  Value moved = x;
  if (axis != rank - 1) {
    FailureOr<Value> t = buildTranspose(b, loc, x, perm);
    if (failed(t))
      return failure();
    moved = *t;
  }
  SmallVector<OpFoldResult> movedSizes = tensor::getMixedSizes(b, loc, moved);
  Value flat;
  SmallVector<ReassociationIndices> groups;
  if (rank == 1) {
    flat = insertUnitDim(b, loc, moved, 0);
  } else if (rank == 2) {
    flat = moved;
  } else {
    ReassociationIndices lead;
    for (int64_t d = 0; d + 1 < rank; ++d)
      lead.push_back(d);
    groups = {lead, {rank - 1}};
    flat = tensor::CollapseShapeOp::create(b, loc, moved, groups);
  }
  auto [values, indices] = topKByMergeSort(b, loc, flat, k, largest);
  SmallVector<OpFoldResult> outSizes = movedSizes;
  outSizes.back() = k;
  SmallVector<int64_t> staticOut;
  SmallVector<Value> dynamicOut;
  dispatchIndexOpFoldResults(outSizes, dynamicOut, staticOut);
  SmallVector<Value> results;
  for (Value r : {values, indices}) {
    Type elem = elementTypeOf(r);
    if (rank == 1)
      r = dropUnitDim(b, loc, r, 0);
    else if (rank > 2)
      r = tensor::ExpandShapeOp::create(
          b, loc, RankedTensorType::get(staticOut, elem), r, groups, outSizes);
    if (axis != rank - 1) {
      SmallVector<int64_t> inverse(rank);
      for (int64_t d = 0; d < rank; ++d)
        inverse[perm[d]] = d;
      FailureOr<Value> t = buildTranspose(b, loc, r, inverse);
      if (failed(t))
        return failure();
      r = *t;
    }
    results.push_back(r);
  }
  return std::make_pair(results[0], results[1]);
}

FailureOr<std::pair<Value, Value>> mlprog::buildTopK(OpBuilder &b, Location loc,
                                                     Value x, int64_t k,
                                                     int64_t axis,
                                                     bool largest) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "topk");
  if (failed(type))
    return failure();
  if (axis < 0 || axis >= type->getRank())
    return emitError(loc) << "topk: invalid axis or element type";
  int64_t n = type->getDimSize(axis);
  if (k < 0 || (!ShapedType::isDynamic(n) && k > n))
    return emitError(loc) << "topk: k " << k << " does not fit extent " << n;
  return buildTopKDynamic(b, loc, x, b.getIndexAttr(k), axis, largest);
}

FailureOr<std::pair<Value, Value>>
mlprog::buildTopKDynamic(OpBuilder &b, Location loc, Value x, OpFoldResult k,
                         int64_t axis, bool largest) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "topk");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  Type et = type->getElementType();
  if (axis < 0 || axis >= rank || !et.isIntOrFloat())
    return emitError(loc) << "topk: invalid axis or element type";
  int64_t extent = type->getDimSize(axis);
  if (ShapedType::isDynamic(extent) || extent > kRankCountTopKLimit)
    return topKSortedAlongAxis(b, loc, x, k, axis, largest);
  MLIRContext *ctx = b.getContext();
  bool isFloat = isa<FloatType>(et);
  // rank[.., j, ..] = #{m : x[m] before x[j]} in the sorted order.
  SmallVector<AffineExpr> mExprs, idExprs;
  for (int64_t d = 0; d < rank; ++d) {
    idExprs.push_back(getAffineDimExpr(d, ctx));
    mExprs.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
  }
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  Value zeros = createFilled(b, loc, sizes, b.getI64IntegerAttr(0));
  SmallVector<utils::IteratorType> iters = parallelIterators(rank);
  iters.push_back(utils::IteratorType::reduction);
  SmallVector<AffineMap> maps = {AffineMap::get(rank + 1, 0, idExprs, ctx),
                                 AffineMap::get(rank + 1, 0, mExprs, ctx),
                                 AffineMap::get(rank + 1, 0, idExprs, ctx)};
  Value ranks =
      linalg::GenericOp::create(
          b, loc, zeros.getType(), ValueRange{x, x}, zeros, maps, iters,
          [&](OpBuilder &nb, Location nl, ValueRange args) {
            Value xj = args[0], xm = args[1];
            Value j = linalg::IndexOp::create(nb, nl, axis);
            Value m = linalg::IndexOp::create(nb, nl, rank);
            Value better, equal;
            if (isFloat) {
              better =
                  arith::CmpFOp::create(nb, nl,
                                        largest ? arith::CmpFPredicate::OGT
                                                : arith::CmpFPredicate::OLT,
                                        xm, xj);
              equal = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ,
                                            xm, xj);
            } else {
              better =
                  arith::CmpIOp::create(nb, nl,
                                        largest ? arith::CmpIPredicate::sgt
                                                : arith::CmpIPredicate::slt,
                                        xm, xj);
              equal = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq,
                                            xm, xj);
            }
            Value earlier =
                arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ult, m, j);
            Value before = arith::OrIOp::create(
                nb, nl, better, arith::AndIOp::create(nb, nl, equal, earlier));
            Value inc = arith::ExtUIOp::create(nb, nl, nb.getI64Type(), before);
            linalg::YieldOp::create(
                nb, nl,
                arith::AddIOp::create(nb, nl, args[2], inc).getResult());
          })
          .getResult(0);
  // values[.., q, ..] = x[.., j, ..] where rank[j] == q.
  sizes[axis] = k;
  Value vInit = createFilled(b, loc, sizes, b.getZeroAttr(et));
  Value iInit = createFilled(b, loc, sizes, b.getI64IntegerAttr(0));
  maps = {AffineMap::get(rank + 1, 0, mExprs, ctx),
          AffineMap::get(rank + 1, 0, mExprs, ctx),
          AffineMap::get(rank + 1, 0, idExprs, ctx),
          AffineMap::get(rank + 1, 0, idExprs, ctx)};
  auto select = linalg::GenericOp::create(
      b, loc, TypeRange{vInit.getType(), iInit.getType()}, ValueRange{x, ranks},
      ValueRange{vInit, iInit}, maps, iters,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value q = arith::IndexCastOp::create(
            nb, nl, nb.getI64Type(), linalg::IndexOp::create(nb, nl, axis));
        Value j = arith::IndexCastOp::create(
            nb, nl, nb.getI64Type(), linalg::IndexOp::create(nb, nl, rank));
        Value hit =
            arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, args[1], q);
        linalg::YieldOp::create(
            nb, nl,
            ValueRange{arith::SelectOp::create(nb, nl, hit, args[0], args[2]),
                       arith::SelectOp::create(nb, nl, hit, j, args[3])});
      });
  return std::make_pair(select.getResult(0), select.getResult(1));
}

FailureOr<Value> mlprog::buildSafeSoftmax(OpBuilder &b, Location loc, Value x,
                                          int64_t axis) {
  FailureOr<Value> s = buildSoftmax(b, loc, x, {axis});
  if (failed(s))
    return failure();
  FailureOr<Value> m = buildReduce(b, loc, ReduceKind::Max, x, {axis}, true);
  if (failed(m))
    return failure();
  Type et = elementTypeOf(x);
  // A slice is fully masked when its max is -inf.
  return buildBroadcastedGeneric(
      b, loc, ValueRange{*s, *m}, et,
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value allMasked = arith::CmpFOp::create(
            nb, nl, arith::CmpFPredicate::OEQ, a[1],
            arith::ConstantOp::create(nb, nl, getLowestAttr(et)));
        return arith::SelectOp::create(nb, nl, allMasked,
                                       createScalar(nb, nl, et, 0), a[0]);
      });
}

FailureOr<Value> mlprog::buildSoftmaxBackward(OpBuilder &b, Location loc,
                                              Value grad, Value output,
                                              int64_t axis) {
  if (grad.getType() != output.getType() ||
      !isa_and_nonnull<FloatType>(elementTypeOf(grad)))
    return emitError(loc) << "softmax backward: expected float tensors of one "
                             "type, got "
                          << grad.getType() << " and " << output.getType();
  Value prod = binaryOrNull(b, loc, BinaryOpKind::Mul, grad, output);
  if (!prod)
    return failure();
  FailureOr<Value> sum = buildReduce(b, loc, ReduceKind::Sum, prod, {axis},
                                     /*keepDims=*/true);
  if (failed(sum))
    return failure();
  Value diff = binaryOrNull(b, loc, BinaryOpKind::Sub, grad, *sum);
  if (!diff)
    return failure();
  return binaryOrNull(b, loc, BinaryOpKind::Mul, output, diff);
}

FailureOr<Value> mlprog::buildSumToSize(OpBuilder &b, Location loc, Value x,
                                        ArrayRef<int64_t> shape) {
  auto t = dyn_cast<RankedTensorType>(x.getType());
  int64_t rank = t ? t.getRank() : 0;
  int64_t lead = rank - int64_t(shape.size());
  if (!t || lead < 0)
    return emitError(loc) << "sum_to_size: cannot sum " << x.getType()
                          << " to [" << shape << "]";
  SmallVector<int64_t> axes, out;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t e = t.getDimSize(d);
    if (d < lead) {
      axes.push_back(d);
      continue;
    }
    int64_t want = shape[d - lead];
    if (want == 1 && e != 1) {
      axes.push_back(d);
    } else if (want != e) {
      return emitError(loc) << "sum_to_size: cannot sum " << x.getType()
                            << " to [" << shape << "]";
    }
    out.push_back(want);
  }
  if (axes.empty())
    return x;
  FailureOr<Value> r = buildReduce(b, loc, ReduceKind::Sum, x, axes, true);
  if (failed(r))
    return failure();
  return buildReshape(b, loc, *r, out);
}
