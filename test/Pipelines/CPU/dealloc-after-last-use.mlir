// RUN: mlprog-opt %s --split-input-file --mlprog-dealloc-after-last-use | FileCheck %s

// Each buffer is freed after its last use, through a view and a loop that
// reads it, not at the end of the function.
// CHECK-LABEL: func.func @chain
// CHECK: %[[A:.*]] = memref.alloc() : memref<64xf32>
// CHECK: linalg.fill {{.*}} outs(%[[A]] : memref<64xf32>)
// CHECK: %[[B:.*]] = memref.alloc() : memref<64xf32>
// CHECK: %[[V:.*]] = memref.expand_shape %[[A]]
// CHECK: scf.for
// CHECK: memref.load %[[V]]
// CHECK: }
// CHECK-NEXT: memref.dealloc %[[A]] : memref<64xf32>
// CHECK-NEXT: memref.copy %[[B]], %{{.*}}
// CHECK-NEXT: memref.dealloc %[[B]] : memref<64xf32>
// CHECK-NEXT: %[[C:.*]] = memref.alloc() : memref<64xf32>
// CHECK-NEXT: memref.dealloc %[[C]] : memref<64xf32>
// CHECK-NEXT: return
func.func @chain(%f: f32, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a = memref.alloc() : memref<64xf32>
  linalg.fill ins(%f : f32) outs(%a : memref<64xf32>)
  %b = memref.alloc() : memref<64xf32>
  %v = memref.expand_shape %a [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %v[%i, %i] : memref<8x8xf32>
    memref.store %x, %b[%i] : memref<64xf32>
  }
  memref.copy %b, %out : memref<64xf32> to memref<64xf32>
  %c = memref.alloc() : memref<64xf32>
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %c : memref<64xf32>
  return
}

// -----

// A buffer a loop yields is alive as long as the loop's result is.
// CHECK-LABEL: func.func @yielded
// CHECK: %[[A:.*]] = memref.alloc() : memref<64xf32>
// CHECK: %[[R:.*]] = scf.for
// CHECK: memref.copy %[[R]], %{{.*}}
// CHECK-NEXT: memref.dealloc %[[A]] : memref<64xf32>
// CHECK-NEXT: return
func.func @yielded(%out: memref<64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<64xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%it = %a) -> (memref<64xf32>) {
    scf.yield %it : memref<64xf32>
  }
  memref.copy %r, %out : memref<64xf32> to memref<64xf32>
  memref.dealloc %a : memref<64xf32>
  return
}

// -----

// The buffer's address taken as an integer keeps it alive while anything
// computed from it is used.
// CHECK-LABEL: func.func @address
// CHECK: %[[A:.*]] = memref.alloc() : memref<64xf32>
// CHECK: memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: call @use
// CHECK-NEXT: memref.dealloc %[[A]] : memref<64xf32>
func.func private @use(i64)
func.func @address() {
  %a = memref.alloc() : memref<64xf32>
  %p = memref.extract_aligned_pointer_as_index %a : memref<64xf32> -> index
  %i = arith.index_cast %p : index to i64
  %b = memref.alloc() : memref<64xf32>
  call @use(%i) : (i64) -> ()
  memref.dealloc %b : memref<64xf32>
  memref.dealloc %a : memref<64xf32>
  return
}

// -----

// A buffer allocated in an outer block, freed inside a branch, stays.
// CHECK-LABEL: func.func @other_block
// CHECK: scf.if
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: memref.dealloc
func.func @other_block(%cond: i1, %f: f32) {
  %a = memref.alloc() : memref<64xf32>
  scf.if %cond {
    linalg.fill ins(%f : f32) outs(%a : memref<64xf32>)
    memref.dealloc %a : memref<64xf32>
  }
  return
}
