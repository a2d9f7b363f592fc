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

#include <string>

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

namespace {
/// A chip of LLVM 22's NVPTX backend and its oldest PTX version (x10).
struct ChipPTX {
  const char *chip;
  unsigned minimumPTX;
};
constexpr ChipPTX kChipPTX[] = {
    {"sm_20", 32},   {"sm_21", 32},   {"sm_30", 32},   {"sm_32", 40},
    {"sm_35", 32},   {"sm_37", 41},   {"sm_50", 40},   {"sm_52", 41},
    {"sm_53", 42},   {"sm_60", 50},   {"sm_61", 50},   {"sm_62", 50},
    {"sm_70", 60},   {"sm_72", 61},   {"sm_75", 63},   {"sm_80", 70},
    {"sm_86", 71},   {"sm_87", 74},   {"sm_88", 90},   {"sm_89", 78},
    {"sm_90", 78},   {"sm_90a", 80},  {"sm_100", 86},  {"sm_100a", 86},
    {"sm_100f", 88}, {"sm_101", 86},  {"sm_101a", 86}, {"sm_101f", 88},
    {"sm_103", 88},  {"sm_103a", 88}, {"sm_103f", 88}, {"sm_110", 90},
    {"sm_110a", 90}, {"sm_110f", 90}, {"sm_120", 87},  {"sm_120a", 87},
    {"sm_120f", 88}, {"sm_121", 88},  {"sm_121a", 88}, {"sm_121f", 88},
};
} // namespace

std::optional<unsigned> mlprog::getMinimumPTXVersion(StringRef chip) {
  for (const ChipPTX &entry : kChipPTX)
    if (chip == entry.chip)
      return entry.minimumPTX;
  return std::nullopt;
}

llvm::Error mlprog::resolveGPUTarget(LowerToGPUOptions &options) {
  std::string chip = options.chip;
  std::optional<unsigned> minimum = getMinimumPTXVersion(chip);
  if (!minimum)
    return llvm::createStringError(
        "unknown GPU chip '" + chip +
        "' (expected an NVIDIA architecture LLVM 22 knows, e.g. sm_80, "
        "sm_90, sm_90a, sm_100)");
  auto spell = [](unsigned version) {
    return std::to_string(version / 10) + "." + std::to_string(version % 10);
  };
  SmallVector<StringRef> features;
  StringRef(options.features).split(features, ',', -1, /*KeepEmpty=*/false);
  bool hasPTX = false;
  for (StringRef feature : features) {
    StringRef version = feature.trim();
    if (!version.consume_front("+ptx"))
      continue;
    unsigned number = 0;
    if (version.getAsInteger(10, number))
      return llvm::createStringError("invalid PTX feature '" +
                                     feature.trim().str() +
                                     "' (expected +ptxNN, e.g. +ptx80)");
    if (number < *minimum)
      return llvm::createStringError(
          "PTX ISA " + spell(number) + " (features '" +
          options.features.getValue() + "') does not support chip '" + chip +
          "', which needs PTX " + spell(*minimum) + " or later (+ptx" +
          std::to_string(*minimum) + "); leave +ptxNN out to get it");
    hasPTX = true;
  }
  if (!hasPTX)
    options.features =
        (options.features.empty() ? "" : options.features + ",") + "+ptx" +
        std::to_string(*minimum);
  return llvm::Error::success();
}

void mlprog::registerGPUPipelines() {
  registerPassPipeline(
      "mlprog-lower-to-gpu",
      "Lower an import-contract module to host LLVM plus NVIDIA PTX kernels "
      "(gpu.binary) that call the mgpu* runtime",
      [](OpPassManager &pm, StringRef text,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        LowerToGPUOptions options;
        if (failed(options.parseFromString(text)))
          return failure();
        if (llvm::Error error = resolveGPUTarget(options))
          return errorHandler("--mlprog-lower-to-gpu: " +
                              llvm::toString(std::move(error)));
        buildLowerToGPUPipeline(pm, options);
        return success();
      },
      [](function_ref<void(const detail::PassOptions &)> optHandler) {
        optHandler(LowerToGPUOptions());
      });
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
