//===- VectorizeReductions.cpp - Vector code for row reductions -----------===//
//
// --mlprog-vectorize-reductions: the -O2 code generation of
// --mlprog-lower-to-cpu for reductions along the innermost dimension (the
// max and sum of a softmax, the mean and variance of a layer norm), which
// the loop lowering makes scalar loops with one loop-carried dependence.
// Each row is reduced into a few vectors of partial results (one per lane),
// which are combined once at the end of the row.
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"
#include "mlprog/Pipelines/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlprog {
#define GEN_PASS_DEF_VECTORIZEREDUCTIONSPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;
using namespace mlprog;
using namespace mlprog::cpu;

/// Rows shorter than this stay scalar loops.
static constexpr int64_t kMinRowElements = 8;

/// The loop ranges of a row reduction this pass vectorizes.
enum class RowRanges {
  /// All static, rows of at least kMinRowElements.
  Static,
  /// A dynamic innermost range (see vectorizeDynamicRow).
  DynamicRow,
  /// A static innermost range of at least kMinRowElements and dynamic
  /// outer ones (dot products over a head dimension for each of an unknown
  /// number of keys), tiled by 1 into static rows.
  DynamicOuter,
};

/// Whether `op` is a row reduction this pass vectorizes (see the .td
/// description): every loop parallel but the innermost, which reduces; the
/// output indexed by the parallel loops in order; inputs whose maps are
/// projected permutations that end with the innermost loop or do not use
/// it; an arith/math body whose result combines the output with one op that
/// has a neutral element (addf, maximumf, muli, ...); loop ranges as
/// `kind` says.
static bool isVectorizableRowReduction(linalg::LinalgOp op,
                                       RowRanges kind = RowRanges::Static) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumLoops() == 0 || op.getNumReductionLoops() != 1)
    return false;
  unsigned inner = op.getNumLoops() - 1;
  if (!linalg::isReductionIterator(op.getIteratorTypesArray()[inner]))
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  // A static extent of 0 makes an empty op, on which upstream tiling
  // crashes.
  bool dynamicOuter =
      llvm::any_of(ArrayRef(ranges).drop_back(), ShapedType::isDynamic);
  switch (kind) {
  case RowRanges::Static:
    if (dynamicOuter || ShapedType::isDynamic(ranges[inner]) ||
        ranges[inner] < kMinRowElements)
      return false;
    break;
  case RowRanges::DynamicRow:
    if (!ShapedType::isDynamic(ranges[inner]) || llvm::is_contained(ranges, 0))
      return false;
    break;
  case RowRanges::DynamicOuter:
    if (!dynamicOuter || ShapedType::isDynamic(ranges[inner]) ||
        ranges[inner] < kMinRowElements || llvm::is_contained(ranges, 0))
      return false;
    break;
  }
  for (OpOperand &operand : op->getOpOperands())
    if (!isVectorElement(operand.get().getType()))
      return false;
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap output = maps.back();
  if (output.getNumResults() != inner)
    return false;
  for (unsigned i = 0; i < inner; ++i)
    if (output.getResult(i) != getAffineDimExpr(i, ctx))
      return false;
  for (AffineMap map : ArrayRef(maps).drop_back()) {
    if (!map.isProjectedPermutation())
      return false;
    if (map.isFunctionOfDim(inner) &&
        map.getResults().back() != getAffineDimExpr(inner, ctx))
      return false;
  }
  for (Operation &bodyOp : op.getBlock()->without_terminator()) {
    if (!isa_and_nonnull<arith::ArithDialect, math::MathDialect>(
            bodyOp.getDialect()) ||
        bodyOp.getNumRegions() != 0)
      return false;
    for (Type type : bodyOp.getResultTypes())
      if (!type.isIntOrFloat())
        return false;
  }
  SmallVector<Operation *> combiners;
  if (!matchReduction(op.getRegionOutputArgs(), 0, combiners) ||
      combiners.size() != 1)
    return false;
  return arith::getNeutralElement(combiners.front()).has_value();
}

/// Tiles one part of a collapsed row reduction (innermost extent a multiple
/// of `chunk`, or at most one chunk) into loops over rows (an scf.forall
/// when `parallel` and large) and, within a row, a loop over chunks that
/// accumulates into a chunk of partial results, then vectorizes the chunk
/// and the final combination of the partial results.
static void tileAndVectorizePart(RewriterBase &rewriter, linalg::LinalgOp op,
                                 int64_t chunk, bool parallel) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned inner = ranges.size() - 1;
  int64_t n = ranges[inner];
  int64_t rows = 1;
  for (int64_t range : ArrayRef(ranges).drop_back())
    rows *= range;
  linalg::LinalgOp current = op;
  if (inner > 0) {
    SmallVector<int64_t> sizes(ranges.size(), 1);
    sizes[inner] = 0;
    bool forall = parallel && rows > 1 && rows * n >= kMinParallelElements;
    FailureOr<linalg::LinalgOp> tiled =
        tileLinalgOp(rewriter, current, sizes,
                     forall ? scf::SCFTilingOptions::LoopType::ForallOp
                            : scf::SCFTilingOptions::LoopType::ForOp);
    if (failed(tiled))
      return;
    current = *tiled;
  }
  if (n <= chunk) {
    vectorizeIfStatic(rewriter, current);
    return;
  }
  scf::SCFTilingOptions options;
  SmallVector<int64_t> sizes(ranges.size(), 0);
  sizes[inner] = chunk;
  options.setTileSizes(getAsIndexOpFoldResult(op.getContext(), sizes));
  options.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
  options.setReductionTilingStrategy(
      ReductionTilingStrategy::PartialReductionOuterReduction);
  options.setReductionDims({inner});
  rewriter.setInsertionPoint(current);
  FailureOr<scf::SCFTilingResult> result = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(current.getOperation()), options);
  if (failed(result))
    return;
  rewriter.replaceOp(current, result->replacements);
  for (Value init : result->initialValues)
    if (Operation *fill = init.getDefiningOp())
      vectorizeIfStatic(rewriter, fill);
  for (Operation *tiled : result->tiledOps)
    vectorizeIfStatic(rewriter, tiled);
  for (Operation *merge : result->mergeOps)
    vectorizeIfStatic(rewriter, merge);
}

/// Vectorizes one row reduction (see VectorizeReductionsPass).
static void vectorizeRowReduction(RewriterBase &rewriter, linalg::LinalgOp op,
                                  int64_t vectorBits, bool parallel) {
  forEachRowPart(rewriter, op, vectorBits,
                 [&](linalg::LinalgOp part, int64_t chunk) {
                   tileAndVectorizePart(rewriter, part, chunk, parallel);
                 });
}

/// Collapses the trailing reduction loops of each static reduction generic of
/// `func` whose other loops are parallel into one loop where every operand
/// reads them contiguously: a global average pool's sum over [H, W] (a
/// squeeze-and-excitation block of efficientnet or mobilenet_v3) becomes a
/// sum over H * W, a row reduction, where it was a scalar loop nest (13% of
/// efficientnet_b0's run time).
static void collapseTrailingReductions(RewriterBase &rewriter,
                                       func::FuncOp func) {
  SmallVector<linalg::GenericOp> candidates;
  func.walk([&](linalg::GenericOp op) {
    // Maps with constant results (a [C, 1, 1] scale read at (c, 0, 0)) are
    // left alone: upstream's collapsing turns their constants into loop
    // dimensions.
    if (op->getParentOp() != func.getOperation() ||
        !op.hasPureTensorSemantics() || op.hasDynamicShape() ||
        op.getNumDpsInits() != 1 ||
        !llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
          return map.isProjectedPermutation();
        }))
      return;
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    int64_t numLoops = iterators.size();
    int64_t firstReduction = numLoops;
    while (firstReduction > 0 &&
           iterators[firstReduction - 1] == utils::IteratorType::reduction)
      --firstReduction;
    if (numLoops - firstReduction < 2 ||
        llvm::any_of(ArrayRef(iterators).take_front(firstReduction),
                     [](utils::IteratorType t) {
                       return t != utils::IteratorType::parallel;
                     }))
      return;
    candidates.push_back(op);
  });
  for (linalg::GenericOp op : candidates) {
    int64_t numLoops = op.getNumLoops();
    int64_t firstReduction = numLoops - op.getNumReductionLoops();
    SmallVector<ReassociationIndices> groups;
    for (int64_t i = 0; i < firstReduction; ++i)
      groups.push_back({i});
    ReassociationIndices trailing;
    for (int64_t i = firstReduction; i < numLoops; ++i)
      trailing.push_back(i);
    if (!linalg::areDimSequencesPreserved(op.getIndexingMapsArray(),
                                          {trailing}))
      continue;
    groups.push_back(trailing);
    rewriter.setInsertionPoint(op);
    FailureOr<linalg::CollapseResult> collapsed =
        linalg::collapseOpIterationDims(op, groups, rewriter);
    if (succeeded(collapsed))
      rewriter.replaceOp(op, collapsed->results);
  }
}

namespace {
/// Vectorizes row reductions on tensors (see the .td description).
struct VectorizeReductionsPass
    : public mlprog::impl::VectorizeReductionsPassBase<
          VectorizeReductionsPass> {
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
    collapseTrailingReductions(rewriter, func);
    SmallVector<linalg::LinalgOp> ops, dynamicRows, dynamicOuter;
    // The function's ops, and those of the branches of its scf.if ops
    // (tile-dynamic-contractions computes a decoding step's Q K^T as dot
    // products in one).
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op == func.getOperation())
        return WalkResult::advance();
      Operation *parent = op->getParentOp();
      if (parent != func.getOperation() && !isa<scf::IfOp>(parent))
        return WalkResult::skip();
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
        if (isVectorizableRowReduction(linalgOp))
          ops.push_back(linalgOp);
        else if (isVectorizableRowReduction(linalgOp, RowRanges::DynamicRow))
          dynamicRows.push_back(linalgOp);
        else if (isVectorizableRowReduction(linalgOp, RowRanges::DynamicOuter))
          dynamicOuter.push_back(linalgOp);
      }
      return WalkResult::advance();
    });
    for (linalg::LinalgOp op : ops)
      vectorizeRowReduction(rewriter, op, vectorBits, parallel);
    for (linalg::LinalgOp op : dynamicRows)
      vectorizeDynamicRow(rewriter, op, vectorBits, /*reduction=*/true);
    // Dynamic outer loops become scf.for loops of step 1 around a static
    // tile, vectorized like any static row reduction. The tiles run one
    // after another: a decoding step has one query row.
    for (linalg::LinalgOp op : dynamicOuter) {
      SmallVector<int64_t> sizes = llvm::map_to_vector(
          op.getStaticLoopRanges(), [](int64_t range) -> int64_t {
            return ShapedType::isDynamic(range) ? 1 : 0;
          });
      FailureOr<linalg::LinalgOp> tiled = tileLinalgOp(
          rewriter, op, sizes, scf::SCFTilingOptions::LoopType::ForOp);
      if (succeeded(tiled) && isVectorizableRowReduction(*tiled))
        vectorizeRowReduction(rewriter, *tiled, vectorBits,
                              /*parallel=*/false);
    }

    // Fold the tile slices into the transfers, drop their unit dimensions
    // and turn the combination of a row's partial results into
    // vector.reduction.
    RewritePatternSet patterns(ctx);
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
    vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerReduction);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
    scf::ForOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExtractSliceOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();

    // The partial results are read and written at the same place in every
    // chunk: carry them in the loop as vectors.
    SmallVector<scf::ForOp> loops;
    func.walk([&](scf::ForOp loop) { loops.push_back(loop); });
    for (scf::ForOp loop : loops)
      (void)hoistLoopInvariantSubsets(rewriter, loop);
    // The chunk of partial results that starts at the neutral element is
    // now read once, right after it is written: forward the vector.
    RewritePatternSet forwarding(ctx);
    vector::TransferReadOp::getCanonicalizationPatterns(forwarding, ctx);
    scf::ForOp::getCanonicalizationPatterns(forwarding, ctx);
    if (failed(applyPatternsGreedily(func, std::move(forwarding))))
      return signalPassFailure();
  }
};
} // namespace
