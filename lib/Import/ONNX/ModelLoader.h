//===- ModelLoader.h - Parse, order, check and infer an ONNX model -*- C++
//-*-===//
//
// Private to MLProgImportONNX. Turns the bytes of a ModelProto into a model
// the ModelImporter can walk: parsed, nodes in topological order, checked by
// libonnx's checker, shape-inferred, and upgraded to the oldest opset the
// handlers implement. Models newer than Debian's libonnx (1.12: IR 8,
// opset 17) are checked and inferred through a view that hides what 1.12
// does not know (docs/importers/onnx.md, "Models newer than libonnx").
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_LIB_IMPORT_ONNX_MODELLOADER_H
#define MLPROG_LIB_IMPORT_ONNX_MODELLOADER_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/MemoryBuffer.h"

#include "onnx/onnx_pb.h"

#include <optional>
#include <string>

namespace mlprog::onnx_import {

/// The newest IR version and default-domain opset Debian's libonnx (1.12)
/// knows; its checker, shape inference and op schemas stop there.
constexpr int64_t kLibONNXMaxIRVersion = 8;
constexpr int64_t kLibONNXMaxOpset = 17;

/// The newest default-domain opset whose schema changes the importer knows
/// (from onnx 1.23, lib/Import/ONNX/NewerOpsets.inc).
int64_t getNewestKnownOpset();

/// True if the schema of default-domain op `opType` at `opset` is newer than
/// libonnx 1.12 knows (the op changed, or first appeared, after opset 17 at
/// or before `opset`), so 1.12's schema, function body and shape inference
/// for it must not be used.
bool isNewerThanLibONNX(llvm::StringRef opType, int64_t opset);

/// Whether `opType` at `opset` means what libonnx 1.12's newest schema of it
/// means: it did not change after opset 17, or every change up to `opset`
/// only added element types (a small table in ModelLoader.cpp). libonnx's
/// function body may then expand it, though its checker still must not see
/// it (the new types would fail the old schema).
bool hasLibONNXMeaning(llvm::StringRef opType, int64_t opset);

/// Where the data of an initializer stored outside the model lives.
struct ExternalData {
  std::string path;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
};

/// Reads the `external_data` entries of `tensor` (ONNX IR "External Tensor
/// Data": location relative to the model's directory, optional offset and
/// length) and resolves the location with `resolveModelPath`
/// (mlprog/Support/ModelPath.h): an absolute location, one that leaves
/// `modelDir` (`..`, a symlink pointing out) or one that is not a regular
/// file is an error at `fileLoc` naming the tensor and the location, as is
/// a range past the file's end. `ExternalData::path` is the canonical path.
mlir::FailureOr<ExternalData> getExternalData(mlir::Location fileLoc,
                                              llvm::StringRef modelDir,
                                              const onnx::TensorProto &tensor);

/// Orders the nodes of `graph` and of every subgraph in it topologically
/// (ONNX IR: "nodes ... MUST be topologically sorted"; exporters and
/// hand-edited models do not always are, and onnxruntime sorts them). The
/// order is stable: a node keeps its place unless an input it reads is
/// produced further down. Names no node of the graph produces (inputs,
/// initializers, outer-scope values) count as available. Errors: a cycle,
/// reported at `fileLoc` with a node on it.
mlir::LogicalResult sortTopologically(mlir::Location fileLoc,
                                      onnx::GraphProto &graph);

/// Pins the shapes of `graph`'s inputs that are not initializers, in order,
/// to `shapes` (`--input-shapes`): a static extent replaces a symbolic or
/// unknown one, `ShapedType::kDynamic` keeps what the model declares. A
/// symbolic extent (`dim_param`) pinned on an input takes the same value
/// wherever the graph's outputs and value infos name it. Errors, naming the
/// input: a count or rank that differs from the model's, a static extent
/// that contradicts it, an input that is not a tensor.
mlir::LogicalResult
applyInputShapes(mlir::Location fileLoc, onnx::GraphProto &graph,
                 llvm::ArrayRef<std::vector<int64_t>> shapes);

/// Binds the graph inputs named in `constants` (`--input-constants`) to
/// their values: each becomes an initializer of the input's element type
/// (integers, float, double, bool) and shape (rank 0 or one element).
/// Errors, naming the input: an unknown name, another type or size, a value
/// that does not parse.
mlir::LogicalResult applyInputConstants(
    mlir::Location fileLoc, onnx::GraphProto &graph,
    llvm::ArrayRef<std::pair<std::string, std::string>> constants);

/// Parses `buffer` into `model`, sorts it topologically, pins the input
/// shapes `inputShapes` (`--input-shapes`, none when empty), binds the
/// inputs of `constantInputs` (`--input-constants`) as initializers, checks it
/// (`onnx::checker::check_model`), upgrades opsets older than 7 and runs
/// shape inference. External data is resolved against `modelDir`.
/// Errors are reported at `fileLoc`.
mlir::LogicalResult
loadModel(const llvm::MemoryBuffer &buffer, mlir::Location fileLoc,
          llvm::StringRef modelDir,
          llvm::ArrayRef<std::vector<int64_t>> inputShapes,
          llvm::ArrayRef<std::pair<std::string, std::string>> constantInputs,
          onnx::ModelProto &model);

} // namespace mlprog::onnx_import

#endif // MLPROG_LIB_IMPORT_ONNX_MODELLOADER_H
