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
