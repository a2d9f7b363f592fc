//===- DownstreamOps.td - The `ds` dialect of the example --*- tablegen -*-===//
//
// One op, to show a downstream dialect living beside ml_program.
//
//===----------------------------------------------------------------------===//

#ifndef DOWNSTREAM_OPS
#define DOWNSTREAM_OPS

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Downstream_Dialect : Dialect {
  let name = "ds";
  let cppNamespace = "::downstream";
  let summary = "A downstream compiler's own dialect";
}

def Downstream_AnnotateOp : Op<Downstream_Dialect, "annotate",
    [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "Passes a value through, with a note for later passes";
  let description = [{
    Returns its operand unchanged and folds away. Any type is accepted, including
    mlprog's `!ml_program.token`.

    ```mlir
    %w = ds.annotate %0 "weights" : tensor<4xf32>
    ```
  }];
  let arguments = (ins AnyType:$input, StrAttr:$note);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$input $note attr-dict `:` type($input)";
  // Folds to its operand, so --canonicalize removes it.
  let hasFolder = 1;
}

#endif // DOWNSTREAM_OPS
