// RUN: mlprog-opt %s | FileCheck %s
// RUN: mlprog-opt %s -mlir-print-op-generic | mlprog-opt | FileCheck %s

// The string type and the scalar string ops round-trip.

// CHECK-LABEL: func.func @string_ops
// CHECK-SAME: (%[[T:.*]]: tensor<2x!ml_program.string>, %[[X:.*]]: f32, %[[B:.*]]: i8)
func.func @string_ops(%t: tensor<2x!ml_program.string>, %x: f32, %b: i8)
    -> (tensor<2x!ml_program.string>, f32, i1) {
  // CHECK: %[[C:.*]] = ml_program.string_constant "monday"
  %c = ml_program.string_constant "monday"
  // CHECK: %[[F:.*]] = ml_program.string_from_number %[[X]] : f32
  %f = ml_program.string_from_number %x : f32
  // CHECK: ml_program.string_from_number %[[B]] unsigned : i8
  %u = ml_program.string_from_number %b unsigned : i8
  // CHECK: %[[N:.*]] = ml_program.string_to_number %[[F]] : f32
  %n = ml_program.string_to_number %f : f32
  // CHECK: ml_program.string_to_number %[[C]] unsigned : i16
  %m = ml_program.string_to_number %c unsigned : i16
  // CHECK: %[[L:.*]] = ml_program.string_lower %[[C]]
  %l = ml_program.string_lower %c
  // CHECK: %[[U:.*]] = ml_program.string_upper %[[L]]
  %up = ml_program.string_upper %l
  // CHECK: %[[CAT:.*]] = ml_program.string_concat %[[C]], %[[F]]
  %cat = ml_program.string_concat %c, %f
  // CHECK: %[[NUM:.*]] = ml_program.string_split_count %[[CAT]] {delimiter = ".", maxsplit = -1 : i64}
  %num = ml_program.string_split_count %cat {delimiter = ".", maxsplit = -1 : i64}
  // CHECK: ml_program.string_split_part %[[CAT]][%[[NUM]]] {delimiter = "", maxsplit = 2 : i64}
  %part = ml_program.string_split_part %cat[%num] {delimiter = "", maxsplit = 2 : i64}
  // CHECK: %[[E:.*]] = ml_program.string_equal %[[U]], %[[F]]
  %e = ml_program.string_equal %up, %f
  // CHECK: tensor.from_elements %[[C]], %[[U]] : tensor<2x!ml_program.string>
  %r = tensor.from_elements %c, %up : tensor<2x!ml_program.string>
  return %r, %n, %e : tensor<2x!ml_program.string>, f32, i1
}
