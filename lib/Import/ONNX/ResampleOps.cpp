//===- ResampleOps.cpp - ONNX Resize, Upsample, GridSample, RoiAlign ------===//
//
// Handlers for the resampling ops. They read attributes (with the spec's
// defaults for the model's opset) and the scales / sizes / roi inputs and
// call the builders of mlprog/Import/Common/Resample.h. Scales, sizes and
// roi may be compile-time constants or run-time tensors: run-time values
// are read with tensor.extract, and output extents that are not known at
// import time (neither constant nor given by shape inference) are computed
// at run time.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"

#include "mlprog/Import/Common/Resample.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;

namespace mlprog::onnx_import {
namespace {

/// A 1-D float or integer input (scales, sizes, roi) whose elements are
/// read one by one: from its compile-time value when it has one, else with
/// tensor.extract at run time. Absent inputs and empty tensors (the
/// spelling of "not given" in Resize-11) have no elements. The elements of
/// a run-time integer input known at import time (GraphState::knownElements:
/// a Concat of a run-time batch with static extents) are read from `known`.
struct VectorInput {
  Value value;
  DenseElementsAttr constant;
  SmallVector<int64_t> known;
  int64_t size = 0;

  bool empty() const { return size == 0; }
  /// Whether element `i` is known at import time.
  bool isKnown(int64_t i) const {
    return constant ||
           (i < int64_t(known.size()) && !ShapedType::isDynamic(known[i]));
  }

  /// Element `i` as a FloatAttr (constant) or a float scalar Value.
  OpFoldResult floatAt(NodeContext &ctx, int64_t i) const {
    if (constant) {
      APFloat v = constant.getValues<APFloat>()[i];
      bool lost;
      v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
      return ctx.b.getF64FloatAttr(v.convertToDouble());
    }
    return extract(ctx, i);
  }
  /// Element `i` as an IndexAttr (constant) or an `index` Value.
  OpFoldResult indexAt(NodeContext &ctx, int64_t i) const {
    if (constant)
      return ctx.b.getIndexAttr(constant.getValues<APInt>()[i].getSExtValue());
    if (isKnown(i))
      return ctx.b.getIndexAttr(known[i]);
    return arith::IndexCastOp::create(ctx.b, ctx.loc, ctx.b.getIndexType(),
                                      extract(ctx, i))
        .getResult();
  }

private:
  Value extract(NodeContext &ctx, int64_t i) const {
    Value idx = arith::ConstantIndexOp::create(ctx.b, ctx.loc, i);
    return tensor::ExtractOp::create(ctx.b, ctx.loc, value, ValueRange{idx});
  }
};

/// Reads optional input `i` as a VectorInput; `isFloat` selects the
/// expected element kind. Errors: not 1-D, wrong element kind, run-time
/// tensor of unknown length.
FailureOr<VectorInput> vectorInput(NodeContext &ctx, unsigned i, StringRef what,
                                   bool isFloat) {
  VectorInput in;
  if (!ctx.hasInput(i))
    return in;
  FailureOr<Value> v = ctx.input(i);
  if (failed(v))
    return failure();
  auto type = dyn_cast<RankedTensorType>(v->getType());
  Type et = type ? type.getElementType() : Type();
  if (!type || type.getRank() != 1 ||
      (isFloat ? !isa<FloatType>(et) : !et.isSignlessInteger()))
    return emitError(ctx.loc)
           << ctx.node.op_type() << " " << what << " must be a 1-D "
           << (isFloat ? "float" : "integer") << " tensor, got "
           << v->getType();
  in.value = *v;
  in.constant = ctx.optionalConstantInput(i);
  if (in.constant) {
    in.size = in.constant.getNumElements();
  } else if (type.isDynamicDim(0)) {
    return emitError(ctx.loc) << "unsupported " << ctx.node.op_type() << " "
                              << what << " of run-time length";
  } else {
    in.size = type.getDimSize(0);
    std::optional<SmallVector<int64_t>> known = ctx.knownInputElements(i);
    if (!isFloat && known && int64_t(known->size()) == in.size)
      in.known = std::move(*known);
  }
  return in;
}

/// Output extents of a resize of `x` by `scales` (floor(in * scale), as
/// the ONNX reference computes them) or to `sizes`: constants when the
/// inputs allow, else the static shape ONNX shape inference gives output 0,
/// else run-time values. With `sizes`, `sizeIndex[d]` is the element of
/// `sizes` that gives axis d's extent, or -1 for an axis kept as it is
/// (Resize-18's `axes`); empty means every axis in order.
SmallVector<OpFoldResult> resizeOutputSizes(NodeContext &ctx, Value x,
                                            ArrayRef<OpFoldResult> scales,
                                            const VectorInput *sizes,
                                            ArrayRef<int64_t> sizeIndex = {}) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  std::optional<SmallVector<int64_t>> inferred = ctx.staticOutputShape(0);
  if (inferred && int64_t(inferred->size()) != rank)
    inferred.reset();
  SmallVector<OpFoldResult> out;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t j = sizeIndex.empty() ? d : sizeIndex[d];
    if (sizes && j >= 0 && sizes->isKnown(j)) {
      out.push_back(sizes->indexAt(ctx, j));
      continue;
    }
    std::optional<double> scale;
    if (sizes && j < 0)
      scale = 1.0;
    else if (!sizes)
      if (auto attr = dyn_cast<Attribute>(scales[d]))
        scale = cast<FloatAttr>(attr).getValueAsDouble();
    if (scale && !type.isDynamicDim(d)) {
      out.push_back(ctx.b.getIndexAttr(
          int64_t(std::floor(*scale * double(type.getDimSize(d))))));
      continue;
    }
    if (inferred) {
      out.push_back(ctx.b.getIndexAttr((*inferred)[d]));
      continue;
    }
    if (sizes && j >= 0) {
      out.push_back(sizes->indexAt(ctx, j));
      continue;
    }
    // floor(in * scale) at run time.
    OpBuilder &b = ctx.b;
    Location loc = ctx.loc;
    Value in = tensor::DimOp::create(b, loc, x, d);
    Value inF = arith::SIToFPOp::create(
        b, loc, b.getF64Type(),
        arith::IndexCastOp::create(b, loc, b.getI64Type(), in));
    Value s = scale ? Value(arith::ConstantOp::create(
                          b, loc, b.getF64FloatAttr(*scale)))
                    : cast<Value>(scales[d]);
    if (!s.getType().isF64())
      s = arith::ExtFOp::create(b, loc, b.getF64Type(), s);
    Value prod =
        math::FloorOp::create(b, loc, arith::MulFOp::create(b, loc, inF, s));
    out.push_back(arith::IndexCastOp::create(
                      b, loc, b.getIndexType(),
                      arith::FPToSIOp::create(b, loc, b.getI64Type(), prod))
                      .getResult());
  }
  return out;
}

/// Parses `mode` of Resize / Upsample.
FailureOr<ResampleMode> parseResampleMode(NodeContext &ctx, StringRef mode) {
  if (mode == "nearest")
    return ResampleMode::Nearest;
  if (mode == "linear" ||
      (ctx.node.op_type() == "Upsample" && ctx.opset < 9 && mode == "bilinear"))
    return ResampleMode::Linear;
  if (mode == "cubic" && ctx.node.op_type() == "Resize" && ctx.opset >= 11)
    return ResampleMode::Cubic;
  return emitError(ctx.loc)
         << "unsupported " << ctx.node.op_type() << " mode '" << mode << "'";
}

FailureOr<CoordinateTransform> parseTransform(NodeContext &ctx,
                                              StringRef name) {
  std::optional<CoordinateTransform> t =
      llvm::StringSwitch<std::optional<CoordinateTransform>>(name)
          .Case("half_pixel", CoordinateTransform::HalfPixel)
          .Case("pytorch_half_pixel", CoordinateTransform::PytorchHalfPixel)
          .Case("align_corners", CoordinateTransform::AlignCorners)
          .Case("asymmetric", CoordinateTransform::Asymmetric)
          .Case("tf_crop_and_resize", CoordinateTransform::TfCropAndResize)
          .Case("tf_half_pixel_for_nn", CoordinateTransform::TfHalfPixelForNN)
          .Case("half_pixel_symmetric", CoordinateTransform::HalfPixelSymmetric)
          .Default(std::nullopt);
  if (!t)
    return emitError(ctx.loc)
           << "unsupported Resize coordinate_transformation_mode '" << name
           << "'";
  return *t;
}

FailureOr<NearestRounding> parseNearestMode(NodeContext &ctx, StringRef name) {
  std::optional<NearestRounding> r =
      llvm::StringSwitch<std::optional<NearestRounding>>(name)
          .Case("round_prefer_floor", NearestRounding::RoundPreferFloor)
          .Case("round_prefer_ceil", NearestRounding::RoundPreferCeil)
          .Case("floor", NearestRounding::Floor)
          .Case("ceil", NearestRounding::Ceil)
          .Default(std::nullopt);
  if (!r)
    return emitError(ctx.loc)
           << "unsupported Resize nearest_mode '" << name << "'";
  return *r;
}

/// The `axes` attribute of Resize-18+, normalized: every axis in order when
/// absent. Errors: an axis out of [-rank, rank), an axis given twice.
FailureOr<SmallVector<int64_t>> resizeAxes(NodeContext &ctx, int64_t rank) {
  if (ctx.attribute("axes"))
    return normalizeDistinctAxes(ctx, ctx.getInts("axes"), rank);
  return llvm::to_vector(llvm::seq<int64_t>(0, rank));
}

/// Resize-18's keep_aspect_ratio_policy not_larger / not_smaller with
/// `sizes`: one scale for every resized axis, the smallest / largest of
/// sizes[i] / in[axes[i]], and output extents round_half_up(scale * in),
/// as the ONNX reference computes them. Sets `scaleValues` (1 on the other
/// axes) and `outSizes`: constants when sizes and the resized extents are,
/// else computed at run time.
void keepAspectRatio(NodeContext &ctx, Value x, ArrayRef<int64_t> axes,
                     const VectorInput &sizes, bool notLarger,
                     SmallVector<OpFoldResult> &scaleValues,
                     SmallVector<OpFoldResult> &outSizes) {
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  auto type = cast<RankedTensorType>(x.getType());
  bool constant = sizes.constant && llvm::none_of(axes, [&](int64_t d) {
                    return type.isDynamicDim(d);
                  });
  auto toF64 = [&](OpFoldResult v) -> Value {
    Value i = getValueOrCreateConstantIndexOp(b, loc, v);
    return arith::SIToFPOp::create(
        b, loc, b.getF64Type(),
        arith::IndexCastOp::create(b, loc, b.getI64Type(), i));
  };
  std::optional<double> scale;
  Value scaleValue;
  for (auto [i, d] : llvm::enumerate(axes)) {
    if (constant) {
      double r = double(sizes.constant.getValues<APInt>()[i].getSExtValue()) /
                 double(type.getDimSize(d));
      if (!scale || (notLarger ? r < *scale : r > *scale))
        scale = r;
      continue;
    }
    Value r = arith::DivFOp::create(b, loc, toF64(sizes.indexAt(ctx, i)),
                                    toF64(tensor::getMixedSize(b, loc, x, d)));
    if (!scaleValue)
      scaleValue = r;
    else if (notLarger)
      scaleValue = arith::MinimumFOp::create(b, loc, scaleValue, r);
    else
      scaleValue = arith::MaximumFOp::create(b, loc, scaleValue, r);
  }
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!llvm::is_contained(axes, d)) {
      scaleValues.push_back(b.getF64FloatAttr(1.0));
      outSizes.push_back(tensor::getMixedSize(b, loc, x, d));
      continue;
    }
    if (constant) {
      scaleValues.push_back(b.getF64FloatAttr(*scale));
      outSizes.push_back(
          b.getIndexAttr(int64_t(*scale * double(type.getDimSize(d)) + 0.5)));
      continue;
    }
    Value half = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0.5));
    Value out = arith::AddFOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, scaleValue,
                              toF64(tensor::getMixedSize(b, loc, x, d))),
        half);
    scaleValues.push_back(scaleValue);
    outSizes.push_back(arith::IndexCastOp::create(
                           b, loc, b.getIndexType(),
                           arith::FPToSIOp::create(b, loc, b.getI64Type(), out))
                           .getResult());
  }
}

/// ONNX Resize-10/11/13/18/19: nearest (every nearest_mode), linear and
/// cubic (cubic_coeff_a, exclude_outside) interpolation over every axis or
/// the `axes` (18+) with every coordinate_transformation_mode
/// (tf_crop_and_resize with roi and extrapolation_value); `scales` or
/// `sizes`, each constant or run-time; keep_aspect_ratio_policy (18+).
/// Resize-10 uses asymmetric coordinates and onnxruntime's nearest rounding
/// (floor when upsampling, ceil when downsampling).
/// Errors: `axes` out of range or repeated, scales/sizes/roi lengths other
/// than the number of resized axes.
/// Resize-18+: `antialias` (linear and cubic; static shapes and scales).
/// Unsupported: linear/cubic on integer tensors.
LogicalResult importResize(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank();
  FailureOr<ResampleMode> mode =
      parseResampleMode(ctx, ctx.getString("mode", "nearest"));
  if (failed(mode))
    return failure();
  if (*mode != ResampleMode::Nearest && !isa<FloatType>(type.getElementType()))
    return emitError(ctx.loc) << "unsupported Resize interpolation of a "
                              << type.getElementType() << " tensor";
  ResizeOptions options;
  options.mode = *mode;
  VectorInput roi, scales, sizes;
  std::string policy = "stretch";
  if (ctx.opset < 11) {
    options.transform = CoordinateTransform::Asymmetric;
    options.nearest = NearestRounding::Simple;
    FailureOr<VectorInput> s = vectorInput(ctx, 1, "scales", true);
    if (failed(s))
      return failure();
    scales = *s;
  } else {
    options.antialias = ctx.opset >= 18 && ctx.getInt("antialias", 0) != 0;
    policy = ctx.getString("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch" && policy != "not_larger" &&
        policy != "not_smaller")
      return emitError(ctx.loc)
             << "unsupported Resize keep_aspect_ratio_policy '" << policy
             << "'";
    FailureOr<CoordinateTransform> transform = parseTransform(
        ctx, ctx.getString("coordinate_transformation_mode", "half_pixel"));
    FailureOr<NearestRounding> nearest = parseNearestMode(
        ctx, ctx.getString("nearest_mode", "round_prefer_floor"));
    if (failed(transform) || failed(nearest))
      return failure();
    options.transform = *transform;
    options.nearest = *nearest;
    options.cubicCoeffA = ctx.getFloat("cubic_coeff_a", -0.75);
    options.excludeOutside = ctx.getInt("exclude_outside", 0) != 0;
    options.extrapolationValue = ctx.getFloat("extrapolation_value", 0.0);
    FailureOr<VectorInput> r = vectorInput(ctx, 1, "roi", true);
    FailureOr<VectorInput> s = vectorInput(ctx, 2, "scales", true);
    FailureOr<VectorInput> z = vectorInput(ctx, 3, "sizes", false);
    if (failed(r) || failed(s) || failed(z))
      return failure();
    roi = *r;
    scales = *s;
    sizes = *z;
  }
  if (scales.empty() == sizes.empty())
    return emitError(ctx.loc)
           << "Resize needs exactly one of the scales and sizes inputs";
  FailureOr<SmallVector<int64_t>> axes = resizeAxes(ctx, rank);
  if (failed(axes))
    return failure();
  int64_t na = axes->size();
  const VectorInput &given = scales.empty() ? sizes : scales;
  if (given.size != na)
    return emitError(ctx.loc)
           << "Resize " << (scales.empty() ? "sizes" : "scales") << " has "
           << given.size << " elements for " << na << " resized axes";
  // Axes that `axes` leaves out keep scale 1 and the roi [0, 1].
  SmallVector<int64_t> index(rank, -1);
  for (auto [i, d] : llvm::enumerate(*axes))
    index[d] = i;
  SmallVector<OpFoldResult> scaleValues, roiValues, outSizes;
  for (int64_t d = 0; d < rank && !scales.empty(); ++d)
    scaleValues.push_back(index[d] < 0 ? ctx.b.getF64FloatAttr(1.0)
                                       : scales.floatAt(ctx, index[d]));
  if (options.transform == CoordinateTransform::TfCropAndResize) {
    if (roi.size != 2 * na)
      return emitError(ctx.loc) << "Resize tf_crop_and_resize needs a roi of "
                                << 2 * na << " elements, got " << roi.size;
    for (int64_t end = 0; end < 2; ++end)
      for (int64_t d = 0; d < rank; ++d)
        roiValues.push_back(index[d] < 0
                                ? ctx.b.getF64FloatAttr(double(end))
                                : roi.floatAt(ctx, end * na + index[d]));
  }
  if (!sizes.empty() && policy != "stretch") {
    keepAspectRatio(ctx, *x, *axes, sizes, policy == "not_larger", scaleValues,
                    outSizes);
  } else {
    outSizes = resizeOutputSizes(ctx, *x, scaleValues,
                                 scales.empty() ? &sizes : nullptr, index);
  }
  return ctx.setResult(0, buildResize(ctx.b, ctx.loc, *x, outSizes, scaleValues,
                                      roiValues, options));
}

/// ONNX Upsample-7/9 (deprecated in 10): Resize with asymmetric coordinates
/// and `scales` (an attribute in 7, an input in 9), nearest or linear.
LogicalResult importUpsample(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  int64_t rank = rankOf(*x);
  FailureOr<ResampleMode> mode =
      parseResampleMode(ctx, ctx.getString("mode", "nearest"));
  if (failed(mode))
    return failure();
  Type elementType = cast<RankedTensorType>(x->getType()).getElementType();
  if (*mode != ResampleMode::Nearest && !isa<FloatType>(elementType))
    return emitError(ctx.loc) << "unsupported Upsample interpolation of a "
                              << elementType << " tensor";
  ResizeOptions options;
  options.mode = *mode;
  options.transform = CoordinateTransform::Asymmetric;
  options.nearest = NearestRounding::Simple;
  SmallVector<OpFoldResult> scaleValues;
  if (ctx.opset < 9) {
    const onnx::AttributeProto *attr = ctx.attribute("scales");
    if (!attr)
      return emitError(ctx.loc) << "Upsample needs the scales attribute";
    for (float f : attr->floats())
      scaleValues.push_back(ctx.b.getF64FloatAttr(f));
  } else {
    FailureOr<VectorInput> s = vectorInput(ctx, 1, "scales", true);
    if (failed(s))
      return failure();
    for (int64_t d = 0; d < s->size; ++d)
      scaleValues.push_back(s->floatAt(ctx, d));
  }
  if (int64_t(scaleValues.size()) != rank)
    return emitError(ctx.loc) << "Upsample has " << scaleValues.size()
                              << " scales for an input of rank " << rank;
  SmallVector<OpFoldResult> outSizes =
      resizeOutputSizes(ctx, *x, scaleValues, nullptr);
  return ctx.setResult(
      0, buildResize(ctx.b, ctx.loc, *x, outSizes, scaleValues, {}, options));
}

/// ONNX AffineGrid-20: theta [N, 2, 3] or [N, 3, 4], size (N, C, H, W) or
/// (N, C, D, H, W) as a constant or run-time int64 tensor; align_corners.
LogicalResult importAffineGrid(NodeContext &ctx) {
  FailureOr<Value> theta = ctx.input(0);
  FailureOr<VectorInput> size = vectorInput(ctx, 1, "size", false);
  if (failed(theta) || failed(size))
    return failure();
  SmallVector<OpFoldResult> sizes;
  for (int64_t i = 0; i < size->size; ++i)
    sizes.push_back(size->indexAt(ctx, i));
  return ctx.setResult(0, buildAffineGrid(ctx.b, ctx.loc, *theta, sizes,
                                          ctx.getInt("align_corners", 0) != 0));
}

/// ONNX GridSample-16/20: 4-D input and grid, and (GridSample-20)
/// volumetric 5-D ones; mode bilinear / nearest / bicubic (also spelled
/// linear / cubic as in GridSample-20), padding_mode zeros / border /
/// reflection, align_corners.
/// Unsupported: other ranks (GridSample-20's N-D sampling beyond 3-D),
/// cubic 5-D sampling.
LogicalResult importGridSample(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  FailureOr<Value> grid = ctx.input(1);
  if (failed(x) || failed(grid))
    return failure();
  int64_t rank = rankOf(*x);
  if (rank != 4 && (rank != 5 || ctx.opset < 20))
    return emitError(ctx.loc) << "unsupported GridSample of rank " << rank
                              << " (4-D, and 5-D from opset 20)";
  if (!isa<FloatType>(cast<RankedTensorType>(x->getType()).getElementType()))
    return emitError(ctx.loc) << "unsupported GridSample of a non-float input";
  std::string modeName = ctx.getString("mode", "bilinear");
  std::optional<GridSampleMode> mode =
      llvm::StringSwitch<std::optional<GridSampleMode>>(modeName)
          .Cases("bilinear", "linear", GridSampleMode::Bilinear)
          .Case("nearest", GridSampleMode::Nearest)
          .Cases("bicubic", "cubic", GridSampleMode::Bicubic)
          .Default(std::nullopt);
  if (!mode)
    return emitError(ctx.loc)
           << "unsupported GridSample mode '" << modeName << "'";
  if (rank == 5 && *mode == GridSampleMode::Bicubic)
    return emitError(ctx.loc) << "unsupported GridSample cubic 5-D sampling";
  std::string padName = ctx.getString("padding_mode", "zeros");
  std::optional<GridSamplePadding> padding =
      llvm::StringSwitch<std::optional<GridSamplePadding>>(padName)
          .Case("zeros", GridSamplePadding::Zeros)
          .Case("border", GridSamplePadding::Border)
          .Case("reflection", GridSamplePadding::Reflection)
          .Default(std::nullopt);
  if (!padding)
    return emitError(ctx.loc)
           << "unsupported GridSample padding_mode '" << padName << "'";
  return ctx.setResult(0, buildGridSample(ctx.b, ctx.loc, *x, *grid, *mode,
                                          *padding,
                                          ctx.getInt("align_corners", 0) != 0));
}

/// ONNX RoiAlign-10/16: avg or max pooling of bilinear samples per bin,
/// coordinate_transformation_mode half_pixel (the default since 16) or
/// output_half_pixel (RoiAlign-10's behaviour), adaptive or fixed
/// sampling_ratio.
LogicalResult importRoiAlign(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  FailureOr<Value> rois = ctx.input(1);
  FailureOr<Value> indices = ctx.input(2);
  if (failed(x) || failed(rois) || failed(indices))
    return failure();
  for (Value v : {*x, *rois})
    if (!isa<FloatType>(cast<RankedTensorType>(v.getType()).getElementType()))
      return emitError(ctx.loc) << "unsupported RoiAlign of a non-float input";
  std::string modeName = ctx.getString("mode", "avg");
  if (modeName != "avg" && modeName != "max")
    return emitError(ctx.loc)
           << "unsupported RoiAlign mode '" << modeName << "'";
  std::string transform =
      ctx.getString("coordinate_transformation_mode",
                    ctx.opset < 16 ? "output_half_pixel" : "half_pixel");
  if (transform != "half_pixel" && transform != "output_half_pixel")
    return emitError(ctx.loc)
           << "unsupported RoiAlign coordinate_transformation_mode '"
           << transform << "'";
  return ctx.setResult(
      0, buildRoiAlign(
             ctx.b, ctx.loc, *x, *rois, *indices,
             modeName == "max" ? RoiPoolMode::Max : RoiPoolMode::Avg,
             ctx.getInt("output_height", 1), ctx.getInt("output_width", 1),
             ctx.getInt("sampling_ratio", 0),
             ctx.getFloat("spatial_scale", 1.0), transform == "half_pixel"));
}

} // namespace

void registerResampleOps(OpTable &table) {
  table.add({
      {"Resize", importResize},
      {"Upsample", importUpsample},
      {"AffineGrid", importAffineGrid},
      {"GridSample", importGridSample},
      {"RoiAlign", importRoiAlign},
  });
}

} // namespace mlprog::onnx_import
