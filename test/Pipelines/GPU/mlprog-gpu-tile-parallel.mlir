// RUN: mlprog-opt %s --split-input-file --mlprog-gpu-tile-parallel | FileCheck %s
// RUN: mlprog-opt %s --split-input-file --mlprog-gpu-tile-parallel=block-size=64 | FileCheck %s --check-prefix=BLOCK64
// RUN: not mlprog-opt %s --split-input-file --mlprog-gpu-tile-parallel=block-size=2000 2>&1 | FileCheck %s --check-prefix=ERROR

// ERROR: error: block-size must be in [1, 1024], got 2000

// A 2-d loop nest is collapsed to 30 * 40 iterations and tiled by 256: the
// outer loop steps over blocks, the inner one over the threads of a block,
// guarded by the collapsed bound; the indices are recovered from the
// collapsed one. The nested parallel loop stays inside the thread.
// CHECK-LABEL: func.func @two_d
// CHECK: %[[ROWS:.*]] = arith.muli %{{.*}}, %{{c30.*}} : index
// CHECK-NEXT: %[[N:.*]] = arith.muli %[[ROWS]], %[[C40:c40.*]] : index
// CHECK: %[[C256:.*]] = arith.constant 256 : index
// CHECK-NEXT: %[[STEP:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK: scf.parallel (%[[BLOCK:.*]]) = (%{{.*}}) to (%[[N]]) step (%[[STEP]]) {
// CHECK-NEXT: scf.parallel (%[[THREAD:.*]]) = (%{{.*}}) to (%[[STEP]]) step (%{{.*}}) {
// CHECK-NEXT: %[[I:.*]] = arith.addi %[[THREAD]], %[[BLOCK]] : index
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %[[N]] : index
// CHECK: %[[GUARD:.*]] = arith.andi %{{.*}}, %[[IN]] : i1
// CHECK-NEXT: scf.if %[[GUARD]] {
// CHECK-NEXT: %[[COL:.*]] = arith.remsi %[[I]], %[[C40]] : index
// CHECK-NEXT: %[[ROW:.*]] = arith.divsi %[[I]], %[[C40]] : index
// CHECK-NEXT: scf.parallel
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[ROW]], %[[COL]]] : memref<30x40xf32>
// BLOCK64-LABEL: func.func @two_d
// BLOCK64: %[[C64:.*]] = arith.constant 64 : index
// BLOCK64: %[[STEP:.*]] = arith.muli %{{.*}}, %[[C64]] : index
// BLOCK64: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%[[STEP]]) {
// BLOCK64-NEXT: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[STEP]]) step (%{{.*}}) {
func.func @two_d(%m: memref<30x40xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c30 = arith.constant 30 : index
  %c40 = arith.constant 40 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c30, %c40) step (%c1, %c1) {
    scf.parallel (%k) = (%c0) to (%c1) step (%c1) {
      memref.store %f, %m[%i, %j] : memref<30x40xf32>
      scf.reduce
    }
    scf.reduce
  }
  return
}

// -----

// A 1-d loop is only tiled.
// CHECK-LABEL: func.func @one_d
// CHECK: %[[C1000:.*]] = arith.constant 1000 : index
// CHECK: %[[C256:.*]] = arith.constant 256 : index
// CHECK-NEXT: %[[STEP:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK: scf.parallel (%[[BLOCK:.*]]) = (%{{.*}}) to (%[[C1000]]) step (%[[STEP]]) {
// CHECK-NEXT: scf.parallel (%[[THREAD:.*]]) = (%{{.*}}) to (%[[STEP]]) step (%{{.*}}) {
// CHECK-NEXT: %[[I:.*]] = arith.addi %[[THREAD]], %[[BLOCK]] : index
// CHECK: arith.cmpi ult, %{{.*}}, %[[C1000]] : index
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[I]]] : memref<1000xf32>
func.func @one_d(%m: memref<1000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : index
  %f = arith.constant 1.0 : f32
  scf.parallel (%i) = (%c0) to (%c1000) step (%c1) {
    memref.store %f, %m[%i] : memref<1000xf32>
    scf.reduce
  }
  return
}
