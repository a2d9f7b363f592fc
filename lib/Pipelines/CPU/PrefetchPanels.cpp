//===- PrefetchPanels.cpp - Spread the next K block's reads of B ----------===//
//
// --mlprog-prefetch-panels: in a contraction blocked along K (see
// TileAndVectorizeContractions.cpp), the register blocks of a K block all
// read the same Kc rows of B. The first row of register blocks reads them
// from memory, one row of B per K step, faster than memory delivers them
// (a weight larger than the last-level cache: resnet18's 3x3 convolutions
// of 512 channels over 7x7 pixels, 9.4 MiB of weights for 49 rows of
// pixels); the other rows of register blocks find them in cache. Each
// register block's K loop here prefetches into L2 its share of the next K
// block of the B rows it reads: with P rows of register blocks per K block
// and B rows of L cache lines, the one at row offset m prefetches, at K
// step k of block k0, line (k / S) mod L of row
//
//   k0 + Kc + m * Kc / M + k / (S * L)
//
// (S: the largest power of two not above P / L), so the next block's rows
// arrive over the whole K block instead of in a burst at its start. After
// the last K block (or with K in one block) the next block is the first one
// of the next cache tile: the same rows of the panel Nc / nr on (Nc columns
// on in an unpacked B), which the forall's next iteration reads. Without
// that, the first K block of each tile came from memory unprefetched:
// resnet50's 512 -> 2048 pointwise convolutions over 7x7 pixels (4 MiB of
// weights, K = 512 in one block) ran at 171 GFLOP/s, and the whole model
// took 37.2-37.5 ms where it takes 36.8-36.9 with it (1 thread).
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlprog {
#define GEN_PASS_DEF_PREFETCHPANELSPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;

/// Bytes per cache line.
static constexpr int64_t kCacheLineBytes = 64;

/// The transfer_read of B that `contract`'s right-hand side comes from
/// (through broadcasts and shape casts), when it reads a 1-D vector of f32
/// along the innermost dimension of a memref with static shape.
static vector::TransferReadOp getRhsRead(vector::ContractionOp contract) {
  Value value = contract.getRhs();
  while (isa_and_nonnull<vector::BroadcastOp, vector::ShapeCastOp>(
      value.getDefiningOp()))
    value = value.getDefiningOp()->getOperand(0);
  auto read = value.getDefiningOp<vector::TransferReadOp>();
  if (!read || read.getVectorType().getRank() != 1 ||
      !read.getPermutationMap().isMinorIdentity())
    return {};
  auto type = dyn_cast<MemRefType>(read.getBase().getType());
  if (!type || !type.hasStaticShape() || type.getRank() < 2 ||
      !type.getElementType().isF32())
    return {};
  return read;
}

/// The constant lower bound, upper bound and step of `loop`.
static std::optional<std::array<int64_t, 3>>
getConstantBounds(scf::ForOp loop) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return std::array<int64_t, 3>{*lb, *ub, *step};
}

/// Adds the prefetches to the register block K loop `kLoop` (step 1, a
/// vector.contract in its body) when it sits in loops over N (the Nc
/// columns of a cache tile), M (step mr) and, if K is blocked, K blocks
/// (step Kc), in that order from the inside.
static void prefetchNextBlock(scf::ForOp kLoop) {
  vector::ContractionOp contract;
  for (Operation &op : *kLoop.getBody())
    if (auto candidate = dyn_cast<vector::ContractionOp>(op))
      contract = candidate;
  std::optional<std::array<int64_t, 3>> k = getConstantBounds(kLoop);
  auto nLoop = kLoop->getParentOfType<scf::ForOp>();
  auto mLoop = nLoop ? nLoop->getParentOfType<scf::ForOp>() : nullptr;
  if (!contract || !k || (*k)[0] != 0 || (*k)[2] != 1 || !mLoop)
    return;
  std::optional<std::array<int64_t, 3>> n = getConstantBounds(nLoop);
  std::optional<std::array<int64_t, 3>> m = getConstantBounds(mLoop);
  if (!n || !m || (*n)[0] != 0 || (*m)[0] != 0 || (*m)[1] % (*m)[2] != 0)
    return;
  // A loop over K blocks around the M loop, or none (one K block).
  auto blockLoop = mLoop->getParentOfType<scf::ForOp>();
  std::optional<std::array<int64_t, 3>> blocks =
      blockLoop ? getConstantBounds(blockLoop) : std::nullopt;
  if (!blocks || (*blocks)[0] != 0 || (*blocks)[2] != (*k)[1])
    blocks = std::nullopt;
  int64_t rows = (*m)[1], passes = rows / (*m)[2], kc = (*k)[1];
  int64_t kTotal = blocks ? (*blocks)[1] : kc;
  // The N loop's iterations: the panels (or vectors of columns) of a tile.
  int64_t tileSteps = llvm::divideCeil((*n)[1], (*n)[2]);
  if (passes < 2 || kTotal % kc != 0)
    return;
  vector::TransferReadOp read = getRhsRead(contract);
  if (!read)
    return;
  // The K index: the one that moves with the K loop.
  auto type = cast<MemRefType>(read.getBase().getType());
  std::optional<unsigned> kDim;
  for (auto [dim, index] : llvm::enumerate(read.getIndices())) {
    Operation *def = index.getDefiningOp();
    bool usesK = index == kLoop.getInductionVar() ||
                 (def && llvm::is_contained(def->getOperands(),
                                            kLoop.getInductionVar()));
    if (!usesK)
      continue;
    if (kDim)
      return;
    kDim = dim;
  }
  if (!kDim || *kDim + 1 != static_cast<unsigned>(type.getRank()) - 1 ||
      type.getDimSize(*kDim) != kTotal)
    return;

  int64_t width = read.getVectorType().getNumElements();
  if (type.getRank() > 3)
    return;
  // The next tile along N: Nc / nr panels on in a packed [N / nr, K, nr] B,
  // Nc columns on in a [K, N] one.
  bool packed = type.getRank() == 3;
  unsigned tileDim = packed ? 0 : type.getRank() - 1;
  int64_t tileStride = packed ? tileSteps : tileSteps * width;
  int64_t lastTile =
      packed ? type.getDimSize(0) - 1 : type.getDimSize(tileDim) - width;
  // With one K block and one tile along N (tiles along M share all of B),
  // there is nothing left to prefetch.
  if (!blocks && lastTile < tileStride)
    return;

  OpBuilder b(read);
  Location loc = read.getLoc();
  MLIRContext *ctx = b.getContext();
  // One prefetch per K step: the block's share for this row of register
  // blocks, kc / passes rows of `lines` cache lines, one line every
  // `stepsPerLine` steps (a power of two, so the division is a shift;
  // rounded down, the shares overlap a little rather than leave gaps).
  int64_t lineElements = kCacheLineBytes / 4;
  int64_t lines = std::max<int64_t>(1, width / lineElements);
  int64_t stepsPerLine = int64_t(1)
                         << llvm::Log2_64(std::max<int64_t>(1, passes / lines));
  AffineExpr index, mIv, kIv;
  bindDims(ctx, index, mIv, kIv);
  // The next K block starts at index - k + Kc; past the last one (or with
  // one K block), the next block is the first one of the next cache tile,
  // Nc columns on. Its row: (index - k + Kc) mod K + m * Kc / M +
  // k / (stepsPerLine * lines), clamped to the last row (prefetching past
  // the buffer is harmless on x86, but not meaningful).
  AffineExpr nextBlock = index - kIv + kc;
  int64_t last = type.getDimSize(*kDim) - 1;
  AffineMap next =
      AffineMap::get(3, 0,
                     {nextBlock % kTotal + (mIv * kc).floorDiv(rows) +
                          kIv.floorDiv(stepsPerLine * lines),
                      getAffineConstantExpr(last, ctx)},
                     ctx);
  Value kIndex = read.getIndices()[*kDim];
  SmallVector<Value> indices(read.getIndices());
  indices[*kDim] = affine::AffineMinOp::create(
      b, loc, next,
      ValueRange{kIndex, mLoop.getInductionVar(), kLoop.getInductionVar()});
  // The next tile's panel or columns, clamped to the last ones.
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx),
             d2 = getAffineDimExpr(2, ctx);
  AffineExpr tiles = (d1 - d2 + kc).floorDiv(kTotal);
  Value tileIndex = affine::AffineMinOp::create(
      b, loc,
      AffineMap::get(
          3, 0, {d0 + tiles * tileStride, getAffineConstantExpr(lastTile, ctx)},
          ctx),
      ValueRange{read.getIndices()[tileDim], kIndex, kLoop.getInductionVar()});
  indices[tileDim] = tileIndex;
  if (lines > 1) {
    AffineExpr column = getAffineDimExpr(0, ctx);
    AffineExpr k = getAffineDimExpr(1, ctx);
    indices.back() = affine::AffineApplyOp::create(
        b, loc,
        AffineMap::get(
            2, 0, column + (k.floorDiv(stepsPerLine) % lines) * lineElements),
        ValueRange{indices.back(), kLoop.getInductionVar()});
  }
  // Into L2 (locality 2): the K block is read again by the other rows of
  // register blocks from there.
  memref::PrefetchOp::create(b, loc, read.getBase(), indices,
                             /*isWrite=*/false, /*localityHint=*/2,
                             /*isDataCache=*/true);
}

namespace {
/// Prefetches the next K block of B in the register blocks of K-blocked
/// contractions (see the file comment).
struct PrefetchPanelsPass
    : public mlprog::impl::PrefetchPanelsPassBase<PrefetchPanelsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      prefetchNextBlock(loop);
  }
};
} // namespace
