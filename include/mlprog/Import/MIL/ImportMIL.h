//===- ImportMIL.h - Core ML ML Program (MIL) importer ----------*- C++ -*-===//
//
// Imports a Core ML ML Program (the MIL protobuf `Program`, see mil.proto)
// into an import-contract module: one public `ml_program.func` per program
// function, private immutable `ml_program.global`s for large constants and
// weight blobs, ops from linalg/tensor/arith/math/scf built by the shared
// tensor op builders (mlprog/Import/Common).
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_MIL_IMPORTMIL_H
#define MLPROG_IMPORT_MIL_IMPORTMIL_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace mlprog {

/// Options of the MIL importer.
struct MILImportOptions {
  /// The block specialization (opset name, e.g. "CoreML7") imported for
  /// every function; empty: each function's own `opset`. A function without
  /// that specialization is an error.
  std::string opset;
  /// Immediate (inline) tensor values with more elements than this become
  /// private globals with an inline `dense` value; smaller ones become
  /// `arith.constant`s.
  int64_t maxConstantElements = 64;
  /// Folder that blob values' files (`@model_path/weights/weight.bin`)
  /// resolve against and must stay inside (`--weights-dir`). Empty: the
  /// folder of the model file (of the root model, for an `.mlpackage`).
  std::string weightsDir;
};

/// Imports the MIL program at `path`, which is one of
///  - a serialized `Program` message,
///  - a Core ML model (`.mlmodel`, a `Model` message whose field 502 holds
///    the Program),
///  - an `.mlpackage` directory, or its `Manifest.json`: the root model
///    named by `rootModelIdentifier` is read from `Data/<path>`.
/// Blob values (`BlobFileValue`) name their file relative to the model's
/// directory (`@model_path/weights/weight.bin` is `<dir of the model
/// file>/weights/weight.bin`); each blob is validated (blob storage v2,
/// see mlprog/Formats/BlobFile.h) and becomes a private immutable global
/// `#ml_program.extern : T` with `ml_program.external_storage = <file =
/// "<absolute path>", offset = <data offset>, length = <bytes>>`.
///
/// Each function becomes a public `ml_program.func` of the same name whose
/// arguments are the function inputs (in order) and whose results are the
/// outputs of the chosen block. Locations are `NameLoc(<output name>,
/// <file>:0:0)`.
///
/// Returns null after emitting located diagnostics for unreadable files,
/// malformed protobufs, unsupported types or ops (naming the op type and
/// its output), undefined names, mismatched block outputs, invalid blobs, or
/// a module that fails to verify. Loads the dialects it emits into `ctx`.
mlir::OwningOpRef<mlir::ModuleOp>
importMIL(llvm::StringRef path, mlir::MLIRContext *ctx,
          const MILImportOptions &options = {});

/// Imports the file in `buffer` as above; the buffer identifier is the path
/// of the file (locations, and the base of relative blob paths). A buffer
/// holding JSON is read as an `.mlpackage`'s Manifest.json.
mlir::OwningOpRef<mlir::ModuleOp>
importMIL(const llvm::MemoryBuffer &buffer, mlir::MLIRContext *ctx,
          const MILImportOptions &options = {});

/// Registers the `--import-mil` translation (with its `--mil-opset NAME`
/// option) with mlir-translate, with the dialects of
/// mlprog::registerMLProgDialects.
void registerImportMILTranslation();

} // namespace mlprog

#endif // MLPROG_IMPORT_MIL_IMPORTMIL_H
