// --repeat runs the entry several times in one engine: a mutable global
// counter keeps its value across calls.
// RUN: mlprog-run %s --repeat 5 --print | FileCheck %s
// RUN: mlprog-run %s --print | FileCheck %s --check-prefix=ONCE

// CHECK: output 0: shape (1,) dtype float32
// CHECK-NEXT: [5]
// ONCE: [1]

ml_program.global private mutable @c(dense<0.0> : tensor<1xf32>) : tensor<1xf32>
ml_program.func @main() -> tensor<1xf32> {
  %c = ml_program.global_load @c : tensor<1xf32>
  %one = arith.constant dense<1.0> : tensor<1xf32>
  %e = tensor.empty() : tensor<1xf32>
  %r = linalg.add ins(%c, %one : tensor<1xf32>, tensor<1xf32>) outs(%e : tensor<1xf32>) -> tensor<1xf32>
  ml_program.global_store @c = %r : tensor<1xf32>
  ml_program.return %r : tensor<1xf32>
}
