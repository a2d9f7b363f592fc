//===- Shape.cpp - Reshape, transpose, concat, pad and friends ------------===//

#include "mlprog/Import/Common/Shape.h"
#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/MathExtras.h"

#include <climits>
#include <cmath>

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
    if (llvm::MulOverflow(total, d, total))
      return emitError(loc) << "reshape: the input's element count overflows";
  for (auto [i, d] : llvm::enumerate(shape))
    if ((!inferred || i != *inferred) && !ShapedType::isDynamic(d) &&
        llvm::MulOverflow(known, d, known))
      return emitError(loc) << "reshape: the requested shape's element count "
                               "overflows";
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

FailureOr<Value> mlprog::buildCollapseDims(OpBuilder &b, Location loc, Value x,
                                           int64_t start, int64_t end) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "collapse");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  if (start < 0 || start > end || end >= rank)
    return emitError(loc) << "collapse: dims [" << start << ", " << end
                          << "] out of range for rank " << rank;
  if (start == end)
    return x;
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < rank; ++i) {
    if (i <= start || i > end)
      groups.emplace_back();
    groups.back().push_back(i);
  }
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
  if (int64_t(perm.size()) != rank)
    return emitError(loc) << "transpose: invalid permutation for rank " << rank;
  // linalg.transpose needs a dim to permute. An identity permutation is the
  // input itself: MLIR 22's folding of an identity linalg.transpose whose
  // result feeds a tensor.cast leaves the cast's users with the unrefined
  // type (a `return` then fails to verify).
  if (rank == 0 || llvm::equal(perm, llvm::seq<int64_t>(0, rank)))
    return x;
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
  // Sizes of the result: axis is the running sum, the others from the first
  // operand that knows them statically (all operands agree), else operand 0.
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, inputs[0]);
  for (int64_t d = 0; d < rank; ++d)
    for (Value v : inputs) {
      int64_t e = cast<RankedTensorType>(v.getType()).getDimSize(d);
      if (d != axis && !ShapedType::isDynamic(e)) {
        sizes[d] = b.getIndexAttr(e);
        break;
      }
    }
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
    // Empty inputs add nothing (and a static offset at the end of a dim is
    // not a valid tensor.insert_slice).
    if (llvm::is_contained(cast<RankedTensorType>(v.getType()).getShape(), 0))
      continue;
    SmallVector<OpFoldResult> offs(rank, b.getIndexAttr(0));
    offs[axis] = off;
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    result = tensor::InsertSliceOp::create(
        b, loc, v, result, offs, tensor::getMixedSizes(b, loc, v), strides);
  }
  return result;
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

FailureOr<Value> mlprog::buildTile(OpBuilder &b, Location loc, Value x,
                                   ArrayRef<int64_t> reps) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "tile");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  if (int64_t(reps.size()) != rank)
    return emitError(loc) << "tile: " << reps.size() << " reps for rank "
                          << rank;
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> exprs;
  SmallVector<OpFoldResult> sizes;
  for (auto [d, r] : llvm::enumerate(reps)) {
    int64_t n = type->getDimSize(d);
    if (r < 1)
      return emitError(loc) << "tile: reps must be >= 1, got " << r;
    if (r == 1) {
      exprs.push_back(getAffineDimExpr(d, ctx));
      sizes.push_back(
          ShapedType::isDynamic(n)
              ? OpFoldResult(tensor::DimOp::create(b, loc, x, d).getResult())
              : OpFoldResult(b.getIndexAttr(n)));
      continue;
    }
    if (ShapedType::isDynamic(n))
      return emitError(loc) << "tile: dim " << d << " has a dynamic extent";
    exprs.push_back(getAffineDimExpr(d, ctx) % n);
    sizes.push_back(b.getIndexAttr(n * r));
  }
  Value init = createEmpty(b, loc, sizes, type->getElementType());
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, ctx),
                                 AffineMap::getMultiDimIdentityMap(rank, ctx)};
  return linalg::GenericOp::create(
             b, loc, init.getType(), x, init, maps, parallelIterators(rank),
             [](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl, args[0]);
             })
      .getResult(0);
}

FailureOr<Value> mlprog::buildPad(OpBuilder &b, Location loc, Value x,
                                  ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                                  PadMode mode, double value) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "pad");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  if (int64_t(low.size()) != rank || int64_t(high.size()) != rank)
    return emitError(loc) << "pad: pads do not match rank " << rank;
  for (auto [l, h] : llvm::zip(low, high))
    if (l < 0 || h < 0)
      return emitError(loc) << "pad: negative padding";
  Type et = type->getElementType();
  if (mode == PadMode::Constant) {
    TypedAttr attr = isa<FloatType>(et)
                         ? TypedAttr(b.getFloatAttr(et, value))
                         : TypedAttr(b.getIntegerAttr(et, int64_t(value)));
    return padStatic(b, loc, x, low, high, attr);
  }
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t n = type->getDimSize(d);
    if (ShapedType::isDynamic(n))
      return emitError(loc)
             << "pad: reflect/replicate/wrap need static extents";
    if (mode == PadMode::Wrap && n == 0 && (low[d] || high[d]))
      return emitError(loc) << "pad: wrap padding of the empty dim " << d;
    if (mode == PadMode::Reflect && (low[d] || high[d]) &&
        (low[d] >= n || high[d] >= n))
      return emitError(loc) << "pad: reflect padding must be smaller than "
                               "the extent of dim "
                            << d;
    sizes.push_back(b.getIndexAttr(n + low[d] + high[d]));
  }
  Value init = createEmpty(b, loc, sizes, et);
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange(), init,
             SmallVector<AffineMap>{id}, parallelIterators(rank),
             [&](OpBuilder &nb, Location nl, ValueRange) {
               SmallVector<Value> at;
               Value zero = arith::ConstantIndexOp::create(nb, nl, 0);
               for (int64_t d = 0; d < rank; ++d) {
                 int64_t n = type->getDimSize(d);
                 Value i = linalg::IndexOp::create(nb, nl, d);
                 Value j = arith::SubIOp::create(
                     nb, nl, i, arith::ConstantIndexOp::create(nb, nl, low[d]));
                 Value last = arith::ConstantIndexOp::create(nb, nl, n - 1);
                 if (mode == PadMode::Replicate) {
                   j = arith::MaxSIOp::create(
                       nb, nl, arith::MinSIOp::create(nb, nl, j, last), zero);
                 } else if (mode == PadMode::Wrap) {
                   // (j mod n) in [0, n): j >= -low, so shift by a multiple
                   // of n that makes it non-negative first.
                   int64_t shift =
                       (low[d] + n - 1) / std::max<int64_t>(n, 1) * n;
                   j = arith::RemSIOp::create(
                       nb, nl,
                       arith::AddIOp::create(
                           nb, nl, j,
                           arith::ConstantIndexOp::create(nb, nl, shift)),
                       arith::ConstantIndexOp::create(nb, nl,
                                                      std::max<int64_t>(n, 1)));
                 } else {
                   // |j|, then 2 (n - 1) - j past the end.
                   Value neg = arith::CmpIOp::create(
                       nb, nl, arith::CmpIPredicate::slt, j, zero);
                   j = arith::SelectOp::create(
                       nb, nl, neg, arith::SubIOp::create(nb, nl, zero, j), j);
                   Value past = arith::CmpIOp::create(
                       nb, nl, arith::CmpIPredicate::sgt, j, last);
                   Value mirrored = arith::SubIOp::create(
                       nb, nl,
                       arith::ConstantIndexOp::create(nb, nl, 2 * (n - 1)), j);
                   j = arith::SelectOp::create(nb, nl, past, mirrored, j);
                 }
                 at.push_back(j);
               }
               linalg::YieldOp::create(
                   nb, nl,
                   tensor::ExtractOp::create(nb, nl, x, at).getResult());
             })
      .getResult(0);
}

FailureOr<Value> mlprog::buildDepthToSpace(OpBuilder &b, Location loc, Value x,
                                           int64_t bs, bool crd) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "depth_to_space");
  if (failed(type))
    return failure();
  ArrayRef<int64_t> s = type->getShape();
  if (s.size() != 4 || bs < 1 || llvm::any_of(s.drop_front(), [](int64_t d) {
        return ShapedType::isDynamic(d);
      }))
    return emitError(loc) << "depth_to_space needs [N, C, H, W] with static "
                             "C, H, W, got "
                          << *type;
  if (s[1] % (bs * bs))
    return emitError(loc) << "depth_to_space: channels " << s[1]
                          << " not divisible by blocksize^2";
  int64_t c = s[1] / (bs * bs), n = s[0];
  SmallVector<int64_t> split =
      crd ? SmallVector<int64_t>{n, c, bs, bs, s[2], s[3]}
          : SmallVector<int64_t>{n, bs, bs, c, s[2], s[3]};
  SmallVector<int64_t> perm = crd ? SmallVector<int64_t>{0, 1, 4, 2, 5, 3}
                                  : SmallVector<int64_t>{0, 3, 4, 1, 5, 2};
  FailureOr<Value> r = buildReshape(b, loc, x, split);
  if (succeeded(r))
    r = buildTranspose(b, loc, *r, perm);
  if (succeeded(r))
    r = buildReshape(b, loc, *r, {n, c, s[2] * bs, s[3] * bs});
  return r;
}

FailureOr<Value> mlprog::buildSpaceToDepth(OpBuilder &b, Location loc, Value x,
                                           int64_t bs, bool crd) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "space_to_depth");
  if (failed(type))
    return failure();
  ArrayRef<int64_t> s = type->getShape();
  if (s.size() != 4 || bs < 1 || llvm::any_of(s.drop_front(), [](int64_t d) {
        return ShapedType::isDynamic(d);
      }))
    return emitError(loc) << "space_to_depth needs [N, C, H, W] with static "
                             "C, H, W, got "
                          << *type;
  if (s[2] % bs || s[3] % bs)
    return emitError(loc) << "space_to_depth: spatial extents not divisible "
                             "by the blocksize";
  int64_t n = s[0], c = s[1], h = s[2] / bs, w = s[3] / bs;
  FailureOr<Value> r = buildReshape(b, loc, x, {n, c, h, bs, w, bs});
  if (succeeded(r))
    r = crd ? buildTranspose(b, loc, *r, {0, 1, 3, 5, 2, 4})
            : buildTranspose(b, loc, *r, {0, 3, 5, 1, 2, 4});
  if (succeeded(r))
    r = buildReshape(b, loc, *r, {n, c * bs * bs, h, w});
  return r;
}

FailureOr<Value> mlprog::buildBandPart(OpBuilder &b, Location loc, Value x,
                                       OpFoldResult minDiagonal,
                                       OpFoldResult maxDiagonal) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "band part");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  Type et = type->getElementType();
  if (rank < 2 || !et.isIntOrFloat())
    return emitError(loc) << "band part needs a numeric tensor of rank >= 2, "
                             "got "
                          << *type;
  Value lo = minDiagonal ? getValueOrCreateConstantIndexOp(b, loc, minDiagonal)
                         : Value();
  Value hi = maxDiagonal ? getValueOrCreateConstantIndexOp(b, loc, maxDiagonal)
                         : Value();
  Value init = createEmpty(b, loc, tensor::getMixedSizes(b, loc, x), et);
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  return linalg::GenericOp::create(
             b, loc, init.getType(), x, init, SmallVector<AffineMap>{id, id},
             parallelIterators(rank),
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value i = linalg::IndexOp::create(nb, nl, rank - 2);
               Value j = linalg::IndexOp::create(nb, nl, rank - 1);
               Value diff = arith::SubIOp::create(nb, nl, j, i);
               Value keep;
               auto require = [&](arith::CmpIPredicate p, Value bound) {
                 Value c = arith::CmpIOp::create(nb, nl, p, diff, bound);
                 keep = keep ? arith::AndIOp::create(nb, nl, keep, c) : c;
               };
               if (lo)
                 require(arith::CmpIPredicate::sge, lo);
               if (hi)
                 require(arith::CmpIPredicate::sle, hi);
               Value r = args[0];
               if (keep)
                 r = arith::SelectOp::create(nb, nl, keep, args[0],
                                             createScalar(nb, nl, et, 0.0));
               linalg::YieldOp::create(nb, nl, r);
             })
      .getResult(0);
}

FailureOr<Value> mlprog::buildReverseSequence(OpBuilder &b, Location loc,
                                              Value x, Value lengths,
                                              int64_t batchAxis,
                                              int64_t timeAxis) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "reverse_sequence");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  auto lt = dyn_cast<RankedTensorType>(lengths.getType());
  if (rank < 2 || batchAxis == timeAxis || batchAxis < 0 || timeAxis < 0 ||
      batchAxis >= rank || timeAxis >= rank || !lt || lt.getRank() != 1 ||
      !lt.getElementType().isSignlessInteger())
    return emitError(loc) << "reverse_sequence: invalid operands or axes";
  Value init = createEmpty(b, loc, tensor::getMixedSizes(b, loc, x),
                           type->getElementType());
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange(), init,
             SmallVector<AffineMap>{id}, parallelIterators(rank),
             [&](OpBuilder &nb, Location nl, ValueRange) {
               SmallVector<Value> at;
               for (int64_t d = 0; d < rank; ++d)
                 at.push_back(linalg::IndexOp::create(nb, nl, d));
               Value len =
                   toIndex(nb, nl,
                           tensor::ExtractOp::create(
                               nb, nl, lengths, ValueRange{at[batchAxis]}));
               Value t = at[timeAxis];
               Value inside = arith::CmpIOp::create(
                   nb, nl, arith::CmpIPredicate::slt, t, len);
               Value rev = arith::SubIOp::create(
                   nb, nl, arith::SubIOp::create(nb, nl, len, t),
                   arith::ConstantIndexOp::create(nb, nl, 1));
               at[timeAxis] = arith::SelectOp::create(nb, nl, inside, rev, t);
               linalg::YieldOp::create(
                   nb, nl,
                   tensor::ExtractOp::create(nb, nl, x, at).getResult());
             })
      .getResult(0);
}
