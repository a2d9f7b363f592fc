//===- MLProgramBase.td - ml_program dialect definition ----*- tablegen -*-===//
//
// The `ml_program` dialect: top-level structure of an ML program (callables,
// globals, global accessors and access tokens), following the RFC
// "Introduce ml_program dialect and top-level ops (proposal v2)".
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_DIALECT_MLPROGRAM_IR_MLPROGRAMBASE_TD
#define MLPROG_DIALECT_MLPROGRAM_IR_MLPROGRAMBASE_TD

include "mlir/IR/OpBase.td"

def MLProgram_Dialect : Dialect {
  let name = "ml_program";
  let cppNamespace = "::mlprog";
  let summary = "Top-level structure of ML programs";
  let description = [{
    The `ml_program` dialect models the top level of a program produced by an
    ML framework: callables (`func` with SSA control flow, `subgraph` with a
    dataflow graph region), module-level variables (`global`, mutable or
    immutable, with a bounding type and an inline, external or absent initial
    value), the ops that read and write them, and the `!ml_program.token` type
    that orders side effects inside graph regions.

    Its spelling is a superset of upstream MLIR's `ml_program` dialect, so IR
    written for upstream parses here; upstream's known defects (a crash on a
    missing `ordering(...)` clause, `global_store_graph` declared as a read,
    unchecked initial value types) are fixed.

    Integers inside a program are signless, as in the rest of MLIR. Where a
    model declares an unsigned integer at its boundary (ONNX `uint8`, Core ML
    `uint16`), the importer puts the unit attribute `ml_program.unsigned` on
    that argument or result of the public callable; the element type (or
    scalar type) must be a signless integer wider than one bit. Runners read
    it through `mlprog::getHostSignature`, which spells the value as `uiN`,
    and return `uintN` arrays for it.

    ```mlir
    ml_program.func @main(%x: tensor<4xi8> {ml_program.unsigned})
        -> (tensor<4xi8> {ml_program.unsigned}) { ... }
    ```
  }];
  // Canonicalization folds small constants to arith.constant; the inliner
  // branches between the blocks of an inlined multi-block func.
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::cf::ControlFlowDialect"];
  // Our own dialect hooks wrap the generated parsers: MLIR ignores whatever a
  // parameterless attribute or type leaves unparsed (`#ml_program.extern<x>`
  // would silently drop `<x>`), so the hooks refuse trailing parameters.
  let useDefaultAttributePrinterParser = 0;
  let useDefaultTypePrinterParser = 0;
  let extraClassDeclaration = [{
    ::mlir::Attribute parseAttribute(::mlir::DialectAsmParser &parser,
                                     ::mlir::Type type) const override;
    void printAttribute(::mlir::Attribute attr,
                        ::mlir::DialectAsmPrinter &printer) const override;
    ::mlir::Type parseType(::mlir::DialectAsmParser &parser) const override;
    void printType(::mlir::Type type,
                   ::mlir::DialectAsmPrinter &printer) const override;
  }];
  let usePropertiesForAttributes = 1;
  // Verifies `ml_program.external_storage` where it is attached, and the
  // `ml_program.unsigned` marker on callable arguments and results.
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let hasRegionResultAttrVerify = 1;
}

/// Base class of every op of the dialect.
class MLProgram_Op<string mnemonic, list<Trait> traits = []>
    : Op<MLProgram_Dialect, mnemonic, traits>;

#endif // MLPROG_DIALECT_MLPROGRAM_IR_MLPROGRAMBASE_TD
