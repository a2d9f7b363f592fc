//===- ExternalStorage.h - Memory-mapped extern globals ---------*- C++ -*-===//
//
// Resolves the `ml_program.global`s of a module whose initial value is
// `#ml_program.extern : T` to memory-mapped bytes, so a runner can bind each
// lowered global's symbol to data in place (no copy). Where the data lives
// comes from the global's `ml_program.external_storage` attribute (a
// safetensors key or a raw blob offset in a file); a global without one is
// looked up by its symbol name in a default safetensors bundle.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_RUNTIME_EXTERNALSTORAGE_H
#define MLPROG_RUNTIME_EXTERNALSTORAGE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace mlprog {

class SafeTensorsFile;

/// Where relative storage paths and storage-less globals are looked up.
struct ExternalStorageOptions {
  /// Directory against which relative `file` paths resolve, and which they
  /// may not leave (usually the directory of the IR file; see
  /// mlprog/Support/ModelPath.h). Empty: the current directory.
  std::string baseDirectory;
  /// safetensors bundle searched by symbol name for extern globals that have
  /// no `ml_program.external_storage` (a relative path is taken as is).
  /// Empty: such globals are an error.
  std::string defaultBundle;
  /// Largest total, in bytes, of immutable extern weights that
  /// ExternalStorage::inlineConstants reads into the module so that the
  /// compiler can pre-pack them (mlprog-run/mlprog-compile
  /// --prepack-weights-limit, in MiB).
  uint64_t prepackLimit = kDefaultPrepackLimit;

  /// 1 GiB: every model of the benchmarks, while a 1B-parameter model's
  /// 4 GB of fp32 weights stay memory-mapped.
  static constexpr uint64_t kDefaultPrepackLimit = uint64_t(1) << 30;
};

/// The `--bundle FILE.safetensors` and `--weights-dir DIR` command-line
/// options of mlprog-run and mlprog-compile, registered in `category`.
struct ExternalStorageCLOptions {
  explicit ExternalStorageCLOptions(llvm::cl::OptionCategory &category);

  /// The options for the IR file `inputFile`: relative storage paths
  /// resolve against --weights-dir, else against `inputFile`'s directory.
  ExternalStorageOptions get(llvm::StringRef inputFile) const;

  llvm::cl::opt<std::string> bundle;
  llvm::cl::opt<std::string> weightsDir;
  llvm::cl::opt<uint64_t> prepackLimitMiB;
};

/// The data of a module's extern globals, memory-mapped copy-on-write: reads
/// use the file's pages, and stores to a mutable extern global stay private
/// to this process. Keep it alive as long as code uses the addresses.
class ExternalStorage {
public:
  /// Maps the storage of every extern `ml_program.global` in `module`.
  /// Checks, per global: the `file` resolves with `resolveModelPath` (a
  /// relative one inside `options.baseDirectory`, not through `..` or a
  /// symlink leading out; an absolute one, as the importers write them,
  /// anywhere) to a regular file that opens; a safetensors key exists with the
  /// global's element type and shape (the extern attribute's type, which
  /// must be statically shaped); a raw blob's offset plus the type's byte
  /// size (and `length`, when given) lie inside the file. Data that is not
  /// aligned to its element size is copied into an aligned buffer. Errors
  /// name the global and the file.
  static llvm::Expected<std::unique_ptr<ExternalStorage>>
  resolve(mlir::ModuleOp module, const ExternalStorageOptions &options);

  ~ExternalStorage();

  /// Gives each immutable extern global of `module` whose data this storage
  /// mapped its data as an inline dense initial value (a copy), and drops
  /// its `ml_program.external_storage` and address, when the total of
  /// those globals is at most `limit` bytes; otherwise changes nothing. The
  /// CPU pipeline pre-packs and folds constant weights at compile time
  /// (FoldConstantPanels, FoldConstantTransposes), which it cannot do for
  /// data it only sees at run time, so a model runs as fast from a bundle as
  /// with its weights in the IR; above the limit the weights are read in
  /// place from the mapping and memory stays near their size. Only
  /// statically shaped int/float tensors of whole bytes (not i1) are
  /// inlined. Returns the bytes inlined.
  uint64_t inlineConstants(mlir::ModuleOp module, uint64_t limit);

  /// Address of each extern global's data, by symbol name.
  const llvm::StringMap<void *> &getAddresses() const { return addresses; }

private:
  ExternalStorage() = default;
  llvm::Expected<void *> resolveGlobal(mlir::Operation *global,
                                       const ExternalStorageOptions &options);
  llvm::Expected<const SafeTensorsFile *> openBundle(llvm::StringRef path);
  llvm::Expected<llvm::StringRef> openBlobFile(llvm::StringRef path);

  llvm::StringMap<std::unique_ptr<SafeTensorsFile>> bundles;
  struct BlobFile;
  llvm::StringMap<std::unique_ptr<BlobFile>> blobFiles;
  std::vector<std::unique_ptr<char[]>> alignedCopies;
  llvm::StringMap<void *> addresses;
};

} // namespace mlprog

#endif // MLPROG_RUNTIME_EXTERNALSTORAGE_H
