//===- FuseElementwiseOps.cpp - Elementwise fusion without recomputation --===//
//
// --mlprog-fuse-elementwise-ops: linalg's elementwise fusion on tensors,
// restricted to fusions that compute every produced element once (see the
// pass description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlprog {
#define GEN_PASS_DEF_FUSEELEMENTWISEOPSPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;

/// Whether fusing the producer of `fused` into its consumer computes each of
/// the producer's elements once: the producer has no other use and the
/// consumer reads it through a permutation of all its loops.
static bool fusesWithoutRecomputation(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  if (!producer || !producer->hasOneUse())
    return false;
  auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
  if (!consumer)
    return true;
  return consumer.getMatchingIndexingMap(fused).isPermutation();
}

/// Whether the producer of `fused` has no other use (constant folding).
static bool hasSingleUseProducer(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  return producer && producer->hasOneUse();
}

/// Whether `op` is a linalg op with a reduction loop.
static bool hasReductionLoop(Operation *op) {
  auto linalgOp = dyn_cast_if_present<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumReductionLoops() > 0;
}

/// Whether a reshape may move through the linalg op at either end of
/// `fused` by expanding its loops: only through all-parallel ops. Expanding
/// a contraction splits its loops (the K of `[s, h * d] x [h * d, n]` into h
/// and d after an attention head merge), which the contraction code
/// generation handles worse than the single loop, for no gain.
static bool propagatesReshape(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  return producer && producer->hasOneUse() &&
         !hasReductionLoop(fused->getOwner()) && !hasReductionLoop(producer);
}

namespace {
/// Elementwise fusion that never recomputes a produced element.
struct FuseElementwiseOpsPass
    : public mlprog::impl::FuseElementwiseOpsPassBase<FuseElementwiseOpsPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns,
                                                 fusesWithoutRecomputation);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns,
                                                      propagatesReshape);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns,
                                                 hasSingleUseProducer);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
