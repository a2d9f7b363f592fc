//===- RegisterBlocking.cpp - Cache and register blocks of contractions ---===//
//
// The transforms of the contraction strategy (see
// TileAndVectorizeContractions.cpp): contractions padded or split along N
// into parts of whole register blocks, tiled into an scf.forall over Mc x Nc
// output tiles, K blocks and mr x nr x 1 register blocks, and the register
// blocks vectorized to vector.contract.
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::cpu;

FailureOr<linalg::LinalgOp>
cpu::tileLinalgOp(RewriterBase &rewriter, linalg::LinalgOp op,
                  ArrayRef<int64_t> sizes,
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

FailureOr<scf::SCFTileAndFuseResult>
cpu::tileAndFuseProducers(RewriterBase &rewriter, linalg::LinalgOp op,
                          ArrayRef<int64_t> sizes,
                          scf::SCFTilingOptions::LoopType loopType,
                          function_ref<bool(Operation *)> fuse) {
  scf::SCFTileAndFuseOptions options;
  scf::SCFTilingOptions tiling;
  tiling.setTileSizes(getAsIndexOpFoldResult(op.getContext(), sizes));
  tiling.setLoopType(loopType);
  options.setTilingOptions(tiling);
  options.setFusionControlFn(
      [fuse](tensor::ExtractSliceOp, OpResult producer, bool)
          -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (fuse(producer.getOwner()))
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
  if (op->use_empty())
    rewriter.eraseOp(op);
  return result;
}

namespace {
/// A contraction tiled with the op that initializes its output and its
/// elementwise epilogue.
struct TiledWithInit {
  linalg::LinalgOp contraction;
  /// The tile of the linalg.fill or bias broadcast, or null when the output
  /// had neither.
  linalg::LinalgOp init;
  /// The tile of the epilogue, or null when there was none.
  linalg::LinalgOp epilogue;
};
} // namespace

/// Tiles the output of `op` into loops of `loopType` (an scf.forall for the
/// cache tiles, scf.for for the register blocks), fusing the linalg.fill or
/// bias broadcast (see useOwnInit) that initializes it, and returns the
/// tiled contraction and init. With an `epilogue` (see prepareEpilogue), the
/// epilogue is tiled instead, with the same tiles of the output, and the
/// contraction and its init are fused into its loops.
static FailureOr<TiledWithInit>
tileWithInit(RewriterBase &rewriter, linalg::LinalgOp op,
             linalg::LinalgOp epilogue, ArrayRef<int64_t> sizes,
             scf::SCFTilingOptions::LoopType loopType) {
  linalg::LinalgOp root = op;
  SmallVector<int64_t> rootSizes = llvm::to_vector(sizes);
  if (epilogue) {
    // The epilogue's loops are the output's dimensions (identity maps).
    AffineMap output = op.getIndexingMapMatchingResult(op->getResult(0));
    if (!output.isProjectedPermutation() ||
        output.getNumResults() != epilogue.getNumLoops())
      return failure();
    root = epilogue;
    rootSizes.clear();
    for (unsigned i = 0; i < output.getNumResults(); ++i)
      rootSizes.push_back(sizes[output.getDimPosition(i)]);
  }
  Operation *contraction = op.getOperation();
  FailureOr<scf::SCFTileAndFuseResult> result = tileAndFuseProducers(
      rewriter, root, rootSizes, loopType, [&](Operation *producer) {
        auto generic = dyn_cast<linalg::GenericOp>(producer);
        return producer == contraction || isa<linalg::FillOp>(producer) ||
               (generic && getBroadcastDim(generic));
      });
  if (failed(result))
    return failure();
  TiledWithInit tiled{};
  for (Operation *candidate : result->tiledAndFusedOps) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(candidate);
    if (!linalgOp)
      continue;
    if (epilogue && candidate == result->tiledAndFusedOps.front())
      tiled.epilogue = linalgOp;
    else
      (linalgOp.getNumReductionLoops() > 0 ? tiled.contraction : tiled.init) =
          linalgOp;
  }
  if (!tiled.contraction || (epilogue && !tiled.epilogue))
    return failure();
  return tiled;
}

/// Applies the blocking strategy to one contraction; leaves `op` alone (to
/// the scalar loop lowering) when a step does not apply.
void cpu::tileAndVectorize(RewriterBase &rewriter, linalg::LinalgOp op,
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

  // Panels for the inputs whose rows alias in L1 (see
  // choosePackedOperands).
  SmallVector<PackedOperand> packed =
      choosePackedOperands(op, *plan, config, target);
  rewriter.setInsertionPoint(op);
  for (PackedOperand &operand : packed)
    pack(rewriter, op.getLoc(), operand, parallel);

  // An elementwise epilogue is computed in the register blocks when each
  // of them holds its final sums (all of K in one block).
  bool allK = config.kc >= plan->ranges[plan->k];
  linalg::LinalgOp epilogue;
  if (allK)
    epilogue = prepareEpilogue(rewriter, op);

  linalg::LinalgOp current = op;
  if (parallel) {
    // Batch and outer M/N dimensions one at a time, K untiled.
    FailureOr<TiledWithInit> tiled = tileWithInit(
        rewriter, current, epilogue, sizesFor(config.mc, config.nc, 0, 1),
        scf::SCFTilingOptions::LoopType::ForallOp);
    if (failed(tiled))
      return;
    current = tiled->contraction;
    epilogue = tiled->epilogue;
  }
  SmallVector<int64_t> registerSizes = sizesFor(config.mr, config.nr, 1, 1);
  linalg::LinalgOp init;
  if (!allK) {
    SmallVector<int64_t> sizes(numLoops, 0);
    sizes[plan->k] = config.kc;
    FailureOr<linalg::LinalgOp> tiled = tileLinalgOp(
        rewriter, current, sizes, scf::SCFTilingOptions::LoopType::ForOp);
    if (failed(tiled))
      return;
    current = *tiled;
  } else {
    // All of K in one block: each register block starts from its own tile
    // of the init, which vectorizes to a value in registers, instead of C
    // being filled in memory first (a memset) and read back.
    FailureOr<TiledWithInit> tiled = tileWithInit(
        rewriter, current, epilogue, sizesFor(config.mr, config.nr, 0, 1),
        scf::SCFTilingOptions::LoopType::ForOp);
    if (failed(tiled))
      return;
    current = tiled->contraction;
    init = tiled->init;
    epilogue = tiled->epilogue;
    registerSizes = sizesFor(0, 0, 1, 0);
  }
  FailureOr<linalg::LinalgOp> tiled = tileLinalgOp(
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
  if (init)
    vectorizeIfStatic(rewriter, init);
  if (epilogue)
    vectorizeIfStatic(rewriter, epilogue);
}

/// Whether `slice` takes all of its source.
static bool isWholeSlice(tensor::ExtractSliceOp slice) {
  return slice.getSourceType() == slice.getResultType() &&
         areAllConstantIntValue(slice.getMixedOffsets(), 0) &&
         areAllConstantIntValue(slice.getMixedStrides(), 1);
}

/// Makes the inputs of `part`, a part made by linalg::splitOp, read the
/// tensors themselves where the split took all of them (B of an M split, A
/// of an N split), as the whole contraction did: a weight read whole gets
/// the same panels as its other readers (--mlprog-fold-constant-panels
/// makes one global per weight and block).
static void readWholeInputs(RewriterBase &rewriter, linalg::LinalgOp part) {
  for (OpOperand *input : part.getDpsInputOperands()) {
    auto slice = input->get().getDefiningOp<tensor::ExtractSliceOp>();
    if (slice && isWholeSlice(slice))
      rewriter.modifyOpInPlace(part, [&] { input->set(slice.getSource()); });
  }
}

/// Splits `op` along its innermost N dimension into parts whose N extents are
/// multiples of the register block widths: n = 2w * a + w * b + r with
/// w the vector width (392 = 384 + 8 with w = 16), so that the bulk of the
/// contraction gets full-width register blocks and only a narrow remainder
/// runs with narrow vectors or scalar loops. Returns the parts.
SmallVector<linalg::LinalgOp>
cpu::splitForRegisterBlocks(RewriterBase &rewriter, linalg::LinalgOp op,
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

  int64_t rows = getMaxRegisterRows(target);
  SmallVector<linalg::LinalgOp> rowParts;
  for (linalg::LinalgOp part : parts) {
    std::optional<ContractionPlan> plan = planContraction(part);
    int64_t m = plan ? plan->ranges[plan->m] : 0;
    if (m <= rows || hasRegisterRowDivisor(m, target)) {
      rowParts.push_back(part);
      continue;
    }
    rewriter.setInsertionPoint(part);
    auto [head, tail] =
        linalg::splitOp(rewriter, cast<TilingInterface>(part.getOperation()),
                        plan->m, rewriter.getIndexAttr(m - m % rows));
    if (!head || !tail) {
      rowParts.push_back(
          cast<linalg::LinalgOp>((head ? head : tail).getOperation()));
      continue;
    }
    rowParts.push_back(cast<linalg::LinalgOp>(head.getOperation()));
    rowParts.push_back(cast<linalg::LinalgOp>(tail.getOperation()));
  }
  for (linalg::LinalgOp part : rowParts)
    readWholeInputs(rewriter, part);
  return rowParts;
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
/// Rows from which a contraction with a weight B pads them to a multiple
/// of 8 register blocks (see padForRegisterBlocks): at most 12% more rows.
static constexpr int64_t kManyRows = 512;

linalg::LinalgOp cpu::padForRegisterBlocks(RewriterBase &rewriter,
                                           linalg::LinalgOp op,
                                           const CPUTarget &target) {
  std::optional<ContractionPlan> plan = planContraction(op);
  int64_t width = target.getVectorWidthF32();
  if (!plan)
    return op;
  SmallVector<int64_t> dims, multiples;
  int64_t n = plan->ranges[plan->n];
  if (n % width != 0 && n <= kMaxPaddedN && n >= width) {
    dims.push_back(plan->n);
    multiples.push_back(2 * width);
  }
  // Rows: a tail of m % rows rows would be a contraction of its own that
  // streams all of B again, from memory when B is a weight (a ViT's 197
  // tokens: 192 + 5 rows read every weight twice). Zero rows cost a copy
  // of A, so only where A is not a weight itself. Many rows, which take
  // several cache blocks (chooseTiles), get a multiple of 8 register
  // blocks, so that the blocks can be large: a ViT's 8 x 197 = 1576 rows
  // had no divisor between 8 and 1576 that is a multiple of 8, and every
  // weight was read once per 8 rows.
  int64_t m = plan->ranges[plan->m];
  int64_t rows = getMaxRegisterRows(target);
  int64_t multiple = m >= kManyRows ? 8 * rows : rows;
  if (plan->weightB && m > rows && m % multiple != 0 &&
      (m >= kManyRows || !hasRegisterRowDivisor(m, target)) &&
      !isConstantGlobal(op.getDpsInputOperand(1 - plan->b)->get())) {
    dims.push_back(plan->m);
    multiples.push_back(multiple);
  }
  if (dims.empty())
    return op;
  Type elementType = getElementTypeOrSelf(op->getResult(0).getType());
  Attribute zero = rewriter.getZeroAttr(elementType);
  linalg::LinalgPaddingOptions options;
  options.setPaddingDimensions(dims)
      .setPadToMultipleOf(multiples)
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

/// The number of batch loops of the contraction `generic` (0 when it is
/// none).
static size_t getNumBatchLoops(linalg::GenericOp generic) {
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(generic);
  return succeeded(dims) ? dims->batch.size() : 0;
}

/// Collapses the batch loops of the contraction `generic` into one when
/// there are several, adjacent, and contiguous in every operand (an ONNX
/// MatMul of [?, 3, 2, m, k] and [?, 3, 2, k, n] after
/// --mlprog-tile-dynamic-contractions tiled its dynamic batch by 1 and the
/// unit loop was dropped: batch 3 x 2). Returns the collapsed generic, or
/// `generic` unchanged.
static linalg::GenericOp collapseBatchLoops(RewriterBase &rewriter,
                                            linalg::GenericOp generic) {
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(generic);
  if (failed(dims) || dims->batch.size() < 2)
    return generic;
  SmallVector<unsigned> batch = llvm::to_vector(dims->batch);
  llvm::sort(batch);
  ReassociationIndices group;
  for (unsigned loop : batch) {
    if (!group.empty() && int64_t(loop) != group.back() + 1)
      return generic;
    group.push_back(loop);
  }
  SmallVector<ReassociationIndices> groups = {group};
  if (!linalg::areDimSequencesPreserved(generic.getIndexingMapsArray(), groups))
    return generic;
  rewriter.setInsertionPoint(generic);
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(generic, groups, rewriter);
  if (failed(collapsed))
    return generic;
  auto result =
      dyn_cast<linalg::GenericOp>(collapsed->collapsedOp.getOperation());
  if (!result)
    return generic;
  rewriter.replaceOp(generic, collapsed->results);
  return result;
}

void cpu::simplifyContraction(RewriterBase &rewriter,
                              linalg::GenericOp generic) {
  linalg::ControlDropUnitDims control;
  rewriter.setInsertionPoint(generic);
  FailureOr<linalg::DropUnitDimsResult> dropped =
      linalg::dropUnitDims(rewriter, generic, control);
  if (failed(dropped))
    return;
  rewriter.replaceOp(generic, dropped->replacements);
  auto newGeneric =
      dyn_cast<linalg::GenericOp>(dropped->resultOp.getOperation());
  if (!newGeneric)
    return;
  // Several batch loops are one batch of a batch_matmul, whose register
  // blocks are outer products; as a generic, each register block would be
  // an elementwise 8x32x1 contraction of broadcasts, about 20x slower.
  newGeneric = collapseBatchLoops(rewriter, newGeneric);
  // MLIR 22's linalg::specializeGenericOp makes a linalg.batch_matmul of a
  // contraction with several batch loops too, which holds one: the op is
  // invalid ("'linalg.batch_matmul' op expected operand #0 rank (4) to
  // match the result rank of indexing_map (3)"), and tiling it reads past
  // its 3-D maps (a segmentation fault). Any it would match collapse above;
  // should one not, it stays a generic.
  if (getNumBatchLoops(newGeneric) > 1)
    return;
  rewriter.setInsertionPoint(newGeneric);
  (void)linalg::specializeGenericOp(rewriter, newGeneric);
}

LogicalResult cpu::collapseBatchIntoRows(RewriterBase &rewriter,
                                         linalg::GenericOp generic) {
  // The batch is shared by A and C only, so linalg::inferContractionDims
  // counts its dimensions as M dimensions.
  std::optional<ContractionPlan> plan = planContraction(generic);
  if (!plan || !plan->dims.batch.empty() || plan->dims.m.size() < 2 ||
      plan->dims.n.size() != 1 || plan->dims.k.size() != 1)
    return failure();
  // Loop dimensions as the results of a map, or nothing when a result is
  // not a plain dimension.
  auto positions = [](AffineMap map) -> std::optional<SmallVector<unsigned>> {
    SmallVector<unsigned> dims;
    for (AffineExpr expr : map.getResults()) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim)
        return std::nullopt;
      dims.push_back(dim.getPosition());
    }
    return dims;
  };
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  int a = 1 - plan->b;
  auto aDims = positions(maps[a]);
  auto bDims = positions(maps[plan->b]);
  auto cDims = positions(maps[2]);
  unsigned n = plan->n, k = plan->k;
  // B [k, n]; A [rows..., k] and C [rows..., n] with the same rows.
  if (!aDims || !bDims || !cDims || *bDims != SmallVector<unsigned>{k, n} ||
      aDims->size() != plan->dims.m.size() + 1 || aDims->back() != k ||
      cDims->back() != n ||
      ArrayRef(*aDims).drop_back() != ArrayRef(*cDims).drop_back())
    return failure();

  Location loc = generic.getLoc();
  int64_t rank = aDims->size();
  SmallVector<ReassociationIndices> groups(1);
  for (int64_t i = 0; i + 1 < rank; ++i)
    groups[0].push_back(i);
  groups.push_back({rank - 1});
  rewriter.setInsertionPoint(generic);
  Value lhs = tensor::CollapseShapeOp::create(
      rewriter, loc, generic.getDpsInputOperand(a)->get(), groups);
  Value init = generic.getDpsInitOperand(0)->get();
  auto initType = cast<RankedTensorType>(init.getType());
  Value acc = tensor::CollapseShapeOp::create(rewriter, loc, init, groups);
  auto product = linalg::MatmulOp::create(
      rewriter, loc, TypeRange{acc.getType()},
      ValueRange{lhs, generic.getDpsInputOperand(plan->b)->get()},
      ValueRange{acc});
  rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
      generic, initType, product.getResult(0), groups);
  return success();
}