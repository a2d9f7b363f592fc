// Returning an argument directly: the deallocation pipeline clones it, the
// runner frees the clone and never the caller's input buffer. Repeated calls
// would crash on a double free.
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.arange(6, dtype=np.int32).reshape(2, 3))"
// RUN: mlprog-run %s --input %t/x.npy --output-dir %t/out --repeat 3 --print | FileCheck %s
// RUN: %python -c "import numpy as np; x = np.load('%t/x.npy'); np.testing.assert_array_equal(np.load('%t/out/output_0.npy'), x); np.testing.assert_array_equal(np.load('%t/out/output_1.npy'), x); np.testing.assert_array_equal(np.load('%t/out/output_2.npy'), x)"

// CHECK: output 0: shape (2,3) dtype int32
// CHECK-NEXT: {{\[\[}}0, 1, 2],
// CHECK-NEXT:  [3, 4, 5]]
// CHECK: output 2: shape (2,3) dtype int32

ml_program.func @main(%arg0: tensor<2x3xi32>) -> (tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>) {
  ml_program.return %arg0, %arg0, %arg0 : tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>
}
