//===- DynamicBatches.cpp - Windows over a batch of unknown extent -------===//
//
// A convolution or pooling window whose only dynamic loop is its batch
// (images of unknown number: an ONNX model exported with a dynamic batch
// axis, Mask R-CNN's mask head over the detections it kept) becomes an
// scf.for over the batch of static windows over one image each, so that the
// static code generation (the column tensor and blocked matmul of Im2col.cpp,
// the depthwise and pooling rows of WindowOps.cpp) applies to each; left
// dynamic, the window lowered to scalar loops (Mask R-CNN's 3x3 mask-head
// convolutions ran at about 1 GFLOP/s). The bias broadcast or fill that the
// window accumulates into, and a zero tensor.pad of its input, are fused into
// the loop, so each image's window starts from its own init and reads through
// its own padding.
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::cpu;

LogicalResult cpu::tileDynamicBatch(RewriterBase &rewriter,
                                    linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      !linalg::isaConvolutionOpInterface(op))
    return failure();
  FailureOr<linalg::ConvolutionDimensions> dims =
      linalg::inferConvolutionDims(op);
  if (failed(dims))
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<int64_t> sizes(ranges.size(), 0);
  for (unsigned loop : dims->batch)
    if (ShapedType::isDynamic(ranges[loop]))
      sizes[loop] = 1;
  // Only the batch may be dynamic, and it must be.
  for (auto [range, size] : llvm::zip_equal(ranges, sizes))
    if (ShapedType::isDynamic(range) && !size)
      return failure();
  if (llvm::all_of(sizes, [](int64_t size) { return size == 0; }))
    return failure();

  // Only ops cheap to recompute per image whose value nothing else needs
  // are fused: the init, and the padding of the input. (Tiling adds uses of
  // its own, so this is decided before.)
  llvm::SmallPtrSet<Operation *, 2> fusible;
  for (Value operand : op->getOperands()) {
    Operation *producer = operand.getDefiningOp();
    if (!producer || !operand.hasOneUse())
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(producer);
    if (isa<linalg::FillOp, tensor::PadOp>(producer) ||
        (generic && getBroadcastDim(generic)))
      fusible.insert(producer);
  }
  FailureOr<scf::SCFTileAndFuseResult> result = tileAndFuseProducers(
      rewriter, op, sizes, scf::SCFTilingOptions::LoopType::ForOp,
      [&](Operation *producer) { return fusible.contains(producer); });
  if (failed(result))
    return failure();
  // A fused pad guards against empty slices of its source with an scf.if
  // whose condition compares static extents: fold it, so that the window
  // reads through the pad.
  MLIRContext *ctx = rewriter.getContext();
  RewritePatternSet patterns(ctx);
  arith::CmpIOp::getCanonicalizationPatterns(patterns, ctx);
  arith::OrIOp::getCanonicalizationPatterns(patterns, ctx);
  scf::IfOp::getCanonicalizationPatterns(patterns, ctx);
  FrozenRewritePatternSet frozen(std::move(patterns));
  for (LoopLikeOpInterface loop : result->loops)
    (void)applyPatternsGreedily(loop->getRegion(0), frozen);
  // The loop's bound is an extent of the fused ops' whole results: take it
  // from their operands, so that nothing keeps the whole padded input alive.
  SmallVector<Value> fused;
  for (Operation *producer : fusible)
    llvm::append_range(fused, producer->getResults());
  resolveExtents(fused);
  return success();
}
