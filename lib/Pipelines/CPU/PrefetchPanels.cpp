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
// arrive over the whole K block instead of in a burst at its start.
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
/// vector.contract in its body) when it sits in loops over N, M (step mr)
/// and K blocks (step Kc), in that order from the inside.
static void prefetchNextBlock(scf::ForOp kLoop) {
  vector::ContractionOp contract;
  for (Operation &op : *kLoop.getBody())
    if (auto candidate = dyn_cast<vector::ContractionOp>(op))
      contract = candidate;
  std::optional<std::array<int64_t, 3>> k = getConstantBounds(kLoop);
  auto nLoop = kLoop->getParentOfType<scf::ForOp>();
  auto mLoop = nLoop ? nLoop->getParentOfType<scf::ForOp>() : nullptr;
  auto blockLoop = mLoop ? mLoop->getParentOfType<scf::ForOp>() : nullptr;
  if (!contract || !k || (*k)[0] != 0 || (*k)[2] != 1 || !blockLoop)
    return;
  std::optional<std::array<int64_t, 3>> m = getConstantBounds(mLoop);
  std::optional<std::array<int64_t, 3>> blocks = getConstantBounds(blockLoop);
  if (!m || !blocks || (*m)[0] != 0 || (*m)[1] % (*m)[2] != 0 ||
      (*blocks)[2] != (*k)[1])
    return;
  int64_t rows = (*m)[1], passes = rows / (*m)[2], kc = (*blocks)[2];
  if (passes < 2)
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
  if (!kDim || *kDim + 1 != static_cast<unsigned>(type.getRank()) - 1)
    return;

  OpBuilder b(read);
  Location loc = read.getLoc();
  MLIRContext *ctx = b.getContext();
  // One prefetch per K step: the block's share for this row of register
  // blocks, kc / passes rows of `lines` cache lines, one line every
  // `stepsPerLine` steps (a power of two, so the division is a shift;
  // rounded down, the shares overlap a little rather than leave gaps).
  int64_t width = read.getVectorType().getNumElements();
  int64_t lineElements = kCacheLineBytes / 4;
  int64_t lines = std::max<int64_t>(1, width / lineElements);
  int64_t stepsPerLine = int64_t(1)
                         << llvm::Log2_64(std::max<int64_t>(1, passes / lines));
  AffineExpr index, mIv, kIv;
  bindDims(ctx, index, mIv, kIv);
  // index moves with k: index - k + Kc + m * Kc / M + k / (stepsPerLine *
  // lines), clamped to the last row (prefetching past the buffer is
  // harmless on x86, but not meaningful).
  int64_t last = type.getDimSize(*kDim) - 1;
  AffineMap next =
      AffineMap::get(3, 0,
                     {index - kIv + kc + (mIv * kc).floorDiv(rows) +
                          kIv.floorDiv(stepsPerLine * lines),
                      getAffineConstantExpr(last, ctx)},
                     ctx);
  SmallVector<Value> indices(read.getIndices());
  indices[*kDim] = affine::AffineMinOp::create(
      b, loc, next,
      ValueRange{read.getIndices()[*kDim], mLoop.getInductionVar(),
                 kLoop.getInductionVar()});
  if (lines > 1) {
    AffineExpr column = getAffineDimExpr(0, ctx);
    AffineExpr k = getAffineDimExpr(1, ctx);
    indices.back() = affine::AffineApplyOp::create(
        b, loc,
        AffineMap::get(
            2, 0, column + (k.floorDiv(stepsPerLine) % lines) * lineElements),
        ValueRange{read.getIndices().back(), kLoop.getInductionVar()});
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
