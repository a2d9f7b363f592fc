// Constructs that upstream MLIR 22's MLProgram documentation and tests use,
// in upstream's spelling: they parse, verify and round-trip here (custom and
// generic form), and fold/inline as upstream's do.
// RUN: mlprog-opt %s --allow-unregistered-dialect | mlprog-opt --allow-unregistered-dialect | FileCheck %s
// RUN: mlprog-opt %s --allow-unregistered-dialect --mlir-print-op-generic | mlprog-opt --allow-unregistered-dialect | FileCheck %s
// RUN: mlprog-opt %s --allow-unregistered-dialect --inline | FileCheck %s --check-prefix=INLINE

// An extern attribute of scalar type, outside any global.
// CHECK: #[[EXT:.*]] = #ml_program.extern : i32
// CHECK: "test.attributes"() {value = #[[EXT]]}
"test.attributes"() {value = #ml_program.extern : i32} : () -> ()

// Graph regions allow uses before definitions (no dominance).
// CHECK-LABEL: ml_program.subgraph @forward_use
// CHECK: %[[T:.*]] = ml_program.token
// CHECK: "unregistered.dummy"(%[[V:.*]], %[[T]])
// CHECK: %[[V]] = "unregistered.dummy"
ml_program.subgraph @forward_use(%arg0 : i32) -> i32 {
  %token = ml_program.token
  %1 = "unregistered.dummy"(%0, %token) : (i32, !ml_program.token) -> i32
  %0 = "unregistered.dummy"(%arg0) : (i32) -> i32
  ml_program.output %0 : i32
}

// A mutable extern global whose value is more static than its bounding type.
// CHECK: ml_program.global private mutable @state(#{{.*}}) : tensor<?xi32>
ml_program.global private mutable @state(#ml_program.extern : tensor<4xi32>) : tensor<?xi32>
// CHECK: ml_program.global private @weights(dense<4> : tensor<4xi32>) : tensor<4xi32>
ml_program.global private @weights(dense<4> : tensor<4xi32>) : tensor<4xi32>
// CHECK: ml_program.global private mutable @scalar(0 : i64) : i64
ml_program.global private mutable @scalar(0 : i64) : i64

// Accessors in func.func bodies, as upstream's bufferization and
// pipeline-globals tests write them.
// CHECK-LABEL: func.func @in_func_func
// CHECK: ml_program.global_load @state : tensor<?xi32>
// CHECK: ml_program.global_store @state = %{{.*}} : tensor<?xi32>
func.func @in_func_func() -> tensor<?xi32> {
  %0 = ml_program.global_load @state : tensor<?xi32>
  ml_program.global_store @state = %0 : tensor<?xi32>
  return %0 : tensor<?xi32>
}

// INLINE-LABEL: func.func @inline_into
// INLINE-NOT: call @inline_from
// INLINE: return
func.func @inline_into() -> tensor<4xi32> {
  %0 = call @inline_from() : () -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
func.func @inline_from() -> tensor<4xi32> {
  %0 = ml_program.global_load_const @weights : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// Token-ordered graph accessors with and without consumed tokens.
// CHECK-LABEL: ml_program.subgraph @tokens
// CHECK: ml_program.global_load_graph @state ordering(() -> !ml_program.token) : tensor<?xi32>
// CHECK: ml_program.global_store_graph @state = %{{.*}} ordering(%{{.*}}, %{{.*}} -> !ml_program.token) : tensor<?xi32>
ml_program.subgraph @tokens() -> (tensor<?xi32>, !ml_program.token) {
  %token1 = ml_program.token
  %0, %token2 = ml_program.global_load_graph @state
      ordering(() -> !ml_program.token) : tensor<?xi32>
  %token3 = ml_program.global_store_graph @state = %0
      ordering(%token1, %token2 -> !ml_program.token) : tensor<?xi32>
  ml_program.output %0, %token3 : tensor<?xi32>, !ml_program.token
}
