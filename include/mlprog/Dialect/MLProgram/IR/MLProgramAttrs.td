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

#endif // MLPROG_DIALECT_MLPROGRAM_IR_MLPROGRAMATTRS_TD
