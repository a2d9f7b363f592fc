//===- MLProgramTypes.td - ml_program types ----------------*- tablegen -*-===//

#ifndef MLPROG_DIALECT_MLPROGRAM_IR_MLPROGRAMTYPES_TD
#define MLPROG_DIALECT_MLPROGRAM_IR_MLPROGRAMTYPES_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinTypeInterfaces.td"
include "mlprog/Dialect/MLProgram/IR/MLProgramBase.td"

class MLProgram_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<MLProgram_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def MLProgram_TokenType : MLProgram_Type<"Token", "token"> {
  let summary = "Token that orders side effects in a graph region";
  let description = [{
    A value of this type carries no data. Graph-region ops that touch state
    (`global_load_graph`, `global_store_graph`) consume tokens and produce a
    token, so that their order is explicit in the dataflow graph (RFC v2,
    "Side effects in graph regions").

    ```mlir
    %t = ml_program.token
    ```
  }];
}

def MLProgram_StringType : MLProgram_Type<"String", "string",
    [MemRefElementTypeInterface]> {
  let summary = "A UTF-8 string, the element type of string tensors";
  let description = [{
    The element type of ONNX `STRING` tensors (onnx.proto,
    `TensorProto.DataType.STRING`): a sequence of bytes holding UTF-8 text.
    It appears as the element type of tensors
    (`tensor<3x!ml_program.string>`) and of their buffers, and as the type of
    the scalar string ops (`string_constant`, `string_from_number`, ...)
    inside `linalg.generic` bodies.

    At run time an element is a pointer to a NUL-terminated string that the
    mlprog runtime owns (include/mlprog-c/Strings.h): buffers of strings are
    buffers of pointers, and `--mlprog-lower-strings` spells the type as a
    pointer-sized `i64` and each string op as a call into the runtime. Strings
    are never written in place, so copying an element copies the pointer.
    See docs/strings.md.

    ```mlir
    %s = ml_program.string_constant "monday"
    %t = tensor.from_elements %s : tensor<1x!ml_program.string>
    ```
  }];
}

#endif // MLPROG_DIALECT_MLPROGRAM_IR_MLPROGRAMTYPES_TD
