//===- QuantizedConvolutions.cpp - QDQ convolutions in bytes --------------===//
//
// --mlprog-quantized-convolutions: a convolution between DequantizeLinear
// pairs (what onnxruntime's quantize_static writes in the QDQ format, and
// what the importers make of QLinearConv)
//
//   y = conv(pad(dequantize(xq, sx, zx), 0), dequantize(wq, sw, zw)) + bias
//
// is computed in f32 from the dequantized values as written. Its integer
// form is exact, and four times cheaper with AVX-512 VNNI:
//
//   y[n, f, oh, ow] = bias + sx sw[f] sum_k (w[f, k] - zw) (x[k, p] - zx)
//
// with w the filter's signed bytes as a [F, K] matrix (K = C * KH * KW, in
// place) and x the input's unsigned bytes in columns [K, N * OH * OW] (the
// input itself for one image and a 1x1 window of stride 1, else gathered
// by vector code from the input padded with zx, which dequantizes to 0, or
// written straight into the product's panels where an image's pixels are
// whole panels), padded with zx to whole panels of 16 columns (in a batch,
// where that adds little, each image's columns padded to whole register
// blocks, so that the requantization is computed in the product's blocks
// for a batch too). This pass writes that
// form in linalg on tensors: `extsi(w) - zw` and `extui(x) - zx` as
// elementwise generics and their i32 contraction `acc[f, p]`, which
// --mlprog-integer-contractions-to-f32 computes with `vpdpbusd` (the filter
// bytes broadcast, the columns in panels), and an epilogue adding
// `sx sw[f] float(acc)` to the convolution's init (the bias broadcast, read
// as an input) in the convolution's [N, F, OH, OW] order, which reads acc
// in place for one image and with its first two dimensions swapped for a
// batch, so that the requantization after it fuses and vectorizes.
//
// The sum is exact in i32; the float result differs from the f32
// convolution of dequantized values only in rounding, as onnxruntime's own
// fused QDQ kernels do. It runs before --mlprog-fold-constant-generics and
// --mlprog-fuse-elementwise-ops, while the dequantizations are generics of
// their own, and only where the target has AVX-512 VNNI and the
// contraction takes it (K a multiple of 4, F of 16).
//
// A max pooling between QDQ pairs of one scale and zero point (a ResNet's
// stem: the stem convolution's result quantized, dequantized, pooled and
// quantized again) pools the bytes themselves (rewriteMaxPool).
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"
#include "mlprog/Dialect/MLProgram/Transforms/RawElements.h"
#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

namespace mlprog {
#define GEN_PASS_DEF_QUANTIZEDCONVOLUTIONSPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;
using namespace mlprog;
using namespace mlprog::cpu;

static constexpr int64_t kLanes = kByteLanes;

namespace {
/// An elementwise linalg.generic computing ONNX DequantizeLinear,
/// `(ext(q) - ext(z)) * s` in f32 (or `ext(q) * s` without a zero point),
/// of 8-bit values q read whole (identity map).
struct Dequantize {
  /// The 8-bit tensor q.
  Value bytes;
  /// q is read as signed (arith.extsi) or unsigned (arith.extui) bytes.
  bool isSigned;
  /// The scale input and its indexing map (one scale, or one per channel
  /// of q: see scaleDimension).
  Value scale;
  AffineMap scaleMap;
  /// The zero point, a rank-0 8-bit tensor, or null.
  Value zero;
  /// The zero point when it is one per channel, all equal (a constant:
  /// quantize_static's per-channel weights, whose zero points are all 0);
  /// `zero` is null then.
  std::optional<int8_t> uniformZero;
};
} // namespace

/// The value of every element of the constant 8-bit tensor `value` (an
/// arith.constant or a constant memref.global read whole, possibly
/// reshaped) when they are all equal; nothing otherwise.
static std::optional<int8_t> getUniformByte(Value value) {
  ElementsAttr elements = getConstantElements(value);
  if (!elements || !elements.getElementType().isInteger(8))
    return std::nullopt;
  std::vector<char> storage;
  FailureOr<ArrayRef<char>> bytes = getRawElementBytes(elements, storage);
  if (failed(bytes) || bytes->empty() ||
      llvm::any_of(*bytes, [&](char b) { return b != bytes->front(); }))
    return std::nullopt;
  return static_cast<int8_t>(bytes->front());
}

/// The input of `op` that block argument `value` reads, if it is one.
static OpOperand *inputOf(linalg::GenericOp op, Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || arg.getOwner() != op.getBody() ||
      arg.getArgNumber() >= op.getNumDpsInputs())
    return nullptr;
  return op.getDpsInputOperand(arg.getArgNumber());
}

/// Matches `value` as the result of a Dequantize (see there).
static std::optional<Dequantize> matchDequantize(Value value) {
  auto op = value.getDefiningOp<linalg::GenericOp>();
  if (!op || op.getNumDpsInits() != 1 || op.getNumResults() != 1 ||
      op.getNumReductionLoops() != 0 ||
      !op.getIndexingMapsArray().back().isIdentity() ||
      !cast<ShapedType>(value.getType()).getElementType().isF32())
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
  auto mul = yield.getOperand(0).getDefiningOp<arith::MulFOp>();
  if (!mul)
    return std::nullopt;
  Value integer = mul.getLhs(), scale = mul.getRhs();
  if (!integer.getDefiningOp<arith::SIToFPOp>())
    std::swap(integer, scale);
  auto toFloat = integer.getDefiningOp<arith::SIToFPOp>();
  OpOperand *scaleInput = inputOf(op, scale);
  if (!toFloat || !scaleInput)
    return std::nullopt;
  Value difference = toFloat.getIn(), zero;
  if (auto sub = difference.getDefiningOp<arith::SubIOp>()) {
    difference = sub.getLhs();
    zero = sub.getRhs();
  }
  // ext(b) for a block argument b of an 8-bit input: (input, signed).
  auto widened = [&](Value v) -> std::optional<std::pair<OpOperand *, bool>> {
    Operation *ext = v.getDefiningOp();
    if (!isa_and_present<arith::ExtSIOp, arith::ExtUIOp>(ext))
      return std::nullopt;
    OpOperand *input = inputOf(op, ext->getOperand(0));
    if (!input || !ext->getOperand(0).getType().isInteger(8))
      return std::nullopt;
    return std::make_pair(input, isa<arith::ExtSIOp>(ext));
  };
  auto q = widened(difference);
  if (!q || !op.getMatchingIndexingMap(q->first).isIdentity())
    return std::nullopt;
  Dequantize result{q->first->get(), q->second, scaleInput->get(),
                    op.getMatchingIndexingMap(scaleInput), Value()};
  if (zero) {
    auto z = widened(zero);
    if (!z || z->second != q->second)
      return std::nullopt;
    if (op.getMatchingIndexingMap(z->first).getNumResults() == 0) {
      result.zero = z->first->get();
      return result;
    }
    // One zero point per channel: taken when they are all equal.
    result.uniformZero = getUniformByte(z->first->get());
    if (!result.uniformZero)
      return std::nullopt;
  }
  return result;
}

/// `source` padded with `padValue` by `low` and `high` in each dimension.
static Value padWith(RewriterBase &rewriter, Location loc, Value source,
                     Value padValue, ArrayRef<int64_t> low,
                     ArrayRef<int64_t> high) {
  auto type = cast<RankedTensorType>(source.getType());
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<OpFoldResult> lowSizes, highSizes;
  for (int64_t d = 0, e = type.getRank(); d < e; ++d) {
    shape[d] += low[d] + high[d];
    lowSizes.push_back(rewriter.getIndexAttr(low[d]));
    highSizes.push_back(rewriter.getIndexAttr(high[d]));
  }
  return tensor::PadOp::create(rewriter, loc, type.clone(shape), source,
                               lowSizes, highSizes, padValue);
}

/// The zero point of `factor` as an i8 scalar (0 without one).
static Value zeroByte(RewriterBase &rewriter, Location loc,
                      const Dequantize &factor) {
  if (!factor.zero)
    return arith::ConstantIntOp::create(rewriter, loc,
                                        factor.uniformZero.value_or(0), 8);
  return tensor::ExtractOp::create(rewriter, loc, factor.zero, ValueRange{});
}

/// The zero point of `factor` as a rank-0 8-bit tensor, or null without one
/// (or with one per channel, all 0).
static Value zeroTensor(RewriterBase &rewriter, Location loc,
                        const Dequantize &factor) {
  if (factor.zero || factor.uniformZero.value_or(0) == 0)
    return factor.zero;
  auto type = RankedTensorType::get({}, rewriter.getI8Type());
  return arith::ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(type,
                             rewriter.getI8IntegerAttr(*factor.uniformZero)));
}

/// The columns the contraction computes for `pixels` columns: whole panels
/// of 16, and pairs of panels beyond one, so that its register blocks are
/// 32 columns wide (16 accumulators hide vpdpbusd's latency; 8 do not).
static int64_t paddedColumns(int64_t pixels) {
  return llvm::alignTo(pixels, pixels > kLanes ? 2 * kLanes : kLanes);
}

/// acc[f, p] = sum_k (w[f, k] - zw) (x[k, p] - zx) in i32 for the `pixels`
/// columns p, for the signed bytes `matrix` [F, K] of `w` and the unsigned
/// bytes `columns` [K, P] of `x` (P = `pixels`, or paddedColumns(pixels)
/// with columns of zx after them): their widenings and the contraction of
/// those, the columns padded with zx to paddedColumns(pixels) and the
/// padding dropped from acc.
static Value byteProduct(RewriterBase &rewriter, Location loc, Value matrix,
                         const Dequantize &w, Value columns,
                         const Dequantize &x, int64_t pixels) {
  MLIRContext *ctx = rewriter.getContext();
  auto i32 = rewriter.getI32Type();
  int64_t f = cast<RankedTensorType>(matrix.getType()).getDimSize(0);
  int64_t padded = paddedColumns(pixels);
  int64_t given = cast<RankedTensorType>(columns.getType()).getDimSize(1);
  if (given != padded)
    columns = padWith(rewriter, loc, columns, zeroByte(rewriter, loc, x),
                      {0, 0}, {0, padded - given});
  Value a = widenBytes(rewriter, loc, matrix, zeroTensor(rewriter, loc, w),
                       /*isSigned=*/true);
  Value b = widenBytes(rewriter, loc, columns, zeroTensor(rewriter, loc, x),
                       /*isSigned=*/false);
  AffineExpr d0, d1, d2;
  bindDims(ctx, d0, d1, d2);
  Value empty = tensor::EmptyOp::create(rewriter, loc, {f, padded}, i32);
  Value zero = arith::ConstantIntOp::create(rewriter, loc, 0, 32);
  Value init = linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
  Value acc =
      linalg::GenericOp::create(
          rewriter, loc, init.getType(), ValueRange{a, b}, ValueRange{init},
          ArrayRef<AffineMap>{AffineMap::get(3, 0, {d0, d2}, ctx),
                              AffineMap::get(3, 0, {d2, d1}, ctx),
                              AffineMap::get(3, 0, {d0, d1}, ctx)},
          ArrayRef<utils::IteratorType>{utils::IteratorType::parallel,
                                        utils::IteratorType::parallel,
                                        utils::IteratorType::reduction},
          [](OpBuilder &nb, Location l, ValueRange args) {
            Value product = arith::MulIOp::create(nb, l, args[0], args[1]);
            linalg::YieldOp::create(
                nb, l,
                arith::AddIOp::create(nb, l, args[2], product).getResult());
          })
          .getResult(0);
  if (padded == pixels)
    return acc;
  return tensor::ExtractSliceOp::create(
      rewriter, loc, RankedTensorType::get({f, pixels}, i32), acc,
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0),
                             rewriter.getIndexAttr(0)},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(f),
                             rewriter.getIndexAttr(pixels)},
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                             rewriter.getIndexAttr(1)});
}

/// The dimension of `factor`'s operand its scale varies along: -1 for one
/// scale (a map of no results, or whose results read scale dimensions of
/// extent 1), the dimension for a map whose results are such but that one;
/// nothing otherwise.
static std::optional<int64_t> scaleDimension(const Dequantize &factor) {
  std::optional<int64_t> dimension = -1;
  auto type = cast<RankedTensorType>(factor.scale.getType());
  MLIRContext *ctx = type.getContext();
  for (auto [index, expr] : llvm::enumerate(factor.scaleMap.getResults())) {
    // A dimension of extent 1, read at 0 or by a loop of extent 1.
    if (type.getDimSize(index) == 1 &&
        (isa<AffineDimExpr>(expr) || expr == getAffineConstantExpr(0, ctx)))
      continue;
    auto dim = dyn_cast<AffineDimExpr>(expr);
    if (!dim || *dimension != -1)
      return std::nullopt;
    dimension = dim.getPosition();
  }
  return dimension;
}

/// Whether `x` (activations) and `w` (weights) are dequantized unsigned
/// and signed bytes of static shapes the byte contraction takes: one scale
/// and zero point for `x`; for `w`, one zero point and one scale or one per
/// `channel` of its dimensions.
static bool areByteFactors(const std::optional<Dequantize> &x,
                           const std::optional<Dequantize> &w,
                           int64_t channel) {
  if (!x || !w || x->isSigned || !w->isSigned ||
      !cast<RankedTensorType>(x->bytes.getType()).hasStaticShape() ||
      !cast<RankedTensorType>(w->bytes.getType()).hasStaticShape() ||
      !cast<RankedTensorType>(w->scale.getType()).hasStaticShape())
    return false;
  std::optional<int64_t> xDim = scaleDimension(*x), wDim = scaleDimension(*w);
  return xDim == -1 && wDim && (*wDim == -1 || *wDim == channel);
}

/// The scale of `factor` as a scalar tensor, or as a vector along its one
/// dimension (its other dimensions have extent 1, being read at 0).
static Value flatScale(RewriterBase &rewriter, Location loc,
                       const Dequantize &factor) {
  auto type = cast<RankedTensorType>(factor.scale.getType());
  bool perChannel = *scaleDimension(factor) != -1;
  if (type.getRank() == (perChannel ? 1 : 0))
    return factor.scale;
  SmallVector<ReassociationIndices> groups;
  if (perChannel) {
    groups.emplace_back();
    for (int64_t d = 0; d < type.getRank(); ++d)
      groups.back().push_back(d);
  }
  SmallVector<int64_t> shape;
  if (perChannel)
    shape.push_back(type.getNumElements());
  return tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get(shape, type.getElementType()),
      factor.scale, groups);
}

/// `init + sx sw[channel] float(acc)` of `resultType`: `acc` read by
/// `accMap`, the filter's scale per `channel` (a dimension of the result)
/// or one, `init` (the bias) read as an input so that it fuses as one.
static Value rescale(RewriterBase &rewriter, Location loc, Value acc,
                     AffineMap accMap, const Dequantize &x, const Dequantize &w,
                     unsigned channel, Value init,
                     RankedTensorType resultType) {
  MLIRContext *ctx = rewriter.getContext();
  unsigned rank = resultType.getRank();
  Value xScale = flatScale(rewriter, loc, x);
  Value wScale = flatScale(rewriter, loc, w);
  AffineMap wScaleMap =
      cast<RankedTensorType>(wScale.getType()).getRank() == 0
          ? AffineMap::get(rank, 0, ctx)
          : AffineMap::get(rank, 0, {getAffineDimExpr(channel, ctx)}, ctx);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  Value out = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                      resultType.getElementType());
  return linalg::GenericOp::create(
             rewriter, loc, resultType, ValueRange{acc, xScale, wScale, init},
             ValueRange{out},
             ArrayRef<AffineMap>{accMap, AffineMap::get(rank, 0, ctx),
                                 wScaleMap, identity, identity},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [](OpBuilder &nb, Location l, ValueRange args) {
               Value sum =
                   arith::SIToFPOp::create(nb, l, nb.getF32Type(), args[0]);
               Value scale = arith::MulFOp::create(nb, l, args[1], args[2]);
               Value term = arith::MulFOp::create(nb, l, sum, scale);
               linalg::YieldOp::create(
                   nb, l,
                   arith::AddFOp::create(nb, l, args[3], term).getResult());
             })
      .getResult(0);
}

/// Rewrites `conv` as described in the file comment; fails, changing
/// nothing, when it is not a static convolution of dequantized unsigned
/// bytes and a dequantized signed filter that VNNI can take.
static LogicalResult rewriteConvolution(RewriterBase &rewriter,
                                        linalg::Conv2DNchwFchwOp conv) {
  if (!conv.hasPureTensorSemantics())
    return failure();
  Value input = conv.getDpsInputs()[0];
  auto resultType = cast<RankedTensorType>(conv.getResultTypes()[0]);
  auto filterType = cast<RankedTensorType>(conv.getDpsInputs()[1].getType());
  if (!resultType.hasStaticShape() || !filterType.hasStaticShape() ||
      !resultType.getElementType().isF32())
    return failure();
  // The input, possibly zero-padded in height and width.
  SmallVector<int64_t> low(4, 0), high(4, 0);
  if (auto pad = input.getDefiningOp<tensor::PadOp>()) {
    Value padValue = pad.getConstantPaddingValue();
    if (!padValue || !matchPattern(padValue, m_AnyZeroFloat()) ||
        !pad.getLow().empty() || !pad.getHigh().empty())
      return failure();
    for (int64_t d = 0; d < 4; ++d) {
      low[d] = pad.getStaticLow()[d];
      high[d] = pad.getStaticHigh()[d];
    }
    if (low[0] || low[1] || high[0] || high[1] || low[2] < 0 || low[3] < 0 ||
        high[2] < 0 || high[3] < 0)
      return failure();
    input = pad.getSource();
  }
  std::optional<Dequantize> x = matchDequantize(input);
  std::optional<Dequantize> w = matchDequantize(conv.getDpsInputs()[1]);
  // The filter's scale: one, or one per output channel (its dim 0).
  if (!areByteFactors(x, w, /*channel=*/0))
    return failure();
  ArrayRef<int64_t> outShape = resultType.getShape();
  ArrayRef<int64_t> filterShape = filterType.getShape();
  int64_t n = outShape[0], f = outShape[1], oh = outShape[2], ow = outShape[3];
  int64_t c = filterShape[1], kh = filterShape[2], kw = filterShape[3];
  // K in whole steps of 4 bytes: rows of zero points after the columns'
  // (the filter's zero point after the filter's), whose products vanish
  // (a 7x7 window over 3 channels: K = 147, computed as 148).
  int64_t depth = llvm::alignTo(c * kh * kw, kBytesPerLane);
  SmallVector<int64_t> strides = getValues(conv.getStrides());
  SmallVector<int64_t> dilations = getValues(conv.getDilations());

  MLIRContext *ctx = rewriter.getContext();
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  auto i8 = rewriter.getI8Type();
  auto xType = cast<RankedTensorType>(x->bytes.getType());
  // The input bytes padded with their zero point (which dequantizes to 0).
  Value bytes = x->bytes;
  bool padded = llvm::any_of(low, [](int64_t v) { return v != 0; }) ||
                llvm::any_of(high, [](int64_t v) { return v != 0; });
  if (padded)
    bytes =
        padWith(rewriter, loc, bytes, zeroByte(rewriter, loc, *x), low, high);
  // The columns [K, N * OH * OW], K in (c, kh, kw) order: the input itself
  // for one image and a 1x1 window of stride 1, else gathered. In a batch,
  // each image's columns are padded to whole register blocks where that
  // adds at most 1/16 (28 x 28 pixels as 800 columns, not 56 x 56 as more),
  // so that a block's columns are one image's and the requantization is
  // computed in the blocks (see ByteProductEpilogue); otherwise the
  // images' pixels are contiguous.
  int64_t pixels = n * oh * ow, imagePixels = oh * ow;
  int64_t imageColumns = imagePixels;
  if (n > 1 && imagePixels > kLanes &&
      (paddedColumns(imagePixels) - imagePixels) * 16 <= imagePixels)
    imageColumns = paddedColumns(imagePixels);
  int64_t realColumns = imageColumns == imagePixels ? pixels : n * imageColumns;
  Value columns;
  if (n == 1 && kh == 1 && kw == 1 && strides[0] == 1 && strides[1] == 1 &&
      !padded && xType.getDimSize(2) == oh && xType.getDimSize(3) == ow &&
      depth == c) {
    columns = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({depth, pixels}, i8), bytes,
        SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
  } else if (Value panels = gatherPanels(
                 rewriter, loc, bytes, zeroByte(rewriter, loc, *x), {kh, kw},
                 {oh, ow}, strides, dilations, paddedColumns(realColumns),
                 depth, imageColumns)) {
    columns = unpackBytePanels(rewriter, loc, panels);
  } else {
    columns = gatherColumns(rewriter, loc, bytes, zeroByte(rewriter, loc, *x),
                            {kh, kw}, {oh, ow}, strides, dilations,
                            paddedColumns(realColumns), depth, imageColumns);
  }
  // The filter [F, K], read in place.
  Value matrix = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({f, c * kh * kw}, i8), w->bytes,
      SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  if (depth != c * kh * kw)
    matrix = padWith(rewriter, loc, matrix, zeroByte(rewriter, loc, *w), {0, 0},
                     {0, depth - c * kh * kw});
  Value acc = byteProduct(rewriter, loc, matrix, *w, columns, *x, realColumns);
  // [F, N, OH, OW], or [N, F, OH, OW] for one image (read in place).
  AffineExpr d0, d1, d2, d3;
  bindDims(ctx, d0, d1, d2, d3);
  if (imageColumns != imagePixels) {
    // Each image's pixels: [F, N, imageColumns] -> [F, N, OH * OW].
    auto i32 = rewriter.getI32Type();
    acc = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get({f, n, imageColumns}, i32), acc,
        SmallVector<ReassociationIndices>{{0}, {1, 2}});
    acc = tensor::ExtractSliceOp::create(
        rewriter, loc, RankedTensorType::get({f, n, imagePixels}, i32), acc,
        SmallVector<OpFoldResult>(3, rewriter.getIndexAttr(0)),
        getAsIndexOpFoldResult(ctx, {f, n, imagePixels}),
        SmallVector<OpFoldResult>(3, rewriter.getIndexAttr(1)));
  }
  SmallVector<int64_t> accShape = n == 1 ? SmallVector<int64_t>{1, f, oh, ow}
                                         : SmallVector<int64_t>{f, n, oh, ow};
  SmallVector<ReassociationIndices> groups = {{0, 1}, {2, 3}};
  if (n > 1)
    groups = imageColumns != imagePixels
                 ? SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}}
                 : SmallVector<ReassociationIndices>{{0}, {1, 2, 3}};
  acc = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get(accShape, rewriter.getI32Type()),
      acc, groups);
  AffineMap accMap = n == 1 ? AffineMap::getMultiDimIdentityMap(4, ctx)
                            : AffineMap::get(4, 0, {d1, d0, d2, d3}, ctx);
  rewriter.replaceOp(conv,
                     rescale(rewriter, loc, acc, accMap, *x, *w,
                             /*channel=*/1, conv.getDpsInits()[0], resultType));
  return success();
}

/// Rewrites `matmul`, y[m, n] = init + x[m, k] * transpose(w)[k, n] of a
/// dequantized activation x and a dequantized weight w [N, K] (ONNX Gemm
/// with transB, MatMul of a transposed weight), the same way: acc[n, m] =
/// sum_k (w[n, k] - zw) (x[k, m] - zx) with the weight read in place and x
/// transposed into columns. Fails, changing nothing, otherwise.
static LogicalResult rewriteMatmul(RewriterBase &rewriter,
                                   linalg::MatmulOp matmul) {
  if (!matmul.hasPureTensorSemantics())
    return failure();
  auto resultType = cast<RankedTensorType>(matmul.getResultTypes()[0]);
  if (!resultType.hasStaticShape() || !resultType.getElementType().isF32() ||
      !linalg::MatmulOp::isDefaultIndexingMaps(matmul.getIndexingMaps()))
    return failure();
  auto transpose =
      matmul.getDpsInputs()[1].getDefiningOp<linalg::TransposeOp>();
  if (!transpose || transpose.getPermutation() != ArrayRef<int64_t>{1, 0})
    return failure();
  std::optional<Dequantize> x = matchDequantize(matmul.getDpsInputs()[0]);
  std::optional<Dequantize> w = matchDequantize(transpose.getInput());
  // The weight's scale: one, or one per output column (its dim 0).
  if (!areByteFactors(x, w, /*channel=*/0))
    return failure();
  int64_t m = resultType.getDimSize(0), n = resultType.getDimSize(1);
  int64_t depth = cast<RankedTensorType>(w->bytes.getType()).getDimSize(1);
  if (depth % kBytesPerLane != 0)
    return failure();

  MLIRContext *ctx = rewriter.getContext();
  Location loc = matmul.getLoc();
  rewriter.setInsertionPoint(matmul);
  auto i8 = rewriter.getI8Type(), i32 = rewriter.getI32Type();
  // The columns x^T [K, M]: a reshape for one row.
  Value columns;
  if (m == 1) {
    Value flat = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({depth}, i8), x->bytes,
        SmallVector<ReassociationIndices>{{0, 1}});
    columns = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get({depth, 1}, i8), flat,
        SmallVector<ReassociationIndices>{{0, 1}});
  } else {
    Value empty = tensor::EmptyOp::create(rewriter, loc, {depth, m}, i8);
    columns = linalg::TransposeOp::create(rewriter, loc, x->bytes, empty,
                                          ArrayRef<int64_t>{1, 0})
                  .getResult()
                  .front();
  }
  Value acc = byteProduct(rewriter, loc, w->bytes, *w, columns, *x, m);
  AffineMap accMap = AffineMap::get(
      2, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(0, ctx)}, ctx);
  if (m == 1) {
    // [N, 1] as [1, N], read in place.
    Value flat = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({n}, i32), acc,
        SmallVector<ReassociationIndices>{{0, 1}});
    acc = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get({1, n}, i32), flat,
        SmallVector<ReassociationIndices>{{0, 1}});
    accMap = AffineMap::getMultiDimIdentityMap(2, ctx);
  }
  rewriter.replaceOp(matmul, rescale(rewriter, loc, acc, accMap, *x, *w,
                                     /*channel=*/1, matmul.getDpsInits()[0],
                                     resultType));
  return success();
}

/// Whether `a` and `b` are the same value: one SSA value, or constants of
/// equal elements.
static bool areSameValue(Value a, Value b) {
  if (a == b)
    return true;
  ElementsAttr x = getConstantElements(a), y = getConstantElements(b);
  return x && y && x == y;
}

/// Whether `op` computes ONNX QuantizeLinear to unsigned bytes of `value`
/// (read whole) with the scale `scale` and zero point `zero` (rank-0
/// tensors read as scalars), as the importers write it:
/// `fptoui(min(max(roundeven(x / s) + uitofp(z), 0), 255))`.
static bool isQuantizeToBytes(linalg::GenericOp op, Value value, Value scale,
                              Value zero) {
  if (op.getNumDpsInputs() != 3 || op.getNumDpsInits() != 1 ||
      op.getNumResults() != 1 || op.getNumReductionLoops() != 0 ||
      !getElementTypeOrSelf(op.getResult(0).getType()).isInteger(8) ||
      op.getDpsInputs()[0] != value ||
      !areSameValue(op.getDpsInputs()[1], scale) ||
      !areSameValue(op.getDpsInputs()[2], zero))
    return false;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!maps[0].isIdentity() || !maps[3].isIdentity() ||
      maps[1].getNumResults() != 0 || maps[2].getNumResults() != 0)
    return false;
  Block *body = op.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto isArg = [&](Value v, unsigned index) {
    return v == body->getArgument(index);
  };
  auto isFloat = [](Value v, double expected) {
    FloatAttr attr;
    return matchPattern(v, m_Constant(&attr)) &&
           attr.getValueAsDouble() == expected;
  };
  // The other operand of the binary op `T` defining `v` when one operand
  // satisfies `is`.
  auto otherOf = [](auto op, auto is) -> Value {
    if (!op)
      return {};
    if (is(op.getLhs()))
      return op.getRhs();
    if (is(op.getRhs()))
      return op.getLhs();
    return {};
  };
  auto toBytes = yield.getOperand(0).getDefiningOp<arith::FPToUIOp>();
  if (!toBytes)
    return false;
  Value clamped = otherOf(toBytes.getIn().getDefiningOp<arith::MinNumFOp>(),
                          [&](Value v) { return isFloat(v, 255.0); });
  Value shifted = clamped ? otherOf(clamped.getDefiningOp<arith::MaxNumFOp>(),
                                    [&](Value v) { return isFloat(v, 0.0); })
                          : Value();
  auto sum = shifted ? shifted.getDefiningOp<arith::AddFOp>() : nullptr;
  if (!sum)
    return false;
  Value rounded = otherOf(sum, [&](Value v) {
    auto zf = v.getDefiningOp<arith::UIToFPOp>();
    return zf && isArg(zf.getIn(), 2);
  });
  auto round = rounded ? rounded.getDefiningOp<math::RoundEvenOp>() : nullptr;
  auto quotient =
      round ? round.getOperand().getDefiningOp<arith::DivFOp>() : nullptr;
  return quotient && isArg(quotient.getLhs(), 0) && isArg(quotient.getRhs(), 1);
}

/// Rewrites `q = quantize(pool(pad(dequantize(x), -inf)))`, a max pooling
/// between QDQ pairs of one unsigned scale and zero point (a ResNet's
/// stem), as the max pooling of the bytes x itself (emitByteMaxPool):
/// dequantization with a positive scale is increasing, so it commutes with
/// the maximum, and quantize(dequantize(b)) = b exactly for every byte b
/// (roundeven((b - z) s / s) = b - z: the quotient is within 2^-15 of the
/// integer for a normal scale). The pooling then reads a quarter of the
/// bytes and the convolution before it writes bytes, not floats. Fails,
/// changing nothing, on any other form.
static LogicalResult rewriteMaxPool(RewriterBase &rewriter,
                                    linalg::PoolingNchwMaxOp pool,
                                    const CPUTarget &target) {
  if (!pool.hasPureTensorSemantics() || !pool->hasOneUse())
    return failure();
  auto quantize = dyn_cast<linalg::GenericOp>(*pool->getUsers().begin());
  auto resultType = cast<RankedTensorType>(pool.getResultTypes()[0]);
  auto windowType = cast<RankedTensorType>(pool.getDpsInputs()[1].getType());
  if (!quantize || !resultType.hasStaticShape() ||
      !windowType.hasStaticShape() || !resultType.getElementType().isF32())
    return failure();
  // The input, possibly padded with -inf in height and width.
  Value input = pool.getDpsInputs()[0];
  int64_t padTop = 0, padLeft = 0;
  if (auto pad = input.getDefiningOp<tensor::PadOp>()) {
    FloatAttr padValue;
    if (!pad.getConstantPaddingValue() ||
        !matchPattern(pad.getConstantPaddingValue(), m_Constant(&padValue)) ||
        !padValue.getValue().isInfinity() ||
        !padValue.getValue().isNegative() || !pad.getLow().empty() ||
        !pad.getHigh().empty())
      return failure();
    ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
    if (low[0] || low[1] || high[0] || high[1] || low[2] < 0 || low[3] < 0 ||
        high[2] < 0 || high[3] < 0)
      return failure();
    padTop = low[2];
    padLeft = low[3];
    input = pad.getSource();
  }
  std::optional<Dequantize> x = matchDequantize(input);
  if (!x || x->isSigned || !x->zero || scaleDimension(*x) != -1 ||
      !cast<RankedTensorType>(x->bytes.getType()).hasStaticShape() ||
      !isQuantizeToBytes(quantize, pool.getResult(0), x->scale, x->zero))
    return failure();
  // A positive normal scale s (s * 255 finite): see above.
  ElementsAttr scale = getConstantElements(x->scale);
  if (!scale || !scale.getElementType().isF32() || scale.getNumElements() != 1)
    return failure();
  APFloat s = *scale.value_begin<APFloat>();
  if (s.isNegative() || !s.isNormal() || s.convertToFloat() > 1e30f)
    return failure();
  rewriter.setInsertionPoint(quantize);
  Value bytes = emitByteMaxPool(
      rewriter, pool.getLoc(), x->bytes, padTop, padLeft, windowType.getShape(),
      getValues(pool.getStrides()), getValues(pool.getDilations()),
      cast<RankedTensorType>(quantize.getResultTypes()[0]), target);
  if (!bytes)
    return failure();
  rewriter.replaceOp(quantize, bytes);
  rewriter.eraseOp(pool);
  return success();
}

namespace {
struct QuantizedConvolutionsPass
    : public mlprog::impl::QuantizedConvolutionsPassBase<
          QuantizedConvolutionsPass> {
  using Base::Base;

  void runOnOperation() override {
    CPUTarget target = CPUTarget::getForFeatures(targetFeatures);
    if (!target.hasAVX512VNNI())
      return;
    SmallVector<Operation *> candidates;
    SmallVector<linalg::PoolingNchwMaxOp> pools;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::Conv2DNchwFchwOp, linalg::MatmulOp>(op))
        candidates.push_back(op);
      if (auto pool = dyn_cast<linalg::PoolingNchwMaxOp>(op))
        pools.push_back(pool);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::PoolingNchwMaxOp pool : pools)
      (void)rewriteMaxPool(rewriter, pool, target);
    for (Operation *op : candidates) {
      if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op))
        (void)rewriteConvolution(rewriter, conv);
      else
        (void)rewriteMatmul(rewriter, cast<linalg::MatmulOp>(op));
    }
  }
};
} // namespace
