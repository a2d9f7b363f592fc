//===- ResampleOps.cpp - aten upsampling ops ------------------------------===//
//
// `upsample_{nearest{1,2,3}d, linear1d, bilinear2d, trilinear3d,
// bicubic2d}`, `_upsample_nearest_exact{1,2,3}d` and the antialiased
// `_upsample_{bilinear,bicubic}2d_aa`, each with its
// output_size overload (per-axis optional scales) and its `.vec` overload
// (output_size or scale_factors), which is what scripted
// F.interpolate calls.
//
// One handler per aten op: it reads the arguments at the schema's
// positions and calls buildResize (Common/Resample.h) with the coordinate
// transformation PyTorch's kernels use. Semantics belong in the builders,
// not here.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "HandlerUtils.h"

#include "mlprog/Import/Common/Resample.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <cmath>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// What an upsample op computes, from its name.
struct UpsampleKind {
  ResampleMode mode = ResampleMode::Nearest;
  /// _upsample_nearest_exact*: source (dst + 0.5) / scale, floored.
  bool exact = false;
  /// Linear and cubic ops take align_corners after output_size.
  bool hasAlignCorners = false;
  /// Number of spatial (trailing) axes.
  int64_t nd = 0;
  /// _upsample_{bilinear,bicubic}2d_aa: antialiased (buildResizeAntialias).
  bool antialias = false;
};

UpsampleKind upsampleKind(Node *n) {
  std::string name = n->kind().toUnqualString();
  UpsampleKind k;
  if (StringRef(name).ends_with("_aa")) {
    k.antialias = true;
    name.resize(name.size() - 3);
  }
  k.nd = name[name.size() - 2] - '0';
  if (name.find("nearest") != std::string::npos) {
    k.exact = name.find("exact") != std::string::npos;
  } else {
    k.hasAlignCorners = true;
    k.mode = name.find("bicubic") != std::string::npos ? ResampleMode::Cubic
                                                       : ResampleMode::Linear;
  }
  return k;
}

/// upsample_<mode><N>d(self, output_size, [align_corners,] scales...) and
/// upsample_<mode><N>d.vec(input, output_size?, [align_corners,]
/// scale_factors?).
///
/// PyTorch's kernels (aten/src/ATen/native/UpSample.h) map output index d to
/// source coordinate d * s (nearest: floored, clamped), (d + 0.5) * s
/// (nearest_exact), (d + 0.5) * s - 0.5 (linear, cubic) or, with
/// align_corners, d * (in - 1) / (out - 1), where s = 1 / scale when a
/// positive scale is given and in / out otherwise. The output extent is
/// output_size when given, else floor(in * scale_factor).
LogicalResult upsample(Im &im, Node *n) {
  Location l = im.loc(n);
  UpsampleKind kind = upsampleKind(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  int64_t rank = rankOf(*x);
  if (rank != kind.nd + 2)
    return emitError(l) << n->kind().toQualString() << " expects a "
                        << kind.nd + 2 << "-D input, got " << x->getType();
  bool alignCorners = false;
  unsigned scaleArg = 2;
  if (kind.hasAlignCorners) {
    FailureOr<bool> ac = im.boolInput(n, 2);
    if (failed(ac))
      return failure();
    alignCorners = *ac;
    scaleArg = 3;
  }
  // Per-axis scales: the .vec overload's one float list, or the
  // output_size overload's `nd` optional floats.
  SmallVector<std::optional<double>> scales(kind.nd);
  unsigned numScaleArgs = n->inputs().size() - scaleArg;
  const TSValue &first = im.get(n->input(scaleArg));
  if (first.elems) {
    if (int64_t(first.elems->size()) != kind.nd)
      return emitError(l) << "expected " << kind.nd << " scale factors, got "
                          << first.elems->size();
    for (auto [i, e] : llvm::enumerate(*first.elems)) {
      if (!e.asDouble())
        return im.unsupported(n, "scale factors unknown at import time");
      scales[i] = *e.asDouble();
    }
  } else if (numScaleArgs == unsigned(kind.nd)) {
    for (int64_t i = 0; i < kind.nd; ++i) {
      if (im.isNoneInput(n, scaleArg + i))
        continue;
      FailureOr<double> s = im.numberInput(n, scaleArg + i);
      if (failed(s))
        return failure();
      scales[i] = *s;
    }
  } else if (!first.isNone()) {
    return emitError(l) << "unexpected arguments of "
                        << n->kind().toQualString();
  }

  auto type = cast<RankedTensorType>(x->getType());
  SmallVector<OpFoldResult> outSizes;
  for (int64_t d = 0; d < 2; ++d)
    outSizes.push_back(tensor::getMixedSize(im.b, l, *x, d));
  if (!im.isNoneInput(n, 1)) {
    // Sizes a trace computed from the input's shape are run-time ints.
    FailureOr<SmallVector<OpFoldResult>> size = sizesInput(im, n, 1);
    if (failed(size))
      return failure();
    if (int64_t(size->size()) != kind.nd)
      return emitError(l) << "expected " << kind.nd << " output sizes, got "
                          << size->size();
    for (OpFoldResult s : *size) {
      std::optional<int64_t> c = getConstantIntValue(s);
      if (c && *c <= 0)
        return emitError(l) << "output sizes must be positive, got " << *c;
      outSizes.push_back(s);
    }
  } else {
    // floor(in * scale), in f64 as upsample's output-size helper.
    for (int64_t i = 0; i < kind.nd; ++i) {
      if (!scales[i])
        return emitError(l) << "either output_size or scale_factors must be "
                               "given";
      if (!(*scales[i] > 0))
        return emitError(l)
               << "scale factors must be positive, got " << *scales[i];
      int64_t in = type.getDimSize(i + 2);
      if (!ShapedType::isDynamic(in)) {
        outSizes.push_back(
            im.b.getIndexAttr(int64_t(std::floor(double(in) * *scales[i]))));
        continue;
      }
      Value dim = tensor::DimOp::create(im.b, l, *x, i + 2);
      Value dimI = arith::IndexCastOp::create(im.b, l, im.b.getI64Type(), dim);
      Value dimF = arith::SIToFPOp::create(im.b, l, im.b.getF64Type(), dimI);
      Value s =
          arith::ConstantOp::create(im.b, l, im.b.getF64FloatAttr(*scales[i]));
      Value prod = arith::MulFOp::create(im.b, l, dimF, s);
      Value outI = arith::FPToSIOp::create(im.b, l, im.b.getI64Type(), prod);
      outSizes.push_back(
          arith::IndexCastOp::create(im.b, l, im.b.getIndexType(), outI)
              .getResult());
    }
  }

  if (kind.antialias) {
    std::optional<SmallVector<int64_t>> sizes =
        getConstantIntValues(ArrayRef<OpFoldResult>(outSizes).drop_front(2));
    if (!sizes || !type.hasStaticShape())
      return im.unsupported(n, "antialiased upsampling of dynamic extents");
    return im.setTensor(n, 0,
                        buildResizeAntialias(im.b, l, *x, *sizes, scales,
                                             alignCorners, kind.mode));
  }
  ResizeOptions options;
  options.mode = kind.mode;
  if (kind.mode == ResampleMode::Nearest) {
    options.transform = kind.exact ? CoordinateTransform::TfHalfPixelForNN
                                   : CoordinateTransform::Asymmetric;
    options.nearest = NearestRounding::Floor;
  } else {
    options.transform = alignCorners ? CoordinateTransform::AlignCorners
                                     : CoordinateTransform::HalfPixel;
    options.cubicCoeffA = -0.75;
  }
  // Given positive scales set the source step (align_corners ignores
  // them); an axis without one steps by in / out, which buildResize
  // computes when no scales are passed at all.
  SmallVector<OpFoldResult> scaleAttrs;
  bool anyScale =
      llvm::any_of(scales, [](std::optional<double> s) { return s && *s > 0; });
  if (anyScale && !alignCorners) {
    scaleAttrs.assign(2, im.b.getF64FloatAttr(1.0));
    for (int64_t i = 0; i < kind.nd; ++i) {
      if (scales[i] && *scales[i] > 0) {
        scaleAttrs.push_back(im.b.getF64FloatAttr(*scales[i]));
        continue;
      }
      std::optional<int64_t> out = getConstantIntValue(outSizes[i + 2]);
      int64_t in = type.getDimSize(i + 2);
      if (!out || ShapedType::isDynamic(in))
        return im.unsupported(n, "a scale given for some axes only, with "
                                 "dynamic extents");
      scaleAttrs.push_back(im.b.getF64FloatAttr(double(*out) / double(in)));
    }
  }
  if (kind.mode != ResampleMode::Nearest &&
      !isa<FloatType>(type.getElementType()))
    return emitError(l) << n->kind().toQualString()
                        << " needs a floating-point input, got " << type;
  return im.setTensor(
      n, 0, buildResize(im.b, l, *x, outSizes, scaleAttrs, {}, options));
}

/// grid_sampler(input, grid, interpolation_mode, padding_mode,
/// align_corners), grid_sampler_2d and grid_sampler_3d: the modes are aten's
/// enums (interpolation 0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros, 1
/// border, 2 reflection); 4-D and (grid_sampler_3d) 5-D inputs.
LogicalResult gridSampler(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0), grid = im.tensorInput(n, 1);
  FailureOr<int64_t> mode = im.intInput(n, 2), padding = im.intInput(n, 3);
  FailureOr<bool> alignCorners = im.boolInput(n, 4);
  if (failed(x) || failed(grid) || failed(mode) || failed(padding) ||
      failed(alignCorners))
    return failure();
  if (*mode < 0 || *mode > 2 || *padding < 0 || *padding > 2)
    return emitError(l) << "grid_sampler: unknown interpolation mode " << *mode
                        << " or padding mode " << *padding;
  static const GridSampleMode modes[] = {GridSampleMode::Bilinear,
                                         GridSampleMode::Nearest,
                                         GridSampleMode::Bicubic};
  static const GridSamplePadding paddings[] = {GridSamplePadding::Zeros,
                                               GridSamplePadding::Border,
                                               GridSamplePadding::Reflection};
  return im.setTensor(n, 0,
                      buildGridSample(im.b, l, *x, *grid, modes[*mode],
                                      paddings[*padding], *alignCorners));
}

} // namespace

void mlprog::torchscript::registerResampleOps(OpTable &table) {
  table.add({
      {"aten::upsample_nearest1d", upsample},
      {"aten::upsample_nearest2d", upsample},
      {"aten::upsample_nearest3d", upsample},
      {"aten::_upsample_nearest_exact1d", upsample},
      {"aten::_upsample_nearest_exact2d", upsample},
      {"aten::_upsample_nearest_exact3d", upsample},
      {"aten::upsample_linear1d", upsample},
      {"aten::upsample_bilinear2d", upsample},
      {"aten::upsample_trilinear3d", upsample},
      {"aten::upsample_bicubic2d", upsample},
      {"aten::_upsample_bilinear2d_aa", upsample},
      {"aten::_upsample_bicubic2d_aa", upsample},
      {"aten::grid_sampler", gridSampler},
      {"aten::grid_sampler_2d", gridSampler},
      {"aten::grid_sampler_3d", gridSampler},
  });
}
