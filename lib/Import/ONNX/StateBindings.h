//===- StateBindings.h - Graph inputs kept in mutable globals ---*- C++ -*-===//
//
// Private to MLProgImportONNX. Resolves the `--state` bindings of
// ONNXImportOptions against a graph (graph input fed back from a graph
// output, e.g. a decoder's past_key_values.N.key / present.N.key), and
// builds what they become: one mutable `ml_program.global` per binding and
// the public `@reset` function that stores the initial values back.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_LIB_IMPORT_ONNX_STATEBINDINGS_H
#define MLPROG_LIB_IMPORT_ONNX_STATEBINDINGS_H

#include "mlprog/Import/Common/ProgramBuilder.h"
#include "mlprog/Import/ONNX/ImportONNX.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include "onnx/onnx_pb.h"

#include <string>

namespace mlprog::onnx_import {

/// The name of the function that stores every state global's initial value
/// back.
constexpr llvm::StringLiteral kResetFunctionName = "reset";

/// One graph input kept in a mutable global, checked against the graph.
struct StateBinding {
  /// The graph input and output names.
  std::string input, output;
  /// The global's bounding type: the input's type (unknown extents `?`).
  mlir::RankedTensorType type;
  /// All zeros, of the initial shape.
  mlir::DenseElementsAttr initialValue;
  /// The global's symbol (set by createStateGlobals).
  std::string symbol;
};

/// Checks `options`' bindings against `graph` and returns them in binding
/// order (the explicit ones, then `auto`'s in graph input order).
/// `isInitializer` tells graph inputs that are initializers. Errors, located
/// at `NameLoc(name, fileLoc)`: a name that is not a graph input (or is an
/// initializer) or not a graph output, a name bound twice, element types,
/// ranks or static extents that differ between input and output, a bad
/// initial shape, `auto` without `past_key_values.*` inputs or with one
/// whose `present.*` output is missing.
mlir::FailureOr<llvm::SmallVector<StateBinding>>
resolveStateBindings(mlir::Location fileLoc, const onnx::GraphProto &graph,
                     const ONNXImportOptions &options,
                     llvm::function_ref<bool(llvm::StringRef)> isInitializer);

/// Creates a private mutable global per binding at `b`'s insertion point,
/// named after the input, and records its symbol in the binding.
void createStateGlobals(mlir::OpBuilder &b, mlir::Location fileLoc,
                        ProgramBuilder &symbols,
                        llvm::MutableArrayRef<StateBinding> bindings);

/// Stores `value` (the binding's output) into the binding's global at `b`'s
/// insertion point, cast to the global's type where they differ. Errors
/// when the computed type is not cast-compatible with it.
mlir::LogicalResult storeState(mlir::OpBuilder &b, mlir::Location loc,
                               const StateBinding &binding, mlir::Value value);

/// Creates the public `ml_program.func @reset() -> ()` at `b`'s insertion
/// point: it stores each binding's initial value into its global.
void createResetFunction(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::ArrayRef<StateBinding> bindings);

} // namespace mlprog::onnx_import

#endif // MLPROG_LIB_IMPORT_ONNX_STATEBINDINGS_H
