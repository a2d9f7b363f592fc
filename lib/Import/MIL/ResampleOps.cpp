//===- ResampleOps.cpp - MIL resizing, upsampling and cropping ------------===//
//
// upsample_nearest_neighbor, upsample_bilinear, resize_nearest_neighbor,
// resize_bilinear, resize (iOS17) and crop.
//
// Handlers read the op's named arguments and compile-time parameters
// (supplying the MIL spec defaults, iOS15+ semantics) and call the shared
// builders in mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"
#include "Importer.h"

#include "mlprog/Import/Common/Resample.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace mlprog::mil_import {
namespace {

LogicalResult importUpsampleNearest(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<double> sh = ctx.getFloat("scale_factor_height", 1.0),
                    sw = ctx.getFloat("scale_factor_width", 1.0);
  if (failed(x) || failed(sh) || failed(sw))
    return failure();
  return ctx.setResult(0, buildUpsampleNearest(ctx.b, ctx.loc, *x, *sh, *sw));
}

/// Resizes the trailing dims of `x` to `outSizes` (one per trailing dim);
/// leading dims are kept. `scales` is empty or one per trailing dim.
FailureOr<Value> resizeTrailing(OpContext &ctx, Value x,
                                ArrayRef<OpFoldResult> outSizes,
                                ArrayRef<double> scales,
                                const ResizeOptions &options) {
  int64_t rank = rankOf(x), n = outSizes.size();
  if (rank < n)
    return emitError(ctx.loc) << ctx.op.type() << " needs rank >= " << n
                              << ", got " << x.getType();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(ctx.b, ctx.loc, x);
  SmallVector<OpFoldResult> scaleAttrs;
  for (int64_t d = 0; d < rank; ++d) {
    if (d >= rank - n)
      sizes[d] = outSizes[d - (rank - n)];
    if (!scales.empty())
      scaleAttrs.push_back(
          ctx.b.getF64FloatAttr(d >= rank - n ? scales[d - (rank - n)] : 1.0));
  }
  return buildResize(ctx.b, ctx.loc, x, sizes, scaleAttrs, {}, options);
}

/// The coordinate transform of resize_bilinear's / resize's sampling_mode
/// (coremltools' definitions: DEFAULT is x * in / out, UNALIGN_CORNERS the
/// half-pixel map, (STRICT_)ALIGN_CORNERS maps corners onto corners).
FailureOr<CoordinateTransform> getSamplingMode(OpContext &ctx) {
  FailureOr<std::string> mode =
      ctx.getString("sampling_mode", std::string("DEFAULT"));
  if (failed(mode))
    return failure();
  if (*mode == "DEFAULT")
    return CoordinateTransform::Asymmetric;
  if (*mode == "UNALIGN_CORNERS")
    return CoordinateTransform::HalfPixel;
  if (*mode == "ALIGN_CORNERS" || *mode == "STRICT_ALIGN_CORNERS")
    return CoordinateTransform::AlignCorners;
  return emitError(ctx.loc) << "unsupported sampling_mode '" << *mode << "'";
}

/// resize_nearest_neighbor(x, target_size_height, target_size_width):
/// source index floor(i * in / out) (TensorFlow without half-pixel centres).
LogicalResult importResizeNearest(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<int64_t> h = ctx.getInt("target_size_height"),
                     w = ctx.getInt("target_size_width");
  if (failed(x) || failed(h) || failed(w))
    return failure();
  ResizeOptions options;
  options.mode = ResampleMode::Nearest;
  options.transform = CoordinateTransform::Asymmetric;
  options.nearest = NearestRounding::Floor;
  return ctx.setResult(
      0,
      resizeTrailing(ctx, *x, {ctx.b.getIndexAttr(*h), ctx.b.getIndexAttr(*w)},
                     {}, options));
}

/// resize_bilinear(x, target_size_height = 1, target_size_width = 1,
/// sampling_mode = "DEFAULT").
LogicalResult importResizeBilinear(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<int64_t> h = ctx.getInt("target_size_height", 1),
                     w = ctx.getInt("target_size_width", 1);
  FailureOr<CoordinateTransform> transform = getSamplingMode(ctx);
  if (failed(x) || failed(h) || failed(w) || failed(transform))
    return failure();
  ResizeOptions options;
  options.mode = ResampleMode::Linear;
  options.transform = *transform;
  return ctx.setResult(
      0,
      resizeTrailing(ctx, *x, {ctx.b.getIndexAttr(*h), ctx.b.getIndexAttr(*w)},
                     {}, options));
}

/// upsample_bilinear(x, scale_factor_height = 1, scale_factor_width = 1,
/// align_corners = True; iOS16: half_pixel_centers = !align_corners): output
/// extents floor(in * scale), source coordinates from in / out.
LogicalResult importUpsampleBilinear(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<double> sh = ctx.getFloat("scale_factor_height", 1.0),
                    sw = ctx.getFloat("scale_factor_width", 1.0);
  FailureOr<bool> alignCorners = ctx.getBool("align_corners", true);
  if (failed(x) || failed(sh) || failed(sw) || failed(alignCorners))
    return failure();
  FailureOr<bool> halfPixel = ctx.getBool("half_pixel_centers", !*alignCorners);
  if (failed(halfPixel))
    return failure();
  if (*alignCorners && *halfPixel)
    return emitError(ctx.loc) << "upsample_bilinear: align_corners and "
                                 "half_pixel_centers are exclusive";
  ArrayRef<int64_t> shape = typeOf(*x).getShape();
  if (shape.size() < 2 ||
      llvm::any_of(shape.take_back(2), ShapedType::isDynamic) || *sh <= 0 ||
      *sw <= 0)
    return emitError(ctx.loc) << "upsample_bilinear needs static H, W and "
                                 "positive scales, got "
                              << x->getType();
  int64_t h = shape[shape.size() - 2] * *sh, w = shape.back() * *sw;
  ResizeOptions options;
  options.mode = ResampleMode::Linear;
  options.transform = *alignCorners ? CoordinateTransform::AlignCorners
                      : *halfPixel  ? CoordinateTransform::HalfPixel
                                    : CoordinateTransform::Asymmetric;
  // Coordinates follow in / out, not the requested scale (coremltools'
  // expected values for fractional scales).
  return ctx.setResult(
      0, resizeTrailing(ctx, *x, {ctx.b.getIndexAttr(h), ctx.b.getIndexAttr(w)},
                        {}, options));
}

/// resize(x, shape, resized_dims, interpolation_mode = "LINEAR",
/// sampling_mode = "DEFAULT") (iOS17): the last resized_dims dims take the
/// last resized_dims entries of shape, which may be computed at run time.
LogicalResult importResize(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<int64_t> dims = ctx.getInt("resized_dims");
  FailureOr<std::string> interp =
      ctx.getString("interpolation_mode", std::string("LINEAR"));
  FailureOr<CoordinateTransform> transform = getSamplingMode(ctx);
  if (failed(x) || failed(dims) || failed(interp) || failed(transform))
    return failure();
  ResizeOptions options;
  options.transform = *transform;
  if (*interp == "LINEAR") {
    options.mode = ResampleMode::Linear;
  } else if (*interp == "NEAREST_NEIGHBOR") {
    // resize rounds to the nearest source index (resize_nearest_neighbor
    // floors): coremltools' expected values for 2 -> 3 read [0, 1, 1].
    options.mode = ResampleMode::Nearest;
    options.nearest = NearestRounding::RoundPreferFloor;
  } else {
    return emitError(ctx.loc)
           << "unsupported resize interpolation_mode '" << *interp << "'";
  }
  if (*dims < 1 || *dims > rankOf(*x))
    return emitError(ctx.loc) << "resize: resized_dims " << *dims
                              << " out of range for " << x->getType();
  SmallVector<OpFoldResult> sizes;
  if (std::optional<SmallVector<int64_t>> shape = foldedInts(ctx, "shape")) {
    if (int64_t(shape->size()) < *dims)
      return emitError(ctx.loc)
             << "resize: shape has fewer than " << *dims << " entries";
    for (int64_t v : ArrayRef<int64_t>(*shape).take_back(*dims))
      sizes.push_back(ctx.b.getIndexAttr(v));
  } else {
    FailureOr<Value> shapeTensor = ctx.input("shape");
    if (failed(shapeTensor))
      return failure();
    if (rankOf(*shapeTensor) != 1 || typeOf(*shapeTensor).getDimSize(0) < *dims)
      return emitError(ctx.loc) << "resize: shape must be 1-D with at least "
                                << *dims << " static entries";
    SmallVector<OpFoldResult> all =
        extractShapeSizes(ctx.b, ctx.loc, *shapeTensor);
    sizes.assign(all.end() - *dims, all.end());
  }
  return ctx.setResult(0, resizeTrailing(ctx, *x, sizes, {}, options));
}

/// crop(x, crop_height [2], crop_width [2]): removes (top, bottom) rows and
/// (left, right) columns of the last two dims.
LogicalResult importCrop(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<SmallVector<int64_t>> ch = ctx.getInts("crop_height"),
                                  cw = ctx.getInts("crop_width");
  if (failed(x) || failed(ch) || failed(cw))
    return failure();
  ArrayRef<int64_t> shape = typeOf(*x).getShape();
  if (ch->size() != 2 || cw->size() != 2 || shape.size() < 2 ||
      llvm::any_of(shape.take_back(2), ShapedType::isDynamic))
    return emitError(ctx.loc) << "crop needs 2 crop_height and 2 crop_width "
                                 "values and static H, W, got "
                              << x->getType();
  SmallVector<SliceDim> dims(shape.size());
  for (int i = 0; i < 2; ++i) {
    ArrayRef<int64_t> c = i == 0 ? *ch : *cw;
    int64_t extent = shape[shape.size() - 2 + i];
    if (c[0] < 0 || c[1] < 0 || c[0] + c[1] > extent)
      return emitError(ctx.loc) << "crop: (" << c[0] << ", " << c[1]
                                << ") does not fit extent " << extent;
    dims[shape.size() - 2 + i].start = c[0];
    dims[shape.size() - 2 + i].stop = extent - c[1];
  }
  return ctx.setResult(0, buildSlice(ctx.b, ctx.loc, *x, dims));
}

} // namespace

void registerResampleOps(OpTable &table) {
  table.add({
      {"crop", importCrop},
      {"resize", importResize},
      {"resize_bilinear", importResizeBilinear},
      {"resize_nearest_neighbor", importResizeNearest},
      {"upsample_bilinear", importUpsampleBilinear},
      {"upsample_nearest_neighbor", importUpsampleNearest},
  });
}

} // namespace mlprog::mil_import
