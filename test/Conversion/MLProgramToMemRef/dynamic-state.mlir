// RUN: mlprog-opt %s --convert-ml-program-to-memref --split-input-file | FileCheck %s
// RUN: mlprog-opt %s --split-input-file --mlprog-lower-to-cpu --mlir-print-ir-after=one-shot-bufferize -o /dev/null 2>&1 | FileCheck %s --check-prefix=BUF
// RUN: mlprog-opt %s --split-input-file --mlprog-lower-to-cpu --mlir-print-ir-after=ownership-based-buffer-deallocation -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEALLOC

// A decode step of a KV cache that grows (docs/state.md, "From ONNX"): the
// global has a dynamic extent, `present = concat(past, k)` (as the ONNX
// importer builds it: insert_slices into a tensor.empty) is stored back and
// read after the store. Each store allocates the new cache (one buffer of
// length + 1, freed at the next store); the concat is built in that buffer
// and copies the old cache once; the load reads the old buffer in place,
// since nothing that may alias it is used after the store frees it.

ml_program.global private mutable @cache(dense<> : tensor<1x0x8xf32>) : tensor<1x?x8xf32>

// CHECK-LABEL: func.func @step
// CHECK: %[[PAST:.*]] = bufferization.to_tensor %{{.*}} restrict : memref<1x?x8xf32> to tensor<1x?x8xf32>
// CHECK-NOT: alloc_tensor
// CHECK: %[[NEW:.*]] = memref.alloc(%{{.*}}) {bufferization.manual_deallocation} : memref<1x?x8xf32>
// CHECK: %[[DEST:.*]] = bufferization.to_tensor %[[NEW]] restrict writable
// CHECK: %[[ROWS:.*]] = tensor.insert_slice %[[PAST]] into %[[DEST]]
// CHECK: %[[PRESENT:.*]] = tensor.insert_slice %{{.*}} into %[[ROWS]]
// CHECK-NOT: memref.alloc
// CHECK: bufferization.materialize_in_destination %[[PRESENT]] in restrict writable %[[NEW]]
// CHECK: memref.store %[[NEW]], %{{.*}}[] : memref<memref<1x?x8xf32>>

// After bufferization: one new buffer, the old cache copied into it once
// (from the buffer the global holds), the row after it; the store's copy of
// the buffer onto itself is folded by the next canonicalization.
// BUF-LABEL: func.func @step
// BUF-NOT: memref.alloc
// BUF: %[[NEW:.*]] = memref.alloc(%{{.*}}) {bufferization.manual_deallocation} : memref<1x?x8xf32>
// BUF-NOT: memref.alloc
// BUF: memref.copy %{{.*}}, %{{.*}} : memref<1x?x8xf32> to memref<1x?x8xf32, strided<[?, 8, 1]>>
// BUF: memref.copy %{{.*}}, %{{.*}} : memref<1x8xf32> to memref<1x8xf32, strided<[?, 1], offset: ?>>
// BUF-NOT: memref.alloc{{.*}}memref<1x?x8xf32>
// BUF: memref.copy %[[NEW]], %[[NEW]] : memref<1x?x8xf32> to memref<1x?x8xf32>
// BUF-NOT: memref.alloc{{.*}}memref<1x?x8xf32>
// BUF-NOT: memref.copy{{.*}}memref<1x?x8xf32>
// BUF: return
ml_program.func @step(%k: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %past = ml_program.global_load @cache : tensor<1x?x8xf32>
  %c1 = arith.constant 1 : index
  %len = tensor.dim %past, %c1 : tensor<1x?x8xf32>
  %len1 = arith.addi %len, %c1 : index
  %empty = tensor.empty(%len1) : tensor<1x?x8xf32>
  %rows = tensor.insert_slice %past into %empty[0, 0, 0] [1, %len, 8] [1, 1, 1] : tensor<1x?x8xf32> into tensor<1x?x8xf32>
  %present = tensor.insert_slice %k into %rows[0, %len, 0] [1, 1, 8] [1, 1, 1] : tensor<1x8xf32> into tensor<1x?x8xf32>
  %e = tensor.empty() : tensor<1x8xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x8xf32>) -> tensor<1x8xf32>
  %r = linalg.reduce ins(%present : tensor<1x?x8xf32>) outs(%f : tensor<1x8xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    }
  ml_program.global_store @cache = %present : tensor<1x?x8xf32>
  ml_program.return %r : tensor<1x8xf32>
}

// -----

// The old value is still read after the store (its buffer is freed there):
// the load copies it; a value not built in a tensor.empty (an argument) is
// copied into the new buffer.

ml_program.global private mutable @cache(dense<> : tensor<1x0x8xf32>) : tensor<1x?x8xf32>

// CHECK-LABEL: func.func @read_after_store
// CHECK: %[[T:.*]] = bufferization.to_tensor %{{.*}} restrict : memref<1x?x8xf32> to tensor<1x?x8xf32>
// CHECK: bufferization.alloc_tensor() copy(%[[T]])
// CHECK: %[[NEW:.*]] = memref.alloc(%{{.*}}) {bufferization.manual_deallocation} : memref<1x?x8xf32>
// CHECK: bufferization.materialize_in_destination %{{.*}} in restrict writable %[[NEW]]
ml_program.func @read_after_store(%x: tensor<1x?x8xf32>) -> tensor<1x?x8xf32> {
  %old = ml_program.global_load @cache : tensor<1x?x8xf32>
  ml_program.global_store @cache = %x : tensor<1x?x8xf32>
  ml_program.return %old : tensor<1x?x8xf32>
}

// -----

// A later store frees the buffer of an earlier one, so only the last store
// of a call builds its value in the new buffer: the first keeps its
// tensor.empty and copies. So does a store followed by a load of the global.

ml_program.global private mutable @cache(dense<> : tensor<1x0x8xf32>) : tensor<1x?x8xf32>

// CHECK-LABEL: func.func @store_twice
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<1x?x8xf32>
// CHECK: %[[V:.*]] = tensor.insert_slice %{{.*}} into %[[E]]
// CHECK: %[[FIRST:.*]] = memref.alloc(%{{.*}}) {bufferization.manual_deallocation} : memref<1x?x8xf32>
// CHECK: bufferization.materialize_in_destination %[[V]] in restrict writable %[[FIRST]]
// CHECK: %[[LAST:.*]] = memref.alloc(%{{.*}}) {bufferization.manual_deallocation} : memref<1x?x8xf32>
// CHECK: bufferization.to_tensor %[[LAST]] restrict writable
// CHECK-LABEL: func.func @load_after_store
// CHECK: tensor.empty
// CHECK: memref.alloc(%{{.*}}) {bufferization.manual_deallocation}
// CHECK-NOT: restrict writable : memref
// CHECK: return
ml_program.func @store_twice(%x: tensor<1x?x8xf32>) -> tensor<1x?x8xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<1x?x8xf32>
  %e = tensor.empty(%n) : tensor<1x?x8xf32>
  %v = tensor.insert_slice %x into %e[0, 0, 0] [1, %n, 8] [1, 1, 1] : tensor<1x?x8xf32> into tensor<1x?x8xf32>
  ml_program.global_store @cache = %v : tensor<1x?x8xf32>
  %e2 = tensor.empty(%n) : tensor<1x?x8xf32>
  %w = tensor.insert_slice %x into %e2[0, 0, 0] [1, %n, 8] [1, 1, 1] : tensor<1x?x8xf32> into tensor<1x?x8xf32>
  ml_program.global_store @cache = %w : tensor<1x?x8xf32>
  ml_program.return %v : tensor<1x?x8xf32>
}

ml_program.func @load_after_store(%x: tensor<1x?x8xf32>) -> tensor<1x?x8xf32> {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c1 : tensor<1x?x8xf32>
  %e = tensor.empty(%n) : tensor<1x?x8xf32>
  %v = tensor.insert_slice %x into %e[0, 0, 0] [1, %n, 8] [1, 1, 1] : tensor<1x?x8xf32> into tensor<1x?x8xf32>
  ml_program.global_store @cache = %v : tensor<1x?x8xf32>
  %r = ml_program.global_load @cache : tensor<1x?x8xf32>
  ml_program.return %r : tensor<1x?x8xf32>
}

// -----

// `reset` stores a constant: the new buffer has the constant's static shape,
// so canonicalization has no size to fold away with the manual-deallocation
// mark, and buffer deallocation leaves the stored buffer alone (it used to
// free it at the end of the function: a double free at the next store).

ml_program.global private mutable @cache(dense<> : tensor<1x0x8xf32>) : tensor<1x?x8xf32>

// CHECK-LABEL: func.func @reset
// CHECK: memref.alloc() {bufferization.manual_deallocation} : memref<1x0x8xf32>

// DEALLOC-LABEL: func.func @reset
// DEALLOC: %[[NEW:.*]] = memref.alloc() {bufferization.manual_deallocation} : memref<1x0x8xf32>
// DEALLOC-NOT: bufferization.dealloc
// DEALLOC: return
ml_program.func @reset() {
  %empty = arith.constant dense<> : tensor<1x0x8xf32>
  %cast = tensor.cast %empty : tensor<1x0x8xf32> to tensor<1x?x8xf32>
  ml_program.global_store @cache = %cast : tensor<1x?x8xf32>
  ml_program.return
}
