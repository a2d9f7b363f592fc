//===- AtomicOutput.h - No half-written tool outputs ------------*- C++ -*-===//
//
// mlir-opt's and mlir-translate's drivers open `-o FILE` before they run and
// truncate it; a failed run then leaves no FILE at all, or (when killed) a
// partial one. The tools instead write to a temporary file next to FILE and
// rename it over FILE only when the run succeeded.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_SUPPORT_ATOMICOUTPUT_H
#define MLPROG_SUPPORT_ATOMICOUTPUT_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

namespace mlprog {

/// Calls `toolMain(argc, argv)` with its `-o FILE` / `-o=FILE` / `--o ...`
/// argument (if any, and not "-") replaced by a new temporary file
/// `FILE.tmp-XXXXXX` in FILE's directory. When `toolMain` returns 0 the
/// temporary file is renamed to FILE; otherwise, or when the process exits
/// or is killed by a signal first, it is removed and FILE is left as it was.
/// A FILE whose directory cannot hold the temporary file is reported as
/// "<argv[0]>: error: cannot write 'FILE': <reason>" with status 1 before
/// `toolMain` runs.
int runWithAtomicOutput(int argc, char **argv,
                        llvm::function_ref<int(int, char **)> toolMain);

/// While `runWithAtomicOutput` runs its `toolMain`: the FILE the tool's
/// output will be renamed to (not the temporary file `-o` now names), so
/// that a tool can write companion files beside it (mlprog-translate's
/// weights bundle). Empty when the output goes to stdout or no
/// `runWithAtomicOutput` is running.
llvm::StringRef getAtomicOutputPath();

} // namespace mlprog

#endif // MLPROG_SUPPORT_ATOMICOUTPUT_H
