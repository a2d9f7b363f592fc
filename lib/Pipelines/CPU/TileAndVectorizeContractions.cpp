//===- TileAndVectorizeContractions.cpp - The contraction driver ----------===//
//
// The -O2 code generation strategy of --mlprog-lower-to-cpu for contractions
// (matmul, batch_matmul, and convolutions as a column tensor + one matmul
// with the batch folded into N, or in blocks of output rows when the column
// tensor is large, see Im2col.cpp; depthwise convolutions and max
// poolings become vector code of their own, see WindowOps.cpp):
//
//   Bp[n / nr][K][nr] = B, Ap[m / mr][K][mr] = A  panels (rows 4 KiB apart)
//   scf.forall over (Mc x Nc) output tiles        cache blocking, OpenMP
//     scf.for over K in steps of Kc               B block Kc x Nc stays in L2
//       scf.for over M step mr, N step nr, K step 1
//         vector.contract <mr x 1> x <1 x nr>    register block
//
// A contraction of a single row is a vector-matrix product instead, in
// register blocks of 1 x (q * nr) (RowContractions.cpp).
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

#include "CPUCodegen.h"
#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace mlprog {
#define GEN_PASS_DEF_TILEANDVECTORIZECONTRACTIONSPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;
using namespace mlprog;
using namespace mlprog::cpu;

namespace {
/// Rewrites convolutions into im2col + matmul and blocks every f32
/// contraction for caches and registers (see the file comment).
struct TileAndVectorizeContractionsPass
    : public mlprog::impl::TileAndVectorizeContractionsPassBase<
          TileAndVectorizeContractionsPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerVectorTransferInterfaces(registry);
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    IRRewriter rewriter(&getContext());
    CPUTarget target = CPUTarget::getForFeatures(targetFeatures);

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

    // Contractions of a single row (a decoding step's token) are
    // vector-matrix products, streamed in wide register blocks.
    SmallVector<linalg::LinalgOp> rows;
    func.walk([&](linalg::LinalgOp op) {
      if (linalg::isaContractionOpInterface(op))
        rows.push_back(op);
    });
    for (linalg::LinalgOp op : rows)
      (void)vectorizeRowContraction(rewriter, op, target,
                                    parallel &&
                                        !op->getParentOfType<scf::ForallOp>());

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
    // Batched products with a B shared by the batch (a linear layer at
    // batch > 1) become one matmul with the batch in its rows.
    generics.clear();
    func.walk([&](linalg::GenericOp op) {
      if (planContraction(op))
        generics.push_back(op);
    });
    for (linalg::GenericOp generic : generics)
      (void)collapseBatchIntoRows(rewriter, generic);

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
} // namespace
