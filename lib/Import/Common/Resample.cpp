//===- Resample.cpp - Resize, grid sampling and ROI pooling ---------------===//
//
// Every builder here is one linalg.generic over the output whose body
// computes source coordinates in f64 and gathers neighbours with
// tensor.extract at indices clamped into range.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Import/Common/Resample.h"
#include "ResampleAntialias.h"
#include "Utils.h"
#include "mlprog/Import/Common/LinearAlgebra.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

namespace {
/// Scalar f64 / index arithmetic at one insertion point, to keep the
/// coordinate formulas readable.
struct Scalar {
  OpBuilder &b;
  Location loc;

  Value f(double v) {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
  }
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, loc, x, y); }
  Value neg(Value x) { return arith::NegFOp::create(b, loc, x); }
  Value floor(Value x) { return math::FloorOp::create(b, loc, x); }
  Value ceil(Value x) { return math::CeilOp::create(b, loc, x); }
  Value abs(Value x) { return math::AbsFOp::create(b, loc, x); }
  Value rem(Value x, Value y) { return arith::RemFOp::create(b, loc, x, y); }
  Value maxf(Value x, Value y) {
    return arith::MaximumFOp::create(b, loc, x, y);
  }
  Value minf(Value x, Value y) {
    return arith::MinimumFOp::create(b, loc, x, y);
  }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value icmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value orI(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value andI(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value addI(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value subI(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  /// index -> f64.
  Value toF(Value i) {
    if (std::optional<int64_t> c = getConstantIntValue(i))
      return f(double(*c));
    return arith::SIToFPOp::create(
        b, loc, b.getF64Type(),
        arith::IndexCastOp::create(b, loc, b.getI64Type(), i));
  }
  /// Integral-valued f64 -> index.
  Value toIdx(Value v) {
    return arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        arith::FPToSIOp::create(b, loc, b.getI64Type(), v));
  }
  /// Any float or integer scalar -> f64.
  Value widen(Value v) {
    Type t = v.getType();
    if (t.isF64())
      return v;
    if (auto ft = dyn_cast<FloatType>(t))
      return ft.getWidth() < 64
                 ? Value(arith::ExtFOp::create(b, loc, b.getF64Type(), v))
                 : Value(arith::TruncFOp::create(b, loc, b.getF64Type(), v));
    if (t.isIndex())
      return toF(v);
    return arith::SIToFPOp::create(b, loc, b.getF64Type(), v);
  }
  /// f64 -> float type `t`.
  Value narrow(Value v, Type t) {
    auto ft = cast<FloatType>(t);
    if (ft.getWidth() == 64)
      return v;
    return arith::TruncFOp::create(b, loc, t, v);
  }
  /// Clamps index `i` into [0, n - 1] (`nMinus1` = n - 1).
  Value clampIdx(Value i, Value nMinus1) {
    Value lo = arith::MaxSIOp::create(b, loc, i, idx(0));
    return arith::MinSIOp::create(b, loc, lo, nMinus1);
  }
  /// Whether index `i` lies in [0, n).
  Value inRange(Value i, Value n) {
    return andI(icmp(arith::CmpIPredicate::sge, i, idx(0)),
                icmp(arith::CmpIPredicate::slt, i, n));
  }
};

/// A float OpFoldResult as an f64 Value; null if it is neither a FloatAttr
/// nor a float scalar Value.
Value materializeF64(Scalar &s, OpFoldResult v) {
  if (std::optional<double> c = constantFloat(v))
    return s.f(*c);
  auto value = dyn_cast_if_present<Value>(v);
  if (!value || !(isa<FloatType>(value.getType())))
    return Value();
  return s.widen(value);
}

/// An index OpFoldResult as an index Value.
Value materializeIndex(Scalar &s, OpFoldResult v) {
  if (std::optional<int64_t> c = getConstantIntValue(v))
    return s.idx(*c);
  return cast<Value>(v);
}

/// Keys' cubic convolution weights of the 4 neighbours floor(c) - 1 ..
/// floor(c) + 2 for t = c - floor(c) (ONNX's cubic_coeffs, PyTorch's
/// get_cubic_upsample_coefficients).
SmallVector<Value, 4> cubicWeights(Scalar &s, Value t, double a) {
  Value A = s.f(a), one = s.f(1.0);
  // |d| <= 1: ((A + 2) d - (A + 3)) d^2 + 1.
  auto near = [&](Value d) {
    Value r = s.sub(s.mul(s.f(a + 2), d), s.f(a + 3));
    return s.add(s.mul(s.mul(r, d), d), one);
  };
  // 1 < |d| < 2: ((A d - 5A) d + 8A) d - 4A.
  auto far = [&](Value d) {
    Value r = s.sub(s.mul(A, d), s.f(5 * a));
    r = s.add(s.mul(r, d), s.f(8 * a));
    return s.sub(s.mul(r, d), s.f(4 * a));
  };
  Value u = s.sub(one, t);
  return {far(s.add(t, one)), near(t), near(u), far(s.add(u, one))};
}

/// Per-axis data of buildResize.
struct ResizeAxis {
  bool identity = false;
  Value in, inMinus1; // index
  Value inF, outF;    // f64
  Value scale, len;   // f64
  Value roiStart, roiEnd;
};

/// The source coordinate of output index `xi` (f64) along `axis`.
Value sourceCoordinate(Scalar &s, const ResizeAxis &axis, Value xi,
                       CoordinateTransform transform) {
  Value half = s.f(0.5), one = s.f(1.0);
  auto halfPixel = [&] {
    return s.sub(s.div(s.add(xi, half), axis.scale), half);
  };
  switch (transform) {
  case CoordinateTransform::HalfPixel:
    return halfPixel();
  case CoordinateTransform::HalfPixelSymmetric: {
    Value adjustment = s.div(axis.outF, axis.len);
    Value offset = s.mul(s.mul(axis.inF, half), s.sub(one, adjustment));
    return s.add(offset, halfPixel());
  }
  case CoordinateTransform::PytorchHalfPixel:
    return s.select(s.cmp(arith::CmpFPredicate::OEQ, axis.len, one),
                    s.neg(half), halfPixel());
  case CoordinateTransform::AlignCorners: {
    Value c = s.div(s.mul(xi, s.sub(axis.inF, one)), s.sub(axis.len, one));
    return s.select(s.cmp(arith::CmpFPredicate::OEQ, axis.len, one), s.f(0.0),
                    c);
  }
  case CoordinateTransform::Asymmetric:
    return s.div(xi, axis.scale);
  case CoordinateTransform::TfHalfPixelForNN:
    return s.div(s.add(xi, half), axis.scale);
  case CoordinateTransform::TfCropAndResize: {
    Value inM1 = s.sub(axis.inF, one);
    Value extent = s.mul(s.sub(axis.roiEnd, axis.roiStart), inM1);
    Value single = s.div(extent, s.f(2.0));
    Value many = s.div(s.mul(xi, extent), s.sub(axis.outF, one));
    Value c = s.select(s.cmp(arith::CmpFPredicate::OEQ, axis.outF, one), single,
                       many);
    return s.add(c, s.mul(axis.roiStart, inM1));
  }
  }
  return halfPixel();
}

/// The neighbour index nearest to `c` (f64) along `axis`, clamped.
Value nearestIndex(Scalar &s, const ResizeAxis &axis, Value c,
                   NearestRounding rounding) {
  Value fl = s.floor(c);
  Value t = s.sub(c, fl);
  Value up = s.add(fl, s.f(1.0));
  Value r;
  switch (rounding) {
  case NearestRounding::RoundPreferFloor:
    r = s.select(s.cmp(arith::CmpFPredicate::OLE, t, s.f(0.5)), fl, up);
    break;
  case NearestRounding::RoundPreferCeil:
    r = s.select(s.cmp(arith::CmpFPredicate::OLT, t, s.f(0.5)), fl, up);
    break;
  case NearestRounding::Floor:
    r = fl;
    break;
  case NearestRounding::Ceil:
    r = s.ceil(c);
    break;
  case NearestRounding::Simple:
    r = s.select(s.cmp(arith::CmpFPredicate::OLT, axis.scale, s.f(1.0)),
                 s.ceil(c), fl);
    break;
  }
  return s.clampIdx(s.toIdx(r), axis.inMinus1);
}
} // namespace

std::optional<double> mlprog::detail::constantFloat(OpFoldResult v) {
  if (auto attr = dyn_cast_if_present<Attribute>(v)) {
    if (auto f = dyn_cast<FloatAttr>(attr))
      return f.getValueAsDouble();
    if (auto i = dyn_cast<IntegerAttr>(attr))
      return double(i.getInt());
  }
  return std::nullopt;
}

FailureOr<Value> mlprog::buildResize(OpBuilder &b, Location loc, Value x,
                                     ArrayRef<OpFoldResult> outSizes,
                                     ArrayRef<OpFoldResult> scales,
                                     ArrayRef<OpFoldResult> roi,
                                     const ResizeOptions &options) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "resize");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  Type elementType = type->getElementType();
  bool interpolate = options.mode != ResampleMode::Nearest;
  bool crop = options.transform == CoordinateTransform::TfCropAndResize;
  if (int64_t(outSizes.size()) != rank)
    return emitError(loc) << "resize: " << outSizes.size()
                          << " output sizes for rank " << rank;
  if (!scales.empty() && int64_t(scales.size()) != rank)
    return emitError(loc) << "resize: " << scales.size() << " scales for rank "
                          << rank;
  if (crop && int64_t(roi.size()) != 2 * rank)
    return emitError(loc) << "resize: tf_crop_and_resize needs " << 2 * rank
                          << " roi values, got " << roi.size();
  if (interpolate && !isa<FloatType>(elementType))
    return emitError(loc) << "resize: linear and cubic interpolation need a "
                             "float tensor, got "
                          << *type;
  if (!interpolate && crop && !isa<FloatType>(elementType) &&
      !isa<IntegerType>(elementType))
    return emitError(loc) << "resize: unsupported element type " << elementType;
  for (OpFoldResult sc : scales)
    if (std::optional<double> c = constantFloat(sc); c && !(*c > 0))
      return emitError(loc) << "resize: scales must be positive, got " << *c;
  if (options.antialias && interpolate)
    return buildAntialiasedResize(b, loc, x, outSizes, scales, options);

  Scalar s{b, loc};
  SmallVector<OpFoldResult> inSizes = tensor::getMixedSizes(b, loc, x);
  SmallVector<ResizeAxis> axes(rank);
  SmallVector<int64_t> resultShape;
  for (int64_t d = 0; d < rank; ++d) {
    ResizeAxis &axis = axes[d];
    std::optional<int64_t> in = getConstantIntValue(inSizes[d]);
    std::optional<int64_t> out = getConstantIntValue(outSizes[d]);
    resultShape.push_back(out ? *out : ShapedType::kDynamic);
    if (out && *out < 0)
      return emitError(loc) << "resize: negative output size " << *out;
    // Axes that provably map every index to itself are read in place.
    bool unit = in && out && *in == 1 && *out == 1;
    // A scale of 1 (given, or implied by equal extents) maps x to x in
    // every transform but the two that shift or crop.
    bool shifts =
        crop || options.transform == CoordinateTransform::TfHalfPixelForNN;
    bool sameSize =
        !shifts && (scales.empty() ? in && out && *in == *out
                                   : constantFloat(scales[d]) == 1.0);
    if (unit || sameSize) {
      axis.identity = true;
      continue;
    }
    axis.in = materializeIndex(s, inSizes[d]);
    axis.inMinus1 = s.subI(axis.in, s.idx(1));
    axis.inF = s.toF(axis.in);
    axis.outF = s.toF(materializeIndex(s, outSizes[d]));
    if (scales.empty()) {
      axis.scale = s.div(axis.outF, axis.inF);
      axis.len = axis.outF;
    } else {
      axis.scale = materializeF64(s, scales[d]);
      if (!axis.scale)
        return emitError(loc) << "resize: scale " << d << " is not a float";
      axis.len = s.mul(axis.scale, axis.inF);
    }
    if (crop) {
      axis.roiStart = materializeF64(s, roi[d]);
      axis.roiEnd = materializeF64(s, roi[rank + d]);
      if (!axis.roiStart || !axis.roiEnd)
        return emitError(loc) << "resize: roi values must be floats";
    }
  }

  SmallVector<Value> dynamicSizes;
  for (int64_t d = 0; d < rank; ++d)
    if (ShapedType::isDynamic(resultShape[d]))
      dynamicSizes.push_back(materializeIndex(s, outSizes[d]));
  auto resultType = RankedTensorType::get(resultShape, elementType);
  Value init = tensor::EmptyOp::create(b, loc, resultType, dynamicSizes);
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());

  auto body = [&](OpBuilder &nb, Location nl, ValueRange) {
    Scalar t{nb, nl};
    // Per axis: the candidate indices and their weights (one index and no
    // weight for nearest and identity axes).
    SmallVector<SmallVector<Value, 4>> indices(rank), weights(rank);
    Value outside;
    for (int64_t d = 0; d < rank; ++d) {
      Value i = linalg::IndexOp::create(nb, nl, d);
      const ResizeAxis &axis = axes[d];
      if (axis.identity) {
        indices[d].push_back(i);
        continue;
      }
      Value c = sourceCoordinate(t, axis, t.toF(i), options.transform);
      if (crop) {
        Value out =
            t.orI(t.cmp(arith::CmpFPredicate::OLT, c, t.f(0.0)),
                  t.cmp(arith::CmpFPredicate::OGT, c, t.sub(axis.inF, t.f(1))));
        outside = outside ? t.orI(outside, out) : out;
      }
      if (!interpolate) {
        indices[d].push_back(nearestIndex(t, axis, c, options.nearest));
        continue;
      }
      Value fl = t.floor(c);
      Value frac = t.sub(c, fl);
      Value base = t.toIdx(fl);
      SmallVector<Value, 4> w;
      int64_t first;
      if (options.mode == ResampleMode::Linear) {
        w = {t.sub(t.f(1.0), frac), frac};
        first = 0;
      } else {
        w = cubicWeights(t, frac, options.cubicCoeffA);
        first = -1;
      }
      Value sum;
      for (auto [k, wk] : llvm::enumerate(w)) {
        int64_t offset = first + int64_t(k);
        Value raw = offset ? t.addI(base, t.idx(offset)) : base;
        if (options.excludeOutside) {
          wk = t.select(t.inRange(raw, axis.in), wk, t.f(0.0));
          sum = sum ? t.add(sum, wk) : wk;
        }
        indices[d].push_back(t.clampIdx(raw, axis.inMinus1));
      }
      if (options.excludeOutside)
        for (Value &wk : w)
          wk = t.div(wk, sum);
      weights[d] = std::move(w);
    }

    Value result;
    if (!interpolate) {
      SmallVector<Value> at;
      for (auto &c : indices)
        at.push_back(c.front());
      result = tensor::ExtractOp::create(nb, nl, x, at);
    } else {
      // Sum over every combination of per-axis neighbours.
      SmallVector<int64_t> pick(rank, 0);
      Value acc;
      while (true) {
        SmallVector<Value> at;
        Value w;
        for (int64_t d = 0; d < rank; ++d) {
          at.push_back(indices[d][pick[d]]);
          if (!weights[d].empty())
            w = w ? t.mul(w, weights[d][pick[d]]) : weights[d][pick[d]];
        }
        Value v = t.widen(tensor::ExtractOp::create(nb, nl, x, at));
        Value term = w ? t.mul(w, v) : v;
        acc = acc ? t.add(acc, term) : term;
        int64_t d = rank - 1;
        for (; d >= 0; --d) {
          if (++pick[d] < int64_t(indices[d].size()))
            break;
          pick[d] = 0;
        }
        if (d < 0)
          break;
      }
      result = t.narrow(acc, elementType);
    }
    if (outside) {
      Value extrapolated =
          createScalar(nb, nl, elementType, options.extrapolationValue);
      result = t.select(outside, extrapolated, result);
    }
    linalg::YieldOp::create(nb, nl, result);
  };
  return linalg::GenericOp::create(b, loc, resultType, ValueRange(), init,
                                   SmallVector<AffineMap>{id},
                                   parallelIterators(rank), body)
      .getResult(0);
}

//===--- GridSample -------------------------------------------------------===//

namespace {
/// PyTorch's reflect_coordinates: mirrors `c` into [low/2, high/2].
Value reflect(Scalar &s, Value c, Value twiceLow, Value twiceHigh) {
  Value half = s.f(0.5);
  Value lo = s.mul(twiceLow, half);
  Value span = s.mul(s.sub(twiceHigh, twiceLow), half);
  Value a = s.abs(s.sub(c, lo));
  Value extra = s.rem(a, span);
  Value flips = s.floor(s.div(a, span));
  Value even =
      s.cmp(arith::CmpFPredicate::OEQ, s.rem(flips, s.f(2.0)), s.f(0.0));
  Value r = s.select(even, s.add(extra, lo), s.add(s.sub(span, extra), lo));
  Value degenerate = s.cmp(arith::CmpFPredicate::OEQ, twiceLow, twiceHigh);
  return s.select(degenerate, s.f(0.0), r);
}

/// One spatial axis of buildGridSample.
struct GridAxis {
  Value size, sizeF; // index, f64
};

/// Applies the padding mode to a pixel coordinate (PyTorch's
/// compute_coordinates).
Value padCoordinate(Scalar &s, const GridAxis &axis, Value c,
                    GridSamplePadding padding, bool alignCorners) {
  Value maxC = s.sub(axis.sizeF, s.f(1.0));
  auto clip = [&](Value v) { return s.minf(s.maxf(v, s.f(0.0)), maxC); };
  switch (padding) {
  case GridSamplePadding::Zeros:
    return c;
  case GridSamplePadding::Border:
    return clip(c);
  case GridSamplePadding::Reflection:
    if (alignCorners)
      return clip(reflect(s, c, s.f(0.0), s.mul(s.f(2.0), maxC)));
    return clip(
        reflect(s, c, s.f(-1.0), s.sub(s.mul(s.f(2.0), axis.sizeF), s.f(1.0))));
  }
  return c;
}
} // namespace

FailureOr<Value> mlprog::buildGridSample(OpBuilder &b, Location loc, Value x,
                                         Value grid, GridSampleMode mode,
                                         GridSamplePadding padding,
                                         bool alignCorners) {
  FailureOr<RankedTensorType> xt = getRankedType(loc, x, "grid_sample");
  FailureOr<RankedTensorType> gt = getRankedType(loc, grid, "grid_sample");
  if (failed(xt) || failed(gt))
    return failure();
  int64_t rank = xt->getRank(), nd = rank - 2;
  if ((rank != 4 && rank != 5) || gt->getRank() != rank)
    return emitError(loc) << "grid_sample: expected a 4-D or 5-D input and a "
                             "grid of its rank, got "
                          << *xt << " and " << *gt;
  if (!isa<FloatType>(xt->getElementType()) ||
      !isa<FloatType>(gt->getElementType()))
    return emitError(loc) << "grid_sample: expected float tensors, got " << *xt
                          << " and " << *gt;
  if (gt->getDimSize(rank - 1) != nd && !gt->isDynamicDim(rank - 1))
    return emitError(loc) << "grid_sample: the grid's last dim must be " << nd
                          << ", got " << *gt;
  if (nd == 3 && mode == GridSampleMode::Bicubic)
    return emitError(loc) << "grid_sample: bicubic interpolation needs a 4-D "
                             "input";
  int64_t n = xt->getDimSize(0), gn = gt->getDimSize(0);
  if (!ShapedType::isDynamic(n) && !ShapedType::isDynamic(gn) && n != gn)
    return emitError(loc) << "grid_sample: batch " << n << " of the input and "
                          << gn << " of the grid differ";

  Scalar s{b, loc};
  SmallVector<OpFoldResult> xs = tensor::getMixedSizes(b, loc, x);
  SmallVector<OpFoldResult> gs = tensor::getMixedSizes(b, loc, grid);
  // Spatial axes in the input's order (D,) H, W.
  SmallVector<GridAxis> axes;
  for (int64_t d = 0; d < nd; ++d) {
    GridAxis axis{materializeIndex(s, xs[2 + d]), Value()};
    axis.sizeF = s.toF(axis.size);
    axes.push_back(axis);
  }
  Type elementType = xt->getElementType();
  SmallVector<OpFoldResult> outSizes = {xs[0], xs[1]};
  for (int64_t d = 0; d < nd; ++d)
    outSizes.push_back(gs[1 + d]);
  Value init = createEmpty(b, loc, outSizes, elementType);
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());

  auto body = [&](OpBuilder &nb, Location nl, ValueRange) {
    Scalar t{nb, nl};
    SmallVector<Value> loops;
    for (int64_t d = 0; d < rank; ++d)
      loops.push_back(linalg::IndexOp::create(nb, nl, d));
    Value bi = loops[0], ci = loops[1];
    auto gridAt = [&](int64_t k) {
      SmallVector<Value> at = {bi};
      at.append(loops.begin() + 2, loops.end());
      at.push_back(t.idx(k));
      return t.widen(tensor::ExtractOp::create(nb, nl, grid, at));
    };
    // Normalized [-1, 1] -> pixel coordinates.
    auto unnormalize = [&](Value g, const GridAxis &axis) {
      Value one = t.f(1.0);
      if (alignCorners)
        return t.mul(t.mul(t.add(g, one), t.f(0.5)), t.sub(axis.sizeF, one));
      return t.mul(t.sub(t.mul(t.add(g, one), axis.sizeF), one), t.f(0.5));
    };
    // Grid component k addresses the spatial axis nd - 1 - k (x is W).
    SmallVector<Value> c(nd);
    for (int64_t d = 0; d < nd; ++d)
      c[d] = unnormalize(gridAt(nd - 1 - d), axes[d]);
    // Reads x at integer coordinates (f64, one per spatial axis), 0 outside
    // the input.
    auto read = [&](ArrayRef<Value> coords) {
      SmallVector<Value> at = {bi, ci};
      Value ok;
      for (int64_t d = 0; d < nd; ++d) {
        Value i = t.toIdx(coords[d]);
        Value in = t.inRange(i, axes[d].size);
        ok = ok ? t.andI(ok, in) : in;
        at.push_back(t.clampIdx(i, t.subI(axes[d].size, t.idx(1))));
      }
      Value v = t.widen(tensor::ExtractOp::create(nb, nl, x, at));
      return t.select(ok, v, t.f(0.0));
    };
    Value acc;
    if (mode == GridSampleMode::Bicubic) {
      Value cx = c[1], cy = c[0];
      Value fx = t.floor(cx), fy = t.floor(cy);
      SmallVector<Value, 4> wx = cubicWeights(t, t.sub(cx, fx), -0.75);
      SmallVector<Value, 4> wy = cubicWeights(t, t.sub(cy, fy), -0.75);
      for (int64_t j = 0; j < 4; ++j) {
        Value py = padCoordinate(t, axes[0], t.add(fy, t.f(double(j - 1))),
                                 padding, alignCorners);
        Value row;
        for (int64_t i = 0; i < 4; ++i) {
          Value px = padCoordinate(t, axes[1], t.add(fx, t.f(double(i - 1))),
                                   padding, alignCorners);
          // Padded coordinates are integral or clipped to the border.
          Value term = t.mul(wx[i], read({t.floor(py), t.floor(px)}));
          row = row ? t.add(row, term) : term;
        }
        Value term = t.mul(wy[j], row);
        acc = acc ? t.add(acc, term) : term;
      }
    } else {
      for (int64_t d = 0; d < nd; ++d)
        c[d] = padCoordinate(t, axes[d], c[d], padding, alignCorners);
      if (mode == GridSampleMode::Nearest) {
        SmallVector<Value> r;
        for (Value v : c)
          r.push_back(math::RoundEvenOp::create(nb, nl, v));
        acc = read(r);
      } else {
        // (Bi/tri)linear: the 2^nd corners, the first axis outermost.
        SmallVector<Value> lo(nd), frac(nd), rest(nd);
        for (int64_t d = 0; d < nd; ++d) {
          lo[d] = t.floor(c[d]);
          frac[d] = t.sub(c[d], lo[d]);
          rest[d] = t.sub(t.f(1.0), frac[d]);
        }
        for (int64_t corner = 0; corner < (int64_t(1) << nd); ++corner) {
          SmallVector<Value> at(nd);
          Value w;
          for (int64_t d = 0; d < nd; ++d) {
            bool high = (corner >> (nd - 1 - d)) & 1;
            at[d] = high ? t.add(lo[d], t.f(1.0)) : lo[d];
            Value wd = high ? frac[d] : rest[d];
            w = w ? t.mul(w, wd) : wd;
          }
          Value term = t.mul(w, read(at));
          acc = acc ? t.add(acc, term) : term;
        }
      }
    }
    linalg::YieldOp::create(nb, nl, t.narrow(acc, elementType));
  };
  return linalg::GenericOp::create(b, loc, init.getType(), ValueRange(), init,
                                   SmallVector<AffineMap>{id},
                                   parallelIterators(rank), body)
      .getResult(0);
}

//===--- RoiAlign ---------------------------------------------------------===//

FailureOr<Value> mlprog::buildRoiAlign(OpBuilder &b, Location loc, Value x,
                                       Value rois, Value batchIndices,
                                       RoiPoolMode mode, int64_t outputHeight,
                                       int64_t outputWidth,
                                       int64_t samplingRatio,
                                       double spatialScale, bool halfPixel) {
  FailureOr<RankedTensorType> xt = getRankedType(loc, x, "roi_align");
  FailureOr<RankedTensorType> rt = getRankedType(loc, rois, "roi_align");
  FailureOr<RankedTensorType> it =
      getRankedType(loc, batchIndices, "roi_align");
  if (failed(xt) || failed(rt) || failed(it))
    return failure();
  if (xt->getRank() != 4 || rt->getRank() != 2 || it->getRank() != 1)
    return emitError(loc) << "roi_align: expected a 4-D input, 2-D rois and "
                             "1-D batch indices, got "
                          << *xt << ", " << *rt << " and " << *it;
  if (!isa<FloatType>(xt->getElementType()) ||
      !isa<FloatType>(rt->getElementType()) ||
      !it.value().getElementType().isSignlessInteger())
    return emitError(loc) << "roi_align: expected float input and rois and "
                             "integer batch indices";
  if (!rt->isDynamicDim(1) && rt->getDimSize(1) != 4)
    return emitError(loc) << "roi_align: rois must be [R, 4], got " << *rt;
  if (outputHeight < 1 || outputWidth < 1)
    return emitError(loc) << "roi_align: output extents must be positive, got "
                          << outputHeight << "x" << outputWidth;

  Scalar s{b, loc};
  SmallVector<OpFoldResult> xs = tensor::getMixedSizes(b, loc, x);
  Value n = materializeIndex(s, xs[0]);
  Value h = materializeIndex(s, xs[2]), w = materializeIndex(s, xs[3]);
  Value hF = s.toF(h), wF = s.toF(w);
  Type elementType = xt->getElementType();
  SmallVector<OpFoldResult> outSizes = {tensor::getMixedSize(b, loc, rois, 0),
                                        xs[1], b.getIndexAttr(outputHeight),
                                        b.getIndexAttr(outputWidth)};
  Value init = createEmpty(b, loc, outSizes, elementType);
  AffineMap id = AffineMap::getMultiDimIdentityMap(4, b.getContext());
  bool isMax = mode == RoiPoolMode::Max;

  auto body = [&](OpBuilder &nb, Location nl, ValueRange) {
    Scalar t{nb, nl};
    Value ri = linalg::IndexOp::create(nb, nl, 0);
    Value ci = linalg::IndexOp::create(nb, nl, 1);
    Value ph = t.toF(linalg::IndexOp::create(nb, nl, 2));
    Value pw = t.toF(linalg::IndexOp::create(nb, nl, 3));
    auto roiAt = [&](int64_t k) {
      Value v = t.widen(
          tensor::ExtractOp::create(nb, nl, rois, ValueRange{ri, t.idx(k)}));
      return t.sub(t.mul(v, t.f(spatialScale)), t.f(halfPixel ? 0.5 : 0.0));
    };
    Value x1 = roiAt(0), y1 = roiAt(1), x2 = roiAt(2), y2 = roiAt(3);
    Value batch = arith::IndexCastOp::create(
        nb, nl, nb.getIndexType(),
        tensor::ExtractOp::create(nb, nl, batchIndices, ValueRange{ri}));
    batch = t.clampIdx(batch, t.subI(n, t.idx(1)));
    Value roiW = t.sub(x2, x1), roiH = t.sub(y2, y1);
    if (!halfPixel) {
      roiW = t.maxf(roiW, t.f(1.0));
      roiH = t.maxf(roiH, t.f(1.0));
    }
    Value binH = t.div(roiH, t.f(double(outputHeight)));
    Value binW = t.div(roiW, t.f(double(outputWidth)));
    Value gridH = samplingRatio > 0 ? t.f(double(samplingRatio)) : t.ceil(binH);
    Value gridW = samplingRatio > 0 ? t.f(double(samplingRatio)) : t.ceil(binW);
    Value count = t.maxf(t.mul(gridH, gridW), t.f(1.0));
    Value startY = t.add(y1, t.mul(ph, binH));
    Value startX = t.add(x1, t.mul(pw, binW));
    Value stepY = t.div(binH, gridH), stepX = t.div(binW, gridW);

    // One bilinear sample (onnxruntime's pre_calc_for_bilinear_interpolate):
    // 0 more than a pixel outside, otherwise clamped to the border. Avg mode
    // sums the weighted corners, Max takes the largest weighted corner.
    auto sample = [&](Scalar &u, Value y, Value xx) {
      Value out = u.orI(u.orI(u.cmp(arith::CmpFPredicate::OLT, y, u.f(-1.0)),
                              u.cmp(arith::CmpFPredicate::OGT, y, hF)),
                        u.orI(u.cmp(arith::CmpFPredicate::OLT, xx, u.f(-1.0)),
                              u.cmp(arith::CmpFPredicate::OGT, xx, wF)));
      auto axis = [&](Value c, Value sizeF) {
        c = u.maxf(c, u.f(0.0));
        Value last = u.sub(sizeF, u.f(1.0));
        Value atEnd = u.cmp(arith::CmpFPredicate::OGE, u.floor(c), last);
        Value lo = u.select(atEnd, last, u.floor(c));
        Value hi = u.select(atEnd, last, u.add(lo, u.f(1.0)));
        Value frac = u.select(atEnd, u.f(0.0), u.sub(c, lo));
        return std::make_tuple(lo, hi, frac);
      };
      auto [yl, yh, ly] = axis(y, hF);
      auto [xl, xh, lx] = axis(xx, wF);
      Value hy = u.sub(u.f(1.0), ly), hx = u.sub(u.f(1.0), lx);
      auto at = [&](Value yy, Value xv) {
        // Clamped again so that skipped samples never read out of bounds.
        Value yi = u.clampIdx(u.toIdx(yy), u.subI(h, u.idx(1)));
        Value xi = u.clampIdx(u.toIdx(xv), u.subI(w, u.idx(1)));
        return u.widen(tensor::ExtractOp::create(
            u.b, u.loc, x, ValueRange{batch, ci, yi, xi}));
      };
      Value t1 = u.mul(u.mul(hy, hx), at(yl, xl));
      Value t2 = u.mul(u.mul(hy, lx), at(yl, xh));
      Value t3 = u.mul(u.mul(ly, hx), at(yh, xl));
      Value t4 = u.mul(u.mul(ly, lx), at(yh, xh));
      Value v = isMax ? u.maxf(u.maxf(t1, t2), u.maxf(t3, t4))
                      : u.add(u.add(t1, t2), u.add(t3, t4));
      return u.select(out, u.f(0.0), v);
    };

    Value init = t.f(isMax ? -std::numeric_limits<double>::max() : 0.0);
    Value zero = t.idx(0), one = t.idx(1);
    auto outer = scf::ForOp::create(
        nb, nl, zero, t.toIdx(gridH), one, ValueRange{init},
        [&](OpBuilder &ob, Location ol, Value iy, ValueRange outerArgs) {
          Scalar o{ob, ol};
          Value y = o.add(startY, o.mul(o.add(o.toF(iy), o.f(0.5)), stepY));
          auto inner = scf::ForOp::create(
              ob, ol, o.idx(0), o.toIdx(gridW), o.idx(1), outerArgs,
              [&](OpBuilder &ib, Location il, Value ix, ValueRange args) {
                Scalar in{ib, il};
                Value xx = in.add(startX,
                                  in.mul(in.add(in.toF(ix), in.f(0.5)), stepX));
                Value v = sample(in, y, xx);
                Value next = isMax ? in.maxf(args[0], v) : in.add(args[0], v);
                scf::YieldOp::create(ib, il, next);
              });
          scf::YieldOp::create(ob, ol, inner.getResult(0));
        });
    Value acc = outer.getResult(0);
    if (!isMax)
      acc = t.div(acc, count);
    linalg::YieldOp::create(nb, nl, t.narrow(acc, elementType));
  };
  return linalg::GenericOp::create(b, loc, init.getType(), ValueRange(), init,
                                   SmallVector<AffineMap>{id},
                                   parallelIterators(4), body)
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
