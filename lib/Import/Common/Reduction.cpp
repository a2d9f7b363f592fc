//===- Reduction.cpp - Reductions and softmax builders --------------------===//

#include "mlprog/Import/Common/Reduction.h"
#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

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
  int64_t rank = type.getRank();
  SmallVector<bool> reduced(rank, false);
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank || reduced[(axis + rank) % rank])
      return emitError(loc)
             << "softmax: invalid axis " << axis << " for rank " << rank;
    reduced[(axis + rank) % rank] = true;
  }
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
  SmallVector<bool> reduced(rank, axes.empty());
  for (int64_t axis : axes) {
    if (axis < -rank || axis >= rank || reduced[(axis + rank) % rank])
      return emitError(loc)
             << "reduction: invalid axis " << axis << " for rank " << rank;
    reduced[(axis + rank) % rank] = true;
  }
  TypedAttr init;
  switch (kind) {
  case ReduceKind::Sum:
  case ReduceKind::Mean:
    init = b.getZeroAttr(et);
    break;
  case ReduceKind::Prod:
    init = isFloat ? TypedAttr(b.getFloatAttr(et, 1.0))
                   : TypedAttr(b.getIntegerAttr(et, 1));
    break;
  case ReduceKind::Max:
    init = getLowestAttr(et);
    break;
  case ReduceKind::Min:
    init =
        isFloat
            ? TypedAttr(FloatAttr::get(
                  et, APFloat::getInf(cast<FloatType>(et).getFloatSemantics())))
            : TypedAttr(IntegerAttr::get(
                  et, APInt::getSignedMaxValue(et.getIntOrFloatBitWidth())));
    break;
  }
  Value r = reduce(
      b, loc, x, reduced, init,
      [&](OpBuilder &nb, Location nl, Value v, Value acc) -> Value {
        switch (kind) {
        case ReduceKind::Sum:
        case ReduceKind::Mean:
          return isFloat ? arith::AddFOp::create(nb, nl, v, acc).getResult()
                         : arith::AddIOp::create(nb, nl, v, acc).getResult();
        case ReduceKind::Prod:
          return isFloat ? arith::MulFOp::create(nb, nl, v, acc).getResult()
                         : arith::MulIOp::create(nb, nl, v, acc).getResult();
        case ReduceKind::Max:
          return isFloat ? arith::MaximumFOp::create(nb, nl, v, acc).getResult()
                         : arith::MaxSIOp::create(nb, nl, v, acc).getResult();
        case ReduceKind::Min:
          return isFloat ? arith::MinimumFOp::create(nb, nl, v, acc).getResult()
                         : arith::MinSIOp::create(nb, nl, v, acc).getResult();
        }
        return Value();
      });
  if (kind == ReduceKind::Mean) {
    // Divide by the number of reduced elements (read at run time when
    // dynamic).
    Value count = arith::ConstantIndexOp::create(b, loc, 1);
    for (int64_t d = 0; d < rank; ++d)
      if (reduced[d])
        count = arith::MulIOp::create(b, loc, count,
                                      tensor::DimOp::create(b, loc, x, d));
    Value countInt = arith::IndexCastOp::create(b, loc, b.getI64Type(), count);
    Value countF = arith::SIToFPOp::create(b, loc, et, countInt);
    auto rt = cast<RankedTensorType>(r.getType());
    Value init = createEmpty(b, loc, tensor::getMixedSizes(b, loc, r), et);
    unsigned rr = rt.getRank();
    AffineMap id = AffineMap::getMultiDimIdentityMap(rr, b.getContext());
    r = linalg::GenericOp::create(
            b, loc, rt, r, init, SmallVector<AffineMap>{id, id},
            parallelIterators(rr),
            [&](OpBuilder &nb, Location nl, ValueRange args) {
              linalg::YieldOp::create(
                  nb, nl,
                  arith::DivFOp::create(nb, nl, args[0], countF).getResult());
            })
            .getResult(0);
  }
  if (!keepDims)
    return r;
  // Reinsert the reduced dims as unit extents.
  for (int64_t d = 0; d < rank; ++d)
    if (reduced[d])
      r = insertUnitDim(b, loc, r, d);
  return r;
}
