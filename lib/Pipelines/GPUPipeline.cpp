//===- GPUPipeline.cpp - The mlprog NVIDIA GPU pipeline -------------------===//
//
// --mlprog-lower-to-gpu: see GPUPipeline.h for the steps. mlprog's passes in
// it (lib/Pipelines/GPU/, `mlprog-gpu-*`) are the glue between upstream's
// pieces: device-accessible globals and buffers, one-dimensional tiling of
// parallel loops into blocks × threads, math expansion (no libdevice), and a
// final check of the PTX.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/GPUPipeline.h"
#include "mlprog/Pipelines/Passes.h"
#include "mlprog/Pipelines/Pipelines.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlprog::buildLowerToGPUPipeline(OpPassManager &pm,
                                     const LowerToGPUOptions &options) {
  // The tensor-level steps and bufferization of the CPU pipeline, without
  // its CPU code generation.
  buildBufferizationPipeline(pm, BufferizationPipelineOptions());

  // Buffers the device can reach, then loops → kernels.
  pm.addPass(createDeviceGlobalsPass());
  pm.addPass(createConvertLinalgToParallelLoopsPass());
  TileParallelLoopsPassOptions tiles;
  tiles.blockSize = options.blockSize;
  pm.addPass(createTileParallelLoopsPass(tiles));
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addPass(createConvertParallelLoopToGpuPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createExpandMathPass());
  pm.addPass(createHostAllocToGPUPass());

  gpu::GPUToNVVMPipelineOptions nvvm;
  nvvm.cubinChip = options.chip;
  nvvm.cubinFeatures = options.features;
  nvvm.cubinFormat = "isa";
  nvvm.optLevel = options.optLevel;
  gpu::buildLowerToNVVMPassPipeline(pm, nvvm);
  pm.addPass(createCheckPTXPass());
}

void mlprog::registerGPUPipelines() {
  PassPipelineRegistration<LowerToGPUOptions>(
      "mlprog-lower-to-gpu",
      "Lower an import-contract module to host LLVM plus NVIDIA PTX kernels "
      "(gpu.binary) that call the mgpu* runtime",
      buildLowerToGPUPipeline);
}

void mlprog::registerGPUDialects(DialectRegistry &registry) {
  registry.insert<gpu::GPUDialect, NVVM::NVVMDialect>();
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerConvertNVVMToLLVMInterface(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
}
