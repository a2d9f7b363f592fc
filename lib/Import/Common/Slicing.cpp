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
