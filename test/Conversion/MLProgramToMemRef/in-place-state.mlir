// RUN: mlprog-opt %s --convert-ml-program-to-memref --split-input-file | FileCheck %s
// RUN: mlprog-opt %s --split-input-file --mlprog-lower-to-cpu --mlir-print-ir-after=one-shot-bufferize -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUF

// A decode step (docs/state.md): the cache global is loaded, one row is
// inserted at a run-time position and the result stored back, then the cache
// is read. The load feeding the insert is the global's buffer itself,
// writable, so bufferization writes the row in place; the read after the
// last store is the buffer too. No copy of the cache is taken.

ml_program.global private mutable @cache(dense<0.0> : tensor<1x64x8xf32>) : tensor<1x64x8xf32>
ml_program.global private mutable @pos(dense<0> : tensor<i64>) : tensor<i64>

// CHECK-LABEL: func.func @step
// CHECK: %[[G:.*]] = memref.get_global @cache : memref<1x64x8xf32>
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[G]] restrict writable : memref<1x64x8xf32> to tensor<1x64x8xf32>
// CHECK-NOT: alloc_tensor
// CHECK: %[[NEW:.*]] = tensor.insert_slice %{{.*}} into %[[T]]
// CHECK: bufferization.materialize_in_destination %[[NEW]] in restrict writable
// CHECK: %[[G2:.*]] = memref.get_global @cache : memref<1x64x8xf32>
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[G2]] restrict : memref<1x64x8xf32> to tensor<1x64x8xf32>
// CHECK-NOT: alloc_tensor() copy(%[[R]])
// CHECK: linalg.reduce ins(%[[R]]

// After bufferization the step writes one row of the global and reads the
// global itself: no cache-sized buffer, no cache-sized copy.
// BUF-LABEL: func.func @step
// BUF-NOT: memref.alloc() {{.*}} : memref<1x64x8xf32>
// BUF: %[[G:.*]] = memref.get_global @cache : memref<1x64x8xf32>
// BUF: %[[ROW:.*]] = memref.subview %[[G]][0, %{{.*}}, 0] [1, 1, 8] [1, 1, 1]
// BUF: memref.copy %{{.*}}, %[[ROW]] : memref<1x8xf32> to memref<1x8xf32, strided<[512, 1], offset: ?>>
// BUF-NOT: memref.alloc() {{.*}} : memref<1x64x8xf32>
// BUF: linalg.reduce ins(%[[G]] : memref<1x64x8xf32>)
// BUF: return
ml_program.func @step(%k: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %pos = ml_program.global_load @pos : tensor<i64>
  %p = tensor.extract %pos[] : tensor<i64>
  %i = arith.index_cast %p : i64 to index
  %cache = ml_program.global_load @cache : tensor<1x64x8xf32>
  // The importers' bounds checks read the cache's extent, not its data.
  %c1 = arith.constant 1 : index
  %n = tensor.dim %cache, %c1 : tensor<1x64x8xf32>
  %last = arith.subi %n, %c1 : index
  %at = arith.minsi %i, %last : index
  %new = tensor.insert_slice %k into %cache[0, %at, 0] [1, 1, 8] [1, 1, 1] : tensor<1x8xf32> into tensor<1x64x8xf32>
  ml_program.global_store @cache = %new : tensor<1x64x8xf32>
  %one = arith.constant 1 : i64
  %p1 = arith.addi %p, %one : i64
  %t = tensor.from_elements %p1 : tensor<i64>
  ml_program.global_store @pos = %t : tensor<i64>
  %c = ml_program.global_load @cache : tensor<1x64x8xf32>
  %e = tensor.empty() : tensor<1x8xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8xf32>) -> tensor<1x8xf32>
  %r = linalg.reduce ins(%c : tensor<1x64x8xf32>) outs(%f : tensor<1x8xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    }
  ml_program.return %r : tensor<1x8xf32>
}

// -----

// Copies stay where an update in place would change a value read later: a
// load whose old value is read again after the store, and one followed by a
// second load of the global before the store.

ml_program.global private mutable @s(dense<0.0> : tensor<4xf32>) : tensor<4xf32>

// CHECK-LABEL: func.func @old_value_read_after_store
// CHECK: %[[T:.*]] = bufferization.to_tensor %{{.*}} restrict : memref<4xf32> to tensor<4xf32>
// CHECK: bufferization.alloc_tensor() copy(%[[T]])
ml_program.func @old_value_read_after_store(%x: tensor<1xf32>) -> tensor<4xf32> {
  %s = ml_program.global_load @s : tensor<4xf32>
  %new = tensor.insert_slice %x into %s[0] [1] [1] : tensor<1xf32> into tensor<4xf32>
  ml_program.global_store @s = %new : tensor<4xf32>
  ml_program.return %s : tensor<4xf32>
}

// CHECK-LABEL: func.func @load_between
// CHECK: %[[T:.*]] = bufferization.to_tensor %{{.*}} restrict : memref<4xf32> to tensor<4xf32>
// CHECK: bufferization.alloc_tensor() copy(%[[T]])
ml_program.func @load_between(%x: tensor<1xf32>) -> tensor<4xf32> {
  %s = ml_program.global_load @s : tensor<4xf32>
  %again = ml_program.global_load @s : tensor<4xf32>
  %new = tensor.insert_slice %x into %s[0] [1] [1] : tensor<1xf32> into tensor<4xf32>
  ml_program.global_store @s = %new : tensor<4xf32>
  ml_program.return %again : tensor<4xf32>
}
