//===- TileParallelLoops.cpp - Parallel loops as blocks x threads ---------===//
//
// Implements --mlprog-gpu-tile-parallel: every outermost scf.parallel becomes
// one dimension tiled by the block size, ready for gpu-map-parallel-loops.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

#include <numeric>

namespace mlprog {
#define GEN_PASS_DEF_TILEPARALLELLOOPSPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;

/// The scf.parallel ops of the module's functions that are not nested in
/// another scf.parallel.
static SmallVector<scf::ParallelOp> getOutermostLoops(ModuleOp module) {
  SmallVector<scf::ParallelOp> loops;
  for (auto func : module.getOps<func::FuncOp>())
    func.walk([&](scf::ParallelOp op) {
      if (!op->getParentOfType<scf::ParallelOp>())
        loops.push_back(op);
    });
  return loops;
}

namespace {
struct TileParallelLoopsPass
    : public mlprog::impl::TileParallelLoopsPassBase<TileParallelLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    int64_t size = blockSize;
    if (size <= 0 || size > 1024) {
      getOperation().emitError("block-size must be in [1, 1024], got ") << size;
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : getOutermostLoops(getOperation())) {
      if (loop.getNumLoops() < 2)
        continue;
      std::vector<unsigned> all(loop.getNumLoops());
      std::iota(all.begin(), all.end(), 0);
      rewriter.setInsertionPoint(loop);
      collapseParallelLoops(rewriter, loop, {all});
    }
    for (scf::ParallelOp loop : getOutermostLoops(getOperation()))
      scf::tileParallelLoop(loop, {size}, /*noMinMaxBounds=*/true);
  }
};
} // namespace
