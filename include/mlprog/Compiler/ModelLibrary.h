//===- ModelLibrary.h - Run a library made by mlprog-compile ----*- C++ -*-===//
//
// Loads a shared library produced by `mlprog-compile` (its C ABI is
// include/mlprog-c/Model.h) with dlopen and runs its entry points on host
// tensors, the AOT counterpart of JitRunner.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_COMPILER_MODELLIBRARY_H
#define MLPROG_COMPILER_MODELLIBRARY_H

#include "mlprog/Formats/Npy.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlprog {

/// A loaded model library. Not copyable; unloads the library when
/// destroyed.
class ModelLibrary {
public:
  /// dlopens `path` and checks that it exports the Model.h ABI of this
  /// version. Errors: the dlopen message, missing symbols, ABI mismatch.
  static llvm::Expected<std::unique_ptr<ModelLibrary>>
  load(llvm::StringRef path);
  ~ModelLibrary();

  /// Names of the entry points, in the library's order.
  std::vector<std::string> getEntryNames() const;
  /// 0 for CPU, 1 for CUDA (mlprog_target).
  int getTarget() const;

  /// Index of the entry to run: `name`, else `main`, else the only one.
  /// Errors name the available entries.
  llvm::Expected<int> findEntry(llvm::StringRef name) const;

  /// Runs entry `index` `repeat` times (at least once) and returns the
  /// results of the last run. Errors: the library's message (input
  /// mismatch, no CUDA driver or device, ...).
  llvm::Expected<std::vector<HostTensor>>
  run(int index, llvm::ArrayRef<HostTensor> inputs, unsigned repeat = 1);

private:
  ModelLibrary() = default;
  struct Api;
  void *handle = nullptr;
  std::unique_ptr<Api> api;
};

/// `mlprog-run --library model.so ...` and `mlprog-run --target=cuda
/// FILE.mlir ...` (which compiles FILE to a temporary library with
/// compileToSharedLibrary and runs it). Same inputs, outputs and errors as
/// mlprogRunMain. `registry` parses FILE.
int mlprogRunLibraryMain(int argc, char **argv,
                         mlir::DialectRegistry &registry);

/// Whether the command line asks for mlprogRunLibraryMain: `--library` or
/// `--target` other than `cpu`.
bool isLibraryRunCommandLine(int argc, char **argv);

} // namespace mlprog

#endif // MLPROG_COMPILER_MODELLIBRARY_H
