// RUN: mlprog-opt %s --mlprog-topological-sort --split-input-file -verify-diagnostics | FileCheck %s

ml_program.global private mutable @state(dense<0.0> : tensor<4xf32>) : tensor<4xf32>

// Ops are ordered along data and token edges; graph accessors become plain
// ones and tokens vanish.
// CHECK-LABEL: ml_program.func @ordered(
// CHECK-SAME: %[[ARG:.*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %[[OLD:.*]] = ml_program.global_load @state : tensor<4xf32>
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[OLD]], %[[ARG]] : tensor<4xf32>
// CHECK-NEXT: ml_program.global_store @state = %[[SUM]] : tensor<4xf32>
// CHECK-NEXT: %[[NEW:.*]] = ml_program.global_load @state : tensor<4xf32>
// CHECK-NEXT: ml_program.return %[[NEW]] : tensor<4xf32>
// CHECK-NOT: ml_program.token
ml_program.subgraph @ordered(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %new, %t2 = ml_program.global_load_graph @state ordering(%t1 -> !ml_program.token) : tensor<4xf32>
  %t1 = ml_program.global_store_graph @state = %sum ordering(%t0 -> !ml_program.token) : tensor<4xf32>
  %sum = arith.addf %old, %arg0 : tensor<4xf32>
  %old, %t0 = ml_program.global_load_graph @state ordering(%start -> !ml_program.token) : tensor<4xf32>
  %start = ml_program.token
  ml_program.output %new : tensor<4xf32>
}

// Independent ops keep their relative order; declarations become funcs.
// CHECK-LABEL: ml_program.func @stable
// CHECK-NEXT: arith.constant 1
// CHECK-NEXT: arith.constant 2
ml_program.subgraph @stable() -> (i32, i32) {
  %a = arith.constant 1 : i32
  %b = arith.constant 2 : i32
  ml_program.output %a, %b : i32, i32
}
// CHECK-LABEL: ml_program.func private @declared(tensor<4xf32>)
ml_program.subgraph private @declared(tensor<4xf32>)

// -----

ml_program.subgraph @cycle(%arg0: i32) -> i32 {
  // expected-error @+1 {{is part of a cycle of data or token edges in subgraph @cycle}}
  %a = arith.addi %b, %arg0 : i32
  // expected-note @+1 {{also in or after the cycle: 'arith.addi'}}
  %b = arith.addi %a, %arg0 : i32
  ml_program.output %b : i32
}

// -----

// expected-error @+1 {{cannot be ordered into a func: tokens may not cross callables}}
ml_program.subgraph @token_result() -> !ml_program.token {
  %t = ml_program.token
  ml_program.output %t : !ml_program.token
}
