// RUN: mlprog-opt %s -canonicalize="test-convergence" -split-input-file | FileCheck %s

ml_program.global private @small(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
ml_program.global private @splat(dense<0.0> : tensor<1024xf32>) : tensor<1024xf32>
ml_program.global private @large(dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]> : tensor<17xi32>) : tensor<17xi32>
ml_program.global private @external(#ml_program.extern : tensor<2xf32>) : tensor<2xf32>
ml_program.global private @less_static(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<?xf32>

// CHECK-LABEL: ml_program.func @fold_small_and_splat
// CHECK-DAG: %[[SMALL:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[SPLAT:.*]] = arith.constant dense<0.000000e+00> : tensor<1024xf32>
// CHECK: ml_program.return %[[SMALL]], %[[SPLAT]]
ml_program.func @fold_small_and_splat() -> (tensor<2xf32>, tensor<1024xf32>) {
  %0 = ml_program.global_load_const @small : tensor<2xf32>
  %1 = ml_program.global_load_const @splat : tensor<1024xf32>
  ml_program.return %0, %1 : tensor<2xf32>, tensor<1024xf32>
}

// Large, external and less static values stay in memory.
// CHECK-LABEL: ml_program.func @keep
// CHECK: ml_program.global_load_const @large
// CHECK: ml_program.global_load_const @external
// CHECK: ml_program.global_load_const @less_static
ml_program.func @keep() -> (tensor<17xi32>, tensor<2xf32>, tensor<?xf32>) {
  %0 = ml_program.global_load_const @large : tensor<17xi32>
  %1 = ml_program.global_load_const @external : tensor<2xf32>
  %2 = ml_program.global_load_const @less_static : tensor<?xf32>
  ml_program.return %0, %1, %2 : tensor<17xi32>, tensor<2xf32>, tensor<?xf32>
}

// -----

// Upstream declares global_store_graph as a read, so canonicalization deletes
// it; ours is a write and stays.
ml_program.global private mutable @state : tensor<4xf32>
// CHECK-LABEL: ml_program.subgraph @store_graph_survives
// CHECK: ml_program.global_store_graph @state
ml_program.subgraph @store_graph_survives(%arg0: tensor<4xf32>) {
  %t = ml_program.global_store_graph @state = %arg0 ordering(() -> !ml_program.token) : tensor<4xf32>
  ml_program.output
}

// -----

// Loads and stores of mutable globals (RFC v2: not atomic, not volatile).
ml_program.global private mutable @g(dense<0.0> : tensor<4xf32>) : tensor<4xf32>
ml_program.global private mutable @h(dense<0.0> : tensor<4xf32>) : tensor<4xf32>
ml_program.global private mutable @dyn(dense<0.0> : tensor<4xf32>) : tensor<?xf32>
ml_program.func private @opaque() -> ()

// CHECK-LABEL: ml_program.func @forward_store_to_load
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NEXT: ml_program.global_store @g = %[[A]]
// CHECK-NEXT: ml_program.global_store @h = %[[B]]
// CHECK-NEXT: ml_program.return %[[A]], %[[B]]
ml_program.func @forward_store_to_load(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  ml_program.global_store @g = %a : tensor<4xf32>
  // A store to another global does not intervene.
  ml_program.global_store @h = %b : tensor<4xf32>
  %0 = ml_program.global_load @g : tensor<4xf32>
  %1 = ml_program.global_load @h : tensor<4xf32>
  ml_program.return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// CHECK-LABEL: ml_program.func @reuse_earlier_load
// CHECK-NEXT: %[[G:.*]] = ml_program.global_load @g
// CHECK-NEXT: ml_program.return %[[G]], %[[G]]
ml_program.func @reuse_earlier_load() -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = ml_program.global_load @g : tensor<4xf32>
  %1 = ml_program.global_load @g : tensor<4xf32>
  ml_program.return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// A call may write any global: no forwarding across it, and the store
// before it may be read by it.
// CHECK-LABEL: ml_program.func @call_blocks
// CHECK-NEXT: ml_program.global_store @g
// CHECK-NEXT: ml_program.call @opaque
// CHECK-NEXT: %[[G:.*]] = ml_program.global_load @g
// CHECK-NEXT: ml_program.global_store @g
// CHECK-NEXT: ml_program.return %[[G]]
ml_program.func @call_blocks(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  ml_program.global_store @g = %a : tensor<4xf32>
  ml_program.call @opaque() : () -> ()
  %0 = ml_program.global_load @g : tensor<4xf32>
  ml_program.global_store @g = %b : tensor<4xf32>
  ml_program.return %0 : tensor<4xf32>
}

// CHECK-LABEL: ml_program.func @dead_store
// CHECK-SAME: (%[[A:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>)
// CHECK-NEXT: ml_program.global_store @h = %[[A]]
// CHECK-NEXT: ml_program.global_store @g = %[[B]]
// CHECK-NEXT: ml_program.return
ml_program.func @dead_store(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  ml_program.global_store @g = %a : tensor<4xf32>
  ml_program.global_store @h = %a : tensor<4xf32>
  ml_program.global_store @g = %b : tensor<4xf32>
  ml_program.return
}

// Storing what was just loaded changes nothing.
// CHECK-LABEL: ml_program.func @store_of_load
// CHECK-NEXT: ml_program.return
ml_program.func @store_of_load() {
  %0 = ml_program.global_load @g : tensor<4xf32>
  ml_program.global_store @g = %0 : tensor<4xf32>
  ml_program.return
}

// A region op that reads the global keeps the store before it; one that may
// write it stops forwarding.
// CHECK-LABEL: ml_program.func @regions
// CHECK: ml_program.global_store @g = %{{.*}}
// CHECK: scf.if
// CHECK: ml_program.global_load @g
// CHECK: ml_program.global_store @g
// CHECK: scf.if
// CHECK: ml_program.global_store @g
// CHECK: %[[L:.*]] = ml_program.global_load @g
// CHECK: ml_program.return %[[L]]
ml_program.func @regions(%c: i1, %a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  ml_program.global_store @g = %a : tensor<4xf32>
  scf.if %c {
    %0 = ml_program.global_load @g : tensor<4xf32>
    ml_program.global_store @h = %0 : tensor<4xf32>
  }
  ml_program.global_store @g = %b : tensor<4xf32>
  scf.if %c {
    ml_program.global_store @g = %a : tensor<4xf32>
  }
  %1 = ml_program.global_load @g : tensor<4xf32>
  ml_program.return %1 : tensor<4xf32>
}

// A stored value of a more static type than the bounding type is not
// forwarded (the load has the bounding type).
// CHECK-LABEL: ml_program.func @type_mismatch
// CHECK: ml_program.global_store @dyn
// CHECK: ml_program.global_load @dyn
ml_program.func @type_mismatch(%a: tensor<4xf32>) -> tensor<?xf32> {
  ml_program.global_store @dyn = %a : tensor<4xf32>
  %0 = ml_program.global_load @dyn : tensor<?xf32>
  ml_program.return %0 : tensor<?xf32>
}
