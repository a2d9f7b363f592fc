// RUN: mlprog-opt %s --pass-pipeline='builtin.module(func.func(mlprog-prefetch-panels))' | FileCheck %s

// K blocks of 512 over 49 rows in 7 rows of register blocks of 7, B rows of
// 32 floats (2 cache lines): at K step k of block k0, the register block at
// row m prefetches into L2 one line of row (k0 + 512) mod 1024 + m * 512 /
// 49 + k / 4 of its B panel (clamped to row 1023), the line (k / 2) mod 2
// of it: a new line every 2 steps, 64 rows per row of register blocks. In
// the last K block, that is the first block of the panel 2 on (the next
// cache tile's: the N loop covers 2 panels), clamped to the last panel.
// CHECK-DAG: #[[NEXT:.*]] = affine_map<(d0, d1, d2) -> ((d0 - d2 + 512) mod 1024 + (d1 * 512) floordiv 49 + d2 floordiv 4, 1023)>
// CHECK-DAG: #[[TILE:.*]] = affine_map<(d0, d1, d2) -> (d0 + ((d1 - d2 + 512) floordiv 1024) * 2, 1)>
// CHECK-DAG: #[[NEXT1:.*]] = affine_map<(d0, d1, d2) -> ((d0 - d2) mod 512 + (d1 * 512) floordiv 49 + d2 floordiv 4, 511)>
// CHECK-DAG: #[[TILE1:.*]] = affine_map<(d0, d1, d2) -> (d0 + ((d1 - d2) floordiv 512 + 1) * 4, 15)>
// CHECK-DAG: #[[LINE:.*]] = affine_map<(d0, d1) -> (d0 + ((d1 floordiv 2) mod 2) * 16)>
// CHECK-LABEL: func.func @k_blocks
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %{{.*}} step %c512
// CHECK: scf.for %[[M:.*]] = %{{.*}} to %{{.*}} step %c7
// CHECK: scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %c1
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %c1
// CHECK: %[[KK:.*]] = affine.apply
// CHECK: %[[ROW:.*]] = affine.min #[[NEXT]](%[[KK]], %[[M]], %[[K]])
// CHECK: %[[PANEL:.*]] = affine.min #[[TILE]](%[[N]], %[[KK]], %[[K]])
// CHECK: %[[COL:.*]] = affine.apply #[[LINE]](%c0, %[[K]])
// CHECK: memref.prefetch %arg1[%[[PANEL]], %[[ROW]], %[[COL]]], read, locality<2>, data : memref<2x1024x32xf32>
// CHECK-NOT: memref.prefetch
// CHECK: vector.transfer_read %arg1[%[[N]], %[[KK]], %c0]
func.func @k_blocks(%a: memref<49x1024xf32>, %b: memref<2x1024x32xf32>, %c: memref<49x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c7 = arith.constant 7 : index
  %c49 = arith.constant 49 : index
  %c512 = arith.constant 512 : index
  %c1024 = arith.constant 1024 : index
  %zero = arith.constant 0.0 : f32
  scf.for %k0 = %c0 to %c1024 step %c512 {
    scf.for %m = %c0 to %c49 step %c7 {
      scf.for %n = %c0 to %c2 step %c1 {
        %col = affine.apply affine_map<(d0) -> (d0 * 32)>(%n)
        %acc = vector.transfer_read %c[%m, %col], %zero {in_bounds = [true, true]} : memref<49x64xf32>, vector<7x32xf32>
        %r = scf.for %k = %c0 to %c512 step %c1 iter_args(%v = %acc) -> (vector<7x32xf32>) {
          %kk = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%k, %k0)
          %x = vector.transfer_read %a[%m, %kk], %zero {in_bounds = [true, true]} : memref<49x1024xf32>, vector<7x1xf32>
          %y = vector.transfer_read %b[%n, %kk, %c0], %zero {in_bounds = [true]} : memref<2x1024x32xf32>, vector<32xf32>
          %yb = vector.broadcast %y : vector<32xf32> to vector<1x32xf32>
          %s = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %yb, %v : vector<7x1xf32>, vector<1x32xf32> into vector<7x32xf32>
          scf.yield %s : vector<7x32xf32>
        }
        vector.transfer_write %r, %c[%m, %col] {in_bounds = [true, true]} : vector<7x32xf32>, memref<49x64xf32>
      }
    }
  }
  return
}

// All of K in one block and no loop over N: nothing to prefetch.
// CHECK-LABEL: func.func @one_block
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @one_block(%a: memref<49x512xf32>, %b: memref<512x32xf32>, %c: memref<49x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c49 = arith.constant 49 : index
  %c512 = arith.constant 512 : index
  %zero = arith.constant 0.0 : f32
  scf.for %m = %c0 to %c49 step %c7 {
    %acc = vector.transfer_read %c[%m, %c0], %zero {in_bounds = [true, true]} : memref<49x32xf32>, vector<7x32xf32>
    %r = scf.for %k = %c0 to %c512 step %c1 iter_args(%v = %acc) -> (vector<7x32xf32>) {
      %x = vector.transfer_read %a[%m, %k], %zero {in_bounds = [true, true]} : memref<49x512xf32>, vector<7x1xf32>
      %y = vector.transfer_read %b[%k, %c0], %zero {in_bounds = [true]} : memref<512x32xf32>, vector<32xf32>
      %yb = vector.broadcast %y : vector<32xf32> to vector<1x32xf32>
      %s = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %yb, %v : vector<7x1xf32>, vector<1x32xf32> into vector<7x32xf32>
      scf.yield %s : vector<7x32xf32>
    }
    vector.transfer_write %r, %c[%m, %c0] {in_bounds = [true, true]} : vector<7x32xf32>, memref<49x32xf32>
  }
  return
}

// All of K (512) in one block, a cache tile of 128 columns (4 panels of 32)
// in a [16, 512, 32] B: each register block prefetches its share of the
// same panel of the next tile, 4 panels on (clamped to panel 15).
// CHECK-LABEL: func.func @next_tile
// CHECK: scf.for %[[M:.*]] = %{{.*}} to %{{.*}} step %c7
// CHECK: scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %c32
// CHECK: %[[P:.*]] = affine.apply
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %c1
// CHECK: %[[ROW:.*]] = affine.min #[[NEXT1]](%[[K]], %[[M]], %[[K]])
// CHECK: %[[PANEL:.*]] = affine.min #[[TILE1]](%[[P]], %[[K]], %[[K]])
// CHECK: memref.prefetch %arg1[%[[PANEL]], %[[ROW]], %{{.*}}], read, locality<2>, data : memref<16x512x32xf32>
func.func @next_tile(%a: memref<49x512xf32>, %b: memref<16x512x32xf32>, %c: memref<49x512xf32>, %tile: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c32 = arith.constant 32 : index
  %c49 = arith.constant 49 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  %zero = arith.constant 0.0 : f32
  scf.for %m = %c0 to %c49 step %c7 {
    scf.for %n = %c0 to %c128 step %c32 {
      %p = affine.apply affine_map<(d0, d1) -> ((d0 + d1) floordiv 32)>(%tile, %n)
      %col = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%tile, %n)
      %acc = vector.transfer_read %c[%m, %col], %zero {in_bounds = [true, true]} : memref<49x512xf32>, vector<7x32xf32>
      %r = scf.for %k = %c0 to %c512 step %c1 iter_args(%v = %acc) -> (vector<7x32xf32>) {
        %x = vector.transfer_read %a[%m, %k], %zero {in_bounds = [true, true]} : memref<49x512xf32>, vector<7x1xf32>
        %y = vector.transfer_read %b[%p, %k, %c0], %zero {in_bounds = [true]} : memref<16x512x32xf32>, vector<32xf32>
        %yb = vector.broadcast %y : vector<32xf32> to vector<1x32xf32>
        %s = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %yb, %v : vector<7x1xf32>, vector<1x32xf32> into vector<7x32xf32>
        scf.yield %s : vector<7x32xf32>
      }
      vector.transfer_write %r, %c[%m, %col] {in_bounds = [true, true]} : vector<7x32xf32>, memref<49x512xf32>
    }
  }
  return
}

// One K block and the N loop covering all 4 panels: tiles along M share
// all of B, and there is no next tile to prefetch.
// CHECK-LABEL: func.func @one_tile
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @one_tile(%a: memref<49x512xf32>, %b: memref<4x512x32xf32>, %c: memref<49x512xf32>, %tile: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c32 = arith.constant 32 : index
  %c49 = arith.constant 49 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  %zero = arith.constant 0.0 : f32
  scf.for %m = %c0 to %c49 step %c7 {
    scf.for %n = %c0 to %c128 step %c32 {
      %p = affine.apply affine_map<(d0, d1) -> ((d0 + d1) floordiv 32)>(%tile, %n)
      %col = affine.apply affine_map<(d0, d1) -> (d0 + d1)>(%tile, %n)
      %acc = vector.transfer_read %c[%m, %col], %zero {in_bounds = [true, true]} : memref<49x512xf32>, vector<7x32xf32>
      %r = scf.for %k = %c0 to %c512 step %c1 iter_args(%v = %acc) -> (vector<7x32xf32>) {
        %x = vector.transfer_read %a[%m, %k], %zero {in_bounds = [true, true]} : memref<49x512xf32>, vector<7x1xf32>
        %y = vector.transfer_read %b[%p, %k, %c0], %zero {in_bounds = [true]} : memref<4x512x32xf32>, vector<32xf32>
        %yb = vector.broadcast %y : vector<32xf32> to vector<1x32xf32>
        %s = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %yb, %v : vector<7x1xf32>, vector<1x32xf32> into vector<7x32xf32>
        scf.yield %s : vector<7x32xf32>
      }
      vector.transfer_write %r, %c[%m, %col] {in_bounds = [true, true]} : vector<7x32xf32>, memref<49x512xf32>
    }
  }
  return
}
