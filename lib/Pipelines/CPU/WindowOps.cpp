//===- WindowOps.cpp - Vector code for depthwise convolutions and pooling -===//
//
// Window ops that are not contractions: a static f32 depthwise convolution
// or max pooling with column strides of 1 or 2 becomes an scf.forall over its
// (n, c) planes and loops over output rows whose vectors accumulate in
// registers over the window taps (FMAs with the tap broadcast, or
// arith.maximumf; arith.maxui for the max pooling of unsigned bytes that
// --mlprog-quantized-convolutions emits); other depthwise convolutions get
// their loops interchanged so that LLVM vectorizes along the output row.
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::cpu;

/// Rewrites a `linalg.depthwise_conv_2d_nchw_chw` (loops n, c, oh, ow, kh,
/// kw) into a generic whose innermost loop is ow:
///   for n, c, oh, kh, kw: for ow: out[n,c,oh,ow] += x[n,c,oh*s+kh,ow*s+kw] *
///   w[c,kh,kw]
/// The output row then stays in L1 across the window, the filter tap is
/// loop-invariant, and LLVM vectorizes the contiguous ow loop (the named
/// op's innermost loop runs over the 3 taps of kw and does not vectorize).
LogicalResult
cpu::interchangeDepthwiseConv(RewriterBase &rewriter,
                              linalg::DepthwiseConv2DNchwChwOp conv) {
  rewriter.setInsertionPoint(conv);
  FailureOr<linalg::GenericOp> generic =
      linalg::generalizeNamedOp(rewriter, conv);
  if (failed(generic))
    return failure();
  // Find the loops from the maps: out[n, c, oh, ow] and w[c, kh, kw].
  AffineMap outMap = generic->getIndexingMapsArray()[2];
  AffineMap filterMap = generic->getIndexingMapsArray()[1];
  SmallVector<unsigned> order;
  for (AffineMap map : {outMap.getMinorSubMap(4).getMajorSubMap(3),
                        filterMap.getMinorSubMap(2), outMap.getMinorSubMap(1)})
    for (AffineExpr expr : map.getResults()) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim)
        return success(); // An unexpected form: keep the generic as is.
      order.push_back(dim.getPosition());
    }
  if (generic->getNumLoops() != 6 || order.size() != 6)
    return success();
  return linalg::interchangeGenericOp(rewriter, *generic, order);
}

namespace {
/// Static shape of a depthwise convolution [N, C, H, W] * [C, Kh, Kw] ->
/// [N, C, Oh, Ow] reading an unpadded source of H x W (height x width) with
/// zero padding (pt, pl) before it, and the vector length of its rows.
struct DepthwiseShape {
  int64_t kh, kw, oh, ow, height, width;
  int64_t sh, sw, dh, dw;
  int64_t pt, pl;
  int64_t vl;
};
} // namespace

/// The output rows [first, last) of a window op whose input rows all lie
/// inside its source: oh * sh - pt >= 0 and oh * sh + (kh - 1) * dh - pt <
/// H; the rows before and after check theirs (see emitWindowPlanes).
static std::pair<int64_t, int64_t>
getInteriorRows(const DepthwiseShape &shape) {
  int64_t first = std::clamp<int64_t>(
      llvm::divideCeilSigned(shape.pt, shape.sh), 0, shape.oh);
  int64_t last = std::clamp<int64_t>(
      llvm::divideCeilSigned(
          shape.height + shape.pt - (shape.kh - 1) * shape.dh, shape.sh),
      first, shape.oh);
  return {first, last};
}

/// The most taps of a window whose broadcasts stay in registers across an
/// output plane (they share the register file with the accumulators).
static constexpr int64_t kMaxRegisterTaps = 25;
/// The most taps of a depthwise convolution made vector code (9x9).
static constexpr int64_t kMaxDepthwiseTaps = 81;

/// How a window op combines its Kh x Kw inputs into the output.
enum class WindowKind {
  MultiplyAdd, // depthwise convolution: out += x * tap
  Max,         // max pooling: out = max(out, x), NaN-propagating
  MaxUnsigned, // max pooling of unsigned bytes: out = maxui(out, x)
};

/// Emits output row `oh` of channel (n, c) of a depthwise convolution (or,
/// with WindowKind::Max[Unsigned] and no taps, of a max pooling) into `out`
/// (indexed [outN, outC, oh, ow]) and returns the updated tensor. The row is
/// cut into vectors of `vl` columns (the last one overlapping its predecessor
/// when vl does not divide Ow), accumulated in registers over the Kh x Kw taps,
/// in groups of at most `group` vectors, starting from `start` (the channel's
/// bias, broadcast) or else from `out`'s values. With `checkRows`, input rows
/// outside [0, H) (the padding) contribute 0; without, every input row of the
/// window must lie inside x.
static Value emitDepthwiseRow(OpBuilder &b, Location loc, Value x, Value out,
                              Value n, Value c, Value outN, Value outC,
                              Value oh, ArrayRef<Value> taps,
                              const DepthwiseShape &shape, int64_t group,
                              bool checkRows, WindowKind kind,
                              Value start = {}) {
  int64_t len = std::min(shape.vl, shape.ow);
  SmallVector<int64_t> starts = getRowVectorStarts(shape.ow, len);
  // Groups from the end, so an overlapping last vector shares its group
  // (reads of the accumulators before writes) with the one it overlaps,
  // even when only one vector fits the registers (5x5 taps with AVX2).
  SmallVector<std::pair<size_t, size_t>> groups;
  bool overlaps = shape.ow % len != 0;
  for (size_t end = starts.size(); end > 0;) {
    size_t size = group;
    if (overlaps && end == starts.size())
      size = std::max<size_t>(size, 2);
    size_t begin = end > size ? end - size : 0;
    groups.push_back({begin, end});
    end = begin;
  }
  Type element = cast<ShapedType>(out.getType()).getElementType();
  Value zero =
      arith::ConstantOp::create(b, loc, element, b.getZeroAttr(element));
  auto vecType = VectorType::get({len}, element);
  Value zeroVec =
      arith::ConstantOp::create(b, loc, vecType, b.getZeroAttr(vecType));
  AffineExpr d0 = b.getAffineDimExpr(0);
  // The input rows of the window, clamped into x when checked.
  SmallVector<Value> rows, valid;
  for (int64_t i = 0; i < shape.kh; ++i) {
    Value row = affine::AffineApplyOp::create(
        b, loc, AffineMap::get(1, 0, d0 * shape.sh + i * shape.dh - shape.pt),
        oh);
    if (checkRows) {
      Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
      Value end = arith::ConstantIndexOp::create(b, loc, shape.height);
      Value inside = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, row, c0),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, row, end));
      row = arith::SelectOp::create(b, loc, inside, row, c0);
      valid.push_back(inside);
    }
    rows.push_back(row);
  }
  for (auto [begin, end] : llvm::reverse(groups)) {
    SmallVector<Value> acc;
    for (size_t i = begin; i < end; ++i) {
      if (start) {
        acc.push_back(start);
        continue;
      }
      Value col = arith::ConstantIndexOp::create(b, loc, starts[i]);
      acc.push_back(vector::TransferReadOp::create(
          b, loc, vecType, out, ValueRange{outN, outC, oh, col}, zero,
          ArrayRef<bool>{true}));
    }
    for (int64_t i = 0; i < shape.kh; ++i) {
      for (int64_t j = 0; j < shape.kw; ++j) {
        Value tap = taps.empty() ? Value() : taps[i * shape.kw + j];
        for (size_t v = begin; v < end; ++v) {
          Value in =
              readRowColumns(b, loc, x, ValueRange{n, c, rows[i]},
                             starts[v] * shape.sw + j * shape.dw - shape.pl,
                             len, shape.sw, shape.width);
          if (checkRows)
            in = arith::SelectOp::create(b, loc, valid[i], in, zeroVec);
          if (kind == WindowKind::Max)
            acc[v - begin] =
                arith::MaximumFOp::create(b, loc, acc[v - begin], in);
          else if (kind == WindowKind::MaxUnsigned)
            acc[v - begin] = arith::MaxUIOp::create(b, loc, acc[v - begin], in);
          else
            acc[v - begin] =
                vector::FMAOp::create(b, loc, in, tap, acc[v - begin]);
        }
      }
    }
    for (size_t i = begin; i < end; ++i) {
      Value col = arith::ConstantIndexOp::create(b, loc, starts[i]);
      out = vector::TransferWriteOp::create(b, loc, acc[i - begin], out,
                                            ValueRange{outN, outC, oh, col},
                                            ArrayRef<bool>{true})
                .getResult();
    }
  }
  return out;
}

/// Applies the unary `epilogue` (see getUnaryEpilogue) to the plane
/// [1, 1, Oh, Ow] in place along its Oh * Ow contiguous elements: a loop
/// over blocks of up to 4 vectors of `width` (independent vectors, so the
/// activation's dependency chains overlap), the remainder in vectors of
/// `width`, the last one ending at the plane's end, all read before the
/// loop writes. A second pass over the plane while it is in cache: in the
/// rows' loops the activation's temporaries would evict the taps from
/// registers, and the vectors along a 7- or 14-wide row are partial. Only
/// epilogues without math calls come here (see vectorizeDepthwiseConv):
/// SiLU per plane ran slower than its own elementwise loop nest.
static Value applyToPlane(OpBuilder &b, Location loc, Value plane,
                          linalg::GenericOp epilogue, int64_t width) {
  auto planeType = cast<RankedTensorType>(plane.getType());
  int64_t size = planeType.getNumElements();
  Type f32 = planeType.getElementType();
  SmallVector<ReassociationIndices> all = {{0, 1, 2, 3}};
  Value flat = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({size}, f32), plane, all);
  Value zero = arith::ConstantOp::create(b, loc, f32, b.getZeroAttr(f32));
  auto apply = [&](OpBuilder &b, Location l, Value from, Value at,
                   int64_t len) {
    Value value = vector::TransferReadOp::create(
        b, l, VectorType::get({len}, f32), from, ValueRange{at}, zero,
        ArrayRef<bool>{true});
    return applyToVector(b, l, epilogue, value);
  };
  auto write = [](OpBuilder &b, Location l, Value value, Value into, Value at) {
    return vector::TransferWriteOp::create(b, l, value, into, ValueRange{at},
                                           ArrayRef<bool>{true})
        .getResult();
  };
  int64_t vl = std::min(width, size);
  int64_t block = std::min(4 * vl, size - size % vl);
  int64_t end = size - size % block;
  SmallVector<std::pair<Value, Value>> tail;
  for (int64_t at = end; at < size; at += vl) {
    Value index =
        arith::ConstantIndexOp::create(b, loc, std::min(at, size - vl));
    tail.push_back({index, apply(b, loc, flat, index, vl)});
  }
  auto loop = scf::ForOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, 0),
      arith::ConstantIndexOp::create(b, loc, end),
      arith::ConstantIndexOp::create(b, loc, block), ValueRange{flat},
      [&](OpBuilder &b, Location l, Value i, ValueRange args) {
        scf::YieldOp::create(
            b, l, write(b, l, apply(b, l, args[0], i, block), args[0], i));
      });
  flat = loop.getResult(0);
  for (auto [index, value] : tail)
    flat = write(b, loc, value, flat, index);
  return tensor::ExpandShapeOp::create(b, loc, planeType, flat, all);
}

/// Emits a window op (a depthwise convolution or a max pooling) over the
/// [N, C, Oh, Ow] tensor `init` as an scf.forall over its (n, c) planes
/// (OpenMP later) and scf.for loops over output rows, each row emitted by
/// emitDepthwiseRow; rows outside [first, last) check that their input rows
/// lie inside x. `makeTaps` builds the broadcast taps of channel c (none for
/// pooling) at the start of each plane, or with `tapsPerRow` at the start of
/// each row (windows with more taps than registers, whose broadcasts then
/// read them from memory next to their FMAs). With `makeStart`, each
/// row's accumulators start from the vector it builds for channel c (at the
/// start of each plane) instead of from `init`'s values. With a unary
/// `epilogue` (see getUnaryEpilogue), a last loop over the plane applies it
/// (applyToPlane). Returns the forall's result.
static Value emitWindowPlanes(
    RewriterBase &rewriter, Location loc, Value x, Value init,
    const DepthwiseShape &shape, int64_t group, int64_t first, int64_t last,
    WindowKind kind,
    function_ref<SmallVector<Value>(OpBuilder &, Location, Value)> makeTaps,
    bool tapsPerRow = false, linalg::GenericOp epilogue = {},
    function_ref<Value(OpBuilder &, Location, Value)> makeStart = nullptr) {
  auto initType = cast<RankedTensorType>(init.getType());
  Type element = initType.getElementType();
  int64_t batch = initType.getDimSize(0), channels = initType.getDimSize(1);
  auto forall = scf::ForallOp::create(
      rewriter, loc,
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(batch),
                             rewriter.getIndexAttr(channels)},
      ValueRange{init}, std::nullopt);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(forall.getBody());
  Value n = forall.getInductionVar(0), c = forall.getInductionVar(1);
  Value shared = forall.getRegionIterArgs()[0];
  auto planeType = RankedTensorType::get({1, 1, shape.oh, shape.ow}, element);
  SmallVector<OpFoldResult> offsets = {n, c, rewriter.getIndexAttr(0),
                                       rewriter.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {
      rewriter.getIndexAttr(1), rewriter.getIndexAttr(1),
      rewriter.getIndexAttr(shape.oh), rewriter.getIndexAttr(shape.ow)};
  SmallVector<OpFoldResult> unit(4, rewriter.getIndexAttr(1));
  Value plane = tensor::ExtractSliceOp::create(rewriter, loc, planeType, shared,
                                               offsets, sizes, unit);
  SmallVector<Value> taps;
  if (!tapsPerRow)
    taps = makeTaps(rewriter, loc, c);
  Value start = makeStart ? makeStart(rewriter, loc, c) : Value();
  Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
  auto rowLoop = [&](int64_t from, int64_t to, bool checkRows) {
    if (from >= to)
      return;
    Value lb = arith::ConstantIndexOp::create(rewriter, loc, from);
    Value ub = arith::ConstantIndexOp::create(rewriter, loc, to);
    auto rows = scf::ForOp::create(
        rewriter, loc, lb, ub, c1, ValueRange{plane},
        [&](OpBuilder &b, Location l, Value oh, ValueRange args) {
          SmallVector<Value> rowTaps =
              tapsPerRow ? makeTaps(b, l, c) : SmallVector<Value>(taps);
          Value result =
              emitDepthwiseRow(b, l, x, args[0], n, c, c0, c0, oh, rowTaps,
                               shape, group, checkRows, kind, start);
          scf::YieldOp::create(b, l, result);
        });
    plane = rows.getResult(0);
  };
  rowLoop(0, first, /*checkRows=*/true);
  rowLoop(first, last, /*checkRows=*/false);
  rowLoop(last, shape.oh, /*checkRows=*/true);
  if (epilogue)
    plane = applyToPlane(rewriter, loc, plane, epilogue, shape.vl);
  rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(rewriter, loc, plane, shared, offsets,
                                        sizes, unit);
  return forall.getResult(0);
}

/// The DepthwiseShape of a window op with a `window` of Kh x Kw over the
/// [N, C, H, W] `source` (read through zero padding of padTop rows and
/// padLeft columns before it) into `init` [N, C, Oh, Ow], or nothing when
/// the vector code does not handle it: column strides other than 1 and 2,
/// windows over `maxTaps` taps, empty outputs.
static std::optional<DepthwiseShape>
getWindowShape(ArrayRef<int64_t> window, RankedTensorType source,
               RankedTensorType init, ArrayRef<int64_t> strides,
               ArrayRef<int64_t> dilations, int64_t padTop, int64_t padLeft,
               const CPUTarget &target, int64_t maxTaps) {
  DepthwiseShape shape;
  shape.kh = window[0];
  shape.kw = window[1];
  shape.oh = init.getDimSize(2);
  shape.ow = init.getDimSize(3);
  shape.height = source.getDimSize(2);
  shape.width = source.getDimSize(3);
  shape.sh = strides[0];
  shape.sw = strides[1];
  shape.dh = dilations[0];
  shape.dw = dilations[1];
  shape.pt = padTop;
  shape.pl = padLeft;
  shape.vl = target.getVectorWidthF32();
  if (shape.sw < 1 || shape.sw > 2 || shape.sh < 1 ||
      shape.kh * shape.kw > maxTaps || shape.ow == 0 || shape.oh == 0)
    return std::nullopt;
  return shape;
}

/// Rewrites a static f32 `linalg.depthwise_conv_2d_nchw_chw` with column
/// strides of 1 or 2 into vector code: an scf.forall over (n, c) (OpenMP
/// when `parallel`), scf.for loops over output rows, and per row Kh x Kw
/// broadcast FMAs on vectors along the row (see emitDepthwiseRow); the taps
/// are broadcast once per channel. A zero-padded input is read through (see
/// ConvSource): the output rows whose window reaches into the top or bottom
/// padding get loops of their own that check the rows.
LogicalResult cpu::vectorizeDepthwiseConv(RewriterBase &rewriter,
                                          linalg::DepthwiseConv2DNchwChwOp conv,
                                          const CPUTarget &target) {
  Value w = conv.getDpsInputs()[1];
  Value init = conv.getDpsInits()[0];
  auto xType = cast<RankedTensorType>(conv.getDpsInputs()[0].getType());
  auto wType = cast<RankedTensorType>(w.getType());
  auto initType = cast<RankedTensorType>(init.getType());
  if (!xType.hasStaticShape() || !wType.hasStaticShape() ||
      !initType.hasStaticShape() || !initType.getElementType().isF32() ||
      !xType.getElementType().isF32() || !wType.getElementType().isF32())
    return failure();
  ConvSource source = getConvSource(conv.getDpsInputs()[0]);
  Value x = source.value;
  auto sourceType = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> strides = getValues(conv.getStrides());
  SmallVector<int64_t> dilations = getValues(conv.getDilations());
  std::optional<DepthwiseShape> window = getWindowShape(
      wType.getShape().drop_front(), sourceType, initType, strides, dilations,
      source.padTop, source.padLeft, target, kMaxDepthwiseTaps);
  if (!window)
    return failure();
  const DepthwiseShape &shape = *window;
  // Taps, accumulators and the input vectors share the register file.
  int64_t registers = target.getNumVectorRegisters();
  // Windows of more taps than fit beside the accumulators (convnext's 7x7)
  // broadcast them in each row instead: before, they were scalar loops at
  // 9-40 GFLOP/s (a quarter of convnext_tiny's run time).
  int64_t taps = shape.kh * shape.kw;
  bool tapsPerRow = taps > kMaxRegisterTaps;
  int64_t group = std::max<int64_t>(1, registers - (tapsPerRow ? 0 : taps) - 3);
  group = std::min<int64_t>(group, 8);
  auto [first, last] = getInteriorRows(shape);

  rewriter.setInsertionPoint(conv);
  auto makeTaps = [&](OpBuilder &b, Location loc, Value c) {
    auto vecType = VectorType::get({std::min(shape.vl, shape.ow)},
                                   initType.getElementType());
    SmallVector<Value> taps;
    for (int64_t i = 0; i < shape.kh; ++i)
      for (int64_t j = 0; j < shape.kw; ++j) {
        Value ci = arith::ConstantIndexOp::create(b, loc, i);
        Value cj = arith::ConstantIndexOp::create(b, loc, j);
        Value tap = tensor::ExtractOp::create(b, loc, w, ValueRange{c, ci, cj});
        taps.push_back(vector::BroadcastOp::create(b, loc, vecType, tap));
      }
    return taps;
  };
  // A unary activation without transcendental functions after the
  // convolution (ReLU, Clip) is applied to each plane while it is in cache
  // (applyToPlane): mobilenet_v2's 3x3 window and Clip of 96 x 28 x 28,
  // 0.040 -> 0.034 ms. A SiLU is not: its exp chains on short planes ran
  // slower than a separate pass over all of them (672 x 7 x 7: 0.071 ->
  // 0.082 ms).
  linalg::GenericOp epilogue = getUnaryEpilogue(conv.getResult(0));
  if (epilogue &&
      (!appliesToVectors(epilogue) ||
       llvm::any_of(epilogue.getBody()->getOperations(), [](Operation &op) {
         return isa<math::MathDialect>(op.getDialect());
       })))
    epilogue = {};
  // A bias or fill init: each row starts from the channel's value in
  // registers, and the planes from an empty tensor, where the init was a
  // pass of its own over the whole output (mobilenet_v2 at batch 8: 3% of
  // its time, the 144 x 56 x 56 planes written and read back).
  linalg::LinalgOp channelInit = getConvolutionInit(init);
  auto makeStart = [&](OpBuilder &b, Location loc, Value c) -> Value {
    auto vecType = VectorType::get({std::min(shape.vl, shape.ow)},
                                   initType.getElementType());
    Value value =
        isa<linalg::FillOp>(channelInit.getOperation())
            ? channelInit.getDpsInputs()[0]
            : tensor::ExtractOp::create(b, loc, channelInit.getDpsInputs()[0],
                                        ValueRange{c})
                  .getResult();
    return vector::BroadcastOp::create(b, loc, vecType, value);
  };
  Value planes = init;
  if (channelInit)
    planes =
        tensor::EmptyOp::create(rewriter, conv.getLoc(), initType.getShape(),
                                initType.getElementType());
  Value result = emitWindowPlanes(
      rewriter, conv.getLoc(), x, planes, shape, group, first, last,
      WindowKind::MultiplyAdd, makeTaps, tapsPerRow, epilogue,
      channelInit ? function_ref<Value(OpBuilder &, Location, Value)>(makeStart)
                  : nullptr);
  replaceWithEpilogue(rewriter, conv, epilogue, result);
  return success();
}

/// Whether `generic` is a ReLU: one input and the init through identity
/// maps, and a payload of `maximumf` or `maxnumf` of the input and 0.
static bool isRelu(linalg::GenericOp generic) {
  if (generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return false;
  Block *body = generic.getBody();
  if (body->getOperations().size() != 2)
    return false;
  Operation &max = body->front();
  if (!isa<arith::MaximumFOp, arith::MaxNumFOp>(max) ||
      body->getTerminator()->getOperand(0) != max.getResult(0))
    return false;
  Value in = body->getArgument(0);
  Value lhs = max.getOperand(0), rhs = max.getOperand(1);
  return (lhs == in && matchPattern(rhs, m_AnyZeroFloat())) ||
         (rhs == in && matchPattern(lhs, m_AnyZeroFloat()));
}

/// A max pooling's input `x` that is a ReLU padded with a constant of at
/// most 0 (-inf, as ONNX MaxPool pads): the ReLU (used by nothing else)
/// and its input, read through zero padding of (padTop, padLeft).
struct ReluBeforePool {
  linalg::GenericOp relu;
  ConvSource source;
};

static std::optional<ReluBeforePool> getReluBeforePool(Value x) {
  auto pad = x.getDefiningOp<tensor::PadOp>();
  if (!pad || !x.hasOneUse())
    return std::nullopt;
  Value padValue = pad.getConstantPaddingValue();
  FloatAttr value;
  if (!padValue || !matchPattern(padValue, m_Constant(&value)) ||
      !(value.getValue().isNegative() || value.getValue().isZero()))
    return std::nullopt;
  auto relu = pad.getSource().getDefiningOp<linalg::GenericOp>();
  if (!relu || !relu->hasOneUse() || !relu.hasPureTensorSemantics() ||
      !isRelu(relu))
    return std::nullopt;
  auto sourceType = dyn_cast<RankedTensorType>(relu.getType(0));
  if (!sourceType || sourceType.getRank() != 4 || !sourceType.hasStaticShape())
    return std::nullopt;
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  for (int64_t i = 0; i < 4; ++i)
    if (ShapedType::isDynamic(low[i]) || ShapedType::isDynamic(high[i]) ||
        low[i] < 0 || high[i] < 0 || (i < 2 && (low[i] || high[i])))
      return std::nullopt;
  return ReluBeforePool{relu, {relu.getDpsInputs()[0], low[2], low[3]}};
}

/// Rewrites a static f32 `linalg.pooling_nchw_max` with column strides of 1
/// or 2 and at most 5x5 windows into vector code like a depthwise
/// convolution's (see emitWindowPlanes): per output row, `arith.maximumf`
/// of the window's input vectors into the row's vectors. Its input is read
/// as is (the -inf padding ONNX MaxPool adds is a separate tensor.pad),
/// except after a ReLU (a ResNet's stem): max(0, x) commutes with the
/// window's maximum, so the pooling reads the ReLU's input through zero
/// padding (a window always holds one element of it, and the ReLU makes
/// padding of 0 and of -inf alike) and applies the ReLU to each output
/// plane (applyToPlane): no ReLU pass over the larger input and no padded
/// copy of it (resnet18 batch 8: 3% of the time).
LogicalResult cpu::vectorizeMaxPool(RewriterBase &rewriter,
                                    linalg::PoolingNchwMaxOp pool,
                                    const CPUTarget &target) {
  Value x = pool.getDpsInputs()[0], window = pool.getDpsInputs()[1];
  Value init = pool.getDpsInits()[0];
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  auto windowType = dyn_cast<RankedTensorType>(window.getType());
  auto initType = dyn_cast<RankedTensorType>(init.getType());
  if (!pool.hasPureTensorSemantics() || !xType || !windowType || !initType ||
      !xType.hasStaticShape() || !windowType.hasStaticShape() ||
      !initType.hasStaticShape() || !initType.getElementType().isF32() ||
      !xType.getElementType().isF32())
    return failure();
  SmallVector<int64_t> strides = getValues(pool.getStrides());
  SmallVector<int64_t> dilations = getValues(pool.getDilations());
  std::optional<ReluBeforePool> relu = getReluBeforePool(x);
  ConvSource source = relu ? relu->source : ConvSource{x};
  std::optional<DepthwiseShape> shape = getWindowShape(
      windowType.getShape(), cast<RankedTensorType>(source.value.getType()),
      initType, strides, dilations, source.padTop, source.padLeft, target,
      kMaxRegisterTaps);
  if (!shape)
    return failure();
  auto [first, last] = getInteriorRows(*shape);
  int64_t group = std::clamp<int64_t>(target.getNumVectorRegisters() - 3, 1, 8);
  rewriter.setInsertionPoint(pool);
  Value result = emitWindowPlanes(
      rewriter, pool.getLoc(), source.value, init, *shape, group, first, last,
      WindowKind::Max,
      [](OpBuilder &, Location, Value) { return SmallVector<Value>(); },
      /*tapsPerRow=*/false, relu ? relu->relu : linalg::GenericOp());
  Operation *pad = x.getDefiningOp();
  rewriter.replaceOp(pool, result);
  if (relu) {
    rewriter.eraseOp(pad);
    rewriter.eraseOp(relu->relu);
  }
  return success();
}

Value cpu::emitByteMaxPool(RewriterBase &rewriter, Location loc, Value bytes,
                           int64_t padTop, int64_t padLeft,
                           ArrayRef<int64_t> window, ArrayRef<int64_t> strides,
                           ArrayRef<int64_t> dilations,
                           RankedTensorType resultType,
                           const CPUTarget &target) {
  auto sourceType = dyn_cast<RankedTensorType>(bytes.getType());
  if (!sourceType || sourceType.getRank() != 4 ||
      !sourceType.hasStaticShape() || !resultType.hasStaticShape() ||
      !sourceType.getElementType().isInteger(8) ||
      resultType.getElementType() != sourceType.getElementType())
    return {};
  std::optional<DepthwiseShape> shape =
      getWindowShape(window, sourceType, resultType, strides, dilations, padTop,
                     padLeft, target, kMaxRegisterTaps);
  if (!shape)
    return {};
  auto [first, last] = getInteriorRows(*shape);
  int64_t group = std::clamp<int64_t>(target.getNumVectorRegisters() - 3, 1, 8);
  // Every row starts from 0, the least byte, so `init` is never read.
  auto startType = VectorType::get({std::min(shape->vl, shape->ow)},
                                   resultType.getElementType());
  Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                       resultType.getElementType());
  return emitWindowPlanes(
      rewriter, loc, bytes, init, *shape, group, first, last,
      WindowKind::MaxUnsigned,
      [](OpBuilder &, Location, Value) { return SmallVector<Value>(); },
      /*tapsPerRow=*/false, linalg::GenericOp(),
      [&](OpBuilder &b, Location l, Value) -> Value {
        return arith::ConstantOp::create(b, l, startType,
                                         b.getZeroAttr(startType));
      });
}
