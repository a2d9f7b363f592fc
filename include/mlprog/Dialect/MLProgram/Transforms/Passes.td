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

def PipelineGlobals : Pass<"mlprog-pipeline-globals", "mlir::ModuleOp"> {
  let summary = "Forwards global values and drops dead stores across calls";
  let description = [{
    Upstream's `mlprog-pipeline-globals`, made safe: first every callable
    gets a summary of the globals it (and everything it calls) may read and
    write; calls that do not resolve to a callable with a body in the module
    (declarations, indirect calls, calls to other symbol tables) count as
    reading and writing every global, where upstream crashes. Then, within
    each block of an `ml_program.func` or `func.func`, a `global_load` takes the value of
    the last store to, or load of, that global when nothing in between may
    write it, and a `global_store` that is overwritten before anything may
    read it, or that stores the value the global is known to hold, is
    erased. Unlike `--canonicalize`, a call to a callee whose
    summary does not touch a global does not block either rewrite.
  }];
}

def ExternalizeGlobals
    : Pass<"mlprog-externalize-globals", "mlir::ModuleOp"> {
  let summary = "Moves large inline initial values into a safetensors bundle";
  let description = [{
    Every `ml_program.global` whose inline initial value (a dense or
    dense_resource elements attribute) holds at least `threshold` bytes is
    written to the safetensors bundle `bundle`, keyed by the global's symbol
    name, and its initial value becomes `#ml_program.extern : T` with
    `ml_program.external_storage = #ml_program.external_storage<file = F,
    key = "name">`. F is `storage-path` when given, else the bundle's file
    name: the runner resolves it against the directory of the IR file, so
    keep the bundle beside it (or pass `mlprog-run --weights-dir`).
    Mutable globals (state) keep their initial values inline: the CPU
    lowering updates them in place and model instances copy them.

    The bundle is written atomically (temporary file, then rename) and only
    when at least one global moves. Errors: no `bundle`, element types the
    format cannot hold are skipped with a remark, I/O failures fail the pass
    with nothing written. `--mlprog-internalize-globals` is the inverse.

    ```
    mlprog-opt model.mlir -o out/model.mlir \
      --mlprog-externalize-globals="threshold=1024 bundle=out/model.safetensors"
    ```
  }];
  let options = [
    Option<"threshold", "threshold", "uint64_t", /*default=*/"1024",
           "Smallest initial value, in bytes, that moves to the bundle">,
    Option<"bundle", "bundle", "std::string", /*default=*/"",
           "Path of the safetensors bundle to write">,
    Option<"storagePath", "storage-path", "std::string", /*default=*/"",
           "File name recorded in ml_program.external_storage (default: "
           "the bundle's file name)">,
  ];
}

def InternalizeGlobals
    : Pass<"mlprog-internalize-globals", "mlir::ModuleOp"> {
  let summary = "Replaces #ml_program.extern initial values by their data";
  let description = [{
    The inverse of `--mlprog-externalize-globals`: every
    `#ml_program.extern` global with an `ml_program.external_storage`
    attribute gets its data as an inline dense initial value (from a
    safetensors key or a raw blob offset), and the attribute is dropped.
    Relative storage paths resolve against `weights-dir` (default: the
    current directory). Extern globals without the attribute are looked up
    by symbol name in `bundle` when it is given, and left alone otherwise.

    Errors (located at the global): files that cannot be read, missing keys,
    and data whose dtype, shape or size differ from the global's type.
  }];
  let options = [
    Option<"weightsDir", "weights-dir", "std::string", /*default=*/"",
           "Directory against which relative storage paths resolve">,
    Option<"bundle", "bundle", "std::string", /*default=*/"",
           "Bundle searched by symbol name for extern globals without "
           "ml_program.external_storage">,
  ];
}

def FoldConstantTransposes
    : Pass<"mlprog-fold-constant-transposes", "mlir::ModuleOp"> {
  let summary = "Transposes immutable globals' inline values at compile time";
  let description = [{
    Replaces every `linalg.transpose` (on tensors) of an
    `ml_program.global_load_const` of an immutable global with an inline
    dense or dense_resource value by a `global_load_const` of a new private
    global holding the transposed data (one per global and permutation,
    named after the global with `_transposed`). The original global is
    erased when it is private and nothing else reads it. Importers emit
    such transposes for weights stored [out, in] (ONNX Gemm with transB = 1,
    aten::linear); without this pass they run at every call.

    ```mlir
    ml_program.global private @w(dense<[[1.0, 2.0]]> : tensor<1x2xf32>) : tensor<1x2xf32>
    %w = ml_program.global_load_const @w : tensor<1x2xf32>
    %t = linalg.transpose ins(%w : tensor<1x2xf32>) outs(%e : tensor<2x1xf32>) permutation = [1, 0]
    // becomes
    ml_program.global private @w_transposed(dense_resource<w_transposed> : tensor<2x1xf32>) : tensor<2x1xf32>
    %t = ml_program.global_load_const @w_transposed : tensor<2x1xf32>
    ```

    Extern globals, mutable globals and i1 values are left alone.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

#endif // MLPROG_DIALECT_MLPROGRAM_TRANSFORMS_PASSES_TD
