//===- SliceGather.cpp - Slices, splits and gathers -----------------------===//

#include "mlprog/Import/Common/SliceGather.h"
#include "Utils.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <climits>
#include <cmath>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

ResolvedSlice mlprog::resolveSlice(const SliceDim &s, int64_t n) {
  int64_t step = s.step;
  int64_t start, stop;
  auto clampBound = [&](int64_t v, int64_t lo, int64_t hi) {
    if (v < 0)
      v += n;
    return std::min(std::max(v, lo), hi);
  };
  if (step > 0) {
    start = s.start ? clampBound(*s.start, 0, n) : 0;
    stop = s.stop ? clampBound(*s.stop, 0, n) : n;
    int64_t size = stop > start ? (stop - start + step - 1) / step : 0;
    return {start, size, step};
  }
  start = s.start ? clampBound(*s.start, -1, n - 1) : n - 1;
  stop = s.stop ? clampBound(*s.stop, -1, n - 1) : -1;
  int64_t size = start > stop ? (start - stop - step - 1) / -step : 0;
  return {start, size, step};
}

/// The run-time extent of a positive-step slice with non-negative bounds of
/// the dynamic dim `d`: ceildiv(max(min(stop, n) - start, 0), step).
static Value dynamicSliceSize(OpBuilder &b, Location loc, Value x, int64_t d,
                              const SliceDim &s) {
  Value n = tensor::DimOp::create(b, loc, x, d);
  Value end = n;
  if (s.stop)
    end = arith::MinSIOp::create(
        b, loc, n, arith::ConstantIndexOp::create(b, loc, *s.stop));
  Value rem = arith::SubIOp::create(
      b, loc, end, arith::ConstantIndexOp::create(b, loc, s.start.value_or(0)));
  rem = arith::MaxSIOp::create(b, loc, rem,
                               arith::ConstantIndexOp::create(b, loc, 0));
  return arith::CeilDivSIOp::create(
      b, loc, rem, arith::ConstantIndexOp::create(b, loc, s.step));
}

/// Drops the unit dims `dims` of `x` (after checking they are unit).
static FailureOr<Value> squeeze(OpBuilder &b, Location loc, Value x,
                                ArrayRef<int64_t> dims) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> sorted(dims);
  llvm::sort(sorted);
  for (int64_t d : llvm::reverse(sorted)) {
    if (d < 0 || d >= type.getRank() || type.getDimSize(d) != 1)
      return emitError(loc) << "cannot squeeze dim " << d << " of " << type;
    x = dropUnitDim(b, loc, x, d);
    type = cast<RankedTensorType>(x.getType());
  }
  return x;
}

/// buildSlice through buildSliceDynamic, for bounds that a dynamic extent
/// resolves (`x[-3:]`, `x[::-1]` on a run-time batch): the constant bounds
/// become index constants, absent ones the ends Python's slice() takes, and
/// the static extents of the result stay static.
static FailureOr<Value> sliceAtRunTime(OpBuilder &b, Location loc, Value x,
                                       ArrayRef<SliceDim> dims,
                                       ArrayRef<int64_t> squeezeDims) {
  auto type = cast<RankedTensorType>(x.getType());
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  SmallVector<DynamicSliceDim> runtime;
  SmallVector<int64_t> hint;
  for (auto [d, s] : llvm::enumerate(dims)) {
    int64_t n = type.getDimSize(d);
    if (!s.start && !s.stop && s.step == 1) {
      runtime.push_back({});
      hint.push_back(n);
      continue;
    }
    bool backward = s.step < 0;
    runtime.push_back({c(s.start.value_or(backward ? kMax : 0)),
                       c(s.stop.value_or(backward ? kMin : kMax)), c(s.step)});
    if (llvm::is_contained(squeezeDims, int64_t(d)))
      hint.push_back(1);
    else
      hint.push_back(ShapedType::isDynamic(n) ? ShapedType::kDynamic
                                              : resolveSlice(s, n).size);
  }
  FailureOr<Value> result = buildSliceDynamic(b, loc, x, runtime, hint);
  if (failed(result) || squeezeDims.empty())
    return result;
  return squeeze(b, loc, *result, squeezeDims);
}

FailureOr<Value> mlprog::buildSlice(OpBuilder &b, Location loc, Value x,
                                    ArrayRef<SliceDim> dims,
                                    ArrayRef<int64_t> squeezeDims) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "slice");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  if (int64_t(dims.size()) != rank)
    return emitError(loc) << "slice: " << dims.size() << " dims for rank "
                          << rank;
  // Per dim: the resolved slice and the result extent (read with tensor.dim
  // or computed at run time on dynamic extents).
  SmallVector<ResolvedSlice> resolved;
  SmallVector<OpFoldResult> sizes;
  bool anyNegative = false;
  for (auto [d, s] : llvm::enumerate(dims)) {
    if (s.step == 0)
      return emitError(loc) << "slice: step 0 in dim " << d;
    int64_t n = type->getDimSize(d);
    if (!s.start && !s.stop && s.step == 1) {
      resolved.push_back({0, n, 1});
      sizes.push_back(tensor::getMixedSize(b, loc, x, d));
      continue;
    }
    if (ShapedType::isDynamic(n)) {
      // Bounds that need the extent to resolve (counted from the end, or a
      // backward walk) are resolved at run time.
      if (s.step < 0 || s.start.value_or(0) < 0 || s.stop.value_or(0) < 0)
        return sliceAtRunTime(b, loc, x, dims, squeezeDims);
      resolved.push_back({s.start.value_or(0), n, s.step});
      sizes.push_back(dynamicSliceSize(b, loc, x, d, s));
      continue;
    }
    resolved.push_back(resolveSlice(s, n));
    sizes.push_back(b.getIndexAttr(resolved.back().size));
    anyNegative |= s.step < 0;
  }
  Value result;
  // tensor.extract_slice refuses static offsets at the end of a dim (even
  // for an empty slice), so empty slices and slices of empty tensors are
  // new empty tensors.
  bool empty = llvm::is_contained(type->getShape(), 0) ||
               llvm::any_of(sizes, [](OpFoldResult s) {
                 return getConstantIntValue(s) == std::optional<int64_t>(0);
               });
  if (empty) {
    result = createEmpty(b, loc, sizes, type->getElementType());
  } else if (!anyNegative) {
    SmallVector<OpFoldResult> offsets, strides;
    for (const ResolvedSlice &r : resolved) {
      offsets.push_back(b.getIndexAttr(r.start));
      strides.push_back(b.getIndexAttr(r.step));
    }
    result = tensor::ExtractSliceOp::create(b, loc, x, offsets, sizes, strides);
  } else {
    // Reversed dims read x at start + i * step.
    MLIRContext *ctx = b.getContext();
    SmallVector<AffineExpr> exprs;
    for (auto [d, r] : llvm::enumerate(resolved))
      exprs.push_back(getAffineDimExpr(d, ctx) * r.step + r.start);
    Value init = createEmpty(b, loc, sizes, type->getElementType());
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, exprs, ctx),
        AffineMap::getMultiDimIdentityMap(rank, ctx)};
    result = linalg::GenericOp::create(
                 b, loc, init.getType(), x, init, maps, parallelIterators(rank),
                 [](OpBuilder &nb, Location nl, ValueRange args) {
                   linalg::YieldOp::create(nb, nl, args[0]);
                 })
                 .getResult(0);
  }
  if (squeezeDims.empty())
    return result;
  return squeeze(b, loc, result, squeezeDims);
}

FailureOr<SmallVector<Value>> mlprog::buildSplit(OpBuilder &b, Location loc,
                                                 Value x, int64_t axis,
                                                 ArrayRef<int64_t> sizes) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "split");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  if (axis < -rank || axis >= rank)
    return emitError(loc) << "split: axis " << axis << " out of range for rank "
                          << rank;
  axis = (axis + rank) % rank;
  int64_t extent = type->getDimSize(axis), total = 0;
  for (int64_t s : sizes) {
    if (s < 0)
      return emitError(loc) << "split: negative size " << s;
    total += s;
  }
  if (ShapedType::isDynamic(extent)) {
    // The sizes decide the extent (ONNX and aten require them to sum to it).
    SmallVector<int64_t> shape(type->getShape());
    shape[axis] = total;
    x = tensor::CastOp::create(b, loc, type->clone(shape), x);
    type = cast<RankedTensorType>(x.getType());
  } else if (total != extent) {
    return emitError(loc) << "split: sizes sum to " << total
                          << ", not the extent of dim " << axis << " of "
                          << *type;
  }
  SmallVector<Value> pieces;
  int64_t offset = 0;
  for (int64_t s : sizes) {
    SmallVector<OpFoldResult> offsets, extents, strides;
    for (int64_t d = 0; d < rank; ++d) {
      offsets.push_back(b.getIndexAttr(d == axis ? offset : 0));
      strides.push_back(b.getIndexAttr(1));
      if (d == axis)
        extents.push_back(b.getIndexAttr(s));
      else if (type->isDynamicDim(d))
        extents.push_back(tensor::DimOp::create(b, loc, x, d).getResult());
      else
        extents.push_back(b.getIndexAttr(type->getDimSize(d)));
    }
    // No static offset may sit at the end of a dim, even for an empty slice.
    if (s == 0 || llvm::is_contained(type->getShape(), 0))
      pieces.push_back(createEmpty(b, loc, extents, type->getElementType()));
    else
      pieces.push_back(
          tensor::ExtractSliceOp::create(b, loc, x, offsets, extents, strides));
    offset += s;
  }
  return pieces;
}

/// Converts integer `idx` to an index in [0, n): negative wraps, then
/// clamps.
static Value normalizeIndex(OpBuilder &b, Location loc, Value idx, Value n) {
  if (!idx.getType().isIndex())
    idx = arith::IndexCastOp::create(b, loc, b.getIndexType(), idx);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value neg =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, idx, zero);
  Value wrapped = arith::SelectOp::create(
      b, loc, neg, arith::AddIOp::create(b, loc, idx, n), idx);
  Value hi = arith::SubIOp::create(b, loc, n, one);
  Value clamped = arith::MinSIOp::create(b, loc, wrapped, hi);
  return arith::MaxSIOp::create(b, loc, clamped, zero);
}

static bool isIntegerTensor(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getElementType().isSignlessInteger();
}

FailureOr<Value> mlprog::buildGather(OpBuilder &b, Location loc, Value x,
                                     Value indices, int64_t axis,
                                     int64_t batchDims) {
  FailureOr<RankedTensorType> xt = getRankedType(loc, x, "gather");
  if (failed(xt))
    return failure();
  if (!isIntegerTensor(indices))
    return emitError(loc) << "gather indices must be an integer tensor, got "
                          << indices.getType();
  auto it = cast<RankedTensorType>(indices.getType());
  int64_t rank = xt->getRank(), ri = it.getRank();
  if (rank == 0 || axis < -rank || axis >= rank)
    return emitError(loc) << "gather: axis " << axis
                          << " out of range for rank " << rank;
  axis = (axis + rank) % rank;
  if (batchDims < 0 || batchDims > axis || batchDims > ri)
    return emitError(loc) << "gather: batch_dims " << batchDims
                          << " out of range for axis " << axis
                          << " and indices of rank " << ri;
  for (int64_t d = 0; d < batchDims; ++d)
    if (!xt->isDynamicDim(d) && !it.isDynamicDim(d) &&
        xt->getDimSize(d) != it.getDimSize(d))
      return emitError(loc) << "gather: batch dim " << d << " of indices " << it
                            << " differs from the input's " << *xt;
  // Result dims: x's [0, axis), indices' [batchDims, ri), x's (axis, rank).
  int64_t gathered = ri - batchDims;
  int64_t outRank = rank - 1 + gathered;
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < outRank; ++d) {
    Value src = x;
    int64_t sd = d;
    if (d >= axis && d < axis + gathered) {
      src = indices;
      sd = d - axis + batchDims;
    } else if (d >= axis + gathered) {
      sd = d - gathered + 1;
    }
    auto st = cast<RankedTensorType>(src.getType());
    sizes.push_back(
        st.isDynamicDim(sd)
            ? OpFoldResult(tensor::DimOp::create(b, loc, src, sd).getResult())
            : OpFoldResult(b.getIndexAttr(st.getDimSize(sd))));
  }
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> idxExprs;
  for (int64_t k = 0; k < batchDims; ++k)
    idxExprs.push_back(getAffineDimExpr(k, ctx));
  for (int64_t k = 0; k < gathered; ++k)
    idxExprs.push_back(getAffineDimExpr(axis + k, ctx));
  Value init = createEmpty(b, loc, sizes, xt->getElementType());
  SmallVector<AffineMap> maps = {
      AffineMap::get(outRank, 0, idxExprs, ctx),
      AffineMap::getMultiDimIdentityMap(outRank, ctx)};
  Value n = tensor::DimOp::create(b, loc, x, axis);
  return linalg::GenericOp::create(
             b, loc, init.getType(), indices, init, maps,
             parallelIterators(outRank),
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               SmallVector<Value> at;
               for (int64_t d = 0; d < rank; ++d) {
                 if (d < axis)
                   at.push_back(linalg::IndexOp::create(nb, nl, d));
                 else if (d == axis)
                   at.push_back(normalizeIndex(nb, nl, args[0], n));
                 else
                   at.push_back(
                       linalg::IndexOp::create(nb, nl, d + gathered - 1));
               }
               linalg::YieldOp::create(
                   nb, nl,
                   tensor::ExtractOp::create(nb, nl, x, at).getResult());
             })
      .getResult(0);
}

FailureOr<Value> mlprog::buildGatherAlongAxis(OpBuilder &b, Location loc,
                                              Value x, Value indices,
                                              int64_t axis) {
  FailureOr<RankedTensorType> xt = getRankedType(loc, x, "gather_along_axis");
  if (failed(xt))
    return failure();
  if (!isIntegerTensor(indices))
    return emitError(loc) << "gather_along_axis indices must be an integer "
                             "tensor, got "
                          << indices.getType();
  auto it = cast<RankedTensorType>(indices.getType());
  int64_t rank = xt->getRank();
  if (it.getRank() != rank || rank == 0 || axis < -rank || axis >= rank)
    return emitError(loc) << "gather_along_axis: indices " << it << " and axis "
                          << axis << " do not fit " << *xt;
  axis = (axis + rank) % rank;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis && !it.isDynamicDim(d) && !xt->isDynamicDim(d) &&
        it.getDimSize(d) > xt->getDimSize(d))
      return emitError(loc) << "gather_along_axis: indices " << it << " exceed "
                            << *xt << " in dim " << d;
  Value init = createEmpty(b, loc, tensor::getMixedSizes(b, loc, indices),
                           xt->getElementType());
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  Value n = tensor::DimOp::create(b, loc, x, axis);
  return linalg::GenericOp::create(
             b, loc, init.getType(), indices, init,
             SmallVector<AffineMap>{id, id}, parallelIterators(rank),
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               SmallVector<Value> at;
               for (int64_t d = 0; d < rank; ++d)
                 at.push_back(
                     d == axis
                         ? normalizeIndex(nb, nl, args[0], n)
                         : linalg::IndexOp::create(nb, nl, d).getResult());
               linalg::YieldOp::create(
                   nb, nl,
                   tensor::ExtractOp::create(nb, nl, x, at).getResult());
             })
      .getResult(0);
}

FailureOr<Value> mlprog::buildSliceDynamic(OpBuilder &b, Location loc, Value x,
                                           ArrayRef<DynamicSliceDim> dims,
                                           ArrayRef<int64_t> hint) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "slice");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  if (int64_t(dims.size()) != rank)
    return emitError(loc) << "slice: " << dims.size() << " dims for rank "
                          << rank;
  IndexMath m{b, loc};
  // Per dim: first position and step (null for whole dims) and extent.
  SmallVector<Value> starts(rank), steps(rank);
  SmallVector<OpFoldResult> sizes;
  for (auto [d, sd] : llvm::enumerate(dims)) {
    if (!sd.start && !sd.stop && !sd.step) {
      sizes.push_back(tensor::getMixedSize(b, loc, x, d));
      continue;
    }
    if (!sd.start || !sd.stop || !sd.step)
      return emitError(loc) << "slice: dim " << d << " is partially given";
    Value zero = m.c(0), one = m.c(1), minusOne = m.c(-1);
    Value n = tensor::DimOp::create(b, loc, x, d);
    Value step = m.index(sd.step);
    step = m.select(m.eq(step, zero), one, step);
    Value neg = m.lt(step, zero);
    Value last = m.sub(n, one);
    Value start =
        m.clamp(m.wrap(m.index(sd.start), n), zero, m.select(neg, last, n));
    Value stop = m.clamp(m.wrap(m.index(sd.stop), n),
                         m.select(neg, minusOne, zero), m.select(neg, last, n));
    Value span = m.select(neg, m.sub(start, stop), m.sub(stop, start));
    Value absStep = m.select(neg, m.sub(zero, step), step);
    Value size = arith::CeilDivSIOp::create(b, loc, m.max(span, zero), absStep);
    starts[d] = start;
    steps[d] = step;
    sizes.push_back(size);
  }
  // Unit steps (the common `x[:, p:p + n]`) are a tensor.extract_slice: a
  // view after bufferization rather than a copy, and a view that in-place
  // writes (a KV cache's `cache[:, :, p:end] = k`) can be inverted.
  auto isUnit = [](const DynamicSliceDim &sd) {
    std::optional<int64_t> c = getConstantIntValue(sd.step);
    return !sd.step || (c && *c == 1);
  };
  if (llvm::all_of(dims, isUnit)) {
    SmallVector<OpFoldResult> offsets, strides(rank, b.getIndexAttr(1));
    for (int64_t d = 0; d < rank; ++d)
      offsets.push_back(starts[d] ? OpFoldResult(starts[d])
                                  : OpFoldResult(b.getIndexAttr(0)));
    Value result =
        tensor::ExtractSliceOp::create(b, loc, x, offsets, sizes, strides);
    return refineToShape(b, loc, result, hint);
  }
  Value init = createEmpty(b, loc, sizes, type->getElementType());
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  Value result =
      linalg::GenericOp::create(
          b, loc, init.getType(), ValueRange(), init,
          SmallVector<AffineMap>{id}, parallelIterators(rank),
          [&](OpBuilder &nb, Location nl, ValueRange) {
            SmallVector<Value> at;
            for (int64_t d = 0; d < rank; ++d) {
              Value i = linalg::IndexOp::create(nb, nl, d);
              if (starts[d])
                i = arith::AddIOp::create(
                    nb, nl, starts[d],
                    arith::MulIOp::create(nb, nl, i, steps[d]));
              at.push_back(i);
            }
            linalg::YieldOp::create(
                nb, nl, tensor::ExtractOp::create(nb, nl, x, at).getResult());
          })
          .getResult(0);
  return refineToShape(b, loc, result, hint);
}

FailureOr<SmallVector<Value>>
mlprog::buildSplitDynamic(OpBuilder &b, Location loc, Value x, int64_t axis,
                          ArrayRef<OpFoldResult> sizes) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "split");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  if (axis < 0 || axis >= rank)
    return emitError(loc) << "split: axis " << axis << " out of range";
  IndexMath m{b, loc};
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)),
      extents = tensor::getMixedSizes(b, loc, x),
      strides(rank, b.getIndexAttr(1));
  // An empty input has only empty pieces (and a static offset 0 into a
  // static extent 0 is not a valid tensor.extract_slice).
  bool empty = llvm::is_contained(type->getShape(), 0);
  SmallVector<Value> pieces;
  OpFoldResult offset = b.getIndexAttr(0);
  for (OpFoldResult size : sizes) {
    offsets[axis] = offset;
    extents[axis] = size;
    pieces.push_back(empty
                         ? createEmpty(b, loc, extents, type->getElementType())
                         : tensor::ExtractSliceOp::create(b, loc, x, offsets,
                                                          extents, strides)
                               .getResult());
    std::optional<int64_t> co = getConstantIntValue(offset),
                           cs = getConstantIntValue(size);
    if (co && cs)
      offset = b.getIndexAttr(*co + *cs);
    else
      offset = m.add(getValueOrCreateConstantIndexOp(b, loc, offset),
                     getValueOrCreateConstantIndexOp(b, loc, size));
  }
  return pieces;
}

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
  } else {
    // A run-time index counts from the end when negative.
    Value i = cast<Value>(index);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value neg =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
    Value n = getValueOrCreateConstantIndexOp(
        b, loc, tensor::getMixedSize(b, loc, x, *d));
    index = arith::SelectOp::create(b, loc, neg,
                                    arith::AddIOp::create(b, loc, i, n), i)
                .getResult();
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
  // A static offset 0 into an empty dim is not a valid slice: the result is
  // empty as well.
  if (llvm::is_contained(shape, 0)) {
    SmallVector<OpFoldResult> resultSizes(sizes);
    resultSizes.erase(resultSizes.begin() + *d);
    return createEmpty(b, loc, resultSizes, type->getElementType());
  }
  return tensor::ExtractSliceOp::create(b, loc, resultType, x, offsets, sizes,
                                        strides)
      .getResult();
}

/// `idx` (index) wrapped if negative and clamped into [0, n).
static Value wrapClamp(OpBuilder &b, Location loc, Value idx, Value n) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value neg =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, idx, zero);
  idx = arith::SelectOp::create(b, loc, neg,
                                arith::AddIOp::create(b, loc, idx, n), idx);
  idx = arith::MinSIOp::create(b, loc, idx,
                               arith::SubIOp::create(b, loc, n, one));
  return arith::MaxSIOp::create(b, loc, idx, zero);
}

FailureOr<Value> mlprog::buildGatherND(OpBuilder &b, Location loc, Value data,
                                       Value indices, int64_t batchDims) {
  FailureOr<RankedTensorType> dt = getRankedType(loc, data, "gather_nd");
  auto it = dyn_cast<RankedTensorType>(indices.getType());
  if (failed(dt))
    return failure();
  if (!it || !it.getElementType().isSignlessInteger() || it.getRank() < 1)
    return emitError(loc) << "gather_nd indices must be an integer tensor of "
                             "rank >= 1";
  int64_t r = dt->getRank(), ri = it.getRank();
  int64_t q = it.getDimSize(ri - 1);
  if (ShapedType::isDynamic(q) || batchDims < 0 || batchDims >= ri ||
      batchDims + q > r)
    return emitError(loc) << "gather_nd: indices " << it << " do not fit "
                          << *dt << " with batch_dims " << batchDims;
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < ri - 1; ++d)
    sizes.push_back(tensor::getMixedSize(b, loc, indices, d));
  for (int64_t d = batchDims + q; d < r; ++d)
    sizes.push_back(tensor::getMixedSize(b, loc, data, d));
  int64_t outRank = sizes.size();
  Value init = createEmpty(b, loc, sizes, dt->getElementType());
  SmallVector<Value> extents;
  for (int64_t d = 0; d < r; ++d)
    extents.push_back(tensor::DimOp::create(b, loc, data, d));
  AffineMap id = AffineMap::getMultiDimIdentityMap(outRank, b.getContext());
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange(), init,
             SmallVector<AffineMap>{id}, parallelIterators(outRank),
             [&](OpBuilder &nb, Location nl, ValueRange) {
               SmallVector<Value> o;
               for (int64_t d = 0; d < outRank; ++d)
                 o.push_back(linalg::IndexOp::create(nb, nl, d));
               SmallVector<Value> at(o.begin(), o.begin() + batchDims);
               for (int64_t k = 0; k < q; ++k) {
                 SmallVector<Value> ip(o.begin(), o.begin() + ri - 1);
                 ip.push_back(arith::ConstantIndexOp::create(nb, nl, k));
                 Value v = toIndex(
                     nb, nl, tensor::ExtractOp::create(nb, nl, indices, ip));
                 at.push_back(wrapClamp(nb, nl, v, extents[batchDims + k]));
               }
               at.append(o.begin() + ri - 1, o.end());
               linalg::YieldOp::create(
                   nb, nl,
                   tensor::ExtractOp::create(nb, nl, data, at).getResult());
             })
      .getResult(0);
}

FailureOr<Value> mlprog::buildSliceUpdate(OpBuilder &b, Location loc, Value x,
                                          Value update, ArrayRef<SliceDim> dims,
                                          ArrayRef<int64_t> squeezeDims) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "slice update");
  FailureOr<RankedTensorType> utype =
      getRankedType(loc, update, "slice update");
  if (failed(type) || failed(utype))
    return failure();
  int64_t rank = type->getRank();
  if (int64_t(dims.size()) != rank || !type->hasStaticShape() ||
      utype->getElementType() != type->getElementType())
    return emitError(loc) << "slice update of " << *type << " with " << *utype
                          << " needs a static shape, one slice per "
                             "dim and one element type";
  SmallVector<int64_t> offsets, sizes, strides, reversed;
  for (int64_t d = 0; d < rank; ++d) {
    if (dims[d].step == 0)
      return emitError(loc) << "slice update: step 0 in dim " << d;
    ResolvedSlice r = resolveSlice(dims[d], type->getDimSize(d));
    if (llvm::is_contained(squeezeDims, d) && r.size != 1)
      return emitError(loc) << "slice update: squeezed dim " << d << " selects "
                            << r.size << " elements";
    sizes.push_back(r.size);
    if (r.step < 0 && r.size > 0) {
      // Walking backwards from start = writing the reversed update forwards
      // from the last position.
      offsets.push_back(r.start + (r.size - 1) * r.step);
      strides.push_back(-r.step);
      reversed.push_back(d);
    } else {
      offsets.push_back(r.start);
      strides.push_back(std::max<int64_t>(r.step, 1));
    }
  }
  SmallVector<int64_t> expected;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(squeezeDims, d))
      expected.push_back(sizes[d]);
  if (utype->getShape() != ArrayRef<int64_t>(expected))
    return emitError(loc) << "slice update: the update " << *utype
                          << " does not match the slice of " << *type;
  if (llvm::is_contained(sizes, 0))
    return x;
  FailureOr<Value> u = buildReshape(b, loc, update, sizes);
  if (succeeded(u) && !reversed.empty()) {
    SmallVector<SliceDim> flip(rank);
    for (int64_t d : reversed)
      flip[d].step = -1;
    u = buildSlice(b, loc, *u, flip);
  }
  if (failed(u))
    return failure();
  return Value(tensor::InsertSliceOp::create(
      b, loc, *u, x,
      ArrayRef<OpFoldResult>(getAsIndexOpFoldResult(b.getContext(), offsets)),
      getAsIndexOpFoldResult(b.getContext(), sizes),
      getAsIndexOpFoldResult(b.getContext(), strides)));
}

FailureOr<Value>
mlprog::buildSliceUpdateDynamic(OpBuilder &b, Location loc, Value x,
                                Value update, ArrayRef<OpFoldResult> starts,
                                ArrayRef<int64_t> strides,
                                ArrayRef<int64_t> squeezeDims) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "slice update");
  FailureOr<RankedTensorType> utype =
      getRankedType(loc, update, "slice update");
  if (failed(type) || failed(utype))
    return failure();
  int64_t rank = type->getRank();
  if (int64_t(starts.size()) != rank || int64_t(strides.size()) != rank ||
      utype->getRank() + int64_t(squeezeDims.size()) != rank ||
      utype->getElementType() != type->getElementType() ||
      llvm::any_of(strides, [](int64_t s) { return s < 1; }))
    return emitError(loc) << "slice update of " << *type << " with " << *utype
                          << " at run-time positions needs positive strides "
                             "and one start per dim";
  // The squeezed dims come back as unit dims; a dynamic update extent is
  // the slice's, read at run time.
  Value u = update;
  for (int64_t d = 0; d < rank; ++d) {
    if (!llvm::is_contained(squeezeDims, d))
      continue;
    FailureOr<Value> expanded = buildUnsqueeze(b, loc, u, d);
    if (failed(expanded))
      return failure();
    u = *expanded;
  }
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(tensor::getMixedSize(b, loc, u, d));
  SmallVector<OpFoldResult> offsets;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  for (int64_t d = 0; d < rank; ++d) {
    std::optional<int64_t> c = getConstantIntValue(starts[d]);
    if (c && *c >= 0) {
      offsets.push_back(b.getIndexAttr(*c));
      continue;
    }
    Value start = getValueOrCreateConstantIndexOp(b, loc, starts[d]);
    Value dim = tensor::DimOp::create(b, loc, x, d);
    Value neg =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, start, zero);
    Value wrapped = arith::AddIOp::create(b, loc, start, dim);
    offsets.push_back(Value(
        arith::SelectOp::create(b, loc, neg, wrapped, start).getResult()));
  }
  return Value(tensor::InsertSliceOp::create(
      b, loc, u, x, offsets, sizes,
      getAsIndexOpFoldResult(b.getContext(), strides)));
}

FailureOr<Value> mlprog::buildSearchSorted(OpBuilder &b, Location loc,
                                           Value sortedSequence, Value values,
                                           bool right, Type resultType) {
  FailureOr<RankedTensorType> st =
      getRankedType(loc, sortedSequence, "searchsorted");
  FailureOr<RankedTensorType> vt = getRankedType(loc, values, "searchsorted");
  if (failed(st) || failed(vt))
    return failure();
  Type et = st->getElementType();
  int64_t sr = st->getRank(), vr = vt->getRank();
  bool leadingMatch = sr == 1 || sr == vr;
  for (int64_t d = 0; leadingMatch && sr > 1 && d + 1 < sr; ++d)
    leadingMatch = st->getDimSize(d) == vt->getDimSize(d);
  if (sr == 0 || !leadingMatch || vt->getElementType() != et ||
      !et.isIntOrFloat() || !resultType.isSignlessInteger())
    return emitError(loc) << "searchsorted: sorted sequence " << *st
                          << " does not fit values " << *vt;
  MLIRContext *ctx = b.getContext();
  // Loops: the dims of `values`, then m along the sequence.
  SmallVector<AffineExpr> seqExprs;
  for (int64_t d = 0; d + 1 < sr; ++d)
    seqExprs.push_back(getAffineDimExpr(d, ctx));
  seqExprs.push_back(getAffineDimExpr(vr, ctx));
  SmallVector<AffineExpr> valueExprs;
  for (int64_t d = 0; d < vr; ++d)
    valueExprs.push_back(getAffineDimExpr(d, ctx));
  AffineMap id = AffineMap::get(vr + 1, 0, valueExprs, ctx);
  SmallVector<AffineMap> maps = {AffineMap::get(vr + 1, 0, seqExprs, ctx), id,
                                 id};
  SmallVector<utils::IteratorType> iters = parallelIterators(vr);
  iters.push_back(utils::IteratorType::reduction);
  Value init = createFilled(b, loc, tensor::getMixedSizes(b, loc, values),
                            b.getIntegerAttr(resultType, 0));
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{sortedSequence, values}, init,
             maps, iters,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value below;
               if (isa<FloatType>(et))
                 below =
                     arith::CmpFOp::create(nb, nl,
                                           right ? arith::CmpFPredicate::OLE
                                                 : arith::CmpFPredicate::OLT,
                                           args[0], args[1]);
               else if (et.isInteger(1))
                 below =
                     arith::CmpIOp::create(nb, nl,
                                           right ? arith::CmpIPredicate::ule
                                                 : arith::CmpIPredicate::ult,
                                           args[0], args[1]);
               else
                 below =
                     arith::CmpIOp::create(nb, nl,
                                           right ? arith::CmpIPredicate::sle
                                                 : arith::CmpIPredicate::slt,
                                           args[0], args[1]);
               Value inc = arith::ExtUIOp::create(nb, nl, resultType, below);
               linalg::YieldOp::create(
                   nb, nl,
                   arith::AddIOp::create(nb, nl, args[2], inc).getResult());
             })
      .getResult(0);
}
