//===- TileDynamicContractions.cpp - Static blocks of dynamic contractions ===//
//
// --mlprog-tile-dynamic-contractions: the contraction code generation
// (TileAndVectorizeContractions.cpp) plans register and cache blocks from
// static loop ranges. A transformer run on a sequence of unknown length has
// none: every linear layer is [1, ?, K] x [K, N], and attention multiplies
// over the unknown number of keys. This pass tiles just the dynamic M, N and
// K dimensions into scf.for loops over fixed blocks and pads each tile with
// zeros to the block (upstream scf::tileUsingSCF, then a
// tensor.pad per operand), which leaves static contractions for the
// blocking that follows:
//
//   C[?, N] += A[?, K] B[K, N]
//   ->  scf.for %i = 0 to M step mr        (M rows in blocks of mr)
//         a = pad(A[%i : min(mr, M - %i)], mr)     [mr, K]
//         c = pad(C[%i : ...], mr)                 [mr, N]
//         c' = c + a B                             static: blocked, packed
//         C[%i : ...] = c'[0 : min(mr, M - %i)]
//
// A decoding step (M = 1) costs one register block of mr rows, whose loads
// of the weight B dominate anyway; a weight B is the same constant in every
// tile, so its panels are still packed once at compile time.
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"
#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SmallVectorExtras.h"

namespace mlprog {
#define GEN_PASS_DEF_TILEDYNAMICCONTRACTIONSPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;
using namespace mlprog;
using namespace mlprog::cpu;

/// Columns of N and depth of K per tile of a dynamic extent: four register
/// blocks of columns (AVX-512), and one K block of the static code
/// generation.
static constexpr int64_t kColumnBlock = 64;
static constexpr int64_t kDepthBlock = 256;
/// Rows per tile of the bulk of a long dynamic M (a prompt): every tile
/// reads the whole weight B, so 8-row tiles would stream it M / 8 times
/// (a 128-token GPT-2 prefill: 16 passes over 500 MB); 64-row tiles, whose
/// A block stays in L2, read it M / 64 times. The remaining M mod 64 rows
/// take the register-block tiles.
static constexpr int64_t kLargeRowBlock = 64;
/// Depth per tile of the rest of a dynamic K after its kDepthBlock blocks:
/// the rest is split again into whole blocks of this depth, and only the
/// last one is padded. A decoding step's product of the scores with the
/// values (K: the number of keys) otherwise zero-filled and copied up to
/// 255 rows of every head's values, 786 KB per GPT-2 layer and step, on
/// the main thread.
static constexpr int64_t kDepthRestBlock = 32;

/// Rows of A at most which a contraction whose B is a transposed copy
/// (readTransposedOperandByRows), or the last rows of a dynamic M
/// (tileRowTail), are computed one row at a time: a decoding step's one.
static constexpr int64_t kMaxSingleRows = 2;

namespace {
/// A contraction C[.., m, n] += A[.., m, k] B[.., k, n] whose B is a
/// `linalg.transpose` of S[.., n, k] swapping its two innermost dimensions
/// (attention's keys, transposed for Q K^T), possibly through a
/// `tensor.collapse_shape` of its leading dimensions (see
/// matchTransposedOperand).
struct TransposedOperand {
  linalg::TransposeOp transpose;
  tensor::CollapseShapeOp collapse;
  /// The loop of M (the rows of A and C).
  unsigned m;
};
} // namespace

/// Matches a TransposedOperand with a dynamic loop range.
static std::optional<TransposedOperand>
matchTransposedOperand(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op) ||
      llvm::none_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->k.size() != 1 || dims->m.empty() || dims->n.empty())
    return std::nullopt;
  unsigned k = dims->k.front(), m = dims->m.back(), n = dims->n.back();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  MLIRContext *ctx = op.getContext();
  // A: [.., m, k]; B: [.., k, n]; C: [.., m, n]; K the innermost loop.
  auto endsWith = [&](AffineMap map, unsigned a, unsigned b) {
    unsigned r = map.getNumResults();
    return r >= 2 && map.getResult(r - 2) == getAffineDimExpr(a, ctx) &&
           map.getResult(r - 1) == getAffineDimExpr(b, ctx);
  };
  if (k != op.getNumLoops() - 1 || !endsWith(maps[0], m, k) ||
      !endsWith(maps[1], k, n) || !endsWith(maps[2], m, n))
    return std::nullopt;
  Value b = op.getDpsInputOperand(1)->get();
  auto collapse = b.getDefiningOp<tensor::CollapseShapeOp>();
  Value transposed = collapse ? collapse.getSrc() : b;
  auto transpose = transposed.getDefiningOp<linalg::TransposeOp>();
  if (!transpose)
    return std::nullopt;
  ArrayRef<int64_t> perm = transpose.getPermutation();
  int64_t rank = perm.size();
  for (int64_t d = 0; d < rank - 2; ++d)
    if (perm[d] != d)
      return std::nullopt;
  if (perm[rank - 2] != rank - 1 || perm[rank - 1] != rank - 2)
    return std::nullopt;
  // The collapse may only merge leading dimensions: its last two groups
  // are the two innermost dimensions alone.
  if (collapse) {
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    if (groups.size() < 2 || groups.back() != ReassociationIndices{rank - 1} ||
        groups[groups.size() - 2] != ReassociationIndices{rank - 2})
      return std::nullopt;
  }
  return TransposedOperand{transpose, collapse, m};
}

/// Rewrites a TransposedOperand contraction into a generic that reads S
/// itself: C[.., m, n] += A[.., m, k] S[.., n, k]. K is then innermost in
/// both inputs, and the op is a row reduction (dot products over K) for
/// --mlprog-vectorize-reductions; the transposed copy of S (of the whole key
/// cache, at every decoding step) disappears. Returns the new op, or `op`
/// unchanged.
static linalg::LinalgOp readTransposedOperand(RewriterBase &rewriter,
                                              linalg::LinalgOp op) {
  std::optional<TransposedOperand> match = matchTransposedOperand(op);
  if (!match)
    return op;
  linalg::TransposeOp transpose = match->transpose;
  tensor::CollapseShapeOp collapse = match->collapse;
  Value b = op.getDpsInputOperand(1)->get();
  Value transposed = collapse ? collapse.getSrc() : b;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  MLIRContext *ctx = op.getContext();
  rewriter.setInsertionPoint(op);
  Value source = transpose.getInput();
  if (collapse)
    source =
        tensor::CollapseShapeOp::create(rewriter, collapse.getLoc(), source,
                                        collapse.getReassociationIndices());
  AffineMap bMap = maps[1];
  SmallVector<AffineExpr> results(bMap.getResults());
  std::swap(results[results.size() - 2], results.back());
  maps[1] = AffineMap::get(bMap.getNumDims(), 0, results, ctx);
  FailureOr<linalg::GenericOp> generic =
      isa<linalg::GenericOp>(op)
          ? FailureOr<linalg::GenericOp>(cast<linalg::GenericOp>(op))
          : linalg::generalizeNamedOp(rewriter, op);
  if (failed(generic))
    return op;
  rewriter.modifyOpInPlace(*generic, [&] {
    generic->getDpsInputOperand(1)->set(source);
    generic->setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
  });
  // Extents read from the transposed value (the result's shape, as the
  // TorchScript importer builds it) would keep the transpose alive: take
  // them from the shapes it was built from.
  resolveExtents({b, transposed});
  return cast<linalg::LinalgOp>(generic->getOperation());
}

/// Like readTransposedOperand, but when M is dynamic only for at most
/// kMaxSingleRows rows at run time (an `scf.if`): a decoding step's query
/// reads the keys in place, in dot products; more rows (a prompt) read the
/// transposed copy, made in that branch only, as a contraction that the
/// matrix code generation blocks (as dot products, a 512-token prompt's
/// 512 x 512 scores per head ran at 3 GFLOP/s: 7.5% of GPT-2's prefill).
/// Returns the contraction of the second branch (to tile), the rewritten
/// op when M is static, or `op` unchanged.
static linalg::LinalgOp readTransposedOperandByRows(RewriterBase &rewriter,
                                                    linalg::LinalgOp op) {
  std::optional<TransposedOperand> match = matchTransposedOperand(op);
  if (!match)
    return op;
  if (!ShapedType::isDynamic(op.getStaticLoopRanges()[match->m]))
    return readTransposedOperand(rewriter, op);
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<Range> ranges = op.createLoopRanges(rewriter, loc);
  Value rows =
      getValueOrCreateConstantIndexOp(rewriter, loc, ranges[match->m].size);
  Value few = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::ule, rows,
      arith::ConstantIndexOp::create(rewriter, loc, kMaxSingleRows));
  auto ifOp = scf::IfOp::create(rewriter, loc, op->getResultTypes(), few,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(rewriter);
  // Many rows: the transposed copy in this branch, read by a clone.
  rewriter.setInsertionPointToStart(ifOp.elseBlock());
  IRMapping mapping;
  rewriter.clone(*match->transpose, mapping);
  if (match->collapse)
    rewriter.clone(*match->collapse, mapping);
  auto matrix = cast<linalg::LinalgOp>(rewriter.clone(*op, mapping));
  scf::YieldOp::create(rewriter, loc, matrix->getResults());
  // Few rows: dot products over the keys in place.
  rewriter.setInsertionPointToStart(ifOp.thenBlock());
  auto rowsOp = cast<linalg::LinalgOp>(rewriter.clone(*op));
  auto yield = scf::YieldOp::create(rewriter, loc, rowsOp->getResults());
  rewriter.replaceOp(op, ifOp.getResults());
  linalg::LinalgOp dots = readTransposedOperand(rewriter, rowsOp);
  rewriter.modifyOpInPlace(yield,
                           [&] { yield->setOperands(dots->getResults()); });
  return matrix;
}

/// Whether input B of the contraction `op` (the input without M) is read
/// with K innermost: a transposed operand (see readTransposedOperand), left
/// to --mlprog-vectorize-reductions.
static bool readsTransposedB(linalg::LinalgOp op,
                             const linalg::ContractionDimensions &dims) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (int i = 0; i < 2; ++i) {
    AffineMap map = maps[i];
    if (map.isFunctionOfDim(dims.n.back()) &&
        !map.isFunctionOfDim(dims.m.back()) && map.getNumResults() > 0)
      return map.getResults().back() ==
             getAffineDimExpr(dims.k.back(), op.getContext());
  }
  return false;
}

namespace {
/// How to tile a contraction's dynamic loops: a block per loop (0: not
/// tiled) and the loop of the rows of C, if dynamic (else -1).
struct Blocks {
  SmallVector<int64_t> sizes;
  int64_t rowLoop = -1;
  /// The loop of the innermost K dimension, if dynamic (else -1).
  int64_t depthLoop = -1;
};
} // namespace

/// The block of each loop of `op` (0: not tiled) when every dynamic loop
/// range is an M, N or K dimension of an f32 contraction; nothing when
/// the op is no such contraction or has no dynamic range.
static std::optional<Blocks> chooseBlocks(linalg::LinalgOp op,
                                          int64_t rowBlock) {
  if (!isF32Contraction(op))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::none_of(ranges, ShapedType::isDynamic))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.empty() ||
      (!dims->n.empty() && !dims->k.empty() && readsTransposedB(op, *dims)))
    return std::nullopt;
  // The innermost dimension of each kind gets its block; other dynamic
  // ones (an outer dimension of unknown extent that a reshape made, which
  // counts as M) are tiled by 1.
  SmallVector<int64_t> blocks(ranges.size(), 0);
  auto assign = [&](ArrayRef<unsigned> kind, int64_t block) {
    for (unsigned loop : kind)
      if (ShapedType::isDynamic(ranges[loop]))
        blocks[loop] = loop == kind.back() ? block : 1;
  };
  assign(dims->m, rowBlock);
  assign(dims->n, kColumnBlock);
  assign(dims->k, kDepthBlock);
  // A batch of unknown extent (attention's heads after a reshape by a
  // computed shape) is tiled by 1: one static contraction per batch item.
  for (unsigned loop : dims->batch)
    if (ShapedType::isDynamic(ranges[loop]))
      blocks[loop] = 1;
  for (auto [loop, range] : llvm::enumerate(ranges))
    if (ShapedType::isDynamic(range) && !blocks[loop])
      return std::nullopt;
  Blocks result;
  result.sizes = std::move(blocks);
  if (ShapedType::isDynamic(ranges[dims->m.back()]))
    result.rowLoop = dims->m.back();
  if (!dims->k.empty() && ShapedType::isDynamic(ranges[dims->k.back()]))
    result.depthLoop = dims->k.back();
  return result;
}

/// Rewrites a generic whose input reads a unit dimension at the constant
/// index 0 (ONNX MatMul broadcasting a [1, h, d, n] cache against a
/// [b, h, s, d] query: map (0, d1, d4, d3)) to read the operand with that
/// dimension collapsed away, so its maps are projected permutations and
/// the op is a contraction. Returns the new op, or `op` unchanged.
static linalg::LinalgOp dropBroadcastUnitDims(RewriterBase &rewriter,
                                              linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || !generic.hasPureTensorSemantics())
    return op;
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  SmallVector<Value> inputs = generic.getDpsInputs();
  bool changed = false;
  rewriter.setInsertionPoint(generic);
  for (auto [i, input] : llvm::enumerate(inputs)) {
    auto type = dyn_cast<RankedTensorType>(input.getType());
    AffineMap map = maps[i];
    if (!type || type.getRank() < 2)
      continue;
    SmallVector<int64_t> unit;
    for (auto [d, expr] : llvm::enumerate(map.getResults()))
      if (auto c = dyn_cast<AffineConstantExpr>(expr))
        if (c.getValue() == 0 && type.getDimSize(d) == 1)
          unit.push_back(d);
    if (unit.empty() || int64_t(unit.size()) == type.getRank())
      continue;
    // Each unit dimension joins the group of the next kept one (the last
    // kept group takes trailing ones).
    SmallVector<ReassociationIndices> groups;
    ReassociationIndices pending;
    SmallVector<AffineExpr> kept;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      pending.push_back(d);
      if (llvm::is_contained(unit, d))
        continue;
      groups.push_back(pending);
      pending.clear();
      kept.push_back(map.getResult(d));
    }
    llvm::append_range(groups.back(), pending);
    inputs[i] = tensor::CollapseShapeOp::create(rewriter, generic.getLoc(),
                                                input, groups);
    maps[i] = AffineMap::get(map.getNumDims(), 0, kept, rewriter.getContext());
    changed = true;
  }
  if (!changed)
    return op;
  auto rewritten = linalg::GenericOp::create(
      rewriter, generic.getLoc(), generic.getResultTypes(), inputs,
      generic.getDpsInits(), maps, generic.getIteratorTypesArray());
  rewriter.inlineRegionBefore(generic.getRegion(), rewritten.getRegion(),
                              rewritten.getRegion().begin());
  rewriter.replaceOp(generic, rewritten.getResults());
  return cast<linalg::LinalgOp>(rewritten.getOperation());
}

void cpu::resolveExtents(ArrayRef<Value> values) {
  SmallVector<Operation *> extents;
  for (Value value : values)
    for (Operation *user : value.getUsers())
      if (isa<tensor::DimOp>(user))
        extents.push_back(user);
  if (extents.empty())
    return;
  RewritePatternSet patterns(extents.front()->getContext());
  memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  (void)applyOpPatternsGreedily(extents, std::move(patterns), config);
}

/// Tiles the dynamic loops of `op` by `blocks` and pads the tile to them;
/// along the loops marked `exact`, every tile is the whole block (a bulk
/// part of a split), so operands that only they cut are cast to the static
/// block, not copied into a padded one.
static LogicalResult tileAndPad(RewriterBase &rewriter, linalg::LinalgOp op,
                                ArrayRef<int64_t> blocks,
                                ArrayRef<bool> exact) {
  rewriter.setInsertionPoint(op);
  SmallVector<OpFoldResult> sizes =
      llvm::map_to_vector(blocks, [&](int64_t block) -> OpFoldResult {
        return rewriter.getIndexAttr(block);
      });
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(sizes);
  tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), tiling);
  if (failed(tiled) || tiled->tiledOps.size() != 1)
    return failure();
  rewriter.replaceOp(op, tiled->replacements);

  // Pad every operand of the tile to the blocks along the tiled loops; the
  // tile's extents there are at most the block (the last one is less).
  auto tile = cast<linalg::LinalgOp>(tiled->tiledOps.front());
  Location loc = tile.getLoc();
  rewriter.setInsertionPoint(tile);
  Value zero =
      arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0.0f));
  SmallVector<Value> operands;
  bool resultPartial = false;
  for (OpOperand &operand : tile->getOpOperands()) {
    // An operand the tiling left whole (a weight B) is read directly, not
    // through the slice of all of it that tiling made, so that the code
    // generation still sees the weight and packs its panels once.
    // (Splitting and tiling each take such a slice: follow them all.)
    while (auto slice = operand.get().getDefiningOp<tensor::ExtractSliceOp>()) {
      if (slice.getSourceType() != slice.getResultType() ||
          !slice.getSourceType().hasStaticShape() ||
          !llvm::all_of(slice.getMixedOffsets(), isZeroInteger) ||
          !llvm::all_of(slice.getMixedStrides(), isOneInteger))
        break;
      operand.set(slice.getSource());
    }
    auto type = cast<RankedTensorType>(operand.get().getType());
    SmallVector<int64_t> shape(type.getShape());
    bool partial = false;
    AffineMap map = tile.getMatchingIndexingMap(&operand);
    for (auto [i, expr] : llvm::enumerate(map.getResults()))
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        if (int64_t block = blocks[dim.getPosition()];
            block && shape[i] != block) {
          shape[i] = block;
          partial |= !exact[dim.getPosition()];
        }
    if (ShapedType::isDynamicShape(shape))
      return failure();
    Value value = operand.get();
    if (partial)
      value = tensor::createPadHighOp(type.clone(shape), value, zero,
                                      /*nofold=*/false, loc, rewriter);
    else if (shape != type.getShape())
      value = tensor::CastOp::create(rewriter, loc, type.clone(shape), value);
    operands.push_back(value);
    if (&operand == tile.getDpsInitOperand(0))
      resultPartial = partial;
  }
  Value init = operands.back();
  Operation *padded =
      clone(rewriter, tile, TypeRange{init.getType()}, operands);
  // The tile's rows and columns of the padded result.
  Value original = tile.getDpsInitOperand(0)->get();
  auto type = cast<RankedTensorType>(original.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), rewriter.getIndexAttr(0)),
      strides(type.getRank(), rewriter.getIndexAttr(1));
  Value result =
      resultPartial
          ? tensor::ExtractSliceOp::create(
                rewriter, loc, type, padded->getResult(0), offsets,
                tensor::getMixedSizes(rewriter, loc, original), strides)
                .getResult()
          : tensor::CastOp::create(rewriter, loc, type, padded->getResult(0))
                .getResult();
  rewriter.replaceOp(tile, result);
  return success();
}

/// Tiles `op`, the last part of a contraction along `rowLoop` (fewer rows
/// than a register block), by `blocks`: when it has at most kMaxSingleRows
/// rows at run time, one exact row at a time, else as one padded block.
/// Each row is a static one-row contraction, which the contraction code
/// generation computes as a vector-matrix product
/// (cpu::vectorizeRowContraction); padded, the row cost an 8-row block of
/// arithmetic and zero-filled copies of A and C (8 x 50257 floats for
/// GPT-2's vocabulary projection) on the main thread.
static LogicalResult tileRowTail(RewriterBase &rewriter, linalg::LinalgOp op,
                                 SmallVector<int64_t> blocks,
                                 SmallVector<bool> exact, int64_t rowLoop) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  SmallVector<Range> ranges = op.createLoopRanges(rewriter, loc);
  Value rows =
      getValueOrCreateConstantIndexOp(rewriter, loc, ranges[rowLoop].size);
  Value few = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::ule, rows,
      arith::ConstantIndexOp::create(rewriter, loc, kMaxSingleRows));
  auto ifOp = scf::IfOp::create(rewriter, loc, op->getResultTypes(), few,
                                /*withElseRegion=*/true);
  auto cloneInto = [&](Block *block) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(block);
    Operation *copy = rewriter.clone(*op);
    scf::YieldOp::create(rewriter, loc, copy->getResults());
    return cast<linalg::LinalgOp>(copy);
  };
  linalg::LinalgOp single = cloneInto(ifOp.thenBlock());
  linalg::LinalgOp padded = cloneInto(ifOp.elseBlock());
  rewriter.replaceOp(op, ifOp.getResults());
  SmallVector<int64_t> singleBlocks = blocks;
  SmallVector<bool> singleExact = exact;
  singleBlocks[rowLoop] = 1;
  singleExact[rowLoop] = true;
  LogicalResult first = tileAndPad(rewriter, single, singleBlocks, singleExact);
  LogicalResult second = tileAndPad(rewriter, padded, blocks, exact);
  return success(succeeded(first) && succeeded(second));
}

/// Tiles `op` by `blocks`, first splitting it along each loop of `splits`
/// (loop, bulk block) at the last multiple of the bulk block: the bulk part
/// is tiled by the bulk block exactly (no padding, no copies), the rest by
/// `blocks` with padding (either part may be empty at run time), or, for
/// the rows (`rowLoop`) of a partial register block, by tileRowTail.
static LogicalResult tileParts(RewriterBase &rewriter, linalg::LinalgOp op,
                               SmallVector<int64_t> blocks,
                               SmallVector<bool> exact,
                               ArrayRef<std::pair<int64_t, int64_t>> splits,
                               int64_t rowLoop) {
  if (splits.empty()) {
    if (rowLoop >= 0 && blocks[rowLoop] > 1 && !exact[rowLoop])
      return tileRowTail(rewriter, op, blocks, exact, rowLoop);
    return tileAndPad(rewriter, op, blocks, exact);
  }
  auto [loop, bulkBlock] = splits.front();
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  SmallVector<Range> ranges = op.createLoopRanges(rewriter, loc);
  AffineExpr extent = rewriter.getAffineDimExpr(0);
  OpFoldResult bulk = affine::makeComposedFoldedAffineApply(
      rewriter, loc, extent.floorDiv(bulkBlock) * bulkBlock,
      {ranges[loop].size});
  auto [head, tail] = linalg::splitOp(
      rewriter, cast<TilingInterface>(op.getOperation()), loop, bulk);
  if (!head || !tail)
    return failure();
  SmallVector<int64_t> headBlocks = blocks;
  SmallVector<bool> headExact = exact;
  headBlocks[loop] = bulkBlock;
  headExact[loop] = true;
  // The head's rows are whole blocks: no later split of them.
  auto headSplits = llvm::filter_to_vector(
      splits.drop_front(), [&](const std::pair<int64_t, int64_t> &split) {
        return split.first != loop;
      });
  LogicalResult first =
      tileParts(rewriter, cast<linalg::LinalgOp>(head.getOperation()),
                headBlocks, headExact, headSplits, rowLoop);
  LogicalResult second =
      tileParts(rewriter, cast<linalg::LinalgOp>(tail.getOperation()), blocks,
                exact, splits.drop_front(), rowLoop);
  return success(succeeded(first) && succeeded(second));
}

/// Tiles `op` as chooseBlocks says: each dynamic extent is split into a
/// bulk of whole blocks (kLargeRowBlock rows of M, then whole register
/// blocks of the rest; kColumnBlock columns of N; kDepthBlock of K, then
/// whole kDepthRestBlock blocks of the rest) and a
/// padded rest (M's by tileRowTail); loops tiled by 1 are always whole.
static LogicalResult tileContraction(RewriterBase &rewriter,
                                     linalg::LinalgOp op,
                                     const Blocks &blocks) {
  SmallVector<bool> exact;
  SmallVector<std::pair<int64_t, int64_t>> splits;
  SmallVector<int64_t> sizes = blocks.sizes;
  for (auto [loop, block] : llvm::enumerate(blocks.sizes)) {
    exact.push_back(block == 1);
    if (block <= 1)
      continue;
    if (int64_t(loop) == blocks.rowLoop)
      splits.emplace_back(loop, kLargeRowBlock);
    splits.emplace_back(loop, block);
    if (int64_t(loop) == blocks.depthLoop) {
      splits.emplace_back(loop, kDepthRestBlock);
      sizes[loop] = kDepthRestBlock;
    }
  }
  return tileParts(rewriter, op, sizes, exact, splits, blocks.rowLoop);
}

namespace {
struct TileDynamicContractionsPass
    : public mlprog::impl::TileDynamicContractionsPassBase<
          TileDynamicContractionsPass> {
  using Base::Base;

  void runOnOperation() override {
    CPUTarget target = CPUTarget::getForFeatures(targetFeatures);
    int64_t rowBlock = getMaxRegisterRows(target);
    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.getNumDpsInputs() == 2 && op.getNumDpsInits() == 1 &&
          op.getNumReductionLoops() > 0 &&
          llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
        candidates.push_back(op);
    });
    SmallVector<std::pair<linalg::LinalgOp, Blocks>> work;
    for (linalg::LinalgOp op : candidates) {
      linalg::LinalgOp contraction = readTransposedOperandByRows(
          rewriter, dropBroadcastUnitDims(rewriter, op));
      if (std::optional<Blocks> blocks = chooseBlocks(contraction, rowBlock))
        work.emplace_back(contraction, std::move(*blocks));
    }
    // A contraction that cannot be tiled keeps its loop lowering.
    for (auto &[op, blocks] : work)
      (void)tileContraction(rewriter, op, blocks);
    // Convolutions and pooling windows over a batch of unknown extent: one
    // static window per image.
    SmallVector<linalg::LinalgOp> windows;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic) &&
          linalg::isaConvolutionOpInterface(op))
        windows.push_back(op);
    });
    for (linalg::LinalgOp op : windows)
      (void)tileDynamicBatch(rewriter, op);
  }
};
} // namespace
