//===- TorchScriptModule.cpp - The mlprog._mlprog_torchscript extension ---===//
//
// The TorchScript importer as its own extension, so that libtorch is loaded
// only when a TorchScript program is imported: `import mlprog` and the ONNX
// and Core ML importers never load it, and so never meet a different torch
// that the user's process holds. python/mlprog/__init__.py loads this module
// on the first `import_torchscript`, after checking that a torch already
// imported is the one this module was built against (two libtorch builds in
// one process crash; see docs/importers/torchscript.md, "Which libtorch").
//
// The imported module crosses to mlprog._mlprog as MLIR bytecode: each
// extension keeps its own C++ types, and bytecode keeps the locations and
// the weights exactly.
//
//===----------------------------------------------------------------------===//

#include "DiagnosticError.h"
#include "ExtensionSupport.h"

#include "mlprog/Import/TorchScript/ImportTorchScript.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace mlir;
using mlprog::python::DiagnosticCapture;
using mlprog::python::DiagnosticError;

/// Imports the archive or IR text at `path` (see TorchScriptImportOptions)
/// and returns the module as MLIR bytecode. `shapes` entries are lists of
/// extents, None for an unknown one; `constants` binds number parameters
/// by name (TorchScriptImportOptions::constantInputs). Raises mlprog.Error with
/// the located diagnostics; warnings become Python warnings.
static py::bytes importTorchScriptFile(
    const std::string &path, const std::string &method,
    const std::vector<std::vector<std::optional<int64_t>>> &shapes,
    const std::vector<std::string> &dtypes,
    const std::vector<std::pair<std::string, std::string>> &constants) {
  mlprog::TorchScriptImportOptions options;
  options.method = method;
  options.constantInputs = constants;
  for (const auto &shape : shapes) {
    std::vector<int64_t> extents;
    for (std::optional<int64_t> extent : shape)
      extents.push_back(extent ? *extent : ShapedType::kDynamic);
    options.inputShapes.push_back(std::move(extents));
  }
  options.inputDtypes = dtypes;

  std::shared_ptr<MLIRContext> ctx = mlprog::python::createContext();
  DiagnosticCapture capture(ctx.get());
  std::string bytecode;
  bool written = false;
  {
    py::gil_scoped_release release;
    OwningOpRef<ModuleOp> module =
        mlprog::importTorchScript(path, ctx.get(), options);
    if (module) {
      llvm::raw_string_ostream os(bytecode);
      written = succeeded(writeBytecodeToFile(*module, os));
    }
  }
  if (!written)
    capture.raise("error: cannot import " + path);
  capture.flush();
  return py::bytes(bytecode);
}

PYBIND11_MODULE(_mlprog_torchscript, m) {
  m.doc() = "mlprog's TorchScript importer (private; use "
            "mlprog.import_torchscript)";
  py::handle errorType =
      py::object(py::module_::import("mlprog._mlprog").attr("Error")).release();
  mlprog::python::registerErrorTranslator(errorType);
  /// The libtorch version this extension links ("2.9.1").
  m.attr("torch_version") = MLPROG_TORCH_VERSION;
  m.def("import_file", &importTorchScriptFile, py::arg("path"),
        py::arg("method"), py::arg("input_shapes"), py::arg("input_dtypes"),
        py::arg("constant_inputs"));
}
