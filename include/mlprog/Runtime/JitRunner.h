//===- JitRunner.h - JIT-compile and run an mlprog module -------*- C++ -*-===//
//
// Compiles an import-contract module (or one already lowered to the LLVM
// dialect by --mlprog-lower-to-cpu) with mlir::ExecutionEngine and runs its
// entry function on host tensors.
//
// Calling convention. The entry is called through the ExecutionEngine's
// packed wrapper `_mlir_<entry>(void **)` (ExecutionEngine::lookupPacked),
// which exists for every function, so no `llvm.emit_c_interface` is needed
// and already-lowered modules work too. Following the LLVM lowering of
// func.func (FuncToLLVM's "default" convention), each ranked memref argument
// expands to allocated pointer, aligned pointer, offset, sizes[rank] and
// strides[rank]; each scalar is one value. The packed array holds one pointer
// per expanded value, then one pointer to the result: nothing for no result,
// the value itself for one result, an LLVM struct of the results otherwise
// (naturally aligned fields, as the C ABI lays them out).
//
// Ownership. --mlprog-lower-to-cpu marks tensor arguments of public functions
// `bufferization.writable = false` (inputs are never written) and runs the
// ownership-based deallocation pipeline, which clones every buffer a public
// function returns without owning it (its arguments, constant globals), so
// every returned buffer is a fresh malloc the caller frees with free(). The
// runner takes each distinct allocated pointer once, and never one that is
// null, one of its own input buffers, or memref.get_global's 0xdeadbeef
// sentinel: dense results of the last call become `HostTensor`s over those
// buffers (no copy; freed with the last tensor over one), the others are
// copied and freed. Inputs are bound as they are, without a copy, at any
// alignment: no lowered code assumes more than the element's. Because an
// LLVM-dialect module carries no tensor types, the runner only runs lowered
// modules whose entry has the `mlprog.signature` attribute that
// --mlprog-lower-to-cpu adds, i.e. ones our pipeline made.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_RUNTIME_JITRUNNER_H
#define MLPROG_RUNTIME_JITRUNNER_H

#include "mlprog/Formats/Npy.h"
#include "mlprog/Runtime/ConstantPool.h"
#include "mlprog/Runtime/ExternalStorage.h"
#include "mlprog/Support/CompileProgress.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Types.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace mlprog {

/// Whether a host array of `dtype` may be bound to an MLIR value whose
/// element type is `elementType`. MLIR integers are signless, so a signless
/// iN accepts both intN and uintN arrays; si/ui types accept only their own
/// signedness (the runner's signature spells the values a model declared
/// unsigned as uiN, see mlprog::getHostSignature, so a uint8 model input
/// refuses an int8 array); i1 accepts only bool; index accepts int64 and
/// uint64; f16, bf16, f32 and f64 accept only the same float type;
/// `!ml_program.string` accepts only str (DType::Str).
bool isCompatible(mlir::Type elementType, DType dtype);

/// The dtype a result of element type `elementType` is returned as: signless
/// and signed integers as intN (i1 as bool, index as int64), unsigned ones
/// as uintN, floats as themselves, `!ml_program.string` as str (the result
/// tensor copies the strings). std::nullopt for anything else (tf32,
/// complex, vectors).
std::optional<DType> getResultDType(mlir::Type elementType);

/// The most OpenMP threads mlprog asks for (--num-threads, MLPROG_NUM_THREADS,
/// the model libraries' runtime): libomp aborts the process when it cannot
/// create a thread it was asked for (past the user's process limit), so a
/// huge count is refused up front instead.
inline constexpr unsigned kMaxNumThreads = 1024;

/// Options of `JitRunner::create`.
struct JitRunnerOptions {
  /// Name of the function to run. Empty: `main` if the module has one, else
  /// the module's only public function.
  std::string entry;
  /// Optimization level (0-3) of both the lowering (`opt-level` of
  /// --mlprog-lower-to-cpu: tiling, vectorization and OpenMP from 2 on) and
  /// LLVM in the JIT.
  unsigned optLevel = 2;
  /// Threads of the OpenMP loops the code runs (0: the MLPROG_NUM_THREADS
  /// environment variable if set to 1 to kMaxNumThreads, else all cores).
  /// More than kMaxNumThreads is an error of JitRunner::create.
  unsigned numThreads = 0;
  /// CPU and LLVM target features to compile for (as llc -mcpu / -mattr);
  /// empty: the host's (llvm::sys::getHostCPUName/getHostCPUFeatures). The
  /// code runs on the host, so these may only name a subset of its features.
  std::string targetCPU;
  std::string targetFeatures;
  /// Where the data of `#ml_program.extern` globals is found (see
  /// ExternalStorage.h); it is memory-mapped, not copied.
  ExternalStorageOptions externalStorage;
  /// Storage already mapped from the module before it was lowered elsewhere
  /// (an LLVM-dialect module no longer names its extern globals' files);
  /// used instead of `externalStorage` when set, and shared by the runners.
  std::shared_ptr<ExternalStorage> mappedStorage;
  /// Initial values of lowered globals holding at least this many bytes
  /// bypass LLVM: they move to a `ConstantPool` the JIT binds by symbol
  /// (see ConstantPool.h). UINT64_MAX keeps every value in the IR.
  uint64_t constantPoolThreshold = kDefaultConstantPoolThreshold;
  /// When set, `create` reports the lowering and the JIT compilation as its
  /// phases (the lowering's passes timed under theirs); it must outlive the
  /// call.
  CompileProgress *progress = nullptr;
};

/// A JIT-compiled module with a chosen entry function. Inputs and results
/// are ranked tensors (dynamic dimensions allowed) or int/float/index
/// scalars, bound positionally to `HostTensor`s (scalars as 0-d tensors).
/// The MLIRContext of the module must outlive the runner (it owns the
/// signature types). Globals live in the engine and persist across `run`s;
/// the runners `getEntry` returns share the engine, so every entry of one
/// compiled module reads and writes the same globals (a `reset` entry
/// clears the state a `forward` entry keeps), while two runners made by
/// `create` never share any (two model instances). See docs/state.md.
class JitRunner {
public:
  /// Picks the entry (see `JitRunnerOptions::entry`), records its tensor
  /// signature, lowers `module` with `buildLowerToCPUPipeline` unless it is
  /// already in the LLVM dialect, and JIT-compiles it. Errors: no such
  /// entry, ambiguous entry, unsupported argument/result types, a lowered
  /// module without `mlprog.signature`, extern globals whose storage cannot
  /// be mapped (`ExternalStorage::resolve`), lowering failures (the pass
  /// manager's diagnostics go to the context's handlers first) and JIT
  /// failures.
  static llvm::Expected<std::unique_ptr<JitRunner>>
  create(mlir::OwningOpRef<mlir::ModuleOp> module,
         const JitRunnerOptions &options = {});

  ~JitRunner();

  /// A runner for the public function `name` of the same compiled module:
  /// it shares this runner's engine and so its globals, which live until
  /// the last runner of the engine is destroyed. Errors: no public function
  /// `name` (the message lists them), or one whose argument or result types
  /// the runner does not support.
  llvm::Expected<std::unique_ptr<JitRunner>>
  getEntry(llvm::StringRef name) const;

  /// Names of the public functions of the compiled module (the entries
  /// `getEntry` accepts), in module order.
  llvm::ArrayRef<std::string> getEntryNames() const;

  /// Name of the entry function.
  llvm::StringRef getEntryName() const { return entryName; }
  /// Argument types of the entry, before lowering (tensors or scalars), as
  /// host callers see them: values the model declared unsigned are spelled
  /// uiN (mlprog::getHostSignature).
  llvm::ArrayRef<mlir::Type> getInputTypes() const { return inputTypes; }
  /// Result types of the entry, before lowering, spelled the same way.
  llvm::ArrayRef<mlir::Type> getResultTypes() const { return resultTypes; }

  /// Checks `inputs` against the signature: count, dtype (`isCompatible`),
  /// rank and static dimensions. Errors read like
  /// "input 0: expected tensor<1x3xf32>, got f64 array of shape (1,3)".
  llvm::Error checkInputs(llvm::ArrayRef<HostTensor> inputs) const;

  /// Runs the entry `repeat` times (at least once) on `inputs` and returns
  /// the results of the last call, in C order with their runtime shapes.
  /// Inputs are only read. Errors: `checkInputs` errors, and results whose
  /// runtime shape contradicts their static type.
  llvm::Expected<std::vector<HostTensor>> run(llvm::ArrayRef<HostTensor> inputs,
                                              unsigned repeat = 1);

private:
  /// The compiled code and the data it binds, shared by every runner of one
  /// module (JitRunner.cpp).
  struct Engine;

  JitRunner() = default;

  /// Binds entry `name` of signature `type` in `engine`.
  static llvm::Expected<std::unique_ptr<JitRunner>>
  bind(std::shared_ptr<Engine> engine, llvm::StringRef name,
       mlir::FunctionType type);

  std::shared_ptr<Engine> engine;
  std::string entryName;
  std::vector<mlir::Type> inputTypes;
  std::vector<mlir::Type> resultTypes;
  void (*entry)(void **) = nullptr;
};

} // namespace mlprog

#endif // MLPROG_RUNTIME_JITRUNNER_H
