// GPU execution: a fused elementwise chain with broadcasting and
// transcendental functions, f32 and f16, compared with the CPU JIT.
// REQUIRES: cuda-device
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(0); np.save('%t/a.npy', r.standard_normal((37, 1000), dtype=np.float32)); np.save('%t/b.npy', r.standard_normal((1000,), dtype=np.float32)); np.save('%t/h.npy', r.standard_normal((5000,)).astype(np.float16))"
// RUN: %python %S/Inputs/gpu_vs_cpu.py --bin %mlprog_obj_root/bin --work %t/f32 %s --entry chain --input %t/a.npy --input %t/b.npy | FileCheck %s
// RUN: %python %S/Inputs/gpu_vs_cpu.py --bin %mlprog_obj_root/bin --work %t/f16 %s --entry half --input %t/h.npy --rtol 2e-3 --atol 2e-3
// CHECK: elementwise.mlir: 1 output(s) agree

ml_program.func @chain(%a: tensor<37x1000xf32>, %b: tensor<1000xf32>) -> tensor<37x1000xf32> {
  %e = tensor.empty() : tensor<37x1000xf32>
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<37x1000xf32>, tensor<1000xf32>) outs(%e : tensor<37x1000xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = math.tanh %s : f32
    %u = math.exp %t : f32
    %v = math.erf %x : f32
    %f = math.floor %v : f32
    %q = math.sqrt %u : f32
    %w = arith.addf %q, %f : f32
    linalg.yield %w : f32
  } -> tensor<37x1000xf32>
  ml_program.return %r : tensor<37x1000xf32>
}

ml_program.func @half(%h: tensor<5000xf16>) -> tensor<5000xf16> {
  %a = math.absf %h : tensor<5000xf16>
  %s = math.sqrt %a : tensor<5000xf16>
  %e = math.exp %s : tensor<5000xf16>
  %r = math.round %e : tensor<5000xf16>
  ml_program.return %r : tensor<5000xf16>
}
