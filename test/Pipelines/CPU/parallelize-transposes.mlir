// RUN: mlprog-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlprog-parallelize-transposes))' | FileCheck %s
// RUN: mlprog-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlprog-parallelize-transposes{min-bytes=1000000000}))' | FileCheck %s --check-prefix=SMALL

// Attention's K transpose: one slice of output dimension 0 per iteration,
// read from input dimension permutation[0] = 1.
// CHECK-LABEL: func.func @k_transpose
// CHECK-SAME: (%[[IN:.*]]: memref<197x96x64xf32>, %[[OUT:.*]]: memref<96x64x197xf32>)
// CHECK: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%{{.*}}) step
// CHECK-DAG: %[[FROM:.*]] = memref.subview %[[IN]][0, %[[I]], 0] [197, 1, 64] [1, 1, 1]
// CHECK-DAG: %[[TO:.*]] = memref.subview %[[OUT]][%[[I]], 0, 0] [1, 64, 197] [1, 1, 1]
// CHECK: linalg.transpose ins(%[[FROM]] : {{.*}}) outs(%[[TO]] : {{.*}}) permutation = [1, 2, 0]
// SMALL-LABEL: func.func @k_transpose
// SMALL-NOT: scf.parallel
func.func @k_transpose(%in: memref<197x96x64xf32>, %out: memref<96x64x197xf32>) {
  linalg.transpose ins(%in : memref<197x96x64xf32>) outs(%out : memref<96x64x197xf32>) permutation = [1, 2, 0]
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
