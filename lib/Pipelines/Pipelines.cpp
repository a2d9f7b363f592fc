//===- Pipelines.cpp - Named mlprog pass pipelines ------------------------===//

#include "mlprog/Pipelines/Pipelines.h"
#include "mlprog/Conversion/Passes.h"
#include "mlprog/Dialect/MLProgram/Transforms/Passes.h"
#include "mlprog/Pipelines/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
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

/// Records an explicitly requested target (AOT output) on the LLVM module:
/// `target_cpu`/`target_features` on every llvm.func, `llvm.target_triple`
/// on the module. The JIT ignores them and compiles for the host.
struct SetTargetAttrsPass
    : public PassWrapper<SetTargetAttrsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SetTargetAttrsPass)
  SetTargetAttrsPass(std::string cpu, std::string features, std::string triple)
      : cpu(std::move(cpu)), features(std::move(features)),
        triple(std::move(triple)) {}
  StringRef getArgument() const final { return "mlprog-set-target-attrs"; }
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    if (!triple.empty())
      getOperation()->setAttr(LLVM::LLVMDialect::getTargetTripleAttrName(),
                              StringAttr::get(ctx, triple));
    for (auto func : getOperation().getOps<LLVM::LLVMFuncOp>()) {
      if (func.isExternal())
        continue;
      if (!cpu.empty())
        func.setTargetCpuAttr(StringAttr::get(ctx, cpu));
      if (!features.empty())
        func.setTargetFeaturesAttr(
            LLVM::TargetFeaturesAttr::get(ctx, features));
    }
  }
  std::string cpu, features, triple;
};
} // namespace

void mlprog::buildLowerToCPUPipeline(OpPassManager &pm,
                                     const LowerToCPUOptions &options) {
  pm.addPass(createTopologicalSort());
  if (options.optLevel >= 1)
    pm.addPass(createFoldConstantTransposes());
  pm.addPass(createConvertMLProgramToMemRef());
  pm.addPass(std::make_unique<AnnotateEntryPointsPass>());
  pm.addPass(createCanonicalizerPass());
  // The contract allows arith/math on tensors; bufferization needs linalg.
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createLinalgElementwiseOpFusionPass());
  pm.addPass(createCSEPass());

  bool optimize = options.optLevel >= 2;
  bool parallel = optimize && options.parallel;
  if (optimize) {
    TileAndVectorizeContractionsPassOptions codegen;
    codegen.targetFeatures = getCPUTarget(options).features;
    codegen.parallel = parallel;
    pm.addNestedPass<func::FuncOp>(
        createTileAndVectorizeContractionsPass(codegen));
    VectorizeElementwisePassOptions elementwise;
    elementwise.targetFeatures = codegen.targetFeatures;
    elementwise.parallel = parallel;
    pm.addNestedPass<func::FuncOp>(createVectorizeElementwisePass(elementwise));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }

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
  if (optimize) {
    // Deallocation does not know scf.forall; OpenMP takes scf.parallel.
    pm.addPass(createForallToParallelLoopPass());
    // Tiles write their slice in place: drop the self-copies bufferization
    // leaves behind.
    pm.addPass(createCSEPass());
    pm.addPass(createCanonicalizerPass());
    pm.addNestedPass<func::FuncOp>(createHoistVectorTransfersPass());
  }
  bufferization::BufferDeallocationPipelineOptions dealloc;
  bufferization::buildBufferDeallocationPipeline(pm, dealloc);
  // The deallocation pipeline clones buffers a public function returns
  // without owning them (its arguments, constant globals); lower those
  // clones and the remaining deallocs to memref.alloc/copy/dealloc.
  pm.addPass(createConvertBufferizationToMemRefPass());
  if (optimize) {
    // Strided copies (pads, column blocks) as vector loops, not memrefCopy.
    LowerStridedCopiesPassOptions copies;
    copies.targetFeatures = getCPUTarget(options).features;
    copies.parallel = parallel;
    pm.addNestedPass<func::FuncOp>(createLowerStridedCopiesPass(copies));
  }

  pm.addPass(createConvertLinalgToAffineLoopsPass());
  if (optimize) {
    // N-d transfers (register blocks) become unrolled 1-d vector accesses.
    VectorTransferToSCFOptions transfers;
    transfers.enableFullUnroll(true);
    pm.addPass(createConvertVectorToSCFPass(transfers));
  }
  pm.addPass(createLowerAffinePass());
  if (parallel) {
    pm.addPass(createConvertSCFToOpenMPPass());
    pm.addPass(createInlineAllocaScopesPass());
  }
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  // Subviews with dynamic offsets (slices inside loops, OpenMP tiles)
  // expand to affine.apply, which must be lowered again.
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertMathToLibmPass());
  if (options.emitCInterface)
    pm.addPass(std::make_unique<EmitCInterfacePass>());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  if (optimize) {
    // Register blocks: vector.contract -> outer products -> broadcast FMAs.
    ConvertVectorToLLVMPassOptions vectors;
    vectors.vectorContractLowering =
        vector::VectorContractLowering::OuterProduct;
    pm.addPass(createConvertVectorToLLVMPass(vectors));
  }
  if (parallel)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  bool nativeCPU = options.targetCPU.empty() || options.targetCPU == "native";
  if (!nativeCPU || !options.targetFeatures.empty() ||
      !options.targetTriple.empty()) {
    CPUTarget target = getCPUTarget(options);
    pm.addPass(std::make_unique<SetTargetAttrsPass>(
        nativeCPU && options.targetFeatures.empty() ? "" : target.cpu,
        options.targetFeatures.empty() ? "" : target.features,
        options.targetTriple.getValue()));
  }
}

std::unique_ptr<Pass> mlprog::createAnnotateEntryPointsPass() {
  return std::make_unique<AnnotateEntryPointsPass>();
}

void mlprog::registerPipelines() {
  registerMLProgPipelinesPasses();
  PassPipelineRegistration<LowerToCPUOptions>(
      "mlprog-lower-to-cpu",
      "Lower an import-contract module (ml_program + linalg on tensors) to "
      "the LLVM dialect for the host CPU",
      buildLowerToCPUPipeline);
}
