//===- MLProgramAttrs.td - ml_program attributes -----------*- tablegen -*-===//

#ifndef MLPROG_DIALECT_MLPROGRAM_IR_MLPROGRAMATTRS_TD
#define MLPROG_DIALECT_MLPROGRAM_IR_MLPROGRAMATTRS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlprog/Dialect/MLProgram/IR/MLProgramBase.td"

class MLProgram_Attr<string name, list<Trait> traits = []>
    : AttrDef<MLProgram_Dialect, name, traits>;

def MLProgram_ExternAttr : MLProgram_Attr<"Extern", [TypedAttrInterface]> {
  let summary = "Initial value of a global resolved outside the IR";
  let description = [{
    As the initial value of an `ml_program.global`, says that the value is
    supplied from outside the program (for example a weights bundle), keyed by
    the global's symbol name. The attribute's type is the type of that value
    and must be compatible with the global's bounding type.

    ```mlir
    ml_program.global private @w(#ml_program.extern : tensor<4xf32>) : tensor<4xf32>
    ```
  }];
  let mnemonic = "extern";
  let parameters = (ins AttributeSelfTypeParameter<"">:$type);
  let assemblyFormat = "";
}

def MLProgram_ExternalStorageAttr : MLProgram_Attr<"ExternalStorage"> {
  let summary = "Where an external global's initial value is stored";
  let description = [{
    Attached to an `ml_program.global` whose initial value is
    `#ml_program.extern` under the discardable attribute name
    `ml_program.external_storage`, names the file that holds the value so the
    runner can memory-map it instead of copying it into the IR:

    - `file`: the file's path. A relative path is resolved against the
      directory of the IR file being run.
    - `key`: the tensor's name in a safetensors bundle (dtype and shape are
      checked against the global's type when the bundle is opened), or
    - `offset`: the byte offset of the raw little-endian data in a raw blob
      file (ONNX external data, Core ML `weight.bin`), with optional `length`
      in bytes, checked against the size of the global's type.

    Exactly one of `key` and `offset` is given. Without this attribute an
    extern global is looked up by its symbol name in the bundle given to the
    runner (`mlprog-run --bundle`).

    ```mlir
    ml_program.global private @w(#ml_program.extern : tensor<4xf32>) : tensor<4xf32>
        {ml_program.external_storage =
          #ml_program.external_storage<file = "model.safetensors", key = "w">}
    ml_program.global private @b(#ml_program.extern : tensor<4xf16>) : tensor<4xf16>
        {ml_program.external_storage =
          #ml_program.external_storage<file = "weight.bin", offset = 128, length = 8>}
    ```
  }];
  let mnemonic = "external_storage";
  let parameters = (ins
    "mlir::StringAttr":$file,
    OptionalParameter<"mlir::StringAttr">:$key,
    OptionalParameter<"std::optional<uint64_t>">:$offset,
    OptionalParameter<"std::optional<uint64_t>">:$length);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The discardable attribute name under which a global carries it.
    static llvm::StringRef getAttrName() { return "ml_program.external_storage"; }
  }];
}

#endif // MLPROG_DIALECT_MLPROGRAM_IR_MLPROGRAMATTRS_TD
