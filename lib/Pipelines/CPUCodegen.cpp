//===- CPUCodegen.cpp - Tiling and vectorization for the CPU pipeline -----===//
//
// The -O2 code generation strategy of --mlprog-lower-to-cpu for contractions
// (matmul, batch_matmul, and convolutions as a column tensor + one matmul
// with the batch folded into N, or in blocks of output rows when the column
// tensor is large, see rewriteConvAsBlockedMatmul; depthwise convolutions
// become vector code of their own, see vectorizeDepthwiseConv):
//
//   Bp[n / nr][K][nr] = B, Ap[m / mr][K][mr] = A  panels (rows 4 KiB apart)
//   scf.forall over (Mc x Nc) output tiles        cache blocking, OpenMP
//     scf.for over K in steps of Kc               B block Kc x Nc stays in L2
//       scf.for over M step mr, N step nr, K step 1
//         vector.contract <mr x 1> x <1 x nr>    register block
//
// After bufferization the accumulator's transfers are hoisted out of the
// innermost K loop, so the register block lives in vector registers, and the
// contraction lowers to outer products, i.e. mr broadcast FMAs on nr-wide
// vectors. mr and nr follow the target's vector width and register count.
// The panels make each register block's K loop read two contiguous streams
// (nr and mr floats per step) instead of rows 4 KiB apart, which share one
// L1 set and evict each other (1024^3: 65-70 -> 95-97 GFLOP/s on one
// AVX-512 core).
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/Passes.h"
#include "mlprog/Pipelines/Pipelines.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/SubsetOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

namespace mlprog {
#define GEN_PASS_DEF_TILEANDVECTORIZECONTRACTIONSPASS
#define GEN_PASS_DEF_HOISTVECTORTRANSFERSPASS
#define GEN_PASS_DEF_INLINEALLOCASCOPESPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;
using namespace mlprog;

//===----------------------------------------------------------------------===//
// Target description
//===----------------------------------------------------------------------===//

static bool hasFeature(llvm::StringRef features, llvm::StringRef name) {
  llvm::SmallVector<llvm::StringRef> list;
  features.split(list, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  return llvm::is_contained(list, ("+" + name).str());
}

unsigned CPUTarget::getVectorWidthF32() const {
  if (hasFeature(features, "avx512f"))
    return 16;
  if (hasFeature(features, "avx") || hasFeature(features, "avx2"))
    return 8;
  return 4;
}

unsigned CPUTarget::getNumVectorRegisters() const {
  return hasFeature(features, "avx512f") ? 32 : 16;
}

/// The host's features as an LLVM feature string ("+avx2,+fma,-avx512f").
static std::string getHostFeatures() {
  std::string result;
  for (const auto &feature : llvm::sys::getHostCPUFeatures()) {
    if (!result.empty())
      result += ",";
    result += (feature.getValue() ? "+" : "-") + feature.getKey().str();
  }
  return result;
}

CPUTarget mlprog::getCPUTarget(const LowerToCPUOptions &options) {
  CPUTarget target;
  bool nativeCPU = options.targetCPU.empty() || options.targetCPU == "native";
  target.cpu = nativeCPU ? llvm::sys::getHostCPUName().str()
                         : options.targetCPU.getValue();
  target.features =
      (options.targetFeatures.empty() || options.targetFeatures == "native")
          ? (nativeCPU ? getHostFeatures() : std::string())
          : options.targetFeatures.getValue();
  target.triple = options.targetTriple.empty()
                      ? llvm::sys::getProcessTriple()
                      : options.targetTriple.getValue();
  return target;
}

//===----------------------------------------------------------------------===//
// Tiling
//===----------------------------------------------------------------------===//

namespace {
/// Loop-dimension roles of a contraction that we know how to block.
struct ContractionPlan {
  SmallVector<int64_t> ranges;
  linalg::ContractionDimensions dims;
  int64_t m, n, k; // The innermost M, N and K loop dimensions.
};

/// Tile sizes of the strategy for one target.
struct TileConfig {
  int64_t mr, nr, mc, nc, kc;
};
} // namespace

/// Whether `map`'s last result is the loop dimension `dim`.
static bool isInnermost(AffineMap map, int64_t dim) {
  if (map.getNumResults() == 0)
    return false;
  auto expr = dyn_cast<AffineDimExpr>(map.getResults().back());
  return expr && expr.getPosition() == dim;
}

/// Checks that `op` is an f32 contraction with static loop ranges whose
/// innermost N dimension is contiguous in the output and the N-side input.
static std::optional<ContractionPlan> planContraction(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  auto resultType =
      dyn_cast<RankedTensorType>(op.getDpsInitOperand(0)->get().getType());
  if (!resultType || !resultType.getElementType().isF32())
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands())
    if (getElementTypeOrSelf(operand.get().getType()) !=
        resultType.getElementType())
      return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims))
    return std::nullopt;
  ContractionPlan plan;
  plan.ranges = op.getStaticLoopRanges();
  if (llvm::any_of(plan.ranges, ShapedType::isDynamic))
    return std::nullopt;
  plan.dims = *dims;
  plan.m = dims->m.back();
  plan.n = dims->n.back();
  plan.k = dims->k.back();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // The input that carries N (and not M) is B.
  int bIndex = -1;
  for (int i = 0; i < 2; ++i) {
    AffineMap map = maps[i];
    if (map.isFunctionOfDim(plan.n) && !map.isFunctionOfDim(plan.m))
      bIndex = i;
  }
  if (bIndex < 0 || !isInnermost(maps[bIndex], plan.n) ||
      !isInnermost(maps[2], plan.n))
    return std::nullopt;
  return plan;
}

/// The largest divisor of `value` that is at most `limit` (at least 1),
/// preferring multiples of `multiple` when one exists.
static int64_t largestDivisor(int64_t value, int64_t limit,
                              int64_t multiple = 1) {
  for (int64_t d = std::min(value, limit); d >= multiple; --d)
    if (value % d == 0 && d % multiple == 0)
      return d;
  for (int64_t d = std::min(value, limit); d > 1; --d)
    if (value % d == 0)
      return d;
  return 1;
}

/// Tile sizes that divide the loop ranges, so every register block has the
/// full static size and no masks are needed.
static TileConfig chooseTiles(const CPUTarget &target,
                              const ContractionPlan &plan) {
  int64_t width = target.getVectorWidthF32();
  TileConfig config;
  int64_t m = plan.ranges[plan.m], n = plan.ranges[plan.n];
  int64_t k = plan.ranges[plan.k];
  // mr x (nr / width) accumulators plus the B row and a broadcast must fit
  // the register file: 8 x 2 of 32 registers (AVX-512), 4 x 2 of 16 (AVX2).
  int64_t mrMax = target.getNumVectorRegisters() >= 32 ? 8 : 4;
  config.mr = largestDivisor(m, mrMax);
  config.nr = largestDivisor(n, 2 * width, width);
  // Odd widths above one vector (28 for 14x14 maps) make poor code; one
  // vector or less (14) is faster.
  if (config.nr > width && config.nr % width != 0)
    config.nr = largestDivisor(n, width);
  // With packed panels, a C tile of 128 x 256 and K blocks of up to 512
  // measured best on a 48 KiB L1 / 2 MiB L2 core (1024^3: 96-99 GFLOP/s,
  // against 86-88 with 64 x 256 x 256).
  config.mc = largestDivisor(m, 16 * config.mr, config.mr);
  config.nc = largestDivisor(n, 8 * config.nr, config.nr);
  config.kc = k <= 768 ? k : largestDivisor(k, 512, 16);
  if (config.kc < 64)
    config.kc = 256;
  return config;
}

/// Tiles `op` with `sizes` (one per loop, 0 = untiled) into loops of
/// `loopType`, replaces it and returns the tiled op.
static FailureOr<linalg::LinalgOp>
tile(RewriterBase &rewriter, linalg::LinalgOp op, ArrayRef<int64_t> sizes,
     scf::SCFTilingOptions::LoopType loopType) {
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(op.getContext(), sizes));
  options.setLoopType(loopType);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> result = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(result))
    return failure();
  rewriter.replaceOp(op, result->replacements);
  return cast<linalg::LinalgOp>(result->tiledOps.back());
}

/// Whether `op` writes a rank-1 value broadcast along all but one dimension
/// of its output (the per-channel bias of a convolution or a Gemm):
///   out[d0, ..., dn] = bias[dk]
/// Returns k.
static std::optional<unsigned> getBroadcastDim(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0 || !op.hasPureTensorSemantics())
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto inputType = dyn_cast<RankedTensorType>(op.getDpsInputs()[0].getType());
  if (!inputType || inputType.getRank() != 1 || !maps[1].isIdentity() ||
      maps[0].getNumResults() != 1)
    return std::nullopt;
  auto dim = dyn_cast<AffineDimExpr>(maps[0].getResult(0));
  Block *body = op.getBody();
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!dim || body->getOperations().size() != 1 ||
      yield.getOperand(0) != body->getArgument(0))
    return std::nullopt;
  return dim.getPosition();
}

/// Follows the dimension `dim` of `type` through the reshape or pad `op` (from
/// its source to its result): the result dimension holding it when every
/// other dimension it is grouped with has size 1 (a pad must not pad it).
static std::optional<unsigned> reshapeDim(Operation *op, unsigned dim) {
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
    ArrayRef<int64_t> shape = collapse.getSrcType().getShape();
    for (auto [index, group] :
         llvm::enumerate(collapse.getReassociationIndices())) {
      if (!llvm::is_contained(group, static_cast<int64_t>(dim)))
        continue;
      for (int64_t other : group)
        if (other != dim && shape[other] != 1)
          return std::nullopt;
      return index;
    }
    return std::nullopt;
  }
  // The padding of an init is never read back (see padForRegisterBlocks),
  // so only the broadcast dimension must keep its extent.
  if (auto pad = dyn_cast<tensor::PadOp>(op)) {
    if (pad.getStaticLow()[dim] != 0 || pad.getStaticHigh()[dim] != 0)
      return std::nullopt;
    return dim;
  }
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    ArrayRef<int64_t> shape = expand.getResultType().getShape();
    ReassociationIndices group = expand.getReassociationIndices()[dim];
    std::optional<unsigned> result;
    for (int64_t d : group) {
      if (shape[d] == 1)
        continue;
      if (result)
        return std::nullopt;
      result = d;
    }
    return result ? result : std::optional<unsigned>(group.back());
  }
  return std::nullopt;
}

/// Gives the contraction `op` an init of its own when it starts from a fill
/// or a bias broadcast reached through reshapes or a tensor.pad (whose
/// padding the contraction overwrites and nobody reads) or shared with other
/// ops
/// (CSE merges the broadcasts of equal biases): a fresh fill or broadcast
/// of the init's shape, into a bufferization.alloc_tensor (which CSE does not
/// merge, unlike tensor.empty), right before `op`. The contraction's forall
/// can then fuse it into its tiles (see tileForall), and bufferization writes
/// the contraction's result in place instead of copying the shared init.
static void useOwnInit(RewriterBase &rewriter, linalg::LinalgOp op) {
  OpOperand *initOperand = op.getDpsInitOperand(0);
  Value init = initOperand->get();
  SmallVector<Operation *> reshapes;
  Value value = init;
  while (isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp,
                         tensor::PadOp>(value.getDefiningOp())) {
    reshapes.push_back(value.getDefiningOp());
    value = value.getDefiningOp()->getOperand(0);
  }
  Operation *producer = value.getDefiningOp();
  if (!producer || (reshapes.empty() && value.hasOneUse()))
    return;
  auto type = cast<RankedTensorType>(init.getType());
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value fresh;
  if (auto fill = dyn_cast<linalg::FillOp>(producer)) {
    Value empty =
        bufferization::AllocTensorOp::create(rewriter, loc, type, ValueRange{});
    fresh = linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty)
                .getResult(0);
  } else if (auto generic = dyn_cast<linalg::GenericOp>(producer)) {
    std::optional<unsigned> dim = getBroadcastDim(generic);
    for (Operation *reshape : llvm::reverse(reshapes))
      if (dim)
        dim = reshapeDim(reshape, *dim);
    if (!dim)
      return;
    MLIRContext *ctx = rewriter.getContext();
    unsigned rank = type.getRank();
    AffineMap biasMap =
        AffineMap::get(rank, 0, getAffineDimExpr(*dim, ctx), ctx);
    Value empty =
        bufferization::AllocTensorOp::create(rewriter, loc, type, ValueRange{});
    fresh =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{type},
            ValueRange{generic.getDpsInputs()[0]}, ValueRange{empty},
            ArrayRef<AffineMap>{biasMap, rewriter.getMultiDimIdentityMap(rank)},
            SmallVector<utils::IteratorType>(rank,
                                             utils::IteratorType::parallel),
            [](OpBuilder &b, Location l, ValueRange args) {
              linalg::YieldOp::create(b, l, args[0]);
            })
            .getResult(0);
  } else {
    return;
  }
  rewriter.modifyOpInPlace(op, [&] { initOperand->set(fresh); });
}

/// Tiles the output of `op` into an scf.forall, fusing the linalg.fill
/// or bias broadcast (see useOwnInit) that initializes it, and returns the
/// tiled contraction.
static FailureOr<linalg::LinalgOp> tileForall(RewriterBase &rewriter,
                                              linalg::LinalgOp op,
                                              ArrayRef<int64_t> sizes) {
  scf::SCFTileAndFuseOptions options;
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(getAsIndexOpFoldResult(op.getContext(), sizes));
  tiling.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  options.setTilingOptions(tiling);
  options.setFusionControlFn(
      [](tensor::ExtractSliceOp, OpResult producer,
         bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        Operation *owner = producer.getOwner();
        auto generic = dyn_cast<linalg::GenericOp>(owner);
        if (isa<linalg::FillOp>(owner) || (generic && getBroadcastDim(generic)))
          return scf::SCFTileAndFuseOptions::ControlFnResult{};
        return std::nullopt;
      });
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTileAndFuseResult> result =
      scf::tileConsumerAndFuseProducersUsingSCF(
          rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(result))
    return failure();
  for (OpResult res : op->getResults())
    if (Value replacement = result->replacements.lookup(res))
      rewriter.replaceAllUsesWith(res, replacement);
  linalg::LinalgOp tiled;
  for (Operation *candidate : result->tiledAndFusedOps)
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(candidate))
      if (linalgOp.getNumReductionLoops() > 0)
        tiled = linalgOp;
  if (!tiled)
    return failure();
  if (op->use_empty())
    rewriter.eraseOp(op);
  return tiled;
}

/// The index of the input of `op` that carries N (and not M), i.e. B.
static int getBIndex(linalg::LinalgOp op, const ContractionPlan &plan) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  for (int i = 0; i < 2; ++i)
    if (maps[i].isFunctionOfDim(plan.n) && !maps[i].isFunctionOfDim(plan.m))
      return i;
  return -1;
}

namespace {
/// One contraction input to copy into register-block panels: B [batch..., K,
/// N] is split along N (its last dimension), A [batch..., M, K] along M (its
/// second-to-last); either way the panels are [batch..., outer, K, tile] with
/// `tile` = nr or mr, so a register block's K loop reads one contiguous
/// stream of `tile` elements per K step.
struct PackedOperand {
  int index;      // Input operand number of the contraction.
  Value source;   // The contraction's operand.
  Value packed;   // [batch..., size / tile, K, tile].
  int64_t tile;   // nr or mr.
  bool splitLast; // B (split the last dimension) or A (the one before).
};
} // namespace

/// Whether input `index` of `op` is indexed [batch..., x, y] with the
/// innermost loops (x, y) = (k, n) for B or (m, k) for A, and only batch loops
/// besides: the forms the panels below support.
static bool isPackable(linalg::LinalgOp op, const ContractionPlan &plan,
                       int index, bool isB) {
  AffineMap map = op.getIndexingMapsArray()[index];
  unsigned rank = map.getNumResults();
  if (rank < 2 || !map.isProjectedPermutation() ||
      map.getDimPosition(rank - 2) != (isB ? plan.k : plan.m) ||
      map.getDimPosition(rank - 1) != (isB ? plan.n : plan.k))
    return false;
  for (unsigned i = 0; i + 2 < rank; ++i)
    if (!llvm::is_contained(plan.dims.batch, map.getDimPosition(i)))
      return false;
  return true;
}

/// Contractions with at most this N are padded to full vectors (see
/// padForRegisterBlocks) rather than split.
static constexpr int64_t kMaxPaddedN = 64;

/// Panels pay for their copy only with enough K steps per register block.
static constexpr int64_t kMinPackedK = 256;

/// Whether the rows of the matrix `value` (or of the tensor it is a slice
/// of) are a multiple of 4 KiB apart, so that a column of them falls into
/// one set of a 48 KiB, 12-way L1 (64 sets, 4 KiB period) and a K x nr block
/// cannot stay in L1 (e.g. square matrices of 1024 or 2048 f32).
static bool rowsAliasInL1(Value value) {
  while (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>())
    value = slice.getSource();
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() < 2 || type.isDynamicDim(type.getRank() - 1))
    return false;
  int64_t bytes = type.getDimSize(type.getRank() - 1) *
                  type.getElementType().getIntOrFloatBitWidth() / 8;
  return bytes % 4096 == 0;
}

/// Copies `operand.source` into panels (see PackedOperand):
///   B: Bp[b..., n1, k, n0] = B[b..., k, n1 * nr + n0]
///   A: Ap[b..., m1, k, m0] = A[b..., m1 * mr + m0, k]
/// (the tile divides the split extent). When `parallel`, the copy runs on
/// the forall threads, one panel per iteration.
static void pack(RewriterBase &rewriter, Location loc, PackedOperand &operand,
                 bool parallel) {
  auto type = cast<RankedTensorType>(operand.source.getType());
  unsigned rank = type.getRank();
  int64_t tileSize = operand.tile;
  SmallVector<int64_t> shape(type.getShape().drop_back(2));
  int64_t split = type.getDimSize(operand.splitLast ? rank - 1 : rank - 2);
  int64_t k = type.getDimSize(operand.splitLast ? rank - 2 : rank - 1);
  shape.append({split / tileSize, k, tileSize});
  MLIRContext *ctx = rewriter.getContext();
  // Loops (batch..., outer, k, inner), one per dimension of the panels.
  SmallVector<AffineExpr> inputExprs;
  for (unsigned i = 0; i + 2 < rank; ++i)
    inputExprs.push_back(getAffineDimExpr(i, ctx));
  AffineExpr outer = getAffineDimExpr(rank - 2, ctx);
  AffineExpr kExpr = getAffineDimExpr(rank - 1, ctx);
  AffineExpr inner = getAffineDimExpr(rank, ctx);
  if (operand.splitLast)
    inputExprs.append({kExpr, outer * tileSize + inner});
  else
    inputExprs.append({outer * tileSize + inner, kExpr});
  AffineMap inputMap = AffineMap::get(rank + 1, 0, inputExprs, ctx);
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
  auto copy = linalg::GenericOp::create(
      rewriter, loc, TypeRange{empty.getType()}, ValueRange{operand.source},
      ValueRange{empty},
      ArrayRef<AffineMap>{inputMap, rewriter.getMultiDimIdentityMap(rank + 1)},
      SmallVector<utils::IteratorType>(rank + 1, utils::IteratorType::parallel),
      [](OpBuilder &builder, Location l, ValueRange args) {
        linalg::YieldOp::create(builder, l, args[0]);
      });
  operand.packed = copy.getResult(0);
  if (!parallel)
    return;
  SmallVector<int64_t> sizes(rank + 1, 0);
  for (unsigned i = 0; i + 1 < rank; ++i)
    sizes[i] = 1;
  FailureOr<linalg::LinalgOp> tiled =
      tile(rewriter, copy, sizes, scf::SCFTilingOptions::LoopType::ForallOp);
  if (succeeded(tiled))
    operand.packed = (*tiled)->getParentOfType<scf::ForallOp>().getResult(0);
}

/// Points the operand of the register block `tiled` (a chain of unit-stride
/// extract_slices of `operand.source`: [1..., 1, nr] of B or [1..., mr, 1] of
/// A) at the same elements of the panels.
static LogicalResult usePacked(RewriterBase &rewriter, linalg::LinalgOp tiled,
                               const PackedOperand &operand) {
  OpOperand *use = tiled.getDpsInputOperand(operand.index);
  auto tileType = cast<RankedTensorType>(use->get().getType());
  unsigned rank = tileType.getRank();
  unsigned splitDim = operand.splitLast ? rank - 1 : rank - 2;
  unsigned kDim = operand.splitLast ? rank - 2 : rank - 1;
  if (tileType.getDimSize(splitDim) != operand.tile ||
      tileType.getDimSize(kDim) != 1)
    return failure();
  Location loc = tiled.getLoc();
  rewriter.setInsertionPoint(tiled);
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
  Value value = use->get();
  AffineExpr d0, d1;
  bindDims(ctx, d0, d1);
  while (value != operand.source) {
    auto slice = value.getDefiningOp<tensor::ExtractSliceOp>();
    if (!slice || !slice.hasUnitStride() ||
        slice.getSourceType().getRank() != rank)
      return failure();
    for (auto [i, offset] : llvm::enumerate(slice.getMixedOffsets()))
      offsets[i] = affine::makeComposedFoldedAffineApply(rewriter, loc, d0 + d1,
                                                         {offsets[i], offset});
    value = slice.getSource();
  }
  OpFoldResult split = offsets[splitDim], k = offsets[kDim];
  offsets[rank - 2] = affine::makeComposedFoldedAffineApply(
      rewriter, loc, d0.floorDiv(operand.tile), {split});
  offsets[rank - 1] = k;
  offsets.push_back(rewriter.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes(rank + 1, rewriter.getIndexAttr(1));
  sizes.back() = rewriter.getIndexAttr(operand.tile);
  SmallVector<OpFoldResult> strides(rank + 1, rewriter.getIndexAttr(1));
  // [1..., tile]: the panel row, with the unit outer and K dimensions dropped.
  SmallVector<int64_t> rowShape(rank - 1, 1);
  rowShape.back() = operand.tile;
  auto rowType = RankedTensorType::get(rowShape, tileType.getElementType());
  Value row = tensor::ExtractSliceOp::create(
      rewriter, loc, operand.splitLast ? tileType : rowType, operand.packed,
      offsets, sizes, strides);
  if (!operand.splitLast) {
    // A's block is [1..., mr, 1].
    SmallVector<ReassociationIndices> groups;
    for (unsigned i = 0; i + 2 < rank; ++i)
      groups.push_back({static_cast<int64_t>(i)});
    groups.push_back({rank - 2, rank - 1});
    row = tensor::ExpandShapeOp::create(rewriter, loc, tileType, row, groups);
  }
  rewriter.modifyOpInPlace(tiled, [&] { use->set(row); });
  return success();
}

/// Applies the blocking strategy to one contraction; leaves `op` alone (to
/// the scalar loop lowering) when a step does not apply.
static void tileAndVectorize(RewriterBase &rewriter, linalg::LinalgOp op,
                             const CPUTarget &target, bool parallel) {
  std::optional<ContractionPlan> plan = planContraction(op);
  if (!plan)
    return;
  TileConfig config = chooseTiles(target, *plan);
  // Too narrow to vectorize along N (a prime extent): leave it to loops.
  if (config.nr < 4)
    return;
  unsigned numLoops = plan->ranges.size();
  auto sizesFor = [&](int64_t mSize, int64_t nSize, int64_t kSize,
                      int64_t other) {
    SmallVector<int64_t> sizes(numLoops, other);
    // K dimensions are reductions: never split across forall threads; in
    // the register loops, the outer ones go one at a time.
    for (int64_t dim : plan->dims.k)
      sizes[dim] = kSize == 0 ? 0 : 1;
    sizes[plan->m] = mSize;
    sizes[plan->n] = nSize;
    sizes[plan->k] = kSize;
    return sizes;
  };

  // Pack B into contiguous K x nr panels, and A into K x mr panels, when
  // their rows alias in L1 and each panel is reused by enough register
  // blocks to pay for the copy. The copies are plain loops, so operands
  // whose rows do not alias keep their layout: 256^3 and 512^3 sgemm (rows
  // 1 and 2 KiB apart) and the column tensors of resnet18's convolutions
  // measured slower with panels (512^3: 84 against 101 GFLOP/s), 1024^3
  // faster (96 against 65).
  int bIndex = getBIndex(op, *plan);
  SmallVector<PackedOperand> packed;
  int64_t m = plan->ranges[plan->m], n = plan->ranges[plan->n];
  int64_t k = plan->ranges[plan->k];
  if (config.nr % target.getVectorWidthF32() == 0 && m >= 4 * config.mr &&
      n > config.nr && k >= kMinPackedK &&
      rowsAliasInL1(op.getDpsInputOperand(bIndex)->get()) &&
      isPackable(op, *plan, bIndex, /*isB=*/true))
    packed.push_back({bIndex, op.getDpsInputOperand(bIndex)->get(), Value(),
                      config.nr, /*splitLast=*/true});
  if (n >= 4 * config.nr && m > config.mr && k >= kMinPackedK &&
      rowsAliasInL1(op.getDpsInputOperand(1 - bIndex)->get()) &&
      isPackable(op, *plan, 1 - bIndex, /*isB=*/false))
    packed.push_back({1 - bIndex, op.getDpsInputOperand(1 - bIndex)->get(),
                      Value(), config.mr, /*splitLast=*/false});
  rewriter.setInsertionPoint(op);
  for (PackedOperand &operand : packed)
    pack(rewriter, op.getLoc(), operand, parallel);

  linalg::LinalgOp current = op;
  if (parallel) {
    // Batch and outer M/N dimensions one at a time, K untiled.
    FailureOr<linalg::LinalgOp> tiled =
        tileForall(rewriter, current, sizesFor(config.mc, config.nc, 0, 1));
    if (failed(tiled))
      return;
    current = *tiled;
  }
  if (config.kc < plan->ranges[plan->k]) {
    SmallVector<int64_t> sizes(numLoops, 0);
    sizes[plan->k] = config.kc;
    FailureOr<linalg::LinalgOp> tiled =
        tile(rewriter, current, sizes, scf::SCFTilingOptions::LoopType::ForOp);
    if (failed(tiled))
      return;
    current = *tiled;
  }
  SmallVector<int64_t> registerSizes = sizesFor(config.mr, config.nr, 1, 1);
  FailureOr<linalg::LinalgOp> tiled = tile(
      rewriter, current, registerSizes, scf::SCFTilingOptions::LoopType::ForOp);
  if (failed(tiled))
    return;
  current = *tiled;
  for (const PackedOperand &operand : packed)
    (void)usePacked(rewriter, current, operand);

  // Tile sizes divide the ranges, so register blocks are static (K blocks
  // of Kc may not be, but their K tiles of 1 are).
  if (current.hasDynamicShape())
    return;
  rewriter.setInsertionPoint(current);
  FailureOr<linalg::VectorizationResult> vectorized = linalg::vectorize(
      rewriter, current, /*inputVectorSizes=*/{}, /*inputScalableVecDims=*/{},
      /*vectorizeNDExtract=*/false, /*flatten1DDepthwiseConv=*/false,
      /*assumeDynamicDimsMatchVecSizes=*/false,
      /*createNamedContraction=*/true);
  if (failed(vectorized))
    return;
  rewriter.replaceOp(current, vectorized->replacements);
}

/// Splits `op` along its innermost N dimension into parts whose N extents are
/// multiples of the register block widths: n = 2w * a + w * b + r with
/// w the vector width (392 = 384 + 8 with w = 16), so that the bulk of the
/// contraction gets full-width register blocks and only a narrow remainder
/// runs with narrow vectors or scalar loops. Returns the parts.
static SmallVector<linalg::LinalgOp>
splitForRegisterBlocks(RewriterBase &rewriter, linalg::LinalgOp op,
                       const CPUTarget &target) {
  int64_t width = target.getVectorWidthF32();
  SmallVector<linalg::LinalgOp> parts;
  for (int64_t multiple : {2 * width, width}) {
    std::optional<ContractionPlan> plan = planContraction(op);
    if (!plan)
      break;
    int64_t n = plan->ranges[plan->n];
    if (n <= multiple || n % multiple == 0)
      continue;
    rewriter.setInsertionPoint(op);
    auto [head, tail] =
        linalg::splitOp(rewriter, cast<TilingInterface>(op.getOperation()),
                        plan->n, rewriter.getIndexAttr(n - n % multiple));
    if (!head || !tail)
      break;
    parts.push_back(cast<linalg::LinalgOp>(head.getOperation()));
    op = cast<linalg::LinalgOp>(tail.getOperation());
  }
  parts.push_back(op);
  return parts;
}

/// After splitForRegisterBlocks, each part of a contraction accumulates into
/// a slice of the whole contraction's `init` (taken through the insert_slices
/// of the parts before it). When `init` is a fill or a bias broadcast, gives
/// every part that slice of the fill or broadcast as an op of its own, which
/// the part's forall then fuses into its tiles, and lets the parts write
/// into an empty tensor: they cover all of it. Otherwise bufferization
/// copies the part's slice out of the shared init and back.
static void splitInitProducer(RewriterBase &rewriter,
                              ArrayRef<linalg::LinalgOp> parts, Value init) {
  auto producer = dyn_cast_or_null<linalg::LinalgOp>(init.getDefiningOp());
  auto generic = dyn_cast_or_null<linalg::GenericOp>(init.getDefiningOp());
  if (parts.size() < 2 || !producer ||
      !(isa<linalg::FillOp>(producer) || (generic && getBroadcastDim(generic))))
    return;
  auto initType = cast<RankedTensorType>(init.getType());
  for (linalg::LinalgOp part : parts) {
    OpOperand *operand = part.getDpsInitOperand(0);
    auto partType = cast<RankedTensorType>(operand->get().getType());
    // The part's offsets in `init`, composed through nested slices.
    SmallVector<int64_t> offsets(initType.getRank(), 0);
    Value value = operand->get();
    while (value.getType() != initType) {
      // A nested split's parts insert into a slice: same coordinates.
      if (auto insert = value.getDefiningOp<tensor::InsertSliceOp>()) {
        value = insert.getDest();
        continue;
      }
      auto slice = value.getDefiningOp<tensor::ExtractSliceOp>();
      if (!slice || !slice.hasUnitStride() ||
          ShapedType::isDynamicShape(slice.getStaticOffsets()))
        return;
      for (auto [offset, sliceOffset] :
           llvm::zip_equal(offsets, slice.getStaticOffsets()))
        offset += sliceOffset;
      value = slice.getSource();
    }
    rewriter.setInsertionPoint(part);
    SmallVector<int64_t> ones(initType.getRank(), 1);
    auto slice = tensor::ExtractSliceOp::create(
        rewriter, part.getLoc(), partType, init, ValueRange{}, ValueRange{},
        ValueRange{}, offsets, partType.getShape(), ones);
    FailureOr<TilingResult> tiled =
        tensor::replaceExtractSliceWithTiledProducer(rewriter, slice,
                                                     cast<OpResult>(init));
    auto tiledOp = failed(tiled) || tiled->tiledOps.size() != 1
                       ? nullptr
                       : dyn_cast<linalg::LinalgOp>(tiled->tiledOps[0]);
    rewriter.eraseOp(slice);
    if (!tiledOp || tiledOp->getNumResults() != 1)
      return;
    // The part's fill or broadcast writes the slice of the tensor its result
    // is inserted into (as the part did), so all of it bufferizes in place.
    Value dest = operand->get();
    Value tiledDest = tiledOp.getDpsInitOperand(0)->get();
    rewriter.modifyOpInPlace(tiledOp,
                             [&] { tiledOp.getDpsInitOperand(0)->set(dest); });
    if (tiledDest.use_empty() && tiledDest.getDefiningOp())
      rewriter.eraseOp(tiledDest.getDefiningOp());
    rewriter.modifyOpInPlace(part,
                             [&] { operand->set(tiledOp->getResult(0)); });
  }
  // No part reads `init` any more; the parts overwrite every element of it.
  // A bufferization.alloc_tensor (unlike a tensor.empty, which CSE merges
  // with others of its type) keeps each contraction's slices apart, so
  // bufferization writes them in place instead of copying.
  rewriter.setInsertionPoint(producer);
  Value empty = bufferization::AllocTensorOp::create(
      rewriter, producer.getLoc(), initType, ValueRange{});
  rewriter.replaceAllUsesWith(init, empty);
  Value dest = producer.getDpsInitOperand(0)->get();
  rewriter.eraseOp(producer);
  if (dest.use_empty() && dest.getDefiningOp<bufferization::AllocTensorOp>())
    rewriter.eraseOp(dest.getDefiningOp());
}

/// Pads the N dimension of a contraction whose N extent is small and not a
/// multiple of the vector width up to a multiple of two vectors, the widest
/// register block (49 -> 64 for a 7x7 output map), with zero columns in B
/// and the result's padding sliced off.
/// One full-width pass over A then replaces the parts splitForRegisterBlocks
/// would make (49 = 32 + 16 + 1), each of which streams all of A (the
/// weights: 9 MiB for resnet18's 512x512x3x3 layers), the last one with
/// scalar code. Returns the padded contraction, or `op` when it does not
/// apply.
static linalg::LinalgOp padForRegisterBlocks(RewriterBase &rewriter,
                                             linalg::LinalgOp op,
                                             const CPUTarget &target) {
  std::optional<ContractionPlan> plan = planContraction(op);
  int64_t width = target.getVectorWidthF32();
  if (!plan)
    return op;
  int64_t n = plan->ranges[plan->n];
  if (n % width == 0 || n > kMaxPaddedN || n < width)
    return op;
  Type elementType = getElementTypeOrSelf(op->getResult(0).getType());
  Attribute zero = rewriter.getZeroAttr(elementType);
  linalg::LinalgPaddingOptions options;
  options.setPaddingDimensions({static_cast<int64_t>(plan->n)})
      .setPadToMultipleOf({2 * width})
      .setPaddingValues({zero, zero, zero});
  options.copyBackOp = linalg::LinalgPaddingOptions::CopyBackOp::None;
  linalg::LinalgOp padded;
  SmallVector<Value> replacements;
  SmallVector<tensor::PadOp> pads;
  rewriter.setInsertionPoint(op);
  if (failed(linalg::rewriteAsPaddedOp(rewriter, op, options, padded,
                                       replacements, pads)))
    return op;
  rewriter.replaceOp(op, replacements);
  return padded;
}

/// Drops the unit loops of a contraction generic and turns it into the
/// named op it then is (matmul, batch_matmul, ...), when it is one.
static void simplifyContraction(RewriterBase &rewriter,
                                linalg::GenericOp generic) {
  linalg::ControlDropUnitDims control;
  rewriter.setInsertionPoint(generic);
  FailureOr<linalg::DropUnitDimsResult> dropped =
      linalg::dropUnitDims(rewriter, generic, control);
  if (failed(dropped))
    return;
  rewriter.replaceOp(generic, dropped->replacements);
  if (auto newGeneric =
          dyn_cast<linalg::GenericOp>(dropped->resultOp.getOperation())) {
    rewriter.setInsertionPoint(newGeneric);
    (void)linalg::specializeGenericOp(rewriter, newGeneric);
  }
}

/// The static values of an i64 elements attribute (strides, dilations).
static SmallVector<int64_t> getValues(DenseIntElementsAttr attr) {
  return llvm::to_vector(attr.getValues<int64_t>());
}

namespace {
/// The tensor a convolution reads, [N, C, H, W] with static sizes, and the
/// zero padding before its rows and columns. A `tensor.pad` of the spatial
/// dimensions by a constant 0 is looked through (the importers emit one for
/// every padded convolution), so that the padded copy is never made: reads
/// outside the source give 0 instead.
struct ConvSource {
  Value value;
  int64_t padTop = 0, padLeft = 0;
};
} // namespace

/// The source of `input` (see ConvSource): the operand of a static
/// `tensor.pad` with non-negative widths on dimensions 2 and 3 only and a
/// constant zero padding value, else `input` itself.
static ConvSource getConvSource(Value input) {
  ConvSource result{input};
  auto pad = input.getDefiningOp<tensor::PadOp>();
  if (!pad)
    return result;
  Value padValue = pad.getConstantPaddingValue();
  auto sourceType = dyn_cast<RankedTensorType>(pad.getSource().getType());
  if (!padValue || !matchPattern(padValue, m_AnyZeroFloat()) || !sourceType ||
      sourceType.getRank() != 4 || !sourceType.hasStaticShape())
    return result;
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  for (int64_t i = 0; i < 4; ++i) {
    if (ShapedType::isDynamic(low[i]) || ShapedType::isDynamic(high[i]) ||
        low[i] < 0 || high[i] < 0)
      return result;
    if (i < 2 && (low[i] != 0 || high[i] != 0))
      return result;
  }
  return {pad.getSource(), low[2], low[3]};
}

/// Reads `len` columns ix0, ix0 + sw, ..., ix0 + (len - 1) * sw (sw = 1 or
/// 2) of the row of the f32 tensor `x` at `row` (all indices but the last),
/// whose rows have `width` elements; columns outside [0, width) read as 0
/// (zero padding). Stride 2 reads 2 * len contiguous elements and shuffles
/// every other one out. Reads that may pass the end of the row are masked; a
/// window that starts left of the row (ix0 < 0) is read from column 0 and
/// moved into place by the shuffle, its leading lanes selected to 0.
static Value readRowColumns(OpBuilder &b, Location loc, Value x, ValueRange row,
                            int64_t ix0, int64_t len, int64_t sw,
                            int64_t width) {
  Type f32 = cast<ShapedType>(x.getType()).getElementType();
  auto vecType = VectorType::get({len}, f32);
  Value zeroVec =
      arith::ConstantOp::create(b, loc, vecType, b.getZeroAttr(vecType));
  if (ix0 + (len - 1) * sw < 0 || ix0 >= width)
    return zeroVec;
  Value zero = arith::ConstantOp::create(b, loc, f32, b.getZeroAttr(f32));
  auto read = [&](int64_t col) -> Value {
    if (col >= width)
      return zeroVec;
    SmallVector<Value> indices(row);
    indices.push_back(arith::ConstantIndexOp::create(b, loc, col));
    return vector::TransferReadOp::create(b, loc, vecType, x, indices, zero,
                                          ArrayRef<bool>{col + len <= width});
  };
  if (ix0 >= 0 && sw == 1)
    return read(ix0);
  int64_t start = std::max<int64_t>(ix0, 0);
  Value lo = read(start);
  Value hi = sw == 1 ? lo : read(start + len);
  SmallVector<int64_t> lanes;
  SmallVector<bool> inside;
  for (int64_t i = 0; i < len; ++i) {
    int64_t col = ix0 + i * sw;
    lanes.push_back(std::max<int64_t>(col - start, 0));
    inside.push_back(col >= 0);
  }
  Value shuffled = vector::ShuffleOp::create(b, loc, lo, hi, lanes);
  if (ix0 >= 0)
    return shuffled;
  auto maskType = VectorType::get({len}, b.getI1Type());
  Value mask = arith::ConstantOp::create(
      b, loc, maskType, DenseElementsAttr::get(maskType, inside));
  return arith::SelectOp::create(b, loc, mask, shuffled, zeroVec);
}

/// Start columns of the `len`-wide vectors that cover a row of `width`
/// elements; the last one overlaps its predecessor when len does not divide
/// the width.
static SmallVector<int64_t> getRowVectorStarts(int64_t width, int64_t len) {
  SmallVector<int64_t> starts;
  for (int64_t j = 0; j + len <= width; j += len)
    starts.push_back(j);
  if (width % len != 0)
    starts.push_back(width - len);
  return starts;
}

/// Builds the column tensor of a static f32 `linalg.conv_2d_nchw_fchw` with
/// column strides 1 or 2 as vector code:
///
///   col[c.kh.kw, b.oh.ow] = x[b, c, oh * sh + kh * dh - pt,
///                                   ow * sw + kw * dw - pl]
///
/// (0 outside x, which is the convolution's input or the source of its zero
/// padding, see ConvSource) as an scf.forall over (c, kh) (OpenMP when the
/// pipeline is parallel), each iteration writing the Fw rows of its (c, kh)
/// with vector.transfer_write along ow. The output rows whose input row lies
/// in the padding are written with zeros by loops of their own; within the
/// others, the column range of each kw is static, so the column padding
/// costs a masked read or a select only at the row ends. Returns a null
/// value for other strides.
///
/// With `ohBegin`, only output rows [ohBegin, ohBegin + rows) (the column
/// tensor is [C*Fh*Fw, N * rows * Ow]), with `image` only that image (N = 1),
/// with `nested` (inside a forall already) plain loops over (c, kh), and
/// with `padTo` zero columns up to that many.
static Value buildColumns(RewriterBase &rewriter, Location loc,
                          linalg::Conv2DNchwFchwOp conv,
                          const CPUTarget &target, Value ohBegin = Value(),
                          int64_t rows = 0, bool nested = false,
                          Value image = Value(), int64_t padTo = 0) {
  auto filterType = cast<RankedTensorType>(conv.getDpsInputs()[1].getType());
  auto initType = cast<RankedTensorType>(conv.getDpsInits()[0].getType());
  SmallVector<int64_t> strides = getValues(conv.getStrides());
  SmallVector<int64_t> dilations = getValues(conv.getDilations());
  int64_t sh = strides[0], sw = strides[1], dh = dilations[0],
          dw = dilations[1];
  if (sw < 1 || sw > 2 || sh < 1)
    return Value();
  ConvSource source = getConvSource(conv.getDpsInputs()[0]);
  auto sourceType = cast<RankedTensorType>(source.value.getType());
  int64_t batch = sourceType.getDimSize(0), channels = sourceType.getDimSize(1);
  int64_t height = sourceType.getDimSize(2), width = sourceType.getDimSize(3);
  int64_t fh = filterType.getDimSize(2), fw = filterType.getDimSize(3);
  int64_t oh = initType.getDimSize(2), ow = initType.getDimSize(3);
  int64_t pt = source.padTop, pl = source.padLeft;
  if (oh == 0 || ow == 0)
    return Value();
  if (!ohBegin) {
    ohBegin = arith::ConstantIndexOp::create(rewriter, loc, 0);
    rows = oh;
  }
  int64_t len = std::min<int64_t>(target.getVectorWidthF32(), ow);
  SmallVector<int64_t> starts = getRowVectorStarts(ow, len);
  int64_t images = image ? 1 : batch;
  int64_t k = channels * fh * fw, n = images * rows * ow;
  int64_t columns = std::max(n, padTo);
  Type f32 = initType.getElementType();
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr d0, d1;
  bindDims(ctx, d0, d1);
  Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value batchEnd = arith::ConstantIndexOp::create(rewriter, loc, batch);
  auto zeroType = VectorType::get({len}, f32);
  Value ohEnd = affine::AffineApplyOp::create(
      rewriter, loc, AffineMap::get(1, 0, d0 + rows), ValueRange{ohBegin});

  // The Fw rows [fw, n] of channel c and filter row kh.
  auto buildRows = [&](OpBuilder &b, Value c, Value kh, Value init) {
    // Output rows [lo, hi) of the block read input rows oh * sh + kh * dh -
    // pt inside x; the others read zeros.
    Value lo = affine::AffineMaxOp::create(
        b, loc, AffineMap::get(2, 0, {d1, (pt - d0 * dh).ceilDiv(sh)}, ctx),
        ValueRange{kh, ohBegin});
    lo = affine::AffineMinOp::create(b, loc,
                                     AffineMap::get(2, 0, {d0 + rows, d1}, ctx),
                                     ValueRange{ohBegin, lo});
    Value hi = affine::AffineMinOp::create(
        b, loc,
        AffineMap::get(2, 0, {d1 + rows, (height + pt - d0 * dh).ceilDiv(sh)},
                       ctx),
        ValueRange{kh, ohBegin});
    hi = affine::AffineMaxOp::create(
        b, loc, AffineMap::get(2, 0, {d0, d1}, ctx), ValueRange{lo, hi});
    // One loop over the output rows [from, to) of image `input`, written to
    // the columns of image `slot`: input rows, or zeros when `copy` is
    // false.
    auto rowLoop = [&](OpBuilder &lb, Location l, Value input, Value slot,
                       Value from, Value to, Value t, bool copy) {
      auto loop = scf::ForOp::create(
          lb, l, from, to, c1, ValueRange{t},
          [&](OpBuilder &nb, Location nl, Value y, ValueRange args) {
            Value result = args[0];
            Value base = affine::AffineApplyOp::create(
                nb, nl,
                AffineMap::get(3, 0,
                               d0 * (rows * ow) +
                                   (d1 - getAffineDimExpr(2, ctx)) * ow),
                ValueRange{slot, y, ohBegin});
            Value inputRow;
            if (copy)
              inputRow = affine::AffineApplyOp::create(
                  nb, nl, AffineMap::get(2, 0, d0 * sh + d1 * dh - pt),
                  ValueRange{y, kh});
            Value zeros = arith::ConstantOp::create(nb, nl, zeroType,
                                                    nb.getZeroAttr(zeroType));
            for (int64_t j = 0; j < fw; ++j) {
              Value rowIndex = arith::ConstantIndexOp::create(nb, nl, j);
              for (int64_t s : starts) {
                Value vec =
                    copy ? readRowColumns(nb, nl, source.value,
                                          ValueRange{input, c, inputRow},
                                          s * sw + j * dw - pl, len, sw, width)
                         : zeros;
                Value col = affine::AffineApplyOp::create(
                    nb, nl, AffineMap::get(1, 0, d0 + s), ValueRange{base});
                result = vector::TransferWriteOp::create(
                             nb, nl, vec, result, ValueRange{rowIndex, col},
                             ArrayRef<bool>{true})
                             .getResult();
              }
            }
            scf::YieldOp::create(nb, nl, result);
          });
      return loop.getResult(0);
    };
    auto imageRows = [&](OpBuilder &ib, Location l, Value input, Value slot,
                         Value t) {
      t = rowLoop(ib, l, input, slot, ohBegin, lo, t, /*copy=*/false);
      t = rowLoop(ib, l, input, slot, lo, hi, t, /*copy=*/true);
      return rowLoop(ib, l, input, slot, hi, ohEnd, t, /*copy=*/false);
    };
    Value result;
    if (image) {
      result = imageRows(b, loc, image, c0, init);
    } else {
      auto loop = scf::ForOp::create(
          b, loc, c0, batchEnd, c1, ValueRange{init},
          [&](OpBuilder &ib, Location l, Value index, ValueRange args) {
            scf::YieldOp::create(ib, l,
                                 imageRows(ib, l, index, index, args[0]));
          });
      result = loop.getResult(0);
    }
    if (columns == n)
      return result;
    // Zero columns up to `padTo`.
    auto tailType = VectorType::get({columns - n}, f32);
    Value tail =
        arith::ConstantOp::create(b, loc, tailType, b.getZeroAttr(tailType));
    Value start = arith::ConstantIndexOp::create(b, loc, n);
    for (int64_t j = 0; j < fw; ++j)
      result = vector::TransferWriteOp::create(
                   b, loc, tail, result,
                   ValueRange{arith::ConstantIndexOp::create(b, loc, j), start},
                   ArrayRef<bool>{true})
                   .getResult();
    return result;
  };

  Value empty = tensor::EmptyOp::create(rewriter, loc, {k, columns}, f32);
  auto rowsType = RankedTensorType::get({fw, columns}, f32);
  SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(fw),
                                     rewriter.getIndexAttr(columns)};
  SmallVector<OpFoldResult> unit(2, rewriter.getIndexAttr(1));
  auto firstRow = [&](OpBuilder &b, Value c, Value kh) -> OpFoldResult {
    return affine::AffineApplyOp::create(
               b, loc, AffineMap::get(2, 0, (d0 * fh + d1) * fw), {c, kh})
        .getResult();
  };
  if (nested) {
    // Inside a parallel loop already: plain loops over (c, kh).
    Value cEnd = arith::ConstantIndexOp::create(rewriter, loc, channels);
    Value khEnd = arith::ConstantIndexOp::create(rewriter, loc, fh);
    auto outer = scf::ForOp::create(
        rewriter, loc, c0, cEnd, c1, ValueRange{empty},
        [&](OpBuilder &ob, Location l, Value c, ValueRange outerArgs) {
          auto inner = scf::ForOp::create(
              ob, l, c0, khEnd, c1, ValueRange{outerArgs[0]},
              [&](OpBuilder &b, Location il, Value kh, ValueRange args) {
                SmallVector<OpFoldResult> offsets = {firstRow(b, c, kh),
                                                     b.getIndexAttr(0)};
                Value slice = tensor::ExtractSliceOp::create(
                    b, il, rowsType, args[0], offsets, sizes, unit);
                Value filled = buildRows(b, c, kh, slice);
                Value result = tensor::InsertSliceOp::create(
                    b, il, filled, args[0], offsets, sizes, unit);
                scf::YieldOp::create(b, il, result);
              });
          scf::YieldOp::create(ob, l, inner.getResult(0));
        });
    return outer.getResult(0);
  }
  auto forall = scf::ForallOp::create(
      rewriter, loc,
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(channels),
                             rewriter.getIndexAttr(fh)},
      ValueRange{empty}, std::nullopt);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(forall.getBody());
  Value c = forall.getInductionVar(0), kh = forall.getInductionVar(1);
  Value shared = forall.getRegionIterArgs()[0];
  SmallVector<OpFoldResult> offsets = {firstRow(rewriter, c, kh),
                                       rewriter.getIndexAttr(0)};
  Value slice = tensor::ExtractSliceOp::create(rewriter, loc, rowsType, shared,
                                               offsets, sizes, unit);
  Value filled = buildRows(rewriter, c, kh, slice);
  rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(rewriter, loc, filled, shared, offsets,
                                        sizes, unit);
  return forall.getResult(0);
}

/// Output rows per block when the [k, batch * oh * ow] column tensor of a
/// convolution is built and consumed in blocks (see
/// rewriteConvAsBlockedMatmul), or 0 when it is built whole: blocks hold
/// whole output rows of one image, divide oh, hold a multiple of the
/// register block width (2 vectors, else 1) of columns and at most
/// kColumnBlockBytes, and there are at least two of them. Column tensors of
/// up to twice that size are built whole.
static constexpr int64_t kColumnBlockBytes = 768 * 1024;
static int64_t chooseColumnBlockRows(int64_t k, int64_t batch, int64_t oh,
                                     int64_t ow, const CPUTarget &target) {
  int64_t width = target.getVectorWidthF32();
  int64_t rowBytes = k * ow * 4;
  if (rowBytes * oh * batch <= 2 * kColumnBlockBytes)
    return 0;
  for (int64_t nr : {2 * width, width})
    for (int64_t rows = batch > 1 ? oh : oh / 2; rows >= 1; --rows)
      if (oh % rows == 0 && (rows * ow) % nr == 0 &&
          rows * rowBytes <= kColumnBlockBytes)
        return rows;
  return 0;
}

/// Rewrites a `linalg.conv_2d_nchw_fchw` (see rewriteConvAsMatmul) into an
/// scf.forall over images and blocks of `rows` output rows, each building
/// its [C*Fh*Fw, rows * Ow] block of the column tensor (buildColumns) and
/// multiplying the filter with it into its part of the output:
///
///   forall b, blk: col = columns of image b, output rows [blk * rows,
///                        (blk + 1) * rows)
///                  out[b, f, blk * rows * Ow + j] += w[f, :] * col[:, j]
///
/// A whole column tensor of resnet18's 56x56 layers is 7 MiB (per image),
/// written to memory and read back; a block stays in L2 between the two.
/// The output is accumulated in place for any batch (no transposed copy).
static LogicalResult rewriteConvAsBlockedMatmul(RewriterBase &rewriter,
                                                linalg::Conv2DNchwFchwOp conv,
                                                const CPUTarget &target,
                                                int64_t rows) {
  Value filter = conv.getDpsInputs()[1], init = conv.getDpsInits()[0];
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto initType = cast<RankedTensorType>(init.getType());
  int64_t features = filterType.getDimSize(0);
  int64_t k = filterType.getDimSize(1) * filterType.getDimSize(2) *
              filterType.getDimSize(3);
  int64_t batch = initType.getDimSize(0);
  int64_t oh = initType.getDimSize(2), ow = initType.getDimSize(3);
  int64_t width = rows * ow;
  Type f32 = initType.getElementType();
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  Value weights = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({features, k}, f32), filter,
      SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  auto accType = RankedTensorType::get({batch, features, oh * ow}, f32);
  Value acc = tensor::CollapseShapeOp::create(
      rewriter, loc, accType, init,
      SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
  auto forall = scf::ForallOp::create(
      rewriter, loc,
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(batch),
                             rewriter.getIndexAttr(oh / rows)},
      ValueRange{acc}, std::nullopt);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(forall.getBody());
    Value image = forall.getInductionVar(0);
    Value block = forall.getInductionVar(1);
    Value shared = forall.getRegionIterArgs()[0];
    AffineExpr d0 = rewriter.getAffineDimExpr(0);
    Value ohBegin = affine::AffineApplyOp::create(
        rewriter, loc, AffineMap::get(1, 0, d0 * rows), ValueRange{block});
    Value col = buildColumns(rewriter, loc, conv, target, ohBegin, rows,
                             /*nested=*/true, image);
    Value first = affine::AffineApplyOp::create(
        rewriter, loc, AffineMap::get(1, 0, d0 * width), ValueRange{block});
    SmallVector<OpFoldResult> offsets = {image, rewriter.getIndexAttr(0),
                                         first};
    SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(1),
                                       rewriter.getIndexAttr(features),
                                       rewriter.getIndexAttr(width)};
    SmallVector<OpFoldResult> unit(3, rewriter.getIndexAttr(1));
    auto blockType = RankedTensorType::get({features, width}, f32);
    Value accBlock = tensor::ExtractSliceOp::create(
        rewriter, loc, blockType, shared, offsets, sizes, unit);
    Value mm = linalg::MatmulOp::create(rewriter, loc, TypeRange{blockType},
                                        ValueRange{weights, col}, accBlock)
                   .getResult(0);
    rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(rewriter, loc, mm, shared, offsets,
                                          sizes, unit);
  }
  rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
      conv, initType, forall.getResult(0),
      SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
  return success();
}

/// Rewrites a static f32 `linalg.conv_2d_nchw_fchw` into a column tensor and
/// one `linalg.matmul` whose N dimension covers the batch and the output
/// pixels, so a batch > 1 convolution is one large GEMM (upstream's im2col
/// keeps a batch loop around a contraction that vectorizes badly):
///
///   col[c, kh, kw, b, oh, ow] = x[b, c, oh * sh + kh * dh, ow * sw + kw * dw]
///   mm[f, b.oh.ow] += w[f, c.kh.kw] * col[c.kh.kw, b.oh.ow]
///
/// With batch 1, mm accumulates into the convolution's init in place; with a
/// larger batch it starts from zero and a transposing add writes
/// out[b, f, oh, ow] = init[b, f, oh, ow] + mm[f, b, oh, ow]. A 1x1 stride-1
/// convolution of batch 1 needs no column tensor: x is already [C, H*W].
/// Otherwise the column tensor is vector code reading through the input's
/// zero padding (see buildColumns), built and multiplied in blocks when it
/// is large (see rewriteConvAsBlockedMatmul), or, for column strides above
/// 2, a copy generic.
static LogicalResult rewriteConvAsMatmul(RewriterBase &rewriter,
                                         linalg::Conv2DNchwFchwOp conv,
                                         const CPUTarget &target) {
  Value input = conv.getDpsInputs()[0], filter = conv.getDpsInputs()[1];
  Value init = conv.getDpsInits()[0];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto initType = cast<RankedTensorType>(init.getType());
  int64_t batch = inputType.getDimSize(0), channels = inputType.getDimSize(1);
  int64_t features = filterType.getDimSize(0);
  int64_t fh = filterType.getDimSize(2), fw = filterType.getDimSize(3);
  int64_t oh = initType.getDimSize(2), ow = initType.getDimSize(3);
  SmallVector<int64_t> strides = getValues(conv.getStrides());
  SmallVector<int64_t> dilations = getValues(conv.getDilations());
  Location loc = conv.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  Type f32 = initType.getElementType();
  rewriter.setInsertionPoint(conv);

  int64_t k = channels * fh * fw, n = batch * oh * ow;
  bool pointwise = batch == 1 && fh == 1 && fw == 1 && strides[0] == 1 &&
                   strides[1] == 1 && inputType.getDimSize(2) == oh &&
                   inputType.getDimSize(3) == ow;
  // The blocks need buildColumns, which takes strides of 1 or 2 along rows.
  if (!pointwise && strides[0] >= 1 && strides[1] >= 1 && strides[1] <= 2)
    if (int64_t rows = chooseColumnBlockRows(k, batch, oh, ow, target))
      return rewriteConvAsBlockedMatmul(rewriter, conv, target, rows);
  // Register blocks cover N in multiples of the vector width; a remainder
  // of fewer than 4 columns would run as scalar loops (7x7 = 49 = 32 + 16 +
  // 1: a third of a 512x512x7x7 convolution's time), so the column tensor
  // gets zero columns up to the next multiple and the matmul computes them.
  int64_t width = target.getVectorWidthF32();
  int64_t padded = n > width && n % width < 4 ? llvm::alignTo(n, width) : n;
  Value zero =
      arith::ConstantOp::create(rewriter, loc, f32, rewriter.getZeroAttr(f32));
  auto padColumns = [&](Value value) -> Value {
    if (padded == n)
      return value;
    return tensor::PadOp::create(
        rewriter, loc, Type(), value,
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0),
                               rewriter.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0),
                               rewriter.getIndexAttr(padded - n)},
        zero);
  };
  Value col;
  if (pointwise) {
    col = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({k, n}, f32), input,
        SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
  } else if (Value columns =
                 buildColumns(rewriter, loc, conv, target, Value(), 0,
                              /*nested=*/false, Value(), padded)) {
    col = columns;
  } else {
    AffineExpr c, kh, kw, b, y, x;
    bindDims(ctx, c, kh, kw, b, y, x);
    AffineMap inputMap =
        AffineMap::get(6, 0,
                       {b, c, y * strides[0] + kh * dilations[0],
                        x * strides[1] + kw * dilations[1]},
                       ctx);
    SmallVector<int64_t> colShape = {channels, fh, fw, batch, oh, ow};
    Value empty = tensor::EmptyOp::create(rewriter, loc, colShape, f32);
    SmallVector<utils::IteratorType> parallel6(6,
                                               utils::IteratorType::parallel);
    Value col6 =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{empty.getType()}, ValueRange{input},
            ValueRange{empty},
            ArrayRef<AffineMap>{inputMap, rewriter.getMultiDimIdentityMap(6)},
            parallel6,
            [](OpBuilder &b, Location l, ValueRange args) {
              linalg::YieldOp::create(b, l, args[0]);
            })
            .getResult(0);
    col = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({k, n}, f32), col6,
        SmallVector<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}});
  }
  if (cast<RankedTensorType>(col.getType()).getDimSize(1) != padded)
    col = padColumns(col);
  Value weights = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({features, k}, f32), filter,
      SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  auto mmType = RankedTensorType::get({features, n}, f32);
  auto paddedType = RankedTensorType::get({features, padded}, f32);
  // The first n columns of the [features, padded] product.
  auto unpadColumns = [&](Value value) -> Value {
    if (padded == n)
      return value;
    return tensor::ExtractSliceOp::create(
        rewriter, loc, mmType, value,
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0),
                               rewriter.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(features),
                               rewriter.getIndexAttr(n)},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                               rewriter.getIndexAttr(1)});
  };
  if (batch == 1) {
    Value acc = tensor::CollapseShapeOp::create(
        rewriter, loc, mmType, init,
        SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
    Value mm =
        linalg::MatmulOp::create(rewriter, loc, TypeRange{paddedType},
                                 ValueRange{weights, col}, padColumns(acc))
            .getResult(0);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        conv, initType, unpadColumns(mm),
        SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
    return success();
  }
  Value empty = tensor::EmptyOp::create(rewriter, loc, {features, padded}, f32);
  Value acc = linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
  Value mm = unpadColumns(
      linalg::MatmulOp::create(rewriter, loc, TypeRange{paddedType},
                               ValueRange{weights, col}, acc)
          .getResult(0));
  Value mm4 = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get({features, batch, oh, ow}, f32), mm,
      SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  AffineExpr b, f, y, x;
  bindDims(ctx, b, f, y, x);
  AffineMap transposed = AffineMap::get(4, 0, {f, b, y, x}, ctx);
  SmallVector<utils::IteratorType> parallel4(4, utils::IteratorType::parallel);
  rewriter.replaceOpWithNewOp<linalg::GenericOp>(
      conv, TypeRange{initType}, ValueRange{mm4}, ValueRange{init},
      ArrayRef<AffineMap>{transposed, rewriter.getMultiDimIdentityMap(4)},
      parallel4, [](OpBuilder &b, Location l, ValueRange args) {
        Value sum = arith::AddFOp::create(b, l, args[0], args[1]);
        linalg::YieldOp::create(b, l, sum);
      });
  return success();
}

/// Rewrites a `linalg.depthwise_conv_2d_nchw_chw` (loops n, c, oh, ow, kh,
/// kw) into a generic whose innermost loop is ow:
///   for n, c, oh, kh, kw: for ow: out[n,c,oh,ow] += x[n,c,oh*s+kh,ow*s+kw] *
///   w[c,kh,kw]
/// The output row then stays in L1 across the window, the filter tap is
/// loop-invariant, and LLVM vectorizes the contiguous ow loop (the named
/// op's innermost loop runs over the 3 taps of kw and does not vectorize).
static LogicalResult
interchangeDepthwiseConv(RewriterBase &rewriter,
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

/// How a window op combines its Kh x Kw inputs into the output.
enum class WindowKind {
  MultiplyAdd, // depthwise convolution: out += x * tap
  Max,         // max pooling: out = max(out, x), NaN-propagating
};

/// Emits output row `oh` of channel (n, c) of a depthwise convolution (or,
/// with WindowKind::Max and no taps, of a max pooling) into `out` (indexed
/// [outN, outC, oh, ow]) and returns the updated tensor. The
/// row is cut into vectors of `vl` columns (the last one overlapping its
/// predecessor when vl does not divide Ow), accumulated in registers over
/// the Kh x Kw taps, in groups of at most `group` vectors. With `checkRows`,
/// input rows outside [0, H) (the padding) contribute 0; without, every
/// input row of the window must lie inside x.
static Value emitDepthwiseRow(OpBuilder &b, Location loc, Value x, Value out,
                              Value n, Value c, Value outN, Value outC,
                              Value oh, ArrayRef<Value> taps,
                              const DepthwiseShape &shape, int64_t group,
                              bool checkRows, WindowKind kind) {
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
  Type f32 = cast<ShapedType>(out.getType()).getElementType();
  Value zero = arith::ConstantOp::create(b, loc, f32, b.getZeroAttr(f32));
  auto vecType = VectorType::get({len}, f32);
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

/// Emits a window op (a depthwise convolution or a max pooling) over the
/// [N, C, Oh, Ow] tensor `init` as an scf.forall over its (n, c) planes
/// (OpenMP later) and scf.for loops over output rows, each row emitted by
/// emitDepthwiseRow; rows outside [first, last) check that their input rows
/// lie inside x. `makeTaps` builds the broadcast taps of channel c (none for
/// pooling) at the start of each plane. Returns the forall's result.
static Value emitWindowPlanes(
    RewriterBase &rewriter, Location loc, Value x, Value init,
    const DepthwiseShape &shape, int64_t group, int64_t first, int64_t last,
    WindowKind kind,
    function_ref<SmallVector<Value>(OpBuilder &, Location, Value)> makeTaps) {
  auto initType = cast<RankedTensorType>(init.getType());
  Type f32 = initType.getElementType();
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
  auto planeType = RankedTensorType::get({1, 1, shape.oh, shape.ow}, f32);
  SmallVector<OpFoldResult> offsets = {n, c, rewriter.getIndexAttr(0),
                                       rewriter.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {
      rewriter.getIndexAttr(1), rewriter.getIndexAttr(1),
      rewriter.getIndexAttr(shape.oh), rewriter.getIndexAttr(shape.ow)};
  SmallVector<OpFoldResult> unit(4, rewriter.getIndexAttr(1));
  Value plane = tensor::ExtractSliceOp::create(rewriter, loc, planeType, shared,
                                               offsets, sizes, unit);
  SmallVector<Value> taps = makeTaps(rewriter, loc, c);
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
          Value result = emitDepthwiseRow(b, l, x, args[0], n, c, c0, c0, oh,
                                          taps, shape, group, checkRows, kind);
          scf::YieldOp::create(b, l, result);
        });
    plane = rows.getResult(0);
  };
  rowLoop(0, first, /*checkRows=*/true);
  rowLoop(first, last, /*checkRows=*/false);
  rowLoop(last, shape.oh, /*checkRows=*/true);
  rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(rewriter, loc, plane, shared, offsets,
                                        sizes, unit);
  return forall.getResult(0);
}

/// The DepthwiseShape of a window op with a `window` of Kh x Kw over the
/// [N, C, H, W] `source` (read through zero padding of padTop rows and
/// padLeft columns before it) into `init` [N, C, Oh, Ow], or nothing when
/// the vector code does not handle it: column strides other than 1 and 2,
/// windows over 25 taps (they share the register file), empty outputs.
static std::optional<DepthwiseShape>
getWindowShape(ArrayRef<int64_t> window, RankedTensorType source,
               RankedTensorType init, ArrayRef<int64_t> strides,
               ArrayRef<int64_t> dilations, int64_t padTop, int64_t padLeft,
               const CPUTarget &target) {
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
      shape.kh * shape.kw > 25 || shape.ow == 0 || shape.oh == 0)
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
static LogicalResult
vectorizeDepthwiseConv(RewriterBase &rewriter,
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
  std::optional<DepthwiseShape> window =
      getWindowShape(wType.getShape().drop_front(), sourceType, initType,
                     strides, dilations, source.padTop, source.padLeft, target);
  if (!window)
    return failure();
  const DepthwiseShape &shape = *window;
  // Taps, accumulators and the input vectors share the register file.
  int64_t registers = target.getNumVectorRegisters();
  int64_t group = std::max<int64_t>(1, registers - shape.kh * shape.kw - 3);
  group = std::min<int64_t>(group, 8);
  // Output rows [first, last) read only input rows inside x: oh * sh - pt
  // >= 0 and oh * sh + (kh - 1) * dh - pt < H.
  int64_t first = std::clamp<int64_t>(
      llvm::divideCeilSigned(shape.pt, shape.sh), 0, shape.oh);
  int64_t last = std::clamp<int64_t>(
      llvm::divideCeilSigned(
          shape.height + shape.pt - (shape.kh - 1) * shape.dh, shape.sh),
      first, shape.oh);

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
  Value result =
      emitWindowPlanes(rewriter, conv.getLoc(), x, init, shape, group, first,
                       last, WindowKind::MultiplyAdd, makeTaps);
  rewriter.replaceOp(conv, result);
  return success();
}

/// Rewrites a static f32 `linalg.pooling_nchw_max` with column strides of 1
/// or 2 and at most 5x5 windows into vector code like a depthwise
/// convolution's (see emitWindowPlanes): per output row, `arith.maximumf`
/// of the window's input vectors into the row's vectors. Its input is read
/// as is (the -inf padding ONNX MaxPool adds is a separate tensor.pad).
static LogicalResult vectorizeMaxPool(RewriterBase &rewriter,
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
  std::optional<DepthwiseShape> shape =
      getWindowShape(windowType.getShape(), xType, initType, strides, dilations,
                     /*padTop=*/0, /*padLeft=*/0, target);
  if (!shape)
    return failure();
  int64_t group = std::clamp<int64_t>(target.getNumVectorRegisters() - 3, 1, 8);
  rewriter.setInsertionPoint(pool);
  Value result = emitWindowPlanes(
      rewriter, pool.getLoc(), x, init, *shape, group, 0, shape->oh,
      WindowKind::Max,
      [](OpBuilder &, Location, Value) { return SmallVector<Value>(); });
  rewriter.replaceOp(pool, result);
  return success();
}

namespace {
/// Rewrites convolutions into im2col + matmul and blocks every f32
/// contraction for caches and registers (see the file comment).
struct TileAndVectorizeContractionsPass
    : public mlprog::impl::TileAndVectorizeContractionsPassBase<
          TileAndVectorizeContractionsPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    // One-shot bufferization later meets the vector transfers on tensors.
    vector::registerBufferizableOpInterfaceExternalModels(registry);
    // Hoisting matches transfer_read/transfer_write pairs as subsets.
    vector::registerSubsetOpInterfaceExternalModels(registry);
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    IRRewriter rewriter(&getContext());
    CPUTarget target;
    target.features =
        targetFeatures.empty() ? getHostFeatures() : targetFeatures.getValue();

    // Convolutions with a non-trivial window become a column buffer plus a
    // contraction; the contraction is then blocked like a matmul.
    SmallVector<linalg::Conv2DNchwFchwOp> convs;
    func.walk([&](linalg::Conv2DNchwFchwOp conv) {
      if (conv.hasPureTensorSemantics() && !conv.hasDynamicShape() &&
          getElementTypeOrSelf(conv.getResult(0).getType()).isF32())
        convs.push_back(conv);
    });
    // A convolution that accumulates into a shared bias broadcast gets one
    // of its own first: its blocked form writes the init in place.
    for (linalg::Conv2DNchwFchwOp conv : convs) {
      useOwnInit(rewriter, conv);
      (void)rewriteConvAsMatmul(rewriter, conv, target);
    }

    SmallVector<linalg::DepthwiseConv2DNchwChwOp> depthwise;
    func.walk([&](linalg::DepthwiseConv2DNchwChwOp conv) {
      if (conv.hasPureTensorSemantics())
        depthwise.push_back(conv);
    });
    for (linalg::DepthwiseConv2DNchwChwOp conv : depthwise) {
      useOwnInit(rewriter, conv);
      if (failed(vectorizeDepthwiseConv(rewriter, conv, target)))
        (void)interchangeDepthwiseConv(rewriter, conv);
    }

    SmallVector<linalg::PoolingNchwMaxOp> pools;
    func.walk([&](linalg::PoolingNchwMaxOp pool) { pools.push_back(pool); });
    for (linalg::PoolingNchwMaxOp pool : pools)
      (void)vectorizeMaxPool(rewriter, pool, target);

    // Contraction generics with unit loops (the im2col contraction of a
    // batch-1 convolution) lose them and become named matmuls, which
    // vectorize to plain outer-product contractions.
    SmallVector<linalg::GenericOp> generics;
    func.walk([&](linalg::GenericOp op) {
      if (planContraction(op) &&
          llvm::is_contained(op.getStaticLoopRanges(), 1))
        generics.push_back(op);
    });
    for (linalg::GenericOp generic : generics)
      simplifyContraction(rewriter, generic);

    SmallVector<linalg::LinalgOp> contractions;
    func.walk([&](linalg::LinalgOp op) {
      if (planContraction(op))
        contractions.push_back(op);
    });
    // Contractions in a forall already (the blocks of a blocked column
    // tensor) run on its threads.
    for (linalg::LinalgOp op : contractions) {
      op = padForRegisterBlocks(rewriter, op, target);
      useOwnInit(rewriter, op);
      Value init = op.getDpsInitOperand(0)->get();
      SmallVector<linalg::LinalgOp> parts =
          splitForRegisterBlocks(rewriter, op, target);
      splitInitProducer(rewriter, parts, init);
      for (linalg::LinalgOp part : parts)
        tileAndVectorize(rewriter, part, target,
                         parallel && !part->getParentOfType<scf::ForallOp>());
    }

    // Fold the slices into the transfers and drop the unit dimensions of
    // batch and K, leaving <mr x nr> contractions.
    RewritePatternSet patterns(&getContext());
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
    vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
    vector::populateVectorReductionToContractPatterns(patterns);
    vector::populateSinkVectorOpsPatterns(patterns);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns,
                                                        &getContext());
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns,
                                                         &getContext());
    scf::ForOp::getCanonicalizationPatterns(patterns, &getContext());
    tensor::ExtractSliceOp::getCanonicalizationPatterns(patterns,
                                                        &getContext());
    affine::AffineMinOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();

    // The accumulator of a register block is read and written at the same
    // place in every K iteration: carry it in the loop as a vector instead
    // (innermost loops first, so it moves out as far as it can).
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      (void)hoistLoopInvariantSubsets(rewriter, loop);
  }
};

/// Moves loop-invariant vector transfers (the accumulator of a register
/// block) out of the loops around them, on buffers.
struct HoistVectorTransfersPass
    : public mlprog::impl::HoistVectorTransfersPassBase<
          HoistVectorTransfersPass> {
  using Base::Base;
  void runOnOperation() override {
    linalg::hoistRedundantVectorTransfers(getOperation(),
                                          /*verifyNonZeroTrip=*/true);
  }
};
} // namespace

namespace {
/// Inlines `memref.alloca_scope`s that hold no `memref.alloca` (the scopes
/// convert-scf-to-openmp puts around loop bodies): the scope op accepts one
/// block only, which breaks once the loops inside become control flow.
struct InlineAllocaScopesPass
    : public mlprog::impl::InlineAllocaScopesPassBase<InlineAllocaScopesPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<memref::AllocaScopeOp> scopes;
    getOperation()->walk([&](memref::AllocaScopeOp scope) {
      bool hasAlloca =
          scope.getBodyRegion()
              .walk([](memref::AllocaOp) { return WalkResult::interrupt(); })
              .wasInterrupted();
      if (!hasAlloca && scope.getNumResults() == 0)
        scopes.push_back(scope);
    });
    IRRewriter rewriter(&getContext());
    for (memref::AllocaScopeOp scope : scopes) {
      Block &body = scope.getBodyRegion().front();
      Operation *terminator = body.getTerminator();
      rewriter.eraseOp(terminator);
      rewriter.inlineBlockBefore(&body, scope);
      rewriter.eraseOp(scope);
    }
  }
};
} // namespace
