//===- Slicing.cpp - Slicing and gathering builders -----------------------===//

#include "mlprog/Import/Common/Slicing.h"
#include "Utils.h"
#include "mlprog/Import/Common/Convert.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <climits>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

/// Normalizes `dim` against `rank`, or fails with "<what>: ...".
static FailureOr<int64_t> normalizeDim(Location loc, int64_t dim, int64_t rank,
                                       StringRef what) {
  if (dim < -rank || dim >= rank)
    return emitError(loc) << what << ": dim " << dim
                          << " out of range for rank " << rank;
  return dim < 0 ? dim + rank : dim;
}

FailureOr<Value> mlprog::buildPythonSlice(OpBuilder &b, Location loc, Value x,
                                          int64_t dim, int64_t start,
                                          int64_t end, int64_t step) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "slice");
  if (failed(type))
    return failure();
  FailureOr<int64_t> d = normalizeDim(loc, dim, type->getRank(), "slice");
  if (failed(d))
    return failure();
  if (step < 1)
    return emitError(loc) << "slice: unsupported step " << step;
  int64_t rank = type->getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  int64_t extent = type->getDimSize(*d);
  strides[*d] = b.getIndexAttr(step);
  if (ShapedType::isDynamic(extent)) {
    if (start < 0 || end < INT64_MAX / 2)
      return emitError(loc) << "slice: unsupported bounds " << start << ":"
                            << end << " on a dynamic extent";
    // size = ceildiv(max(extent - start, 0), step)
    Value ext = getValueOrCreateConstantIndexOp(b, loc, sizes[*d]);
    Value s = arith::ConstantIndexOp::create(b, loc, start);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value rem = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, ext, s), zero);
    Value n = arith::CeilDivSIOp::create(
        b, loc, rem, arith::ConstantIndexOp::create(b, loc, step));
    offsets[*d] = b.getIndexAttr(start);
    sizes[*d] = n;
  } else {
    auto clampIdx = [&](int64_t i) {
      if (i < 0)
        i += extent;
      return std::min(std::max<int64_t>(i, 0), extent);
    };
    int64_t s = clampIdx(start), e = clampIdx(end);
    int64_t n = e > s ? (e - s + step - 1) / step : 0;
    offsets[*d] = b.getIndexAttr(s);
    sizes[*d] = b.getIndexAttr(n);
  }
  return tensor::ExtractSliceOp::create(b, loc, x, offsets, sizes, strides)
      .getResult();
}

FailureOr<Value> mlprog::buildSelectIndex(OpBuilder &b, Location loc, Value x,
                                          int64_t dim, OpFoldResult index) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "select");
  if (failed(type))
    return failure();
  FailureOr<int64_t> d = normalizeDim(loc, dim, type->getRank(), "select");
  if (failed(d))
    return failure();
  int64_t extent = type->getDimSize(*d);
  if (std::optional<int64_t> c = getConstantIntValue(index)) {
    int64_t i = *c;
    if (i < 0 && !ShapedType::isDynamic(extent))
      i += extent;
    if (i < 0 || (!ShapedType::isDynamic(extent) && i >= extent))
      return emitError(loc)
             << "select: index " << *c << " out of range for extent " << extent;
    index = b.getIndexAttr(i);
  }
  int64_t rank = type->getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  offsets[*d] = index;
  sizes[*d] = b.getIndexAttr(1);
  SmallVector<int64_t> shape(type->getShape());
  shape.erase(shape.begin() + *d);
  auto resultType = RankedTensorType::get(shape, type->getElementType());
  return tensor::ExtractSliceOp::create(b, loc, resultType, x, offsets, sizes,
                                        strides)
      .getResult();
}

/// Converts an integer scalar index to `index`, adding `extent` when
/// negative.
static Value toIndex(OpBuilder &b, Location loc, Value i, Value extent) {
  Value idx = arith::IndexCastOp::create(b, loc, b.getIndexType(), i);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value neg =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, idx, zero);
  Value wrapped = arith::AddIOp::create(b, loc, idx, extent);
  return arith::SelectOp::create(b, loc, neg, wrapped, idx);
}

FailureOr<Value> mlprog::buildIndexSelect(OpBuilder &b, Location loc, Value x,
                                          int64_t dim, Value indices) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "index_select");
  auto it = dyn_cast<RankedTensorType>(indices.getType());
  if (failed(type))
    return failure();
  if (!it || it.getRank() != 1 || !isa<IntegerType>(it.getElementType()))
    return emitError(loc) << "index_select needs 1-D integer indices, got "
                          << indices.getType();
  FailureOr<int64_t> d =
      normalizeDim(loc, dim, type->getRank(), "index_select");
  if (failed(d))
    return failure();
  int64_t rank = type->getRank();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  Value extent = getValueOrCreateConstantIndexOp(b, loc, sizes[*d]);
  sizes[*d] = tensor::getMixedSize(b, loc, indices, 0);
  Value init = createEmpty(b, loc, sizes, type->getElementType());
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank, 0, getAffineDimExpr(*d, ctx)),
      AffineMap::getMultiDimIdentityMap(rank, ctx)};
  return linalg::GenericOp::create(
             b, loc, init.getType(), indices, init, maps,
             parallelIterators(rank),
             [&](OpBuilder &nb, Location nl, ValueRange a) {
               SmallVector<Value> ivs;
               for (int64_t i = 0; i < rank; ++i)
                 ivs.push_back(
                     i == *d ? toIndex(nb, nl, a[0], extent)
                             : linalg::IndexOp::create(nb, nl, i).getResult());
               Value v = tensor::ExtractOp::create(nb, nl, x, ivs);
               linalg::YieldOp::create(nb, nl, v);
             })
      .getResult(0);
}

FailureOr<Value> mlprog::buildGatherElements(OpBuilder &b, Location loc,
                                             Value x, int64_t dim,
                                             Value index) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "gather");
  auto it = dyn_cast<RankedTensorType>(index.getType());
  if (failed(type))
    return failure();
  if (!it || it.getRank() != type->getRank() ||
      !isa<IntegerType>(it.getElementType()))
    return emitError(loc) << "gather needs an integer index of the input's "
                             "rank, got "
                          << index.getType();
  FailureOr<int64_t> d = normalizeDim(loc, dim, type->getRank(), "gather");
  if (failed(d))
    return failure();
  int64_t rank = type->getRank();
  Value extent = getValueOrCreateConstantIndexOp(
      b, loc, tensor::getMixedSize(b, loc, x, *d));
  Value init = createEmpty(b, loc, tensor::getMixedSizes(b, loc, index),
                           type->getElementType());
  MLIRContext *ctx = b.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  return linalg::GenericOp::create(
             b, loc, init.getType(), index, init,
             SmallVector<AffineMap>{id, id}, parallelIterators(rank),
             [&](OpBuilder &nb, Location nl, ValueRange a) {
               SmallVector<Value> ivs;
               for (int64_t i = 0; i < rank; ++i)
                 ivs.push_back(
                     i == *d ? toIndex(nb, nl, a[0], extent)
                             : linalg::IndexOp::create(nb, nl, i).getResult());
               Value v = tensor::ExtractOp::create(nb, nl, x, ivs);
               linalg::YieldOp::create(nb, nl, v);
             })
      .getResult(0);
}

FailureOr<Value> mlprog::buildTake(OpBuilder &b, Location loc, Value table,
                                   Value indices) {
  FailureOr<RankedTensorType> type = getRankedType(loc, table, "take");
  auto it = dyn_cast<RankedTensorType>(indices.getType());
  if (failed(type))
    return failure();
  if (type->getRank() < 1 || !it || !isa<IntegerType>(it.getElementType()))
    return emitError(loc) << "take needs a table of rank >= 1 and integer "
                             "indices, got "
                          << table.getType() << " and " << indices.getType();
  int64_t k = it.getRank(), rank = k + type->getRank() - 1;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, indices);
  SmallVector<OpFoldResult> tableSizes = tensor::getMixedSizes(b, loc, table);
  Value extent = getValueOrCreateConstantIndexOp(b, loc, tableSizes[0]);
  sizes.append(tableSizes.begin() + 1, tableSizes.end());
  Value init = createEmpty(b, loc, sizes, type->getElementType());
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> first;
  for (int64_t i = 0; i < k; ++i)
    first.push_back(getAffineDimExpr(i, ctx));
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, first, ctx),
                                 AffineMap::getMultiDimIdentityMap(rank, ctx)};
  return linalg::GenericOp::create(
             b, loc, init.getType(), indices, init, maps,
             parallelIterators(rank),
             [&](OpBuilder &nb, Location nl, ValueRange a) {
               SmallVector<Value> ivs = {toIndex(nb, nl, a[0], extent)};
               for (int64_t i = k; i < rank; ++i)
                 ivs.push_back(linalg::IndexOp::create(nb, nl, i));
               Value v = tensor::ExtractOp::create(nb, nl, table, ivs);
               linalg::YieldOp::create(nb, nl, v);
             })
      .getResult(0);
}

FailureOr<Value> mlprog::buildUnsqueeze(OpBuilder &b, Location loc, Value x,
                                        int64_t dim) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "unsqueeze");
  if (failed(type))
    return failure();
  if (dim < 0 || dim > type->getRank())
    return emitError(loc) << "unsqueeze: dim " << dim
                          << " out of range for rank " << type->getRank();
  return insertUnitDim(b, loc, x, dim);
}

FailureOr<Value> mlprog::buildSqueeze(OpBuilder &b, Location loc, Value x,
                                      ArrayRef<int64_t> dims) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "squeeze");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  SmallVector<bool> drop(rank, false);
  for (int64_t d = 0; d < rank; ++d)
    drop[d] = dims.empty() && type->getDimSize(d) == 1;
  for (int64_t d : dims) {
    if (d < 0 || d >= rank)
      return emitError(loc) << "squeeze: dim " << d << " out of range for "
                            << "rank " << rank;
    drop[d] = type->getDimSize(d) == 1;
  }
  for (int64_t d = rank - 1; d >= 0; --d)
    if (drop[d])
      x = dropUnitDim(b, loc, x, d);
  return x;
}

FailureOr<Value> mlprog::buildExpand(OpBuilder &b, Location loc, Value x,
                                     ArrayRef<int64_t> shape) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "expand");
  if (failed(type))
    return failure();
  int64_t rank = shape.size(), xr = type->getRank();
  if (xr > rank)
    return emitError(loc) << "expand: target rank " << rank
                          << " below input rank " << xr;
  SmallVector<int64_t> target(shape);
  SmallVector<OpFoldResult> sizes;
  SmallVector<AffineExpr> exprs;
  MLIRContext *ctx = b.getContext();
  for (int64_t d = 0; d < rank; ++d) {
    int64_t xd = d - (rank - xr);
    int64_t in = xd >= 0 ? type->getDimSize(xd) : 1;
    if (target[d] == -1) {
      if (xd < 0)
        return emitError(loc) << "expand: -1 at a new leading dim";
      target[d] = in;
    }
    if (target[d] < 0 && !ShapedType::isDynamic(target[d]))
      return emitError(loc) << "expand: invalid extent " << shape[d];
    if (xd >= 0 && in != 1 && in != target[d] && !ShapedType::isDynamic(in))
      return emitError(loc)
             << "expand: cannot expand extent " << in << " to " << target[d];
    if (ShapedType::isDynamic(target[d]))
      sizes.push_back(tensor::getMixedSize(b, loc, x, xd));
    else
      sizes.push_back(b.getIndexAttr(target[d]));
    if (xd >= 0)
      exprs.push_back(in == 1 && target[d] != 1 ? getAffineConstantExpr(0, ctx)
                                                : getAffineDimExpr(d, ctx));
  }
  Value init = createEmpty(b, loc, sizes, type->getElementType());
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, ctx),
                                 AffineMap::getMultiDimIdentityMap(rank, ctx)};
  return linalg::GenericOp::create(
             b, loc, init.getType(), x, init, maps, parallelIterators(rank),
             [&](OpBuilder &nb, Location nl, ValueRange a) {
               linalg::YieldOp::create(nb, nl, a[0]);
             })
      .getResult(0);
}
