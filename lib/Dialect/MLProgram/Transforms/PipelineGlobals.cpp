//===- PipelineGlobals.cpp - Forward global values across calls -----------===//
//
// Interprocedural load forwarding and dead store elimination for
// ml_program globals: callee summaries (globals read and written, computed
// to a fixed point over the call graph) let loads and stores move past
// calls that cannot touch them.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/Dialect/MLProgram/Transforms/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlprog {
#define GEN_PASS_DEF_PIPELINEGLOBALS
#include "mlprog/Dialect/MLProgram/Transforms/Passes.h.inc"
} // namespace mlprog

using namespace mlir;
using namespace mlprog;

namespace {

/// The globals a callable may read and write, itself or through callees.
struct Summary {
  llvm::DenseSet<SymbolRefAttr> reads;
  llvm::DenseSet<SymbolRefAttr> writes;
  /// Reads and writes every global (unknown callee or op).
  bool unknown = false;
};

class GlobalSummaries {
public:
  explicit GlobalSummaries(ModuleOp module) : symbols(module) {
    for (Operation &op : module.getOps())
      if (isa<FunctionOpInterface>(op)) {
        callables.push_back(&op);
        summaries[&op] = Summary();
      }
    // Start from empty summaries and iterate to the least fixed point:
    // summaries only grow.
    bool changed = true;
    while (changed) {
      changed = false;
      for (Operation *callable : callables)
        changed |= update(callable);
    }
  }

  /// What `call` may do to `global`.
  GlobalAccess getAccess(CallOpInterface call, SymbolRefAttr global) const {
    const Summary *summary = lookup(call);
    if (!summary || summary->unknown)
      return GlobalAccess::all();
    return {summary->reads.contains(global), summary->writes.contains(global)};
  }

private:
  /// The summary of the callee of `call`, or null when it does not resolve
  /// to a callable with a body in this module.
  const Summary *lookup(CallOpInterface call) const {
    auto callee = dyn_cast<SymbolRefAttr>(call.getCallableForCallee());
    if (!callee || callee.getNestedReferences().size() != 0)
      return nullptr;
    Operation *target = symbols.lookup(callee.getRootReference());
    if (!target)
      return nullptr;
    auto it = summaries.find(target);
    return it == summaries.end() ? nullptr : &it->second;
  }

  /// Recomputes the summary of `callable`; returns whether it grew.
  bool update(Operation *callable) {
    Summary &summary = summaries[callable];
    size_t before = summary.reads.size() + summary.writes.size() +
                    (summary.unknown ? 1 : 0);
    auto *function = cast<FunctionOpInterface>(callable).getCallableRegion();
    if (!function || function->empty()) {
      summary.unknown = true;
    } else {
      function->walk([&](Operation *op) {
        if (auto load = dyn_cast<GlobalLoadOp>(op))
          summary.reads.insert(load.getGlobalAttr());
        else if (auto load = dyn_cast<GlobalLoadGraphOp>(op))
          summary.reads.insert(load.getGlobalAttr());
        else if (auto store = dyn_cast<GlobalStoreOp>(op))
          summary.writes.insert(store.getGlobalAttr());
        else if (auto store = dyn_cast<GlobalStoreGraphOp>(op))
          summary.writes.insert(store.getGlobalAttr());
        else if (auto call = dyn_cast<CallOpInterface>(op))
          merge(summary, lookup(call));
        else if (!isa<MemoryEffectOpInterface>(op) &&
                 !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
                 !op->hasTrait<OpTrait::IsTerminator>())
          summary.unknown = true;
      });
    }
    return summary.reads.size() + summary.writes.size() +
               (summary.unknown ? 1 : 0) !=
           before;
  }

  static void merge(Summary &into, const Summary *from) {
    if (!from || from->unknown) {
      into.unknown = true;
      return;
    }
    into.reads.insert(from->reads.begin(), from->reads.end());
    into.writes.insert(from->writes.begin(), from->writes.end());
  }

  SymbolTable symbols;
  SmallVector<Operation *> callables;
  llvm::DenseMap<Operation *, Summary> summaries;
};

/// Forwards values and erases dead stores in one block.
void pipelineBlock(Block &block, const GlobalSummaries &summaries) {
  // The current value of each global, if known, and the last store to it
  // that nothing has read yet.
  llvm::DenseMap<SymbolRefAttr, Value> known;
  llvm::DenseMap<SymbolRefAttr, GlobalStoreOp> pending;
  auto callAccess = [&](SymbolRefAttr global) {
    return [&summaries, global](CallOpInterface call) {
      return summaries.getAccess(call, global);
    };
  };
  for (Operation &op : llvm::make_early_inc_range(block)) {
    if (auto load = dyn_cast<GlobalLoadOp>(op)) {
      SymbolRefAttr global = load.getGlobalAttr();
      pending.erase(global);
      Value value = known.lookup(global);
      if (value && value.getType() == load.getType()) {
        load.getResult().replaceAllUsesWith(value);
        load.erase();
        continue;
      }
      known[global] = load.getResult();
      continue;
    }
    if (auto store = dyn_cast<GlobalStoreOp>(op)) {
      SymbolRefAttr global = store.getGlobalAttr();
      // Storing the value the global already holds changes nothing.
      if (known.lookup(global) == store.getValue()) {
        store.erase();
        continue;
      }
      if (GlobalStoreOp dead = pending.lookup(global))
        dead.erase();
      pending[global] = store;
      known[global] = store.getValue();
      continue;
    }
    for (auto &[global, value] : llvm::make_early_inc_range(known))
      if (getGlobalAccess(&op, global, callAccess(global)).writes)
        known.erase(global);
    for (auto &[global, store] : llvm::make_early_inc_range(pending)) {
      GlobalAccess access = getGlobalAccess(&op, global, callAccess(global));
      // A later store still kills this one after a write that may not
      // happen; only a read keeps it.
      if (access.reads)
        pending.erase(global);
    }
  }
}

struct PipelineGlobalsPass
    : mlprog::impl::PipelineGlobalsBase<PipelineGlobalsPass> {
  using Base::Base;

  void runOnOperation() override {
    GlobalSummaries summaries(getOperation());
    // Any SSACFG callable: ml_program.func, and func.func as upstream's
    // pass accepts. Subgraph bodies are ordered by tokens, not position.
    for (auto callable : getOperation().getOps<FunctionOpInterface>()) {
      if (isa<SubgraphOp>(callable) || callable.isExternal())
        continue;
      for (Block &block : callable.getFunctionBody())
        pipelineBlock(block, summaries);
    }
  }
};

} // namespace
