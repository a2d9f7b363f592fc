//===- MLProgramTypes.td - ml_program types ----------------*- tablegen -*-===//

#ifndef MLPROG_DIALECT_MLPROGRAM_IR_MLPROGRAMTYPES_TD
#define MLPROG_DIALECT_MLPROGRAM_IR_MLPROGRAMTYPES_TD

include "mlir/IR/AttrTypeBase.td"
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

#endif // MLPROG_DIALECT_MLPROGRAM_IR_MLPROGRAMTYPES_TD
