//===- GPUPipeline.h - The mlprog NVIDIA GPU pipeline -----------*- C++ -*-===//

#ifndef MLPROG_PIPELINES_GPUPIPELINE_H
#define MLPROG_PIPELINES_GPUPIPELINE_H

#include "mlprog/Pipelines/Pipelines.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "llvm/Support/Error.h"

#include <optional>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlprog {

/// Name of the runtime function the GPU pipeline calls instead of
/// memref.dealloc: `void mlprog_cuda_dealloc(int64_t ptr)` frees memory from
/// gpu.alloc host_shared (lib/Runtime/CUDA/CudaRuntime.c).
inline constexpr llvm::StringLiteral kCudaDeallocFunction =
    "mlprog_cuda_dealloc";

/// Options of `--mlprog-lower-to-gpu`.
struct LowerToGPUOptions : public mlir::PassPipelineOptions<LowerToGPUOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("NVIDIA GPU architecture (sm_XX)"),
      llvm::cl::init("sm_80")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("NVPTX features (e.g. +ptx80). Without a +ptxNN, the "
                     "oldest PTX ISA version the chip supports; an older one "
                     "than that is an error"),
      llvm::cl::init("")};
  PassOptions::Option<int64_t> blockSize{
      *this, "block-size",
      llvm::cl::desc("Threads per block of elementwise and reduction "
                     "kernels (a multiple of 32, at most 1024)"),
      llvm::cl::init(256)};
  PassOptions::Option<unsigned, OptLevelParser> optLevel{
      *this, "opt-level",
      llvm::cl::desc("LLVM optimization level of the kernels (0-3)"),
      llvm::cl::init(3)};
};

/// Lowers an import-contract module to the LLVM dialect for the host plus
/// NVIDIA PTX kernels embedded as `gpu.binary` ops (`options` as
/// resolveGPUTarget leaves them):
///
///  1. as --mlprog-lower-to-cpu: subgraphs ordered, ml_program → func/memref,
///     entry signatures recorded (`mlprog.signature`), elementwise → linalg
///     and fused, one-shot bufferization, ownership-based deallocation;
///  2. constant globals used by a function are copied into device-accessible
///     buffers at its entry (kernels cannot read host .rodata);
///  3. linalg → scf.parallel; every outermost parallel loop nest is collapsed
///     to one dimension and tiled by `block-size`, then mapped to blocks ×
///     threads and converted to gpu.launch (so a fused elementwise chain
///     becomes one kernel; reduction dimensions stay sequential loops inside
///     a thread);
///  4. kernels outlined; math functions without native PTX instructions
///     expanded to polynomial approximations (no libdevice is needed);
///  5. host memref.alloc → gpu.alloc host_shared (managed memory, readable
///     by host and device), memref.dealloc → `kCudaDeallocFunction`;
///  6. upstream's gpu-lower-to-nvvm pipeline: NVVM, PTX for `chip` via
///     LLVM's NVPTX backend (format `isa`, JIT-loaded by the driver), host →
///     LLVM with calls to the `mgpu*` runtime functions.
///
/// Errors (emitted as diagnostics, the pass manager fails): mutable globals
/// (not supported on the GPU yet), and kernels that still call libdevice
/// (`__nv_*`) functions after the expansions.
void buildLowerToGPUPipeline(mlir::OpPassManager &pm,
                             const LowerToGPUOptions &options);

/// The oldest PTX ISA version, times ten (78 for PTX 7.8), that LLVM 22's
/// NVPTX backend accepts for `chip` (`sm_XX`, `sm_XXa`, `sm_XXf`); nullopt
/// for a chip LLVM does not know. Read off `llc-22 -march=nvptx64 -mcpu=CHIP
/// -mattr=+ptx32` for every CPU `llc-22 -march=nvptx64 -mcpu=help` lists.
std::optional<unsigned> getMinimumPTXVersion(llvm::StringRef chip);

/// Checks the target of `options` before any pass runs, since LLVM's NVPTX
/// backend ends the process (a fatal error, no location) on a chip it does
/// not know or a PTX version too old for the chip: `chip` must be known, and
/// a `+ptxNN` in `features` must be at least the chip's minimum. Without a
/// `+ptxNN`, appends the chip's minimum to `features`. The error names the
/// option and the versions.
llvm::Error resolveGPUTarget(LowerToGPUOptions &options);

/// Registers `--mlprog-lower-to-gpu`; its options go through
/// resolveGPUTarget, whose error fails the pipeline parse.
void registerGPUPipelines();

/// Adds the dialects and interfaces the GPU pipeline creates or translates
/// (gpu, nvvm, their LLVM conversions and LLVM IR translations, the NVVM
/// target attribute's serialization to PTX).
void registerGPUDialects(mlir::DialectRegistry &registry);

} // namespace mlprog

#endif // MLPROG_PIPELINES_GPUPIPELINE_H
