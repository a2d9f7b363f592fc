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
    - a scalar bounding type is stored in a rank-0 memref; an immutable
      global with a dynamic bounding type is stored with its initial value's
      static shape (and loads `tensor.cast` back to the bounding type);
    - `#ml_program.extern` becomes a public external `memref.global`
      declaration that the runner binds to the memory-mapped storage named by
      the global's `ml_program.external_storage` attribute;
    - a mutable global whose bounding type has dynamic extents keeps its
      current value in a heap buffer of the value's shape, reached through a
      `<name>__value` box global and a `<name>__stored` flag; until the
      first store, reads see the initial value (or, when uninitialized, an
      empty tensor whose dynamic extents are 0). Each store allocates a
      buffer of the stored shape and frees the previous one (both marked
      `bufferization.manual_deallocation`);
    - loads become `memref.get_global` + `bufferization.to_tensor restrict`
      (a copy is taken for mutable globals so that later stores do not change
      an earlier load), stores become
      `bufferization.materialize_in_destination`. At the top level of a
      public function, a load of a statically shaped mutable global takes no
      copy when no store to it and no call follows (read in place), or when
      its only use is an op whose result's only use is a store to the same
      global with no access to the global in between (`writable`: updated
      in place, so a KV-cache step writes one row; docs/state.md). A load
      of a mutable global with dynamic extents takes no copy when nothing
      that may alias it is used after the next store or call, and a store
      that is the last access to the global in its call builds a value made
      in a `tensor.empty` directly in the new buffer. Such a store of
      `concat(load, x)` along one dynamic dimension (`tensor.concat`, or an
      imported Concat's insert_slices), whose load is read in place,
      appends in place instead: the buffer has a capacity along that
      dimension (`<name>__capacity`; the value's memref type then has a
      strided layout), x is written after the old rows, the concatenation's
      users read the buffer, and only a step that exceeds the capacity moves
      the value to a buffer of twice the capacity (AppendInPlace.cpp);
    - mutable globals are aligned to 128 bytes: one-shot bufferization would
      store a tensor constant in a 64-byte aligned `memref.global` with the
      same initial value even when it is mutable.

    A global whose bounding type is unranked, or immutable with a dynamic
    bounding type and no statically shaped initial value, is an error at the
    global.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::bufferization::BufferizationDialect",
    "mlir::func::FuncDialect",
    "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect",
  ];
}

def ConvertMLProgramStringsToLLVM
    : Pass<"convert-ml-program-strings-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lowers string tensors and the ml_program string ops";
  let description = [{
    Makes string tensors ordinary tensors of pointers before bufferization
    (docs/strings.md):

    - every `!ml_program.string` in the module's types (values, block
      arguments, function types; nested in tensor, memref and function types)
      becomes `i64`: at run time an element holds the address of a
      NUL-terminated UTF-8 string owned by the runtime
      (include/mlprog-c/Strings.h). Attributes are left alone, so the host
      signature that `--mlprog-annotate-entry-points` recorded still names
      the strings;
    - `ml_program.string_constant` becomes the address of a private constant
      `llvm.mlir.global` holding the bytes and a NUL (one global per distinct
      text);
    - the other string ops become `llvm.call`s of the runtime's
      `mlprog_string_*` functions, with `arith` casts between the op's
      number type and the function's (`f16` is formatted through `f64` with
      11 significand bits, an `i8` read as `i64` and truncated, ...).

    Runs after `--convert-ml-program-to-memref` and
    `--mlprog-annotate-entry-points`, before bufferization. An attribute whose
    type holds a string (a dense string constant) is an error at its op: the
    importers build string constants from `string_constant`.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::LLVM::LLVMDialect",
  ];
}

#endif // MLPROG_CONVERSION_PASSES_TD
