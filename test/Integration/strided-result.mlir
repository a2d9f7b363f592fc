// Returning a strided slice of the input: the deallocation pipeline clones
// the non-contiguous view, whose memref.copy calls memrefCopy from
// libmlir_c_runner_utils (registered with the JIT by the runner).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.arange(20, dtype=np.float32).reshape(4, 5))"
// RUN: mlprog-run %s --input %t/x.npy --output-dir %t --print | FileCheck %s
// RUN: %python -c "import numpy as np; x = np.load('%t/x.npy'); np.testing.assert_array_equal(np.load('%t/output_0.npy'), x[1:4:2, 0:5:2])"

// CHECK: output 0: shape (2,3) dtype float32
// CHECK-NEXT: {{\[\[}}5, 7, 9],
// CHECK-NEXT:  [15, 17, 19]]

ml_program.func @main(%x: tensor<4x5xf32>) -> tensor<2x3xf32> {
  %s = tensor.extract_slice %x[1, 0] [2, 3] [2, 2] : tensor<4x5xf32> to tensor<2x3xf32>
  ml_program.return %s : tensor<2x3xf32>
}
