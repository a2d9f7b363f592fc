//===- TopologicalSort.cpp - Order subgraphs into funcs -------------------===//
//
// Implements --mlprog-topological-sort: graph region → SSACFG region along
// data and token edges, using upstream's stable topological sort.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/Dialect/MLProgram/Transforms/Passes.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlprog {
#define GEN_PASS_DEF_TOPOLOGICALSORT
#include "mlprog/Dialect/MLProgram/Transforms/Passes.h.inc"
} // namespace mlprog

using namespace mlir;
using namespace mlprog;

namespace {

/// After a partial sort, the ops that could not be ordered are those that use
/// a value defined at or after themselves, or by another unordered op.
/// Reports them.
LogicalResult reportCycle(SubgraphOp subgraph, Block &block) {
  SmallVector<Operation *> unordered;
  llvm::SmallPtrSet<Operation *, 16> ordered;
  for (Operation &op : block.without_terminator()) {
    bool ready = true;
    op.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (def && def->getBlock() == &block && !ordered.contains(def))
          ready = false;
      }
    });
    if (ready)
      ordered.insert(&op);
    else
      unordered.push_back(&op);
  }
  if (unordered.empty())
    return success();
  InFlightDiagnostic diag =
      unordered.front()->emitOpError()
      << "is part of a cycle of data or token edges in subgraph @"
      << subgraph.getSymName() << "; the subgraph cannot be ordered";
  for (Operation *op : llvm::drop_begin(unordered))
    diag.attachNote(op->getLoc())
        << "also in or after the cycle: '" << op->getName() << "'";
  return diag;
}

/// Rewrites the token-ordered accessors of an ordered body into the plain
/// ones and drops tokens.
void rewriteGraphOps(RewriterBase &rewriter, Block &block) {
  SmallVector<Operation *> toErase;
  for (Operation &op : block) {
    rewriter.setInsertionPoint(&op);
    if (auto load = dyn_cast<GlobalLoadGraphOp>(op)) {
      auto plain = GlobalLoadOp::create(rewriter, load.getLoc(),
                                        load.getResult().getType(),
                                        load.getGlobalAttr());
      rewriter.replaceAllUsesWith(load.getResult(), plain.getResult());
    } else if (auto store = dyn_cast<GlobalStoreGraphOp>(op)) {
      GlobalStoreOp::create(rewriter, store.getLoc(), store.getGlobalAttr(),
                            store.getValue());
    } else if (!isa<TokenOp>(op)) {
      continue;
    }
    toErase.push_back(&op);
  }
  // Token values are used only by the ops being erased.
  for (Operation *op : toErase)
    op->dropAllUses();
  for (Operation *op : llvm::reverse(toErase))
    rewriter.eraseOp(op);
}

LogicalResult convertSubgraph(RewriterBase &rewriter, SubgraphOp subgraph) {
  auto isToken = [](Type t) { return isa<TokenType>(t); };
  FunctionType type = subgraph.getFunctionType();
  if (llvm::any_of(type.getInputs(), isToken) ||
      llvm::any_of(type.getResults(), isToken))
    return subgraph.emitOpError(
        "cannot be ordered into a func: tokens may not cross callables");
  if (!subgraph.isExternal()) {
    Block &block = subgraph.getBody().front();
    if (!sortTopologically(&block))
      return reportCycle(subgraph, block);
    rewriteGraphOps(rewriter, block);
  }
  rewriter.setInsertionPoint(subgraph);
  auto func = FuncOp::create(
      rewriter, subgraph.getLoc(), subgraph.getSymNameAttr(),
      subgraph.getFunctionTypeAttr(), subgraph.getArgAttrsAttr(),
      subgraph.getResAttrsAttr(), subgraph.getSymVisibilityAttr());
  for (NamedAttribute attr : subgraph->getDiscardableAttrs())
    func->setAttr(attr.getName(), attr.getValue());
  rewriter.inlineRegionBefore(subgraph.getBody(), func.getBody(), func.end());
  rewriter.eraseOp(subgraph);
  if (!func.isExternal()) {
    Operation *output = func.getBody().front().getTerminator();
    rewriter.setInsertionPoint(output);
    rewriter.replaceOpWithNewOp<ReturnOp>(output, output->getOperands());
  }
  return success();
}

struct TopologicalSortPass
    : mlprog::impl::TopologicalSortBase<TopologicalSortPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<SubgraphOp> subgraphs(getOperation().getOps<SubgraphOp>());
    for (SubgraphOp subgraph : subgraphs)
      if (failed(convertSubgraph(rewriter, subgraph)))
        return signalPassFailure();
  }
};

} // namespace
