// RUN: mlprog-opt %s --pass-pipeline='builtin.module(func.func(mlprog-vectorize-reductions{target-features=+avx512f}),canonicalize,cse)' | FileCheck %s --check-prefix=AVX512
// RUN: mlprog-opt %s --pass-pipeline='builtin.module(func.func(mlprog-vectorize-reductions{target-features=+avx2,+fma}),canonicalize,cse)' | FileCheck %s --check-prefix=AVX2

// A softmax's row max over [4, 64, 200]: the rows collapse to 256, the row
// splits into 192 (chunks of 4 vectors) and a remainder of 8 that reduces
// into the first part's result. Each row keeps 64 partial maxima in a
// loop-carried vector that starts at -inf and is reduced once at its end.
// 51 Ki elements: no threads.
// AVX512-LABEL: func.func @row_max
// AVX512-DAG: %[[NEG:.*]] = arith.constant dense<0xFF800000> : vector<64xf32>
// AVX512: tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<4x64x200xf32> into tensor<256x200xf32>
// AVX512-NOT: scf.forall
// AVX512: scf.for %[[ROW:.*]] = %c0 to %c256 step %c1
// AVX512: scf.for %{{.*}} = %c0 to %c192 step %c64 iter_args(%[[ACC:.*]] = %[[NEG]]) -> (vector<64xf32>)
// AVX512: %[[X:.*]] = vector.transfer_read {{.*}} : tensor<256x200xf32>, vector<64xf32>
// AVX512: arith.maximumf %[[X]], %[[ACC]] : vector<64xf32>
// AVX512: vector.reduction <maximumf>, %{{.*}}, %{{.*}} : vector<64xf32> into f32
// AVX512: scf.for
// AVX512: vector.transfer_read %{{.*}}[%{{.*}}, %c192]{{.*}} : tensor<256x200xf32>, vector<8xf32>
// AVX512: vector.reduction <maximumf>, %{{.*}}, %{{.*}} : vector<8xf32> into f32
// AVX512-NOT: linalg.generic
// AVX2-LABEL: func.func @row_max
// AVX2: scf.for %{{.*}} = %c0 to %c192 step %c32 iter_args(%{{.*}} = %{{.*}}) -> (vector<32xf32>)
// AVX2: vector.reduction <maximumf>, %{{.*}}, %{{.*}} : vector<32xf32> into f32
func.func @row_max(%x: tensor<4x64x200xf32>) -> tensor<4x64xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4x64xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<4x64xf32>) -> tensor<4x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<4x64x200xf32>) outs(%f : tensor<4x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

// A weighted sum (a broadcast vector along the row) over 300 rows of 256:
// 75 Ki elements, so the rows are an scf.forall; the partial sums start at 0.
// AVX512-LABEL: func.func @weighted_sum
// AVX512-DAG: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<64xf32>
// AVX512: scf.forall (%[[ROW:.*]]) in (300)
// AVX512: scf.for %[[J:.*]] = %c0 to %c256 step %c64 iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (vector<64xf32>)
// AVX512-DAG: %[[X:.*]] = vector.transfer_read %{{.*}}[%[[ROW]], %[[J]]]
// AVX512-DAG: %[[W:.*]] = vector.transfer_read %{{.*}}[%[[J]]]
// AVX512: %[[P:.*]] = arith.mulf %[[X]], %[[W]] : vector<64xf32>
// AVX512: arith.addf %[[P]], %[[ACC]] : vector<64xf32>
// AVX512: vector.reduction <add>, %{{.*}}, %{{.*}} : vector<64xf32> into f32
func.func @weighted_sum(%x: tensor<300x256xf32>, %w: tensor<256xf32>) -> tensor<300xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<300xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<300xf32>) -> tensor<300xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %w : tensor<300x256xf32>, tensor<256xf32>) outs(%f : tensor<300xf32>) {
  ^bb0(%in: f32, %in_w: f32, %out: f32):
    %p = arith.mulf %in, %in_w : f32
    %s = arith.addf %p, %out : f32
    linalg.yield %s : f32
  } -> tensor<300xf32>
  return %r : tensor<300xf32>
}

// Left alone: rows shorter than 8, a reduction that is not the innermost
// loop (a column sum), and a combiner without a neutral element.
// AVX512-LABEL: func.func @kept
// AVX512-COUNT-3: linalg.generic
// AVX512-NOT: vector.reduction
func.func @kept(%x: tensor<64x7xf32>, %y: tensor<64x32xf32>) -> (tensor<64xf32>, tensor<32xf32>, tensor<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %e64 = tensor.empty() : tensor<64xf32>
  %f64 = linalg.fill ins(%zero : f32) outs(%e64 : tensor<64xf32>) -> tensor<64xf32>
  %e32 = tensor.empty() : tensor<32xf32>
  %f32 = linalg.fill ins(%zero : f32) outs(%e32 : tensor<32xf32>) -> tensor<32xf32>
  %short = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x7xf32>) outs(%f64 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %columns = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%y : tensor<64x32xf32>) outs(%f32 : tensor<32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %sub = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%y : tensor<64x32xf32>) outs(%f64 : tensor<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.subf %out, %in : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %short, %columns, %sub : tensor<64xf32>, tensor<32xf32>, tensor<64xf32>
}

// A row max over a dynamic number of keys ([12, ?], a decoding step's
// softmax): one row at a time, the whole vectors of a row reduced into a
// vector carried by the loop, the peeled partial chunk reduced by a scalar
// linalg op into the same partial results, then one vector.reduction.
// AVX512-LABEL: func.func @dynamic_row_max
// AVX512: scf.for %[[R:.*]] = %c0 to %c12 step %c1
// AVX512:   %[[MAIN:.*]] = affine.apply
// AVX512:   %[[V:.*]] = scf.for %[[I:.*]] = %c0 to %[[MAIN]] step %c16 iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<16xf32>)
// AVX512:     %[[X:.*]] = vector.transfer_read %{{.*}}[%[[R]], %[[I]]]
// AVX512:     arith.maximumf %[[X]], %[[ACC]] : vector<16xf32>
// AVX512:   %[[W:.*]] = vector.transfer_write %[[V]]
// AVX512:   %[[P:.*]] = scf.for %{{.*}} = %[[MAIN]] to %{{.*}} step %c16 iter_args(%{{.*}} = %[[W]])
// AVX512:     linalg.generic
// AVX512:   %[[PV:.*]] = vector.transfer_read %[[P]]
// AVX512:   vector.reduction <maximumf>, %[[PV]]
func.func @dynamic_row_max(%x: tensor<12x?xf32>) -> tensor<12xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<12xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<12xf32>) -> tensor<12xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<12x?xf32>) outs(%f : tensor<12xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<12xf32>
  return %max : tensor<12xf32>
}

// Dot products over a static head dimension for an unknown number of
// queries and keys (Q K^T reading the keys untransposed, see
// tile-dynamic-contractions.mlir): the dynamic loops become scf.for loops of
// step 1 around a static [12, 1, 1, 64] tile, whose rows are vectorized.
// AVX512-LABEL: func.func @dynamic_outer_dots
// AVX512: scf.for %[[M:.*]] = %c0 to %{{.*}} step %c1
// AVX512:   scf.for %[[N:.*]] = %c0 to %{{.*}} step %c1
// AVX512:     scf.for %[[H:.*]] = %c0 to %c12 step %c1
// AVX512:       %[[Q:.*]] = vector.transfer_read %{{.*}}[%[[H]], %[[M]], %c0]{{.*}} vector<64xf32>
// AVX512:       %[[K:.*]] = vector.transfer_read %{{.*}}[%[[H]], %[[N]], %c0]{{.*}} vector<64xf32>
// AVX512:       %[[P:.*]] = arith.mulf %[[Q]], %[[K]] : vector<64xf32>
// AVX512:       vector.reduction <add>, %[[P]]
func.func @dynamic_outer_dots(%q: tensor<12x?x64xf32>, %k: tensor<12x?x64xf32>, %init: tensor<12x?x?xf32>) -> tensor<12x?x?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<12x?x64xf32>, tensor<12x?x64xf32>) outs(%init : tensor<12x?x?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<12x?x?xf32>
  return %r : tensor<12x?x?xf32>
}

// A global average pool's sum over both trailing dimensions [7, 7] (a
// squeeze-and-excitation block) is collapsed into one row of 49 per
// channel first, then reduced as a row: 48 in vectors and the last one.
// AVX512-LABEL: func.func @global_pool
// AVX512: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2, 3]] : tensor<1x32x7x7xf32> into tensor<32x49xf32>
// AVX512: vector.reduction <add>, %{{.*}} : vector<48xf32> into f32
// AVX512-NOT: linalg.generic
func.func @global_pool(%x: tensor<1x32x7x7xf32>) -> tensor<1x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32xf32>) -> tensor<1x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x : tensor<1x32x7x7xf32>) outs(%init : tensor<1x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<1x32xf32>
  return %r : tensor<1x32xf32>
}

// A pool that also reads a [C, 1, 1] scale at (c, 0, 0) (convnext's last
// layer scale, fused into its global pool) is not collapsed: upstream's
// collapsing would make the constant indices loop dimensions (at batch 8 an
// invalid op, at batch 1 a silently different one). It stays a valid op.
// AVX512-LABEL: func.func @global_pool_scaled
// AVX512: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<32x1x1xf32>, tensor<8x32x7x7xf32>) outs(%{{.*}} : tensor<8x32xf32>)
func.func @global_pool_scaled(%s: tensor<32x1x1xf32>, %x: tensor<8x32x7x7xf32>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%s, %x : tensor<32x1x1xf32>, tensor<8x32x7x7xf32>) outs(%init : tensor<8x32xf32>) {
  ^bb0(%a: f32, %in: f32, %out: f32):
    %m = arith.mulf %a, %in : f32
    %t = arith.addf %m, %out : f32
    linalg.yield %t : f32
  } -> tensor<8x32xf32>
  return %r : tensor<8x32xf32>
}
