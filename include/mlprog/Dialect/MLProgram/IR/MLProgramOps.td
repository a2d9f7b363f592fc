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

//===----------------------------------------------------------------------===//
// String ops
//===----------------------------------------------------------------------===//
//
// Scalar ops on `!ml_program.string` values. Importers apply them to string
// tensors elementwise inside `linalg.generic` bodies (lib/Import/Common/
// Strings.cpp); --mlprog-lower-strings turns each into a call into the C
// runtime of include/mlprog-c/Strings.h. Their results are new strings owned
// by the runtime, so the ops are pure.

/// Numbers a string op converts from or to: signless integers of at most 64
/// bits (i1 is a boolean) and the IEEE-like floats the runtime formats.
def MLProgram_StringNumberType : AnyTypeOf<[I1, I8, I16, I32, I64, F16, BF16,
                                            F32, F64]>;

def MLProgram_StringConstantOp : MLProgram_Op<"string_constant", [Pure]> {
  let summary = "A string literal";
  let description = [{
    The UTF-8 string `value` (its bytes, which must not contain NUL: the
    runtime's strings are NUL-terminated).

    ```mlir
    %s = ml_program.string_constant "monday"
    ```
  }];
  let arguments = (ins StrAttr:$value);
  let results = (outs MLProgram_StringType:$result);
  let assemblyFormat = "$value attr-dict";
  let hasVerifier = 1;
}

def MLProgram_StringFromNumberOp
    : MLProgram_Op<"string_from_number", [Pure]> {
  let summary = "Formats a number as a string";
  let description = [{
    The decimal text of `input`, as ONNX Cast to STRING writes it (the
    reference implementation's `numpy.ndarray.astype(str)`): a float is the
    shortest string that reads back as the same value of its own type, in
    positional notation with at least one fractional digit when
    1e-4 <= |x| < 1e16 (`0.5`, `3.0`, `-0.0`) and in scientific notation
    otherwise (`1e-05`, `1.5e+16`); NaN and infinities are `nan`, `inf`,
    `-inf`. An integer is its decimal value, read as unsigned when
    `is_unsigned` is set; an i1 is `True` or `False`.

    ```mlir
    %s = ml_program.string_from_number %x : f32
    %u = ml_program.string_from_number %y unsigned : i8
    ```
  }];
  let arguments = (ins MLProgram_StringNumberType:$input,
                       UnitAttr:$is_unsigned);
  let results = (outs MLProgram_StringType:$result);
  let assemblyFormat = "$input (`unsigned` $is_unsigned^)? attr-dict `:` type($input)";
}

def MLProgram_StringToNumberOp : MLProgram_Op<"string_to_number", [Pure]> {
  let summary = "Parses a string as a number";
  let description = [{
    The number `input` spells, as ONNX Cast from STRING reads it: a float
    accepts what C's `strtod` accepts (decimal or hexadecimal, `nan`, `inf`,
    `infinity` in any case, leading white space) and rounds once to the result
    type; text that is not a number is NaN. An integer accepts an optional
    sign and decimal digits, or a float that it truncates toward zero; text
    that is not a number is 0 and values out of range saturate (to the
    unsigned range when `is_unsigned` is set). An i1 is true for `True`,
    `true` and non-zero numbers.

    ```mlir
    %x = ml_program.string_to_number %s : f32
    ```
  }];
  let arguments = (ins MLProgram_StringType:$input, UnitAttr:$is_unsigned);
  let results = (outs MLProgram_StringNumberType:$result);
  let assemblyFormat = "$input (`unsigned` $is_unsigned^)? attr-dict `:` type($result)";
}

class MLProgram_StringCaseOp<string mnemonic, string which>
    : MLProgram_Op<mnemonic, [Pure]> {
  let summary = "Maps a string to " # which # " case";
  let description = [{
    `input` with every character mapped to its }] # which # [{ case by the
    simple (one code point to one code point) Unicode case mapping of the C
    library's `C.UTF-8` locale; bytes that are not valid UTF-8 are kept as
    they are. Used by ONNX StringNormalizer's `case_change_action`.

    ```mlir
    %u = ml_program.}] # mnemonic # [{ %s
    ```
  }];
  let arguments = (ins MLProgram_StringType:$input);
  let results = (outs MLProgram_StringType:$result);
  let assemblyFormat = "$input attr-dict";
}

def MLProgram_StringLowerOp : MLProgram_StringCaseOp<"string_lower", "lower">;
def MLProgram_StringUpperOp : MLProgram_StringCaseOp<"string_upper", "upper">;

def MLProgram_StringConcatOp : MLProgram_Op<"string_concat", [Pure]> {
  let summary = "Concatenates two strings";
  let description = [{
    The bytes of `lhs` followed by those of `rhs`.

    ```mlir
    %ab = ml_program.string_concat %a, %b
    ```
  }];
  let arguments = (ins MLProgram_StringType:$lhs, MLProgram_StringType:$rhs);
  let results = (outs MLProgram_StringType:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict";
}

def MLProgram_StringSplitCountOp
    : MLProgram_Op<"string_split_count", [Pure]> {
  let summary = "How many parts Python's str.split gives";
  let description = [{
    The number of parts of `input` split as Python's
    `input.split(delimiter or None, maxsplit)` splits it: at each occurrence
    of `delimiter` (an empty string always gives one part), or, when
    `delimiter` is empty, at runs of white space with leading and trailing
    white space ignored (an empty or blank string gives none); at most
    `maxsplit` splits from the left when it is not negative. Used by ONNX
    StringSplit with `string_split_part`.

    ```mlir
    %n = ml_program.string_split_count %s {delimiter = ".", maxsplit = -1 : i64}
    ```
  }];
  let arguments = (ins MLProgram_StringType:$input, StrAttr:$delimiter,
                       I64Attr:$maxsplit);
  let results = (outs I64:$result);
  let assemblyFormat = "$input attr-dict";
}

def MLProgram_StringSplitPartOp : MLProgram_Op<"string_split_part", [Pure]> {
  let summary = "One part of Python's str.split";
  let description = [{
    Part `index` (counted from 0) of `input` split as `string_split_count`
    describes; the empty string when `index` is negative or not less than
    the number of parts.

    ```mlir
    %p = ml_program.string_split_part %s[%k] {delimiter = "", maxsplit = 2 : i64}
    ```
  }];
  let arguments = (ins MLProgram_StringType:$input, I64:$index,
                       StrAttr:$delimiter, I64Attr:$maxsplit);
  let results = (outs MLProgram_StringType:$result);
  let assemblyFormat = "$input `[` $index `]` attr-dict";
}

def MLProgram_StringEqualOp : MLProgram_Op<"string_equal",
    [Pure, Commutative]> {
  let summary = "Whether two strings are equal";
  let description = [{
    True when `lhs` and `rhs` hold the same bytes (no Unicode normalization,
    case sensitive; lower both first for a case-insensitive comparison).

    ```mlir
    %eq = ml_program.string_equal %a, %b
    ```
  }];
  let arguments = (ins MLProgram_StringType:$lhs, MLProgram_StringType:$rhs);
  let results = (outs I1:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict";
}

#endif // MLPROG_DIALECT_MLPROGRAM_IR_MLPROGRAMOPS_TD
