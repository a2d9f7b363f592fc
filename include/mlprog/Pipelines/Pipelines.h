//===- Pipelines.h - Named mlprog pass pipelines ----------------*- C++ -*-===//

#ifndef MLPROG_PIPELINES_PIPELINES_H
#define MLPROG_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlprog {

/// Discardable attribute that --mlprog-lower-to-cpu puts on every public
/// function: a TypeAttr holding the function's tensor-level FunctionType
/// (before bufferization). It survives lowering to llvm.func, so runners can
/// check and bind inputs of an already-lowered module.
inline constexpr llvm::StringLiteral kSignatureAttrName = "mlprog.signature";

/// Options of `--mlprog-lower-to-cpu`.
struct LowerToCPUOptions : public mlir::PassPipelineOptions<LowerToCPUOptions> {
  PassOptions::Option<bool> emitCInterface{
      *this, "emit-c-interface",
      llvm::cl::desc("Add llvm.emit_c_interface to public functions so that "
                     "C callers (AOT libraries) get _mlir_ciface_* wrappers"),
      llvm::cl::init(false)};
};

/// Lowers an import-contract module (ml_program callables and globals,
/// linalg/tensor/arith/math/scf/cf on tensors) to the LLVM dialect for the
/// host CPU: subgraphs ordered into funcs, ml_program → func/memref.global,
/// elementwise fusion, one-shot bufferization with identity-layout function
/// boundaries, ownership-based deallocation, linalg → affine loops → scf/cf,
/// math → libm/LLVM, and finally everything → LLVM. Public functions keep their
/// tensor arguments and results as memref descriptors (see Runtime/JitRunner.h
/// for the calling convention); returned buffers are owned by the caller and
/// freed with free() (the deallocation pipeline clones returned arguments and
/// globals), and tensor arguments are read-only (`bufferization.writable =
/// false`).
void buildLowerToCPUPipeline(mlir::OpPassManager &pm,
                             const LowerToCPUOptions &options);

/// The step of `--mlprog-lower-to-cpu` that records each public function's
/// tensor signature as `mlprog.signature` and marks its tensor arguments
/// `bufferization.writable = false`; the GPU pipeline reuses it.
std::unique_ptr<mlir::Pass> createAnnotateEntryPointsPass();

/// Registers the named pipelines (`--mlprog-lower-to-cpu`) with mlir-opt style
/// tools.
void registerPipelines();

} // namespace mlprog

#endif // MLPROG_PIPELINES_PIPELINES_H
