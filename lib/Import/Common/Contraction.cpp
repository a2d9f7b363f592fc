//===- Contraction.cpp - Matmul and gemm builders -------------------------===//

#include "mlprog/Import/Common/Contraction.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

/// Zero-filled accumulator of `sizes`.
static Value zeroAccumulator(OpBuilder &b, Location loc,
                             ArrayRef<OpFoldResult> sizes, Type elementType) {
  return createFilled(b, loc, sizes, b.getZeroAttr(elementType));
}

/// [M, K] x [K, N] with linalg.matmul.
static Value matmul2D(OpBuilder &b, Location loc, Value a, Value bm) {
  Type et = cast<RankedTensorType>(a.getType()).getElementType();
  Value acc = zeroAccumulator(
      b, loc,
      {tensor::getMixedSize(b, loc, a, 0), tensor::getMixedSize(b, loc, bm, 1)},
      et);
  return linalg::MatmulOp::create(b, loc, ValueRange{a, bm}, ValueRange{acc})
      .getResult(0);
}

/// [B..., M, K] x [B..., K, N] with equal batch dims: collapse the batch dims
/// into one and use linalg.batch_matmul.
static Value batchMatmulSameBatch(OpBuilder &b, Location loc, Value a,
                                  Value bm) {
  auto at = cast<RankedTensorType>(a.getType());
  int64_t rank = at.getRank();
  SmallVector<ReassociationIndices> groups(1);
  for (int64_t i = 0; i < rank - 2; ++i)
    groups[0].push_back(i);
  groups.push_back({rank - 2});
  groups.push_back({rank - 1});
  Value a3 = rank == 3 ? a : tensor::CollapseShapeOp::create(b, loc, a, groups);
  Value b3 =
      rank == 3 ? bm : tensor::CollapseShapeOp::create(b, loc, bm, groups);
  Value acc = zeroAccumulator(b, loc,
                              {tensor::getMixedSize(b, loc, a3, 0),
                               tensor::getMixedSize(b, loc, a3, 1),
                               tensor::getMixedSize(b, loc, b3, 2)},
                              at.getElementType());
  Value r =
      linalg::BatchMatmulOp::create(b, loc, ValueRange{a3, b3}, ValueRange{acc})
          .getResult(0);
  if (rank == 3)
    return r;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, a);
  sizes.back() = tensor::getMixedSize(b, loc, bm, rank - 1);
  SmallVector<int64_t> shape(at.getShape());
  shape.back() = cast<RankedTensorType>(bm.getType()).getDimSize(rank - 1);
  return tensor::ExpandShapeOp::create(b, loc, at.clone(shape), r, groups,
                                       sizes);
}

/// Batch dims that broadcast: one linalg.generic contraction whose batch
/// indexing maps read stretched dims at 0.
static FailureOr<Value> batchMatmulBroadcast(OpBuilder &b, Location loc,
                                             Value a, Value bm) {
  auto at = cast<RankedTensorType>(a.getType());
  auto bt = cast<RankedTensorType>(bm.getType());
  ArrayRef<int64_t> aBatch = at.getShape().drop_back(2);
  ArrayRef<int64_t> bBatch = bt.getShape().drop_back(2);
  FailureOr<BroadcastPlan> plan = planBroadcast(loc, {aBatch, bBatch});
  if (failed(plan))
    return failure();
  unsigned nb = plan->shape.size();
  MLIRContext *ctx = b.getContext();
  AffineExpr m = getAffineDimExpr(nb, ctx), n = getAffineDimExpr(nb + 1, ctx),
             k = getAffineDimExpr(nb + 2, ctx);
  SmallVector<AffineMap> maps = {
      broadcastMap(ctx, nb + 3, 0, nb, plan->stretched[0], {m, k}),
      broadcastMap(ctx, nb + 3, 0, nb, plan->stretched[1], {k, n}),
      broadcastMap(ctx, nb + 3, 0, nb, SmallVector<bool>(nb, false), {m, n})};
  SmallVector<OpFoldResult> sizes = broadcastSizes(b, loc, *plan, {a, bm});
  sizes.push_back(tensor::getMixedSize(b, loc, a, at.getRank() - 2));
  sizes.push_back(tensor::getMixedSize(b, loc, bm, bt.getRank() - 1));
  Value acc = zeroAccumulator(b, loc, sizes, at.getElementType());
  SmallVector<utils::IteratorType> iterators = parallelIterators(nb + 2);
  iterators.push_back(utils::IteratorType::reduction);
  bool isFloat = isa<FloatType>(at.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, acc.getType(), ValueRange{a, bm}, acc, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value prod, sum;
        if (isFloat) {
          prod = arith::MulFOp::create(nb, nl, args[0], args[1]);
          sum = arith::AddFOp::create(nb, nl, args[2], prod);
        } else {
          prod = arith::MulIOp::create(nb, nl, args[0], args[1]);
          sum = arith::AddIOp::create(nb, nl, args[2], prod);
        }
        linalg::YieldOp::create(nb, nl, sum);
      });
  return generic.getResult(0);
}

FailureOr<Value> mlprog::buildMatMul(OpBuilder &b, Location loc, Value a,
                                     Value bm) {
  auto at = dyn_cast<RankedTensorType>(a.getType());
  auto bt = dyn_cast<RankedTensorType>(bm.getType());
  if (!at || !bt || at.getRank() < 1 || bt.getRank() < 1 ||
      at.getElementType() != bt.getElementType() ||
      !at.getElementType().isIntOrFloat())
    return emitError(loc) << "matmul needs ranked tensors of rank >= 1 and "
                             "one element type, got "
                          << a.getType() << " and " << bm.getType();
  bool aVector = at.getRank() == 1, bVector = bt.getRank() == 1;
  if (aVector)
    a = insertUnitDim(b, loc, a, 0);
  if (bVector)
    bm = insertUnitDim(b, loc, bm, 1);
  at = cast<RankedTensorType>(a.getType());
  bt = cast<RankedTensorType>(bm.getType());
  int64_t ka = at.getShape().end()[-1], kb = bt.getShape().end()[-2];
  if (!ShapedType::isDynamic(ka) && !ShapedType::isDynamic(kb) && ka != kb)
    return emitError(loc) << "matmul contraction extents differ: " << ka
                          << " vs " << kb;
  Value result;
  if (at.getRank() == 2 && bt.getRank() == 2) {
    result = matmul2D(b, loc, a, bm);
  } else if (at.getRank() == bt.getRank() &&
             at.getShape().drop_back(2) == bt.getShape().drop_back(2) &&
             llvm::none_of(at.getShape().drop_back(2), ShapedType::isDynamic)) {
    result = batchMatmulSameBatch(b, loc, a, bm);
  } else {
    FailureOr<Value> r = batchMatmulBroadcast(b, loc, a, bm);
    if (failed(r))
      return failure();
    result = *r;
  }
  int64_t rank = cast<RankedTensorType>(result.getType()).getRank();
  if (bVector)
    result = dropUnitDim(b, loc, result, rank - 1);
  if (aVector)
    result = dropUnitDim(b, loc, result, rank - 2);
  return result;
}

FailureOr<Value> mlprog::buildGemm(OpBuilder &b, Location loc, Value a,
                                   Value bm, Value c, double alpha, double beta,
                                   bool transA, bool transB) {
  auto at = dyn_cast<RankedTensorType>(a.getType());
  auto bt = dyn_cast<RankedTensorType>(bm.getType());
  if (!at || !bt || at.getRank() != 2 || bt.getRank() != 2)
    return emitError(loc) << "gemm needs 2-D operands, got " << a.getType()
                          << " and " << bm.getType();
  Type et = at.getElementType();
  if (!isa<FloatType>(et) && (alpha != 1.0 || beta != 1.0))
    return emitError(loc) << "integer gemm needs alpha = beta = 1";
  if (transA) {
    FailureOr<Value> t = buildTranspose(b, loc, a, {1, 0});
    if (failed(t))
      return failure();
    a = *t;
  }
  if (transB) {
    FailureOr<Value> t = buildTranspose(b, loc, bm, {1, 0});
    if (failed(t))
      return failure();
    bm = *t;
  }
  FailureOr<Value> ab = buildMatMul(b, loc, a, bm);
  if (failed(ab))
    return failure();
  if (!c && alpha == 1.0)
    return ab;
  SmallVector<Value> operands = {*ab};
  if (c) {
    auto ct = dyn_cast<RankedTensorType>(c.getType());
    if (!ct || ct.getElementType() != et || ct.getRank() > 2)
      return emitError(loc) << "gemm C of type " << c.getType()
                            << " does not broadcast to the result";
    operands.push_back(c);
  }
  bool isFloat = isa<FloatType>(et);
  return buildBroadcastedGeneric(
      b, loc, operands, et, [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value r = args[0];
        if (alpha != 1.0)
          r = arith::MulFOp::create(nb, nl, r, createScalar(nb, nl, et, alpha));
        if (args.size() < 2)
          return r;
        Value cv = args[1];
        if (beta != 1.0)
          cv =
              arith::MulFOp::create(nb, nl, cv, createScalar(nb, nl, et, beta));
        return isFloat ? arith::AddFOp::create(nb, nl, r, cv).getResult()
                       : arith::AddIOp::create(nb, nl, r, cv).getResult();
      });
}
