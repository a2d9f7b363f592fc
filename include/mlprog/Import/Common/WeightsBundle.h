//===- WeightsBundle.h - Imported weights beside the IR ---------*- C++ -*-===//
//
// mlprog-translate writes a model's large initializers (ONNX initializers,
// TorchScript parameters and buffers, Core ML constants) to a safetensors
// bundle beside the IR file instead of into its text: a torchvision resnet50
// is 102 MB of weights and was 204 MB of IR text. The runners memory-map the
// bundle (docs/weights.md). The options are shared by every importer.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_WEIGHTSBUNDLE_H
#define MLPROG_IMPORT_COMMON_WEIGHTSBUNDLE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <string>

namespace mlprog {

/// Smallest initial value, in bytes, that mlprog-translate writes to the
/// weights bundle by default (`--weights-threshold`): weights and biases
/// leave the IR, shape vectors and scalars stay readable in it.
inline constexpr uint64_t kDefaultWeightsThreshold = 1024;

/// Where an import's weights go.
struct ImportWeightsOptions {
  /// The safetensors bundle to write; empty: keep every weight inline.
  std::string bundlePath;
  /// The file name recorded in `ml_program.external_storage`: the bundle's
  /// file name when it lies beside the IR file (resolved against the IR
  /// file's directory), else its absolute path.
  std::string storagePath;
  /// Smallest initial value, in bytes, that moves to the bundle.
  uint64_t threshold = kDefaultWeightsThreshold;
};

/// Registers mlprog-translate's weights options on the first call (every
/// importer's translation registration calls it, before the command line is
/// parsed):
///   --weights-bundle=FILE   the bundle (default: the `-o` file with the
///                           extension `.safetensors`, or with
///                           `.weights.safetensors` appended when it already
///                           has that extension; none for stdout)
///   --weights-threshold=N   smallest initializer in bytes that moves
///                           (default kDefaultWeightsThreshold)
///   --inline-weights        keep every initializer in the IR text
void registerImportWeightsOptions();

/// The options given on the command line, for an IR file written to
/// `outputPath` (empty or "-": stdout, where weights stay inline unless
/// --weights-bundle names a bundle, recorded by its absolute path).
ImportWeightsOptions getImportWeightsOptions(llvm::StringRef outputPath);

/// Moves the initial values of `module`'s globals of at least
/// `options.threshold` bytes into `options.bundlePath`
/// (mlprog::externalizeGlobals); does nothing when the bundle path is empty.
/// Errors (the bundle cannot be written) are emitted at the module.
mlir::LogicalResult writeImportedWeights(mlir::ModuleOp module,
                                         const ImportWeightsOptions &options);

/// For a translation registration: writes the weights of `module` as the
/// command line says, for the file mlprog-translate is writing
/// (mlprog::getAtomicOutputPath). Returns null (the error emitted) when the
/// bundle cannot be written, so that nothing is written at all.
mlir::OwningOpRef<mlir::Operation *>
writeTranslatedWeights(mlir::OwningOpRef<mlir::Operation *> module);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_WEIGHTSBUNDLE_H
