// RUN: mlprog-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlprog-lower-strided-copies{target-features=+avx512f}))' | FileCheck %s --check-prefix=AVX512
// RUN: mlprog-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(mlprog-lower-strided-copies{target-features=+avx2,+fma parallel=false}))' | FileCheck %s --check-prefix=AVX2

// The interior of a padded buffer: N and C collapse (contiguous in both),
// rows of 21 floats move as one full vector and a remainder; 26 KiB is too
// small for threads.
// AVX512-LABEL: func.func @pad_interior
// AVX512-SAME: (%[[SRC:.*]]: memref<2x3x13x21xf32>, %[[DST:.*]]: memref<2x3x16x24xf32>)
// AVX512-DAG: %[[S:.*]] = memref.collapse_shape %[[SRC]] {{\[}}[0, 1], [2], [3]] : memref<2x3x13x21xf32> into memref<6x13x21xf32>
// AVX512-DAG: %[[D:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0, 1], [2], [3]] : {{.*}} into memref<6x13x21xf32, strided<[384, 24, 1], offset: 26>>
// AVX512: scf.for %[[I:.*]] =
// AVX512: scf.for %[[J:.*]] =
// AVX512: %[[V:.*]] = vector.load %[[S]][%[[I]], %[[J]], %{{.*}}] : memref<6x13x21xf32>, vector<16xf32>
// AVX512: vector.store %[[V]], %[[D]][%[[I]], %[[J]], %{{.*}}] : {{.*}}, vector<16xf32>
// AVX512: %[[R:.*]] = vector.load %[[S]][%[[I]], %[[J]], %{{.*}}] : memref<6x13x21xf32>, vector<5xf32>
// AVX512: vector.store %[[R]], %[[D]][%[[I]], %[[J]], %{{.*}}] : {{.*}}, vector<5xf32>
// AVX512-NOT: memref.copy
// AVX2-LABEL: func.func @pad_interior
// AVX2-COUNT-2: vector.load {{.*}} vector<8xf32>
// AVX2: vector.load {{.*}} vector<5xf32>
// AVX2-NOT: memref.copy
func.func @pad_interior(%src: memref<2x3x13x21xf32>, %dst: memref<2x3x16x24xf32>) {
  %view = memref.subview %dst[0, 0, 1, 2] [2, 3, 13, 21] [1, 1, 1, 1] : memref<2x3x16x24xf32> to memref<2x3x13x21xf32, strided<[1152, 384, 24, 1], offset: 26>>
  memref.copy %src, %view : memref<2x3x13x21xf32> to memref<2x3x13x21xf32, strided<[1152, 384, 24, 1], offset: 26>>
  return
}

// -----

// A large copy out of a column block: the rows run in an scf.parallel
// (without `parallel`: an scf.for), 192 floats are 12 vectors, in a loop.
// AVX512-LABEL: func.func @column_block
// AVX512: scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%{{.*}}) step (%{{.*}})
// AVX512: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}}
// AVX512: vector.load %{{.*}}[%[[I]], %[[J]]] : memref<384x192xf32, strided<[196, 1]>>, vector<16xf32>
// AVX512-NOT: memref.copy
// AVX2-LABEL: func.func @column_block
// AVX2-NOT: scf.parallel
// AVX2: scf.for
// AVX2: vector.load {{.*}} vector<8xf32>
func.func @column_block(%src: memref<384x196xf32>, %dst: memref<384x192xf32>) {
  %view = memref.subview %src[0, 0] [384, 192] [1, 1] : memref<384x196xf32> to memref<384x192xf32, strided<[196, 1]>>
  memref.copy %view, %dst : memref<384x192xf32, strided<[196, 1]>> to memref<384x192xf32>
  return
}

// -----

// i8 rows: 64 lanes per AVX-512 vector; a concatenation's slice collapses to
// one row of 2 x 17 = 34 bytes per outer index.
// AVX512-LABEL: func.func @concat_i8
// AVX512: memref.collapse_shape {{.*}} into memref<3x34xi8, strided<[68, 1], offset: 34>>
// AVX512: vector.load {{.*}} : memref<3x34xi8>, vector<34xi8>
// AVX512-NOT: memref.copy
func.func @concat_i8(%src: memref<3x2x17xi8>, %dst: memref<3x4x17xi8>) {
  %view = memref.subview %dst[0, 2, 0] [3, 2, 17] [1, 1, 1] : memref<3x4x17xi8> to memref<3x2x17xi8, strided<[68, 17, 1], offset: 34>>
  memref.copy %src, %view : memref<3x2x17xi8> to memref<3x2x17xi8, strided<[68, 17, 1], offset: 34>>
  return
}

// -----

// Outer extents may be dynamic (a KV cache that grows): loops up to
// memref.dim. A dynamic extent is never collapsed into the rows (a
// [1, 2, ?, 4] slice keeps rows of 4, not one row of ? x 4).
// AVX512-LABEL: func.func @dynamic_outer
// AVX512: %[[N:.*]] = memref.dim %{{.*}}, %c0
// AVX512: scf.for %[[I:.*]] = %{{.*}} to %[[N]]
// AVX512: vector.load %{{.*}}[%[[I]], %{{.*}}] : memref<?x5xf32>, vector<5xf32>
// AVX512: vector.store {{.*}} : memref<?x5xf32, strided<[7, 1]>>, vector<5xf32>
// AVX512-NOT: memref.collapse_shape {{.*}}into memref<2x?xf32
// AVX512: vector.load {{.*}} : memref<1x2x?x4xf32>, vector<4xf32>
// AVX512-NOT: memref.copy
func.func @dynamic_outer(%f: memref<?x5xf32>, %g: memref<?x5xf32, strided<[7, 1]>>, %cache: memref<1x2x?x4xf32>, %grown: memref<1x2x?x4xf32, strided<[?, ?, 4, 1]>>) {
  memref.copy %f, %g : memref<?x5xf32> to memref<?x5xf32, strided<[7, 1]>>
  memref.copy %cache, %grown : memref<1x2x?x4xf32> to memref<1x2x?x4xf32, strided<[?, ?, 4, 1]>>
  return
}

// -----

// Left alone: contiguous copies (memcpy), a strided innermost dimension,
// a column (unit innermost dimension whose rows are not contiguous), i1
// (bytes in memory, bits in vectors) and a dynamic innermost extent.
// AVX512-LABEL: func.func @unchanged
// AVX512-COUNT-5: memref.copy
// AVX512-NOT: vector.load
func.func @unchanged(%a: memref<8x16xf32>, %b: memref<8x16xf32>, %c: memref<8x32xf32>, %d: memref<4x9xi1>, %e: memref<4x12xi1>, %f: memref<5x?xf32>, %g: memref<5x?xf32, strided<[7, 1]>>, %h: memref<2x3x4x5xf32>, %i: memref<2x3x4x1xf32>) {
  %col = memref.subview %h[0, 0, 0, 0] [2, 3, 4, 1] [1, 1, 1, 1] : memref<2x3x4x5xf32> to memref<2x3x4x1xf32, strided<[60, 20, 5, 1]>>
  memref.copy %col, %i : memref<2x3x4x1xf32, strided<[60, 20, 5, 1]>> to memref<2x3x4x1xf32>
  memref.copy %a, %b : memref<8x16xf32> to memref<8x16xf32>
  %s = memref.subview %c[0, 0] [8, 16] [1, 2] : memref<8x32xf32> to memref<8x16xf32, strided<[32, 2]>>
  memref.copy %a, %s : memref<8x16xf32> to memref<8x16xf32, strided<[32, 2]>>
  %t = memref.subview %e[0, 0] [4, 9] [1, 1] : memref<4x12xi1> to memref<4x9xi1, strided<[12, 1]>>
  memref.copy %d, %t : memref<4x9xi1> to memref<4x9xi1, strided<[12, 1]>>
  memref.copy %f, %g : memref<5x?xf32> to memref<5x?xf32, strided<[7, 1]>>
  return
}
