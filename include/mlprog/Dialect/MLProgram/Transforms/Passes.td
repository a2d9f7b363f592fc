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

def TopologicalSort : Pass<"mlprog-topological-sort", "mlir::ModuleOp"> {
  let summary = "Turns every subgraph into a func by ordering its graph";
  let description = [{
    A `subgraph` body is a graph region: its ops are ordered only by data
    edges and token edges. This pass orders each body along those edges
    (stably: independent ops keep their relative order), then rewrites the
    subgraph as an `ml_program.func` whose program order is that order:
    `global_load_graph`/`global_store_graph` become `global_load`/
    `global_store`, `ml_program.token` ops and token operands disappear, and
    `output` becomes `return` (RFC v2: tokens only constrain order).

    A cycle of data or token edges is an error at one op of the cycle, with a
    note at each other op that could not be ordered. Subgraphs whose
    signature carries tokens are an error: tokens do not cross callables.
  }];
}

#endif // MLPROG_DIALECT_MLPROGRAM_TRANSFORMS_PASSES_TD
