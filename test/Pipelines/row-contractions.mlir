// RUN: mlprog-opt %s --pass-pipeline='builtin.module(func.func(mlprog-tile-and-vectorize-contractions{target-features=+avx512f}))' | FileCheck %s

// Contractions of a single row are vector-matrix products (see
// lib/Pipelines/CPU/RowContractions.cpp).

memref.global "private" constant @w : memref<64x96xf32> = dense<0.5>

// A linear layer's one row with a weight: the weight is read from its
// panels [3, 64, 32] (2 vectors of 16 each), in one register block of
// 3 panels (6 accumulators carried along K = 64, one FMA each per K step
// with A's element broadcast; the loop over register blocks has one
// iteration and folds away).
// CHECK-LABEL: func.func @weight
// CHECK: %[[EXP:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [64, 3, 32]
// CHECK: %[[PANELS:.*]] = linalg.transpose ins(%[[EXP]] : tensor<64x3x32xf32>) {{.*}} permutation = [1, 0, 2]
// CHECK: scf.forall (%{{.*}}) in (1) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<1x96xf32>)
// CHECK: %[[ROW:.*]] = tensor.extract_slice %{{.*}}[0, 0] [1, 64] [1, 1] : tensor<1x64xf32> to tensor<64xf32>
// CHECK-COUNT-6: vector.transfer_read %[[OUT]]{{.*}} : tensor<1x96xf32>, vector<16xf32>
// CHECK: scf.for %[[K:.*]] = %c0 to %c64 step %c1 iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: %[[A:.*]] = tensor.extract %[[ROW]][%[[K]]]
// CHECK: %[[AV:.*]] = vector.broadcast %[[A]] : f32 to vector<16xf32>
// CHECK-COUNT-6: vector.transfer_read %[[PANELS]][{{.*}}, %[[K]], {{.*}}]{{.*}} : tensor<3x64x32xf32>, vector<16xf32>
// CHECK-NOT: vector.contract
// CHECK: tensor.parallel_insert_slice %{{.*}} into %[[OUT]][0, {{.*}}] [1, 96] [1, 1] : tensor<96xf32> into tensor<1x96xf32>
func.func @weight(%a: tensor<1x64xf32>) -> tensor<1x96xf32> {
  %m = memref.get_global @w : memref<64x96xf32>
  %w = bufferization.to_tensor %m restrict : memref<64x96xf32> to tensor<64x96xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x96xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x96xf32>) -> tensor<1x96xf32>
  %r = linalg.matmul ins(%a, %w : tensor<1x64xf32>, tensor<64x96xf32>) outs(%init : tensor<1x96xf32>) -> tensor<1x96xf32>
  return %r : tensor<1x96xf32>
}

// Attention's probabilities times the values, one query row per head: the
// heads are forall iterations; the values are read where they are (no
// panels: every value is used once), 64 columns per K step.
// CHECK-LABEL: func.func @values
// CHECK-NOT: linalg.transpose
// CHECK: scf.forall (%[[H:.*]], %{{.*}}) in (12, 1)
// CHECK: tensor.extract_slice %{{.*}}[%[[H]], 0, 0] [1, 1, 40] [1, 1, 1] : tensor<12x1x40xf32> to tensor<40xf32>
// CHECK: scf.for %[[K:.*]] = %c0 to %c40 step %c1
// CHECK-COUNT-4: vector.transfer_read %{{.*}}[%[[H]], %[[K]], %{{.*}}]{{.*}} : tensor<12x40x64xf32>, vector<16xf32>
// CHECK-NOT: vector.contract
func.func @values(%p: tensor<12x1x40xf32>, %v: tensor<12x40x64xf32>) -> tensor<12x1x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<12x1x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<12x1x64xf32>) -> tensor<12x1x64xf32>
  %r = linalg.batch_matmul ins(%p, %v : tensor<12x1x40xf32>, tensor<12x40x64xf32>) outs(%init : tensor<12x1x64xf32>) -> tensor<12x1x64xf32>
  return %r : tensor<12x1x64xf32>
}

// 40 columns: one panel of 32 as a row product; the last 8 stay a
// contraction of their own for the matrix strategy (a narrow register
// block).
// CHECK-LABEL: func.func @tail
// CHECK: scf.forall
// CHECK-COUNT-2: vector.fma
// CHECK: vector.contract {{.*}} vector<8xf32>
func.func @tail(%a: tensor<1x64xf32>, %b: tensor<64x40xf32>) -> tensor<1x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x40xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x40xf32>) -> tensor<1x40xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1x64xf32>, tensor<64x40xf32>) outs(%init : tensor<1x40xf32>) -> tensor<1x40xf32>
  return %r : tensor<1x40xf32>
}

// Several rows are the matrix strategy's register blocks, and so is a
// batch of single rows sharing B (a linear layer at batch 4: one matmul of
// 4 rows).
// CHECK-LABEL: func.func @rows
// CHECK-NOT: vector.fma
// CHECK: vector.contract
// CHECK-LABEL: func.func @shared
// CHECK-NOT: vector.fma
// CHECK: vector.contract
func.func @rows(%a: tensor<8x64xf32>, %b: tensor<64x96xf32>) -> tensor<8x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x96xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x96xf32>) -> tensor<8x96xf32>
  %r = linalg.matmul ins(%a, %b : tensor<8x64xf32>, tensor<64x96xf32>) outs(%init : tensor<8x96xf32>) -> tensor<8x96xf32>
  return %r : tensor<8x96xf32>
}

#sa = affine_map<(b, m, n, k) -> (b, m, k)>
#sb = affine_map<(b, m, n, k) -> (k, n)>
#sc = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @shared(%a: tensor<4x1x64xf32>, %b: tensor<64x96xf32>) -> tensor<4x1x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x1x96xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x1x96xf32>) -> tensor<4x1x96xf32>
  %r = linalg.generic {indexing_maps = [#sa, #sb, #sc], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<4x1x64xf32>, tensor<64x96xf32>) outs(%init : tensor<4x1x96xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x1x96xf32>
  return %r : tensor<4x1x96xf32>
}
