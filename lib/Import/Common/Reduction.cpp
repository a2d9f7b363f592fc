//===- Reduction.cpp - Reductions, softmax, scans and top-k ---------------===//

#include "mlprog/Import/Common/Reduction.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
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
  if (ShapedType::isDynamic(n) || k < 0 || k > n)
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
