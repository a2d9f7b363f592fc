// RUN: mlprog-opt %s | FileCheck %s
// Round trip through the custom form, then through the generic form.
// RUN: mlprog-opt %s | mlprog-opt | FileCheck %s
// RUN: mlprog-opt %s --mlir-print-op-generic | mlprog-opt | FileCheck %s

// CHECK: ml_program.global private @global_same_type(dense<4> : tensor<4xi32>) : tensor<4xi32>
ml_program.global private @global_same_type(dense<4> : tensor<4xi32>) : tensor<4xi32>

// The bounding type may be less static than the initial value.
// CHECK: ml_program.global private mutable @global_mutable_undef : tensor<?xi32>
ml_program.global private mutable @global_mutable_undef : tensor<?xi32>

// CHECK: ml_program.global private @global_extern(#{{.*}}) : tensor<?xi32>
ml_program.global private @global_extern(#ml_program.extern : tensor<4xi32>) : tensor<?xi32>

// CHECK: ml_program.global public mutable @global_public(dense<1.000000e+00> : tensor<2xf32>) : tensor<2xf32>
ml_program.global public mutable @global_public(dense<1.0> : tensor<2xf32>) : tensor<2xf32>

// Default visibility prints as public.
// CHECK: ml_program.global public @global_default(dense<2> : tensor<i64>) : tensor<i64>
ml_program.global @global_default(dense<2> : tensor<i64>) : tensor<i64>

// CHECK-LABEL: ml_program.func @ssa_accessors
ml_program.func @ssa_accessors() -> tensor<?xi32> {
  // CHECK: %[[C:.*]] = ml_program.global_load_const @global_same_type : tensor<4xi32>
  %0 = ml_program.global_load_const @global_same_type : tensor<4xi32>
  // CHECK: %[[M:.*]] = ml_program.global_load @global_mutable_undef : tensor<?xi32>
  %1 = ml_program.global_load @global_mutable_undef : tensor<?xi32>
  // CHECK: ml_program.global_store @global_mutable_undef = %[[M]] : tensor<?xi32>
  ml_program.global_store @global_mutable_undef = %1 : tensor<?xi32>
  // A stored value only needs to be compatible with the bounding type.
  // CHECK: ml_program.global_store @global_mutable_undef = %[[C]] : tensor<4xi32>
  ml_program.global_store @global_mutable_undef = %0 : tensor<4xi32>
  // CHECK: ml_program.return %[[M]] : tensor<?xi32>
  ml_program.return %1 : tensor<?xi32>
}

// CHECK-LABEL: ml_program.subgraph @graph_accessors
ml_program.subgraph @graph_accessors() -> tensor<?xi32> {
  // Graph regions allow uses before definitions.
  // CHECK: ml_program.global_store_graph @global_mutable_undef = %[[V:.*]] ordering(%[[T0:.*]], %[[T1:.*]] -> !ml_program.token) : tensor<?xi32>
  %t2 = ml_program.global_store_graph @global_mutable_undef = %1 ordering(%token, %t1 -> !ml_program.token) : tensor<?xi32>
  // CHECK: %[[T0]] = ml_program.token
  %token = ml_program.token
  // CHECK: %[[V]], %[[T1]] = ml_program.global_load_graph @global_mutable_undef ordering(() -> !ml_program.token) : tensor<?xi32>
  %1, %t1 = ml_program.global_load_graph @global_mutable_undef ordering(() -> !ml_program.token) : tensor<?xi32>
  // An omitted ordering clause means no consumed tokens (upstream crashes).
  // CHECK: ml_program.global_load_graph @global_mutable_undef ordering(() -> !ml_program.token) : tensor<?xi32>
  %2, %t3 = ml_program.global_load_graph @global_mutable_undef : tensor<?xi32>
  // CHECK: ml_program.output %[[V]] : tensor<?xi32>
  ml_program.output %1 : tensor<?xi32>
}

// CHECK-LABEL: ml_program.func private @declaration(tensor<4xf32>) -> tensor<4xf32>
ml_program.func private @declaration(tensor<4xf32>) -> tensor<4xf32>

// CHECK-LABEL: ml_program.func @attributes
// CHECK-SAME: (%{{.*}}: tensor<4xf32> {onnx.name = "x"}) -> (tensor<4xf32> {onnx.name = "y"})
// CHECK-SAME: attributes {llvm.emit_c_interface}
ml_program.func @attributes(%arg0: tensor<4xf32> {onnx.name = "x"}) -> (tensor<4xf32> {onnx.name = "y"}) attributes {llvm.emit_c_interface} {
  ml_program.return %arg0 : tensor<4xf32>
}

// CHECK-LABEL: ml_program.func @multiple_blocks
ml_program.func @multiple_blocks(%arg0: i1, %arg1: i32) -> i32 {
  // CHECK: cf.cond_br
  cf.cond_br %arg0, ^bb1, ^bb2
^bb1:
  ml_program.return %arg1 : i32
^bb2:
  %c = arith.constant 0 : i32
  ml_program.return %c : i32
}

// CHECK-LABEL: ml_program.subgraph @empty_outputs
// CHECK-NEXT: ml_program.output
ml_program.subgraph @empty_outputs() {
  ml_program.output
}

// CHECK-LABEL: ml_program.func @calls
ml_program.func @calls(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: %[[R:.*]] = ml_program.call @attributes(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
  %0 = ml_program.call @attributes(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: ml_program.call @empty_outputs() : () -> ()
  ml_program.call @empty_outputs() : () -> ()
  ml_program.return %0 : tensor<4xf32>
}

// CHECK-LABEL: ml_program.global private @stored_in_bundle
// CHECK-SAME: ml_program.external_storage = #ml_program.external_storage<file = "model.safetensors", key = "w">
ml_program.global private @stored_in_bundle(#ml_program.extern : tensor<4xf32>) : tensor<4xf32> {ml_program.external_storage = #ml_program.external_storage<file = "model.safetensors", key = "w">}

// CHECK-LABEL: ml_program.global private mutable @stored_in_blob
// CHECK-SAME: #ml_program.external_storage<file = "weight.bin", offset = 128, length = 8>
ml_program.global private mutable @stored_in_blob(#ml_program.extern : tensor<4xf16>) : tensor<?xf16> {ml_program.external_storage = #ml_program.external_storage<file = "weight.bin", offset = 128, length = 8>}

// Values the model declared unsigned carry ml_program.unsigned.
// CHECK-LABEL: ml_program.func @unsigned_boundary
// CHECK-SAME: (%{{.*}}: tensor<4xi8> {ml_program.unsigned}, %{{.*}}: i32 {ml_program.unsigned}) -> (tensor<4xi8> {ml_program.unsigned})
ml_program.func @unsigned_boundary(%x: tensor<4xi8> {ml_program.unsigned}, %n: i32 {ml_program.unsigned}) -> (tensor<4xi8> {ml_program.unsigned}) {
  ml_program.return %x : tensor<4xi8>
}
