// RUN: rm -rf %t && mkdir -p %t
// RUN: mlprog-opt %s --mlprog-externalize-globals="threshold=16 bundle=%t/w.safetensors" -o %t/ext.mlir
// RUN: FileCheck %s < %t/ext.mlir
// The bundle follows the format (read by an independent Python reader).
// RUN: %python %S/Inputs/read_safetensors.py %t/w.safetensors | FileCheck %s --check-prefix=BUNDLE
// Internalizing restores the original module exactly.
// RUN: mlprog-opt %t/ext.mlir --mlprog-internalize-globals="weights-dir=%t" | FileCheck %s --check-prefix=BACK
// RUN: mlprog-opt %t/ext.mlir --mlprog-internalize-globals="weights-dir=%t" > %t/back.mlir
// RUN: mlprog-opt %s > %t/orig.mlir
// RUN: diff %t/orig.mlir %t/back.mlir
// The externalized module computes what the original does, its weights
// memory-mapped from the bundle beside it.
// RUN: mlprog-run %s --print > %t/orig.out
// RUN: mlprog-run %t/ext.mlir --print > %t/ext.out
// RUN: diff %t/orig.out %t/ext.out
// RUN: FileCheck %s --check-prefix=EXEC < %t/ext.out
// No bundle path is an error; nothing qualifies: no file is written.
// RUN: not mlprog-opt %s --mlprog-externalize-globals 2>&1 | FileCheck %s --check-prefix=NO-BUNDLE
// RUN: mlprog-opt %s --mlprog-externalize-globals="threshold=100000 bundle=%t/none.safetensors" -o /dev/null
// RUN: not test -e %t/none.safetensors

// CHECK-DAG: #[[BIG:.*]] = #ml_program.extern : tensor<2x3xf32>
// CHECK-DAG: #[[MASK:.*]] = #ml_program.extern : tensor<16xi1>
// CHECK: ml_program.global private @big(#[[BIG]]) : tensor<2x3xf32> {ml_program.external_storage = #ml_program.external_storage<file = "w.safetensors", key = "big">}
// State (a mutable global) stays inline, however large.
// CHECK: ml_program.global private mutable @splat(dense<7> : tensor<4xi64>) : tensor<4xi64>{{$}}
// CHECK: ml_program.global private @mask(#[[MASK]]) : tensor<16xi1> {ml_program.external_storage = #ml_program.external_storage<file = "w.safetensors", key = "mask">}
// Below the threshold: stays inline.
// CHECK: ml_program.global private @small(dense<1.000000e+00> : tensor<2xf32>) : tensor<2xf32>
// Not initialized: untouched.
// CHECK: ml_program.global private mutable @empty : tensor<8xf64>

// BUNDLE-NOT: splat
// BUNDLE: big F32 [2, 3] [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
// BUNDLE: mask BOOL [16] [True, False, True, False, True, False, True, False, True, False, True, False, True, False, True, False]

// BACK: ml_program.global private @big(dense<{{\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00], [4.000000e+00, 5.000000e+00, 6.000000e+00]]> : tensor<2x3xf32>)
// BACK-NOT: external_storage

// EXEC: output 0: shape (2,3) dtype float32
// EXEC-NEXT: {{\[\[}}1, 2, 3],
// EXEC: output 1: shape (4,) dtype int64
// EXEC-NEXT: [7, 7, 7, 7]

// NO-BUNDLE: error: --mlprog-externalize-globals needs a bundle path (bundle=FILE.safetensors)

ml_program.global private @big(dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>) : tensor<2x3xf32>
ml_program.global private mutable @splat(dense<7> : tensor<4xi64>) : tensor<4xi64>
ml_program.global private @mask(dense<[true, false, true, false, true, false, true, false, true, false, true, false, true, false, true, false]> : tensor<16xi1>) : tensor<16xi1>
ml_program.global private @small(dense<1.0> : tensor<2xf32>) : tensor<2xf32>
ml_program.global private mutable @empty : tensor<8xf64>

ml_program.func @main() -> (tensor<2x3xf32>, tensor<4xi64>) {
  %0 = ml_program.global_load_const @big : tensor<2x3xf32>
  %1 = ml_program.global_load @splat : tensor<4xi64>
  ml_program.return %0, %1 : tensor<2x3xf32>, tensor<4xi64>
}
