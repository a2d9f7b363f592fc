// RUN: mlprog-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect --mlprog-gpu-device-globals | FileCheck %s

// A constant global is copied once at the entry, whatever the number of
// reads, and the copy is freed before each return.
// CHECK-LABEL: func.func @two_reads
// CHECK-NEXT: %[[GLOBAL:.*]] = memref.get_global @weights : memref<2x3xf32>
// CHECK-NEXT: %[[COPY:.*]] = memref.alloc() : memref<2x3xf32>
// CHECK-NEXT: memref.copy %[[GLOBAL]], %[[COPY]] : memref<2x3xf32> to memref<2x3xf32>
// CHECK-NEXT: cf.cond_br
// CHECK-NOT: memref.get_global
// CHECK: "test.use"(%[[COPY]], %[[COPY]])
// CHECK-NEXT: memref.dealloc %[[COPY]] : memref<2x3xf32>
// CHECK-NEXT: return
// CHECK: ^bb2:
// CHECK-NEXT: memref.dealloc %[[COPY]] : memref<2x3xf32>
// CHECK-NEXT: return
memref.global "private" constant @weights : memref<2x3xf32> = dense<1.0>
func.func @two_reads(%c: i1) {
  cf.cond_br %c, ^a, ^b
^a:
  %0 = memref.get_global @weights : memref<2x3xf32>
  %1 = memref.get_global @weights : memref<2x3xf32>
  "test.use"(%0, %1) : (memref<2x3xf32>, memref<2x3xf32>) -> ()
  return
^b:
  return
}

// -----

// The copy has an identity layout; a cast restores the global's type.
// CHECK-LABEL: func.func @layout
// CHECK-NEXT: %[[GLOBAL:.*]] = memref.get_global @bias : memref<4xf32, strided<[1]>>
// CHECK-NEXT: %[[COPY:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: memref.copy %[[GLOBAL]], %[[COPY]]
// CHECK-NEXT: %[[CAST:.*]] = memref.cast %[[COPY]] : memref<4xf32> to memref<4xf32, strided<[1]>>
// CHECK-NEXT: "test.use"(%[[CAST]])
// CHECK-NEXT: memref.dealloc %[[COPY]] : memref<4xf32>
memref.global "private" constant @bias : memref<4xf32, strided<[1]>> = dense<1.0>
func.func @layout() {
  %0 = memref.get_global @bias : memref<4xf32, strided<[1]>>
  "test.use"(%0) : (memref<4xf32, strided<[1]>>) -> ()
  return
}

// -----

// A function that reads no global is left alone.
// CHECK-LABEL: func.func @no_globals
// CHECK-NEXT: return
func.func @no_globals() {
  return
}

// -----

memref.global "private" @state : memref<4xf32> = dense<0.0>
func.func @mutable() {
  // expected-error @+1 {{mutable global @state is not supported by --mlprog-lower-to-gpu yet (its state would have to live in device memory across calls)}}
  %0 = memref.get_global @state : memref<4xf32>
  "test.use"(%0) : (memref<4xf32>) -> ()
  return
}
