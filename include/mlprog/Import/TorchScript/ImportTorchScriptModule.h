//===- ImportTorchScriptModule.h - Import live libtorch objects -*- C++ -*-===//
//
// Entry points of the TorchScript importer that take libtorch objects (for
// the Python package, which holds a `torch.jit.ScriptModule`). Including
// this header pulls in libtorch's headers; translation units that do must be
// compiled with RTTI.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_TORCHSCRIPT_IMPORTTORCHSCRIPTMODULE_H
#define MLPROG_IMPORT_TORCHSCRIPT_IMPORTTORCHSCRIPTMODULE_H

#include "mlprog/Import/TorchScript/ImportTorchScript.h"

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/ir.h>

namespace mlprog {

/// Imports the methods `options.method` names of `module` (see
/// TorchScriptImportOptions::method and importTorchScript) into one module.
/// The module is not modified: each method's graph is copied before
/// torch's passes run. Parameters, buffers and attributes read by the method
/// become globals, named by their attribute path (`layer1.0.conv1.weight`).
/// `fileName` is used in locations of nodes without a source range.
mlir::OwningOpRef<mlir::ModuleOp>
importTorchScriptModule(const torch::jit::Module &module,
                        mlir::MLIRContext *ctx,
                        const TorchScriptImportOptions &options = {},
                        llvm::StringRef fileName = "<module>");

/// Imports a free-standing graph (no `self` input) as function `funcName`.
/// The graph is copied before torch's passes run.
mlir::OwningOpRef<mlir::ModuleOp> importTorchScriptGraph(
    const std::shared_ptr<torch::jit::Graph> &graph, mlir::MLIRContext *ctx,
    const TorchScriptImportOptions &options = {},
    llvm::StringRef funcName = "forward", llvm::StringRef fileName = "<graph>");

} // namespace mlprog

#endif // MLPROG_IMPORT_TORCHSCRIPT_IMPORTTORCHSCRIPTMODULE_H
