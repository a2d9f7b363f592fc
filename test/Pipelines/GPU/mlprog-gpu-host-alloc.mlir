// RUN: mlprog-opt %s --split-input-file --allow-unregistered-dialect --mlprog-gpu-host-alloc | FileCheck %s

// Allocations become managed memory; deallocations call the runtime with
// the aligned pointer, declared once.
// CHECK-LABEL: func.func @buffers
// CHECK-SAME: (%[[N:.*]]: index)
// CHECK-NEXT: %[[STATIC:.*]] = gpu.alloc  host_shared () : memref<4xf32>
// CHECK-NEXT: %[[DYNAMIC:.*]] = gpu.alloc  host_shared (%[[N]]) : memref<?xf32>
// CHECK-NEXT: "test.use"(%[[STATIC]], %[[DYNAMIC]])
// CHECK-NEXT: %[[INDEX:.*]] = memref.extract_aligned_pointer_as_index %[[STATIC]] : memref<4xf32> -> index
// CHECK-NEXT: %[[POINTER:.*]] = arith.index_cast %[[INDEX]] : index to i64
// CHECK-NEXT: call @mlprog_cuda_dealloc(%[[POINTER]]) : (i64) -> ()
// CHECK-NEXT: %[[INDEX2:.*]] = memref.extract_aligned_pointer_as_index %[[DYNAMIC]] : memref<?xf32> -> index
// CHECK-NEXT: %[[POINTER2:.*]] = arith.index_cast %[[INDEX2]] : index to i64
// CHECK-NEXT: call @mlprog_cuda_dealloc(%[[POINTER2]]) : (i64) -> ()
// CHECK-NEXT: return
// CHECK-LABEL: func.func @more
// CHECK-NEXT: gpu.alloc  host_shared () : memref<4xf32>
// CHECK: call @mlprog_cuda_dealloc
// CHECK-NOT: memref.dealloc
// CHECK: func.func private @mlprog_cuda_dealloc(i64)
// CHECK-NOT: @mlprog_cuda_dealloc(i64)
func.func @buffers(%n: index) {
  %0 = memref.alloc() : memref<4xf32>
  %1 = memref.alloc(%n) : memref<?xf32>
  "test.use"(%0, %1) : (memref<4xf32>, memref<?xf32>) -> ()
  memref.dealloc %0 : memref<4xf32>
  memref.dealloc %1 : memref<?xf32>
  return
}
func.func @more() {
  %0 = memref.alloc() : memref<4xf32>
  memref.dealloc %0 : memref<4xf32>
  return
}

// -----

// Without a dealloc the runtime function is not declared.
// CHECK-LABEL: func.func @returned
// CHECK-NEXT: %[[BUFFER:.*]] = gpu.alloc  host_shared () : memref<4xf32>
// CHECK-NEXT: return %[[BUFFER]]
// CHECK-NOT: mlprog_cuda_dealloc
func.func @returned() -> memref<4xf32> {
  %0 = memref.alloc() : memref<4xf32>
  return %0 : memref<4xf32>
}
