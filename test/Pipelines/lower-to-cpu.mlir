// RUN: mlprog-opt %s --mlprog-lower-to-cpu="opt-level=1" | FileCheck %s
// At -O2 the tanh is vector code (a polynomial), not a libm call per lane.
// RUN: mlprog-opt %s --mlprog-lower-to-cpu | FileCheck %s --check-prefix=O2
// O2-LABEL: llvm.func @main
// O2-NOT: llvm.call @tanhf
// O2: llvm.fdiv {{.*}} : vector<4xf32>
// O2-NOT: llvm.call @tanhf
// O2-LABEL: llvm.func @graph
// The whole import contract lowers to the LLVM dialect and nothing else.
// RUN: mlprog-opt %s --mlprog-lower-to-cpu | FileCheck %s --check-prefix=ONLY-LLVM
// ONLY-LLVM-NOT: {{(ml_program|func|linalg|tensor|memref|bufferization|affine|scf|cf|arith|math)\.}}

// CHECK: llvm.mlir.global private constant @bias(dense<5.000000e-01> : tensor<4xf32>)
ml_program.global private @bias(dense<0.5> : tensor<4xf32>) : tensor<4xf32>

// CHECK-LABEL: llvm.func @main
// CHECK-SAME: -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK: llvm.call @tanhf
ml_program.func @main(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %b = ml_program.global_load_const @bias : tensor<4xf32>
  %e = tensor.empty() : tensor<2x4xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<2x4xf32>, tensor<4xf32>) outs(%e : tensor<2x4xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %t = math.tanh %s : f32
    linalg.yield %t : f32
  } -> tensor<2x4xf32>
  ml_program.return %r : tensor<2x4xf32>
}

// Subgraphs are ordered and lowered too.
// CHECK-LABEL: llvm.func @graph
ml_program.subgraph @graph(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %z = arith.mulf %y, %y : tensor<2x4xf32>
  %y = arith.addf %x, %x : tensor<2x4xf32>
  ml_program.output %z : tensor<2x4xf32>
}
