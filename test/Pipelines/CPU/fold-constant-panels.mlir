// RUN: mlprog-opt %s --mlprog-fold-constant-panels --split-input-file | FileCheck %s

// The panels [N / nr, K, nr] of a [K, N] = [2, 4] weight with nr = 2 are
// computed at compile time: panels[n1][k][n0] = w[k][n1 * 2 + n0], i.e.
// 0 1 4 5 | 2 3 6 7. Both readers share one global; the weight, read by no
// one else, is gone.
// CHECK-NOT: @w :
// CHECK: memref.global "private" constant @w_panels : memref<2x2x2xi32> = dense_resource<w_panels> {alignment = 64 : i64}
// CHECK-LABEL: func.func @panels
// CHECK-NOT: linalg.transpose
// CHECK: %[[P:.*]] = memref.get_global @w_panels : memref<2x2x2xi32>
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[P]] restrict : memref<2x2x2xi32> to tensor<2x2x2xi32>
// CHECK: %[[Q:.*]] = memref.get_global @w_panels : memref<2x2x2xi32>
// CHECK: %[[U:.*]] = bufferization.to_tensor %[[Q]] restrict
// CHECK: return %[[T]], %[[U]]
// CHECK: w_panels: "0x400000000000000001000000040000000500000002000000030000000600000007000000"
memref.global "private" constant @w : memref<2x4xi32> = dense<[[0, 1, 2, 3], [4, 5, 6, 7]]> {alignment = 64 : i64}
func.func @panels() -> (tensor<2x2x2xi32>, tensor<2x2x2xi32>) {
  %0 = memref.get_global @w : memref<2x4xi32>
  %1 = bufferization.to_tensor %0 restrict : memref<2x4xi32> to tensor<2x4xi32>
  %2 = tensor.expand_shape %1 [[0], [1, 2]] output_shape [2, 2, 2] : tensor<2x4xi32> into tensor<2x2x2xi32>
  %e = tensor.empty() : tensor<2x2x2xi32>
  %3 = linalg.transpose ins(%2 : tensor<2x2x2xi32>) outs(%e : tensor<2x2x2xi32>) permutation = [1, 0, 2]
  %e2 = tensor.empty() : tensor<2x2x2xi32>
  %4 = linalg.transpose ins(%2 : tensor<2x2x2xi32>) outs(%e2 : tensor<2x2x2xi32>) permutation = [1, 0, 2]
  return %3, %4 : tensor<2x2x2xi32>, tensor<2x2x2xi32>
}

// -----

// A mutable global (state) and a function argument are no weights: their
// transposes stay. A weight that is read elsewhere too stays beside its panels.
// CHECK-LABEL: memref.global "private" @state
// CHECK: memref.global "private" constant @shared :
// CHECK: memref.global "private" constant @shared_panels
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-2: linalg.transpose
// CHECK: memref.get_global @shared_panels
// CHECK-NOT: linalg.transpose
memref.global "private" @state : memref<4x2xf32> = dense<0.0>
memref.global "private" constant @shared : memref<4x2xf32> = dense<1.0>
func.func @kept(%arg: tensor<4x2xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<4x2xf32>) {
  %0 = memref.get_global @state : memref<4x2xf32>
  %1 = bufferization.to_tensor %0 restrict : memref<4x2xf32> to tensor<4x2xf32>
  %e = tensor.empty() : tensor<2x4xf32>
  %2 = linalg.transpose ins(%1 : tensor<4x2xf32>) outs(%e : tensor<2x4xf32>) permutation = [1, 0]
  %3 = linalg.transpose ins(%arg : tensor<4x2xf32>) outs(%e : tensor<2x4xf32>) permutation = [1, 0]
  %4 = memref.get_global @shared : memref<4x2xf32>
  %5 = bufferization.to_tensor %4 restrict : memref<4x2xf32> to tensor<4x2xf32>
  %6 = linalg.transpose ins(%5 : tensor<4x2xf32>) outs(%e : tensor<2x4xf32>) permutation = [1, 0]
  return %2, %3, %6, %5 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<4x2xf32>
}

// -----

// The parts of a split contraction read column blocks of a weight: each
// block gets panels of its own, computed from the block (columns 2..5 of
// [2, 6] with nr = 2: panels[n1][k][n0] = w[k][2 + n1 * 2 + n0], i.e.
// 2 3 8 9 | 4 5 10 11; columns 0..1: 0 1 6 7). The weight, read by no one
// else, is gone, erased once although two panels came from it.
// CHECK-NOT: @cols :
// CHECK: memref.global "private" constant @cols_panels{{.*}} : memref<1x2x2xi32>
// CHECK: memref.global "private" constant @cols_panels{{.*}} : memref<2x2x2xi32>
// CHECK-NOT: @cols :
// CHECK-LABEL: func.func @column_blocks
// CHECK-NOT: linalg.transpose
// CHECK-NOT: tensor.extract_slice
// CHECK: return
// CHECK-DAG: cols_panels{{.*}}: "0x400000000200000003000000080000000900000004000000050000000A0000000B000000"
// CHECK-DAG: cols_panels{{.*}}: "0x4000000000000000010000000600000007000000"
memref.global "private" constant @cols : memref<2x6xi32> = dense<[[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11]]> {alignment = 64 : i64}
func.func @column_blocks() -> (tensor<2x2x2xi32>, tensor<1x2x2xi32>) {
  %0 = memref.get_global @cols : memref<2x6xi32>
  %1 = bufferization.to_tensor %0 restrict : memref<2x6xi32> to tensor<2x6xi32>
  %s = tensor.extract_slice %1[0, 2] [2, 4] [1, 1] : tensor<2x6xi32> to tensor<2x4xi32>
  %2 = tensor.expand_shape %s [[0], [1, 2]] output_shape [2, 2, 2] : tensor<2x4xi32> into tensor<2x2x2xi32>
  %e = tensor.empty() : tensor<2x2x2xi32>
  %3 = linalg.transpose ins(%2 : tensor<2x2x2xi32>) outs(%e : tensor<2x2x2xi32>) permutation = [1, 0, 2]
  %t = tensor.extract_slice %1[0, 0] [2, 2] [1, 1] : tensor<2x6xi32> to tensor<2x2xi32>
  %4 = tensor.expand_shape %t [[0], [1, 2]] output_shape [2, 1, 2] : tensor<2x2xi32> into tensor<2x1x2xi32>
  %e2 = tensor.empty() : tensor<1x2x2xi32>
  %5 = linalg.transpose ins(%4 : tensor<2x1x2xi32>) outs(%e2 : tensor<1x2x2xi32>) permutation = [1, 0, 2]
  return %3, %5 : tensor<2x2x2xi32>, tensor<1x2x2xi32>
}

// -----

// A convolution filter [F, C, Fh, Fw] = [2, 1, 1, 2] read as [K, F] = [2, 2]
// (the transposed product of TransposedConvolutions.cpp) and split into panels of one
// column: the inner transpose is folded first, then the panels of its
// result, through the collapse and expand reshapes. w = [[0, 1], [2, 3]]
// (f, k), so wT = [[0, 2], [1, 3]] (k, f) and its panels [F, K, 1] hold
// 0 1 | 2 3. Neither the filter nor its transpose is left.
// CHECK-NOT: @filter :
// CHECK-NOT: @filter_panels :
// CHECK: memref.global "private" constant @filter_panels_panels : memref<2x2x1xi32> = dense_resource<filter_panels_panels>
// CHECK-LABEL: func.func @transposed_filter
// CHECK-NOT: linalg.transpose
// CHECK: memref.get_global @filter_panels_panels
// CHECK: filter_panels_panels: "0x4000000000000000010000000200000003000000"
memref.global "private" constant @filter : memref<2x1x1x2xi32> = dense<[[[[0, 1]]], [[[2, 3]]]]>
func.func @transposed_filter() -> tensor<2x2x1xi32> {
  %0 = memref.get_global @filter : memref<2x1x1x2xi32>
  %1 = bufferization.to_tensor %0 restrict : memref<2x1x1x2xi32> to tensor<2x1x1x2xi32>
  %e = tensor.empty() : tensor<1x1x2x2xi32>
  %2 = linalg.transpose ins(%1 : tensor<2x1x1x2xi32>) outs(%e : tensor<1x1x2x2xi32>) permutation = [1, 2, 3, 0]
  %3 = tensor.collapse_shape %2 [[0, 1, 2], [3]] : tensor<1x1x2x2xi32> into tensor<2x2xi32>
  %4 = tensor.expand_shape %3 [[0], [1, 2]] output_shape [2, 2, 1] : tensor<2x2xi32> into tensor<2x2x1xi32>
  %e2 = tensor.empty() : tensor<2x2x1xi32>
  %5 = linalg.transpose ins(%4 : tensor<2x2x1xi32>) outs(%e2 : tensor<2x2x1xi32>) permutation = [1, 0, 2]
  return %5 : tensor<2x2x1xi32>
}
