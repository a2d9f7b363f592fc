// RUN: mlprog-opt %s --pass-pipeline='builtin.module(func.func(mlprog-tile-and-vectorize-contractions{target-features=+avx512f}))' | FileCheck %s
// RUN: mlprog-opt %s --pass-pipeline='builtin.module(func.func(mlprog-tile-and-vectorize-contractions{target-features=+avx2,+fma}))' | FileCheck %s --check-prefix=AVX2

// Stride-1 and stride-2 3x3 convolutions with a weight filter, whose output
// rows are multiples of 8 or 7 pixels, are computed from the padded input
// directly (DirectConvolutions.cpp): no column tensor, no matmul.

#bias4 = affine_map<(d0, d1, d2, d3) -> (d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>

// 56x56 with a bias, a residual add and a ReLU: an scf.forall over (panel
// of 32 features, image, output row); blocks of 8 pixels whose 16
// accumulators start from the bias and run a loop over the 64 channels of
// 9 taps x 8 broadcast pixels x 2 FMAs; transposed in registers (3 rounds
// of shuffles per half), the residual added and the ReLU applied to rows
// of 8 pixels. With AVX2, panels of 16 features in vectors of 8.
// CHECK-LABEL: func.func @direct_residual
// CHECK: %[[PANELS:.*]] = linalg.transpose ins(%{{.*}} : tensor<2x32x576xf32>) outs(%{{.*}} : tensor<2x576x32xf32>) permutation = [0, 2, 1]
// CHECK: scf.forall (%[[B:.*]], %[[N:.*]], %[[ROW:.*]]) in (2, 1, 56)
// CHECK: %[[BIAS:.*]] = vector.transfer_read %arg1[%{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<64xf32>, vector<16xf32>
// CHECK: scf.for %[[COL:.*]] = %c0 to %c56 step %c8
// CHECK: scf.for %[[C:.*]] = %c0 to %c64 step %c1 iter_args(%{{.*}} = %[[BIAS]]
// CHECK: vector.transfer_read %[[PANELS]][%[[B]], %{{.*}}, %c0]
// CHECK: vector.transfer_read %[[PANELS]][%[[B]], %{{.*}}, %c16]
// CHECK: tensor.extract %arg0[%[[N]], %[[C]], %[[ROW]], %[[COL]]]
// CHECK: vector.broadcast
// CHECK: vector.fma
// CHECK-COUNT-48: vector.shuffle
// CHECK-NOT: vector.shuffle
// CHECK: %[[RES:.*]] = vector.transfer_read %arg2{{.*}} : tensor<1x64x56x56xf32>, vector<8xf32>
// CHECK: arith.addf %{{.*}}, %[[RES]] : vector<8xf32>
// CHECK: arith.maximumf {{.*}} : vector<8xf32>
// CHECK: vector.transfer_write {{.*}} : vector<8xf32>, tensor<1x32x1x56xf32>
// CHECK: scf.forall.in_parallel
// CHECK-NOT: linalg.generic
// CHECK-NOT: linalg.conv
// CHECK: return
// AVX2-LABEL: func.func @direct_residual
// AVX2: linalg.transpose ins(%{{.*}} : tensor<4x16x576xf32>) outs(%{{.*}} : tensor<4x576x16xf32>)
// AVX2: scf.forall ({{.*}}) in (4, 1, 56)
// AVX2: vector.fma {{.*}} : vector<8xf32>
// AVX2: vector.transfer_write {{.*}} : vector<8xf32>, tensor<1x16x1x56xf32>
memref.global "private" constant @w64 : memref<64x64x3x3xf32> = dense<1.0>
func.func @direct_residual(%x: tensor<1x64x58x58xf32>, %bias: tensor<64xf32>, %res: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %zero = arith.constant 0.0 : f32
  %g = memref.get_global @w64 : memref<64x64x3x3xf32>
  %w = bufferization.to_tensor %g restrict : memref<64x64x3x3xf32> to tensor<64x64x3x3xf32>
  %e = tensor.empty() : tensor<1x64x56x56xf32>
  %init = linalg.generic {indexing_maps = [#bias4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : tensor<64xf32>) outs(%e : tensor<1x64x56x56xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x64x56x56xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x64x58x58xf32>, tensor<64x64x3x3xf32>) outs(%init : tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  %out = tensor.empty() : tensor<1x64x56x56xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %res : tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>) outs(%out : tensor<1x64x56x56xf32>) {
  ^bb0(%in: f32, %r0: f32, %o: f32):
    %s = arith.addf %in, %r0 : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x64x56x56xf32>
  return %r : tensor<1x64x56x56xf32>
}

// Stride 2 at batch 2 onto 28x28 rows, from a zero fill: blocks of 7
// pixels, each reading every other input column, their accumulators
// starting from zeros; rows of 7 pixels written.
// CHECK-LABEL: func.func @direct_stride2
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<16xf32>
// CHECK: scf.forall ({{.*}}) in (1, 2, 28)
// CHECK: scf.for %{{.*}} = %c0 to %c28 step %c7
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]]
// CHECK: vector.fma
// CHECK: vector.transfer_write {{.*}} : vector<7xf32>, tensor<1x32x1x28xf32>
// CHECK-NOT: linalg.conv
// CHECK: return
memref.global "private" constant @w32 : memref<32x16x3x3xf32> = dense<1.0>
func.func @direct_stride2(%x: tensor<2x16x57x57xf32>) -> tensor<2x32x28x28xf32> {
  %zero = arith.constant 0.0 : f32
  %g = memref.get_global @w32 : memref<32x16x3x3xf32>
  %w = bufferization.to_tensor %g restrict : memref<32x16x3x3xf32> to tensor<32x16x3x3xf32>
  %e = tensor.empty() : tensor<2x32x28x28xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x32x28x28xf32>) -> tensor<2x32x28x28xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<2x16x57x57xf32>, tensor<32x16x3x3xf32>) outs(%init : tensor<2x32x28x28xf32>) -> tensor<2x32x28x28xf32>
  return %c : tensor<2x32x28x28xf32>
}

// A 7x7 output of one image keeps the pixels-as-rows product (7 blocks of
// 7 pixels would each stream the whole filter panel), as does a filter
// that is no weight; 7x7 outputs of two images (14 blocks) are direct.
// CHECK-LABEL: func.func @not_direct_7x7
// CHECK: vector.contract
// CHECK-NOT: vector.fma
// CHECK: return
memref.global "private" constant @w7 : memref<32x8x3x3xf32> = dense<1.0>
func.func @not_direct_7x7(%x: tensor<1x8x9x9xf32>) -> tensor<1x32x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %g = memref.get_global @w7 : memref<32x8x3x3xf32>
  %w = bufferization.to_tensor %g restrict : memref<32x8x3x3xf32> to tensor<32x8x3x3xf32>
  %e = tensor.empty() : tensor<1x32x7x7xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x9x9xf32>, tensor<32x8x3x3xf32>) outs(%init : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  return %c : tensor<1x32x7x7xf32>
}

// CHECK-LABEL: func.func @not_direct_argument_filter
// CHECK: vector.contract
// CHECK-NOT: vector.fma
// CHECK: return
func.func @not_direct_argument_filter(%x: tensor<1x8x30x30xf32>, %w: tensor<32x8x3x3xf32>) -> tensor<1x32x28x28xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32x28x28xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x28x28xf32>) -> tensor<1x32x28x28xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x8x30x30xf32>, tensor<32x8x3x3xf32>) outs(%init : tensor<1x32x28x28xf32>) -> tensor<1x32x28x28xf32>
  return %c : tensor<1x32x28x28xf32>
}

// CHECK-LABEL: func.func @direct_7x7_batch2
// CHECK: scf.forall ({{.*}}) in (1, 2, 7)
// CHECK: vector.fma
// CHECK: vector.transfer_write {{.*}} : vector<7xf32>, tensor<1x32x1x7xf32>
// CHECK-NOT: vector.contract
// CHECK: return
func.func @direct_7x7_batch2(%x: tensor<2x8x9x9xf32>) -> tensor<2x32x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %g = memref.get_global @w7 : memref<32x8x3x3xf32>
  %w = bufferization.to_tensor %g restrict : memref<32x8x3x3xf32> to tensor<32x8x3x3xf32>
  %e = tensor.empty() : tensor<2x32x7x7xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x32x7x7xf32>) -> tensor<2x32x7x7xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x8x9x9xf32>, tensor<32x8x3x3xf32>) outs(%init : tensor<2x32x7x7xf32>) -> tensor<2x32x7x7xf32>
  return %c : tensor<2x32x7x7xf32>
}
