// RUN: mlprog-opt %s --pass-pipeline='builtin.module(func.func(mlprog-tile-dynamic-contractions{target-features=+avx512f},canonicalize,cse))' | FileCheck %s
// RUN: mlprog-opt %s --pass-pipeline='builtin.module(func.func(mlprog-tile-dynamic-contractions{target-features=+avx2,+fma},canonicalize,cse))' | FileCheck %s --check-prefix=AVX2

#a = affine_map<(b, m, n, k) -> (b, m, k)>
#b = affine_map<(b, m, n, k) -> (k, n)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>

// A linear layer over a sequence of unknown length: the rows up to the last
// multiple of 64 are tiled in blocks of 64 (a prompt reads the weight once
// per 64 rows; whole blocks are slices, not padded copies), the rest up to
// the last multiple of one register block (8 rows with AVX-512, 4 with AVX2)
// in whole register blocks, and the last rows, fewer than a block, one at a
// time when there are at most two (a decoding step's single row), else as
// one block padded with zero rows. Every tile is a static contraction that
// reads the weight itself (not a slice of it); the tile's rows of the
// result are inserted.
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[A:.*]]: tensor<1x?x64xf32>, %[[W:.*]]: tensor<64x96xf32>)
// CHECK: %[[M:.*]] = tensor.dim %[[A]], %c1
// CHECK: %[[BULK:.*]] = affine.min {{.*}}()[%[[M]], %[[M]]]
// CHECK: scf.for %{{.*}} = %c0 to %[[BULK]] step %c64
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[W]] : tensor<1x64x64xf32>, tensor<64x96xf32>) outs(%{{.*}} : tensor<1x64x96xf32>)
// CHECK: %[[BLOCKS:.*]] = affine.min
// CHECK: scf.for %{{.*}} = %c0 to %[[BLOCKS]] step %c8
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[W]] : tensor<1x8x64xf32>, tensor<64x96xf32>) outs(%{{.*}} : tensor<1x8x96xf32>)
// CHECK: %[[TAIL:.*]] = affine.apply
// The last rows, at most two at run time (a decoding step's one), are exact
// one-row contractions, not padded.
// CHECK: %[[FEW:.*]] = arith.cmpi ule, %[[TAIL]], %c2
// CHECK: scf.if %[[FEW]]
// CHECK: scf.for %{{.*}} = %c0 to %[[TAIL]] step %c1
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[W]] : tensor<1x1x64xf32>, tensor<64x96xf32>) outs(%{{.*}} : tensor<1x1x96xf32>)
// CHECK: } else {
// CHECK: scf.for %[[I:.*]] = %c0 to %[[TAIL]] step %c8 iter_args(%[[C:.*]] = %{{.*}}) -> (tensor<1x?x96xf32>)
// CHECK: %[[ROWS:.*]] = affine.min
// CHECK: %[[AT:.*]] = tensor.extract_slice %{{.*}}[0, %[[I]], 0] [1, %[[ROWS]], 64]
// CHECK: %[[CT:.*]] = tensor.extract_slice %[[C]][0, %[[I]], 0] [1, %[[ROWS]], 96]
// CHECK: %[[AP:.*]] = tensor.pad %[[AT]] low[0, 0, 0] high[0, %{{.*}}, 0]
// CHECK: %[[CP:.*]] = tensor.pad %[[CT]] low[0, 0, 0] high[0, %{{.*}}, 0]
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[AP]], %[[W]] : tensor<1x8x64xf32>, tensor<64x96xf32>) outs(%[[CP]] : tensor<1x8x96xf32>)
// CHECK: %[[R:.*]] = tensor.extract_slice %[[P]][0, 0, 0] [1, %[[ROWS]], 96] [1, 1, 1] : tensor<1x8x96xf32> to tensor<1x?x96xf32>
// CHECK: tensor.insert_slice %[[R]] into %[[C]][0, %[[I]], 0] [1, %[[ROWS]], 96]
// AVX2-LABEL: func.func @linear
// AVX2: step %c64
// AVX2: step %c4
// AVX2: tensor<1x4x64xf32>, tensor<64x96xf32>
func.func @linear(%a: tensor<1x?x64xf32>, %w: tensor<64x96xf32>) -> tensor<1x?x96xf32> {
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c1 : tensor<1x?x64xf32>
  %e = tensor.empty(%m) : tensor<1x?x96xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x?x96xf32>) -> tensor<1x?x96xf32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %w : tensor<1x?x64xf32>, tensor<64x96xf32>) outs(%f : tensor<1x?x96xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x?x96xf32>
  return %r : tensor<1x?x96xf32>
}

// A reshape of unknown result shape: the batch (an M dimension too) is
// tiled by 1, the rows by 64 and 8 and the unknown depth by 256, so that the tile
// is static: 1 x 64 (then 8) rows x 256 of K.
// CHECK-LABEL: func.func @all_dynamic
// CHECK: scf.for {{.*}} step %c1
// CHECK: scf.for {{.*}} step %c64
// CHECK: scf.for {{.*}} step %c256
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x64x256xf32>, tensor<256x96xf32>) outs(%{{.*}} : tensor<1x64x96xf32>)
// CHECK: scf.for {{.*}} step %c1
// CHECK: scf.for {{.*}} step %c8
// CHECK: scf.for {{.*}} step %c256
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x8x256xf32>, tensor<256x96xf32>) outs(%{{.*}} : tensor<1x8x96xf32>)
func.func @all_dynamic(%a: tensor<?x?x?xf32>, %w: tensor<768x96xf32>, %init: tensor<?x?x96xf32>) -> tensor<?x?x96xf32> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a, %w : tensor<?x?x?xf32>, tensor<768x96xf32>) outs(%init : tensor<?x?x96xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x?x96xf32>
  return %r : tensor<?x?x96xf32>
}

// Attention over an unknown number of keys n: the scores Q K^T have a
// dynamic M and N, their product with V a dynamic M and K. Each is split
// into whole blocks (64 rows, then 8; 64 columns; 256 of K, then 32), which
// are slices of the operands (no padding, no copy), and padded rests (a
// decoding step copies at most 31 rows of each head's values).
// CHECK-LABEL: func.func @attention
// CHECK: scf.for {{.*}} step %c64
// CHECK-NEXT: scf.for {{.*}} step %c64
// CHECK-NOT: tensor.pad
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<12x64x64xf32>, tensor<12x64x64xf32>) outs(%{{.*}} : tensor<12x64x64xf32>)
// CHECK: tensor.pad
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<12x64x64xf32>, tensor<12x64x64xf32>) outs(%{{.*}} : tensor<12x64x64xf32>)
// CHECK: scf.for {{.*}} step %c8
// CHECK-NEXT: scf.for {{.*}} step %c64
// CHECK-NOT: tensor.pad
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<12x8x64xf32>, tensor<12x64x64xf32>) outs(%{{.*}} : tensor<12x8x64xf32>)
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<12x8x64xf32>, tensor<12x64x64xf32>) outs(%{{.*}} : tensor<12x8x64xf32>)
// CHECK: tensor.pad
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<12x8x64xf32>, tensor<12x64x64xf32>) outs(%{{.*}} : tensor<12x8x64xf32>)
// CHECK: scf.for {{.*}} step %c64 iter_args({{.*}}) -> (tensor<12x?x64xf32>)
// CHECK-NEXT: scf.for {{.*}} step %c256
// CHECK-NOT: tensor.pad
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<12x64x256xf32>, tensor<12x256x64xf32>) outs(%{{.*}} : tensor<12x64x64xf32>)
// CHECK: scf.for {{.*}} step %c32
// CHECK-NOT: tensor.pad
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<12x64x32xf32>, tensor<12x32x64xf32>) outs(%{{.*}} : tensor<12x64x64xf32>)
// CHECK: tensor.pad
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<12x64x32xf32>, tensor<12x32x64xf32>) outs(%{{.*}} : tensor<12x64x64xf32>)
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<12x8x256xf32>, tensor<12x256x64xf32>) outs(%{{.*}} : tensor<12x8x64xf32>)
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<12x8x32xf32>, tensor<12x32x64xf32>) outs(%{{.*}} : tensor<12x8x64xf32>)
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<12x8x32xf32>, tensor<12x32x64xf32>) outs(%{{.*}} : tensor<12x8x64xf32>)
func.func @attention(%q: tensor<12x?x64xf32>, %kt: tensor<12x64x?xf32>, %v: tensor<12x?x64xf32>, %s0: tensor<12x?x?xf32>, %o0: tensor<12x?x64xf32>) -> tensor<12x?x64xf32> {
  %s = linalg.batch_matmul ins(%q, %kt : tensor<12x?x64xf32>, tensor<12x64x?xf32>) outs(%s0 : tensor<12x?x?xf32>) -> tensor<12x?x?xf32>
  %o = linalg.batch_matmul ins(%s, %v : tensor<12x?x?xf32>, tensor<12x?x64xf32>) outs(%o0 : tensor<12x?x64xf32>) -> tensor<12x?x64xf32>
  return %o : tensor<12x?x64xf32>
}

// A batch of unknown extent is tiled by 1; integer contractions are left
// to the loop lowering, and so are static ones.
// CHECK-LABEL: func.func @batch_integer_static
// CHECK: scf.for {{.*}} step %c1
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<1x8x64xf32>, tensor<1x64x16xf32>)
// CHECK-NOT: scf.for
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x64xi32>, tensor<64x16xi32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x64xf32>, tensor<64x16xf32>)
func.func @batch_integer_static(%a: tensor<?x8x64xf32>, %b: tensor<?x64x16xf32>, %c: tensor<?x8x16xf32>,
                     %ia: tensor<?x64xi32>, %ib: tensor<64x16xi32>, %ic: tensor<?x16xi32>,
                     %sa: tensor<8x64xf32>, %sb: tensor<64x16xf32>, %sc: tensor<8x16xf32>)
    -> (tensor<?x8x16xf32>, tensor<?x16xi32>, tensor<8x16xf32>) {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<?x8x64xf32>, tensor<?x64x16xf32>) outs(%c : tensor<?x8x16xf32>) -> tensor<?x8x16xf32>
  %1 = linalg.matmul ins(%ia, %ib : tensor<?x64xi32>, tensor<64x16xi32>) outs(%ic : tensor<?x16xi32>) -> tensor<?x16xi32>
  %2 = linalg.matmul ins(%sa, %sb : tensor<8x64xf32>, tensor<64x16xf32>) outs(%sc : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0, %1, %2 : tensor<?x8x16xf32>, tensor<?x16xi32>, tensor<8x16xf32>
}

// Q K^T over an unknown number of keys, K transposed by a linalg.transpose
// and collapsed (as the importers build attention scores). At most two
// query rows (a decoding step) read the keys themselves, K innermost in
// both inputs (dot products for --mlprog-vectorize-reductions, not tiled
// into blocks), with no transposed copy; more rows (a prompt) make the
// transposed copy in their branch only and are tiled into matrix blocks.
// CHECK-LABEL: func.func @transposed_keys
// CHECK-SAME: (%[[Q:.*]]: tensor<1x12x?x64xf32>, %[[K:.*]]: tensor<1x12x?x64xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[QC:.*]] = tensor.collapse_shape %[[Q]] {{\[}}[0, 1], [2], [3]]
// CHECK: %[[ROWS:.*]] = tensor.dim %[[QC]], %c1
// CHECK: %[[FEW:.*]] = arith.cmpi ule, %[[ROWS]], %c2
// CHECK: scf.if %[[FEW]]
// CHECK-NEXT: %[[KC:.*]] = tensor.collapse_shape %[[K]] {{\[}}[0, 1], [2], [3]]
// CHECK-NEXT: linalg.generic {indexing_maps = [#[[A:.*]], #[[B:.*]], #[[C:.*]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[QC]], %[[KC]] : tensor<12x?x64xf32>, tensor<12x?x64xf32>)
// CHECK-NOT: scf.for
// CHECK: } else {
// CHECK-NEXT: %[[T:.*]] = linalg.transpose ins(%[[K]] : tensor<1x12x?x64xf32>)
// CHECK: scf.for {{.*}} step %c64
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<12x64x64xf32>, tensor<12x64x64xf32>)
func.func @transposed_keys(%q: tensor<1x12x?x64xf32>, %k: tensor<1x12x?x64xf32>) -> tensor<12x?x?xf32> {
  %c2 = arith.constant 2 : index
  %n = tensor.dim %k, %c2 : tensor<1x12x?x64xf32>
  %m = tensor.dim %q, %c2 : tensor<1x12x?x64xf32>
  %e = tensor.empty(%n) : tensor<1x12x64x?xf32>
  %t = linalg.transpose ins(%k : tensor<1x12x?x64xf32>) outs(%e : tensor<1x12x64x?xf32>) permutation = [0, 1, 3, 2]
  %kt = tensor.collapse_shape %t [[0, 1], [2], [3]] : tensor<1x12x64x?xf32> into tensor<12x64x?xf32>
  %qc = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x12x?x64xf32> into tensor<12x?x64xf32>
  %z = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %n2 = tensor.dim %kt, %c2 : tensor<12x64x?xf32>
  %o = tensor.empty(%m, %n2) : tensor<12x?x?xf32>
  %f = linalg.fill ins(%z : f32) outs(%o : tensor<12x?x?xf32>) -> tensor<12x?x?xf32>
  %r = linalg.batch_matmul ins(%qc, %kt : tensor<12x?x64xf32>, tensor<12x64x?xf32>) outs(%f : tensor<12x?x?xf32>) -> tensor<12x?x?xf32>
  return %r : tensor<12x?x?xf32>
}

// A convolution over a batch of unknown extent (a model exported with a
// dynamic batch axis) becomes a loop over the images of static one-image
// convolutions, each starting from its own bias broadcast and reading
// through its own padding: the static code generation (column tensor and
// blocked matmul) applies to each.
// CHECK-LABEL: func.func @conv_dynamic_batch
// CHECK-SAME: (%[[X:.*]]: tensor<?x8x6x6xf32>, %[[W:.*]]: tensor<16x8x3x3xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK-NOT: tensor.pad
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %c0
// CHECK: scf.for %[[I:.*]] = %c0 to %[[N]] step %c1
// CHECK: %[[XI:.*]] = tensor.extract_slice %[[X]][%[[I]], 0, 0, 0] [1, 8, 6, 6] [1, 1, 1, 1]
// CHECK: %[[P:.*]] = tensor.pad %[[XI]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: } : tensor<1x8x6x6xf32> to tensor<1x8x8x8xf32>
// CHECK: %[[INIT:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<16xf32>) outs(%{{.*}} : tensor<1x16x6x6xf32>)
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%[[P]], %[[W]] : tensor<1x8x8x8xf32>, tensor<16x8x3x3xf32>) outs(%[[INIT]] : tensor<1x16x6x6xf32>)
// CHECK: tensor.insert_slice
// CHECK-NOT: linalg.conv_2d_nchw_fchw
func.func @conv_dynamic_batch(%x: tensor<?x8x6x6xf32>, %w: tensor<16x8x3x3xf32>, %b: tensor<16xf32>) -> tensor<?x16x6x6xf32> {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x8x6x6xf32>
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<?x8x6x6xf32> to tensor<?x8x8x8xf32>
  %e = tensor.empty(%n) : tensor<?x16x6x6xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%b : tensor<16xf32>) outs(%e : tensor<?x16x6x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<?x16x6x6xf32>
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<?x8x8x8xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<?x16x6x6xf32>) -> tensor<?x16x6x6xf32>
  return %y : tensor<?x16x6x6xf32>
}

// Depthwise convolution and max pooling over a dynamic batch: one image
// per iteration. A fill that something else also reads (here: returned)
// stays outside the loop, which reads its slices.
// CHECK-LABEL: func.func @windows_dynamic_batch
// CHECK: %[[F:.*]] = linalg.fill {{.*}} -> tensor<?x8x6x6xf32>
// CHECK: scf.for
// CHECK: linalg.depthwise_conv_2d_nchw_chw {{.*}} -> tensor<1x8x6x6xf32>
// CHECK: scf.for
// CHECK: linalg.pooling_nchw_max {{.*}} -> tensor<1x8x3x3xf32>
func.func @windows_dynamic_batch(%x: tensor<?x8x8x8xf32>, %w: tensor<8x3x3xf32>) -> (tensor<?x8x6x6xf32>, tensor<?x8x3x3xf32>, tensor<?x8x6x6xf32>) {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x8x8x8xf32>
  %e = tensor.empty(%n) : tensor<?x8x6x6xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x8x6x6xf32>) -> tensor<?x8x6x6xf32>
  %d = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<?x8x8x8xf32>, tensor<8x3x3xf32>) outs(%f : tensor<?x8x6x6xf32>) -> tensor<?x8x6x6xf32>
  %win = tensor.empty() : tensor<2x2xf32>
  %e2 = tensor.empty(%n) : tensor<?x8x3x3xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %f2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<?x8x3x3xf32>) -> tensor<?x8x3x3xf32>
  %m = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%d, %win : tensor<?x8x6x6xf32>, tensor<2x2xf32>) outs(%f2 : tensor<?x8x3x3xf32>) -> tensor<?x8x3x3xf32>
  return %d, %m, %f : tensor<?x8x6x6xf32>, tensor<?x8x3x3xf32>, tensor<?x8x6x6xf32>
}

// Only the batch may be dynamic: a convolution over an image of unknown
// height keeps its loop lowering.
// CHECK-LABEL: func.func @conv_dynamic_height
// CHECK-NOT: scf.for
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} -> tensor<1x16x?x6xf32>
func.func @conv_dynamic_height(%x: tensor<1x8x?x8xf32>, %w: tensor<16x8x3x3xf32>, %init: tensor<1x16x?x6xf32>) -> tensor<1x16x?x6xf32> {
  %y = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x?x8xf32>, tensor<16x8x3x3xf32>) outs(%init : tensor<1x16x?x6xf32>) -> tensor<1x16x?x6xf32>
  return %y : tensor<1x16x?x6xf32>
}
