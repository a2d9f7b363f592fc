//===- VectorizeElementwise.cpp - Vector code for elementwise ops ---------===//
//
// --mlprog-vectorize-elementwise: the -O2 code generation of
// --mlprog-lower-to-cpu for elementwise linalg ops on tensors (relu, adds,
// bias broadcasts, fills) and pads, which the loop lowering makes scalar
// loops LLVM does not vectorize. Ops are collapsed to [outer..., row], tiled
// into an scf.forall (OpenMP) and loops over chunks of a few vectors of the
// row, and vectorized; pads become loops writing each output row once.
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"
#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlprog {
#define GEN_PASS_DEF_VECTORIZEELEMENTWISEPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;
using namespace mlprog;
using namespace mlprog::cpu;

/// Forall tiles of the innermost dimension hold at most this many elements
/// when the outer dimensions alone give too few tiles.
static constexpr int64_t kMaxForallRow = 8192;
/// Ops smaller than this stay scalar loops.
static constexpr int64_t kMinVectorElements = 8;

bool cpu::isVectorElement(Type type) {
  Type element = getElementTypeOrSelf(type);
  return element.isIntOrFloat() && element.getIntOrFloatBitWidth() % 8 == 0;
}

/// Whether `op` is an elementwise op this pass vectorizes (see
/// VectorizeElementwisePass): all-parallel, identity output map, input maps
/// that are projected permutations contiguous along the innermost loop
/// dimension or independent of it, an arith/math body; static, or with
/// `dynamicRow` a dynamic innermost loop range (see vectorizeDynamicRow).
static bool isVectorizableElementwise(linalg::LinalgOp op,
                                      bool dynamicRow = false) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumLoops() == 0 || op.getNumLoops() != op.getNumParallelLoops())
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (dynamicRow) {
    // An op with a static extent of 0 is empty; upstream tiling crashes on
    // it.
    if (!ShapedType::isDynamic(ranges.back()) || llvm::is_contained(ranges, 0))
      return false;
  } else {
    if (llvm::any_of(ranges, ShapedType::isDynamic))
      return false;
    int64_t elements = 1;
    for (int64_t range : ranges)
      elements *= range;
    if (elements < kMinVectorElements)
      return false;
  }
  for (OpOperand &operand : op->getOpOperands())
    if (!isVectorElement(operand.get().getType()))
      return false;
  unsigned inner = op.getNumLoops() - 1;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!maps.back().isIdentity())
    return false;
  for (AffineMap map : ArrayRef(maps).drop_back()) {
    if (!map.isProjectedPermutation())
      return false;
    if (map.isFunctionOfDim(inner) &&
        map.getResults().back() != getAffineDimExpr(inner, op.getContext()))
      return false;
  }
  for (Operation &bodyOp : op.getBlock()->without_terminator()) {
    Dialect *dialect = bodyOp.getDialect();
    if (!isa_and_nonnull<arith::ArithDialect, math::MathDialect>(dialect) ||
        bodyOp.getNumRegions() != 0)
      return false;
    for (Type type : bodyOp.getResultTypes())
      if (!type.isIntOrFloat())
        return false;
  }
  return true;
}

/// Whether `op` is an all-parallel generic on tensors with static shapes
/// that reads an operand through a map with constant results: a unit
/// dimension broadcast along a loop, like the [1, 64, 1] mean a layer norm
/// subtracts from its [1, 64, 256] input, read at (d0, d1, 0).
static bool readsUnitBroadcast(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.hasDynamicShape() ||
      op.getNumLoops() != op.getNumParallelLoops())
    return false;
  return llvm::any_of(op.getIndexingMapsArray(), [](AffineMap map) {
    return llvm::any_of(map.getResults(), [](AffineExpr expr) {
      return isa<AffineConstantExpr>(expr);
    });
  });
}

/// Drops the unit dimensions of `op`'s loops and operands
/// (`linalg::dropUnitDims`), so that a unit-dimension broadcast becomes a
/// projected permutation this pass vectorizes: [1, 64, 256] - [1, 64, 1]
/// becomes [64, 256] - [64] read at (d0). Returns the new op, or `op` when
/// nothing was dropped.
static linalg::LinalgOp dropUnitBroadcastDims(RewriterBase &rewriter,
                                              linalg::GenericOp op) {
  rewriter.setInsertionPoint(op);
  linalg::ControlDropUnitDims options;
  FailureOr<linalg::DropUnitDimsResult> result =
      linalg::dropUnitDims(rewriter, op, options);
  if (failed(result))
    return op;
  rewriter.replaceOp(op, result->replacements);
  auto dropped = dyn_cast<linalg::LinalgOp>(result->resultOp.getOperation());
  return dropped ? dropped : linalg::LinalgOp();
}

/// The loops of `op` to tile by 1 so that its tile has static loop ranges:
/// its dynamic loops when `op` is an all-parallel op on tensors with one
/// output read through the identity, a static innermost loop and at least
/// one dynamic outer one (a residual add or GELU over [batch, sequence,
/// hidden] with the sequence unknown). Empty otherwise.
static SmallVector<int64_t> getDynamicRowTiles(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumLoops() < 2 || op.getNumLoops() != op.getNumParallelLoops() ||
      !op.getIndexingMapsArray().back().isIdentity())
    return {};
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // An empty op (a static extent of 0: ONNX's empty-set reductions) has
  // nothing to vectorize, and upstream tiling crashes on it.
  if (ShapedType::isDynamic(ranges.back()) ||
      llvm::none_of(ranges, ShapedType::isDynamic) ||
      llvm::is_contained(ranges, 0))
    return {};
  return llvm::map_to_vector(ranges, [](int64_t range) -> int64_t {
    return ShapedType::isDynamic(range) ? 1 : 0;
  });
}

static void vectorizeElementwise(RewriterBase &rewriter, linalg::LinalgOp op,
                                 int64_t vectorBits, bool parallel);

/// Vectorizes an elementwise op whose outer loops are partly dynamic (see
/// getDynamicRowTiles): its dynamic loops become `scf.for` loops of step 1
/// around a statically shaped tile, which is then vectorized like any
/// static op (unit broadcasts dropped first). A tile this pass cannot
/// vectorize stays a scalar loop nest inside the loops.
static void vectorizeDynamicRows(RewriterBase &rewriter, linalg::LinalgOp op,
                                 ArrayRef<int64_t> tiles, int64_t vectorBits) {
  FailureOr<linalg::LinalgOp> tiled =
      tileLinalgOp(rewriter, op, tiles, scf::SCFTilingOptions::LoopType::ForOp);
  if (failed(tiled) || (*tiled).hasDynamicShape())
    return;
  linalg::LinalgOp row = *tiled;
  if (auto generic = dyn_cast<linalg::GenericOp>(row.getOperation()))
    if (readsUnitBroadcast(generic))
      row = dropUnitBroadcastDims(rewriter, generic);
  // The row tiles run one after another: the rows are the parallel work
  // of a whole sequence, but a decoding step has one.
  if (row && isVectorizableElementwise(row))
    vectorizeElementwise(rewriter, row, vectorBits, /*parallel=*/false);
}

SmallVector<ReassociationIndices>
cpu::getCollapsibleLoops(linalg::LinalgOp op) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<ReassociationIndices> groups;
  groups.push_back({0});
  for (int64_t i = 1, e = op.getNumLoops(); i < e; ++i) {
    ReassociationIndices candidate = groups.back();
    candidate.push_back(i);
    if (linalg::areDimSequencesPreserved(maps, {candidate}))
      groups.back() = candidate;
    else
      groups.push_back({i});
  }
  return groups;
}

/// The largest divisor of `value` that is a multiple of `multiple` and at
/// most `limit` (`multiple` itself when none is larger; `multiple` divides
/// `value`).
static int64_t largestMultipleDivisor(int64_t value, int64_t multiple,
                                      int64_t limit) {
  int64_t count = value / multiple;
  for (int64_t d = std::max<int64_t>(1, limit / multiple); d > 1; --d)
    if (count % d == 0)
      return d * multiple;
  return multiple;
}

/// Tiles one part of a collapsed elementwise op (innermost extent a
/// multiple of `chunk`, or less than one chunk) and vectorizes its chunks.
static void tileAndVectorizePart(RewriterBase &rewriter, linalg::LinalgOp op,
                                 int64_t chunk, bool parallel) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned inner = ranges.size() - 1;
  int64_t n = ranges[inner];
  chunk = std::min(chunk, n);
  int64_t outer = 1;
  for (int64_t range : ArrayRef(ranges).drop_back())
    outer *= range;
  linalg::LinalgOp current = op;
  if (parallel && outer * n >= kMinParallelElements) {
    SmallVector<int64_t> sizes(ranges.size(), 1);
    // Few rows: cut the rows into blocks as well, so every thread gets some.
    sizes[inner] =
        outer >= 8 ? 0 : largestMultipleDivisor(n, chunk, kMaxForallRow);
    FailureOr<linalg::LinalgOp> tiled = tileLinalgOp(
        rewriter, current, sizes, scf::SCFTilingOptions::LoopType::ForallOp);
    if (failed(tiled))
      return;
    current = *tiled;
  }
  SmallVector<int64_t> sizes(ranges.size(), 1);
  sizes[inner] = chunk;
  FailureOr<linalg::LinalgOp> tiled = tileLinalgOp(
      rewriter, current, sizes, scf::SCFTilingOptions::LoopType::ForOp);
  if (succeeded(tiled))
    vectorizeIfStatic(rewriter, *tiled);
}

/// Lanes of the widest operand of `op` in a vector of `vectorBits` bits.
static int64_t getRowLanes(linalg::LinalgOp op, int64_t vectorBits) {
  int64_t lanes = vectorBits;
  for (OpOperand &operand : op->getOpOperands())
    lanes = std::min(lanes,
                     getLanes(getElementTypeOrSelf(operand.get()), vectorBits));
  return lanes;
}

/// Generalizes `op` and collapses its loop dimensions that are contiguous in
/// every operand (getCollapsibleLoops), at most one dynamic dimension per
/// group: expanding the result back into two dynamic extents of one group
/// crashes upstream's expand-strided-metadata. Returns the new op, or null
/// when a step fails (`op` is then left alone).
static linalg::LinalgOp generalizeAndCollapse(RewriterBase &rewriter,
                                              linalg::LinalgOp op) {
  rewriter.setInsertionPoint(op);
  if (!isa<linalg::GenericOp>(op)) {
    FailureOr<linalg::GenericOp> generic =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generic))
      return {};
    op = *generic;
  }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<ReassociationIndices> groups;
  for (ReassociationIndices &group : getCollapsibleLoops(op)) {
    groups.emplace_back();
    bool dynamic = false;
    for (int64_t dim : group) {
      if (ShapedType::isDynamic(ranges[dim])) {
        if (dynamic)
          groups.emplace_back();
        dynamic = true;
      }
      groups.back().push_back(dim);
    }
  }
  if (groups.size() < op.getNumLoops()) {
    FailureOr<linalg::CollapseResult> collapsed =
        linalg::collapseOpIterationDims(op, groups, rewriter);
    if (failed(collapsed))
      return {};
    rewriter.replaceOp(op, collapsed->results);
    op = collapsed->collapsedOp;
  }
  return op;
}

void cpu::forEachRowPart(RewriterBase &rewriter, linalg::LinalgOp op,
                         int64_t vectorBits, RowPartFn part) {
  // Lanes of the widest operand: one chunk is at most 4 of its registers.
  int64_t lanes = getRowLanes(op, vectorBits);
  op = generalizeAndCollapse(rewriter, op);
  if (!op)
    return;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned inner = ranges.size() - 1;
  int64_t n = ranges[inner];
  int64_t chunk = n < lanes ? n : lanes * std::min<int64_t>(4, n / lanes);
  if (n > chunk && n % chunk != 0) {
    // For a reduction, the remainder reduces into the head's result.
    rewriter.setInsertionPoint(op);
    auto [head, tail] =
        linalg::splitOp(rewriter, cast<TilingInterface>(op.getOperation()),
                        inner, rewriter.getIndexAttr(n - n % chunk));
    if (!head || !tail)
      return;
    part(cast<linalg::LinalgOp>(head.getOperation()), chunk);
    part(cast<linalg::LinalgOp>(tail.getOperation()), chunk);
    return;
  }
  part(op, chunk);
}

void cpu::vectorizeIfStatic(RewriterBase &rewriter, Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.hasDynamicShape())
    return;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, op);
  if (succeeded(vectorized))
    rewriter.replaceOp(op, vectorized->replacements);
}

void cpu::vectorizeDynamicRow(RewriterBase &rewriter, linalg::LinalgOp op,
                              int64_t vectorBits, bool reduction) {
  int64_t chunk = getRowLanes(op, vectorBits);
  op = generalizeAndCollapse(rewriter, op);
  if (!op)
    return;
  MLIRContext *ctx = rewriter.getContext();
  unsigned inner = op.getNumLoops() - 1;
  if (inner > 0) {
    SmallVector<int64_t> sizes(op.getNumLoops(), 1);
    sizes[inner] = 0;
    FailureOr<linalg::LinalgOp> tiled = tileLinalgOp(
        rewriter, op, sizes, scf::SCFTilingOptions::LoopType::ForOp);
    if (failed(tiled))
      return;
    op = *tiled;
  }
  scf::SCFTilingOptions options;
  SmallVector<int64_t> sizes(op.getNumLoops(), 0);
  sizes[inner] = chunk;
  options.setTileSizes(getAsIndexOpFoldResult(ctx, sizes));
  options.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
  if (reduction) {
    options.setReductionTilingStrategy(
        ReductionTilingStrategy::PartialReductionOuterReduction);
    options.setReductionDims({inner});
  }
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> result = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(result) || result->loops.size() != 1)
    return;
  rewriter.replaceOp(op, result->replacements);
  auto loop = dyn_cast<scf::ForOp>(result->loops.front().getOperation());
  if (!loop)
    return;
  // The partial results' initial chunk and their final combination are
  // static.
  for (Value init : result->initialValues)
    if (Operation *fill = init.getDefiningOp())
      vectorizeIfStatic(rewriter, fill);
  for (Operation *merge : result->mergeOps)
    vectorizeIfStatic(rewriter, merge);

  // In the loop without its last iteration every chunk is whole: the
  // affine.min of its size becomes the chunk, and canonicalization makes
  // the slices and the tiled op static.
  scf::ForOp partial;
  if (failed(scf::peelForLoopAndSimplifyBounds(rewriter, loop, partial)))
    return;
  RewritePatternSet patterns(ctx);
  ctx->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(
      patterns);
  ctx->getLoadedDialect<tensor::TensorDialect>()->getCanonicalizationPatterns(
      patterns);
  tensor::ExtractSliceOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::InsertSliceOp::getCanonicalizationPatterns(patterns, ctx);
  tensor::CastOp::getCanonicalizationPatterns(patterns, ctx);
  linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
  SmallVector<Operation *> body;
  loop.getBody()->walk([&](Operation *nested) { body.push_back(nested); });
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  (void)applyOpPatternsGreedily(body, std::move(patterns), config);
  SmallVector<linalg::LinalgOp> chunks;
  loop.getBody()->walk(
      [&](linalg::LinalgOp tiled) { chunks.push_back(tiled); });
  for (linalg::LinalgOp tiled : chunks)
    vectorizeIfStatic(rewriter, tiled);
}

/// Vectorizes one elementwise op (see VectorizeElementwisePass).
static void vectorizeElementwise(RewriterBase &rewriter, linalg::LinalgOp op,
                                 int64_t vectorBits, bool parallel) {
  forEachRowPart(rewriter, op, vectorBits,
                 [&](linalg::LinalgOp part, int64_t chunk) {
                   tileAndVectorizePart(rewriter, part, chunk, parallel);
                 });
}

//===----------------------------------------------------------------------===//
// Pads
//===----------------------------------------------------------------------===//

/// Produces the vector of `length` elements that goes at offset `column` of
/// a row segment.
using ChunkFn =
    function_ref<Value(OpBuilder &, Location, Value column, int64_t length)>;

/// Writes the segment [begin, begin + length) of the 1-d tensor `row` in
/// chunks of `lanes` elements (then one narrower remainder), each produced by
/// `chunk`; a loop when there are more than kMaxUnrolledVectors chunks.
/// Returns the new row.
static Value writeSegment(OpBuilder &b, Location loc, Value row, int64_t begin,
                          int64_t length, int64_t lanes, ChunkFn chunk) {
  auto write = [&](OpBuilder &builder, Value current, Value column,
                   int64_t len) -> Value {
    Value v = chunk(builder, loc, column, len);
    Value offset = arith::AddIOp::create(
        builder, loc, column,
        arith::ConstantIndexOp::create(builder, loc, begin));
    return vector::TransferWriteOp::create(builder, loc, v, current,
                                           ValueRange{offset},
                                           ArrayRef<bool>{true})
        .getResult();
  };
  int64_t full = length / lanes, rest = length % lanes;
  if (full > kMaxUnrolledVectors) {
    Value lb = arith::ConstantIndexOp::create(b, loc, 0);
    Value ub = arith::ConstantIndexOp::create(b, loc, full * lanes);
    Value step = arith::ConstantIndexOp::create(b, loc, lanes);
    row = scf::ForOp::create(
              b, loc, lb, ub, step, ValueRange{row},
              [&](OpBuilder &builder, Location, Value column, ValueRange args) {
                scf::YieldOp::create(builder, loc,
                                     write(builder, args[0], column, lanes));
              })
              .getResult(0);
  } else {
    for (int64_t i = 0; i < full; ++i)
      row = write(b, row, arith::ConstantIndexOp::create(b, loc, i * lanes),
                  lanes);
  }
  if (rest != 0)
    row = write(b, row, arith::ConstantIndexOp::create(b, loc, full * lanes),
                rest);
  return row;
}

/// Rewrites a static `tensor.pad` with a padding value defined outside its
/// region into loops over the output rows (an scf.forall when `parallel` and
/// the result is large) that write each row once:
/// rows outside the source are the padding value, the others are the low
/// padding, the source row and the high padding, all as vectors. Unlike a
/// fill of the whole result followed by a copy into its interior, every
/// element is written once, and no fill is left for CSE to share between
/// pads of the same shape (which makes bufferization copy it).
static LogicalResult vectorizePad(RewriterBase &rewriter, tensor::PadOp pad,
                                  int64_t vectorBits, bool parallel) {
  RankedTensorType srcType = pad.getSourceType();
  RankedTensorType outType = pad.getResultType();
  Value padValue = pad.getConstantPaddingValue();
  if (!padValue || !srcType.hasStaticShape() || !outType.hasStaticShape() ||
      srcType.getRank() == 0 || !isVectorElement(srcType.getElementType()) ||
      srcType.getNumElements() == 0)
    return failure();
  SmallVector<int64_t> low(pad.getStaticLow()), high(pad.getStaticHigh());
  if (llvm::any_of(low, [](int64_t v) { return v < 0; }) ||
      llvm::any_of(high, [](int64_t v) { return v < 0; }))
    return failure(); // Dynamic (kDynamic < 0) or negative.
  int64_t rank = srcType.getRank();
  Type element = srcType.getElementType();
  int64_t lanes = getLanes(element, vectorBits);
  int64_t width = outType.getShape().back(), w = srcType.getShape().back();
  int64_t lowW = low.back(), highW = high.back();

  Location loc = pad.getLoc();
  rewriter.setInsertionPoint(pad);
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, outType.getShape(), element);
  auto rowType = RankedTensorType::get({width}, element);
  auto splat = [&](OpBuilder &b, Location l, Value, int64_t len) -> Value {
    return vector::BroadcastOp::create(b, l, VectorType::get({len}, element),
                                       padValue);
  };
  // Writes output row `ivs` of `dest`; returns the row and its place.
  auto emitRow = [&](OpBuilder &b, Location l, ValueRange ivs, Value dest,
                     SmallVector<OpFoldResult> &offsets,
                     SmallVector<OpFoldResult> &sizes) -> Value {
    for (Value iv : ivs) {
      offsets.push_back(iv);
      sizes.push_back(b.getIndexAttr(1));
    }
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(width));
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    Value row = tensor::ExtractSliceOp::create(b, l, rowType, dest, offsets,
                                               sizes, strides);
    // The source row of an output row inside the source.
    SmallVector<Value> srcRow;
    Value inside;
    for (auto [d, iv] : llvm::enumerate(ivs)) {
      Value lo = arith::ConstantIndexOp::create(b, l, low[d]);
      srcRow.push_back(arith::SubIOp::create(b, l, iv, lo));
      if (low[d] == 0 && high[d] == 0)
        continue;
      Value hi =
          arith::ConstantIndexOp::create(b, l, low[d] + srcType.getDimSize(d));
      Value ge = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, iv, lo);
      Value lt = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, iv, hi);
      Value both = arith::AndIOp::create(b, l, ge, lt);
      inside = inside ? arith::AndIOp::create(b, l, inside, both) : both;
    }
    auto interior = [&](OpBuilder &builder, Location l2) -> Value {
      Value r = row;
      if (lowW > 0)
        r = writeSegment(builder, l2, r, 0, lowW, lanes, splat);
      r = writeSegment(
          builder, l2, r, lowW, w, lanes,
          [&](OpBuilder &b2, Location l3, Value column, int64_t len) {
            SmallVector<Value> indices(srcRow);
            indices.push_back(column);
            Value zero = arith::ConstantOp::create(b2, l3, element,
                                                   b2.getZeroAttr(element));
            return vector::TransferReadOp::create(
                       b2, l3, VectorType::get({len}, element), pad.getSource(),
                       indices, zero, ArrayRef<bool>{true})
                .getResult();
          });
      if (highW > 0)
        r = writeSegment(builder, l2, r, lowW + w, highW, lanes, splat);
      return r;
    };
    if (!inside)
      return interior(b, l);
    return scf::IfOp::create(
               b, l, inside,
               [&](OpBuilder &builder, Location l2) {
                 scf::YieldOp::create(builder, l2, interior(builder, l2));
               },
               [&](OpBuilder &builder, Location l2) {
                 scf::YieldOp::create(
                     builder, l2,
                     writeSegment(builder, l2, row, 0, width, lanes, splat));
               })
        .getResult(0);
  };

  SmallVector<int64_t> rows(outType.getShape().drop_back());
  if (parallel && outType.getNumElements() >= kMinParallelElements &&
      !rows.empty()) {
    SmallVector<OpFoldResult> counts;
    for (int64_t size : rows)
      counts.push_back(rewriter.getIndexAttr(size));
    auto forall = scf::ForallOp::create(rewriter, loc, counts,
                                        ValueRange{empty}, std::nullopt);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(forall.getBody());
    Value shared = forall.getRegionIterArgs()[0];
    SmallVector<OpFoldResult> offsets, sizes;
    Value row = emitRow(rewriter, loc, forall.getInductionVars(), shared,
                        offsets, sizes);
    rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(
        rewriter, loc, row, shared, offsets, sizes,
        SmallVector<OpFoldResult>(rank, rewriter.getIndexAttr(1)));
    rewriter.replaceOp(pad, forall.getResults());
    return success();
  }
  SmallVector<Value> lbs, ubs, steps;
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  for (int64_t size : rows) {
    lbs.push_back(zero);
    ubs.push_back(arith::ConstantIndexOp::create(rewriter, loc, size));
    steps.push_back(one);
  }
  scf::LoopNest nest = scf::buildLoopNest(
      rewriter, loc, lbs, ubs, steps, ValueRange{empty},
      [&](OpBuilder &b, Location l, ValueRange ivs,
          ValueRange args) -> scf::ValueVector {
        SmallVector<OpFoldResult> offsets, sizes;
        Value row = emitRow(b, l, ivs, args[0], offsets, sizes);
        return {tensor::InsertSliceOp::create(
                    b, l, row, args[0], offsets, sizes,
                    SmallVector<OpFoldResult>(rank, b.getIndexAttr(1)))
                    .getResult()};
      });
  rewriter.replaceOp(pad, nest.results);
  return success();
}

namespace {
/// Vectorizes elementwise linalg ops on tensors (see the .td description).
struct VectorizeElementwisePass
    : public mlprog::impl::VectorizeElementwisePassBase<
          VectorizeElementwisePass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerVectorTransferInterfaces(registry);
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    int64_t vectorBits =
        CPUTarget::getForFeatures(targetFeatures).getVectorBits();

    IRRewriter rewriter(ctx);
    SmallVector<tensor::PadOp> pads;
    for (Block &block : func.getBody())
      for (auto pad : block.getOps<tensor::PadOp>())
        pads.push_back(pad);
    for (tensor::PadOp pad : pads)
      (void)vectorizePad(rewriter, pad, vectorBits, parallel);

    SmallVector<std::pair<linalg::LinalgOp, SmallVector<int64_t>>> dynamic;
    for (Block &block : func.getBody())
      for (auto linalgOp : block.getOps<linalg::LinalgOp>())
        if (SmallVector<int64_t> tiles = getDynamicRowTiles(linalgOp);
            !tiles.empty())
          dynamic.emplace_back(linalgOp, std::move(tiles));
    for (auto &[linalgOp, tiles] : dynamic)
      vectorizeDynamicRows(rewriter, linalgOp, tiles, vectorBits);

    SmallVector<linalg::LinalgOp> dynamicRows;
    for (Block &block : func.getBody())
      for (auto linalgOp : block.getOps<linalg::LinalgOp>())
        if (isVectorizableElementwise(linalgOp, /*dynamicRow=*/true))
          dynamicRows.push_back(linalgOp);
    for (linalg::LinalgOp linalgOp : dynamicRows)
      vectorizeDynamicRow(rewriter, linalgOp, vectorBits, /*reduction=*/false);

    SmallVector<linalg::GenericOp> broadcasts;
    for (Block &block : func.getBody())
      for (auto generic : block.getOps<linalg::GenericOp>())
        if (readsUnitBroadcast(generic))
          broadcasts.push_back(generic);
    for (linalg::GenericOp generic : broadcasts)
      dropUnitBroadcastDims(rewriter, generic);
    SmallVector<linalg::LinalgOp> ops;
    for (Block &block : func.getBody())
      for (Operation &op : block)
        if (auto linalgOp = dyn_cast<linalg::LinalgOp>(&op))
          if (isVectorizableElementwise(linalgOp))
            ops.push_back(linalgOp);
    for (linalg::LinalgOp op : ops)
      vectorizeElementwise(rewriter, op, vectorBits, parallel);

    // Fold the tile slices into the transfers and drop their unit
    // dimensions.
    RewritePatternSet patterns(ctx);
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
    vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExtractSliceOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
