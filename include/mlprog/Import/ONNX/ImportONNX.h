//===- ImportONNX.h - ONNX model importer -----------------------*- C++ -*-===//
//
// Imports an ONNX ModelProto into an import-contract module: one public
// `ml_program.func @main` holding the graph, one private immutable
// `ml_program.global` per initializer, and ops from linalg/tensor/arith/math
// built by the shared tensor op builders (mlprog/Import/Common).
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_ONNX_IMPORTONNX_H
#define MLPROG_IMPORT_ONNX_IMPORTONNX_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace mlprog {

/// Imports the serialized ONNX model in `buffer`; the buffer identifier is
/// the file name used in locations (`file:0:0`, wrapped in a NameLoc of the
/// node name or `<op_type>#<index>`).
///
/// The model is parsed with protobuf, checked with onnx::checker::check_model
/// and shape-inferred with onnx::shape_inference::InferShapes (strict mode).
/// Graph inputs that are not initializers become the arguments of `@main`,
/// graph outputs its results; unknown or symbolic extents become `?`.
/// Attribute defaults follow the ONNX operator spec for the model's default
/// domain opset (ONNX 1.12 operator set).
///
/// Returns null after emitting diagnostics (with file and node name) for a
/// malformed protobuf, checker or inference failures, unsupported ops,
/// dtypes or attributes, external data, or a module that fails to verify.
/// Loads the dialects it emits into `ctx`.
mlir::OwningOpRef<mlir::ModuleOp> importONNX(const llvm::MemoryBuffer &buffer,
                                             mlir::MLIRContext *ctx);

/// Reads `path` (or stdin for "-") and imports it as above.
mlir::OwningOpRef<mlir::ModuleOp> importONNX(llvm::StringRef path,
                                             mlir::MLIRContext *ctx);

/// Registers the `--import-onnx` translation (file -> MLIR) with
/// mlir-translate, with the dialects of mlprog::registerMLProgDialects.
void registerImportONNXTranslation();

} // namespace mlprog

#endif // MLPROG_IMPORT_ONNX_IMPORTONNX_H
