// RUN: mlprog-opt %s --pass-pipeline='builtin.module(func.func(mlprog-quantized-convolutions{target-features=+avx512f,+avx512bw,+avx512vnni}))' | FileCheck %s
// RUN: mlprog-opt %s --pass-pipeline='builtin.module(func.func(mlprog-quantized-convolutions{target-features=+avx512f,+avx512bw}))' | FileCheck %s --check-prefix=NOVNNI

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#scalar4 = affine_map<(d0, d1, d2, d3) -> ()>
#channel = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, 0)>
#bias = affine_map<(d0, d1, d2, d3) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#scalar2 = affine_map<(d0, d1) -> ()>

memref.global "private" constant @w : memref<24x8x3x3xi8> = dense<3>
memref.global "private" constant @fc : memref<10x64xi8> = dense<-5>

// A QDQ convolution as onnxruntime's quantize_static writes it: u8
// activations (scale and zero point), an i8 filter with one scale per
// output channel, zero padding, a bias. It becomes the filter bytes [F, K]
// in place, the padded input gathered into columns [K, OH * OW] by vector
// code (49, and columns of the zero point up to 64 for pairs of panels),
// their widenings, an i32 contraction and the rescaling into the bias.

// CHECK-LABEL: func.func @conv
// CHECK-SAME: (%[[XQ:.*]]: tensor<1x8x7x7xi8>, %[[SX:.*]]: tensor<f32>, %[[ZX:.*]]: tensor<i8>, %[[SW:.*]]: tensor<24x1x1x1xf32>, %[[BIAS:.*]]: tensor<24xf32>)
// CHECK: %[[Z:.*]] = tensor.extract %[[ZX]][] : tensor<i8>
// CHECK: %[[PADDED:.*]] = tensor.pad %[[XQ]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[Z]] : i8
// CHECK: %[[COLS:.*]] = scf.forall (%{{.*}}) in (8) shared_outs(%{{.*}}) -> (tensor<72x64xi8>)
// CHECK: vector.transfer_write %{{.*}} : vector<15xi8>, tensor<9x64xi8>
// CHECK: vector.transfer_read %[[PADDED]]{{.*}} : tensor<1x8x9x9xi8>, vector<7xi8>
// CHECK: vector.transfer_write {{.*}} : vector<7xi8>, tensor<9x64xi8>
// CHECK: tensor.parallel_insert_slice
// CHECK: %[[FILTER:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<24x8x3x3xi8> into tensor<24x72xi8>
// CHECK: %[[A:.*]] = linalg.generic {{.*}} ins(%[[FILTER]] : tensor<24x72xi8>)
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: %[[B:.*]] = linalg.generic {{.*}} ins(%[[COLS]], %[[ZX]] : tensor<72x64xi8>, tensor<i8>)
// CHECK: arith.extui
// CHECK: arith.extui
// CHECK: arith.subi
// CHECK: %[[ACC:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]] : tensor<24x72xi32>, tensor<72x64xi32>) outs(%{{.*}} : tensor<24x64xi32>)
// CHECK: arith.muli
// CHECK: arith.addi
// CHECK: %[[USED:.*]] = tensor.extract_slice %[[ACC]][0, 0] [24, 49] [1, 1]
// CHECK: %[[ROWS:.*]] = tensor.expand_shape %[[USED]] {{\[}}[0, 1], [2, 3]] output_shape [1, 24, 7, 7]
// CHECK: %[[SCALES:.*]] = tensor.collapse_shape %[[SW]] {{\[}}[0, 1, 2, 3]] : tensor<24x1x1x1xf32> into tensor<24xf32>
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[ROWS]], %[[SX]], %[[SCALES]], %{{.*}} : tensor<1x24x7x7xi32>, tensor<f32>, tensor<24xf32>, tensor<1x24x7x7xf32>)
// CHECK: arith.sitofp
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: return %[[Y]]

// NOVNNI-LABEL: func.func @conv
// NOVNNI: linalg.conv_2d_nchw_fchw
func.func @conv(%xq: tensor<1x8x7x7xi8>, %sx: tensor<f32>, %zx: tensor<i8>,
                %sw: tensor<24x1x1x1xf32>, %b: tensor<24xf32>)
    -> tensor<1x24x7x7xf32> {
  %e0 = tensor.empty() : tensor<1x8x7x7xf32>
  %x = linalg.generic {indexing_maps = [#id4, #scalar4, #scalar4, #id4],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%xq, %sx, %zx : tensor<1x8x7x7xi8>, tensor<f32>, tensor<i8>)
      outs(%e0 : tensor<1x8x7x7xf32>) {
  ^bb0(%q: i8, %s: f32, %z: i8, %o: f32):
    %qi = arith.extui %q : i8 to i32
    %zi = arith.extui %z : i8 to i32
    %d = arith.subi %qi, %zi : i32
    %f = arith.sitofp %d : i32 to f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<1x8x7x7xf32>
  %wg = memref.get_global @w : memref<24x8x3x3xi8>
  %wq = bufferization.to_tensor %wg restrict : memref<24x8x3x3xi8> to tensor<24x8x3x3xi8>
  %e1 = tensor.empty() : tensor<24x8x3x3xf32>
  %w = linalg.generic {indexing_maps = [#id4, #channel, #id4],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%wq, %sw : tensor<24x8x3x3xi8>, tensor<24x1x1x1xf32>)
      outs(%e1 : tensor<24x8x3x3xf32>) {
  ^bb0(%q: i8, %s: f32, %o: f32):
    %qi = arith.extsi %q : i8 to i32
    %f = arith.sitofp %qi : i32 to f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<24x8x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x7x7xf32> to tensor<1x8x9x9xf32>
  %e2 = tensor.empty() : tensor<1x24x7x7xf32>
  %init = linalg.generic {indexing_maps = [#bias, #id4],
                          iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : tensor<24xf32>) outs(%e2 : tensor<1x24x7x7xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<1x24x7x7xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%padded, %w : tensor<1x8x9x9xf32>, tensor<24x8x3x3xf32>)
      outs(%init : tensor<1x24x7x7xf32>) -> tensor<1x24x7x7xf32>
  return %y : tensor<1x24x7x7xf32>
}

// Images whose pixels are whole panels of 16 (here 3 images of 4 x 4
// outputs of a 3x3 window of stride 2): their columns are written straight
// into the product's panels [64 / 16, 36 / 4, 64], an scf.forall over
// (image, block of 4 output rows) whose loop over K steps reads the step's
// 4 rows of the window for each output row (8 bytes, every other one kept)
// and interleaves them into the panel's 16 bytes; the columns after the
// batch's 48 hold the zero point. The product reads them through the
// transpose that unpacks them (which --mlprog-integer-contractions-to-f32
// sees through).
memref.global "private" constant @w4 : memref<16x4x3x3xi8> = dense<1>

// CHECK-LABEL: func.func @conv_into_panels
// CHECK: %[[PADDED:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[PANELS:.*]] = scf.forall (%{{.*}}, %{{.*}}) in (3, 1) shared_outs(%{{.*}}) -> (tensor<4x9x64xi8>)
// CHECK: scf.for {{.*}} -> (tensor<1x9x64xi8>)
// CHECK-COUNT-4: vector.transfer_read %[[PADDED]]{{.*}} : tensor<3x4x10x10xi8>, vector<8xi8>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6] : vector<8xi8>, vector<8xi8>
// CHECK: vector.transfer_write %{{.*}} : vector<16xi8>, tensor<1x9x64xi8>
// CHECK: tensor.parallel_insert_slice
// CHECK: %[[ZP:.*]] = linalg.fill ins(%{{.*}} : i8) outs(%{{.*}} : tensor<1x9x64xi8>)
// CHECK: %[[ALL:.*]] = tensor.insert_slice %[[ZP]] into %[[PANELS]][3, 0, 0] [1, 9, 64] [1, 1, 1]
// CHECK: %[[EXPANDED:.*]] = tensor.expand_shape %[[ALL]]
// CHECK: linalg.transpose ins(%[[EXPANDED]] : tensor<4x9x16x4xi8>) outs(%{{.*}} : tensor<9x4x4x16xi8>) permutation = [1, 3, 0, 2]
// CHECK: tensor.collapse_shape %{{.*}} : tensor<9x4x4x16xi8> into tensor<36x64xi8>
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: return
func.func @conv_into_panels(%xq: tensor<3x4x8x8xi8>, %sx: tensor<f32>, %zx: tensor<i8>,
                            %sw: tensor<16x1x1x1xf32>) -> tensor<3x16x4x4xf32> {
  %e0 = tensor.empty() : tensor<3x4x8x8xf32>
  %x = linalg.generic {indexing_maps = [#id4, #scalar4, #scalar4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%xq, %sx, %zx : tensor<3x4x8x8xi8>, tensor<f32>, tensor<i8>) outs(%e0 : tensor<3x4x8x8xf32>) {
  ^bb0(%q: i8, %s: f32, %z: i8, %o: f32):
    %qi = arith.extui %q : i8 to i32
    %zi = arith.extui %z : i8 to i32
    %d = arith.subi %qi, %zi : i32
    %f = arith.sitofp %d : i32 to f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<3x4x8x8xf32>
  %wg = memref.get_global @w4 : memref<16x4x3x3xi8>
  %wq = bufferization.to_tensor %wg restrict : memref<16x4x3x3xi8> to tensor<16x4x3x3xi8>
  %e1 = tensor.empty() : tensor<16x4x3x3xf32>
  %w = linalg.generic {indexing_maps = [#id4, #channel, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%wq, %sw : tensor<16x4x3x3xi8>, tensor<16x1x1x1xf32>) outs(%e1 : tensor<16x4x3x3xf32>) {
  ^bb0(%q: i8, %s: f32, %o: f32):
    %qi = arith.extsi %q : i8 to i32
    %f = arith.sitofp %qi : i32 to f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<16x4x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<3x4x8x8xf32> to tensor<3x4x10x10xf32>
  %e2 = tensor.empty() : tensor<3x16x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<3x16x4x4xf32>) -> tensor<3x16x4x4xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%padded, %w : tensor<3x4x10x10xf32>, tensor<16x4x3x3xf32>) outs(%init : tensor<3x16x4x4xf32>) -> tensor<3x16x4x4xf32>
  return %y : tensor<3x16x4x4xf32>
}

// ONNX Gemm with transB of one row: the weight [N, K] read in place, the
// row as one column (padded to 16), the result [N, 1] read as [1, N].

// CHECK-LABEL: func.func @gemm
// CHECK: %[[COLUMN:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [64, 1] : tensor<64xi8> into tensor<64x1xi8>
// CHECK: tensor.pad %[[COLUMN]] low[0, 0] high[0, 15]
// CHECK: ins(%{{.*}}, %{{.*}} : tensor<10x64xi32>, tensor<64x16xi32>) outs(%{{.*}} : tensor<10x16xi32>)
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [10, 1] [1, 1]
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [1, 10] : tensor<10xi32> into tensor<1x10xi32>
// CHECK-NOT: linalg.matmul
// CHECK: return

// A signed activation is left alone.

// CHECK-LABEL: func.func @signed_activations
// CHECK: linalg.matmul
func.func @gemm(%xq: tensor<1x64xi8>, %sx: tensor<f32>, %zx: tensor<i8>,
    %sw: tensor<f32>) -> tensor<1x10xf32> {
  %e0 = tensor.empty() : tensor<1x64xf32>
  %x = linalg.generic {indexing_maps = [#id2, #scalar2, #scalar2, #id2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%xq, %sx, %zx : tensor<1x64xi8>, tensor<f32>, tensor<i8>)
      outs(%e0 : tensor<1x64xf32>) {
  ^bb0(%q: i8, %s: f32, %z: i8, %o: f32):
    %qi = arith.extui %q : i8 to i32
    %zi = arith.extui %z : i8 to i32
    %d = arith.subi %qi, %zi : i32
    %f = arith.sitofp %d : i32 to f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<1x64xf32>
  %wg = memref.get_global @fc : memref<10x64xi8>
  %wq = bufferization.to_tensor %wg restrict : memref<10x64xi8> to tensor<10x64xi8>
  %e1 = tensor.empty() : tensor<10x64xf32>
  %w = linalg.generic {indexing_maps = [#id2, #scalar2, #id2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%wq, %sw : tensor<10x64xi8>, tensor<f32>)
      outs(%e1 : tensor<10x64xf32>) {
  ^bb0(%q: i8, %s: f32, %o: f32):
    %qi = arith.extsi %q : i8 to i32
    %f = arith.sitofp %qi : i32 to f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<10x64xf32>
  %e2 = tensor.empty() : tensor<64x10xf32>
  %wt = linalg.transpose ins(%w : tensor<10x64xf32>) outs(%e2 : tensor<64x10xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<1x10xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x10xf32>) -> tensor<1x10xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<1x64xf32>, tensor<64x10xf32>)
      outs(%init : tensor<1x10xf32>) -> tensor<1x10xf32>
  return %y : tensor<1x10xf32>
}

func.func @signed_activations(%xq: tensor<1x64xi8>, %sx: tensor<f32>, %zx: tensor<i8>,
    %sw: tensor<f32>) -> tensor<1x10xf32> {
  %e0 = tensor.empty() : tensor<1x64xf32>
  %x = linalg.generic {indexing_maps = [#id2, #scalar2, #scalar2, #id2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%xq, %sx, %zx : tensor<1x64xi8>, tensor<f32>, tensor<i8>)
      outs(%e0 : tensor<1x64xf32>) {
  ^bb0(%q: i8, %s: f32, %z: i8, %o: f32):
    %qi = arith.extsi %q : i8 to i32
    %zi = arith.extsi %z : i8 to i32
    %d = arith.subi %qi, %zi : i32
    %f = arith.sitofp %d : i32 to f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<1x64xf32>
  %wg = memref.get_global @fc : memref<10x64xi8>
  %wq = bufferization.to_tensor %wg restrict : memref<10x64xi8> to tensor<10x64xi8>
  %e1 = tensor.empty() : tensor<10x64xf32>
  %w = linalg.generic {indexing_maps = [#id2, #scalar2, #id2],
                       iterator_types = ["parallel", "parallel"]}
      ins(%wq, %sw : tensor<10x64xi8>, tensor<f32>)
      outs(%e1 : tensor<10x64xf32>) {
  ^bb0(%q: i8, %s: f32, %o: f32):
    %qi = arith.extsi %q : i8 to i32
    %f = arith.sitofp %qi : i32 to f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<10x64xf32>
  %e2 = tensor.empty() : tensor<64x10xf32>
  %wt = linalg.transpose ins(%w : tensor<10x64xf32>) outs(%e2 : tensor<64x10xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %e3 = tensor.empty() : tensor<1x10xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x10xf32>) -> tensor<1x10xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<1x64xf32>, tensor<64x10xf32>)
      outs(%init : tensor<1x10xf32>) -> tensor<1x10xf32>
  return %y : tensor<1x10xf32>
}

// quantize_static's per-channel weights have one zero point per output
// channel, all 0: taken as one zero point when they are all equal (the
// filter then needs no shift); zero points that differ leave the
// convolution in f32.
memref.global "private" constant @zeros : memref<16x1x1x1xi8> = dense<0>
memref.global "private" constant @mixed : memref<16x1x1x1xi8> = dense<[[[[0]]], [[[1]]], [[[0]]], [[[0]]], [[[0]]], [[[0]]], [[[0]]], [[[0]]], [[[0]]], [[[0]]], [[[0]]], [[[0]]], [[[0]]], [[[0]]], [[[0]]], [[[0]]]]>
memref.global "private" constant @w16 : memref<16x8x1x1xi8> = dense<2>

// CHECK-LABEL: func.func @per_channel_zero_points
// CHECK: %[[FILTER:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<16x8x1x1xi8> into tensor<16x8xi8>
// CHECK: linalg.generic {{.*}} ins(%[[FILTER]] : tensor<16x8xi8>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.extsi
// CHECK-NEXT: linalg.yield
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: return
// CHECK-LABEL: func.func @mixed_zero_points
// CHECK: linalg.conv_2d_nchw_fchw

func.func @per_channel_zero_points(%xq: tensor<1x8x4x4xi8>, %sx: tensor<f32>, %zx: tensor<i8>, %sw: tensor<16x1x1x1xf32>) -> tensor<1x16x4x4xf32> {
  %zg = memref.get_global @zeros : memref<16x1x1x1xi8>
  %zw = bufferization.to_tensor %zg restrict : memref<16x1x1x1xi8> to tensor<16x1x1x1xi8>
  %e0 = tensor.empty() : tensor<1x8x4x4xf32>
  %x = linalg.generic {indexing_maps = [#id4, #scalar4, #scalar4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%xq, %sx, %zx : tensor<1x8x4x4xi8>, tensor<f32>, tensor<i8>) outs(%e0 : tensor<1x8x4x4xf32>) {
  ^bb0(%q: i8, %s: f32, %z: i8, %o: f32):
    %qi = arith.extui %q : i8 to i32
    %zi = arith.extui %z : i8 to i32
    %d = arith.subi %qi, %zi : i32
    %f = arith.sitofp %d : i32 to f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<1x8x4x4xf32>
  %wg = memref.get_global @w16 : memref<16x8x1x1xi8>
  %wq = bufferization.to_tensor %wg restrict : memref<16x8x1x1xi8> to tensor<16x8x1x1xi8>
  %e1 = tensor.empty() : tensor<16x8x1x1xf32>
  %w = linalg.generic {indexing_maps = [#id4, #channel, #channel, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%wq, %sw, %zw : tensor<16x8x1x1xi8>, tensor<16x1x1x1xf32>, tensor<16x1x1x1xi8>) outs(%e1 : tensor<16x8x1x1xf32>) {
  ^bb0(%q: i8, %s: f32, %z: i8, %o: f32):
    %qi = arith.extsi %q : i8 to i32
    %zi = arith.extsi %z : i8 to i32
    %d = arith.subi %qi, %zi : i32
    %f = arith.sitofp %d : i32 to f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<16x8x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<1x16x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x4x4xf32>, tensor<16x8x1x1xf32>) outs(%init : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %y : tensor<1x16x4x4xf32>
}

func.func @mixed_zero_points(%xq: tensor<1x8x4x4xi8>, %sx: tensor<f32>, %zx: tensor<i8>, %sw: tensor<16x1x1x1xf32>) -> tensor<1x16x4x4xf32> {
  %zg = memref.get_global @mixed : memref<16x1x1x1xi8>
  %zw = bufferization.to_tensor %zg restrict : memref<16x1x1x1xi8> to tensor<16x1x1x1xi8>
  %e0 = tensor.empty() : tensor<1x8x4x4xf32>
  %x = linalg.generic {indexing_maps = [#id4, #scalar4, #scalar4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%xq, %sx, %zx : tensor<1x8x4x4xi8>, tensor<f32>, tensor<i8>) outs(%e0 : tensor<1x8x4x4xf32>) {
  ^bb0(%q: i8, %s: f32, %z: i8, %o: f32):
    %qi = arith.extui %q : i8 to i32
    %zi = arith.extui %z : i8 to i32
    %d = arith.subi %qi, %zi : i32
    %f = arith.sitofp %d : i32 to f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<1x8x4x4xf32>
  %wg = memref.get_global @w16 : memref<16x8x1x1xi8>
  %wq = bufferization.to_tensor %wg restrict : memref<16x8x1x1xi8> to tensor<16x8x1x1xi8>
  %e1 = tensor.empty() : tensor<16x8x1x1xf32>
  %w = linalg.generic {indexing_maps = [#id4, #channel, #channel, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%wq, %sw, %zw : tensor<16x8x1x1xi8>, tensor<16x1x1x1xf32>, tensor<16x1x1x1xi8>) outs(%e1 : tensor<16x8x1x1xf32>) {
  ^bb0(%q: i8, %s: f32, %z: i8, %o: f32):
    %qi = arith.extsi %q : i8 to i32
    %zi = arith.extsi %z : i8 to i32
    %d = arith.subi %qi, %zi : i32
    %f = arith.sitofp %d : i32 to f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<16x8x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<1x16x4x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x4x4xf32>, tensor<16x8x1x1xf32>) outs(%init : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %y : tensor<1x16x4x4xf32>
}

// A max pooling between QDQ pairs of one scale (a constant, positive) and
// one zero point, as a QDQ ResNet's stem writes it (-inf padding, 3x3
// window, stride 2): the pooling of the bytes themselves, vector code over
// the (n, c) planes with arith.maxui, reading the padding as 0; the
// dequantization, the pad and the requantization are gone. Requantized
// with another zero point, or with a scale that is no constant (whose sign
// is unknown), the pooling stays in f32.
memref.global "private" constant @pool_scale : memref<f32> = dense<2.500000e-01>

// CHECK-LABEL: func.func @max_pool
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x8x8xi8>, %[[Z:.*]]: tensor<i8>, %[[Z2:.*]]: tensor<i8>)
// CHECK: %[[POOL:.*]] = scf.forall (%{{.*}}, %{{.*}}) in (2, 4) shared_outs(%{{.*}}) -> (tensor<2x4x4x4xi8>)
// CHECK: vector.transfer_read %[[Q]]{{.*}} : tensor<2x4x8x8xi8>, vector<4xi8>
// CHECK: arith.maxui %{{.*}} : vector<4xi8>
// CHECK: tensor.parallel_insert_slice
// CHECK-NOT: linalg.pooling_nchw_max
// CHECK-NOT: tensor.pad
// CHECK: return %[[POOL]]
// CHECK-LABEL: func.func @max_pool_requantized_differently
// CHECK: linalg.pooling_nchw_max
// CHECK-LABEL: func.func @max_pool_of_a_scale_argument
// CHECK: linalg.pooling_nchw_max

#pool_dq = {indexing_maps = [#id4, #scalar4, #scalar4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}

func.func @max_pool(%q: tensor<2x4x8x8xi8>, %z: tensor<i8>, %z2: tensor<i8>) -> tensor<2x4x4x4xi8> {
  %sg = memref.get_global @pool_scale : memref<f32>
  %s = bufferization.to_tensor %sg restrict : memref<f32> to tensor<f32>
  %e0 = tensor.empty() : tensor<2x4x8x8xf32>
  %d = linalg.generic #pool_dq ins(%q, %s, %z : tensor<2x4x8x8xi8>, tensor<f32>, tensor<i8>) outs(%e0 : tensor<2x4x8x8xf32>) {
  ^bb0(%in: i8, %sc: f32, %zp: i8, %o: f32):
    %a = arith.extui %in : i8 to i32
    %b = arith.extui %zp : i8 to i32
    %c = arith.subi %a, %b : i32
    %f = arith.sitofp %c : i32 to f32
    %v = arith.mulf %f, %sc : f32
    linalg.yield %v : f32
  } -> tensor<2x4x8x8xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %d low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %ninf : f32
  } : tensor<2x4x8x8xf32> to tensor<2x4x10x10xf32>
  %w = tensor.empty() : tensor<3x3xf32>
  %e1 = tensor.empty() : tensor<2x4x4x4xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  %m = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %w : tensor<2x4x10x10xf32>, tensor<3x3xf32>) outs(%init : tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x4x4xi8>
  %y = linalg.generic #pool_dq ins(%m, %s, %z : tensor<2x4x4x4xf32>, tensor<f32>, tensor<i8>) outs(%e2 : tensor<2x4x4x4xi8>) {
  ^bb0(%in: f32, %sc: f32, %zp: i8, %o: i8):
    %a = arith.divf %in, %sc : f32
    %b = math.roundeven %a : f32
    %c = arith.uitofp %zp : i8 to f32
    %e = arith.addf %b, %c : f32
    %zero = arith.constant 0.000000e+00 : f32
    %f = arith.maxnumf %e, %zero : f32
    %max = arith.constant 2.550000e+02 : f32
    %g = arith.minnumf %f, %max : f32
    %h = arith.fptoui %g : f32 to i8
    linalg.yield %h : i8
  } -> tensor<2x4x4x4xi8>
  return %y : tensor<2x4x4x4xi8>
}

func.func @max_pool_requantized_differently(%q: tensor<2x4x8x8xi8>, %z: tensor<i8>, %z2: tensor<i8>) -> tensor<2x4x4x4xi8> {
  %sg = memref.get_global @pool_scale : memref<f32>
  %s = bufferization.to_tensor %sg restrict : memref<f32> to tensor<f32>
  %e0 = tensor.empty() : tensor<2x4x8x8xf32>
  %d = linalg.generic #pool_dq ins(%q, %s, %z : tensor<2x4x8x8xi8>, tensor<f32>, tensor<i8>) outs(%e0 : tensor<2x4x8x8xf32>) {
  ^bb0(%in: i8, %sc: f32, %zp: i8, %o: f32):
    %a = arith.extui %in : i8 to i32
    %b = arith.extui %zp : i8 to i32
    %c = arith.subi %a, %b : i32
    %f = arith.sitofp %c : i32 to f32
    %v = arith.mulf %f, %sc : f32
    linalg.yield %v : f32
  } -> tensor<2x4x8x8xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %d low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %ninf : f32
  } : tensor<2x4x8x8xf32> to tensor<2x4x10x10xf32>
  %w = tensor.empty() : tensor<3x3xf32>
  %e1 = tensor.empty() : tensor<2x4x4x4xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  %m = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %w : tensor<2x4x10x10xf32>, tensor<3x3xf32>) outs(%init : tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x4x4xi8>
  %y = linalg.generic #pool_dq ins(%m, %s, %z2 : tensor<2x4x4x4xf32>, tensor<f32>, tensor<i8>) outs(%e2 : tensor<2x4x4x4xi8>) {
  ^bb0(%in: f32, %sc: f32, %zp: i8, %o: i8):
    %a = arith.divf %in, %sc : f32
    %b = math.roundeven %a : f32
    %c = arith.uitofp %zp : i8 to f32
    %e = arith.addf %b, %c : f32
    %zero = arith.constant 0.000000e+00 : f32
    %f = arith.maxnumf %e, %zero : f32
    %max = arith.constant 2.550000e+02 : f32
    %g = arith.minnumf %f, %max : f32
    %h = arith.fptoui %g : f32 to i8
    linalg.yield %h : i8
  } -> tensor<2x4x4x4xi8>
  return %y : tensor<2x4x4x4xi8>
}

func.func @max_pool_of_a_scale_argument(%q: tensor<2x4x8x8xi8>, %s: tensor<f32>, %z: tensor<i8>) -> tensor<2x4x4x4xi8> {
  %e0 = tensor.empty() : tensor<2x4x8x8xf32>
  %d = linalg.generic #pool_dq ins(%q, %s, %z : tensor<2x4x8x8xi8>, tensor<f32>, tensor<i8>) outs(%e0 : tensor<2x4x8x8xf32>) {
  ^bb0(%in: i8, %sc: f32, %zp: i8, %o: f32):
    %a = arith.extui %in : i8 to i32
    %b = arith.extui %zp : i8 to i32
    %c = arith.subi %a, %b : i32
    %f = arith.sitofp %c : i32 to f32
    %v = arith.mulf %f, %sc : f32
    linalg.yield %v : f32
  } -> tensor<2x4x8x8xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %d low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %ninf : f32
  } : tensor<2x4x8x8xf32> to tensor<2x4x10x10xf32>
  %w = tensor.empty() : tensor<3x3xf32>
  %e1 = tensor.empty() : tensor<2x4x4x4xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  %m = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %w : tensor<2x4x10x10xf32>, tensor<3x3xf32>) outs(%init : tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  %e2 = tensor.empty() : tensor<2x4x4x4xi8>
  %y = linalg.generic #pool_dq ins(%m, %s, %z : tensor<2x4x4x4xf32>, tensor<f32>, tensor<i8>) outs(%e2 : tensor<2x4x4x4xi8>) {
  ^bb0(%in: f32, %sc: f32, %zp: i8, %o: i8):
    %a = arith.divf %in, %sc : f32
    %b = math.roundeven %a : f32
    %c = arith.uitofp %zp : i8 to f32
    %e = arith.addf %b, %c : f32
    %zero = arith.constant 0.000000e+00 : f32
    %f = arith.maxnumf %e, %zero : f32
    %max = arith.constant 2.550000e+02 : f32
    %g = arith.minnumf %f, %max : f32
    %h = arith.fptoui %g : f32 to i8
    linalg.yield %h : i8
  } -> tensor<2x4x4x4xi8>
  return %y : tensor<2x4x4x4xi8>
}
