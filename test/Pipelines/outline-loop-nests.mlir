// RUN: mlprog-opt %s --mlprog-outline-loop-nests='min-ops=4' | FileCheck %s
// RUN: mlprog-opt %s --mlprog-outline-loop-nests='min-ops=4' --convert-linalg-to-loops --convert-scf-to-cf --finalize-memref-to-llvm --convert-to-llvm --reconcile-unrealized-casts | FileCheck %s --check-prefix=LLVM

#id = affine_map<(d0) -> (d0)>

// Two layers that differ only in the buffers they read: each loop nest
// becomes a callee, the two equivalent ones are one callee called twice
// with different weights. The constants a nest uses are cloned into it
// (the loop bounds stay constant there); the buffers and the run-time
// extent are its arguments, in order of first use.
// CHECK-LABEL: func.func @layers
// CHECK-SAME: (%[[X:.*]]: memref<64xf32>, %[[W0:.*]]: memref<64xf32>, %[[W1:.*]]: memref<64xf32>, %[[N:.*]]: index)
// CHECK: %[[T:.*]] = memref.alloc() : memref<64xf32>
// CHECK: call @[[LAYER:layers_nest_[0-9]+]](%[[X]], %[[W0]], %[[N]], %[[T]])
// CHECK: call @[[LAYER]](%[[T]], %[[W1]], %[[N]], %[[X]])
// A loop goes however small; an scf.if only from min-ops operations.
// CHECK: call @[[ZERO:layers_nest_[0-9]+]](%[[T]])
// CHECK: scf.if
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
// A linalg op is outlined however small its body.
// CHECK: call @[[GENERIC:layers_nest_[0-9]+]](%[[X]], %[[T]])
// CHECK: return
func.func @layers(%x: memref<64xf32>, %w0: memref<64xf32>, %w1: memref<64xf32>,
                  %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %t = memref.alloc() : memref<64xf32>
  scf.for %i = %c0 to %c64 step %c1 {
    %a = memref.load %x[%i] : memref<64xf32>
    %b = memref.load %w0[%i] : memref<64xf32>
    %m = arith.mulf %a, %b : f32
    %r = arith.maximumf %m, %zero : f32
    %k = arith.minsi %i, %n : index
    memref.store %r, %t[%k] : memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    %a = memref.load %t[%i] : memref<64xf32>
    %b = memref.load %w1[%i] : memref<64xf32>
    %m = arith.mulf %a, %b : f32
    %r = arith.maximumf %m, %zero : f32
    %k = arith.minsi %i, %n : index
    memref.store %r, %x[%k] : memref<64xf32>
  }
  scf.for %i = %c0 to %c64 step %c1 {
    memref.store %zero, %t[%i] : memref<64xf32>
  }
  %small = arith.cmpi slt, %n, %c64 : index
  scf.if %small {
    memref.store %zero, %t[%n] : memref<64xf32>
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%t : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  memref.dealloc %t : memref<64xf32>
  return
}
// The callees follow their caller: private, internal to the LLVM module
// and never inlined; the one of the second layer is gone.
// CHECK: func.func private @[[GENERIC]](%{{.*}}: memref<64xf32>, %{{.*}}: memref<64xf32>)
// CHECK-SAME: llvm.linkage = #llvm.linkage<internal>, mlprog.outlined, passthrough = ["noinline"]
// CHECK: linalg.generic
// CHECK: func.func private @[[LAYER]](%{{.*}}: memref<64xf32>, %{{.*}}: memref<64xf32>, %{{.*}}: index, %{{.*}}: memref<64xf32>)
// CHECK-DAG: arith.constant 0 : index
// CHECK-DAG: arith.constant 1 : index
// CHECK-DAG: arith.constant 64 : index
// CHECK: scf.for
// CHECK-NOT: func.func private @layers_nest

// A nest that returns a buffer stays (it may be an alloca of the callee's
// frame), but the nests inside its regions are outlined; a loop result
// that is a scalar is the callee's result.
// CHECK-LABEL: func.func @nested
// CHECK: %[[B:.*]] = scf.if %{{.*}} -> (memref<64xf32>)
// CHECK: scf.yield
// CHECK: } else {
// CHECK: %[[A:.*]] = memref.alloc
// CHECK: func.call @[[FILL:nested_nest_[0-9]+]](%[[A]])
// CHECK: scf.yield %[[A]]
// CHECK: %[[S:.*]] = call @[[SUM:nested_nest_[0-9]+]](%[[B]]) : (memref<64xf32>) -> f32
// CHECK: return %[[B]], %[[S]]
func.func @nested(%c: i1, %x: memref<64xf32>) -> (memref<64xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %b = scf.if %c -> (memref<64xf32>) {
    scf.yield %x : memref<64xf32>
  } else {
    %a = memref.alloc() : memref<64xf32>
    scf.for %i = %c0 to %c64 step %c1 {
      %f = arith.index_cast %i : index to i32
      %g = arith.sitofp %f : i32 to f32
      %h = arith.mulf %g, %g : f32
      memref.store %h, %a[%i] : memref<64xf32>
    }
    scf.yield %a : memref<64xf32>
  }
  %s = scf.for %i = %c0 to %c64 step %c1 iter_args(%acc = %zero) -> (f32) {
    %a = memref.load %b[%i] : memref<64xf32>
    %e = math.exp %a : f32
    %m = arith.mulf %e, %a : f32
    %r = arith.addf %acc, %m : f32
    scf.yield %r : f32
  }
  return %b, %s : memref<64xf32>, f32
}
// CHECK-DAG: func.func private @[[SUM]](%{{.*}}: memref<64xf32>) -> f32
// CHECK-DAG: func.func private @[[FILL]](%{{.*}}: memref<64xf32>)

// LLVM-DAG: llvm.func internal @layers_nest_{{[0-9]+}}({{.*}}) attributes {{{.*}}passthrough = ["noinline"]
// LLVM-DAG: llvm.call @layers_nest_
