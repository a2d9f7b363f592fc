// RUN: mlprog-opt %s --pass-pipeline='builtin.module(func.func(mlprog-tile-and-vectorize-contractions{target-features=+avx512f}),canonicalize,cse)' | FileCheck %s
// RUN: mlprog-opt %s --pass-pipeline='builtin.module(func.func(mlprog-tile-and-vectorize-contractions{target-features=+avx512f}),canonicalize,cse,one-shot-bufferize{bufferize-function-boundaries allow-return-allocs-from-loops function-boundary-type-conversion=identity-layout-map},canonicalize,cse,canonicalize)' | FileCheck %s --check-prefix=BUF

// Two matmuls accumulate into one shared bias broadcast (what CSE makes of
// two layers with equal biases). N = 196 splits into 192 + 4 columns. Each
// part of each matmul computes its slice of the broadcast inside its own
// forall tiles, into a slice of its own alloc_tensor, so bufferization
// neither copies the shared init nor a part's slice in and out.
#bias = affine_map<(d0, d1) -> (d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @shared_bias
// CHECK-NOT: linalg.generic
// CHECK: %[[A:.*]] = bufferization.alloc_tensor() : tensor<256x196xf32>
// CHECK: %[[B:.*]] = bufferization.alloc_tensor() : tensor<256x196xf32>
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: %[[S0:.*]] = tensor.extract_slice %[[B]][0, 0] [256, 192]
// CHECK: %[[F0:.*]] = scf.forall {{.*}} shared_outs(%{{.*}} = %[[S0]]) -> (tensor<256x192xf32>)
// CHECK:   linalg.generic {{.*}} ins(%{{.*}} : tensor<128xf32>) outs(%{{.*}} : tensor<128x192xf32>)
// CHECK:   vector.contract
// CHECK: %[[I0:.*]] = tensor.insert_slice %[[F0]] into %[[B]][0, 0] [256, 192]
// CHECK: %[[S1:.*]] = tensor.extract_slice %[[I0]][0, 192] [256, 4]
// CHECK: %[[F1:.*]] = scf.forall {{.*}} shared_outs(%{{.*}} = %[[S1]]) -> (tensor<256x4xf32>)
// CHECK:   linalg.generic {{.*}} ins(%{{.*}} : tensor<128xf32>) outs(%{{.*}} : tensor<128x4xf32>)
// CHECK: tensor.insert_slice %[[F1]] into %[[I0]][0, 192] [256, 4]
// CHECK: tensor.extract_slice %[[A]][0, 0] [256, 192]
// CHECK-NOT: linalg.matmul

// BUF-LABEL: func.func @shared_bias
// BUF-NOT: memref.copy
// BUF: return
func.func @shared_bias(%a: tensor<256x2304xf32>, %b: tensor<2304x196xf32>,
                       %c: tensor<2304x196xf32>, %bias: tensor<256xf32>)
    -> (tensor<256x196xf32>, tensor<256x196xf32>) {
  %e = tensor.empty() : tensor<256x196xf32>
  %init = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<256xf32>) outs(%e : tensor<256x196xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<256x196xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<256x2304xf32>, tensor<2304x196xf32>) outs(%init : tensor<256x196xf32>) -> tensor<256x196xf32>
  %1 = linalg.matmul ins(%a, %c : tensor<256x2304xf32>, tensor<2304x196xf32>) outs(%init : tensor<256x196xf32>) -> tensor<256x196xf32>
  return %0, %1 : tensor<256x196xf32>, tensor<256x196xf32>
}

// A convolution whose init is a bias broadcast also returned (so shared):
// each block of the blocked column tensor's forall (56x56 = 14 blocks of 4
// rows) starts its register blocks from the bias itself, into a tensor of
// its own, so the shared broadcast is neither copied nor written.
// CHECK-LABEL: func.func @conv_bias
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x64x56x56xf32>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<64xf32>) outs(%[[E]] : tensor<1x64x56x56xf32>)
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[E]]
// CHECK: scf.forall (%{{.*}}) in (14) shared_outs(%{{.*}} = %[[C]])
// CHECK: vector.transfer_read %arg2{{.*}} : tensor<64xf32>, vector<8x32xf32>
// CHECK: vector.contract
// BUF-LABEL: func.func @conv_bias
// BUF-NOT: memref.copy
// BUF: return
#bias4 = affine_map<(d0, d1, d2, d3) -> (d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_bias(%x: tensor<1x64x58x58xf32>, %w: tensor<64x64x3x3xf32>,
                     %bias: tensor<64xf32>) -> (tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>) {
  %e = tensor.empty() : tensor<1x64x56x56xf32>
  %init = linalg.generic {indexing_maps = [#bias4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : tensor<64xf32>) outs(%e : tensor<1x64x56x56xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x64x56x56xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x64x58x58xf32>, tensor<64x64x3x3xf32>) outs(%init : tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  return %0, %init : tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>
}

// N = 49 (a 7x7 output map) is padded with zero columns to 64, blocked as
// one contraction (no split into 32 + 16 + 1, each reading all of A), and
// the padding sliced off; the bias is broadcast over the padded init.
// CHECK-LABEL: func.func @small_n
// CHECK: %[[B:.*]] = tensor.pad %{{.*}} low[0, 0] high[0, 15]
// CHECK: tensor<4608x49xf32> to tensor<4608x64xf32>
// CHECK: %[[A:.*]] = bufferization.alloc_tensor() : tensor<512x64xf32>
// CHECK: %[[F:.*]] = scf.forall {{.*}} shared_outs(%{{.*}} = %[[A]]) -> (tensor<512x64xf32>)
// CHECK:   linalg.generic {{.*}} ins(%{{.*}} : tensor<128xf32>) outs(%{{.*}} : tensor<128x64xf32>)
// CHECK:   vector.contract {{.*}} vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK: tensor.extract_slice %[[F]][0, 0] [512, 49] [1, 1] : tensor<512x64xf32> to tensor<512x49xf32>
func.func @small_n(%a: tensor<512x4608xf32>, %b: tensor<4608x49xf32>,
                   %bias: tensor<512xf32>) -> tensor<512x49xf32> {
  %e = tensor.empty() : tensor<512x49xf32>
  %init = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<512xf32>) outs(%e : tensor<512x49xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<512x49xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<512x4608xf32>, tensor<4608x49xf32>) outs(%init : tensor<512x49xf32>) -> tensor<512x49xf32>
  return %0 : tensor<512x49xf32>
}
