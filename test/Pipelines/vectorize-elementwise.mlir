// RUN: mlprog-opt %s --pass-pipeline='builtin.module(func.func(mlprog-vectorize-elementwise{target-features=+avx512f}),canonicalize,cse)' | FileCheck %s --check-prefix=AVX512
// RUN: mlprog-opt %s --pass-pipeline='builtin.module(func.func(mlprog-vectorize-elementwise{target-features=+avx2,+fma parallel=false}),canonicalize,cse)' | FileCheck %s --check-prefix=AVX2

// Bias add + relu on [1, 19, 9, 130]: H and W collapse to rows of 1170,
// split into 1152 (chunks of 4 vectors) and a remainder of 18; the bias is
// broadcast along the row. 22 Ki elements: no threads.
// AVX512-LABEL: func.func @bias_relu
// AVX512: tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : tensor<1x19x9x130xf32> into tensor<1x19x1170xf32>
// AVX512-NOT: scf.forall
// AVX512: scf.for
// AVX512: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %c64
// AVX512: vector.transfer_read {{.*}} : tensor<1x19x1170xf32>, vector<64xf32>
// AVX512: vector.transfer_read {{.*}} permutation_map = {{.*}} : tensor<19xf32>, vector<64xf32>
// AVX512: arith.addf {{.*}} : vector<64xf32>
// AVX512: arith.maximumf {{.*}} : vector<64xf32>
// AVX512: vector.transfer_write {{.*}} : vector<64xf32>
// AVX512: arith.maximumf {{.*}} : vector<18xf32>
// AVX512-NOT: linalg.generic
// AVX2-LABEL: func.func @bias_relu
// AVX2: scf.for {{.*}} step %c32
// AVX2: arith.maximumf {{.*}} : vector<32xf32>
// AVX2: arith.maximumf {{.*}} : vector<18xf32>
func.func @bias_relu(%x: tensor<1x19x9x130xf32>, %b: tensor<19xf32>) -> tensor<1x19x9x130xf32> {
  %e = tensor.empty() : tensor<1x19x9x130xf32>
  %z = arith.constant 0.0 : f32
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %b : tensor<1x19x9x130xf32>, tensor<19xf32>) outs(%e : tensor<1x19x9x130xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %m = arith.maximumf %s, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x19x9x130xf32>
  return %r : tensor<1x19x9x130xf32>
}

// A residual add of 200 Ki elements: one row of 200704, cut into forall
// blocks of 7168 (112 chunks of 64: the largest such divisor up to 8192).
// AVX512-LABEL: func.func @residual_add
// AVX512: scf.forall (%{{.*}}) = (0) to (200704) step (7168)
// AVX512: scf.for {{.*}} step %c64
// AVX512: arith.addf {{.*}} : vector<64xf32>
// AVX2-LABEL: func.func @residual_add
// AVX2-NOT: scf.forall
// AVX2: arith.addf {{.*}} : vector<32xf32>
func.func @residual_add(%x: tensor<1x64x56x56xf32>, %y: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %r = linalg.add ins(%x, %y : tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32>) outs(%x : tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32>
  return %r : tensor<1x64x56x56xf32>
}

// A large pad: a forall over the output rows; rows outside the source are
// the padding value, the others low padding, source row, high padding.
// AVX512-LABEL: func.func @pad
// AVX512: scf.forall (%[[C:.*]], %[[Y:.*]]) in (32, 58)
// AVX512: %[[ROW:.*]] = tensor.extract_slice %{{.*}}[0, %[[C]], %[[Y]], 0] [1, 1, 1, 58] [1, 1, 1, 1] : tensor<1x32x58x58xf32> to tensor<58xf32>
// AVX512: scf.if
// AVX512: vector.transfer_write %{{.*}}, %[[ROW]][%c0] {{.*}} : vector<1xf32>, tensor<58xf32>
// AVX512: vector.transfer_read %{{.*}} : tensor<1x32x56x56xf32>, vector<16xf32>
// AVX512: vector.transfer_read %{{.*}} : tensor<1x32x56x56xf32>, vector<8xf32>
// AVX512: } else {
// AVX512: vector.transfer_write {{.*}} : vector<10xf32>, tensor<58xf32>
// AVX512: tensor.parallel_insert_slice
// AVX512-NOT: tensor.pad
// AVX512-NOT: linalg.fill
func.func @pad(%x: tensor<1x32x56x56xf32>) -> tensor<1x32x58x58xf32> {
  %cst = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %cst : f32
  } : tensor<1x32x56x56xf32> to tensor<1x32x58x58xf32>
  return %p : tensor<1x32x58x58xf32>
}

// A small i32 pad: scf.for loops over the rows.
// AVX2-LABEL: func.func @small_pad
// AVX2-NOT: scf.forall
// AVX2: scf.for
// AVX2: scf.for
// AVX2: scf.if
// AVX2: vector.transfer_write {{.*}} : vector<2xi32>, tensor<9xi32>
// AVX2: vector.transfer_read {{.*}} : tensor<2x5x7xi32>, vector<7xi32>
// AVX2: } else {
// AVX2: vector.transfer_write {{.*}} : vector<8xi32>, tensor<9xi32>
// AVX2: vector.transfer_write {{.*}} : vector<1xi32>, tensor<9xi32>
// AVX2: tensor.insert_slice
func.func @small_pad(%x: tensor<2x5x7xi32>) -> tensor<2x8x9xi32> {
  %cst = arith.constant 3 : i32
  %p = tensor.pad %x low[0, 1, 2] high[0, 2, 0] {
  ^bb0(%a: index, %b: index, %c: index):
    tensor.yield %cst : i32
  } : tensor<2x5x7xi32> to tensor<2x8x9xi32>
  return %p : tensor<2x8x9xi32>
}

// A fill of i8: 32 lanes per AVX2 vector, chunks of 128, a remainder of 44.
// AVX2-LABEL: func.func @fill_i8
// AVX2: vector.transfer_write {{.*}} : vector<128xi8>, tensor<256xi8>
// AVX2: vector.transfer_write {{.*}} : vector<44xi8>, tensor<44xi8>
func.func @fill_i8(%x: tensor<3x100xi8>) -> tensor<3x100xi8> {
  %c = arith.constant 7 : i8
  %f = linalg.fill ins(%c : i8) outs(%x : tensor<3x100xi8>) -> tensor<3x100xi8>
  return %f : tensor<3x100xi8>
}

// Left alone: a transpose (the innermost dimension moves) and an op with
// i1 operands.
// AVX512-LABEL: func.func @unchanged
// AVX512: linalg.transpose
// AVX512: linalg.generic
// AVX512-NOT: vector.
func.func @unchanged(%x: tensor<16x32xf32>, %m: tensor<16x32xi1>) -> (tensor<32x16xf32>, tensor<16x32xf32>) {
  %e = tensor.empty() : tensor<32x16xf32>
  %t = linalg.transpose ins(%x : tensor<16x32xf32>) outs(%e : tensor<32x16xf32>) permutation = [1, 0]
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<16x32xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<16x32xf32>, tensor<16x32xi1>) outs(%e2 : tensor<16x32xf32>) {
  ^bb0(%a: f32, %c: i1, %o: f32):
    %v = arith.select %c, %a, %z : f32
    linalg.yield %v : f32
  } -> tensor<16x32xf32>
  return %t, %s : tensor<32x16xf32>, tensor<16x32xf32>
}

// A layer norm subtracting its [1, 64, 1] mean from [1, 64, 256]: the mean
// is read at (d0, d1, 0), no projected permutation. The unit dimensions are
// dropped first ([64, 256] - [64]), then the op is vector code like any
// broadcast.
// AVX512-LABEL: func.func @unit_broadcast
// AVX512: tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : tensor<1x64x1xf32> into tensor<64xf32>
// AVX512: vector.transfer_read {{.*}} : tensor<64x256xf32>, vector<64xf32>
// AVX512: vector.transfer_read {{.*}} permutation_map = {{.*}} : tensor<64xf32>, vector<64xf32>
// AVX512: arith.subf {{.*}} : vector<64xf32>
// AVX512-NOT: linalg.generic
func.func @unit_broadcast(%x: tensor<1x64x256xf32>, %m: tensor<1x64x1xf32>) -> tensor<1x64x256xf32> {
  %e = tensor.empty() : tensor<1x64x256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %m : tensor<1x64x256xf32>, tensor<1x64x1xf32>) outs(%e : tensor<1x64x256xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x64x256xf32>
  return %r : tensor<1x64x256xf32>
}

// Dynamic outer extents (a sequence of unknown length): each row is a
// static op in an scf.for of step 1 over the dynamic loops, vectorized like
// a static one; the rows run in order (a decoding step has one), no
// threads. The innermost extent must be static.
// AVX512-LABEL: func.func @dynamic_rows
// AVX512-SAME: (%[[X:.*]]: tensor<1x?x768xf32>, %[[B:.*]]: tensor<768xf32>)
// AVX512: %[[N:.*]] = tensor.dim %[[X]], %c1
// AVX512-NOT: scf.forall
// AVX512: scf.for %[[I:.*]] = %c0 to %[[N]] step %c1
// AVX512: tensor.extract_slice %[[X]][0, %[[I]], 0] [1, 1, 768] [1, 1, 1]
// AVX512: scf.for %{{.*}} = %c0 to %c768 step %c64
// AVX512: math.tanh %{{.*}} : vector<64xf32>
#dyn3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#dynb = affine_map<(d0, d1, d2) -> (d2)>
#dynr = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
func.func @dynamic_rows(%x: tensor<1x?x768xf32>, %bias: tensor<768xf32>) -> tensor<1x?x768xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<1x?x768xf32>
  %e = tensor.empty(%n) : tensor<1x?x768xf32>
  %y = linalg.generic {indexing_maps = [#dyn3, #dynb, #dyn3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %bias : tensor<1x?x768xf32>, tensor<768xf32>) outs(%e : tensor<1x?x768xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %t = math.tanh %s : f32
    linalg.yield %t : f32
  } -> tensor<1x?x768xf32>
  return %y : tensor<1x?x768xf32>
}

// A layer norm's [1, ?, 1] mean subtracted from its rows: the row's unit
// broadcast is dropped, then it is a vector minus a scalar.
// AVX512-LABEL: func.func @dynamic_rows_unit_broadcast
// AVX512: scf.for %[[I:.*]] = %c0 to %{{.*}} step %c1
// AVX512: %[[M:.*]] = tensor.extract_slice %{{.*}}[0, %[[I]], 0] [1, 1, 1] [1, 1, 1] : tensor<1x?x1xf32> to tensor<1x1x1xf32>
// AVX512: scf.for %{{.*}} = %c0 to %c768 step %c64
// AVX512: arith.subf %{{.*}}, %{{.*}} : vector<64xf32>
func.func @dynamic_rows_unit_broadcast(%x: tensor<1x?x768xf32>, %mean: tensor<1x?x1xf32>) -> tensor<1x?x768xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<1x?x768xf32>
  %e = tensor.empty(%n) : tensor<1x?x768xf32>
  %y = linalg.generic {indexing_maps = [#dyn3, #dynr, #dyn3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %mean : tensor<1x?x768xf32>, tensor<1x?x1xf32>) outs(%e : tensor<1x?x768xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.subf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<1x?x768xf32>
  return %y : tensor<1x?x768xf32>
}

// A dynamic innermost extent (softmax over an unknown number of keys): the
// op collapses to one dynamic row, a loop over whole vectors up to the last
// multiple of 16, then the peeled partial chunk as a scalar linalg op.
// AVX512-LABEL: func.func @dynamic_inner
// AVX512: %[[N:.*]] = tensor.dim %{{.*}}, %c0 : tensor<?xf32>
// AVX512: %[[MAIN:.*]] = affine.apply #{{.*}}()[%[[N]]]
// AVX512: %[[V:.*]] = scf.for %[[I:.*]] = %c0 to %[[MAIN]] step %c16
// AVX512:   vector.transfer_read %{{.*}}[%[[I]]]{{.*}} : tensor<?xf32>, vector<16xf32>
// AVX512:   math.exp %{{.*}} : vector<16xf32>
// AVX512:   vector.transfer_write
// AVX512: scf.for %{{.*}} = %[[MAIN]] to %[[N]] step %c16 iter_args(%{{.*}} = %[[V]])
// AVX512:   linalg.generic
// AVX512:     math.exp %{{.*}} : f32
// AVX512: tensor.expand_shape
func.func @dynamic_inner(%x: tensor<12x?xf32>) -> tensor<12x?xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<12x?xf32>
  %e = tensor.empty(%n) : tensor<12x?xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<12x?xf32>) outs(%e : tensor<12x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<12x?xf32>
  return %y : tensor<12x?xf32>
}

// An empty op (a static extent of 0, as in ONNX's empty-set reductions)
// with a dynamic outer extent is left alone.
// The same op with a broadcast operand (softmax's subtraction of the row
// maximum): rows of step 1, each a loop of vectors reading the row's
// maximum as a broadcast, then its partial chunk.
// AVX512-LABEL: func.func @dynamic_inner_broadcast
// AVX512: scf.for %[[R:.*]] = %c0 to %c12 step %c1
// AVX512:   scf.for %[[I:.*]] = %c0 to %{{.*}} step %c16
// AVX512:     %[[X:.*]] = vector.transfer_read %{{.*}}[%[[R]], %[[I]]]{{.*}} vector<16xf32>
// AVX512:     %[[M:.*]] = vector.transfer_read %{{.*}}[%[[R]]]{{.*}}permutation_map{{.*}} vector<16xf32>
// AVX512:     arith.subf %[[X]], %[[M]] : vector<16xf32>
// AVX512:   scf.for
// AVX512:     linalg.generic
func.func @dynamic_inner_broadcast(%x: tensor<12x?xf32>, %m: tensor<12xf32>) -> tensor<12x?xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<12x?xf32>
  %e = tensor.empty(%n) : tensor<12x?xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<12x?xf32>, tensor<12xf32>) outs(%e : tensor<12x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.subf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<12x?xf32>
  return %y : tensor<12x?xf32>
}

// AVX512-LABEL: func.func @dynamic_rows_empty
// AVX512-NOT: scf.for
// AVX512: linalg.fill
func.func @dynamic_rows_empty(%n: index) -> tensor<?x0x4xf32> {
  %e = tensor.empty(%n) : tensor<?x0x4xf32>
  %zero = arith.constant 0.0 : f32
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x0x4xf32>) -> tensor<?x0x4xf32>
  return %f : tensor<?x0x4xf32>
}

// Two dynamic extents ([1, 4, queries, keys] of a prefill's attention
// mask): the dynamic extents stay apart (at most one per collapsed group):
// rows of [1 x 4 x queries], each a loop of vectors over the keys.
// AVX512-LABEL: func.func @dynamic_inner_two_dynamic
// AVX512: tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3]] : tensor<1x4x?x?xf32> into tensor<?x?xf32>
// AVX512: scf.for %{{.*}} step %c1
// AVX512:   scf.for {{.*}} step %c16
// AVX512:     arith.addf %{{.*}} : vector<16xf32>
func.func @dynamic_inner_two_dynamic(%x: tensor<1x4x?x?xf32>, %y: tensor<1x4x?x?xf32>) -> tensor<1x4x?x?xf32> {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %q = tensor.dim %x, %c2 : tensor<1x4x?x?xf32>
  %k = tensor.dim %x, %c3 : tensor<1x4x?x?xf32>
  %e = tensor.empty(%q, %k) : tensor<1x4x?x?xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %y : tensor<1x4x?x?xf32>, tensor<1x4x?x?xf32>) outs(%e : tensor<1x4x?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %t = arith.addf %a, %b : f32
    linalg.yield %t : f32
  } -> tensor<1x4x?x?xf32>
  return %z : tensor<1x4x?x?xf32>
}
