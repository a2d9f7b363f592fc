// A matmul of an input with a weight global.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/a.npy', np.random.default_rng(0).standard_normal((2, 3), dtype=np.float32))"
// RUN: mlprog-run %s --input %t/a.npy --output-dir %t
// RUN: %python -c "import numpy as np; a = np.load('%t/a.npy'); w = np.arange(12, dtype=np.float32).reshape(3, 4) / 4; np.testing.assert_allclose(np.load('%t/output_0.npy'), a @ w, rtol=1e-5)"

ml_program.global private @w(dense<[[0.0, 0.25, 0.5, 0.75], [1.0, 1.25, 1.5, 1.75], [2.0, 2.25, 2.5, 2.75]]> : tensor<3x4xf32>) : tensor<3x4xf32>
ml_program.func @main(%a: tensor<2x3xf32>) -> tensor<2x4xf32> {
  %w = ml_program.global_load_const @w : tensor<3x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %r = linalg.matmul ins(%a, %w : tensor<2x3xf32>, tensor<3x4xf32>) outs(%init : tensor<2x4xf32>) -> tensor<2x4xf32>
  ml_program.return %r : tensor<2x4xf32>
}
