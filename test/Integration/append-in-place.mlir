// A cache that every call appends one row to, as an ONNX decoder imported
// with --state does (`present = Concat(past, new)` stored back into the
// global past; docs/state.md, "What a step costs"): the store appends in
// place. The buffer's capacity doubles when the new length exceeds it
// (1, 2, 4, 8 rows here), the rows are written after the old ones, and the
// concatenation's users read the buffer. Six calls move the cache four
// times and append in place twice (calls 4 and 6); row i holds i (a
// counter global).
// RUN: mlprog-run %s --entry step --repeat 6 --print | FileCheck %s
// RUN: mlprog-run %s --entry step_concat --repeat 5 --print | FileCheck %s --check-prefix=CONCAT
// RUN: mlprog-opt %s --convert-ml-program-to-memref | FileCheck %s --check-prefix=IR

// CHECK: output 0: shape (1,2,6,3) dtype float32
// CHECK-NEXT: {{\[\[\[\[}}1, 1, 1],
// CHECK-NEXT: [2, 2, 2],
// CHECK-NEXT: [3, 3, 3],
// CHECK-NEXT: [4, 4, 4],
// CHECK-NEXT: [5, 5, 5],
// CHECK-NEXT: [6, 6, 6]],
// CHECK: [6, 6, 6]]]]
// CHECK: output 1: shape () dtype float32
// CHECK-NEXT: 21

// IR-LABEL: memref.global "private" @cache__value : memref<memref<1x2x?x3xf32, strided<[?, ?, 3, 1]>>>
// IR: memref.global "private" @cache__capacity : memref<i64> = dense<0>
// IR-LABEL: func.func @step(
// IR: %[[LEN:.*]] = memref.dim %[[OLD:.*]], %{{.*}} : memref<1x2x?x3xf32, strided<[?, ?, 3, 1]>>
// IR: %[[FITS:.*]] = arith.andi
// IR: %[[BUF:.*]] = scf.if %[[FITS]] -> (memref<1x2x?x3xf32, strided<[?, ?, 3, 1]>>) {
// IR: memref.reinterpret_cast %[[OLD]]
// IR: } else {
// IR: memref.alloc(%{{.*}}) {bufferization.manual_deallocation} : memref<1x2x?x3xf32>
// IR: memref.copy %[[OLD]]
// IR: }
// IR: %[[ROWS:.*]] = memref.subview %[[BUF]][0, 0, %[[LEN]], 0]
// IR: bufferization.materialize_in_destination %{{.*}} in restrict writable %[[ROWS]]
// IR: %[[VALUE:.*]] = bufferization.to_tensor %[[BUF]] restrict
// IR-NOT: tensor.insert_slice
// IR: linalg.reduce ins(%[[VALUE]]
// IR: memref.dealloc %[[OLD]]
// IR: memref.store %[[BUF]]

ml_program.global private mutable @cache(dense<> : tensor<1x2x0x3xf32>) : tensor<1x2x?x3xf32>
ml_program.global private mutable @count(dense<0.0> : tensor<f32>) : tensor<f32>

ml_program.func @step() -> (tensor<1x2x?x3xf32>, tensor<f32>) {
  %c = ml_program.global_load @count : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %e0 = tensor.empty() : tensor<f32>
  %next = linalg.add ins(%c, %one : tensor<f32>, tensor<f32>) outs(%e0 : tensor<f32>) -> tensor<f32>
  ml_program.global_store @count = %next : tensor<f32>
  %e1 = tensor.empty() : tensor<1x2x1x3xf32>
  %row = linalg.broadcast ins(%next : tensor<f32>) outs(%e1 : tensor<1x2x1x3xf32>) dimensions = [0, 1, 2, 3]
  %past = ml_program.global_load @cache : tensor<1x2x?x3xf32>
  %c2 = arith.constant 2 : index
  %len = tensor.dim %past, %c2 : tensor<1x2x?x3xf32>
  %c1 = arith.constant 1 : index
  %total = arith.addi %len, %c1 : index
  %e = tensor.empty(%total) : tensor<1x2x?x3xf32>
  %a = tensor.insert_slice %past into %e[0, 0, 0, 0] [1, 2, %len, 3] [1, 1, 1, 1] : tensor<1x2x?x3xf32> into tensor<1x2x?x3xf32>
  %b = tensor.insert_slice %row into %a[0, 0, %len, 0] [1, 2, 1, 3] [1, 1, 1, 1] : tensor<1x2x1x3xf32> into tensor<1x2x?x3xf32>
  %z = arith.constant 0.0 : f32
  %ez = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%ez : tensor<f32>) -> tensor<f32>
  %sum = linalg.reduce ins(%b : tensor<1x2x?x3xf32>) outs(%f : tensor<f32>) dimensions = [0, 1, 2, 3]
    (%in: f32, %out: f32) {
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    }
  %c6 = arith.constant dense<6.0> : tensor<f32>
  %e2 = tensor.empty() : tensor<f32>
  %mean = linalg.div ins(%sum, %c6 : tensor<f32>, tensor<f32>) outs(%e2 : tensor<f32>) -> tensor<f32>
  ml_program.global_store @cache = %b : tensor<1x2x?x3xf32>
  ml_program.return %b, %mean : tensor<1x2x?x3xf32>, tensor<f32>
}

// The same through tensor.concat, on a history with an initial value.
// CONCAT: output 0: shape (7,) dtype float32
// CONCAT-NEXT: [1, 2, 7, 7, 7, 7, 7]
ml_program.global private mutable @history(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<?xf32>

ml_program.func @step_concat() -> tensor<?xf32> {
  %h = ml_program.global_load @history : tensor<?xf32>
  %x = arith.constant dense<7.0> : tensor<1xf32>
  %xc = tensor.cast %x : tensor<1xf32> to tensor<?xf32>
  %new = tensor.concat dim(0) %h, %xc : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  ml_program.global_store @history = %new : tensor<?xf32>
  ml_program.return %new : tensor<?xf32>
}
