// Returning a constant global directly (its descriptor's allocated pointer
// is memref.get_global's sentinel; the pipeline returns a clone instead),
// twice, over several calls.
// RUN: mlprog-run %s --repeat 4 --print | FileCheck %s

// CHECK: output 0: shape (2,2) dtype float64
// CHECK-NEXT: {{\[\[}}1, 2],
// CHECK-NEXT:  [3, 4]]
// CHECK: output 1: shape (2,2) dtype float64
// CHECK-NEXT: {{\[\[}}1, 2],

ml_program.global private @w(dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>) : tensor<2x2xf64>
ml_program.func @main() -> (tensor<2x2xf64>, tensor<2x2xf64>) {
  %w = ml_program.global_load_const @w : tensor<2x2xf64>
  ml_program.return %w, %w : tensor<2x2xf64>, tensor<2x2xf64>
}
