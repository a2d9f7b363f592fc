//===- AxisReduce.cpp - Reductions over axes ------------------------------===//

#include "mlprog/Import/Common/AxisReduce.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Reduction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

/// Marks `axes` (empty: all) of a rank-`rank` tensor; fails on bad axes.
static FailureOr<SmallVector<bool>> reducedDims(Location loc, int64_t rank,
                                                ArrayRef<int64_t> axes) {
  SmallVector<bool> reduced(rank, axes.empty());
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank || reduced[(axis + rank) % rank])
      return emitError(loc)
             << "reduction: invalid axis " << axis << " for rank " << rank;
    reduced[(axis + rank) % rank] = true;
  }
  return reduced;
}

/// Reduces over the `reduced` dims with `combine(element, acc)` from `init`.
static Value
reduceDims(OpBuilder &b, Location loc, Value x, ArrayRef<bool> reduced,
           TypedAttr init,
           function_ref<Value(OpBuilder &, Location, Value, Value)> combine) {
  SmallVector<OpFoldResult> sizes;
  SmallVector<AffineExpr> kept;
  MLIRContext *ctx = b.getContext();
  for (auto [d, size] : llvm::enumerate(tensor::getMixedSizes(b, loc, x)))
    if (!reduced[d]) {
      sizes.push_back(size);
      kept.push_back(getAffineDimExpr(d, ctx));
    }
  Value acc = createFilled(b, loc, sizes, init);
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(reduced.size(), ctx),
      AffineMap::get(reduced.size(), 0, kept, ctx)};
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

/// Re-inserts the reduced dims as extent 1.
static Value keepReducedDims(OpBuilder &b, Location loc, Value r,
                             ArrayRef<bool> reduced) {
  for (auto [d, isReduced] : llvm::enumerate(reduced))
    if (isReduced)
      r = insertUnitDim(b, loc, r, d);
  return r;
}

/// Number of elements in the reduced dims, as a scalar of `type`.
static Value reducedCount(OpBuilder &b, Location loc, Value x,
                          ArrayRef<bool> reduced, Type type) {
  Value count = arith::ConstantIndexOp::create(b, loc, 1);
  for (auto [d, size] : llvm::enumerate(tensor::getMixedSizes(b, loc, x)))
    if (reduced[d])
      count = arith::MulIOp::create(
          b, loc, count, getValueOrCreateConstantIndexOp(b, loc, size));
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), count);
  return arith::SIToFPOp::create(b, loc, type, i64);
}

/// Divides every element of `x` by the scalar `d`.
static Value divideByScalar(OpBuilder &b, Location loc, Value x, Value d) {
  return *buildBroadcastedGeneric(
      b, loc, x, getElementTypeOrSelf(x.getType()),
      [&](OpBuilder &nb, Location nl, ValueRange a) {
        return arith::DivFOp::create(nb, nl, a[0], d).getResult();
      });
}

FailureOr<Value> mlprog::buildVariance(OpBuilder &b, Location loc, Value x,
                                       ArrayRef<int64_t> axes, bool keepDims,
                                       int64_t correction) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || !isa<FloatType>(type.getElementType()))
    return emitError(loc) << "variance needs a float tensor, got "
                          << x.getType();
  FailureOr<SmallVector<bool>> reduced = reducedDims(loc, type.getRank(), axes);
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
  Type et = type.getElementType();
  Value r =
      reduceDims(b, loc, *sq, *reduced, b.getZeroAttr(et),
                 [](OpBuilder &nb, Location nl, Value v, Value acc) {
                   return arith::AddFOp::create(nb, nl, v, acc).getResult();
                 });
  Value n = reducedCount(b, loc, x, *reduced, et);
  n = arith::SubFOp::create(b, loc, n,
                            createScalar(b, loc, et, double(correction)));
  r = divideByScalar(b, loc, r, n);
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
        if (isFloat)
          better =
              arith::CmpFOp::create(nb, nl,
                                    isMax ? (selectLast ? FP::OGE : FP::OGT)
                                          : (selectLast ? FP::OLE : FP::OLT),
                                    a[0], a[1]);
        else if (isUnsigned)
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
                                         int64_t axis) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || !isa<FloatType>(type.getElementType()))
    return emitError(loc) << "log_softmax needs a float tensor, got "
                          << x.getType();
  FailureOr<Value> max = buildReduce(b, loc, ReduceKind::Max, x, {axis}, true);
  if (failed(max))
    return failure();
  Value shifted = *buildElementwiseBinary(b, loc, BinaryOpKind::Sub, x, *max);
  Value exps = *buildElementwiseUnary(b, loc, UnaryOpKind::Exp, shifted);
  Value sum = *buildReduce(b, loc, ReduceKind::Sum, exps, {axis}, true);
  Value logSum = *buildElementwiseUnary(b, loc, UnaryOpKind::Log, sum);
  return buildElementwiseBinary(b, loc, BinaryOpKind::Sub, shifted, logSum);
}
