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
