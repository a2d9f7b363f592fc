//===- MLProgramOps.td - ml_program operations -------------*- tablegen -*-===//
//
// Ops of the ml_program dialect. Spelling follows upstream MLIR 22 so that its
// IR parses unchanged; semantics follow the RFC "Introduce ml_program dialect
// and top-level ops (proposal v2)".
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_DIALECT_MLPROGRAM_IR_MLPROGRAMOPS_TD
#define MLPROG_DIALECT_MLPROGRAM_IR_MLPROGRAMOPS_TD

include "mlprog/Dialect/MLProgram/IR/MLProgramBase.td"
include "mlprog/Dialect/MLProgram/IR/MLProgramAttrs.td"
include "mlprog/Dialect/MLProgram/IR/MLProgramTypes.td"
include "mlir/Interfaces/CallInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/IR/SymbolInterfaces.td"

//===----------------------------------------------------------------------===//
// Callables
//===----------------------------------------------------------------------===//

/// Shared definition of `func` and `subgraph`: a symbol with a function type
/// whose body is (optionally) a region.
class MLProgram_CallableOp<string mnemonic, list<Trait> traits = []>
    : MLProgram_Op<mnemonic, !listconcat(traits, [
        FunctionOpInterface, IsolatedFromAbove, RegionKindInterface, Symbol])> {
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       OptionalAttr<StrAttr>:$sym_visibility);
  let regions = (region AnyRegion:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;

  code callableClassDeclaration = [{
    /// FunctionOpInterface: the callable region, or null for a declaration.
    ::mlir::Region *getCallableRegion() {
      return isExternal() ? nullptr : &getBody();
    }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
  }];
}

def MLProgram_FuncOp : MLProgram_CallableOp<"func", [
    AffineScope, AutomaticAllocationScope]> {
  let summary = "Function with SSA control flow";
  let description = [{
    A callable whose body is an SSACFG region: ops run in order, values obey
    dominance, and blocks may branch. It ends in `ml_program.return`. A body-
    less `func` is an external declaration and must be private (RFC v2,
    "func").

    ```mlir
    ml_program.func @relu(%arg0: tensor<4xf32>) -> tensor<4xf32> {
      ml_program.return %arg0 : tensor<4xf32>
    }
    ```
  }];
  let extraClassDeclaration = callableClassDeclaration # [{
    static ::mlir::RegionKind getRegionKind(unsigned index) {
      return ::mlir::RegionKind::SSACFG;
    }
  }];
}

def MLProgram_SubgraphOp : MLProgram_CallableOp<"subgraph", [
    HasOnlyGraphRegion, SingleBlock]> {
  let summary = "Callable whose body is a dataflow graph";
  let description = [{
    A callable whose single block is a graph region: ops have no order other
    than their data and token edges. Side effects are ordered with
    `!ml_program.token` values (`global_load_graph`, `global_store_graph`).
    It ends in `ml_program.output` (RFC v2, "subgraph").

    ```mlir
    ml_program.subgraph @g(%arg0: tensor<4xf32>) -> tensor<4xf32> {
      ml_program.output %arg0 : tensor<4xf32>
    }
    ```
  }];
  let extraClassDeclaration = callableClassDeclaration # [{
    static ::mlir::RegionKind getRegionKind(unsigned index) {
      return ::mlir::RegionKind::Graph;
    }
  }];
}

def MLProgram_ReturnOp : MLProgram_Op<"return", [
    Pure, HasParent<"FuncOp">, ReturnLike, Terminator]> {
  let summary = "Returns values from an `ml_program.func`";
  let description = [{
    Operand types must match the result types of the enclosing function.

    ```mlir
    ml_program.return %0, %1 : tensor<4xf32>, i64
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$operands);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
  let hasVerifier = 1;
}

def MLProgram_OutputOp : MLProgram_Op<"output", [
    Pure, HasParent<"SubgraphOp">, ReturnLike, Terminator]> {
  let summary = "Outputs values from an `ml_program.subgraph`";
  let description = [{
    Operand types must match the result types of the enclosing subgraph.

    ```mlir
    ml_program.output %0 : tensor<4xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$operands);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, {}); }]>];
  let assemblyFormat = "attr-dict ($operands^ `:` type($operands))?";
  let hasVerifier = 1;
}

def MLProgram_CallOp : MLProgram_Op<"call", [
    CallOpInterface, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Calls an `ml_program.func` or `ml_program.subgraph`";
  let description = [{
    A direct call to a callable in the same symbol table. Operand and result
    types must match the callee's function type. Usable from both `func` and
    `subgraph` bodies; calls are inlinable with `--inline`.

    ```mlir
    %0 = ml_program.call @relu(%x) : (tensor<4xf32>) -> tensor<4xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$callee,
                       Variadic<AnyType>:$operands,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs);
  let results = (outs Variadic<AnyType>);
  let assemblyFormat = [{
    $callee `(` $operands `)` attr-dict `:` functional-type($operands, results)
  }];
  let extraClassDeclaration = [{
    ::mlir::CallInterfaceCallable getCallableForCallee() {
      return getCalleeAttr();
    }
    void setCalleeFromCallable(::mlir::CallInterfaceCallable callee) {
      setCalleeAttr(::llvm::cast<::mlir::FlatSymbolRefAttr>(
          ::llvm::cast<::mlir::SymbolRefAttr>(callee)));
    }
    ::mlir::Operation::operand_range getArgOperands() { return getOperands(); }
    ::mlir::MutableOperandRange getArgOperandsMutable() {
      return getOperandsMutable();
    }
  }];
}

//===----------------------------------------------------------------------===//
// Globals
//===----------------------------------------------------------------------===//

def MLProgram_GlobalOp : MLProgram_Op<"global", [Symbol]> {
  let summary = "Module-level variable or constant";
  let description = [{
    Declares a named global. Its `type` is the *bounding type*: every value it
    holds has a type compatible with it (same element type and rank; equal
    extents wherever the bounding type is static). The initial value is one of

    - inline: a typed attribute, e.g. `dense<...> : tensor<4xf32>`;
    - external: `#ml_program.extern : T`, resolved by symbol name outside the
      IR (for example from a weights bundle);
    - absent: the global starts uninitialized, which only a `mutable` global
      may be.

    Immutable globals are read with `global_load_const`; `mutable` ones with
    `global_load` and written with `global_store` (RFC v2, "global").

    ```mlir
    ml_program.global private @w(dense<1.0> : tensor<4xf32>) : tensor<4xf32>
    ml_program.global public mutable @state : tensor<?xf32>
    ml_program.global private @big(#ml_program.extern : tensor<512xf32>) : tensor<?xf32>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttr:$type,
                       UnitAttr:$is_mutable,
                       OptionalAttr<AnyAttr>:$value,
                       OptionalAttr<StrAttr>:$sym_visibility);
  let assemblyFormat = [{
    custom<SymbolVisibility>($sym_visibility)
    (`mutable` $is_mutable^)?
    $sym_name ``
    custom<TypedInitialValue>($type, $value)
    attr-dict
  }];
  let hasVerifier = 1;
}

/// Shared definition of the ops that read or write one global.
class MLProgram_GlobalAccessOp<string mnemonic, list<Trait> traits = []>
    : MLProgram_Op<mnemonic, !listconcat(traits, [
        DeclareOpInterfaceMethods<SymbolUserOpInterface>])> {
  code accessClassDeclaration = [{
    /// Returns the referenced global, or null if the symbol does not resolve
    /// to an `ml_program.global`.
    GlobalOp getGlobalOp(::mlir::SymbolTableCollection &symbolTable);
  }];
  let extraClassDeclaration = accessClassDeclaration;
}

/// Reads of a global name their result after the global in printed IR.
class MLProgram_GlobalReadOp<string mnemonic, list<Trait> traits = []>
    : MLProgram_GlobalAccessOp<mnemonic, !listconcat(traits, [
        DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>])>;

def MLProgram_GlobalLoadOp : MLProgram_GlobalReadOp<"global_load"> {
  let hasVerifier = 1;
  let summary = "Reads the current value of a global";
  let description = [{
    Reads a global in an SSACFG region. The result type is the global's
    bounding type. Ordered with respect to stores by program order.

    Canonicalization (RFC v2: accesses are neither atomic nor volatile)
    replaces a load by the value of an earlier store to, or load of, the
    same global in the same block when nothing in between may write it: a
    call, an op of unknown effects, or a region op containing either or a
    store to that global stops the search.

    ```mlir
    %0 = ml_program.global_load @state : tensor<?xf32>
    ```
  }];
  let arguments = (ins Arg<SymbolRefAttr, "global to read", [MemRead]>:$global);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$global `:` type($result) attr-dict";
  let hasCanonicalizeMethod = 1;
}

def MLProgram_GlobalLoadConstOp : MLProgram_GlobalReadOp<"global_load_const", [
    Pure]> {
  let summary = "Reads the value of an immutable global";
  let description = [{
    Reads an immutable global. Having no side effect, it may appear in any
    region (SSACFG or graph) and may be hoisted, folded or duplicated.
    Canonicalization replaces it by an `arith.constant` when the global's
    inline value is a splat or has at most 16 elements.

    ```mlir
    %w = ml_program.global_load_const @w : tensor<4xf32>
    ```
  }];
  let arguments = (ins SymbolRefAttr:$global);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$global `:` type($result) attr-dict";
  let hasCanonicalizeMethod = 1;
}

def MLProgram_GlobalLoadGraphOp : MLProgram_GlobalReadOp<"global_load_graph"> {
  let hasVerifier = 1;
  let summary = "Token-ordered read of a global in a graph region";
  let description = [{
    Reads a global after every op that produced one of the consumed tokens;
    the produced token orders later ops after this read. The
    `ordering(...)` clause may be omitted, meaning no consumed tokens.

    ```mlir
    %0, %t = ml_program.global_load_graph @state
        ordering(() -> !ml_program.token) : tensor<?xf32>
    ```
  }];
  let arguments = (ins Arg<SymbolRefAttr, "global to read", [MemRead]>:$global,
                       Variadic<MLProgram_TokenType>:$consumeTokens);
  let results = (outs AnyType:$result, MLProgram_TokenType:$produceToken);
  let assemblyFormat = [{
    $global `` custom<TokenOrdering>($consumeTokens, type($produceToken))
    `:` type($result) attr-dict
  }];
}

def MLProgram_GlobalStoreOp : MLProgram_GlobalAccessOp<"global_store"> {
  let hasVerifier = 1;
  let summary = "Writes a value to a mutable global";
  let description = [{
    Writes a mutable global in an SSACFG region. The value's type must be
    compatible with the global's bounding type.

    Canonicalization erases a store that a later store to the same global
    in the same block overwrites before anything may read it (a load of it,
    a call, an op of unknown effects, or a region op containing one), and a
    store of the value just loaded from the same global.

    ```mlir
    ml_program.global_store @state = %0 : tensor<?xf32>
    ```
  }];
  let arguments = (ins Arg<SymbolRefAttr, "global to write", [MemWrite]>:$global,
                       AnyType:$value);
  let assemblyFormat = "$global `=` $value `:` type($value) attr-dict";
  let hasCanonicalizeMethod = 1;
}

def MLProgram_GlobalStoreGraphOp
    : MLProgram_GlobalAccessOp<"global_store_graph"> {
  let hasVerifier = 1;
  let summary = "Token-ordered write of a mutable global in a graph region";
  let description = [{
    Writes a mutable global after every op that produced one of the consumed
    tokens. Declared as a memory write (upstream declares a read, which lets
    canonicalization delete the store).

    ```mlir
    %t1 = ml_program.global_store_graph @state = %0
        ordering(%t0 -> !ml_program.token) : tensor<?xf32>
    ```
  }];
  let arguments = (ins Arg<SymbolRefAttr, "global to write", [MemWrite]>:$global,
                       AnyType:$value,
                       Variadic<MLProgram_TokenType>:$consumeTokens);
  let results = (outs MLProgram_TokenType:$produceToken);
  let assemblyFormat = [{
    $global `=` $value `` custom<TokenOrdering>($consumeTokens, type($produceToken))
    `:` type($value) attr-dict
  }];
}

def MLProgram_TokenOp : MLProgram_Op<"token", [Pure]> {
  let summary = "Produces a fresh token";
  let description = [{
    A token with no predecessors, to start an ordering chain.

    ```mlir
    %t = ml_program.token
    ```
  }];
  let results = (outs MLProgram_TokenType:$token);
  let assemblyFormat = "attr-dict";
}

#endif // MLPROG_DIALECT_MLPROGRAM_IR_MLPROGRAMOPS_TD
