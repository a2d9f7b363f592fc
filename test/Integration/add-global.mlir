// Elementwise add of an input and a constant global; checks the .npy output
// against numpy and the --print format.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.array([0.5, 1.5, -2.0, 10.0], np.float32))"
// RUN: mlprog-run %s --input %t/x.npy --output-dir %t/out --print | FileCheck %s
// RUN: %python -c "import numpy as np; x = np.load('%t/x.npy'); y = np.load('%t/out/output_0.npy'); assert y.dtype == np.float32; np.testing.assert_allclose(y, x + np.array([1, 2, 3, 4], np.float32))"

// CHECK: output 0: shape (4,) dtype float32
// CHECK-NEXT: [1.5, 3.5, 1, 14]

ml_program.global private @w(dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>) : tensor<4xf32>
ml_program.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %w = ml_program.global_load_const @w : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%arg0, %w : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  ml_program.return %r : tensor<4xf32>
}
