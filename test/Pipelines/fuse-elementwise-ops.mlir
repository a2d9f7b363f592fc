// RUN: mlprog-opt %s --split-input-file --mlprog-fuse-elementwise-ops | FileCheck %s

// Bias + GELU before a [s, k] x [k, n] contraction: the contraction reads
// each GELU value n times, so fusing would compute erf n times per element
// and turn the matmul into a generic no GEMM strategy matches. The GELU
// chain itself fuses into one generic; the contraction stays a mul-add.
// CHECK-LABEL: func.func @gelu_before_contraction
// CHECK: %[[GELU:.*]] = linalg.generic
// CHECK: arith.addf
// CHECK: math.erf
// CHECK: linalg.generic {{.*}} ins(%[[GELU]], %{{.*}} : tensor<64x1024xf32>, tensor<1024x256xf32>)
// CHECK-NOT: math.erf
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: linalg.yield
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (j)>
func.func @gelu_before_contraction(%x: tensor<64x1024xf32>, %b: tensor<1024xf32>,
                                   %w: tensor<1024x256xf32>) -> tensor<64x256xf32> {
  %e = tensor.empty() : tensor<64x1024xf32>
  %biased = linalg.generic {indexing_maps = [#id, #row, #id],
      iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<64x1024xf32>, tensor<1024xf32>) outs(%e : tensor<64x1024xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<64x1024xf32>
  %gelu = linalg.generic {indexing_maps = [#id, #id],
      iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<64x1024xf32>) outs(%e : tensor<64x1024xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.erf %a : f32
    linalg.yield %r : f32
  } -> tensor<64x1024xf32>
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<64x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                        affine_map<(m, n, k) -> (k, n)>,
                                        affine_map<(m, n, k) -> (m, n)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%gelu, %w : tensor<64x1024xf32>, tensor<1024x256xf32>) outs(%acc : tensor<64x256xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %p = arith.mulf %a, %c : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// -----

// A producer read once per consumer iteration fuses into a reduction too
// (exp into the sum of a softmax).
// CHECK-LABEL: func.func @exp_into_sum
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK: math.exp
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
func.func @exp_into_sum(%x: tensor<8x64xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8x64xf32>
  %exp = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<8x64xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
      iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<8x64xf32>) outs(%acc : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %o, %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %sum : tensor<8xf32>
}

// -----

// A producer with another use stays: fusing would compute it twice.
// CHECK-LABEL: func.func @two_uses
// CHECK: %[[EXP:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: %[[SQ:.*]] = linalg.generic {{.*}} ins(%[[EXP]] :
// CHECK-NOT: math.exp
// CHECK: return %[[EXP]], %[[SQ]]
func.func @two_uses(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32>
  %exp = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
      iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %sq = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
      iterator_types = ["parallel"]}
      ins(%exp : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %exp, %sq : tensor<64xf32>, tensor<64xf32>
}

// -----

// The merge of attention heads ([s, h, d] -> [s, h * d]) before the output
// projection stays a reshape: expanding the contraction would split its K
// loop into h and d.
// CHECK-LABEL: func.func @head_merge_before_contraction
// CHECK: tensor.collapse_shape {{.*}} into tensor<64x256xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x256xf32>, tensor<256x256xf32>)
func.func @head_merge_before_contraction(%x: tensor<64x4x64xf32>, %w: tensor<256x256xf32>) -> tensor<64x256xf32> {
  %c = tensor.collapse_shape %x [[0], [1, 2]] : tensor<64x4x64xf32> into tensor<64x256xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x256xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  %r = linalg.matmul ins(%c, %w : tensor<64x256xf32>, tensor<256x256xf32>) outs(%acc : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// -----

// A layer norm's Pow with its exponent an initializer (a one-element
// constant global): the exponent becomes a constant in the body and
// powf(x, 2) is x * x (a libm powf call per element before).
// CHECK-LABEL: func.func @square_by_global
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<4x8xf32>)
// CHECK: arith.mulf %[[IN:.*]], %[[IN]] : f32
// CHECK-NOT: math.powf
memref.global "private" constant @exponent : memref<f32> = dense<2.000000e+00>
func.func @square_by_global(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %g = memref.get_global @exponent : memref<f32>
  %e = bufferization.to_tensor %g restrict : memref<f32> to tensor<f32>
  %o = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %e : tensor<4x8xf32>, tensor<f32>) outs(%o : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = math.powf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// powf(x, -0.5) (torch.norm with p = -0.5, then the root) is simplified to
// rsqrt, which has no libm function (the -O0 CPU pipeline's JIT failed on
// the missing rsqrtf): it becomes 1 / sqrt(x).
// CHECK-LABEL: func.func @inverse_square_root
// CHECK: %[[ROOT:.*]] = math.sqrt %{{.*}} : f32
// CHECK: arith.divf %{{.*}}, %[[ROOT]] : f32
// CHECK-NOT: math.rsqrt
// CHECK-NOT: math.powf
func.func @inverse_square_root(%x: tensor<4xf32>) -> tensor<4xf32> {
  %o = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%o : tensor<4xf32>) {
  ^bb0(%a: f32, %c: f32):
    %e = arith.constant -5.000000e-01 : f32
    %p = math.powf %a, %e : f32
    linalg.yield %p : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// A splat read along every loop of a reduction to a scalar stays an
// operand: without it no operand would give the loops' ranges.
// CHECK-LABEL: func.func @splat_gives_ranges
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<2x3xf32>)
func.func @splat_gives_ranges(%acc: tensor<f32>) -> tensor<f32> {
  %c = arith.constant dense<1.500000e+00> : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%c : tensor<2x3xf32>) outs(%acc : tensor<f32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// A QuantizeLinear read back by a DequantizeLinear in one generic (a QDQ
// residual add): the rounded, offset and clamped value is an integer in
// [0, 255], so its conversion to bytes and back is the identity, and
// `sitofp(extui(fptoui(t)) - 3)` is `t - 3.0`.
#id1 = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @quantized_and_read_back
// CHECK: %[[ROUNDED:.*]] = math.roundeven
// CHECK: %[[OFFSET:.*]] = arith.addf %[[ROUNDED]], %cst
// CHECK: %[[LOW:.*]] = arith.maxnumf %[[OFFSET]], %cst
// CHECK: %[[CLAMPED:.*]] = arith.minnumf %[[LOW]], %cst
// CHECK-NOT: arith.fptoui
// CHECK: %[[CENTERED:.*]] = arith.subf %[[CLAMPED]], %cst
// CHECK: arith.mulf %[[CENTERED]], %cst
func.func @quantized_and_read_back(%x: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %y = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %scale = arith.constant 0.5 : f32
    %zero = arith.constant 3.0 : f32
    %lo = arith.constant 0.0 : f32
    %hi = arith.constant 255.0 : f32
    %zi = arith.constant 3 : i32
    %d = arith.divf %v, %scale : f32
    %r = math.roundeven %d : f32
    %s = arith.addf %r, %zero : f32
    %c0 = arith.maxnumf %s, %lo : f32
    %c1 = arith.minnumf %c0, %hi : f32
    %q = arith.fptoui %c1 : f32 to i8
    %w = arith.extui %q : i8 to i32
    %c = arith.subi %w, %zi : i32
    %f = arith.sitofp %c : i32 to f32
    %dq = arith.mulf %f, %scale : f32
    linalg.yield %dq : f32
  } -> tensor<64xf32>
  return %y : tensor<64xf32>
}

// -----

// Without the clamp the value may lie outside [0, 255] (fptoui would wrap
// or be poison there, and the round trip is no identity): kept.
#id1 = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @unclamped_kept
// CHECK: arith.fptoui
// CHECK: arith.sitofp
func.func @unclamped_kept(%x: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %y = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %lo = arith.constant 0.0 : f32
    %r = math.roundeven %v : f32
    %c0 = arith.maxnumf %r, %lo : f32
    %q = arith.fptoui %c0 : f32 to i8
    %w = arith.extui %q : i8 to i32
    %f = arith.sitofp %w : i32 to f32
    linalg.yield %f : f32
  } -> tensor<64xf32>
  return %y : tensor<64xf32>
}
