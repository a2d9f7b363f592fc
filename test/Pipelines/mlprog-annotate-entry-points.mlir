// RUN: mlprog-opt %s --split-input-file --mlprog-annotate-entry-points | FileCheck %s

// A public function records its tensor signature; its tensor arguments
// become read-only, other arguments are left alone.
// CHECK-LABEL: func.func @entry
// CHECK-SAME: (%{{.*}}: tensor<2x3xf32> {bufferization.writable = false}, %{{.*}}: index, %{{.*}}: tensor<?xi8> {bufferization.writable = false}) -> tensor<2x3xf32>
// CHECK-SAME: attributes {mlprog.signature = (tensor<2x3xf32>, index, tensor<?xi8>) -> tensor<2x3xf32>}
func.func @entry(%a: tensor<2x3xf32>, %i: index, %b: tensor<?xi8>) -> tensor<2x3xf32> {
  return %a : tensor<2x3xf32>
}

// -----

// Values the model declared unsigned are spelled uiN in the signature (a
// tensor and a scalar, an argument and a result); the markers go away.
// CHECK-LABEL: func.func @unsigned
// CHECK-SAME: (%{{.*}}: tensor<4xi8> {bufferization.writable = false}, %{{.*}}: i16, %{{.*}}: tensor<4xi8> {bufferization.writable = false}) -> (tensor<4xi8>, i32)
// CHECK-SAME: attributes {mlprog.signature = (tensor<4xui8>, ui16, tensor<4xi8>) -> (tensor<4xui8>, i32)}
// CHECK-NOT: ml_program.unsigned
func.func @unsigned(%a: tensor<4xi8> {ml_program.unsigned}, %s: i16 {ml_program.unsigned}, %b: tensor<4xi8>)
    -> (tensor<4xi8> {ml_program.unsigned}, i32) {
  %c = arith.constant 0 : i32
  return %a, %c : tensor<4xi8>, i32
}

// -----

// A signature and a writable attribute already present are kept.
// CHECK-LABEL: func.func @annotated
// CHECK-SAME: (%{{.*}}: tensor<4xf32> {bufferization.writable = true}) -> tensor<4xf32>
// CHECK-SAME: attributes {mlprog.signature = (tensor<8xf32>) -> tensor<8xf32>}
func.func @annotated(%a: tensor<4xf32> {bufferization.writable = true}) -> tensor<4xf32>
    attributes {mlprog.signature = (tensor<8xf32>) -> tensor<8xf32>} {
  return %a : tensor<4xf32>
}

// -----

// Private functions and declarations are not entry points.
// CHECK-LABEL: func.func private @helper
// CHECK-SAME: (%{{.*}}: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-LABEL: func.func private @external
// CHECK-SAME: (tensor<4xf32>) -> tensor<4xf32>{{$}}
// CHECK-NOT: mlprog.signature
// CHECK-NOT: bufferization.writable
func.func private @helper(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func private @external(tensor<4xf32>) -> tensor<4xf32>
