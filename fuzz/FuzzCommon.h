//===- FuzzCommon.h - Shared setup of the libFuzzer targets -----*- C++ -*-===//
//
// Every target feeds the fuzzer's bytes to one reader and checks only what
// must hold for any input: no crash, no sanitizer report, no hang, no
// unbounded allocation (libFuzzer's -rss_limit_mb / -malloc_limit_mb), and
// a failure comes with at least one error diagnostic.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_FUZZ_FUZZCOMMON_H
#define MLPROG_FUZZ_FUZZCOMMON_H

#include "mlprog/Support/ResourceLimits.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <cstdio>
#include <cstdlib>

namespace mlprog::fuzz {

/// Limits every reader to 64 MiB tensors, well below libFuzzer's default
/// 2 GiB malloc limit, so a large declared size is a refusal, not an OOM.
inline void initLimits() { setMaxTensorBytes(uint64_t(64) << 20); }

/// Swallows diagnostics and counts errors, so that a target can check that
/// a failed import said why.
class DiagnosticCounter {
public:
  explicit DiagnosticCounter(mlir::MLIRContext &ctx)
      : handler(&ctx, [this](mlir::Diagnostic &diag) {
          if (diag.getSeverity() == mlir::DiagnosticSeverity::Error)
            ++errors;
          return mlir::success();
        }) {}
  unsigned getErrors() const { return errors; }

private:
  unsigned errors = 0;
  mlir::ScopedDiagnosticHandler handler;
};

/// Aborts (a fuzzer finding) when a reader failed without an error.
inline void checkFailureExplained(bool failed, const DiagnosticCounter &diags,
                                  const char *reader) {
  if (failed && diags.getErrors() == 0) {
    std::fprintf(stderr, "%s failed without an error diagnostic\n", reader);
    std::abort();
  }
}

} // namespace mlprog::fuzz

#endif // MLPROG_FUZZ_FUZZCOMMON_H
