// A dynamic batch dimension on the input and the result, run with two batch
// sizes; the result shape comes from the returned descriptor.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x3.npy', np.arange(12, dtype=np.float32).reshape(3, 4)); np.save('%t/x1.npy', np.ones((1, 4), np.float32))"
// RUN: mlprog-run %s --input %t/x3.npy --output-dir %t/out3
// RUN: mlprog-run %s --input %t/x1.npy --output-dir %t/out1 --print | FileCheck %s
// RUN: %python -c "import numpy as np; b = np.array([10, 20, 30, 40], np.float32); [np.testing.assert_allclose(np.load('%t/out' + n + '/output_0.npy'), np.load('%t/x' + n + '.npy') * 2 + b) for n in '31']"

// CHECK: output 0: shape (1,4) dtype float32
// CHECK-NEXT: {{\[\[}}12, 22, 32, 42]]

ml_program.global private @b(dense<[10.0, 20.0, 30.0, 40.0]> : tensor<4xf32>) : tensor<4xf32>
ml_program.func @main(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %b = ml_program.global_load_const @b : tensor<4xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<?x4xf32>, tensor<4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%a: f32, %w: f32, %o: f32):
    %two = arith.addf %a, %a : f32
    %s = arith.addf %two, %w : f32
    linalg.yield %s : f32
  } -> tensor<?x4xf32>
  ml_program.return %r : tensor<?x4xf32>
}
