// GPU execution: row sums, a column max and a full sum (a 0-d result),
// compared with the CPU JIT.
// REQUIRES: cuda-device
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.random.default_rng(1).standard_normal((513, 300), dtype=np.float32))"
// RUN: %python %S/Inputs/gpu_vs_cpu.py --bin %mlprog_obj_root/bin --work %t/r %s --input %t/x.npy --rtol 1e-4 --atol 1e-4 | FileCheck %s
// CHECK: reduction.mlir: 3 output(s) agree

ml_program.func @main(%x: tensor<513x300xf32>) -> (tensor<513xf32>, tensor<300xf32>, tensor<f32>) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e0 = tensor.empty() : tensor<513xf32>
  %i0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<513xf32>) -> tensor<513xf32>
  %rows = linalg.reduce ins(%x : tensor<513x300xf32>) outs(%i0 : tensor<513xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %e1 = tensor.empty() : tensor<300xf32>
  %i1 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<300xf32>) -> tensor<300xf32>
  %cols = linalg.reduce ins(%x : tensor<513x300xf32>) outs(%i1 : tensor<300xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %e2 = tensor.empty() : tensor<f32>
  %i2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<f32>) -> tensor<f32>
  %all = linalg.reduce ins(%x : tensor<513x300xf32>) outs(%i2 : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  ml_program.return %rows, %cols, %all : tensor<513xf32>, tensor<300xf32>, tensor<f32>
}
