// MLIR after 22.1 fixed `ml_program.global_store` bufferization
// (llvm-project #177387): upstream's BufferizableOpInterface said the store
// does not read its operand, so one-shot bufferization stored an
// uninitialized buffer into the global instead of the value. Its reproducer
// inserts into the loaded value in place and stores that. Here the lowering
// goes through --mlprog-convert-ml-program-to-memref, not upstream's
// interface; this test shows the stored value is the computed one: after
// three calls element [0, 0] is 3 and the rest stay 0, in the returned value
// and in the global the next call reads.
// RUN: mlprog-run %s --repeat 3 --print | FileCheck %s
// RUN: mlprog-run %s --entry=main_tensor_store --repeat 3 --print | FileCheck %s --check-prefix=STORE
// RUN: mlprog-run %s -O0 --repeat 3 --print | FileCheck %s

// CHECK: output 0: shape (4,75) dtype float32
// CHECK-NEXT: {{\[\[}}3, 0, 0,
// CHECK-NOT: 3
// CHECK-NOT: nan

ml_program.global private mutable @state_tensor(dense<0.0> : tensor<4x75xf32>) : tensor<4x75xf32>
ml_program.func @main() -> tensor<4x75xf32> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %state = ml_program.global_load @state_tensor : tensor<4x75xf32>
  %v = tensor.extract %state[%c0, %c0] : tensor<4x75xf32>
  %next = arith.addf %v, %one : f32
  %updated = tensor.insert %next into %state[%c0, %c0] : tensor<4x75xf32>
  ml_program.global_store @state_tensor = %updated : tensor<4x75xf32>
  ml_program.return %updated : tensor<4x75xf32>
}

// The same with the result read back from the global after the store.
// STORE: output 0: shape (4,75) dtype float32
// STORE-NEXT: {{\[\[}}3, 0, 0,
ml_program.global private mutable @other(dense<0.0> : tensor<4x75xf32>) : tensor<4x75xf32>
ml_program.func @main_tensor_store() -> tensor<4x75xf32> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %state = ml_program.global_load @other : tensor<4x75xf32>
  %v = tensor.extract %state[%c0, %c0] : tensor<4x75xf32>
  %next = arith.addf %v, %one : f32
  %updated = tensor.insert %next into %state[%c0, %c0] : tensor<4x75xf32>
  ml_program.global_store @other = %updated : tensor<4x75xf32>
  %r = ml_program.global_load @other : tensor<4x75xf32>
  ml_program.return %r : tensor<4x75xf32>
}
