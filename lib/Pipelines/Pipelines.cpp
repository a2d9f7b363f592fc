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
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlprog::buildBufferizationPipeline(
    OpPassManager &pm, const BufferizationPipelineOptions &options) {
  pm.addPass(createTopologicalSort());
  if (options.foldConstantTransposes)
    pm.addPass(createFoldConstantTransposes());
  pm.addPass(createConvertMLProgramToMemRef());
  pm.addPass(createAnnotateEntryPointsPass());
  // After the host signature is recorded: string tensors become tensors of
  // runtime string pointers (i64) for everything below.
  pm.addPass(createConvertMLProgramStringsToLLVM());
  if (options.addGraphPasses)
    options.addGraphPasses(pm);
  // Canonicalizes too, folding small constant generics on the way.
  pm.addPass(createFoldConstantGenericsPass());
  // The contract allows arith/math on tensors; bufferization needs linalg.
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createFuseElementwiseOpsPass());
  pm.addPass(createCSEPass());
  if (options.addTensorPasses)
    options.addTensorPasses(pm);

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
  if (options.addBufferPasses)
    options.addBufferPasses(pm);
  bufferization::BufferDeallocationPipelineOptions dealloc;
  bufferization::buildBufferDeallocationPipeline(pm, dealloc);
  // The deallocation pipeline clones buffers a public function returns
  // without owning them (its arguments, constant globals); lower those
  // clones and the remaining deallocs to memref.alloc/copy/dealloc.
  pm.addPass(createConvertBufferizationToMemRefPass());
}

void mlprog::buildLowerToCPUPipeline(OpPassManager &pm,
                                     const LowerToCPUOptions &options) {
  bool optimize = options.optLevel >= 2;
  bool parallel = optimize && options.parallel;
  BufferizationPipelineOptions prefix;
  prefix.foldConstantTransposes = options.optLevel >= 1;
  if (optimize) {
    prefix.addGraphPasses = [&](OpPassManager &graphPM) {
      QuantizedConvolutionsPassOptions quantized;
      quantized.targetFeatures = getCPUTarget(options).features;
      graphPM.addNestedPass<func::FuncOp>(
          createQuantizedConvolutionsPass(quantized));
    };
    prefix.addTensorPasses = [&](OpPassManager &tensorPM) {
      TileAndVectorizeContractionsPassOptions codegen;
      codegen.targetFeatures = getCPUTarget(options).features;
      codegen.parallel = parallel;
      TileDynamicContractionsPassOptions dynamic;
      dynamic.targetFeatures = codegen.targetFeatures;
      IntegerContractionsToF32PassOptions integer;
      integer.targetFeatures = codegen.targetFeatures;
      tensorPM.addNestedPass<func::FuncOp>(
          createIntegerContractionsToF32Pass(integer));
      tensorPM.addNestedPass<func::FuncOp>(
          createTileDynamicContractionsPass(dynamic));
      tensorPM.addNestedPass<func::FuncOp>(
          createTileAndVectorizeContractionsPass(codegen));
      tensorPM.addPass(createFoldConstantPanelsPass());
      VectorizeElementwisePassOptions elementwise;
      elementwise.targetFeatures = codegen.targetFeatures;
      elementwise.parallel = parallel;
      tensorPM.addNestedPass<func::FuncOp>(
          createVectorizeElementwisePass(elementwise));
      VectorizeReductionsPassOptions reductions;
      reductions.targetFeatures = codegen.targetFeatures;
      reductions.parallel = parallel;
      tensorPM.addNestedPass<func::FuncOp>(
          createVectorizeReductionsPass(reductions));
      tensorPM.addPass(createCanonicalizerPass());
      tensorPM.addPass(createCSEPass());
    };
    prefix.addBufferPasses = [](OpPassManager &bufferPM) {
      // Deallocation does not know scf.forall; OpenMP takes scf.parallel.
      bufferPM.addPass(createForallToParallelLoopPass());
      // Tiles write their slice in place: drop the self-copies
      // bufferization leaves behind.
      bufferPM.addPass(createCSEPass());
      bufferPM.addPass(createCanonicalizerPass());
      bufferPM.addNestedPass<func::FuncOp>(createHoistVectorTransfersPass());
      bufferPM.addNestedPass<func::FuncOp>(createPrefetchPanelsPass());
    };
  }
  buildBufferizationPipeline(pm, prefix);
  // Buffers are freed where their last use is, not at the end of the
  // function: the next allocations reuse them while they are in cache.
  pm.addPass(createDeallocAfterLastUsePass());
  if (parallel)
    pm.addNestedPass<func::FuncOp>(createParallelizeTransposesPass());
  if (optimize) {
    // Strided copies (pads, column blocks) as vector loops, not memrefCopy.
    LowerStridedCopiesPassOptions copies;
    copies.targetFeatures = getCPUTarget(options).features;
    copies.parallel = parallel;
    pm.addNestedPass<func::FuncOp>(createLowerStridedCopiesPass(copies));
    // Each loop nest its own function, identical ones shared: LLVM's time
    // grows faster than the size of a function.
    pm.addPass(createOutlineLoopNestsPass());
    // u8 x s8 dot products as AVX-512 VNNI instructions, now that no pass
    // needs to know every op's memory effects.
    LowerDotProductsToVNNIPassOptions vnni;
    vnni.targetFeatures = copies.targetFeatures;
    pm.addNestedPass<func::FuncOp>(createLowerDotProductsToVNNIPass(vnni));
  }

  // scf loops, not affine ones: a loop bound read from a value defined in
  // a non-affine region (a dynamic extent of an scf.for iter_arg) is no
  // valid affine dimension, and nothing between here and lower-affine
  // needs affine loops.
  pm.addPass(createConvertLinalgToLoopsPass());
  if (optimize) {
    // N-d transfers (register blocks) become unrolled 1-d vector accesses.
    VectorTransferToSCFOptions transfers;
    transfers.enableFullUnroll(true);
    pm.addPass(createConvertVectorToSCFPass(transfers));
  }
  pm.addPass(createLowerAffinePass());
  pm.addPass(createExpandNarrowFloatCastsPass());
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
  if (optimize)
    pm.addPass(createApproximateMathPass());
  pm.addPass(createConvertMathToLibmPass());
  if (options.emitCInterface)
    pm.addPass(createEmitCInterfacePass());
  // aligned_alloc, not malloc plus an aligning offset: a result buffer's
  // allocated and aligned pointers are then one, and the C ABI hands it to
  // the caller instead of copying it (see readTensor in ModelSupport.c).
  FinalizeMemRefToLLVMConversionPassOptions memrefs;
  memrefs.useAlignedAlloc = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefs));
  if (optimize) {
    // Register blocks: vector.contract -> outer products -> broadcast FMAs.
    ConvertVectorToLLVMPassOptions vectors;
    vectors.vectorContractLowering =
        vector::VectorContractLowering::OuterProduct;
    // The lanes of a row reduction's partial results (see
    // --mlprog-vectorize-reductions) combine as a tree, not in order.
    vectors.reassociateFPReductions = true;
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
    SetTargetAttrsPassOptions attrs;
    if (!nativeCPU || !options.targetFeatures.empty())
      attrs.targetCPU = target.cpu;
    if (!options.targetFeatures.empty())
      attrs.targetFeatures = target.features;
    attrs.targetTriple = options.targetTriple.getValue();
    pm.addPass(createSetTargetAttrsPass(attrs));
  }
}

void mlprog::registerPipelines() {
  registerMLProgPipelinesPasses();
  PassPipelineRegistration<LowerToCPUOptions>(
      "mlprog-lower-to-cpu",
      "Lower an import-contract module (ml_program + linalg on tensors) to "
      "the LLVM dialect for the host CPU",
      buildLowerToCPUPipeline);
}
