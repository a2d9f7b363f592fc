//===- ExtensionSupport.h - What mlprog's Python extensions share -*- C++
//-*-===//
//
// Private to python/: MLIR contexts and the diagnostics-to-`mlprog.Error`
// machinery used by both extensions, mlprog._mlprog and the TorchScript
// importer's mlprog._mlprog_torchscript (a separate extension so that
// libtorch is loaded only when a TorchScript program is imported; see
// docs/importers/torchscript.md, "Which libtorch").
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_PYTHON_EXTENSIONSUPPORT_H
#define MLPROG_PYTHON_EXTENSIONSUPPORT_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Error.h"

#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <vector>

namespace mlprog::python {

/// A new context with every mlprog dialect and interface loaded
/// (registerMLProgDialects), printing no op dumps on diagnostics.
std::shared_ptr<mlir::MLIRContext> createContext();

/// One diagnostic as the command-line tools print it:
/// "file:line:col: error: message" (the location part is left out for
/// unknown locations).
std::string formatDiagnostic(const mlir::Diagnostic &diag);

/// Collects the diagnostics of a context while alive. Errors (with their
/// notes) are raised by `raise`; warnings become Python warnings in `flush`.
/// Never touches Python objects in the handler, so the GIL may be released
/// while it is active.
class DiagnosticCapture {
public:
  explicit DiagnosticCapture(mlir::MLIRContext *ctx);

  /// Throws a DiagnosticError of the collected errors, or of `detail` when
  /// no error diagnostic was emitted.
  [[noreturn]] void raise(const std::string &detail = "");

  /// Issues the collected warnings and remarks as Python `RuntimeWarning`s.
  /// Needs the GIL.
  void flush();

private:
  std::vector<std::string> errors, warnings;
  mlir::ScopedDiagnosticHandler handler;
};

/// Raises the diagnostics `capture` collected, or `err` when there are none.
[[noreturn]] void raiseError(DiagnosticCapture &capture, llvm::Error err);

/// Makes the calling extension translate DiagnosticError into `errorType`
/// (`mlprog.Error`), with the diagnostic lines in its `diagnostics`
/// attribute.
void registerErrorTranslator(pybind11::handle errorType);

} // namespace mlprog::python

#endif // MLPROG_PYTHON_EXTENSIONSUPPORT_H
