//===- ResampleAntialias.cpp - Antialiased resizing -----------------------===//
//
// Resizing with a filter stretched over the downsampled extent, as a weight
// matrix per resized dim computed at import time and applied as one
// contraction: ONNX Resize-18's `antialias` (the ONNX reference's filter)
// and aten's `_upsample_*_aa` (PIL's filter).
//
//===----------------------------------------------------------------------===//

#include "ResampleAntialias.h"
#include "Utils.h"
#include "mlprog/Import/Common/LinearAlgebra.h"
#include "mlprog/Import/Common/Resample.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

/// x reweighted along dim `d` by the [out, in] matrix `weights` (row-major):
/// y[..., i, ...] = sum_j w[i, j] x[..., j, ...], as one contraction.
static FailureOr<Value> applyAxisWeights(OpBuilder &b, Location loc, Value x,
                                         int64_t d, int64_t out, int64_t in,
                                         ArrayRef<double> w) {
  auto xt = cast<RankedTensorType>(x.getType());
  Type et = xt.getElementType();
  int64_t rank = xt.getRank();
  if (rank > 25)
    return emitError(loc) << "resize: rank " << rank << " too large";
  SmallVector<Attribute> attrs;
  for (double v : w)
    attrs.push_back(b.getFloatAttr(et, v));
  auto wt = RankedTensorType::get({out, in}, et);
  Value weights =
      arith::ConstantOp::create(b, loc, DenseElementsAttr::get(wt, attrs));
  std::string letters, result;
  for (int64_t i = 0; i < rank; ++i)
    letters.push_back(char('a' + i));
  result = letters;
  result[d] = 'z';
  std::string eq = letters + ",z" + letters[d] + "->" + result;
  return buildEinsum(b, loc, eq, {x, weights});
}

/// The source coordinate of output index `x` along an axis (see
/// CoordinateTransform; `len` = scale * in).
static double sourceCoordinate(CoordinateTransform t, double x, double scale,
                               double in, double out, double len) {
  switch (t) {
  case CoordinateTransform::HalfPixel:
    return (x + 0.5) / scale - 0.5;
  case CoordinateTransform::HalfPixelSymmetric:
    return in / 2 * (1 - out / len) + (x + 0.5) / scale - 0.5;
  case CoordinateTransform::PytorchHalfPixel:
    return len > 1 ? (x + 0.5) / scale - 0.5 : -0.5;
  case CoordinateTransform::AlignCorners:
    return len == 1 ? 0 : x * (in - 1) / (len - 1);
  case CoordinateTransform::Asymmetric:
    return x / scale;
  case CoordinateTransform::TfHalfPixelForNN:
  case CoordinateTransform::TfCropAndResize:
    break;
  }
  return (x + 0.5) / scale;
}

/// The antialiasing interpolation kernel of ONNX Resize-18 at distance t:
/// the triangle (Linear) or Keys' cubic with parameter `a`.
static double antialiasKernel(ResampleMode mode, double t, double a) {
  t = std::abs(t);
  if (mode == ResampleMode::Linear)
    return std::clamp(1 - t, 0.0, 1.0);
  if (t <= 1)
    return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2)
    return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
  return 0;
}

/// The [out, in] weights of one axis of an antialiased ONNX Resize: output i
/// at source coordinate c (ratio r = c - floor(c), or 1 when c is an
/// integer) weighs the n = 2 - 2 * start taps floor(c) + start + k (from
/// c - 1 when c is an integer), start = floor(-support / s) + 1 with
/// support 1 (Linear) or 2 (Cubic) and s = min(scale, 1), by the kernel at
/// s * (start + k - r), normalized; taps outside the input read the edge
/// (or, with `excludeOutside`, get weight 0 before normalizing).
static SmallVector<double> onnxAntialiasWeights(const ResizeOptions &o,
                                                int64_t in, int64_t out,
                                                double scale, double len) {
  double s = std::min(scale, 1.0);
  double support = o.mode == ResampleMode::Linear ? 1 : 2;
  int64_t start = int64_t(std::floor(-support / s)) + 1;
  int64_t n = 2 - 2 * start;
  SmallVector<double> w(out * in, 0.0), taps(n);
  for (int64_t i = 0; i < out; ++i) {
    double c = sourceCoordinate(o.transform, double(i), scale, double(in),
                                double(out), len);
    double fl = std::floor(c);
    bool integral = c == fl;
    double r = integral ? 1.0 : c - fl;
    int64_t base = int64_t(fl) - (integral ? 1 : 0) + start;
    double total = 0;
    for (int64_t k = 0; k < n; ++k) {
      taps[k] =
          antialiasKernel(o.mode, s * double(start + k - r), o.cubicCoeffA);
      total += taps[k];
    }
    for (int64_t k = 0; k < n; ++k)
      taps[k] = total != 0 ? taps[k] / total : 0;
    if (o.excludeOutside) {
      double kept = 0;
      for (int64_t k = 0; k < n; ++k) {
        int64_t idx = base + k;
        if (idx < 0 || idx >= in)
          taps[k] = 0;
        kept += taps[k];
      }
      for (int64_t k = 0; k < n; ++k)
        taps[k] = kept != 0 ? taps[k] / kept : taps[k];
    }
    for (int64_t k = 0; k < n; ++k)
      w[i * in + std::clamp<int64_t>(base + k, 0, in - 1)] += taps[k];
  }
  return w;
}

FailureOr<Value> mlprog::detail::buildAntialiasedResize(
    OpBuilder &b, Location loc, Value x, ArrayRef<OpFoldResult> outSizes,
    ArrayRef<OpFoldResult> scales, const ResizeOptions &options) {
  auto xt = cast<RankedTensorType>(x.getType());
  if (!xt.hasStaticShape())
    return emitError(loc)
           << "unsupported antialiased resize of a dynamic shape " << xt;
  if (options.transform == CoordinateTransform::TfCropAndResize ||
      options.transform == CoordinateTransform::TfHalfPixelForNN)
    return emitError(loc) << "unsupported antialiased resize with a tf "
                             "coordinate transformation";
  Value y = x;
  for (int64_t d = xt.getRank() - 1; d >= 0; --d) {
    int64_t in = xt.getDimSize(d);
    std::optional<int64_t> out = getConstantIntValue(outSizes[d]);
    std::optional<double> scale =
        scales.empty() ? std::optional<double>() : constantFloat(scales[d]);
    if (!out || (!scales.empty() && !scale))
      return emitError(loc) << "unsupported antialiased resize with run-time "
                               "sizes or scales";
    if (*out <= 0 || in <= 0)
      return emitError(loc) << "resize: empty extent along dim " << d;
    double sc = scale ? *scale : double(*out) / double(in);
    double len = scale ? sc * double(in) : double(*out);
    if (*out == in && sc == 1.0)
      continue;
    SmallVector<double> w = onnxAntialiasWeights(options, in, *out, sc, len);
    FailureOr<Value> r = applyAxisWeights(b, loc, y, d, *out, in, w);
    if (failed(r))
      return failure();
    y = *r;
  }
  return y;
}

//===--- Antialiased resizing ---------------------------------------------===//

/// The antialias filter of `mode` at t: the triangle, or Keys' cubic kernel
/// with a = -0.5 (PIL's bicubic).
template <typename T> static T antialiasFilter(ResampleMode mode, T t) {
  t = std::abs(t);
  if (mode == ResampleMode::Linear)
    return t < T(1) ? T(1) - t : T(0);
  const T a = -0.5;
  if (t < T(1))
    return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < T(2))
    return ((a * t - 5 * a) * t + 8 * a) * t - 4 * a;
  return 0;
}

/// The antialias weights [out, in] of one dim with source step `step`,
/// computed in T (aten computes them in the input's precision).
template <typename T>
static SmallVector<double> antialiasWeights(ResampleMode mode, int64_t in,
                                            int64_t out, double step) {
  T s = T(step);
  T interpSize = mode == ResampleMode::Linear ? 2 : 4;
  T support = s >= T(1) ? interpSize * T(0.5) * s : interpSize * T(0.5);
  T invScale = s >= T(1) ? T(1) / s : T(1);
  int64_t maxTaps = int64_t(std::ceil(double(support))) * 2 + 1;
  SmallVector<double> w(out * in, 0.0);
  SmallVector<T> taps;
  for (int64_t i = 0; i < out; ++i) {
    T center = s * (T(i) + T(0.5));
    int64_t xmin = std::max<int64_t>(int64_t(center - support + T(0.5)), 0);
    int64_t xsize =
        std::min<int64_t>(int64_t(center + support + T(0.5)), in) - xmin;
    xsize = std::clamp<int64_t>(xsize, 0, maxTaps);
    T total = 0;
    taps.assign(xsize, T(0));
    for (int64_t j = 0; j < xsize; ++j) {
      taps[j] =
          antialiasFilter<T>(mode, (T(j + xmin) - center + T(0.5)) * invScale);
      total += taps[j];
    }
    for (int64_t j = 0; j < xsize; ++j)
      w[i * in + xmin + j] = total != T(0) ? double(taps[j] / total) : 0.0;
  }
  return w;
}

FailureOr<Value>
mlprog::buildResizeAntialias(OpBuilder &b, Location loc, Value x,
                             ArrayRef<int64_t> outputSizes,
                             ArrayRef<std::optional<double>> scales,
                             bool alignCorners, ResampleMode mode) {
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  if (!xt || !isa<FloatType>(xt.getElementType()) || !xt.hasStaticShape())
    return emitError(loc) << "antialiased resize needs a float tensor of "
                             "static shape, got "
                          << x.getType();
  int64_t rank = xt.getRank(), n = outputSizes.size();
  if (mode == ResampleMode::Nearest || n > rank || int64_t(scales.size()) != n)
    return emitError(loc) << "antialiased resize: linear or cubic mode and "
                             "one scale per resized dim needed";
  if (llvm::any_of(outputSizes, [](int64_t o) { return o <= 0; }))
    return emitError(loc) << "antialiased resize: output sizes must be "
                             "positive";
  Type et = xt.getElementType();
  Value y = x;
  for (int64_t k = n - 1; k >= 0; --k) {
    int64_t d = rank - n + k;
    int64_t in = xt.getDimSize(d), out = outputSizes[k];
    double s;
    if (alignCorners)
      s = out > 1 ? double(in - 1) / double(out - 1) : 0.0;
    else if (scales[k] && *scales[k] > 0)
      s = 1.0 / *scales[k];
    else
      s = double(in) / double(out);
    SmallVector<double> w = et.isF64()
                                ? antialiasWeights<double>(mode, in, out, s)
                                : antialiasWeights<float>(mode, in, out, s);
    FailureOr<Value> r = applyAxisWeights(b, loc, y, d, out, in, w);
    if (failed(r))
      return failure();
    y = *r;
  }
  return y;
}
