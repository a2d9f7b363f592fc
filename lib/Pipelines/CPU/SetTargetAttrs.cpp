//===- SetTargetAttrs.cpp - Record the requested CPU target ---------------===//
//
// Implements --mlprog-set-target-attrs, the last step of --mlprog-lower-to-cpu
// when `target-cpu`, `target-features` or `target-triple` is given.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlprog {
#define GEN_PASS_DEF_SETTARGETATTRSPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;

namespace {
struct SetTargetAttrsPass
    : public mlprog::impl::SetTargetAttrsPassBase<SetTargetAttrsPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    if (!targetTriple.empty())
      getOperation()->setAttr(LLVM::LLVMDialect::getTargetTripleAttrName(),
                              StringAttr::get(ctx, targetTriple));
    for (auto func : getOperation().getOps<LLVM::LLVMFuncOp>()) {
      if (func.isExternal())
        continue;
      if (!targetCPU.empty())
        func.setTargetCpuAttr(StringAttr::get(ctx, targetCPU));
      if (!targetFeatures.empty())
        func.setTargetFeaturesAttr(
            LLVM::TargetFeaturesAttr::get(ctx, targetFeatures));
    }
  }
};
} // namespace
