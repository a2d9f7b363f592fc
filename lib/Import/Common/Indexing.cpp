//===- Indexing.cpp - Slice, gather, tile, pad and friends ----------------===//

#include "mlprog/Import/Common/Indexing.h"
#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

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
      // Only bounds that need no extent to resolve: from a non-negative
      // start up to a non-negative stop or the end.
      if (s.step < 0 || s.start.value_or(0) < 0 || s.stop.value_or(0) < 0)
        return emitError(loc) << "slice: dim " << d << " has a dynamic extent";
      resolved.push_back({s.start.value_or(0), n, s.step});
      sizes.push_back(dynamicSliceSize(b, loc, x, d, s));
      continue;
    }
    resolved.push_back(resolveSlice(s, n));
    sizes.push_back(b.getIndexAttr(resolved.back().size));
    anyNegative |= s.step < 0;
  }
  Value result;
  if (!anyNegative) {
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
  if (ShapedType::isDynamic(extent) || total != extent)
    return emitError(loc) << "split: sizes sum to " << total
                          << ", not the extent of dim " << axis << " of "
                          << *type;
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
                                     Value indices, int64_t axis) {
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
  int64_t outRank = rank - 1 + ri;
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < outRank; ++d) {
    Value src = x;
    int64_t sd = d;
    if (d >= axis && d < axis + ri) {
      src = indices;
      sd = d - axis;
    } else if (d >= axis + ri) {
      sd = d - ri + 1;
    }
    auto st = cast<RankedTensorType>(src.getType());
    sizes.push_back(
        st.isDynamicDim(sd)
            ? OpFoldResult(tensor::DimOp::create(b, loc, src, sd).getResult())
            : OpFoldResult(b.getIndexAttr(st.getDimSize(sd))));
  }
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> idxExprs;
  for (int64_t k = 0; k < ri; ++k)
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
                   at.push_back(linalg::IndexOp::create(nb, nl, d + ri - 1));
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
      return emitError(loc) << "pad: reflect/replicate need static extents";
    if (mode == PadMode::Reflect && (low[d] >= n || high[d] >= n))
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

FailureOr<Value> mlprog::buildUpsampleNearest(OpBuilder &b, Location loc,
                                              Value x, double scaleH,
                                              double scaleW) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "upsample");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  if (rank < 3 || !(scaleH > 0) || !(scaleW > 0))
    return emitError(loc) << "upsample needs rank >= 3 and positive scales, "
                             "got "
                          << *type;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  double scales[2] = {scaleH, scaleW};
  int64_t extents[2];
  for (int k = 0; k < 2; ++k) {
    int64_t n = type->getDimSize(rank - 2 + k);
    if (ShapedType::isDynamic(n))
      return emitError(loc) << "upsample needs static spatial extents";
    extents[k] = n;
    int64_t out = int64_t(std::floor(double(n) * scales[k]));
    if (out < 1)
      return emitError(loc) << "upsample: empty output";
    sizes[rank - 2 + k] = b.getIndexAttr(out);
  }
  Value init = createEmpty(b, loc, sizes, type->getElementType());
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange(), init,
             SmallVector<AffineMap>{id}, parallelIterators(rank),
             [&](OpBuilder &nb, Location nl, ValueRange) {
               SmallVector<Value> at;
               for (int64_t d = 0; d < rank - 2; ++d)
                 at.push_back(linalg::IndexOp::create(nb, nl, d));
               for (int k = 0; k < 2; ++k) {
                 Value i = linalg::IndexOp::create(nb, nl, rank - 2 + k);
                 Value f = arith::SIToFPOp::create(
                     nb, nl, nb.getF64Type(),
                     arith::IndexCastOp::create(nb, nl, nb.getI64Type(), i));
                 Value q = math::FloorOp::create(
                     nb, nl,
                     arith::DivFOp::create(
                         nb, nl, f,
                         arith::ConstantOp::create(
                             nb, nl, nb.getF64FloatAttr(scales[k]))));
                 Value src = arith::IndexCastOp::create(
                     nb, nl, nb.getIndexType(),
                     arith::FPToSIOp::create(nb, nl, nb.getI64Type(), q));
                 at.push_back(arith::MinSIOp::create(
                     nb, nl, src,
                     arith::ConstantIndexOp::create(nb, nl, extents[k] - 1)));
               }
               linalg::YieldOp::create(
                   nb, nl,
                   tensor::ExtractOp::create(nb, nl, x, at).getResult());
             })
      .getResult(0);
}

FailureOr<DenseElementsAttr> mlprog::buildRangeAttr(Location loc,
                                                    Type elementType,
                                                    double start, double end,
                                                    double step) {
  if (step == 0)
    return emitError(loc) << "range: step must not be 0";
  double count = std::ceil((end - start) / step);
  if (!(count < double(1 << 30)))
    return emitError(loc) << "range: too many elements";
  int64_t n = std::max<int64_t>(0, int64_t(count));
  auto type = RankedTensorType::get({n}, elementType);
  if (auto ft = dyn_cast<FloatType>(elementType)) {
    SmallVector<APFloat> values;
    for (int64_t i = 0; i < n; ++i) {
      APFloat v(start + double(i) * step);
      bool lost;
      v.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      values.push_back(v);
    }
    return DenseElementsAttr::get(type, values);
  }
  if (!elementType.isSignlessInteger())
    return emitError(loc) << "range: unsupported element type " << elementType;
  SmallVector<APInt> values;
  for (int64_t i = 0; i < n; ++i)
    values.push_back(APInt(elementType.getIntOrFloatBitWidth(),
                           int64_t(start) + i * int64_t(step),
                           /*isSigned=*/true));
  return DenseElementsAttr::get(type, values);
}
