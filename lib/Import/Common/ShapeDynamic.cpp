//===- ShapeDynamic.cpp - Reshapes, pads, squeezes at run time ------------===//

#include "Utils.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

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
  // Extents known at import time (a static extent and constant widths)
  // stay static in the result type when no hint is given.
  SmallVector<int64_t> derived;
  if (hint.empty()) {
    for (int64_t d = 0; d < rank; ++d) {
      std::optional<int64_t> l = getConstantIntValue(low[d]);
      std::optional<int64_t> h = getConstantIntValue(high[d]);
      int64_t n = type->getDimSize(d);
      derived.push_back(l && h && !ShapedType::isDynamic(n)
                            ? std::max<int64_t>(n + *l + *h, 0)
                            : ShapedType::kDynamic);
    }
    hint = derived;
  }
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
  // Reflect / edge / wrap: out[i] = x[map(i - low)] per dim.
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
              if (mode == PadMode::Wrap) {
                Value r = arith::RemSIOp::create(nb, nl, src, n);
                at.push_back(k.wrap(r, n));
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

LogicalResult mlprog::spreadPadWidths(OpBuilder &b, Location loc, int64_t rank,
                                      ArrayRef<OpFoldResult> pads, Value axes,
                                      SmallVectorImpl<OpFoldResult> &low,
                                      SmallVectorImpl<OpFoldResult> &high) {
  if (failed(checkAxesTensor(loc, axes, "pad")))
    return failure();
  IndexMath m{b, loc};
  SmallVector<Value> listed = readIndices(m, axes);
  int64_t k = listed.size();
  if (int64_t(pads.size()) != 2 * k)
    return emitError(loc) << "pad: expected " << 2 * k << " pads for " << k
                          << " axes, got " << pads.size();
  for (Value &a : listed)
    a = m.wrap(a, m.c(rank));
  low.clear();
  high.clear();
  for (int64_t d = 0; d < rank; ++d) {
    Value l = m.c(0), h = m.c(0), dim = m.c(d);
    for (int64_t i = 0; i < k; ++i) {
      Value here = m.eq(listed[i], dim);
      l = m.add(l,
                m.select(here, getValueOrCreateConstantIndexOp(b, loc, pads[i]),
                         m.c(0)));
      h = m.add(h,
                m.select(here,
                         getValueOrCreateConstantIndexOp(b, loc, pads[k + i]),
                         m.c(0)));
    }
    low.push_back(l);
    high.push_back(h);
  }
  return success();
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

SmallVector<OpFoldResult> mlprog::extractShapeSizes(OpBuilder &b, Location loc,
                                                    Value shape) {
  auto st = cast<RankedTensorType>(shape.getType());
  SmallVector<OpFoldResult> sizes;
  for (int64_t i = 0; i < st.getDimSize(0); ++i) {
    Value idx = arith::ConstantIndexOp::create(b, loc, i);
    Value v = tensor::ExtractOp::create(b, loc, shape, ValueRange{idx});
    sizes.push_back(getAsOpFoldResult(toIndex(b, loc, v)));
  }
  return sizes;
}

FailureOr<Value> mlprog::buildReshapeToShapeTensor(OpBuilder &b, Location loc,
                                                   Value x, Value shape,
                                                   bool allowZero,
                                                   ArrayRef<int64_t> hint) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "reshape");
  auto st = dyn_cast<RankedTensorType>(shape.getType());
  if (failed(type))
    return failure();
  if (!st || st.getRank() != 1 || st.isDynamicDim(0) ||
      !st.getElementType().isSignlessInteger())
    return emitError(loc) << "reshape: the shape must be a 1-D integer tensor "
                             "of static length, got "
                          << shape.getType();
  int64_t r = st.getDimSize(0);
  if (!hint.empty() && int64_t(hint.size()) != r)
    return emitError(loc) << "reshape: shape hint does not match";
  SmallVector<OpFoldResult> raw = extractShapeSizes(b, loc, shape);
  SmallVector<Value> sizes;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value minusOne = arith::ConstantIndexOp::create(b, loc, -1);
  Value total = one;
  for (int64_t d = 0; d < type->getRank(); ++d)
    total = arith::MulIOp::create(b, loc, total,
                                  tensor::DimOp::create(b, loc, x, d));
  Value known = one;
  for (int64_t i = 0; i < r; ++i) {
    Value s = getValueOrCreateConstantIndexOp(b, loc, raw[i]);
    if (!allowZero && i < type->getRank()) {
      Value isZero =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, s, zero);
      s = arith::SelectOp::create(b, loc, isZero,
                                  tensor::DimOp::create(b, loc, x, i), s);
    }
    sizes.push_back(s);
    Value isInferred =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, s, minusOne);
    known = arith::MulIOp::create(
        b, loc, known, arith::SelectOp::create(b, loc, isInferred, one, s));
  }
  // Guard the division for empty tensors (0 elements, a known extent 0).
  Value safeKnown = arith::MaxSIOp::create(b, loc, known, one);
  Value inferred = arith::DivSIOp::create(b, loc, total, safeKnown);
  SmallVector<Value> elems;
  for (Value &s : sizes) {
    Value isInferred =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, s, minusOne);
    s = arith::SelectOp::create(b, loc, isInferred, inferred, s);
    elems.push_back(s);
  }
  Value shapeIdx = tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({r}, b.getIndexType()), elems);
  SmallVector<int64_t> dyn(r, ShapedType::kDynamic);
  Value result = tensor::ReshapeOp::create(
      b, loc, RankedTensorType::get(dyn, type->getElementType()), x, shapeIdx);
  if (!hint.empty() &&
      llvm::any_of(hint, [](int64_t d) { return !ShapedType::isDynamic(d); }))
    result = tensor::CastOp::create(
        b, loc, RankedTensorType::get(hint, type->getElementType()), result);
  return result;
}

FailureOr<Value> mlprog::buildExpandToSizes(OpBuilder &b, Location loc, Value x,
                                            ArrayRef<OpFoldResult> sizes) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "expand");
  if (failed(type))
    return failure();
  int64_t rank = std::max<int64_t>(sizes.size(), type->getRank());
  int64_t xr = type->getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<OpFoldResult> out;
  SmallVector<AffineExpr> exprs;
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t xd = d - (rank - xr);
    int64_t sd = d - (rank - int64_t(sizes.size()));
    OpFoldResult xs =
        xd >= 0 ? tensor::getMixedSize(b, loc, x, xd) : b.getIndexAttr(1);
    if (sd < 0) {
      out.push_back(xs);
    } else {
      std::optional<int64_t> cs = getConstantIntValue(sizes[sd]);
      if (cs && *cs == 1) {
        out.push_back(xs);
      } else if (xd >= 0 && type->getDimSize(xd) != 1) {
        // A non-unit input extent is kept (shape entries are 1 or equal).
        out.push_back(xs);
      } else if (cs) {
        out.push_back(sizes[sd]);
      } else {
        Value s = getValueOrCreateConstantIndexOp(b, loc, sizes[sd]);
        Value isOne =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, s, one);
        Value xv = getValueOrCreateConstantIndexOp(b, loc, xs);
        out.push_back(
            arith::SelectOp::create(b, loc, isOne, xv, s).getResult());
      }
    }
    if (xd >= 0)
      exprs.push_back(type->getDimSize(xd) == 1 ? getAffineConstantExpr(0, ctx)
                                                : getAffineDimExpr(d, ctx));
  }
  Value init = createEmpty(b, loc, out, type->getElementType());
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, ctx),
                                 AffineMap::getMultiDimIdentityMap(rank, ctx)};
  return linalg::GenericOp::create(
             b, loc, init.getType(), x, init, maps, parallelIterators(rank),
             [&](OpBuilder &nb, Location nl, ValueRange a) {
               linalg::YieldOp::create(nb, nl, a[0]);
             })
      .getResult(0);
}
