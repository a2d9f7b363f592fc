//===- Passes.td - ml_program transformation passes --------*- tablegen -*-===//

#ifndef MLPROG_DIALECT_MLPROGRAM_TRANSFORMS_PASSES_TD
#define MLPROG_DIALECT_MLPROGRAM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def VerifyImportContract : Pass<"mlprog-verify-import-contract", "mlir::ModuleOp"> {
  let summary = "Checks that a module obeys the importers' output contract";
  let description = [{
    Every importer produces an "import contract" module: `ml_program`
    callables and globals whose bodies use only the `ml_program`, `func`,
    `linalg`, `tensor`, `arith`, `math`, `scf`, `cf` and builtin dialects, on
    tensors (no memrefs). The pass reports the first offending op of each
    callable with its location and fails; it changes nothing.
  }];
}

#endif // MLPROG_DIALECT_MLPROGRAM_TRANSFORMS_PASSES_TD
