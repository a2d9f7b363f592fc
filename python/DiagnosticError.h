//===- DiagnosticError.h - Errors of the Python extension ------*- C++ -*-===//
//
// Private to python/: the C++ exception that the extension turns into
// `mlprog.Error`.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_PYTHON_DIAGNOSTICERROR_H
#define MLPROG_PYTHON_DIAGNOSTICERROR_H

#include <exception>
#include <string>
#include <vector>

namespace mlprog::python {

/// A failure reported to Python as `mlprog.Error`: the message is the
/// diagnostics joined by newlines; `diagnostics` keeps them one per entry.
struct DiagnosticError : std::exception {
  explicit DiagnosticError(std::vector<std::string> diagnostics)
      : diagnostics(std::move(diagnostics)) {
    for (const std::string &line : this->diagnostics)
      message += (message.empty() ? "" : "\n") + line;
  }
  explicit DiagnosticError(const std::string &line)
      : DiagnosticError(std::vector<std::string>{line}) {}
  const char *what() const noexcept override { return message.c_str(); }

  std::vector<std::string> diagnostics;
  std::string message;
};

} // namespace mlprog::python

#endif // MLPROG_PYTHON_DIAGNOSTICERROR_H
