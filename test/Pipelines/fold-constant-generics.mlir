// RUN: mlprog-opt %s --split-input-file --mlprog-fold-constant-generics | FileCheck %s

// torch's ViT export: the class token's Expand shape is
// Where(Equal([1, -1, -1], -1), 1, [1, -1, -1]) on constants. Folded, the
// sizes read from it are constants and the expanded tensor is static.
// CHECK-LABEL: func.func @expand_shape
// CHECK-NOT: linalg.generic {{.*}} ins(%{{.*}} : tensor<3xi64>
// CHECK-NOT: tensor.extract
// CHECK: tensor.empty() : tensor<1x1x768xf32>
// CHECK: return {{.*}} : tensor<?x?x768xf32>
#v = affine_map<(i) -> (i)>
func.func @expand_shape(%token: tensor<1x1x768xf32>) -> tensor<?x?x768xf32> {
  %shape = arith.constant dense<[1, -1, -1]> : tensor<3xi64>
  %minus = arith.constant dense<-1> : tensor<3xi64>
  %ones = arith.constant dense<1> : tensor<3xi64>
  %e1 = tensor.empty() : tensor<3xi1>
  %eq = linalg.generic {indexing_maps = [#v, #v, #v], iterator_types = ["parallel"]}
      ins(%shape, %minus : tensor<3xi64>, tensor<3xi64>) outs(%e1 : tensor<3xi1>) {
  ^bb0(%a: i64, %b: i64, %o: i1):
    %r = arith.cmpi eq, %a, %b : i64
    linalg.yield %r : i1
  } -> tensor<3xi1>
  %e2 = tensor.empty() : tensor<3xi64>
  %where = linalg.generic {indexing_maps = [#v, #v, #v, #v], iterator_types = ["parallel"]}
      ins(%eq, %ones, %shape : tensor<3xi1>, tensor<3xi64>, tensor<3xi64>) outs(%e2 : tensor<3xi64>) {
  ^bb0(%c: i1, %a: i64, %b: i64, %o: i64):
    %r = arith.select %c, %a, %b : i64
    linalg.yield %r : i64
  } -> tensor<3xi64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.extract %where[%c0] : tensor<3xi64>
  %d1 = tensor.extract %where[%c1] : tensor<3xi64>
  %i0 = arith.index_cast %d0 : i64 to index
  %i1 = arith.index_cast %d1 : i64 to index
  %e3 = tensor.empty(%i0, %i1) : tensor<?x?x768xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (0, 0, c)>, affine_map<(a, b, c) -> (a, b, c)>],
      iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%token : tensor<1x1x768xf32>) outs(%e3 : tensor<?x?x768xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<?x?x768xf32>
  return %r : tensor<?x?x768xf32>
}

// -----

// An integer fill becomes a splat; a float fill (a contraction's init) and
// a generic over a non-constant input stay.
// CHECK-LABEL: func.func @fills
// CHECK-DAG: arith.constant dense<768> : tensor<1xi64>
// CHECK-DAG: linalg.fill ins(%{{.*}} : f32)
// CHECK: linalg.generic
// CHECK: arith.addi
func.func @fills(%x: tensor<4xi64>) -> (tensor<1xi64>, tensor<4xf32>, tensor<4xi64>) {
  %c = arith.constant 768 : i64
  %f = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1xi64>
  %a = linalg.fill ins(%c : i64) outs(%e : tensor<1xi64>) -> tensor<1xi64>
  %ef = tensor.empty() : tensor<4xf32>
  %b = linalg.fill ins(%f : f32) outs(%ef : tensor<4xf32>) -> tensor<4xf32>
  %ei = tensor.empty() : tensor<4xi64>
  %g = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%x : tensor<4xi64>) outs(%ei : tensor<4xi64>) {
  ^bb0(%v: i64, %o: i64):
    %r = arith.addi %v, %c : i64
    linalg.yield %r : i64
  } -> tensor<4xi64>
  return %a, %b, %g : tensor<1xi64>, tensor<4xf32>, tensor<4xi64>
}

// -----

// torch's MultiheadAttention export slices the packed [64, 1, 768] QKV
// projection with starts computed from shapes; once they are constants, the
// generic that reads it element by element is a strided slice (the key:
// offset 256 along the last dimension; a stride of 2 along the first).
// CHECK-LABEL: func.func @qkv_slice
// CHECK-NOT: linalg.generic
// CHECK: %[[K:.*]] = tensor.extract_slice %arg0[0, 0, 256] [64, 1, 256] [1, 1, 1] : tensor<64x1x768xf32> to tensor<64x1x256xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %arg0[1, 0, 0] [32, 1, 768] [2, 1, 1] : tensor<64x1x768xf32> to tensor<32x1x768xf32>
// CHECK: return %[[K]], %[[S]]
func.func @qkv_slice(%qkv: tensor<64x1x768xf32>) -> (tensor<64x1x256xf32>, tensor<32x1x768xf32>) {
  %c256 = arith.constant 256 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %e = tensor.empty() : tensor<64x1x256xf32>
  %k = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e : tensor<64x1x256xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %l = linalg.index 2 : index
    %lk = arith.addi %c256, %l : index
    %v = tensor.extract %qkv[%i, %j, %lk] : tensor<64x1x768xf32>
    linalg.yield %v : f32
  } -> tensor<64x1x256xf32>
  %e2 = tensor.empty() : tensor<32x1x768xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%e2 : tensor<32x1x768xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %i2 = arith.muli %i, %c2 : index
    %i3 = arith.addi %i2, %c1 : index
    %l = linalg.index 2 : index
    %j = linalg.index 1 : index
    %v = tensor.extract %qkv[%i3, %j, %l] : tensor<64x1x768xf32>
    linalg.yield %v : f32
  } -> tensor<32x1x768xf32>
  return %k, %s : tensor<64x1x256xf32>, tensor<32x1x768xf32>
}

// -----

// Not slices: a negative stride (a reversed axis), indices that swap two
// dimensions, an index past the end.
// CHECK-LABEL: func.func @gathers_kept
// CHECK-COUNT-3: linalg.generic
func.func @gathers_kept(%x: tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %c7 = arith.constant 7 : index
  %cm1 = arith.constant -1 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<8x8xf32>
  %rev = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<8x8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %m = arith.muli %j, %cm1 : index
    %r = arith.addi %m, %c7 : index
    %v = tensor.extract %x[%i, %r] : tensor<8x8xf32>
    linalg.yield %v : f32
  } -> tensor<8x8xf32>
  %swap = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<8x8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %v = tensor.extract %x[%j, %i] : tensor<8x8xf32>
    linalg.yield %v : f32
  } -> tensor<8x8xf32>
  %past = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<8x8xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %s = arith.addi %j, %c1 : index
    %v = tensor.extract %x[%i, %s] : tensor<8x8xf32>
    linalg.yield %v : f32
  } -> tensor<8x8xf32>
  return %rev, %swap, %past : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}
