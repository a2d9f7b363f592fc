//===- Shape.cpp - Reshape, transpose and concat builders -----------------===//

#include "mlprog/Import/Common/Shape.h"
#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

FailureOr<SmallVector<int64_t>>
mlprog::resolveReshapeShape(Location loc, ArrayRef<int64_t> inputShape,
                            ArrayRef<int64_t> requested, bool allowZero) {
  SmallVector<int64_t> shape;
  std::optional<size_t> inferred;
  for (auto [i, extent] : llvm::enumerate(requested)) {
    if (extent == 0 && !allowZero) {
      if (i >= inputShape.size())
        return emitError(loc)
               << "reshape: 0 at index " << i << " is past the input rank "
               << inputShape.size();
      shape.push_back(inputShape[i]);
    } else if (extent == -1) {
      if (inferred)
        return emitError(loc) << "reshape: more than one -1 in the shape";
      inferred = i;
      shape.push_back(ShapedType::kDynamic);
    } else if (extent < -1) {
      return emitError(loc) << "reshape: invalid extent " << extent;
    } else {
      shape.push_back(extent);
    }
  }
  if (llvm::any_of(inputShape, ShapedType::isDynamic))
    return shape;
  int64_t total = 1, known = 1;
  for (int64_t d : inputShape)
    total *= d;
  for (auto [i, d] : llvm::enumerate(shape))
    if (!inferred || i != *inferred)
      known = ShapedType::isDynamic(d) ? known : known * d;
  if (llvm::count_if(shape, ShapedType::isDynamic) > (inferred ? 1 : 0))
    return shape;
  if (inferred) {
    if (known == 0 || total % known)
      return emitError(loc)
             << "reshape: cannot infer -1 for " << total << " elements";
    shape[*inferred] = total / known;
  } else if (known != total) {
    return emitError(loc) << "reshape: " << total << " elements cannot take "
                          << "a shape of " << known;
  }
  return shape;
}

/// Static reshape through a rank-1 intermediate (collapse + expand), which
/// upstream canonicalizations simplify to a single reassociation when one
/// exists.
static Value reshapeStatic(OpBuilder &b, Location loc, Value x,
                           RankedTensorType to) {
  auto from = cast<RankedTensorType>(x.getType());
  if (from == to)
    return x;
  if (from.getRank() == 0 || to.getRank() == 0) {
    // Only unit extents are involved; reassociation is empty.
    Value flat = from.getRank() == 0
                     ? x
                     : tensor::CollapseShapeOp::create(
                           b, loc, from.clone(ArrayRef<int64_t>{}), x,
                           ArrayRef<ReassociationIndices>{});
    if (to.getRank() == 0)
      return flat;
    return tensor::ExpandShapeOp::create(b, loc, to, flat,
                                         ArrayRef<ReassociationIndices>{});
  }
  ReassociationIndices all;
  for (int64_t i = 0; i < from.getRank(); ++i)
    all.push_back(i);
  Value flat = from.getRank() == 1
                   ? x
                   : tensor::CollapseShapeOp::create(
                         b, loc, x, SmallVector<ReassociationIndices>{all});
  if (to.getRank() == 1)
    return flat;
  ReassociationIndices allTo;
  for (int64_t i = 0; i < to.getRank(); ++i)
    allTo.push_back(i);
  return tensor::ExpandShapeOp::create(
      b, loc, to, flat, SmallVector<ReassociationIndices>{allTo});
}

/// Dynamic reshape: the one dynamic extent is the element count divided by
/// the product of the static ones, passed to tensor.reshape.
static Value reshapeDynamic(OpBuilder &b, Location loc, Value x,
                            RankedTensorType to) {
  Value total = arith::ConstantIndexOp::create(b, loc, 1);
  for (OpFoldResult d : tensor::getMixedSizes(b, loc, x))
    total = arith::MulIOp::create(b, loc, total,
                                  getValueOrCreateConstantIndexOp(b, loc, d));
  int64_t known = 1;
  for (int64_t d : to.getShape())
    known *= ShapedType::isDynamic(d) ? 1 : d;
  Value dynamic = arith::DivUIOp::create(
      b, loc, total, arith::ConstantIndexOp::create(b, loc, known));
  SmallVector<Value> extents;
  for (int64_t d : to.getShape())
    extents.push_back(ShapedType::isDynamic(d)
                          ? dynamic
                          : arith::ConstantIndexOp::create(b, loc, d));
  Value shape = tensor::FromElementsOp::create(b, loc, extents);
  return tensor::ReshapeOp::create(b, loc, to, x, shape);
}

FailureOr<Value> mlprog::buildReshape(OpBuilder &b, Location loc, Value x,
                                      ArrayRef<int64_t> shape) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "reshape");
  if (failed(type))
    return failure();
  if (llvm::count_if(shape, ShapedType::isDynamic) > 1)
    return emitError(loc) << "reshape: at most one result extent may be "
                             "dynamic";
  auto to = type->clone(shape);
  if (type->hasStaticShape() && to.hasStaticShape()) {
    if (type->getNumElements() != to.getNumElements())
      return emitError(loc)
             << "reshape: cannot reshape " << *type << " to " << to;
    return reshapeStatic(b, loc, x, to);
  }
  if (to.getRank() == 0)
    return emitError(loc) << "reshape of a dynamic tensor to rank 0";
  return reshapeDynamic(b, loc, x, to);
}

FailureOr<Value> mlprog::buildFlatten(OpBuilder &b, Location loc, Value x,
                                      int64_t axis) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "flatten");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  if (axis < 0 || axis > rank)
    return emitError(loc) << "flatten: axis " << axis << " out of [0, " << rank
                          << "]";
  if (rank == 0)
    return buildReshape(b, loc, x, {1, 1});
  if (axis == 0 || axis == rank) {
    // Collapse everything, then add the unit outer (or inner) dim.
    ReassociationIndices all;
    for (int64_t i = 0; i < rank; ++i)
      all.push_back(i);
    Value flat = rank == 1
                     ? x
                     : tensor::CollapseShapeOp::create(
                           b, loc, x, SmallVector<ReassociationIndices>{all})
                           .getResult();
    return insertUnitDim(b, loc, flat, axis == 0 ? 0 : 1);
  }
  SmallVector<ReassociationIndices> groups(2);
  for (int64_t i = 0; i < rank; ++i)
    groups[i < axis ? 0 : 1].push_back(i);
  return tensor::CollapseShapeOp::create(b, loc, x, groups).getResult();
}

FailureOr<Value> mlprog::buildTranspose(OpBuilder &b, Location loc, Value x,
                                        ArrayRef<int64_t> perm) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "transpose");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  SmallVector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p] || int64_t(perm.size()) != rank)
      return emitError(loc)
             << "transpose: invalid permutation for rank " << rank;
    seen[p] = true;
  }
  SmallVector<OpFoldResult> in = tensor::getMixedSizes(b, loc, x);
  SmallVector<OpFoldResult> sizes;
  for (int64_t p : perm)
    sizes.push_back(in[p]);
  Value init = createEmpty(b, loc, sizes, type->getElementType());
  return linalg::TransposeOp::create(b, loc, x, init, perm)->getResult(0);
}

FailureOr<Value> mlprog::buildConcat(OpBuilder &b, Location loc,
                                     ValueRange inputs, int64_t axis) {
  if (inputs.empty())
    return emitError(loc) << "concat needs at least one input";
  FailureOr<RankedTensorType> first = getRankedType(loc, inputs[0], "concat");
  if (failed(first))
    return failure();
  int64_t rank = first->getRank();
  if (axis < -rank || axis >= rank)
    return emitError(loc) << "concat: axis " << axis << " out of range for "
                          << "rank " << rank;
  if (axis < 0)
    axis += rank;
  SmallVector<int64_t> shape(first->getShape());
  shape[axis] = 0;
  for (Value v : inputs) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || t.getRank() != rank ||
        t.getElementType() != first->getElementType())
      return emitError(loc)
             << "concat operands differ: " << *first << " vs " << v.getType();
    for (int64_t d = 0; d < rank; ++d) {
      int64_t e = t.getDimSize(d);
      if (d == axis)
        shape[d] = ShapedType::isDynamic(e) || ShapedType::isDynamic(shape[d])
                       ? ShapedType::kDynamic
                       : shape[d] + e;
      else if (!ShapedType::isDynamic(e) && !ShapedType::isDynamic(shape[d]) &&
               e != shape[d])
        return emitError(loc) << "concat: extents " << shape[d] << " and " << e
                              << " differ at dim " << d;
    }
  }
  // Sizes of the result: axis is the running sum, others from operand 0.
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, inputs[0]);
  SmallVector<OpFoldResult> offsets;
  OpFoldResult offset = b.getIndexAttr(0);
  for (Value v : inputs) {
    offsets.push_back(offset);
    OpFoldResult extent = tensor::getMixedSize(b, loc, v, axis);
    std::optional<int64_t> c0 = getConstantIntValue(offset);
    std::optional<int64_t> c1 = getConstantIntValue(extent);
    if (c0 && c1)
      offset = b.getIndexAttr(*c0 + *c1);
    else
      offset = arith::AddIOp::create(
                   b, loc, getValueOrCreateConstantIndexOp(b, loc, offset),
                   getValueOrCreateConstantIndexOp(b, loc, extent))
                   .getResult();
  }
  sizes[axis] = offset;
  Value result = createEmpty(b, loc, sizes, first->getElementType());
  for (auto [v, off] : llvm::zip(inputs, offsets)) {
    SmallVector<OpFoldResult> offs(rank, b.getIndexAttr(0));
    offs[axis] = off;
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    result = tensor::InsertSliceOp::create(
        b, loc, v, result, offs, tensor::getMixedSizes(b, loc, v), strides);
  }
  return result;
}
