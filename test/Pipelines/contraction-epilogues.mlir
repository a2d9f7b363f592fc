// RUN: mlprog-opt %s --pass-pipeline='builtin.module(func.func(mlprog-tile-and-vectorize-contractions{target-features=+avx512f}))' | FileCheck %s

// An activation that is the only reader of a matmul's result, behind the
// expand_shape of a convolution's [F, H*W] -> [1, F, H, W]: it is collapsed
// to the matmul's shape and computed on each 8x32 register block after its
// K loop, in registers; the matmul's result is never stored.
// CHECK-LABEL: func.func @matmul_relu
// CHECK: scf.forall
// CHECK: scf.for
// CHECK: vector.contract
// CHECK: scf.yield
// CHECK: arith.maximumf {{.*}} : vector<8x32xf32>
// CHECK: vector.transfer_write {{.*}} : vector<8x32xf32>, tensor<64x128xf32>
// CHECK-NOT: linalg.generic
// CHECK: tensor.expand_shape {{.*}} into tensor<1x64x16x16xf32>
func.func @matmul_relu(%a: tensor<64x64xf32>, %b: tensor<64x256xf32>) -> tensor<1x64x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x256xf32>) outs(%init : tensor<64x256xf32>) -> tensor<64x256xf32>
  %x = tensor.expand_shape %mm [[0, 1], [2, 3]] output_shape [1, 64, 16, 16] : tensor<64x256xf32> into tensor<1x64x16x16xf32>
  %out = tensor.empty() : tensor<1x64x16x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x64x16x16xf32>) outs(%out : tensor<1x64x16x16xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x64x16x16xf32>
  return %r : tensor<1x64x16x16xf32>
}

// A residual add before the ReLU: the residual's 8x32 block is read next to
// the accumulator.
// CHECK-LABEL: func.func @matmul_residual
// CHECK: scf.forall
// CHECK: vector.contract
// CHECK: scf.yield
// CHECK: %[[RES:.*]] = vector.transfer_read {{.*}} : tensor<64x256xf32>, vector<8x32xf32>
// CHECK: arith.addf {{.*}}%[[RES]]{{.*}} : vector<8x32xf32>
// CHECK: arith.maximumf {{.*}} : vector<8x32xf32>
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @matmul_residual(%a: tensor<64x64xf32>, %b: tensor<64x256xf32>, %res: tensor<1x64x16x16xf32>) -> tensor<1x64x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x256xf32>) outs(%init : tensor<64x256xf32>) -> tensor<64x256xf32>
  %x = tensor.expand_shape %mm [[0, 1], [2, 3]] output_shape [1, 64, 16, 16] : tensor<64x256xf32> into tensor<1x64x16x16xf32>
  %out = tensor.empty() : tensor<1x64x16x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %res : tensor<1x64x16x16xf32>, tensor<1x64x16x16xf32>) outs(%out : tensor<1x64x16x16xf32>) {
  ^bb0(%in: f32, %r0: f32, %o: f32):
    %s = arith.addf %in, %r0 : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x64x16x16xf32>
  return %r : tensor<1x64x16x16xf32>
}

// K blocks (K = 2048): a register block holds partial sums until the last
// block, so the activation stays a pass of its own.
// CHECK-LABEL: func.func @k_blocks
// CHECK: scf.forall
// CHECK: vector.contract
// CHECK: linalg.generic
// CHECK: arith.maximumf
func.func @k_blocks(%a: tensor<64x2048xf32>, %b: tensor<2048x256xf32>) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x2048xf32>, tensor<2048x256xf32>) outs(%init : tensor<64x256xf32>) -> tensor<64x256xf32>
  %out = tensor.empty() : tensor<64x256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<64x256xf32>) outs(%out : tensor<64x256xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// The matmul's result has a second reader: it is stored, and the
// activation stays apart.
// CHECK-LABEL: func.func @two_readers
// CHECK: scf.forall
// CHECK: vector.contract
// CHECK: linalg.generic
// CHECK: arith.maximumf
func.func @two_readers(%a: tensor<64x64xf32>, %b: tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<64x256xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x256xf32>) outs(%init : tensor<64x256xf32>) -> tensor<64x256xf32>
  %out = tensor.empty() : tensor<64x256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<64x256xf32>) outs(%out : tensor<64x256xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x256xf32>
  return %r, %mm : tensor<64x256xf32>, tensor<64x256xf32>
}

// A 7x7 output from a weight filter: the pixels are the rows of a
// transposed product, and the ReLU is applied to its 7x32 register blocks
// before the transpose back.
// CHECK-LABEL: func.func @conv_pixels_as_rows
// CHECK: vector.contract
// CHECK: arith.maximumf {{.*}} : vector<7x32xf32>
// CHECK-NOT: linalg.generic
// CHECK: return
memref.global "private" constant @w : memref<32x8x3x3xf32> = dense<1.0>
func.func @conv_pixels_as_rows(%x: tensor<1x8x9x9xf32>) -> tensor<1x32x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %g = memref.get_global @w : memref<32x8x3x3xf32>
  %w = bufferization.to_tensor %g restrict : memref<32x8x3x3xf32> to tensor<32x8x3x3xf32>
  %e = tensor.empty() : tensor<1x32x7x7xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x9x9xf32>, tensor<32x8x3x3xf32>) outs(%init : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %out = tensor.empty() : tensor<1x32x7x7xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x32x7x7xf32>) outs(%out : tensor<1x32x7x7xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x32x7x7xf32>
  return %r : tensor<1x32x7x7xf32>
}

// A Clip after a depthwise window: a last pass over each 4x4 plane, as its
// 16 contiguous elements (one vector), applies it.
// CHECK-LABEL: func.func @depthwise_clip
// CHECK: scf.forall
// CHECK: vector.fma
// CHECK: tensor.collapse_shape {{.*}} into tensor<16xf32>
// CHECK: vector.transfer_read {{.*}} : tensor<16xf32>, vector<16xf32>
// CHECK: arith.maximumf {{.*}} : vector<16xf32>
// CHECK: arith.minimumf {{.*}} : vector<16xf32>
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @depthwise_clip(%x: tensor<1x8x10x10xf32>, %w: tensor<8x3x3xf32>, %init: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %lo = arith.constant 0.0 : f32
  %hi = arith.constant 6.0 : f32
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x8x10x10xf32>, tensor<8x3x3xf32>) outs(%init : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %out = tensor.empty() : tensor<1x8x4x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x8x4x4xf32>) outs(%out : tensor<1x8x4x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %lo : f32
    %n = arith.minimumf %m, %hi : f32
    linalg.yield %n : f32
  } -> tensor<1x8x4x4xf32>
  return %r : tensor<1x8x4x4xf32>
}

// A SiLU (exp) after a depthwise window stays a pass of its own.
// CHECK-LABEL: func.func @depthwise_silu
// CHECK: scf.forall
// CHECK: vector.fma
// CHECK: linalg.generic
// CHECK: math.exp
func.func @depthwise_silu(%x: tensor<1x8x10x10xf32>, %w: tensor<8x3x3xf32>, %init: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %one = arith.constant 1.0 : f32
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x8x10x10xf32>, tensor<8x3x3xf32>) outs(%init : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %out = tensor.empty() : tensor<1x8x4x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x8x4x4xf32>) outs(%out : tensor<1x8x4x4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %n = arith.negf %in : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %in, %d : f32
    linalg.yield %s : f32
  } -> tensor<1x8x4x4xf32>
  return %r : tensor<1x8x4x4xf32>
}

// A ReLU padded with -inf for a max pooling (a ResNet's stem): the pooling
// reads the ReLU's input through zero padding (row checks select 0) and
// applies the ReLU to each output plane; neither the padded copy nor the
// ReLU pass over the larger input remains.
// CHECK-LABEL: func.func @relu_max_pool
// CHECK-NOT: tensor.pad
// CHECK-NOT: linalg.generic
// CHECK: scf.forall
// CHECK: vector.transfer_read %arg0
// CHECK: arith.maximumf {{.*}} : vector<4xf32>
// CHECK: tensor.collapse_shape {{.*}} into tensor<16xf32>
// CHECK: arith.maximumf {{.*}} : vector<16xf32>
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @relu_max_pool(%x: tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x4x8x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x4x8x8xf32>) outs(%e : tensor<1x4x8x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x4x8x8xf32>
  %p = tensor.pad %r low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<1x4x8x8xf32> to tensor<1x4x10x10xf32>
  %w = tensor.empty() : tensor<3x3xf32>
  %e2 = tensor.empty() : tensor<1x4x4x4xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %pool = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %w : tensor<1x4x10x10xf32>, tensor<3x3xf32>) outs(%init : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %pool : tensor<1x4x4x4xf32>
}

// An epilogue that reads a mask through a map with constant results (an
// attention mask broadcast as (0, 0, d2, d3)) is left a pass of its own:
// collapsing its loops to the product's shape crashed upstream's
// collapseOpIterationDims.
// CHECK-LABEL: func.func @mask_with_constant_map
// CHECK: vector.contract
// CHECK: linalg.generic
// CHECK: arith.addf
func.func @mask_with_constant_map(%a: tensor<6x4x8xf32>, %b: tensor<6x8x32xf32>, %mask: tensor<1x1x4x32xf32>) -> tensor<2x3x4x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x4x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<6x4x32xf32>) -> tensor<6x4x32xf32>
  %mm = linalg.batch_matmul ins(%a, %b : tensor<6x4x8xf32>, tensor<6x8x32xf32>) outs(%init : tensor<6x4x32xf32>) -> tensor<6x4x32xf32>
  %x = tensor.expand_shape %mm [[0, 1], [2], [3]] output_shape [2, 3, 4, 32] : tensor<6x4x32xf32> into tensor<2x3x4x32xf32>
  %out = tensor.empty() : tensor<2x3x4x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (0, 0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %mask : tensor<2x3x4x32xf32>, tensor<1x1x4x32xf32>) outs(%out : tensor<2x3x4x32xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %s = arith.addf %in, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x3x4x32xf32>
  return %r : tensor<2x3x4x32xf32>
}

// A convolution large enough for the blocked column tensor (56x56: 14 blocks
// of 4 rows), with a bias and a residual add and ReLU after it: each block
// starts its register blocks from the bias and applies the epilogue to them,
// reading the residual's block; no pass over the whole output is left.
// CHECK-LABEL: func.func @conv_blocks_residual
// CHECK: scf.forall ({{.*}}) in (1, 14)
// CHECK: vector.transfer_read %arg2{{.*}} : tensor<64xf32>, vector<8x32xf32>
// CHECK: vector.contract
// CHECK: scf.yield
// CHECK: %[[RES:.*]] = vector.transfer_read {{.*}} : tensor<1x64x3136xf32>, vector<8x32xf32>
// CHECK: arith.addf {{.*}}%[[RES]] : vector<8x32xf32>
// CHECK: arith.maximumf {{.*}} : vector<8x32xf32>
// CHECK: scf.forall.in_parallel
// CHECK-NOT: linalg.generic
// CHECK: return
#bias4 = affine_map<(d0, d1, d2, d3) -> (d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv_blocks_residual(%x: tensor<1x64x58x58xf32>, %w: tensor<64x64x3x3xf32>, %bias: tensor<64xf32>, %res: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %zero = arith.constant 0.0 : f32
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

// Batch 2: one product [F, B*P] that starts from the bias; its transposed
// copy into [B, F, H, W] is the ReLU (no add of the init, no pass of its
// own for the activation).
// CHECK-LABEL: func.func @conv_batch_relu
// CHECK: vector.transfer_read %arg2{{.*}} : tensor<64xf32>, vector<8x32xf32>
// CHECK: vector.contract
// CHECK: %[[OUT:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<64x2x14x14xf32>) outs(%{{.*}} : tensor<2x64x14x14xf32>)
// CHECK-NOT: arith.addf
// CHECK: arith.maximumf
// CHECK-NOT: linalg.generic
// CHECK: return %[[OUT]]
func.func @conv_batch_relu(%x: tensor<2x32x16x16xf32>, %w: tensor<64x32x3x3xf32>, %bias: tensor<64xf32>) -> tensor<2x64x14x14xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x64x14x14xf32>
  %init = linalg.generic {indexing_maps = [#bias4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : tensor<64xf32>) outs(%e : tensor<2x64x14x14xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x64x14x14xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<2x32x16x16xf32>, tensor<64x32x3x3xf32>) outs(%init : tensor<2x64x14x14xf32>) -> tensor<2x64x14x14xf32>
  %out = tensor.empty() : tensor<2x64x14x14xf32>
  %r = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<2x64x14x14xf32>) outs(%out : tensor<2x64x14x14xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x64x14x14xf32>
  return %r : tensor<2x64x14x14xf32>
}
