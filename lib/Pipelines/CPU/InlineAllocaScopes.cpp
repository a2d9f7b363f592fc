//===- InlineAllocaScopes.cpp - Drop alloca scopes without allocas --------===//
//
// --mlprog-inline-alloca-scopes: convert-scf-to-openmp wraps each parallel
// loop body in a memref.alloca_scope, whose region may only have one block;
// scopes without an alloca are inlined before the loops inside become
// control flow.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlprog {
#define GEN_PASS_DEF_INLINEALLOCASCOPESPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;

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
