//===- ConstantPool.h - Large global initializers kept out of LLVM -*- C++
//-*-===//
//
// A model's weights reach the lowered module as `llvm.mlir.global`s whose
// initial value is a dense elements attribute: tens of megabytes that LLVM
// would otherwise turn into ConstantDataArrays, run through its optimizer and
// emit element by element, which dominated the compile time and memory of
// real models (resnet18: ~45 MB, ~8 s of its ~9 s JIT compile). The pool
// moves those initial values into one process-local buffer and turns the
// globals into external declarations; the JIT binds each symbol to its bytes
// in the buffer, and the AOT compiler emits the buffer as a data section.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_RUNTIME_CONSTANTPOOL_H
#define MLPROG_RUNTIME_CONSTANTPOOL_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlprog {

/// The initial values of a module's large LLVM-dialect globals, laid out in
/// one buffer, each at a 64-byte aligned offset (at least the global's own
/// alignment). Globals that are not `constant` keep their bytes writable
/// here: stores from the code persist as long as the pool lives.
class ConstantPool {
public:
  /// One global moved into the pool.
  struct Entry {
    /// Symbol name of the global (its declaration keeps the name).
    std::string name;
    /// Byte offset of its data in the buffer (a multiple of `alignment`).
    uint64_t offset;
    /// Byte size of its data: the LLVM alloc size of the global's type.
    uint64_t size;
    /// Alignment of the data in bytes (a power of two, at least 64).
    uint64_t alignment;
    /// Whether the global is `constant` (read-only data) or written by the
    /// code (a mutable `ml_program.global`).
    bool isConstant;
  };

  /// Moves the initial value of every `llvm.mlir.global` in `module` (in
  /// the LLVM dialect, as --mlprog-lower-to-cpu leaves it) that holds at
  /// least `threshold` bytes into a new pool, and makes the global an
  /// external declaration with the same type and alignment. Only initial
  /// values whose bytes are exactly the row-major contents of the global's
  /// LLVM type are moved: a dense int/float elements attribute (splat or
  /// not; i1 as one byte per element; other widths a whole number of bytes)
  /// or a `dense_resource` blob of matching size, on a global whose type is
  /// a (nested) `!llvm.array` or vector of that element type. Everything
  /// else (small values, initializer regions, other element types, names
  /// that need quoting in assembly) stays in the IR.
  ///
  /// `externalData`, when given, maps symbol names of external declarations
  /// (lowered `#ml_program.extern` globals, see ExternalStorage.h) to their
  /// data: those of (nested) array-of-scalar type are copied into the pool
  /// too, whatever their size, so that an AOT library can define them. The
  /// map's data must hold the LLVM alloc size of the global's type.
  ///
  /// Errors: a buffer allocation that fails.
  static llvm::Expected<std::unique_ptr<ConstantPool>>
  extract(mlir::ModuleOp module, uint64_t threshold,
          const llvm::StringMap<void *> *externalData = nullptr);

  ~ConstantPool();

  /// The globals moved into the pool, in module order.
  llvm::ArrayRef<Entry> getEntries() const { return entries; }
  /// Address of each moved global's data, by symbol name.
  const llvm::StringMap<void *> &getAddresses() const { return addresses; }
  /// The whole buffer (entries at their offsets, zero padding between).
  llvm::ArrayRef<char> getBuffer() const {
    return llvm::ArrayRef<char>(data, size);
  }

private:
  ConstantPool() = default;

  std::vector<Entry> entries;
  llvm::StringMap<void *> addresses;
  std::unique_ptr<char[]> storage;
  char *data = nullptr;
  uint64_t size = 0;
};

/// Default `threshold` of `ConstantPool::extract` in the JIT and AOT
/// compilers: values under 1 KiB stay in the IR, where LLVM may fold them.
inline constexpr uint64_t kDefaultConstantPoolThreshold = 1024;

} // namespace mlprog

#endif // MLPROG_RUNTIME_CONSTANTPOOL_H
