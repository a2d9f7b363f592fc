//===- Pipelines.h - Named mlprog pass pipelines ----------------*- C++ -*-===//

#ifndef MLPROG_PIPELINES_PIPELINES_H
#define MLPROG_PIPELINES_PIPELINES_H

#include "mlprog/Pipelines/CPU/CPUTarget.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <functional>

namespace mlprog {

/// Discardable attribute that --mlprog-lower-to-cpu puts on every public
/// function: a TypeAttr holding the function's tensor-level FunctionType
/// (before bufferization), with the values the model declared unsigned
/// spelled `uiN` (mlprog::getHostSignature). It survives lowering to
/// llvm.func, so runners can check and bind inputs of an already-lowered
/// module.
inline constexpr llvm::StringLiteral kSignatureAttrName = "mlprog.signature";

/// Module attributes of --mlprog-per-instance-state: `mlprog.instance_state`
/// lists the state globals an AOT library copies per model instance, as
/// dictionaries {global = @g, slot = @g__slot, initial = @g__initial}
/// (`initial` absent when the initial value is all zeros);
/// `mlprog.shared_state` lists the mutable globals that stay shared by
/// every instance (external data).
inline constexpr llvm::StringLiteral kInstanceStateAttrName =
    "mlprog.instance_state";
inline constexpr llvm::StringLiteral kSharedStateAttrName =
    "mlprog.shared_state";

/// Parses an optimization level: an unsigned integer from 0 to 3; anything
/// larger is a command-line error ("'9' is not an optimization level 0-3")
/// instead of being taken as -O3.
struct OptLevelParser : public llvm::cl::parser<unsigned> {
  using llvm::cl::parser<unsigned>::parser;
  bool parse(llvm::cl::Option &option, llvm::StringRef argName,
             llvm::StringRef arg, unsigned &value) {
    if (llvm::cl::parser<unsigned>::parse(option, argName, arg, value))
      return true;
    if (value > 3)
      return option.error("'" + arg + "' is not an optimization level 0-3");
    return false;
  }
};

/// Options of `--mlprog-lower-to-cpu`.
struct LowerToCPUOptions : public mlir::PassPipelineOptions<LowerToCPUOptions> {
  PassOptions::Option<bool> emitCInterface{
      *this, "emit-c-interface",
      llvm::cl::desc("Add llvm.emit_c_interface to public functions so that "
                     "C callers (AOT libraries) get _mlir_ciface_* wrappers"),
      llvm::cl::init(false)};
  PassOptions::Option<unsigned, OptLevelParser> optLevel{
      *this, "opt-level",
      llvm::cl::desc("Optimization level 0-3. 0 and 1: plain loops; 2 and 3: "
                     "tiled, vectorized and multi-threaded (OpenMP) matmul "
                     "and convolution code"),
      llvm::cl::init(2)};
  PassOptions::Option<std::string> targetCPU{
      *this, "target-cpu",
      llvm::cl::desc("CPU to generate code for (as llc -mcpu); empty or "
                     "'native': the host CPU"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> targetFeatures{
      *this, "target-features",
      llvm::cl::desc("Comma-separated LLVM target features (as llc -mattr, "
                     "e.g. +avx2,+fma); empty: the host CPU's features"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> targetTriple{
      *this, "target-triple",
      llvm::cl::desc("Target triple recorded on the module; empty: the "
                     "host's (the JIT always uses the host's)"),
      llvm::cl::init("")};
  PassOptions::Option<bool> parallel{
      *this, "parallel",
      llvm::cl::desc("At -O2 and above, run the outer tile loops on OpenMP "
                     "threads (libomp; thread count chosen at run time)"),
      llvm::cl::init(true)};
};

/// The target described by `options` (`target-cpu`, `target-features`,
/// `target-triple`), each empty field or "native" replaced by the host's
/// (see CPUTarget::get).
inline CPUTarget getCPUTarget(const LowerToCPUOptions &options) {
  return CPUTarget::get(options.targetCPU.getValue(),
                        options.targetFeatures.getValue(),
                        options.targetTriple.getValue());
}

/// Lowers an import-contract module (ml_program callables and globals,
/// linalg/tensor/arith/math/scf/cf on tensors) to the LLVM dialect for the
/// host CPU: subgraphs ordered into funcs, ml_program → func/memref.global,
/// elementwise fusion, (at -O2+) convolutions rewritten to im2col + matmul
/// and contractions tiled for caches (outer tiles in `scf.forall`, run on
/// OpenMP threads) and registers and vectorized (vector.contract →
/// outer products → FMAs), elementwise ops and pads vectorized (outer tiles
/// of large ones in `scf.forall`), one-shot bufferization with identity-layout
/// function boundaries, ownership-based deallocation, (at -O2+) copies that
/// are not contiguous as vector loops, linalg → affine loops →
/// scf/cf, math → libm/LLVM, and finally everything → LLVM. Public functions
/// keep their tensor arguments and results as memref descriptors (see
/// Runtime/JitRunner.h for the calling convention); returned buffers are owned
/// by the caller and freed with free() (the deallocation pipeline clones
/// returned arguments and globals), and tensor arguments are read-only
/// (`bufferization.writable = false`).
void buildLowerToCPUPipeline(mlir::OpPassManager &pm,
                             const LowerToCPUOptions &options);

/// Options of `buildBufferizationPipeline`: the extension points where the
/// CPU and GPU pipelines add their own steps.
struct BufferizationPipelineOptions {
  /// Run `mlprog-fold-constant-transposes` after the topological sort.
  bool foldConstantTransposes = false;
  /// Adds passes on the graph as imported (ml_program globals as memref
  /// globals, DequantizeLinear and the like still generics of their own),
  /// before constant generics are folded and elementwise ops fused (none
  /// when empty).
  std::function<void(mlir::OpPassManager &)> addGraphPasses;
  /// Adds passes on fused linalg on tensors, before one-shot bufferization
  /// (none when empty).
  std::function<void(mlir::OpPassManager &)> addTensorPasses;
  /// Adds passes on the bufferized functions, before the deallocation
  /// pipeline (none when empty).
  std::function<void(mlir::OpPassManager &)> addBufferPasses;
};

/// The prefix that `--mlprog-lower-to-cpu` and `--mlprog-lower-to-gpu`
/// share: subgraphs ordered into funcs (`mlprog-topological-sort`, then
/// `mlprog-fold-constant-transposes` when asked), ml_program → func/memref
/// globals, entry points annotated (`mlprog-annotate-entry-points`),
/// elementwise arith/math → fused linalg, `options.addTensorPasses`, one-shot
/// bufferization with identity-layout function boundaries (loops may yield
/// fresh buffers), `options.addBufferPasses`, ownership-based deallocation,
/// and the remaining bufferization ops → memref. The result holds func and
/// memref ops with linalg on buffers, ready for a loop lowering.
void buildBufferizationPipeline(mlir::OpPassManager &pm,
                                const BufferizationPipelineOptions &options);

/// Registers the named pipelines (`--mlprog-lower-to-cpu`) with mlir-opt style
/// tools.
void registerPipelines();

/// Checks the `target_cpu` and `target_features` of every `llvm.func` in
/// `module` and its `llvm.target_triple` with CPUTarget::verify, so that a
/// lowered module naming an unknown CPU or feature is an error naming the
/// function rather than an LLVM fatal error in code generation. Used by the
/// JIT and the AOT compiler on the modules they are given.
llvm::Error verifyTargetAttrs(mlir::ModuleOp module);

} // namespace mlprog

#endif // MLPROG_PIPELINES_PIPELINES_H
