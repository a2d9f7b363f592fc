// Two results of different shapes and element types, one computed twice
// from the same buffer.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.array([[1, -2], [3, 4], [-5, 6]], np.float32))"
// RUN: mlprog-run %s --input %t/x.npy --output-dir %t
// RUN: %python -c "import numpy as np; x = np.load('%t/x.npy'); np.testing.assert_allclose(np.load('%t/output_0.npy'), x * x); s = np.load('%t/output_1.npy'); assert s.shape == (3,), s.shape; np.testing.assert_allclose(s, x.sum(axis=1))"

ml_program.func @main(%x: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3xf32>) {
  %e = tensor.empty() : tensor<3x2xf32>
  %sq = linalg.mul ins(%x, %x : tensor<3x2xf32>, tensor<3x2xf32>) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e1 : tensor<3xf32>) -> tensor<3xf32>
  %sum = linalg.reduce ins(%x : tensor<3x2xf32>) outs(%init : tensor<3xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  ml_program.return %sq, %sum : tensor<3x2xf32>, tensor<3xf32>
}
