// RUN: mlprog-opt %s --mlprog-lower-to-cpu | FileCheck %s

// Storing a tensor constant equal to a mutable global's initial value (a
// `reset` that zeroes a counter) copies from a constant global of its own.
// One-shot bufferization takes any memref.global with the same initial value
// and alignment for a constant's storage; were that the mutable @pos, the
// store would copy @pos onto itself and `reset` would do nothing.

// CHECK: llvm.mlir.global private constant @[[ZERO:__constant_[a-z0-9_]*]](0 : i64) {{.*}}alignment = 64
// CHECK: llvm.func @reset()
// CHECK-DAG: %[[POS:.*]] = llvm.mlir.addressof @pos
// CHECK-DAG: %[[SRC:.*]] = llvm.mlir.addressof @[[ZERO]]
// CHECK: "llvm.intr.memcpy"(%[[POS]], %[[SRC]],
// CHECK: llvm.func @step()
// CHECK: llvm.mlir.global private @pos(0 : i64) {{.*}}alignment = 128
ml_program.func @reset() {
  %zero = arith.constant dense<0> : tensor<i64>
  ml_program.global_store @pos = %zero : tensor<i64>
  ml_program.return
}

ml_program.func @step() -> tensor<i64> {
  %pos = ml_program.global_load @pos : tensor<i64>
  %one = arith.constant dense<1> : tensor<i64>
  %next = arith.addi %pos, %one : tensor<i64>
  ml_program.global_store @pos = %next : tensor<i64>
  ml_program.return %next : tensor<i64>
}

ml_program.global private mutable @pos(dense<0> : tensor<i64>) : tensor<i64>
