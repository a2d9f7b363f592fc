// Our `ds` op inside mlprog's ml_program.func, on tensors and on mlprog's
// token type; printed and re-parsed by ds-opt.
// RUN: ds-opt %s | FileCheck %s
// RUN: ds-opt %s | ds-opt | FileCheck %s

// CHECK: ml_program.global private @w(dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>) : tensor<3xf32>
ml_program.global private @w(dense<[1.0, 2.0, 3.0]> : tensor<3xf32>) : tensor<3xf32>

// CHECK-LABEL: ml_program.func @main
ml_program.func @main() -> tensor<3xf32> {
  // CHECK: %[[W:.*]] = ml_program.global_load_const @w : tensor<3xf32>
  // CHECK: ds.annotate %[[W]] "weights" : tensor<3xf32>
  %0 = ml_program.global_load_const @w : tensor<3xf32>
  %1 = ds.annotate %0 "weights" : tensor<3xf32>
  ml_program.return %1 : tensor<3xf32>
}

// CHECK-LABEL: ml_program.subgraph @graph
ml_program.subgraph @graph(%t: !ml_program.token) -> !ml_program.token {
  // CHECK: ds.annotate %{{.*}} "order" : !ml_program.token
  %0 = ds.annotate %t "order" : !ml_program.token
  ml_program.output %0 : !ml_program.token
}
