//===- DynamicIndexing.cpp - Run-time slices, pads, reshapes --------------===//

#include "mlprog/Import/Common/DynamicIndexing.h"
#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

namespace {

/// Index arithmetic on `index` values, kept short at the call sites.
struct IndexMath {
  OpBuilder &b;
  Location loc;

  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value max(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value lt(Value x, Value y) { return cmp(arith::CmpIPredicate::slt, x, y); }
  Value eq(Value x, Value y) { return cmp(arith::CmpIPredicate::eq, x, y); }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
  Value clamp(Value x, Value lo, Value hi) { return min(max(x, lo), hi); }
  /// An integer or index scalar as an index (sign-extending).
  Value index(Value v) {
    if (v.getType().isIndex())
      return v;
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  }
  /// `v` + `n` where `v` is negative (a position counted from the end).
  Value wrap(Value v, Value n) { return select(lt(v, c(0)), add(v, n), v); }
};

/// The entries of the 1-D integer tensor `t` (static length) as indices.
SmallVector<Value> readIndices(IndexMath &m, Value t) {
  auto type = cast<RankedTensorType>(t.getType());
  SmallVector<Value> out;
  for (int64_t i = 0; i < type.getDimSize(0); ++i)
    out.push_back(
        m.index(tensor::ExtractOp::create(m.b, m.loc, t, ValueRange{m.c(i)})));
  return out;
}

/// Checks that `axes` is a 1-D signless-integer tensor of static length.
LogicalResult checkAxesTensor(Location loc, Value axes, StringRef what) {
  auto t = dyn_cast<RankedTensorType>(axes.getType());
  if (!t || t.getRank() != 1 || t.isDynamicDim(0) ||
      !t.getElementType().isSignlessInteger())
    return emitError(loc) << what
                          << ": axes must be a 1-D integer tensor of static "
                             "length, got "
                          << axes.getType();
  return success();
}

/// `x` reshaped to the run-time `extents` (index values, same element
/// count), typed with `hint` where it has static extents.
Value reshapeToExtents(OpBuilder &b, Location loc, Value x,
                       ArrayRef<Value> extents, ArrayRef<int64_t> hint) {
  int64_t r = extents.size();
  Value shape = tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({r}, b.getIndexType()), extents);
  Type et = cast<RankedTensorType>(x.getType()).getElementType();
  SmallVector<int64_t> dyn(r, ShapedType::kDynamic);
  Value result = tensor::ReshapeOp::create(
      b, loc, RankedTensorType::get(dyn, et), x, shape);
  return refineToShape(b, loc, result, hint);
}

} // namespace

Value mlprog::refineToShape(OpBuilder &b, Location loc, Value v,
                            ArrayRef<int64_t> hint) {
  auto type = cast<RankedTensorType>(v.getType());
  if (hint.empty() || int64_t(hint.size()) != type.getRank())
    return v;
  SmallVector<int64_t> shape(type.getShape());
  bool refined = false;
  for (auto [s, h] : llvm::zip(shape, hint)) {
    if (ShapedType::isDynamic(h))
      continue;
    if (!ShapedType::isDynamic(s)) {
      if (s != h)
        return v;
      continue;
    }
    s = h;
    refined = true;
  }
  if (!refined)
    return v;
  return tensor::CastOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v);
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

FailureOr<Value> mlprog::buildPadDynamic(OpBuilder &b, Location loc, Value x,
                                         ArrayRef<OpFoldResult> low,
                                         ArrayRef<OpFoldResult> high,
                                         PadMode mode, Value padValue,
                                         ArrayRef<int64_t> hint) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "pad");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  Type et = type->getElementType();
  if (int64_t(low.size()) != rank || int64_t(high.size()) != rank)
    return emitError(loc) << "pad: expected " << rank << " low and high widths";
  if (padValue && padValue.getType() != et)
    return emitError(loc) << "pad: the pad value has type "
                          << padValue.getType() << ", expected " << et;
  IndexMath m{b, loc};
  auto isZero = [](OpFoldResult p) { return isConstantIntValue(p, 0); };
  if (mode == PadMode::Constant) {
    if (!padValue)
      padValue = arith::ConstantOp::create(b, loc, b.getZeroAttr(et));
    // Negative widths crop first; the rest is a tensor.pad.
    SmallVector<OpFoldResult> offsets, sizes, strides(rank, b.getIndexAttr(1)),
        padLow, padHigh;
    bool crops = false;
    for (int64_t d = 0; d < rank; ++d) {
      if (isZero(low[d]) && isZero(high[d])) {
        offsets.push_back(b.getIndexAttr(0));
        sizes.push_back(tensor::getMixedSize(b, loc, x, d));
        padLow.push_back(b.getIndexAttr(0));
        padHigh.push_back(b.getIndexAttr(0));
        continue;
      }
      Value zero = m.c(0);
      Value l = getValueOrCreateConstantIndexOp(b, loc, low[d]);
      Value h = getValueOrCreateConstantIndexOp(b, loc, high[d]);
      Value cropLow = m.max(m.sub(zero, l), zero);
      Value cropHigh = m.max(m.sub(zero, h), zero);
      Value n = tensor::DimOp::create(b, loc, x, d);
      offsets.push_back(cropLow);
      sizes.push_back(m.max(m.sub(m.sub(n, cropLow), cropHigh), zero));
      padLow.push_back(m.max(l, zero));
      padHigh.push_back(m.max(h, zero));
      crops = true;
    }
    Value src = x;
    if (llvm::is_contained(type->getShape(), 0)) {
      // Nothing to crop or copy: the result is all fill.
      SmallVector<OpFoldResult> outSizes;
      for (int64_t d = 0; d < rank; ++d) {
        Value n = tensor::DimOp::create(b, loc, x, d);
        Value l = getValueOrCreateConstantIndexOp(b, loc, low[d]);
        Value h = getValueOrCreateConstantIndexOp(b, loc, high[d]);
        outSizes.push_back(m.max(m.add(m.add(n, l), h), m.c(0)));
      }
      Value init = createEmpty(b, loc, outSizes, et);
      Value filled =
          linalg::FillOp::create(b, loc, padValue, init).getResult(0);
      return refineToShape(b, loc, filled, hint);
    }
    if (crops)
      src = tensor::ExtractSliceOp::create(b, loc, x, offsets, sizes, strides);
    Value padded =
        tensor::PadOp::create(b, loc, Type(), src, padLow, padHigh, padValue);
    return refineToShape(b, loc, padded, hint);
  }
  // Reflect / edge: out[i] = x[map(i - low)] per dim.
  SmallVector<OpFoldResult> sizes;
  SmallVector<Value> lows(rank), extents(rank);
  for (int64_t d = 0; d < rank; ++d) {
    if (isZero(low[d]) && isZero(high[d])) {
      sizes.push_back(tensor::getMixedSize(b, loc, x, d));
      continue;
    }
    lows[d] = getValueOrCreateConstantIndexOp(b, loc, low[d]);
    extents[d] = tensor::DimOp::create(b, loc, x, d);
    Value h = getValueOrCreateConstantIndexOp(b, loc, high[d]);
    sizes.push_back(m.max(m.add(m.add(extents[d], lows[d]), h), m.c(0)));
  }
  Value init = createEmpty(b, loc, sizes, et);
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  Value result =
      linalg::GenericOp::create(
          b, loc, init.getType(), ValueRange(), init,
          SmallVector<AffineMap>{id}, parallelIterators(rank),
          [&](OpBuilder &nb, Location nl, ValueRange) {
            IndexMath k{nb, nl};
            SmallVector<Value> at;
            for (int64_t d = 0; d < rank; ++d) {
              Value i = linalg::IndexOp::create(nb, nl, d);
              if (!lows[d]) {
                at.push_back(i);
                continue;
              }
              Value src = k.sub(i, lows[d]);
              Value n = extents[d];
              Value zero = k.c(0), one = k.c(1);
              if (mode == PadMode::Replicate) {
                at.push_back(k.clamp(src, zero, k.sub(n, one)));
                continue;
              }
              // Reflection has period 2 (n - 1): fold src into it.
              Value period = k.max(k.mul(k.c(2), k.sub(n, one)), one);
              Value r = arith::RemSIOp::create(nb, nl, src, period);
              r = k.select(k.lt(r, zero), k.add(r, period), r);
              r = k.select(k.lt(r, n), r, k.sub(period, r));
              at.push_back(k.clamp(r, zero, k.sub(n, one)));
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

FailureOr<Value> mlprog::buildUnsqueezeDynamic(OpBuilder &b, Location loc,
                                               Value x, Value axes,
                                               ArrayRef<int64_t> hint) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "unsqueeze");
  if (failed(type) || failed(checkAxesTensor(loc, axes, "unsqueeze")))
    return failure();
  int64_t r = type->getRank();
  int64_t k = cast<RankedTensorType>(axes.getType()).getDimSize(0);
  int64_t outRank = r + k;
  IndexMath m{b, loc};
  SmallVector<Value> positions;
  for (Value a : readIndices(m, axes))
    positions.push_back(m.wrap(a, m.c(outRank)));
  // Output position j is new if listed; else it holds input dim
  // j - (number of new positions before j).
  SmallVector<Value> extents;
  Value newBefore = m.c(0);
  Value one = m.c(1), zero = m.c(0);
  for (int64_t j = 0; j < outRank; ++j) {
    Value isNew = arith::ConstantIntOp::create(b, loc, 0, 1);
    for (Value p : positions)
      isNew = arith::OrIOp::create(b, loc, isNew, m.eq(p, m.c(j)));
    Value extent = one;
    if (r > 0) {
      Value src = m.clamp(m.sub(m.c(j), newBefore), zero, m.c(r - 1));
      extent = m.select(isNew, one,
                        tensor::DimOp::create(b, loc, x, src).getResult());
    }
    extents.push_back(extent);
    newBefore = m.add(newBefore, m.select(isNew, one, zero));
  }
  return reshapeToExtents(b, loc, x, extents, hint);
}

FailureOr<Value> mlprog::buildSqueezeDynamic(OpBuilder &b, Location loc,
                                             Value x, Value axes,
                                             ArrayRef<int64_t> hint) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "squeeze");
  if (failed(type) || failed(checkAxesTensor(loc, axes, "squeeze")))
    return failure();
  int64_t r = type->getRank();
  int64_t k = cast<RankedTensorType>(axes.getType()).getDimSize(0);
  if (k > r)
    return emitError(loc) << "squeeze: " << k << " axes for rank " << r;
  int64_t outRank = r - k;
  IndexMath m{b, loc};
  SmallVector<Value> listed;
  for (Value a : readIndices(m, axes))
    listed.push_back(m.wrap(a, m.c(r)));
  // Kept input dim d lands at output position d - (dropped dims before d).
  SmallVector<Value> extents(outRank, m.c(1));
  Value droppedBefore = m.c(0);
  for (int64_t d = 0; d < r; ++d) {
    Value drop = arith::ConstantIntOp::create(b, loc, 0, 1);
    for (Value a : listed)
      drop = arith::OrIOp::create(b, loc, drop, m.eq(a, m.c(d)));
    Value pos = m.sub(m.c(d), droppedBefore);
    Value n = tensor::DimOp::create(b, loc, x, d);
    for (int64_t j = 0; j < outRank; ++j) {
      Value here = arith::AndIOp::create(
          b, loc, m.eq(pos, m.c(j)),
          arith::XOrIOp::create(b, loc, drop,
                                arith::ConstantIntOp::create(b, loc, 1, 1)));
      extents[j] = m.select(here, n, extents[j]);
    }
    droppedBefore = m.add(droppedBefore, m.select(drop, m.c(1), m.c(0)));
  }
  return reshapeToExtents(b, loc, x, extents, hint);
}
