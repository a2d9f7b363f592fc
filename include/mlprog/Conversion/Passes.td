//===- Passes.td - mlprog conversion passes ----------------*- tablegen -*-===//

#ifndef MLPROG_CONVERSION_PASSES_TD
#define MLPROG_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertMLProgramToMemRef
    : Pass<"convert-ml-program-to-memref", "mlir::ModuleOp"> {
  let summary = "Lowers ml_program callables to func and globals to memref";
  let description = [{
    Prepares an import-contract module for one-shot bufferization:

    - `ml_program.func` becomes `func.func`, `return` becomes
      `func.return`, `call` becomes `func.call`; a `subgraph` is an error
      (order it into a func with `--mlprog-topological-sort` first);
    - `ml_program.global` with a static tensor bounding type becomes a
      `memref.global` (`constant` when immutable, `uninitialized` when it has
      no initial value);
    - loads become `memref.get_global` + `bufferization.to_tensor restrict`
      (a copy is taken for mutable globals so that later stores do not change
      an earlier load), stores become
      `bufferization.materialize_in_destination`.

    Globals with dynamic bounding types or `#ml_program.extern` values are
    reported as errors at the global.
  }];
  let dependentDialects = [
    "mlir::bufferization::BufferizationDialect",
    "mlir::func::FuncDialect",
    "mlir::memref::MemRefDialect",
    "mlir::tensor::TensorDialect",
  ];
}

#endif // MLPROG_CONVERSION_PASSES_TD
