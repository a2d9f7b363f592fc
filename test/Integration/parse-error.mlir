// A malformed module is reported as an MLIR diagnostic with its location.
// RUN: not mlprog-run %s 2>&1 | FileCheck %s
// CHECK: parse-error.mlir:[[@LINE+3]]:{{[0-9]+}}: error:
ml_program.func @main() -> tensor<4xf32> {
  %0 = arith.constant dense<1.0> : tensor<5xf32>
  ml_program.return %0 : tensor<4xf32>
}
