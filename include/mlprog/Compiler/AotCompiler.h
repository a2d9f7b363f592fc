//===- AotCompiler.h - Compile a module to a shared library -----*- C++ -*-===//
//
// Ahead-of-time compilation behind `mlprog-compile`: an import-contract
// module becomes a shared library with the C ABI of include/mlprog-c/Model.h
// that depends only on libc and libm (CPU), or additionally loads
// libcuda.so.1 with dlopen at run time (CUDA), so it runs where neither LLVM
// nor MLIR is installed.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_COMPILER_AOTCOMPILER_H
#define MLPROG_COMPILER_AOTCOMPILER_H

#include "mlprog/Runtime/ConstantPool.h"
#include "mlprog/Runtime/ExternalStorage.h"
#include "mlprog/Support/CompileProgress.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlprog {

/// Where the compiled code runs.
enum class AotTarget { CPU, CUDA };

/// Options of `compileToSharedLibrary`.
struct AotOptions {
  AotTarget target = AotTarget::CPU;
  /// Host code generation: LLVM target triple, CPU and features. Empty:
  /// the machine mlprog-compile runs on (`-mcpu=native`-like).
  std::string triple, cpu, features;
  /// LLVM optimization level (0-3) of the host code.
  unsigned optLevel = 2;
  /// GPU architecture and PTX features for AotTarget::CUDA (checked by
  /// resolveGPUTarget; no +ptxNN: the chip's oldest PTX version).
  std::string gpuChip = "sm_80", gpuFeatures = "";
  /// Directory holding libmlprog_model_support.a and
  /// libmlprog_cuda_runtime.a (the build's or the installation's lib/).
  std::string runtimeDir;
  /// The C compiler driver used to link (`cc` from PATH by default).
  std::string linker = "cc";
  /// Initial values of lowered globals holding at least this many bytes
  /// bypass LLVM's optimizer and code generator: they are copied into the
  /// library's data sections by the assembler (ELF targets; see
  /// ConstantPool.h). UINT64_MAX keeps every value in the IR.
  uint64_t constantPoolThreshold = kDefaultConstantPoolThreshold;
  /// Where the data of `#ml_program.extern` globals is read from (see
  /// ExternalStorage.h); it is copied into the library like inline weights.
  ExternalStorageOptions externalStorage;
  /// When set, the lowering, LLVM translation, code generation and linking
  /// are reported as its phases (the lowering's passes timed under theirs);
  /// it must outlive the call.
  CompileProgress *progress = nullptr;
};

/// Lowers `module` (unless already lowered by our pipelines) with
/// --mlprog-lower-to-cpu or --mlprog-lower-to-gpu, translates it to LLVM IR,
/// adds a packed wrapper per public function and the entry-point table
/// ModelSupport.c reads, emits an object file for the host with an
/// llvm::TargetMachine, and links `outputPath` with `linker -shared`. The
/// output is written atomically (nothing on failure). Entry points are the
/// public functions; their argument and result types must be ranked tensors
/// or scalars the runner supports (see JitRunner.h). Errors: lowering
/// failures (diagnostics go to the context first), unsupported types, extern
/// globals whose storage cannot be read (`ExternalStorage::resolve`: the
/// file is missing, too short, ...) or embedded (a module lowered before,
/// element types other than int/float arrays, a non-ELF target), an unknown
/// triple, and linker failures (with its output).
llvm::Error compileToSharedLibrary(mlir::ModuleOp module,
                                   llvm::StringRef outputPath,
                                   const AotOptions &options);

} // namespace mlprog

#endif // MLPROG_COMPILER_AOTCOMPILER_H
