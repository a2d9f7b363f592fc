// RUN: mlprog-opt %s --mlprog-pipeline-globals --split-input-file | FileCheck %s

ml_program.global private mutable @g(dense<0.0> : tensor<4xf32>) : tensor<4xf32>
ml_program.global private mutable @h(dense<0.0> : tensor<4xf32>) : tensor<4xf32>

// Touches only @h (directly and through a nested call).
ml_program.func private @writes_h(%a: tensor<4xf32>) {
  ml_program.call @writes_h_inner(%a) : (tensor<4xf32>) -> ()
  ml_program.return
}
ml_program.func private @writes_h_inner(%a: tensor<4xf32>) {
  ml_program.global_store @h = %a : tensor<4xf32>
  ml_program.return
}
ml_program.func private @reads_g() -> tensor<4xf32> {
  %0 = ml_program.global_load @g : tensor<4xf32>
  ml_program.return %0 : tensor<4xf32>
}
ml_program.func private @declared()

// A call that touches only @h neither blocks forwarding @g nor keeps the
// first store to @g alive.
// CHECK-LABEL: ml_program.func @across_call
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NEXT: ml_program.call @writes_h(%[[A]])
// CHECK-NEXT: ml_program.global_store @g = %[[B]]
// CHECK-NEXT: ml_program.call @writes_h(%[[A]])
// CHECK-NEXT: ml_program.return %[[B]]
ml_program.func @across_call(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  ml_program.global_store @g = %a : tensor<4xf32>
  ml_program.call @writes_h(%a) : (tensor<4xf32>) -> ()
  ml_program.global_store @g = %b : tensor<4xf32>
  ml_program.call @writes_h(%a) : (tensor<4xf32>) -> ()
  %0 = ml_program.global_load @g : tensor<4xf32>
  ml_program.return %0 : tensor<4xf32>
}

// A callee that reads @g keeps the store before it; one that writes @h
// stops forwarding of @h.
// CHECK-LABEL: ml_program.func @callee_reads
// CHECK-NEXT: ml_program.global_store @g
// CHECK-NEXT: ml_program.global_store @h
// CHECK-NEXT: ml_program.call @reads_g()
// CHECK-NEXT: ml_program.call @writes_h(
// CHECK-NEXT: ml_program.global_store @g
// CHECK-NEXT: %[[H:.*]] = ml_program.global_load @h
// CHECK-NEXT: ml_program.return %[[H]]
ml_program.func @callee_reads(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  ml_program.global_store @g = %a : tensor<4xf32>
  ml_program.global_store @h = %a : tensor<4xf32>
  %r = ml_program.call @reads_g() : () -> tensor<4xf32>
  ml_program.call @writes_h(%b) : (tensor<4xf32>) -> ()
  ml_program.global_store @g = %b : tensor<4xf32>
  %0 = ml_program.global_load @h : tensor<4xf32>
  ml_program.return %0 : tensor<4xf32>
}

// A call to a declaration may do anything (upstream crashes on callees it
// cannot resolve).
// CHECK-LABEL: ml_program.func @unknown_callee
// CHECK-NEXT: ml_program.global_store @g
// CHECK-NEXT: ml_program.call @declared()
// CHECK-NEXT: ml_program.global_store @g = %[[B:.*]] :
// CHECK-NEXT: ml_program.call @declared()
// CHECK-NEXT: %[[G2:.*]] = ml_program.global_load @g
// CHECK-NEXT: ml_program.return %[[B]], %[[G2]]
ml_program.func @unknown_callee(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ml_program.global_store @g = %a : tensor<4xf32>
  ml_program.call @declared() : () -> ()
  ml_program.global_store @g = %b : tensor<4xf32>
  %0 = ml_program.global_load @g : tensor<4xf32>
  ml_program.call @declared() : () -> ()
  %1 = ml_program.global_load @g : tensor<4xf32>
  ml_program.return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Recursion reaches a fixed point; a callee that calls an unknown function
// is unknown itself.
ml_program.global private mutable @g(dense<0.0> : tensor<4xf32>) : tensor<4xf32>
ml_program.func private @ext()
ml_program.func private @rec(%a: tensor<4xf32>) {
  ml_program.call @rec(%a) : (tensor<4xf32>) -> ()
  ml_program.return
}
ml_program.func private @calls_ext() {
  ml_program.call @ext() : () -> ()
  ml_program.return
}

// CHECK-LABEL: ml_program.func @fixed_point
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>)
// CHECK-NEXT: ml_program.global_store @g = %[[A]]
// CHECK-NEXT: ml_program.call @rec
// CHECK-NEXT: ml_program.call @calls_ext
// CHECK-NEXT: %[[G:.*]] = ml_program.global_load @g
// CHECK-NEXT: ml_program.return %[[A]], %[[G]]
ml_program.func @fixed_point(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ml_program.global_store @g = %a : tensor<4xf32>
  ml_program.call @rec(%a) : (tensor<4xf32>) -> ()
  %0 = ml_program.global_load @g : tensor<4xf32>
  ml_program.call @calls_ext() : () -> ()
  %1 = ml_program.global_load @g : tensor<4xf32>
  ml_program.return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Indirect calls (func.call_indirect) may do anything.
ml_program.global private mutable @g(dense<0.0> : tensor<4xf32>) : tensor<4xf32>
// CHECK-LABEL: ml_program.func @indirect
// CHECK: ml_program.global_store @g
// CHECK: func.call_indirect
// CHECK: ml_program.global_load @g
ml_program.func @indirect(%f: () -> (), %a: tensor<4xf32>) -> tensor<4xf32> {
  ml_program.global_store @g = %a : tensor<4xf32>
  func.call_indirect %f() : () -> ()
  %0 = ml_program.global_load @g : tensor<4xf32>
  ml_program.return %0 : tensor<4xf32>
}

// -----

// func.func callables work too (upstream's spelling of the pass's tests).
ml_program.global private mutable @g(dense<4> : tensor<4xi32>) : tensor<4xi32>
func.func private @touches_nothing() {
  return
}
// CHECK-LABEL: func.func @func_func
// CHECK-SAME: (%[[A:.*]]: tensor<4xi32>)
// CHECK-NEXT: ml_program.global_store @g = %[[A]]
// CHECK-NEXT: call @touches_nothing
// CHECK-NEXT: return %[[A]]
func.func @func_func(%a: tensor<4xi32>) -> tensor<4xi32> {
  ml_program.global_store @g = %a : tensor<4xi32>
  call @touches_nothing() : () -> ()
  %0 = ml_program.global_load @g : tensor<4xi32>
  ml_program.global_store @g = %0 : tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Upstream's pass crashed on this (llvm-project #109649, fixed after 22.1 by
// #189244): a func.func without any global whose call does not resolve to a
// body. Here the module is left as it is.
// CHECK-LABEL: func.func @call_and_store_after
// CHECK-NEXT: memref.load
// CHECK-NEXT: call @callee(%{{.*}}, %{{.*}})
// CHECK-NEXT: memref.load
// CHECK-NEXT: return
func.func private @callee(memref<f32>, memref<f32>)
func.func @call_and_store_after(%arg1: memref<f32>) {
  %0 = memref.load %arg1[] : memref<f32>
  func.call @callee(%arg1, %arg1) : (memref<f32>, memref<f32>) -> ()
  %1 = memref.load %arg1[] : memref<f32>
  return
}
