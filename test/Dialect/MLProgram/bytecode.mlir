// Round trip through MLIR bytecode.
// RUN: mlprog-opt %s -emit-bytecode | mlprog-opt | FileCheck %s

// CHECK: ml_program.global private @w(dense<[1, 2]> : tensor<2xi32>) : tensor<?xi32>
ml_program.global private @w(dense<[1, 2]> : tensor<2xi32>) : tensor<?xi32>
// CHECK: ml_program.global private @e(#{{.*}}) : tensor<2xi32>
ml_program.global private @e(#ml_program.extern : tensor<2xi32>) : tensor<2xi32>
// CHECK: ml_program.global public mutable @m : tensor<2xi32>
ml_program.global public mutable @m : tensor<2xi32>

// CHECK-LABEL: ml_program.subgraph @g
// CHECK: ml_program.global_load_graph @m ordering(() -> !ml_program.token) : tensor<2xi32>
// CHECK: ml_program.global_store_graph @m = %{{.*}} ordering(%{{.*}} -> !ml_program.token) : tensor<2xi32>
// CHECK: ml_program.call @f
ml_program.subgraph @g() -> tensor<2xi32> {
  %v, %t = ml_program.global_load_graph @m ordering(() -> !ml_program.token) : tensor<2xi32>
  %t2 = ml_program.global_store_graph @m = %v ordering(%t -> !ml_program.token) : tensor<2xi32>
  %r = ml_program.call @f() : () -> tensor<2xi32>
  ml_program.output %r : tensor<2xi32>
}
ml_program.subgraph private @f() -> tensor<2xi32> {
  %c = ml_program.global_load_const @e : tensor<2xi32>
  ml_program.output %c : tensor<2xi32>
}
