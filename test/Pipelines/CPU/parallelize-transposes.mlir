// RUN: mlprog-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlprog-parallelize-transposes))' | FileCheck %s
// RUN: mlprog-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlprog-parallelize-transposes{min-bytes=1000000000}))' | FileCheck %s --check-prefix=SMALL

// Attention's K transpose: one slice of output dimension 0 per iteration,
// read from input dimension permutation[0] = 1, and in it a loop over the
// output's columns (input rows), so the innermost loop reads a row of 64.
// CHECK-LABEL: func.func @k_transpose
// CHECK-SAME: (%[[IN:.*]]: memref<197x96x64xf32>, %[[OUT:.*]]: memref<96x64x197xf32>)
// CHECK: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%{{.*}}) step
// CHECK-DAG: %[[FROM:.*]] = memref.subview %[[IN]][0, %[[I]], 0] [197, 1, 64] [1, 1, 1]
// CHECK-DAG: %[[TO:.*]] = memref.subview %[[OUT]][%[[I]], 0, 0] [1, 64, 197] [1, 1, 1]
// CHECK: scf.for %[[J:.*]] =
// CHECK-DAG: %[[ROW:.*]] = memref.subview %[[FROM]][%[[J]], 0, 0] [1, 1, 64] [1, 1, 1]
// CHECK-DAG: %[[COLUMN:.*]] = memref.subview %[[TO]][0, 0, %[[J]]] [1, 64, 1] [1, 1, 1]
// CHECK: linalg.transpose ins(%[[ROW]] : {{.*}}) outs(%[[COLUMN]] : {{.*}}) permutation = [1, 2, 0]
// SMALL-LABEL: func.func @k_transpose
// SMALL-NOT: scf.parallel
func.func @k_transpose(%in: memref<197x96x64xf32>, %out: memref<96x64x197xf32>) {
  linalg.transpose ins(%in : memref<197x96x64xf32>) outs(%out : memref<96x64x197xf32>) permutation = [1, 2, 0]
  return
}

// -----

// The head split ([tokens, heads, 64] to [heads, tokens, 64]) keeps rows
// innermost: no column loop.
// CHECK-LABEL: func.func @head_split
// CHECK: scf.parallel
// CHECK-NOT: scf.for
// CHECK: linalg.transpose {{.*}} permutation = [1, 0, 2]
func.func @head_split(%in: memref<197x96x64xf32>, %out: memref<96x197x64xf32>) {
  linalg.transpose ins(%in : memref<197x96x64xf32>) outs(%out : memref<96x197x64xf32>) permutation = [1, 0, 2]
  return
}

// -----

// Below 256 KiB the transpose stays serial.
// CHECK-LABEL: func.func @small
// CHECK-NOT: scf.parallel
// CHECK: linalg.transpose
func.func @small(%in: memref<64x32xf32>, %out: memref<32x64xf32>) {
  linalg.transpose ins(%in : memref<64x32xf32>) outs(%out : memref<32x64xf32>) permutation = [1, 0]
  return
}
