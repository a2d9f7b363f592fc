// RUN: mlprog-opt %s --convert-ml-program-to-memref --split-input-file | FileCheck %s

// CHECK: memref.global "private" constant @w : memref<4xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> {alignment = 64 : i64}
// CHECK: memref.global "public" @state : memref<4xf32> = dense<0.000000e+00>
// CHECK: memref.global "private" @scratch : memref<2x2xi8> = uninitialized
ml_program.global private @w(dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>) : tensor<4xf32>
ml_program.global public mutable @state(dense<0.0> : tensor<4xf32>) : tensor<4xf32>
ml_program.global private mutable @scratch : tensor<2x2xi8>

// CHECK-LABEL: func.func @accessors
// CHECK-SAME: (%[[ARG:.*]]: tensor<4xf32>) -> tensor<4xf32> attributes {llvm.emit_c_interface}
ml_program.func @accessors(%arg0: tensor<4xf32>) -> tensor<4xf32> attributes {llvm.emit_c_interface} {
  // CHECK: %[[W:.*]] = memref.get_global @w : memref<4xf32>
  // CHECK: %[[WT:.*]] = bufferization.to_tensor %[[W]] restrict : memref<4xf32> to tensor<4xf32>
  %w = ml_program.global_load_const @w : tensor<4xf32>
  // A load of a mutable global copies, so the store below cannot change it.
  // CHECK: %[[S:.*]] = memref.get_global @state : memref<4xf32>
  // CHECK: %[[ST:.*]] = bufferization.to_tensor %[[S]] restrict : memref<4xf32> to tensor<4xf32>
  // CHECK: %[[COPY:.*]] = bufferization.alloc_tensor() copy(%[[ST]]) : tensor<4xf32>
  %s = ml_program.global_load @state : tensor<4xf32>
  // CHECK: %[[S2:.*]] = memref.get_global @state : memref<4xf32>
  // CHECK: bufferization.materialize_in_destination %[[WT]] in restrict writable %[[S2]]
  ml_program.global_store @state = %w : tensor<4xf32>
  // CHECK: return %[[COPY]] : tensor<4xf32>
  ml_program.return %s : tensor<4xf32>
}

// CHECK-LABEL: func.func private @declaration(tensor<4xf32>)
ml_program.func private @declaration(tensor<4xf32>)

// -----

// CHECK-LABEL: func.func private @callee
ml_program.func private @callee(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  ml_program.return %arg0 : tensor<4xf32>
}
// CHECK-LABEL: func.func @caller
// CHECK: %[[R:.*]] = call @callee(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: return %[[R]]
ml_program.func @caller(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ml_program.call @callee(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  ml_program.return %0 : tensor<4xf32>
}

// -----

// Extern globals become public external declarations (the runner binds them
// to memory-mapped data), without an alignment promise.
// CHECK: memref.global "public" constant @ext : memref<2x3xf32>{{$}}
ml_program.global private @ext(#ml_program.extern : tensor<2x3xf32>) : tensor<2x3xf32>
// Scalars live in rank-0 memrefs.
// CHECK: memref.global "private" @counter : memref<i64> = dense<7> {alignment = 128 : i64}
ml_program.global private mutable @counter(7 : i64) : i64
// An immutable global with a dynamic bounding type is stored with its
// initial value's shape.
// CHECK: memref.global "private" constant @dyn : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]>
ml_program.global private @dyn(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<?xf32>

// CHECK-LABEL: func.func @forms
ml_program.func @forms() -> (tensor<2x3xf32>, i64, tensor<?xf32>) {
  // CHECK: %[[E:.*]] = memref.get_global @ext : memref<2x3xf32>
  // CHECK: bufferization.to_tensor %[[E]] restrict
  %e = ml_program.global_load_const @ext : tensor<2x3xf32>
  // CHECK: %[[C:.*]] = memref.get_global @counter : memref<i64>
  // CHECK: %[[V:.*]] = memref.load %[[C]][] : memref<i64>
  %c = ml_program.global_load @counter : i64
  // CHECK: %[[C2:.*]] = memref.get_global @counter : memref<i64>
  // CHECK: memref.store %[[V]], %[[C2]][] : memref<i64>
  ml_program.global_store @counter = %c : i64
  // CHECK: %[[D:.*]] = memref.get_global @dyn : memref<2xf32>
  // CHECK: %[[DT:.*]] = bufferization.to_tensor %[[D]] restrict : memref<2xf32> to tensor<2xf32>
  // CHECK: tensor.cast %[[DT]] : tensor<2xf32> to tensor<?xf32>
  %d = ml_program.global_load_const @dyn : tensor<?xf32>
  ml_program.return %e, %c, %d : tensor<2x3xf32>, i64, tensor<?xf32>
}

// -----

// A mutable global with a dynamic bounding type: the initial value keeps the
// global's name, the current value lives in a heap buffer behind a box and a
// flag. Reads pick the buffer by the flag and copy it; stores allocate a
// buffer of the stored shape (manually deallocated) and free the previous.
// CHECK-LABEL: memref.global "private" @history : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]>
// CHECK: memref.global "private" @history__value : memref<memref<?xf32>> = uninitialized
// CHECK: memref.global "private" @history__stored : memref<i1> = dense<false>
// CHECK-LABEL: func.func @append
// CHECK-SAME: (%[[X:.*]]: tensor<?xf32>)
// CHECK: %[[INIT:.*]] = memref.get_global @history : memref<2xf32>
// CHECK: %[[FLAG:.*]] = memref.load %{{.*}}[] : memref<i1>
// CHECK: %[[CUR:.*]] = scf.if %[[FLAG]] -> (memref<?xf32>) {
// CHECK:   %[[BOX:.*]] = memref.get_global @history__value : memref<memref<?xf32>>
// CHECK:   %[[BUF:.*]] = memref.load %[[BOX]][] : memref<memref<?xf32>>
// CHECK:   scf.yield %[[BUF]]
// CHECK: } else {
// CHECK:   %[[CAST:.*]] = memref.cast %[[INIT]] : memref<2xf32> to memref<?xf32>
// CHECK:   scf.yield %[[CAST]]
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[CUR]] restrict
// CHECK: %[[COPY:.*]] = bufferization.alloc_tensor() copy(%[[T]])
// CHECK: %[[DIM:.*]] = tensor.dim %[[X]]
// CHECK: %[[NEW:.*]] = memref.alloc(%[[DIM]]) {bufferization.manual_deallocation} : memref<?xf32>
// CHECK: bufferization.materialize_in_destination %[[X]] in restrict writable %[[NEW]]
// CHECK: scf.if %{{.*}} {
// CHECK:   %[[OLD:.*]] = memref.load %{{.*}}[] : memref<memref<?xf32>>
// CHECK:   memref.dealloc %[[OLD]] {bufferization.manual_deallocation}
// CHECK: memref.store %[[NEW]], %{{.*}}[] : memref<memref<?xf32>>
// CHECK: memref.store %true, %{{.*}}[] : memref<i1>
// CHECK: return %[[COPY]]
// The release function frees the current buffer for the runner's teardown.
// CHECK-LABEL: func.func @__mlprog_release_globals()
// CHECK: scf.if
// CHECK: memref.dealloc %{{.*}} {bufferization.manual_deallocation}
// CHECK: memref.store %false, %{{.*}}[] : memref<i1>
ml_program.global private mutable @history(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<?xf32>
ml_program.func @append(%x: tensor<?xf32>) -> tensor<?xf32> {
  %h = ml_program.global_load @history : tensor<?xf32>
  ml_program.global_store @history = %x : tensor<?xf32>
  ml_program.return %h : tensor<?xf32>
}

// -----

// Uninitialized: the initial buffer has every dynamic extent 0.
// CHECK-LABEL: memref.global "private" @log : memref<0x2xi32> = uninitialized
// CHECK: memref.global "private" @log__value : memref<memref<?x2xi32>> = uninitialized
ml_program.global private mutable @log : tensor<?x2xi32>
