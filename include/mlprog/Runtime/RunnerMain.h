//===- RunnerMain.h - The mlprog-run driver ---------------------*- C++ -*-===//

#ifndef MLPROG_RUNTIME_RUNNERMAIN_H
#define MLPROG_RUNTIME_RUNNERMAIN_H

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

} // namespace mlprog

#endif // MLPROG_RUNTIME_RUNNERMAIN_H
