//===- RunnerMain.h - The mlprog-run driver ---------------------*- C++ -*-===//

#ifndef MLPROG_RUNTIME_RUNNERMAIN_H
#define MLPROG_RUNTIME_RUNNERMAIN_H

#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlprog {

/// The whole of `mlprog-run`:
///
///   mlprog-run FILE.mlir [--entry NAME] [--input X.npy]... [--output-dir DIR]
///              [--print] [--repeat N]
///
/// Parses FILE with the dialects in `registry`, compiles it with `JitRunner`,
/// binds the .npy inputs positionally, runs the entry N times and writes
/// result i of the last run to DIR/output_i.npy (creating DIR) and/or prints
/// it. Errors are MLIR diagnostics or "mlprog-run: error: ..." lines naming
/// the file; they return 1 and leave no output files behind. Returns 0 on
/// success.
int mlprogRunMain(int argc, char **argv, mlir::DialectRegistry &registry);

/// `argv` with `--threads[=N]` and `-threads[=N]` spelled `--num-threads`:
/// libLLVM already owns a global "threads" option, so mlprog-run registers
/// --num-threads and accepts --threads through this. The renamed arguments
/// live in `storage`, which must outlive the result.
std::vector<char *> renameThreadsOption(int argc, char **argv,
                                        std::vector<std::string> &storage);

} // namespace mlprog

#endif // MLPROG_RUNTIME_RUNNERMAIN_H
