// RUN: mlprog-opt %s --split-input-file --mlprog-fold-constant-transposes | FileCheck %s

// The transpose of an immutable global's value becomes a global with the
// transposed data; the original global goes once nothing reads it, and a
// second transpose with the same permutation shares the new global.
// CHECK-LABEL: ml_program.global private @w_transposed(dense_resource<w_transposed> : tensor<3x2xf32>) : tensor<3x2xf32>
// CHECK-NOT: ml_program.global private @w(
// CHECK-LABEL: ml_program.func @gemm
// CHECK-NOT: linalg.transpose
// CHECK: %[[T:.*]] = ml_program.global_load_const @w_transposed : tensor<3x2xf32>
// CHECK: %[[U:.*]] = ml_program.global_load_const @w_transposed : tensor<3x2xf32>
// CHECK: ml_program.return %[[T]], %[[U]]
// CHECK: dialect_resources
// CHECK: w_transposed: "0x400000000000803F00008040000000400000A040000040400000C040"
ml_program.global private @w(dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
ml_program.func @gemm() -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %w = ml_program.global_load_const @w : tensor<2x3xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%w : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %w2 = ml_program.global_load_const @w : tensor<2x3xf32>
  %u = linalg.transpose ins(%w2 : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  ml_program.return %t, %u : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// A 3-D permutation of i8 data; the global stays, as another op reads it.
// CHECK-LABEL: ml_program.global private @x(
// CHECK-LABEL: ml_program.global private @x_transposed(dense_resource<x_transposed> : tensor<3x1x2xi8>)
// CHECK-LABEL: ml_program.func @permute3
// CHECK: ml_program.global_load_const @x_transposed : tensor<3x1x2xi8>
// CHECK: x_transposed: "0x40000000010402050306"
ml_program.global private @x(dense<[[[1, 2, 3], [4, 5, 6]]]> : tensor<1x2x3xi8>) : tensor<1x2x3xi8>
ml_program.func @permute3() -> (tensor<3x1x2xi8>, tensor<1x2x3xi8>) {
  %x = ml_program.global_load_const @x : tensor<1x2x3xi8>
  %e = tensor.empty() : tensor<3x1x2xi8>
  %t = linalg.transpose ins(%x : tensor<1x2x3xi8>) outs(%e : tensor<3x1x2xi8>) permutation = [2, 0, 1]
  ml_program.return %t, %x : tensor<3x1x2xi8>, tensor<1x2x3xi8>
}

// -----

// Mutable and extern globals are left alone.
// CHECK-LABEL: ml_program.func @left_alone
// CHECK-COUNT-2: linalg.transpose
ml_program.global private mutable @m(dense<1.0> : tensor<2x3xf32>) : tensor<2x3xf32>
ml_program.global private @ext(#ml_program.extern : tensor<2x3xf32>) : tensor<2x3xf32>
ml_program.func @left_alone() -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %m = ml_program.global_load @m : tensor<2x3xf32>
  %x = ml_program.global_load_const @ext : tensor<2x3xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%m : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %u = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  ml_program.return %t, %u : tensor<3x2xf32>, tensor<3x2xf32>
}
