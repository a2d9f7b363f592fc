//===- ExtensionSupport.cpp - What mlprog's Python extensions share ------===//
//
// Contexts and diagnostics shared by mlprog._mlprog and
// mlprog._mlprog_torchscript (see ExtensionSupport.h).
//
//===----------------------------------------------------------------------===//

#include "ExtensionSupport.h"
#include "DiagnosticError.h"

#include "mlprog/InitAll.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Location.h"
#include "llvm/Support/FormatVariadic.h"

#include <pybind11/stl.h>

namespace py = pybind11;
using namespace mlir;
using namespace mlprog;
using mlprog::python::DiagnosticCapture;
using mlprog::python::DiagnosticError;

/// "file:line:col" of the first file location inside `loc` (NameLoc,
/// CallSiteLoc and FusedLoc wrap one); empty for unknown locations.
static std::string formatLocation(Location loc) {
  std::string result;
  loc->walk([&](Location nested) {
    auto fileLoc = dyn_cast<FileLineColLoc>(nested);
    if (!fileLoc)
      return WalkResult::advance();
    result = llvm::formatv("{0}:{1}:{2}", fileLoc.getFilename().getValue(),
                           fileLoc.getLine(), fileLoc.getColumn());
    return WalkResult::interrupt();
  });
  return result;
}

static StringRef getSeverityName(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Note:
    return "note";
  case DiagnosticSeverity::Remark:
    return "remark";
  }
  return "error";
}

std::string mlprog::python::formatDiagnostic(const Diagnostic &diag) {
  std::string location = formatLocation(diag.getLocation());
  std::string result;
  llvm::raw_string_ostream os(result);
  if (!location.empty())
    os << location << ": ";
  os << getSeverityName(diag.getSeverity()) << ": " << diag.str();
  return result;
}

DiagnosticCapture::DiagnosticCapture(MLIRContext *ctx)
    : handler(ctx, [this](Diagnostic &diag) {
        std::vector<std::string> &list =
            diag.getSeverity() == DiagnosticSeverity::Error ? errors : warnings;
        list.push_back(formatDiagnostic(diag));
        for (const Diagnostic &note : diag.getNotes())
          list.push_back(formatDiagnostic(note));
        return success();
      }) {}

void DiagnosticCapture::raise(const std::string &detail) {
  std::vector<std::string> lines = errors;
  if (lines.empty() && !detail.empty())
    lines.push_back(detail);
  if (lines.empty())
    lines.push_back("error: operation failed without a diagnostic");
  throw DiagnosticError(std::move(lines));
}

void DiagnosticCapture::flush() {
  if (warnings.empty())
    return;
  py::object warn = py::module_::import("warnings").attr("warn");
  for (const std::string &line : warnings)
    warn(line, py::module_::import("builtins").attr("RuntimeWarning"), 2);
  warnings.clear();
}

void mlprog::python::raiseError(DiagnosticCapture &capture, llvm::Error err) {
  capture.raise("error: " + llvm::toString(std::move(err)));
}

//===----------------------------------------------------------------------===//

/// The dialects and interfaces every mlprog context has (see InitAll.h).
static const DialectRegistry &getRegistry() {
  static const DialectRegistry *registry = [] {
    auto *result = new DialectRegistry();
    registerMLProgDialects(*result);
    return result;
  }();
  return *registry;
}

std::shared_ptr<MLIRContext> mlprog::python::createContext() {
  auto ctx = std::make_shared<MLIRContext>(getRegistry());
  ctx->loadAllAvailableDialects();
  // Python users get the located messages, not a dump of each failing op.
  ctx->printOpOnDiagnostic(false);
  return ctx;
}

void mlprog::python::registerErrorTranslator(py::handle errorType) {
  static py::handle type = errorType;
  py::register_local_exception_translator([](std::exception_ptr ptr) {
    try {
      if (ptr)
        std::rethrow_exception(ptr);
    } catch (const DiagnosticError &err) {
      py::object instance =
          py::reinterpret_borrow<py::object>(type)(py::str(err.message));
      instance.attr("diagnostics") = py::cast(err.diagnostics);
      PyErr_SetObject(type.ptr(), instance.ptr());
    }
  });
}
