//===- ReductionNorm.cpp - Norms, distances and NaN-aware reductions ------===//
//
// Vector and matrix norms, log-sum-exp, nansum/nanmean, trace and the
// distance ops built on them (cdist, pdist, pairwise_distance,
// cosine_similarity), composed from the reduction and elementwise builders.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Logic.h"
#include "mlprog/Import/Common/MatrixFactorization.h"
#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

/// A 0-d tensor of float type `et` holding `v`.
static Value scalarTensor(OpBuilder &b, Location loc, Type et, double v) {
  return createFilled(b, loc, {}, b.getFloatAttr(et, v));
}

/// Fails with "<what> needs a float tensor" unless `x` is a ranked float
/// tensor; returns its element type.
static FailureOr<Type> floatElementType(Location loc, Value x, StringRef what) {
  Type et = elementTypeOf(x);
  if (!et || !isa<FloatType>(et))
    return emitError(loc) << what << " needs a ranked float tensor, got "
                          << x.getType();
  return et;
}

FailureOr<Value> mlprog::buildVectorNorm(OpBuilder &b, Location loc, Value x,
                                         double ord, ArrayRef<int64_t> axes,
                                         bool keepDims) {
  FailureOr<Type> et = floatElementType(loc, x, "vector norm");
  if (failed(et))
    return failure();
  if (ord == 2.0)
    return buildNormReduce(b, loc, NormReduceKind::L2, x, axes, keepDims);
  if (ord == 0.0) {
    FailureOr<Value> nz = buildCompare(b, loc, CompareKind::NotEqual, x,
                                       scalarTensor(b, loc, *et, 0.0));
    if (failed(nz))
      return failure();
    FailureOr<Value> c = buildConvertElementType(b, loc, *nz, *et);
    if (failed(c))
      return failure();
    return buildReduce(b, loc, ReduceKind::Sum, *c, axes, keepDims);
  }
  Value a = unaryOrNull(b, loc, UnaryOpKind::Abs, x);
  if (!a)
    return failure();
  if (std::isinf(ord))
    return buildReduce(b, loc, ord > 0 ? ReduceKind::Max : ReduceKind::Min, a,
                       axes, keepDims);
  if (ord == 1.0)
    return buildReduce(b, loc, ReduceKind::Sum, a, axes, keepDims);
  Value powered = binaryOrNull(b, loc, BinaryOpKind::Pow, a,
                               scalarTensor(b, loc, *et, ord));
  if (!powered)
    return failure();
  FailureOr<Value> s =
      buildReduce(b, loc, ReduceKind::Sum, powered, axes, keepDims);
  if (failed(s))
    return failure();
  return buildElementwiseBinary(b, loc, BinaryOpKind::Pow, *s,
                                scalarTensor(b, loc, *et, 1.0 / ord));
}

FailureOr<Value> mlprog::buildMatrixNorm(OpBuilder &b, Location loc, Value x,
                                         std::optional<double> ord,
                                         int64_t rowDim, int64_t colDim,
                                         bool keepDims) {
  if (failed(floatElementType(loc, x, "matrix norm")))
    return failure();
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  if (rowDim < -rank || rowDim >= rank || colDim < -rank || colDim >= rank ||
      (rowDim + rank) % rank == (colDim + rank) % rank)
    return emitError(loc) << "matrix norm: invalid dims (" << rowDim << ", "
                          << colDim << ") for rank " << rank;
  rowDim = (rowDim + rank) % rank;
  colDim = (colDim + rank) % rank;
  if (!ord)
    return buildVectorNorm(b, loc, x, 2.0, {rowDim, colDim}, keepDims);
  if (*ord == 2.0 || *ord == -2.0)
    return buildSingularValueNorm(b, loc, x,
                                  *ord > 0 ? SingularValueNorm::Largest
                                           : SingularValueNorm::Smallest,
                                  rowDim, colDim, keepDims);
  bool rows = std::isinf(*ord);
  if (!rows && std::fabs(*ord) != 1.0)
    return emitError(loc) << "matrix norm: unsupported order "
                          << (*ord == std::trunc(*ord)
                                  ? std::to_string(static_cast<int64_t>(*ord))
                                  : std::to_string(*ord))
                          << " (2, -2, 1, -1, inf, -inf, fro or nuc)";
  // inf: the rows' absolute sums (summed over the columns), then their max.
  int64_t sumDim = rows ? colDim : rowDim, extremeDim = rows ? rowDim : colDim;
  Value a = unaryOrNull(b, loc, UnaryOpKind::Abs, x);
  if (!a)
    return failure();
  FailureOr<Value> sums =
      buildReduce(b, loc, ReduceKind::Sum, a, {sumDim}, /*keepDims=*/true);
  if (failed(sums))
    return failure();
  FailureOr<Value> r =
      buildReduce(b, loc, *ord > 0 ? ReduceKind::Max : ReduceKind::Min, *sums,
                  {extremeDim}, /*keepDims=*/true);
  if (failed(r) || keepDims)
    return r;
  Value v = dropUnitDim(b, loc, *r, std::max(rowDim, colDim));
  return dropUnitDim(b, loc, v, std::min(rowDim, colDim));
}

/// The max of `x` over `axes`, with infinities replaced by 0.
static FailureOr<Value> finiteMax(OpBuilder &b, Location loc, Value x,
                                  ArrayRef<int64_t> axes, bool keepDims,
                                  Type et) {
  FailureOr<Value> m = buildReduce(b, loc, ReduceKind::Max, x, axes, keepDims);
  if (failed(m))
    return failure();
  FailureOr<Value> inf = buildIsInf(b, loc, *m, true, true);
  if (failed(inf))
    return failure();
  return buildSelect(b, loc, *inf, scalarTensor(b, loc, et, 0.0), *m);
}

FailureOr<Value> mlprog::buildLogSumExp(OpBuilder &b, Location loc, Value x,
                                        ArrayRef<int64_t> axes, bool keepDims) {
  FailureOr<Type> et = floatElementType(loc, x, "log-sum-exp");
  if (failed(et))
    return failure();
  FailureOr<Value> mKeep = finiteMax(b, loc, x, axes, true, *et);
  FailureOr<Value> m = finiteMax(b, loc, x, axes, keepDims, *et);
  if (failed(mKeep) || failed(m))
    return failure();
  Value shifted = binaryOrNull(b, loc, BinaryOpKind::Sub, x, *mKeep);
  Value e = shifted ? unaryOrNull(b, loc, UnaryOpKind::Exp, shifted) : Value();
  if (!e)
    return failure();
  FailureOr<Value> s = buildReduce(b, loc, ReduceKind::Sum, e, axes, keepDims);
  if (failed(s))
    return failure();
  Value logS = unaryOrNull(b, loc, UnaryOpKind::Log, *s);
  if (!logS)
    return failure();
  return buildElementwiseBinary(b, loc, BinaryOpKind::Add, logS, *m);
}

FailureOr<Value> mlprog::buildNanReduce(OpBuilder &b, Location loc,
                                        ReduceKind kind, Value x,
                                        ArrayRef<int64_t> axes, bool keepDims) {
  FailureOr<Type> et = floatElementType(loc, x, "nansum/nanmean");
  if (failed(et))
    return failure();
  if (kind != ReduceKind::Sum && kind != ReduceKind::Mean)
    return emitError(loc) << "NaN-aware reductions are sums or means";
  FailureOr<Value> nan = buildIsNaN(b, loc, x);
  if (failed(nan))
    return failure();
  Value zero = scalarTensor(b, loc, *et, 0.0);
  FailureOr<Value> cleared = buildSelect(b, loc, *nan, zero, x);
  if (failed(cleared))
    return failure();
  FailureOr<Value> s =
      buildReduce(b, loc, ReduceKind::Sum, *cleared, axes, keepDims);
  if (failed(s) || kind == ReduceKind::Sum)
    return s;
  FailureOr<Value> kept =
      buildSelect(b, loc, *nan, zero, scalarTensor(b, loc, *et, 1.0));
  if (failed(kept))
    return failure();
  FailureOr<Value> count =
      buildReduce(b, loc, ReduceKind::Sum, *kept, axes, keepDims);
  if (failed(count))
    return failure();
  return buildElementwiseBinary(b, loc, BinaryOpKind::Div, *s, *count);
}

FailureOr<Value> mlprog::buildTrace(OpBuilder &b, Location loc, Value x) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || type.getRank() != 2 || !type.getElementType().isIntOrFloat())
    return emitError(loc) << "trace needs a 2-D numeric tensor, got "
                          << x.getType();
  Type et = type.getElementType();
  OpFoldResult n;
  if (type.hasStaticShape()) {
    n = b.getIndexAttr(std::min(type.getDimSize(0), type.getDimSize(1)));
  } else {
    n = arith::MinUIOp::create(b, loc, tensor::DimOp::create(b, loc, x, 0),
                               tensor::DimOp::create(b, loc, x, 1))
            .getResult();
  }
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  Value square = tensor::ExtractSliceOp::create(
      b, loc, x, SmallVector<OpFoldResult>{zero, zero},
      SmallVector<OpFoldResult>{n, n}, SmallVector<OpFoldResult>{one, one});
  Value acc = createFilled(b, loc, {}, reductionInit(b, ReduceKind::Sum, et));
  MLIRContext *ctx = b.getContext();
  AffineExpr d0 = getAffineDimExpr(0, ctx);
  SmallVector<AffineMap> maps = {AffineMap::get(1, 0, {d0, d0}, ctx),
                                 AffineMap::get(1, 0, {}, ctx)};
  return linalg::GenericOp::create(
             b, loc, acc.getType(), square, acc, maps,
             SmallVector<utils::IteratorType>{utils::IteratorType::reduction},
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(
                   nb, nl,
                   reductionCombine(nb, nl, ReduceKind::Sum, args[0], args[1]));
             })
      .getResult(0);
}

FailureOr<Value> mlprog::buildCDist(OpBuilder &b, Location loc, Value x1,
                                    Value x2, double p) {
  auto t1 = dyn_cast<RankedTensorType>(x1.getType());
  auto t2 = dyn_cast<RankedTensorType>(x2.getType());
  if (!t1 || !t2 || t1.getRank() < 2 || t2.getRank() < 2 ||
      !isa<FloatType>(t1.getElementType()) ||
      t1.getElementType() != t2.getElementType())
    return emitError(loc) << "cdist needs float tensors of rank >= 2 and one "
                             "element type, got "
                          << x1.getType() << " and " << x2.getType();
  int64_t m1 = t1.getShape().back(), m2 = t2.getShape().back();
  if (!ShapedType::isDynamic(m1) && !ShapedType::isDynamic(m2) && m1 != m2)
    return emitError(loc) << "cdist: inputs have " << m1 << " and " << m2
                          << " columns";
  // [B..., P, 1, M] - [B..., 1, R, M], normed over M.
  Value a = insertUnitDim(b, loc, x1, t1.getRank() - 1);
  Value c = insertUnitDim(b, loc, x2, t2.getRank() - 2);
  Value d = binaryOrNull(b, loc, BinaryOpKind::Sub, a, c);
  if (!d)
    return failure();
  return buildVectorNorm(b, loc, d, p, {-1}, /*keepDims=*/false);
}

FailureOr<Value> mlprog::buildPDist(OpBuilder &b, Location loc, Value x,
                                    double p) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || type.getRank() != 2 || !isa<FloatType>(type.getElementType()) ||
      type.isDynamicDim(0))
    return emitError(loc) << "pdist needs a 2-D float tensor with a static "
                             "row count, got "
                          << x.getType();
  int64_t n = type.getDimSize(0);
  SmallVector<int64_t> first, second;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      first.push_back(i);
      second.push_back(j);
    }
  auto indexType =
      RankedTensorType::get({int64_t(first.size())}, b.getI64Type());
  auto constant = [&](ArrayRef<int64_t> v) -> Value {
    return arith::ConstantOp::create(b, loc,
                                     DenseElementsAttr::get(indexType, v));
  };
  FailureOr<Value> a = buildGather(b, loc, x, constant(first), 0);
  FailureOr<Value> c = buildGather(b, loc, x, constant(second), 0);
  if (failed(a) || failed(c))
    return failure();
  Value d = binaryOrNull(b, loc, BinaryOpKind::Sub, *a, *c);
  if (!d)
    return failure();
  return buildVectorNorm(b, loc, d, p, {-1}, /*keepDims=*/false);
}

FailureOr<Value> mlprog::buildPairwiseDistance(OpBuilder &b, Location loc,
                                               Value x1, Value x2, double p,
                                               double eps, bool keepDims) {
  if (failed(floatElementType(loc, x1, "pairwise_distance")))
    return failure();
  Value d = binaryOrNull(b, loc, BinaryOpKind::Sub, x1, x2);
  if (!d)
    return failure();
  FailureOr<Value> shifted = buildAddScalar(b, loc, d, eps);
  if (failed(shifted))
    return failure();
  if (cast<RankedTensorType>(d.getType()).getRank() == 0)
    return buildVectorNorm(b, loc, *shifted, p, {}, false);
  return buildVectorNorm(b, loc, *shifted, p, {-1}, keepDims);
}

FailureOr<Value> mlprog::buildCosineSimilarity(OpBuilder &b, Location loc,
                                               Value x1, Value x2, int64_t dim,
                                               double eps) {
  FailureOr<Type> et = floatElementType(loc, x1, "cosine_similarity");
  if (failed(et))
    return failure();
  // Two 0-d inputs are one-element vectors along dim 0 (or -1), as in torch.
  if (cast<RankedTensorType>(x1.getType()).getRank() == 0 &&
      cast<RankedTensorType>(x2.getType()).getRank() == 0 &&
      (dim == 0 || dim == -1)) {
    x1 = insertUnitDim(b, loc, x1, 0);
    x2 = insertUnitDim(b, loc, x2, 0);
    dim = 0;
  }
  auto pick = [&](unsigned i) {
    return buildBroadcastedGeneric(
        b, loc, ValueRange{x1, x2}, *et,
        [i](OpBuilder &, Location, ValueRange args) { return args[i]; });
  };
  FailureOr<Value> a = pick(0), c = pick(1);
  if (failed(a) || failed(c))
    return failure();
  auto normalized = [&](Value v) -> FailureOr<Value> {
    FailureOr<Value> norm =
        buildVectorNorm(b, loc, v, 2.0, {dim}, /*keepDims=*/true);
    if (failed(norm))
      return failure();
    FailureOr<Value> clamped = buildClamp(b, loc, *norm, eps, std::nullopt);
    if (failed(clamped))
      return failure();
    return buildElementwiseBinary(b, loc, BinaryOpKind::Div, v, *clamped);
  };
  FailureOr<Value> na = normalized(*a), nc = normalized(*c);
  if (failed(na) || failed(nc))
    return failure();
  Value prod = binaryOrNull(b, loc, BinaryOpKind::Mul, *na, *nc);
  if (!prod)
    return failure();
  return buildReduce(b, loc, ReduceKind::Sum, prod, {dim}, /*keepDims=*/false);
}

FailureOr<Value> mlprog::buildDiff(OpBuilder &b, Location loc, Value x,
                                   int64_t n, int64_t axis) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || type.getRank() == 0 || !type.getElementType().isIntOrFloat())
    return emitError(loc) << "diff needs a numeric tensor of rank >= 1, got "
                          << x.getType();
  int64_t rank = type.getRank();
  if (axis < -rank || axis >= rank || n < 0)
    return emitError(loc) << "diff: invalid axis " << axis << " or order " << n
                          << " for rank " << rank;
  axis = (axis + rank) % rank;
  bool isBool = type.getElementType().isInteger(1);
  for (int64_t i = 0; i < n; ++i) {
    int64_t extent = cast<RankedTensorType>(x.getType()).getDimSize(axis);
    if (extent == 0)
      break;
    if (extent == 1) { // the difference of one element is empty
      SmallVector<SliceDim> none(rank);
      none[axis].stop = 0;
      return buildSlice(b, loc, x, none);
    }
    SmallVector<SliceDim> hi(rank), lo(rank);
    hi[axis].start = 1;
    lo[axis].stop = -1;
    FailureOr<Value> a = buildSlice(b, loc, x, hi);
    FailureOr<Value> c = buildSlice(b, loc, x, lo);
    if (failed(a) || failed(c))
      return failure();
    FailureOr<Value> d =
        isBool ? buildCompare(b, loc, CompareKind::NotEqual, *a, *c)
               : buildElementwiseBinary(b, loc, BinaryOpKind::Sub, *a, *c);
    if (failed(d))
      return failure();
    x = *d;
  }
  return x;
}

FailureOr<std::pair<Value, Value>>
mlprog::buildCumulativeExtreme(OpBuilder &b, Location loc, Value x,
                               int64_t axis, bool isMax) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || type.getRank() == 0 || !type.getElementType().isIntOrFloat())
    return emitError(loc) << "cummax/cummin needs a numeric tensor of rank "
                             ">= 1, got "
                          << x.getType();
  int64_t rank = type.getRank();
  if (axis < -rank || axis >= rank)
    return emitError(loc) << "cummax/cummin: axis " << axis
                          << " out of range for rank " << rank;
  axis = (axis + rank) % rank;
  Type et = type.getElementType();
  bool isFloat = isa<FloatType>(et);
  TypedAttr init =
      reductionInit(b, isMax ? ReduceKind::Max : ReduceKind::Min, et);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  Value vals = createFilled(b, loc, sizes, init);
  Value idxs = createFilled(b, loc, sizes, b.getI64IntegerAttr(0));
  // Loops: the result dims, then j (the position read along `axis`).
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> inExprs, outExprs;
  for (int64_t d = 0; d < rank; ++d) {
    inExprs.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
    outExprs.push_back(getAffineDimExpr(d, ctx));
  }
  AffineMap outMap = AffineMap::get(rank + 1, 0, outExprs, ctx);
  SmallVector<AffineMap> maps = {AffineMap::get(rank + 1, 0, inExprs, ctx),
                                 outMap, outMap};
  SmallVector<utils::IteratorType> iterators = parallelIterators(rank);
  iterators.push_back(utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{vals.getType(), idxs.getType()}, x,
      ValueRange{vals, idxs}, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value i = linalg::IndexOp::create(nb, nl, axis);
        Value j = linalg::IndexOp::create(nb, nl, rank);
        Value inRange =
            arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ule, j, i);
        Value take;
        if (isFloat) {
          using FP = arith::CmpFPredicate;
          Value better = arith::CmpFOp::create(
              nb, nl, isMax ? FP::OGE : FP::OLE, a[0], a[1]);
          Value curNan = arith::CmpFOp::create(nb, nl, FP::UNO, a[0], a[0]);
          // An ordered comparison is false against a NaN accumulator.
          take = arith::OrIOp::create(nb, nl, curNan, better);
        } else {
          take = arith::CmpIOp::create(nb, nl,
                                       isMax ? arith::CmpIPredicate::sge
                                             : arith::CmpIPredicate::sle,
                                       a[0], a[1]);
        }
        take = arith::AndIOp::create(nb, nl, inRange, take);
        Value j64 = arith::IndexCastOp::create(nb, nl, nb.getI64Type(), j);
        linalg::YieldOp::create(
            nb, nl,
            ValueRange{arith::SelectOp::create(nb, nl, take, a[0], a[1]),
                       arith::SelectOp::create(nb, nl, take, j64, a[2])});
      });
  return std::make_pair(generic.getResult(0), generic.getResult(1));
}

FailureOr<Value> mlprog::buildLogCumSumExp(OpBuilder &b, Location loc, Value x,
                                           int64_t axis) {
  FailureOr<Type> et = floatElementType(loc, x, "logcumsumexp");
  if (failed(et))
    return failure();
  FailureOr<Value> m = finiteMax(b, loc, x, {axis}, /*keepDims=*/true, *et);
  if (failed(m))
    return failure();
  Value shifted = binaryOrNull(b, loc, BinaryOpKind::Sub, x, *m);
  Value e = shifted ? unaryOrNull(b, loc, UnaryOpKind::Exp, shifted) : Value();
  if (!e)
    return failure();
  FailureOr<Value> s = buildCumSum(b, loc, e, axis, false, false);
  if (failed(s))
    return failure();
  Value logS = unaryOrNull(b, loc, UnaryOpKind::Log, *s);
  if (!logS)
    return failure();
  return buildElementwiseBinary(b, loc, BinaryOpKind::Add, logS, *m);
}

namespace {
/// Scalar comparisons of the order statistics: NaN after every number.
struct ElementOrder {
  bool isFloat;
  Value isNan(OpBuilder &b, Location loc, Value v) const {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, v, v);
  }
  /// a == b, NaN equal to NaN.
  Value same(OpBuilder &b, Location loc, Value a, Value c) const {
    if (!isFloat)
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a, c);
    Value eq = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, a, c);
    return arith::OrIOp::create(
        b, loc, eq,
        arith::AndIOp::create(b, loc, isNan(b, loc, a), isNan(b, loc, c)));
  }
  /// a < b, a number before NaN.
  Value less(OpBuilder &b, Location loc, Value a, Value c) const {
    if (!isFloat)
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, a, c);
    Value lt = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, a, c);
    Value aNum = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, a, a);
    return arith::OrIOp::create(
        b, loc, lt, arith::AndIOp::create(b, loc, aNum, isNan(b, loc, c)));
  }
};
} // namespace

FailureOr<std::pair<Value, Value>>
mlprog::buildOrderStatistic(OpBuilder &b, Location loc, Value x, int64_t axis,
                            OrderStatisticKind kind, int64_t k, bool keepDims) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || type.getRank() == 0 || !type.getElementType().isIntOrFloat() ||
      type.getElementType().isInteger(1))
    return emitError(loc) << "order statistics need a numeric tensor of rank "
                             ">= 1, got "
                          << x.getType();
  int64_t rank = type.getRank();
  if (axis < -rank || axis >= rank)
    return emitError(loc) << "order statistic: axis " << axis
                          << " out of range for rank " << rank;
  axis = (axis + rank) % rank;
  int64_t extent = type.getDimSize(axis);
  if (kind == OrderStatisticKind::Kth &&
      (k < 0 || (!ShapedType::isDynamic(extent) && k >= extent)))
    return emitError(loc) << "order statistic: k = " << k
                          << " out of range for extent " << extent;
  Type et = type.getElementType();
  ElementOrder order{isa<FloatType>(et)};
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type();
  SmallVector<AffineExpr> idExprs, mExprs, keptExprs;
  for (int64_t d = 0; d < rank; ++d) {
    idExprs.push_back(getAffineDimExpr(d, ctx));
    mExprs.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
    if (d != axis)
      keptExprs.push_back(getAffineDimExpr(d, ctx));
  }
  AffineMap idMap = AffineMap::get(rank + 1, 0, idExprs, ctx);
  AffineMap mMap = AffineMap::get(rank + 1, 0, mExprs, ctx);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  SmallVector<utils::IteratorType> iters = parallelIterators(rank);
  iters.push_back(utils::IteratorType::reduction);
  // score[j]: the rank of x[j] (Mode: the count of elements equal to x[j]).
  Value zeros = createFilled(b, loc, sizes, b.getI64IntegerAttr(0));
  Value score =
      linalg::GenericOp::create(
          b, loc, zeros.getType(), ValueRange{x, x}, zeros,
          SmallVector<AffineMap>{idMap, mMap, idMap}, iters,
          [&](OpBuilder &nb, Location nl, ValueRange a) {
            Value xj = a[0], xm = a[1];
            Value hit;
            if (kind == OrderStatisticKind::Mode) {
              hit = order.same(nb, nl, xm, xj);
            } else {
              Value j = linalg::IndexOp::create(nb, nl, axis);
              Value m = linalg::IndexOp::create(nb, nl, rank);
              Value earlier = arith::CmpIOp::create(
                  nb, nl, arith::CmpIPredicate::ult, m, j);
              hit = arith::OrIOp::create(
                  nb, nl, order.less(nb, nl, xm, xj),
                  arith::AndIOp::create(nb, nl, order.same(nb, nl, xm, xj),
                                        earlier));
            }
            Value inc = arith::ExtUIOp::create(nb, nl, i64, hit);
            linalg::YieldOp::create(
                nb, nl, arith::AddIOp::create(nb, nl, a[2], inc).getResult());
          })
          .getResult(0);
  // The wanted rank per slice, from the count of numbers (non-NaN).
  SmallVector<OpFoldResult> keptSizes(sizes);
  keptSizes.erase(keptSizes.begin() + axis);
  AffineMap keptMap = AffineMap::get(rank, 0, keptExprs, ctx);
  Value wanted = createFilled(b, loc, keptSizes, b.getI64IntegerAttr(k));
  if (kind == OrderStatisticKind::Median ||
      kind == OrderStatisticKind::NanMedian) {
    Value numbers = createFilled(b, loc, keptSizes, b.getI64IntegerAttr(0));
    SmallVector<utils::IteratorType> red = parallelIterators(rank);
    red[axis] = utils::IteratorType::reduction;
    Value n = arith::IndexCastOp::create(
        b, loc, i64, tensor::DimOp::create(b, loc, x, axis));
    wanted =
        linalg::GenericOp::create(
            b, loc, numbers.getType(), x, numbers,
            SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, ctx),
                                   keptMap},
            red,
            [&](OpBuilder &nb, Location nl, ValueRange a) {
              Value isNum =
                  order.isFloat
                      ? arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::ORD,
                                              a[0], a[0])
                      : arith::ConstantOp::create(nb, nl, nb.getBoolAttr(true))
                            .getResult();
              linalg::YieldOp::create(
                  nb, nl,
                  arith::AddIOp::create(
                      nb, nl, a[1], arith::ExtUIOp::create(nb, nl, i64, isNum))
                      .getResult());
            })
            .getResult(0);
    // Median: a NaN (rank = count) if any, else (n - 1) / 2; NanMedian:
    // (count - 1) / 2, truncated toward 0 (0 for an all-NaN slice).
    AffineMap id = AffineMap::getMultiDimIdentityMap(rank - 1, ctx);
    wanted =
        linalg::GenericOp::create(
            b, loc, wanted.getType(), ValueRange{}, wanted,
            SmallVector<AffineMap>{id}, parallelIterators(rank - 1),
            [&](OpBuilder &nb, Location nl, ValueRange a) {
              Value one =
                  arith::ConstantOp::create(nb, nl, nb.getI64IntegerAttr(1));
              Value two =
                  arith::ConstantOp::create(nb, nl, nb.getI64IntegerAttr(2));
              Value count = a[0];
              Value half = [&](Value v) -> Value {
                return arith::DivSIOp::create(
                    nb, nl, arith::SubIOp::create(nb, nl, v, one), two);
              }(kind == OrderStatisticKind::Median ? n : count);
              Value r = half;
              if (kind == OrderStatisticKind::Median) {
                Value hasNan = arith::CmpIOp::create(
                    nb, nl, arith::CmpIPredicate::slt, count, n);
                r = arith::SelectOp::create(nb, nl, hasNan, count, half);
              }
              linalg::YieldOp::create(nb, nl, r);
            })
            .getResult(0);
  }
  // Select the element whose score matches (Mode: the highest count, then
  // the smallest value, then the last position).
  Value vInit = createFilled(b, loc, keptSizes, b.getZeroAttr(et));
  Value iInit = createFilled(b, loc, keptSizes, b.getI64IntegerAttr(0));
  Value cInit = createFilled(b, loc, keptSizes, b.getI64IntegerAttr(-1));
  SmallVector<utils::IteratorType> red = parallelIterators(rank);
  red[axis] = utils::IteratorType::reduction;
  AffineMap ident = AffineMap::getMultiDimIdentityMap(rank, ctx);
  auto select = linalg::GenericOp::create(
      b, loc, TypeRange{vInit.getType(), iInit.getType(), cInit.getType()},
      ValueRange{x, score, wanted}, ValueRange{vInit, iInit, cInit},
      SmallVector<AffineMap>{ident, ident, keptMap, keptMap, keptMap, keptMap},
      red, [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value j = arith::IndexCastOp::create(
            nb, nl, i64, linalg::IndexOp::create(nb, nl, axis));
        Value take;
        if (kind == OrderStatisticKind::Mode) {
          // a[5] holds the best count so far (-1 before the first element).
          Value more = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sgt,
                                             a[1], a[5]);
          Value tie = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq,
                                            a[1], a[5]);
          Value notAfter = arith::XOrIOp::create(
              nb, nl, order.less(nb, nl, a[3], a[0]),
              arith::ConstantOp::create(nb, nl, nb.getBoolAttr(true)));
          take = arith::OrIOp::create(
              nb, nl, more, arith::AndIOp::create(nb, nl, tie, notAfter));
        } else {
          take = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, a[1],
                                       a[2]);
        }
        linalg::YieldOp::create(
            nb, nl,
            ValueRange{arith::SelectOp::create(nb, nl, take, a[0], a[3]),
                       arith::SelectOp::create(nb, nl, take, j, a[4]),
                       arith::SelectOp::create(nb, nl, take, a[1], a[5])});
      });
  Value v = select.getResult(0), i = select.getResult(1);
  if (keepDims) {
    v = insertUnitDim(b, loc, v, axis);
    i = insertUnitDim(b, loc, i, axis);
  }
  return std::make_pair(v, i);
}
