//===- SetTargetAttrs.cpp - Record the requested CPU target ---------------===//
//
// Implements --mlprog-set-target-attrs, the last step of --mlprog-lower-to-cpu
// when `target-cpu`, `target-features` or `target-triple` is given.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/Passes.h"
#include "mlprog/Pipelines/Pipelines.h"

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
    if (llvm::Error err = mlprog::CPUTarget::verify(targetCPU, targetFeatures,
                                                    targetTriple)) {
      // At the module's location, without printing the whole module.
      mlir::emitError(getOperation().getLoc())
          << llvm::toString(std::move(err));
      return signalPassFailure();
    }
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

llvm::Error mlprog::verifyTargetAttrs(ModuleOp module) {
  StringRef triple;
  if (auto attr = module->getAttrOfType<StringAttr>(
          LLVM::LLVMDialect::getTargetTripleAttrName()))
    triple = attr.getValue();
  if (llvm::Error err = CPUTarget::verify("", "", triple))
    return err;
  for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
    StringRef cpu = func.getTargetCpu().value_or("");
    std::string features;
    if (LLVM::TargetFeaturesAttr attr = func.getTargetFeaturesAttr())
      features = attr.getFeaturesString();
    if (llvm::Error err = CPUTarget::verify(cpu, features, triple))
      return llvm::createStringError("llvm.func @" + func.getName() + ": " +
                                     llvm::toString(std::move(err)));
  }
  return llvm::Error::success();
}
