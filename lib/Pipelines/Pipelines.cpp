//===- Pipelines.cpp - Named mlprog pass pipelines ------------------------===//

#include "mlprog/Pipelines/Pipelines.h"
#include "mlprog/Conversion/Passes.h"
#include "mlprog/Dialect/MLProgram/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace {
/// Marks public functions with llvm.emit_c_interface.
struct EmitCInterfacePass
    : public PassWrapper<EmitCInterfacePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(EmitCInterfacePass)
  StringRef getArgument() const final { return "mlprog-emit-c-interface"; }
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        func->setAttr("llvm.emit_c_interface", UnitAttr::get(&getContext()));
  }
};

/// Prepares public functions to be called from the host: records their
/// tensor-level signature as `mlprog.signature` (it survives the conversion
/// to llvm.func, so a runner can bind .npy arrays to an already-lowered
/// module) and marks tensor arguments `bufferization.writable = false`, so
/// that the caller's input buffers are never written in place.
struct AnnotateEntryPointsPass
    : public PassWrapper<AnnotateEntryPointsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(AnnotateEntryPointsPass)
  StringRef getArgument() const final { return "mlprog-annotate-entry-points"; }
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func.isPublic() || func.isExternal())
        continue;
      if (!func->hasAttr(mlprog::kSignatureAttrName))
        func->setAttr(mlprog::kSignatureAttrName,
                      TypeAttr::get(func.getFunctionType()));
      for (auto [index, type] : llvm::enumerate(func.getArgumentTypes()))
        if (isa<TensorType>(type) &&
            !func.getArgAttr(
                index, bufferization::BufferizationDialect::kWritableAttrName))
          func.setArgAttr(
              index, bufferization::BufferizationDialect::kWritableAttrName,
              BoolAttr::get(&getContext(), false));
    }
  }
};
} // namespace

void mlprog::buildLowerToCPUPipeline(OpPassManager &pm,
                                     const LowerToCPUOptions &options) {
  pm.addPass(createTopologicalSort());
  pm.addPass(createConvertMLProgramToMemRef());
  pm.addPass(std::make_unique<AnnotateEntryPointsPass>());
  pm.addPass(createCanonicalizerPass());
  // The contract allows arith/math on tensors; bufferization needs linalg.
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createLinalgElementwiseOpFusionPass());
  pm.addPass(createCSEPass());

  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  // Loops whose yielded tensors are new values (MIL while_loop, ONNX Loop,
  // TorchScript prim::Loop) get fresh buffers per iteration instead of
  // failing to bufferize.
  bufferize.allowReturnAllocsFromLoops = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createCanonicalizerPass());
  bufferization::BufferDeallocationPipelineOptions dealloc;
  bufferization::buildBufferDeallocationPipeline(pm, dealloc);
  // The deallocation pipeline clones buffers a public function returns
  // without owning them (its arguments, constant globals); lower those
  // clones and the remaining deallocs to memref.alloc/copy/dealloc.
  pm.addPass(createConvertBufferizationToMemRefPass());

  pm.addPass(createConvertLinalgToAffineLoopsPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createConvertMathToLibmPass());
  if (options.emitCInterface)
    pm.addPass(std::make_unique<EmitCInterfacePass>());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

std::unique_ptr<Pass> mlprog::createAnnotateEntryPointsPass() {
  return std::make_unique<AnnotateEntryPointsPass>();
}

void mlprog::registerPipelines() {
  PassPipelineRegistration<LowerToCPUOptions>(
      "mlprog-lower-to-cpu",
      "Lower an import-contract module (ml_program + linalg on tensors) to "
      "the LLVM dialect for the host CPU",
      buildLowerToCPUPipeline);
}
