//===- Resample.h - Resize, grid sampling and ROI pooling -------*- C++ -*-===//
//
// Format-independent builders for ops that read a tensor at computed,
// generally fractional, source coordinates: N-D resizing (nearest, linear,
// cubic interpolation with the coordinate transformation modes of ONNX
// Resize, and fixed-scale nearest upsampling), grid sampling
// (torch.nn.functional.grid_sample / ONNX GridSample) and ROI alignment
// (ONNX RoiAlign). Each is one linalg.generic over the output whose body
// computes the source coordinates and gathers the neighbours with
// tensor.extract (clamped into range), so dynamic input extents and
// run-time scale values are supported.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_RESAMPLE_H
#define MLPROG_IMPORT_COMMON_RESAMPLE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlprog {

/// How output coordinates are resampled.
enum class ResampleMode { Nearest, Linear, Cubic };

/// How an output coordinate x (an index along an axis) maps to a source
/// coordinate, following ONNX Resize-13/19 (`in` = input extent, `out` =
/// output extent, `s` = scale, `len` = s * in when scales are given, else
/// `out`):
///   HalfPixel          (x + 0.5) / s - 0.5
///   HalfPixelSymmetric in / 2 * (1 - out / len) + (x + 0.5) / s - 0.5
///   PytorchHalfPixel   len > 1 ? (x + 0.5) / s - 0.5 : -0.5 (len == 1)
///   AlignCorners       len == 1 ? 0 : x * (in - 1) / (len - 1)
///   Asymmetric         x / s
///   TfHalfPixelForNN   (x + 0.5) / s
///   TfCropAndResize    out == 1 ? (end - start) * (in - 1) / 2
///                               : x * (end - start) * (in - 1) / (out - 1),
///                      plus start * (in - 1), with the per-axis region of
///                      interest [start, end] (normalized coordinates); a
///                      source coordinate outside [0, in - 1] on any axis
///                      yields the extrapolation value.
enum class CoordinateTransform {
  HalfPixel,
  HalfPixelSymmetric,
  PytorchHalfPixel,
  AlignCorners,
  Asymmetric,
  TfHalfPixelForNN,
  TfCropAndResize,
};

/// How ResampleMode::Nearest rounds a fractional source coordinate c:
/// RoundPreferFloor / RoundPreferCeil round to the nearest integer with ties
/// going down / up; Floor and Ceil as named; Simple is floor(c) where the
/// axis is upsampled or kept (scale >= 1) and ceil(c) where it is
/// downsampled (ONNX Resize-10 and Upsample, as onnxruntime implements them).
enum class NearestRounding {
  RoundPreferFloor,
  RoundPreferCeil,
  Floor,
  Ceil,
  Simple,
};

/// Options of buildResize; the defaults are ONNX Resize-13's.
struct ResizeOptions {
  ResampleMode mode = ResampleMode::Nearest;
  CoordinateTransform transform = CoordinateTransform::HalfPixel;
  NearestRounding nearest = NearestRounding::RoundPreferFloor;
  /// The `a` of the cubic convolution kernel (Keys): -0.75 as in PyTorch
  /// and ONNX, -0.5 as in TensorFlow.
  double cubicCoeffA = -0.75;
  /// Linear/cubic: give neighbours outside the input zero weight and
  /// renormalize the remaining weights (per axis) to sum to 1.
  bool excludeOutside = false;
  /// TfCropAndResize: the value of outputs whose source lies outside.
  double extrapolationValue = 0.0;
  /// Linear/Cubic: stretch the filter by 1 / scale on downsampled axes
  /// (ONNX Resize-18 `antialias`), see buildResize.
  bool antialias = false;
};

/// Resizes every axis of `x` (a ranked tensor of any rank; float elements
/// for Linear/Cubic, any element type for Nearest) to `outSizes` (one per
/// axis: an IndexAttr or an `index` Value). `scales` is empty (each axis's
/// scale is then out / in and `len` is the integer output extent: ONNX
/// `sizes`) or one per axis, each a FloatAttr or a float scalar Value (ONNX
/// `scales`; `len` = scale * in). `roi` is empty or, for TfCropAndResize,
/// 2 * rank floats or float scalar Values [starts..., ends...].
///
/// Nearest reads input[round(c)] per axis, with the rounding of
/// `options.nearest`. Linear weighs the 2 neighbours floor(c), floor(c) + 1
/// by 1 - t, t (t = c - floor(c)); Cubic the 4 neighbours floor(c) - 1 ..
/// floor(c) + 2 with Keys' cubic convolution kernel of parameter `a`.
/// N-D interpolation is separable: the result is the sum over the 2^k / 4^k
/// neighbour combinations of the products of the per-axis weights, with
/// neighbour indices clamped into [0, in - 1] (edge padding). Coordinates
/// and weights are computed in f64. Axes whose extent and scale are
/// statically 1 (or equal in and out without scales) are read in place.
///
/// With `options.antialias` (Linear/Cubic), an axis of scale s < 1 weighs
/// the taps k - c of a window of 2 / s (Linear) or 4 / s (Cubic) neighbours
/// with the kernel at s * (k - c), normalized to sum 1 (the ONNX reference's
/// filter, not PIL's); the input and output extents and the scales must be
/// static, and the weights are computed at import time and applied as one
/// contraction per resized axis. TfCropAndResize and TfHalfPixelForNN are
/// not combined with it.
///
/// Errors: rank mismatch of outSizes/scales/roi, Linear/Cubic on a
/// non-float tensor, TfCropAndResize without roi, a static non-positive
/// scale; unsupported: antialias with run-time extents or scales, or with
/// the two tf transforms.
/// Spec: ONNX Resize-10/11/13/18/19 (without axes and
/// keep_aspect_ratio_policy), whose reference implementation this follows;
/// ONNX Upsample-7/9; aten::upsample_{nearest,bilinear,bicubic}*.
mlir::FailureOr<mlir::Value>
buildResize(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
            llvm::ArrayRef<mlir::OpFoldResult> outSizes,
            llvm::ArrayRef<mlir::OpFoldResult> scales,
            llvm::ArrayRef<mlir::OpFoldResult> roi,
            const ResizeOptions &options);

/// Interpolation of buildGridSample.
enum class GridSampleMode { Bilinear, Nearest, Bicubic };

/// How buildGridSample treats source coordinates outside the input: Zeros
/// reads 0 there, Border clamps coordinates into the input, Reflection
/// mirrors them at the borders (at the corner pixels' centres with
/// align_corners, at the image edges without) and then clamps.
enum class GridSamplePadding { Zeros, Border, Reflection };

/// The sampling grid of an affine transformation, for buildGridSample:
/// `theta` [N, 2, 3] (2-D) or [N, 3, 4] (3-D, float) maps the normalized
/// coordinates (x, y[, z], 1) of every output position to its source; the
/// result is [N, H, W, 2] or [N, D, H, W, 3] of theta's type, where
/// `sizes` is (N, C, H, W) or (N, C, D, H, W) (index values or attributes;
/// C unused). A coordinate along an extent n is -1 + 2 i / (n - 1) with
/// `alignCorners` (-1 when n = 1), else -1 + (2 i + 1) / n; computed in f64.
/// Errors: theta of another rank or shape, a size count other than
/// theta's spatial rank + 2.
/// Spec: ONNX AffineGrid (opset 20); torch.nn.functional.affine_grid.
mlir::FailureOr<mlir::Value>
buildAffineGrid(mlir::OpBuilder &b, mlir::Location loc, mlir::Value theta,
                llvm::ArrayRef<mlir::OpFoldResult> sizes, bool alignCorners);

/// Samples `x` [N, C, H, W] (float) at the normalized positions of `grid`
/// [N, Hout, Wout, 2] (float; grid[n, h, w] = (x, y) in [-1, 1], x along W):
/// the result is [N, C, Hout, Wout] of x's element type; or, volumetric,
/// `x` [N, C, D, H, W] at `grid` [N, Dout, Hout, Wout, 3] ((x, y, z), z along
/// D) giving [N, C, Dout, Hout, Wout]. A normalized coordinate g maps to the
/// pixel coordinate (g + 1) / 2 * (size - 1) with `alignCorners` (-1 and 1
/// are the centres of the corner pixels), else ((g + 1) * size - 1) / 2 (-1
/// and 1 are the outer edges). Bilinear weighs the 2^n neighbours
/// (trilinear in 3-D), Nearest rounds half to even, Bicubic (4-D only)
/// weighs 16 neighbours with Keys' kernel (a = -0.75), padding applied to
/// each neighbour's integer coordinate. Computed in f64.
/// Errors: ranks other than 4 and 5, a grid of another rank or whose last
/// dim is not the spatial rank, mismatched batch, non-float element types,
/// bicubic 5-D sampling.
/// Spec: ONNX GridSample-16/20 (2-D and 3-D); torch.nn.functional.grid_sample
/// (aten::grid_sampler_2d / grid_sampler_3d).
mlir::FailureOr<mlir::Value>
buildGridSample(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                mlir::Value grid, GridSampleMode mode,
                GridSamplePadding padding, bool alignCorners);

/// Pooling of buildRoiAlign's sampling points.
enum class RoiPoolMode { Avg, Max };

/// Region-of-interest alignment: for each of the R boxes `rois` [R, 4]
/// (float; x1, y1, x2, y2 in input pixels before scaling by `spatialScale`)
/// over the image `batchIndices[r]` (integer [R], clamped into [0, N)) of
/// `x` [N, C, H, W] (float), pools an outputHeight x outputWidth grid of
/// bins: each bin averages (Avg) the bilinear samples at a regular
/// gh x gw grid of points inside it, or (Max) takes the largest weighted
/// corner value of any sample (onnxruntime's definition). gh = gw =
/// samplingRatio when positive, else ceil(bin extent) per box and axis
/// (computed at run time: the sample grid is an scf.for nest in the body).
/// With `halfPixel` the box is shifted by -0.5 pixel (ONNX
/// coordinate_transformation_mode half_pixel, torchvision aligned=True),
/// otherwise its extents are at least 1 pixel (output_half_pixel). Samples
/// more than one pixel outside the image read 0; others are clamped to the
/// border. Result: [R, C, outputHeight, outputWidth] of x's element type,
/// computed in f64.
/// Errors: bad ranks or element types, rois not [R, 4], non-positive output
/// extents.
/// Spec: ONNX RoiAlign-10/16 (reference: onnxruntime's RoiAlign;
/// torchvision.ops.roi_align for Avg).
mlir::FailureOr<mlir::Value>
buildRoiAlign(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
              mlir::Value rois, mlir::Value batchIndices, RoiPoolMode mode,
              int64_t outputHeight, int64_t outputWidth, int64_t samplingRatio,
              double spatialScale, bool halfPixel);

/// Antialiased resizing of the last `outputSizes.size()` dims of float `x`
/// (static extents) to the static `outputSizes`, separably, the last dim
/// first. Along a dim of input extent `in`, output i is sum_j w_j x[xmin +
/// j]: the filter (Linear: triangle 1 - |t|, support 1; Cubic: Keys'
/// kernel with a = -0.5, support 2) is centred at s * (i + 0.5) and
/// stretched by s when s > 1 (downscaling), the taps xmin.. lying in
/// [trunc(centre - support + 0.5), trunc(centre + support + 0.5)) clipped
/// to the input, the weights normalized to sum 1. The source step s is
/// (in - 1) / (out - 1) with `alignCorners` (0 when out = 1), else
/// 1 / scale for a given positive `scales` entry, else in / out. The
/// weights are computed at import time and applied as one contraction per
/// dim (in x's element type).
/// Errors: non-float or dynamic input, a size count other than the scale
/// count, non-positive sizes, Nearest mode.
/// Spec: aten::_upsample_bilinear2d_aa / _upsample_bicubic2d_aa
/// (F.interpolate(antialias=True), PIL-compatible).
mlir::FailureOr<mlir::Value>
buildResizeAntialias(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                     llvm::ArrayRef<int64_t> outputSizes,
                     llvm::ArrayRef<std::optional<double>> scales,
                     bool alignCorners, ResampleMode mode);

/// Nearest-neighbour upsampling of the last two dims of `x` (rank >= 3,
/// static extents H, W) by positive float scales: output extents
/// floor(H * scaleH), floor(W * scaleW); output (i, j) reads input
/// (min(floor(i / scaleH), H - 1), min(floor(j / scaleW), W - 1)).
/// Spec: MIL upsample_nearest_neighbor; ONNX Resize (nearest, asymmetric,
/// floor).
mlir::FailureOr<mlir::Value> buildUpsampleNearest(mlir::OpBuilder &b,
                                                  mlir::Location loc,
                                                  mlir::Value x, double scaleH,
                                                  double scaleW);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_RESAMPLE_H
