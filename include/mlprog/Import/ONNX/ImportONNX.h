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
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace llvm {
class MemoryBuffer;
} // namespace llvm

namespace mlprog {

/// A graph input that the importer keeps in a mutable `ml_program.global`
/// instead of taking it as an argument: the caller would feed it back from
/// graph output `output` on the next call (an ONNX decoder's
/// `past_key_values.0.key` / `present.0.key`). See docs/state.md.
struct ONNXStateBinding {
  /// The graph input (not an initializer).
  std::string input;
  /// The graph output holding the input's next value; same element type and
  /// rank as `input`, and the same extent wherever both are static.
  std::string output;
  /// Shape of the initial value (all zeros): static, of the input's rank,
  /// agreeing with its static extents. Unset: the input's shape with every
  /// unknown extent 0 (an empty cache).
  std::optional<std::vector<int64_t>> initialShape;
};

/// Options of the ONNX importer.
struct ONNXImportOptions {
  /// Graph inputs kept in mutable globals (`--state=IN:OUT,...`). Each
  /// input is read with `ml_program.global_load` at the start of `@main`
  /// and is no longer an argument; each output is written back with
  /// `ml_program.global_store` at its end and is no longer a result. With
  /// any state the module also gets a public `@reset` that stores every
  /// initial value back.
  std::vector<ONNXStateBinding> state;
  /// Also binds every graph input named `past_key_values.<rest>` to the
  /// graph output `present.<rest>` (the names transformers and optimum
  /// exports use; `--state=auto`), with initial shape `autoInitialShape`.
  bool autoState = false;
  std::optional<std::vector<int64_t>> autoInitialShape;
  /// Folder that initializers' external data (`location`) resolves against
  /// and must stay inside (`--weights-dir`). Empty: the model file's folder,
  /// or the working directory for stdin and in-memory models.
  std::string weightsDir;
  /// Shapes pinned on the graph inputs that are not initializers, in order
  /// (`--input-shapes`; mlir::ShapedType::kDynamic keeps an extent as the
  /// model declares it). Empty: the model's own shapes. Applied before
  /// shape inference, so the extents they fix propagate through the graph.
  std::vector<std::vector<int64_t>> inputShapes;
  /// Graph inputs bound to a number at import time (`--input-constants`,
  /// `sr=16000`): each becomes an initializer of its declared element type
  /// (int, float or bool; rank 0 or one element) and is no argument, so the
  /// Equal/If that test it fold. Applied after `inputShapes`, which count it.
  std::vector<std::pair<std::string, std::string>> constantInputs;
};

/// Parses a `--state` value into `options` (adding to it): items separated
/// by ',', each `IN:OUT` (exactly one ':') or `auto`, optionally followed
/// by `=SHAPE`, the initial shape as static extents separated by 'x'
/// (`past.0.key:present.0.key=1x4x0x16`, `auto=1x4x0x16`). Empty text adds
/// nothing. Returns an error naming the malformed item.
llvm::Error parseONNXStateOption(llvm::StringRef text,
                                 ONNXImportOptions &options);

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
/// `options.state` turns graph inputs into mutable globals (see
/// ONNXImportOptions); a name that is not a graph input or output, a name
/// bound twice, or an input and output whose element types, ranks or static
/// extents differ is an error located at the name.
///
/// Returns null after emitting diagnostics (with file and node name) for a
/// malformed protobuf, checker or inference failures, unsupported ops,
/// dtypes or attributes, external data, bad state bindings, or a module that
/// fails to verify. Loads the dialects it emits into `ctx`.
mlir::OwningOpRef<mlir::ModuleOp>
importONNX(const llvm::MemoryBuffer &buffer, mlir::MLIRContext *ctx,
           const ONNXImportOptions &options = {});

/// Reads `path` (or stdin for "-") and imports it as above.
mlir::OwningOpRef<mlir::ModuleOp>
importONNX(llvm::StringRef path, mlir::MLIRContext *ctx,
           const ONNXImportOptions &options = {});

/// Registers the `--import-onnx` translation (file -> MLIR) with
/// mlir-translate, with the dialects of mlprog::registerMLProgDialects and
/// the option `--state` (parseONNXStateOption).
void registerImportONNXTranslation();

} // namespace mlprog

#endif // MLPROG_IMPORT_ONNX_IMPORTONNX_H
