// The same matmul + convolution program gives numpy's numbers at every -O
// level, with 1 and 2 OpenMP threads, and when compiled for AVX2 only.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(0); np.save('%t/a.npy', r.standard_normal((96, 80), dtype=np.float32)); np.save('%t/b.npy', r.standard_normal((80, 112), dtype=np.float32)); np.save('%t/x.npy', r.standard_normal((1, 8, 9, 9), dtype=np.float32)); np.save('%t/w.npy', r.standard_normal((16, 8, 3, 3), dtype=np.float32))"
// RUN: mlprog-run -O0 %s --input %t/a.npy --input %t/b.npy --input %t/x.npy --input %t/w.npy --output-dir %t/o0
// RUN: mlprog-run -O1 %s --input %t/a.npy --input %t/b.npy --input %t/x.npy --input %t/w.npy --output-dir %t/o1
// RUN: mlprog-run -O2 --threads 1 %s --input %t/a.npy --input %t/b.npy --input %t/x.npy --input %t/w.npy --output-dir %t/o2t1
// RUN: env MLPROG_NUM_THREADS=2 mlprog-run %s --input %t/a.npy --input %t/b.npy --input %t/x.npy --input %t/w.npy --output-dir %t/o2t2
// RUN: mlprog-run -O3 --threads=2 %s --input %t/a.npy --input %t/b.npy --input %t/x.npy --input %t/w.npy --output-dir %t/o3
// RUN: mlprog-run --mcpu=haswell --mattr=+avx2,+fma %s --input %t/a.npy --input %t/b.npy --input %t/x.npy --input %t/w.npy --output-dir %t/avx2
// RUN: %python %S/Inputs/check-opt-levels.py %t o0 o1 o2t1 o2t2 o3 avx2
// RUN: not mlprog-run -O4 %s 2>&1 | FileCheck %s --check-prefix=BADOPT
// BADOPT: mlprog-run: error: -O4: the optimization level must be 0, 1, 2 or 3

ml_program.func @main(%a: tensor<96x80xf32>, %b: tensor<80x112xf32>, %x: tensor<1x8x9x9xf32>, %w: tensor<16x8x3x3xf32>) -> (tensor<96x112xf32>, tensor<1x16x7x7xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<96x112xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<96x112xf32>) -> tensor<96x112xf32>
  %r = linalg.matmul ins(%a, %b : tensor<96x80xf32>, tensor<80x112xf32>) outs(%init : tensor<96x112xf32>) -> tensor<96x112xf32>
  %ce = tensor.empty() : tensor<1x16x7x7xf32>
  %cinit = linalg.fill ins(%zero : f32) outs(%ce : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x9x9xf32>, tensor<16x8x3x3xf32>) outs(%cinit : tensor<1x16x7x7xf32>) -> tensor<1x16x7x7xf32>
  ml_program.return %r, %c : tensor<96x112xf32>, tensor<1x16x7x7xf32>
}
