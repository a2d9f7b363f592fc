// RUN: mlprog-opt %s --inline="default-pipeline=" | FileCheck %s

ml_program.func private @double(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %arg0, %arg0 : tensor<4xf32>
  ml_program.return %0 : tensor<4xf32>
}

// CHECK-LABEL: ml_program.func @func_into_func
// CHECK-NOT: ml_program.call
// CHECK: %[[A:.*]] = arith.addf %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK: ml_program.return %[[A]]
ml_program.func @func_into_func(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ml_program.call @double(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  ml_program.return %0 : tensor<4xf32>
}

ml_program.func private @select(%c: i1, %a: i32, %b: i32) -> i32 {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  ml_program.return %a : i32
^bb2:
  ml_program.return %b : i32
}

// A multi-block callee returns by branching to the continuation block.
// CHECK-LABEL: ml_program.func @multi_block
// CHECK-NOT: ml_program.call
// CHECK: cf.cond_br
// CHECK: cf.br ^[[CONT:.*]](%
// CHECK: ^[[CONT]](%[[V:.*]]: i32):
// CHECK: ml_program.return %[[V]]
ml_program.func @multi_block(%c: i1, %a: i32, %b: i32) -> i32 {
  %0 = ml_program.call @select(%c, %a, %b) : (i1, i32, i32) -> i32
  ml_program.return %0 : i32
}

ml_program.subgraph private @graph_double(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %arg0, %arg0 : tensor<4xf32>
  ml_program.output %0 : tensor<4xf32>
}

// CHECK-LABEL: ml_program.subgraph @graph_into_graph
// CHECK-NOT: ml_program.call
// CHECK: arith.addf
ml_program.subgraph @graph_into_graph(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ml_program.call @graph_double(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  ml_program.output %0 : tensor<4xf32>
}

// A subgraph body is not inlined into a func (or the other way round).
// CHECK-LABEL: ml_program.func @graph_into_func
// CHECK: ml_program.call @graph_double
ml_program.func @graph_into_func(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ml_program.call @graph_double(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  ml_program.return %0 : tensor<4xf32>
}
