// RUN: mlprog-opt %s --pass-pipeline='builtin.module(func.func(mlprog-tile-and-vectorize-contractions{target-features=+avx2,+fma}))' | FileCheck %s --check-prefix=AVX2
// RUN: mlprog-opt %s --pass-pipeline='builtin.module(func.func(mlprog-tile-and-vectorize-contractions{target-features=+avx512f parallel=false}))' | FileCheck %s --check-prefix=AVX512
// RUN: mlprog-opt %s --pass-pipeline='builtin.module(func.func(mlprog-tile-and-vectorize-contractions{target-features=+avx512f}))' | FileCheck %s --check-prefix=WEIGHT

// A matmul whose rows are 4 KiB apart (they alias in L1) copies B into 64
// panels of 1024x16 (K x nr) and, on an L1 of 8 ways (a target given by its
// features), A into 16 panels of 1024x4 (K x mr), one per forall iteration,
// as vector code: A 16 columns of 4 rows per step, read transposed, B 8 rows
// of 16 per step. Then an scf.forall of 64x128 output tiles with the fill
// fused, K blocks of 512, 4x16 register blocks, and the 4x16 accumulator
// carried as a vector across K; its K loop reads one panel row of A and of
// B per step.
// AVX2-LABEL: func.func @matmul
// AVX2: %[[AP:.*]] = scf.forall (%{{.*}}) in (16) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<16x1024x4xf32>)
// AVX2: scf.for {{.*}} step %c16
// AVX2: vector.transfer_read %arg0{{.*}} permutation_map = {{.*}} : tensor<64x1024xf32>, vector<16x4xf32>
// AVX2: vector.transfer_write {{.*}} : vector<16x4xf32>, tensor<1x16x4xf32>
// AVX2: %[[BP:.*]] = scf.forall (%{{.*}}) in (64) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<64x1024x16xf32>)
// AVX2: scf.for {{.*}} step %c8
// AVX2: vector.transfer_read %arg1{{.*}} : tensor<1024x1024xf32>, vector<8x16xf32>
// AVX2: vector.transfer_write {{.*}} : vector<8x16xf32>, tensor<1x8x16xf32>
// AVX2: scf.forall ({{.*}}) = (0, 0) to (64, 1024) step (64, 128)
// AVX2: linalg.fill
// AVX2: scf.for {{.*}} step %c512
// AVX2: scf.for {{.*}} step %c4
// AVX2: scf.for {{.*}} step %c16
// AVX2: %[[ACC:.*]] = vector.transfer_read {{.*}} vector<4x16xf32>
// AVX2: scf.for {{.*}} iter_args({{.*}}, %[[V:.*]] = %[[ACC]]) -> (tensor<64x128xf32>, vector<4x16xf32>)
// AVX2: tensor.extract_slice %[[AP]][{{.*}}] [1, 1, 4] [1, 1, 1] : tensor<16x1024x4xf32> to tensor<4xf32>
// AVX2: vector.transfer_read %[[BP]][{{.*}}]{{.*}} : tensor<64x1024x16xf32>, vector<16xf32>
// AVX2: vector.contract {{.*}} vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
// AVX2-NOT: linalg.matmul

// With AVX-512, 8x32 register blocks; no forall without `parallel`: the
// panels are copied by loops over panels and K steps.
// AVX512-LABEL: func.func @matmul
// AVX512-NOT: scf.forall
// AVX512: scf.for {{.*}} -> (tensor<32x1024x32xf32>)
// AVX512: vector.transfer_read %arg1{{.*}} : tensor<1024x1024xf32>, vector<8x32xf32>
// AVX512: vector.contract {{.*}} vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
func.func @matmul(%a: tensor<64x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<64x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x1024xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x1024xf32>, tensor<1024x1024xf32>) outs(%init : tensor<64x1024xf32>) -> tensor<64x1024xf32>
  return %r : tensor<64x1024xf32>
}

// Rows 1 KiB apart: no panels; the register blocks read B itself.
// AVX2-LABEL: func.func @matmul_unpacked
// AVX2-NOT: linalg.generic
// AVX2: scf.forall ({{.*}}) = (0, 0) to (64, 256)
// AVX2: vector.transfer_read %arg1{{.*}} vector<16xf32>
func.func @matmul_unpacked(%a: tensor<64x256xf32>, %b: tensor<256x256xf32>) -> tensor<64x256xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<64x256xf32>, tensor<256x256xf32>) outs(%init : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// A convolution becomes a column tensor [C*Fh*Fw, N*Oh*Ow] and a matmul of
// the [F, C*Fh*Fw] filter with it. The column tensor is vector code: a
// forall over (c, kh) writes the Fw rows of each, a vector of Ow = 7 input
// columns per (kw, oh). 7x7 = 49 output pixels would leave a 1-column
// remainder to scalar loops after the 8-wide register blocks, so the column
// tensor gets 7 zero columns (56 = 48 + 8, all vector register blocks), the
// accumulator is padded alike and the result is its first 49 columns.
// AVX2-LABEL: func.func @conv
// AVX2-NOT: linalg.generic
// AVX2: %[[COL:.*]] = scf.forall ({{.*}}) in (8, 3) shared_outs({{.*}}) -> (tensor<72x56xf32>)
// AVX2: tensor.extract_slice {{.*}} [3, 56] [1, 1] : tensor<72x56xf32> to tensor<3x56xf32>
// AVX2: scf.for
// AVX2: vector.transfer_read %arg0{{.*}} : tensor<1x8x9x9xf32>, vector<7xf32>
// AVX2: vector.transfer_write {{.*}} : vector<7xf32>, tensor<3x56xf32>
// AVX2-COUNT-2: vector.transfer_write {{.*}} : vector<7xf32>, tensor<3x56xf32>
// AVX2: vector.transfer_write %{{.*}}, %{{.*}}[%c0{{.*}}, %c49{{.*}}] {in_bounds = [true]} : vector<7xf32>, tensor<3x56xf32>
// AVX2: tensor.parallel_insert_slice
// AVX2: tensor.pad %{{.*}} low[0, 0] high[0, 7]
// AVX2: scf.forall ({{.*}}) = (0, 0) to (16, 48)
// AVX2: vector.transfer_read %[[COL]]
// AVX2: vector.contract {{.*}} vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
// AVX2: scf.forall ({{.*}}) = (0, 0) to (16, 8)
// AVX2: vector.contract {{.*}} vector<4x1xf32>, vector<1x8xf32> into vector<4x8xf32>
// AVX2: tensor.extract_slice %{{.*}}[0, 0] [16, 49] [1, 1] : tensor<16x56xf32> to tensor<16x49xf32>
// AVX2-NOT: linalg.matmul
// AVX2-NOT: linalg.conv_2d_nchw_fchw
func.func @conv(%x: tensor<1x8x9x9xf32>, %w: tensor<16x8x3x3xf32>, %init: tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x9x9xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  return %r : tensor<1x16x7x7xf32>
}

// A batch-2 strided convolution: the batch joins the matmul's N dimension
// (2 x 4 x 4 = 32 columns), which accumulates into zeros; a transposing add
// brings [F, N, Oh, Ow] back to the NCHW init.
// Column j = (b * 4 + oh) * 4 + ow; stride 2 reads 2 x 4 columns and keeps
// the even ones.
// AVX2-LABEL: func.func @conv_batch
// AVX2: scf.forall ({{.*}}) in (8, 3) shared_outs({{.*}}) -> (tensor<72x32xf32>)
// AVX2: scf.for %[[B:[a-z0-9]+]] = %c0 to %c2
// AVX2: scf.for %[[OH:[a-z0-9]+]] =
// AVX2: affine.apply #{{.*}}(%[[B]], %[[OH]], %c0)
// AVX2: vector.shuffle {{.*}} [0, 2, 4, 6] : vector<4xf32>, vector<4xf32>
// AVX2: vector.transfer_write {{.*}} : vector<4xf32>, tensor<3x32xf32>
// AVX2: scf.forall ({{.*}}) = (0, 0) to (16, 32)
// AVX2: vector.contract {{.*}} vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
// AVX2: tensor.expand_shape {{.*}} into tensor<16x2x4x4xf32>
// AVX2: linalg.generic {{.*}} ins(%{{.*}} : tensor<16x2x4x4xf32>) outs(%{{.*}} : tensor<2x16x4x4xf32>)
// AVX2: arith.addf
// AVX2-NOT: linalg.conv_2d_nchw_fchw
func.func @conv_batch(%x: tensor<2x8x9x9xf32>, %w: tensor<16x8x3x3xf32>, %init: tensor<2x16x4x4xf32>) -> tensor<2x16x4x4xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<2x8x9x9xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<2x16x4x4xf32>) -> tensor<2x16x4x4xf32>
  return %r : tensor<2x16x4x4xf32>
}

// A 1x1 stride-1 convolution of batch 1 reads the input as the matrix.
// AVX2-LABEL: func.func @conv_pointwise
// AVX2-NOT: linalg.generic
// AVX2: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2, 3]] : tensor<1x8x4x8xf32> into tensor<8x32xf32>
// AVX2: vector.contract
func.func @conv_pointwise(%x: tensor<1x8x4x8xf32>, %w: tensor<16x8x1x1xf32>, %init: tensor<1x16x4x8xf32>) -> tensor<1x16x4x8xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x4x8xf32>, tensor<16x8x1x1xf32>) outs(%init : tensor<1x16x4x8xf32>) -> tensor<1x16x4x8xf32>
  return %r : tensor<1x16x4x8xf32>
}

// Not f32, or no contiguous N: left to the loop lowering.
// AVX2-LABEL: func.func @left_alone
// AVX2: linalg.matmul
// AVX2-NOT: vector.contract
func.func @left_alone(%a: tensor<8x8xi32>, %b: tensor<8x8xi32>, %c: tensor<8x8xi32>) -> tensor<8x8xi32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x8xi32>, tensor<8x8xi32>) outs(%c : tensor<8x8xi32>) -> tensor<8x8xi32>
  return %r : tensor<8x8xi32>
}

// A depthwise convolution becomes an scf.forall over (n, c) with the 3x3
// taps broadcast once, and a loop over output rows whose 4 columns (stride
// 2) are one vector accumulated over the taps: every tap reads two input
// vectors of the row and keeps the even elements.
// AVX2-LABEL: func.func @depthwise
// AVX2: scf.forall ({{.*}}) in (1, 8) shared_outs
// AVX2-COUNT-9: vector.broadcast {{.*}} : f32 to vector<4xf32>
// AVX2: scf.for
// AVX2: vector.transfer_read {{.*}} : tensor<1x1x4x4xf32>, vector<4xf32>
// AVX2: vector.shuffle {{.*}} [0, 2, 4, 6] : vector<4xf32>, vector<4xf32>
// AVX2: vector.fma
// AVX2-COUNT-8: vector.fma
// AVX2: vector.transfer_write {{.*}} : vector<4xf32>, tensor<1x1x4x4xf32>
// AVX2: tensor.parallel_insert_slice
// AVX2-NOT: linalg.depthwise_conv_2d_nchw_chw
func.func @depthwise(%x: tensor<1x8x10x10xf32>, %w: tensor<8x3x3xf32>, %init: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x8x10x10xf32>, tensor<8x3x3xf32>) outs(%init : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %r : tensor<1x8x4x4xf32>
}

// A zero-padded input is read through: no tensor.pad is left, the column
// loops read the pad's source, rows of the column tensor whose input row is
// in the padding are zeros written by loops of their own (oh in [0, lo) and
// [hi, 5)), and the first vector of kw = 0 (input columns -1, 1, 3, 5, 7)
// reads columns 0..9 and selects its first lane to 0. (The only pad left is
// the accumulator's, to 32 columns: 25 = 3 x 8 + 1.)
// AVX2-LABEL: func.func @conv_padded
// AVX2-NOT: tensor.pad
// AVX2: scf.forall ({{.*}}) in (8, 3) shared_outs({{.*}}) -> (tensor<72x32xf32>)
// AVX2: %[[LO:.*]] = affine.min
// AVX2: %[[HI:.*]] = affine.max
// AVX2: scf.for %{{.*}} = %c0 to %[[LO]]
// AVX2-NOT: vector.transfer_read
// AVX2: scf.for %{{.*}} = %[[LO]] to %[[HI]]
// AVX2: %[[A:.*]] = vector.transfer_read %arg0[%c0, %{{.*}}, %{{.*}}, %c0], %{{.*}} {in_bounds = [true]} : tensor<1x8x9x9xf32>, vector<5xf32>
// AVX2: %[[B:.*]] = vector.transfer_read %arg0[%c0, %{{.*}}, %{{.*}}, %c5], %{{.*}} : tensor<1x8x9x9xf32>, vector<5xf32>
// AVX2: %[[S:.*]] = vector.shuffle %[[A]], %[[B]] [0, 1, 3, 5, 7]
// AVX2: arith.select %{{.*}}, %[[S]], %{{.*}} : vector<5xi1>, vector<5xf32>
// AVX2: scf.for %{{.*}} = %[[HI]] to %c5
// AVX2-NOT: vector.transfer_read
// AVX2: tensor.parallel_insert_slice
// AVX2-NOT: tensor.pad
// AVX2: tensor.pad %{{.*}} low[0, 0] high[0, 7] {
// AVX2-NOT: tensor.pad
func.func @conv_padded(%x: tensor<1x8x9x9xf32>, %w: tensor<16x8x3x3xf32>, %init: tensor<1x16x5x5xf32>) -> tensor<1x16x5x5xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x8x9x9xf32> to tensor<1x8x11x11xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %w : tensor<1x8x11x11xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<1x16x5x5xf32>) -> tensor<1x16x5x5xf32>
  return %r : tensor<1x16x5x5xf32>
}

// A pad by another value than 0 stays; the columns read the padded tensor.
// AVX2-LABEL: func.func @conv_padded_one
// AVX2: %[[P:.*]] = tensor.pad
// AVX2: scf.forall
// AVX2: vector.transfer_read %[[P]]
func.func @conv_padded_one(%x: tensor<1x8x9x9xf32>, %w: tensor<16x8x3x3xf32>, %init: tensor<1x16x9x9xf32>) -> tensor<1x16x9x9xf32> {
  %one = arith.constant 1.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %one : f32
  } : tensor<1x8x9x9xf32> to tensor<1x8x11x11xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x8x11x11xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<1x16x9x9xf32>) -> tensor<1x16x9x9xf32>
  return %r : tensor<1x16x9x9xf32>
}

// With a bias broadcast as its init, each row's accumulator starts from the
// channel's bias in registers and the planes from an empty tensor: the
// init is no pass over the output of its own, and no row reads the output.
// AVX2-LABEL: func.func @depthwise_bias
// AVX2: %[[EMPTY:.*]] = tensor.empty() : tensor<1x8x4x4xf32>
// AVX2: scf.forall (%{{.*}}, %[[C:.*]]) in (1, 8) shared_outs(%{{.*}} = %[[EMPTY]])
// AVX2: %[[B:.*]] = tensor.extract %arg2[%[[C]]] : tensor<8xf32>
// AVX2: %[[START:.*]] = vector.broadcast %[[B]] : f32 to vector<4xf32>
// AVX2: scf.for
// AVX2-NOT: vector.transfer_read {{.*}} : tensor<1x1x4x4xf32>
// AVX2: vector.fma {{.*}}, %[[START]] : vector<4xf32>
// AVX2: vector.transfer_write {{.*}} : vector<4xf32>, tensor<1x1x4x4xf32>
// AVX2-NOT: linalg.generic
// AVX2: return
#bias_dw = affine_map<(d0, d1, d2, d3) -> (d1)>
#id_dw = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @depthwise_bias(%x: tensor<1x8x10x10xf32>, %w: tensor<8x3x3xf32>, %bias: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  %e = tensor.empty() : tensor<1x8x4x4xf32>
  %init = linalg.generic {indexing_maps = [#bias_dw, #id_dw], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : tensor<8xf32>) outs(%e : tensor<1x8x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x4x4xf32>
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x8x10x10xf32>, tensor<8x3x3xf32>) outs(%init : tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %r : tensor<1x8x4x4xf32>
}

// A padded depthwise convolution reads the pad's source too: the first and
// last two output rows (their window reaches into the padding) check their
// input rows and select 0 outside, the rows between do not.
// AVX2-LABEL: func.func @depthwise_padded
// AVX2-NOT: tensor.pad
// AVX2: scf.forall ({{.*}}) in (1, 8) shared_outs
// AVX2: scf.for %{{.*}} = %c0{{.*}} to %c2
// AVX2: arith.cmpi slt
// AVX2: vector.transfer_read %arg0
// AVX2: arith.select %{{.*}} : vector<8xf32>
// AVX2: scf.for %{{.*}} = %c2{{.*}} to %c10
// AVX2-NOT: arith.cmpi
// AVX2: vector.transfer_read %arg0
// AVX2: scf.for %{{.*}} = %c10{{.*}} to %c12
// AVX2: arith.cmpi
// AVX2: tensor.parallel_insert_slice
func.func @depthwise_padded(%x: tensor<1x8x10x10xf32>, %w: tensor<8x3x3xf32>, %init: tensor<1x8x12x10xf32>) -> tensor<1x8x12x10xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 2, 1] high[0, 0, 2, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x8x10x10xf32> to tensor<1x8x14x12xf32>
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x8x14x12xf32>, tensor<8x3x3xf32>) outs(%init : tensor<1x8x12x10xf32>) -> tensor<1x8x12x10xf32>
  return %r : tensor<1x8x12x10xf32>
}

// A column tensor over 1.5 MiB (144 x 3072 floats) is built and multiplied
// in blocks of 16 output rows (1024 columns) that stay in L2: a forall over
// (image, block), each building its columns in plain loops over (c, kh) and
// running its register blocks without a forall of their own, accumulating
// into its part of the output.
// AVX2-LABEL: func.func @conv_blocked
// AVX2-NOT: tensor.pad
// AVX2: scf.forall (%{{.*}}, %{{.*}}) in (1, 3) shared_outs(%{{.*}}) -> (tensor<1x8x3072xf32>)
// AVX2: tensor.empty() : tensor<144x1024xf32>
// AVX2: scf.for {{.*}} to %c16
// AVX2: scf.for {{.*}} to %c3
// AVX2: vector.transfer_read %arg0{{.*}} : tensor<1x16x48x64xf32>, vector<8xf32>
// AVX2: tensor.insert_slice {{.*}} : tensor<3x1024xf32> into tensor<144x1024xf32>
// AVX2-NOT: scf.forall
// AVX2: vector.contract {{.*}} vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
// AVX2: tensor.parallel_insert_slice {{.*}} [1, 8, 1024] [1, 1, 1] : tensor<8x1024xf32> into tensor<1x8x3072xf32>
// AVX2: tensor.expand_shape {{.*}} into tensor<1x8x48x64xf32>
func.func @conv_blocked(%x: tensor<1x16x48x64xf32>, %w: tensor<8x16x3x3xf32>, %init: tensor<1x8x48x64xf32>) -> tensor<1x8x48x64xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x16x48x64xf32> to tensor<1x16x50x66xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x16x50x66xf32>, tensor<8x16x3x3xf32>) outs(%init : tensor<1x8x48x64xf32>) -> tensor<1x8x48x64xf32>
  return %r : tensor<1x8x48x64xf32>
}

// A 3x3 stride-2 max pooling becomes the depthwise convolution's vector
// code: a forall over (n, c) planes, a loop over output rows, and per row
// the maximum of the 9 window vectors (stride 2: two reads and a shuffle).
// AVX2-LABEL: func.func @maxpool
// AVX2: scf.forall (%{{.*}}, %{{.*}}) in (1, 4)
// AVX2: scf.for
// AVX2: vector.shuffle
// AVX2-COUNT-9: arith.maximumf {{.*}} : vector<8xf32>
// AVX2: vector.transfer_write {{.*}} : vector<8xf32>, tensor<1x1x8x8xf32>
// AVX2-NOT: linalg.pooling_nchw_max
func.func @maxpool(%x: tensor<1x4x17x17xf32>, %init: tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %window = tensor.empty() : tensor<3x3xf32>
  %r = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %window : tensor<1x4x17x17xf32>, tensor<3x3xf32>) outs(%init : tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// 197 rows (a ViT's tokens) have no divisor up to 8 but 1: the rows split
// into 192 with 8-row register blocks and 5 rows with 5-row
// (with AVX2, 196 and 1) blocks, instead of one-row blocks for all of them.
// AVX512-LABEL: func.func @rows_197
// AVX512: tensor.extract_slice %{{.*}}[0, 0] [192, 64] [1, 1]
// AVX512: vector.contract {{.*}} vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// AVX512: tensor.extract_slice %{{.*}}[192, 0] [5, 64] [1, 1]
// AVX512: vector.contract {{.*}} vector<5x1xf32>, vector<1x32xf32> into vector<5x32xf32>
// AVX2-LABEL: func.func @rows_197
// AVX2: vector.contract {{.*}} vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
// AVX2: vector.contract {{.*}} vector<1xf32>, vector<1x16xf32> into vector<16xf32>
func.func @rows_197(%a: tensor<197x64xf32>, %b: tensor<64x64xf32>) -> tensor<197x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<197x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<197x64xf32>) -> tensor<197x64xf32>
  %r = linalg.matmul ins(%a, %b : tensor<197x64xf32>, tensor<64x64xf32>) outs(%init : tensor<197x64xf32>) -> tensor<197x64xf32>
  return %r : tensor<197x64xf32>
}

// With a weight as B (a linear layer of a ViT: 197 tokens), a 5-row tail
// would be a second contraction that streams all of the weight again.
// Instead A gets 3 zero rows and the result is sliced; one forall tile
// holds all 200 rows, so the weight's panels are read once, and the 256
// columns are split into 4 tiles of 64 for the threads. K is one block:
// the fill is fused into the register blocks, each of which starts from a
// zero vector (no fill of the forall tile in memory).
// WEIGHT-LABEL: func.func @rows_197_weight(
// WEIGHT: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<8x32xf32>
// WEIGHT: %[[A:.*]] = tensor.pad %{{.*}} low[0, 0] high[3, 0]
// WEIGHT: tensor<197x64xf32> to tensor<200x64xf32>
// WEIGHT-NOT: linalg.fill
// WEIGHT: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (200, 256) step (200, 64)
// WEIGHT-NOT: linalg.fill
// WEIGHT: vector.transfer_write %[[ZERO]], %{{.*}} : vector<8x32xf32>, tensor<8x32xf32>
// WEIGHT: vector.transfer_read %[[A]]{{.*}} : tensor<200x64xf32>, vector<8x1xf32>
// WEIGHT-NOT: vector<5x
// WEIGHT: tensor.extract_slice %{{.*}}[0, 0] [197, 256] [1, 1]
memref.global "private" constant @w : memref<64x256xf32> = dense<1.0>
func.func @rows_197_weight(%a: tensor<197x64xf32>) -> tensor<197x256xf32> {
  %zero = arith.constant 0.0 : f32
  %g = memref.get_global @w : memref<64x256xf32>
  %b = bufferization.to_tensor %g restrict : memref<64x256xf32> to tensor<64x256xf32>
  %e = tensor.empty() : tensor<197x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<197x256xf32>) -> tensor<197x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<197x64xf32>, tensor<64x256xf32>) outs(%init : tensor<197x256xf32>) -> tensor<197x256xf32>
  return %r : tensor<197x256xf32>
}

// A is a weight too: no copy of it, the rows split 192 + 5, and each part
// reads the weight B itself (not a slice of all of it), so both pack it
// into panels (FoldConstantPanels then makes one global of them).
// WEIGHT-LABEL: func.func @rows_197_weights(
// WEIGHT: %[[W:.*]] = bufferization.to_tensor %{{.*}} : memref<64x256xf32>
// WEIGHT-NOT: tensor.pad
// WEIGHT: tensor.expand_shape %[[W]] {{.*}} into tensor<64x8x32xf32>
// WEIGHT: = (0, 0) to (192, 256) step (192, 64)
// WEIGHT: tensor.expand_shape %[[W]] {{.*}} into tensor<64x8x32xf32>
// WEIGHT: = (0, 0) to (5, 256) step (5, 64)
memref.global "private" constant @tokens : memref<197x64xf32> = dense<2.0>
func.func @rows_197_weights() -> tensor<197x256xf32> {
  %zero = arith.constant 0.0 : f32
  %g = memref.get_global @w : memref<64x256xf32>
  %b = bufferization.to_tensor %g restrict : memref<64x256xf32> to tensor<64x256xf32>
  %ga = memref.get_global @tokens : memref<197x64xf32>
  %a = bufferization.to_tensor %ga restrict : memref<197x64xf32> to tensor<197x64xf32>
  %e = tensor.empty() : tensor<197x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<197x256xf32>) -> tensor<197x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<197x64xf32>, tensor<64x256xf32>) outs(%init : tensor<197x256xf32>) -> tensor<197x256xf32>
  return %r : tensor<197x256xf32>
}

// A linear layer at batch 8 on [seq, batch, d] activations (ONNX MatMul of
// a rank-3 and a rank-2 tensor): the batch and sequence are both rows of
// one 512x256x768 matmul, whose register blocks are outer products, not a
// batched generic vectorized to an elementwise 8x32x1 contraction.
// AVX512-LABEL: func.func @batched_linear
// AVX512: %[[A:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<64x8x256xf32> into tensor<512x256xf32>
// AVX512: vector.transfer_read %[[A]]{{.*}} : tensor<512x256xf32>, vector<8x1xf32>
// AVX512: vector.contract {{.*}} vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// AVX512: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [64, 8, 768] : tensor<512x768xf32> into tensor<64x8x768xf32>
#rows_a = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#rows_b = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
#rows_c = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @batched_linear(%x: tensor<64x8x256xf32>, %w: tensor<256x768xf32>) -> tensor<64x8x768xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x8x768xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64x8x768xf32>) -> tensor<64x8x768xf32>
  %r = linalg.generic {indexing_maps = [#rows_a, #rows_b, #rows_c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<64x8x256xf32>, tensor<256x768xf32>) outs(%init : tensor<64x8x768xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %p = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x8x768xf32>
  return %r : tensor<64x8x768xf32>
}

// 600 rows with a weight B: padded to 640, a multiple of 8 register blocks,
// so that cache blocks of rows can be large (a ViT at batch 8 has
// 1576 = 8 x 197 rows, whose only such divisors are 8 and 1576); with K = 64
// all 640 rows fit one block.
// WEIGHT-LABEL: func.func @many_rows_weight(
// WEIGHT: tensor.pad %{{.*}} low[0, 0] high[40, 0]
// WEIGHT: tensor<600x64xf32> to tensor<640x64xf32>
// WEIGHT: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (640, 256) step (640, 64)
// WEIGHT: tensor.extract_slice %{{.*}}[0, 0] [600, 256] [1, 1]
func.func @many_rows_weight(%a: tensor<600x64xf32>) -> tensor<600x256xf32> {
  %zero = arith.constant 0.0 : f32
  %g = memref.get_global @w : memref<64x256xf32>
  %b = bufferization.to_tensor %g restrict : memref<64x256xf32> to tensor<64x256xf32>
  %e = tensor.empty() : tensor<600x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<600x256xf32>) -> tensor<600x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<600x64xf32>, tensor<64x256xf32>) outs(%init : tensor<600x256xf32>) -> tensor<600x256xf32>
  return %r : tensor<600x256xf32>
}

// An ONNX MatMul of [?, 3, 2, 48, 40] and [?, 3, 2, 40, 32] after
// --mlprog-tile-dynamic-contractions tiled its dynamic batch by 1: without
// the unit loop, the two batch loops 3 x 2 are one batch of 6 of a
// batch_matmul, vectorized to 8x32 outer products. Before, MLIR's
// specialization made a linalg.batch_matmul with two batch dimensions,
// which failed to verify ("expected operand #0 rank (4) to match the result
// rank of indexing_map (3)") or crashed the tiling.
// AVX512-LABEL: func.func @unit_and_two_batch_dims
// AVX512: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2], [3]] : tensor<3x2x48x40xf32> into tensor<6x48x40xf32>
// AVX512: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2], [3]] : tensor<3x2x40x32xf32> into tensor<6x40x32xf32>
// AVX512: scf.for %{{.*}} = %c0 to %c6 step %c1
// AVX512: vector.contract {{.*}} vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// AVX512: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2], [3]] output_shape [3, 2, 48, 32] : tensor<6x48x32xf32> into tensor<3x2x48x32xf32>
// AVX512-NOT: linalg.generic
// AVX512: return
#ub_a = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d5)>
#ub_b = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5, d4)>
#ub_c = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4)>
func.func @unit_and_two_batch_dims(%a: tensor<1x3x2x48x40xf32>, %b: tensor<1x3x2x40x32xf32>, %init: tensor<1x3x2x48x32xf32>) -> tensor<1x3x2x48x32xf32> {
  %r = linalg.generic {indexing_maps = [#ub_a, #ub_b, #ub_c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%a, %b : tensor<1x3x2x48x40xf32>, tensor<1x3x2x40x32xf32>) outs(%init : tensor<1x3x2x48x32xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %p = arith.mulf %in, %in_0 : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x3x2x48x32xf32>
  return %r : tensor<1x3x2x48x32xf32>
}

// A batch-1 convolution whose 7x7 = 49 output pixels are no multiple of the
// vector width, with a weight filter, is the product transposed: the pixels
// are the rows (register blocks of 7 pixels x 32 features, no zero columns
// up to 64), the filter transposed to [C*Fh*Fw, F] (panels that
// --mlprog-fold-constant-panels computes at compile time), the bias
// broadcast along the pixels fused into the register blocks, the column
// tensor read 7 pixels at a time, and the [49, 32] result transposed back
// by 16 x 16 register transposes (vector.shuffle), the last block masked.
// WEIGHT-LABEL: func.func @conv_7x7_weight(
// WEIGHT: %[[COL:.*]] = scf.forall {{.*}} -> (tensor<144x49xf32>)
// WEIGHT: linalg.transpose ins(%{{.*}} : tensor<32x16x3x3xf32>) outs(%{{.*}} : tensor<16x3x3x32xf32>) permutation = [1, 2, 3, 0]
// WEIGHT: tensor.collapse_shape {{.*}} into tensor<144x32xf32>
// WEIGHT: %[[PANELS:.*]] = linalg.transpose ins(%{{.*}} : tensor<144x1x32xf32>)
// WEIGHT: %[[OUTT:.*]] = scf.forall ({{.*}}) = (0, 0) to (49, 32) step (49, 32) {{.*}} -> (tensor<49x32xf32>)
// WEIGHT: vector.transfer_read %{{.*}} : tensor<32xf32>, vector<7x32xf32>
// WEIGHT: vector.transfer_read %[[COL]][{{.*}}]{{.*}} : tensor<144x49xf32>, vector<7xf32>
// WEIGHT: vector.transfer_read %[[PANELS]]{{.*}} : tensor<1x144x32xf32>, vector<32xf32>
// WEIGHT: vector.contract {{.*}} : vector<1x7xf32>, vector<1x32xf32> into vector<7x32xf32>
// WEIGHT: scf.forall (%{{.*}}) in (2) {{.*}} -> (tensor<32x49xf32>)
// WEIGHT-COUNT-16: vector.transfer_read %[[OUTT]]
// WEIGHT: vector.shuffle
// WEIGHT: vector.transfer_write %{{.*}}, %{{.*}}[%c0, %{{.*}}] : vector<16xf32>, tensor<16x49xf32>
// WEIGHT: tensor.expand_shape {{.*}} into tensor<1x32x7x7xf32>
// WEIGHT-NOT: tensor<{{.*}}x64xf32>
memref.global "private" constant @filter : memref<32x16x3x3xf32> = dense<1.0>
func.func @conv_7x7_weight(%x: tensor<1x16x9x9xf32>, %bias: tensor<32xf32>) -> tensor<1x32x7x7xf32> {
  %g = memref.get_global @filter : memref<32x16x3x3xf32>
  %w = bufferization.to_tensor %g restrict : memref<32x16x3x3xf32> to tensor<32x16x3x3xf32>
  %e = tensor.empty() : tensor<1x32x7x7xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<32xf32>) outs(%e : tensor<1x32x7x7xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x32x7x7xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x16x9x9xf32>, tensor<32x16x3x3xf32>) outs(%init : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  return %r : tensor<1x32x7x7xf32>
}

// A 7x7 depthwise window (convnext's) has more taps than registers: they
// are broadcast in each output row, not once per channel, and the row is
// still vector code (it was scalar loops before).
// AVX2-LABEL: func.func @depthwise_7x7
// AVX2: scf.forall ({{.*}}) in (1, 8) shared_outs
// AVX2: scf.for
// AVX2-COUNT-49: vector.broadcast {{.*}} : f32 to vector<8xf32>
// AVX2-COUNT-49: vector.fma
// AVX2: vector.transfer_write {{.*}} : vector<8xf32>, tensor<1x1x8x8xf32>
// AVX2-NOT: linalg.depthwise_conv_2d_nchw_chw
func.func @depthwise_7x7(%x: tensor<1x8x14x14xf32>, %w: tensor<8x7x7xf32>, %init: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %r = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x14x14xf32>, tensor<8x7x7xf32>) outs(%init : tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}
