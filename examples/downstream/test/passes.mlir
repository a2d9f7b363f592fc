// mlprog's passes run in ds-opt: the import-contract check rejects our op;
// once --canonicalize folds it away, the CPU pipeline compiles the module
// and the installed mlprog-run executes it.
// RUN: not ds-opt --mlprog-verify-import-contract %s 2>&1 | FileCheck %s --check-prefix=CONTRACT
// RUN: ds-opt --canonicalize %s | ds-opt --mlprog-lower-to-cpu -o %t.mlir
// RUN: mlprog-run %t.mlir --print | FileCheck %s --check-prefix=EXEC

// CONTRACT: error: import contract violated: 'ds.annotate' is from dialect 'ds'

// EXEC: shape (3,) dtype float32
// EXEC-NEXT: [2, 4, 6]
ml_program.global private @w(dense<[1.0, 2.0, 3.0]> : tensor<3xf32>) : tensor<3xf32>
ml_program.func @main() -> tensor<3xf32> {
  %0 = ml_program.global_load_const @w : tensor<3xf32>
  %1 = ds.annotate %0 "weights" : tensor<3xf32>
  %2 = arith.addf %1, %1 : tensor<3xf32>
  ml_program.return %2 : tensor<3xf32>
}
