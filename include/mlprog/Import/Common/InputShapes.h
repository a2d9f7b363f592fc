//===- InputShapes.h - The --input-shapes option of the importers -*- C++
//-*-===//
//
// `--input-shapes` pins the shapes of a model's inputs at import time, for
// every importer that takes it (TorchScript: the method's tensor inputs;
// ONNX: the graph inputs that are not initializers), so that extents a
// model leaves symbolic become static and the code generation can use them.
// `--input-constants` binds inputs to numbers at import time (silero-vad's
// sample rate), so that the branches they decide fold away.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_INPUTSHAPES_H
#define MLPROG_IMPORT_COMMON_INPUTSHAPES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlprog {

/// Parses an `--input-shapes` value: shapes separated by ',', extents by
/// 'x', `?` an unknown extent (mlir::ShapedType::kDynamic), an empty item or
/// `scalar` rank 0 (`1x3x224x224,?x10,scalar`). Empty text gives no shapes.
/// Returns std::nullopt on malformed text (a negative or non-numeric
/// extent).
std::optional<std::vector<std::vector<int64_t>>>
parseInputShapes(llvm::StringRef text);

/// The `--input-shapes` option of mlprog-translate, shared by the importers
/// that take it; the first call (from a translation's registration, before
/// the command line is parsed) registers it.
llvm::cl::opt<std::string> &importInputShapesOption();

/// Parses an `--input-constants` value: `name=value` pairs separated by
/// ','. Returns std::nullopt on malformed text (a pair without '=' or with
/// an empty name or value).
std::optional<std::vector<std::pair<std::string, std::string>>>
parseInputConstants(llvm::StringRef text);

/// The `--input-constants` option of mlprog-translate (inputs bound to a
/// number at import time), shared like importInputShapesOption().
llvm::cl::opt<std::string> &importInputConstantsOption();

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_INPUTSHAPES_H
