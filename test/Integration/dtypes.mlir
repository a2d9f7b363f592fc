// Element types: i64, i8 (from int8 and uint8 arrays; written back signed),
// i1 <-> bool, f16, f64, and math functions resolved from the process (libm).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/i64.npy', np.array([1, -2, 3 << 40], np.int64)); np.save('%t/i8.npy', np.array([100, -100, 7, 0], np.int8)); np.save('%t/u8.npy', np.array([200, 1, 255, 0], np.uint8)); np.save('%t/b0.npy', np.array([True, False, True, False])); np.save('%t/b1.npy', np.array([True, True, False, False])); np.save('%t/f16.npy', np.array([0.5, -1.5, 2.0, 1000.0], np.float16)); np.save('%t/f64.npy', np.array([0.0, 1.0, -2.5], np.float64)); np.save('%t/f32.npy', np.array([-3.0, 0.25, 1.0], np.float32))"

// RUN: mlprog-run %s --entry add_i64 --input %t/i64.npy --input %t/i64.npy --output-dir %t/i64
// RUN: %python -c "import numpy as np; x = np.load('%t/i64.npy'); y = np.load('%t/i64/output_0.npy'); assert y.dtype == np.int64; np.testing.assert_array_equal(y, x + x)"

// RUN: mlprog-run %s --entry add_i8 --input %t/i8.npy --input %t/u8.npy --output-dir %t/i8
// RUN: %python -c "import numpy as np; a = np.load('%t/i8.npy'); b = np.load('%t/u8.npy').view(np.int8); y = np.load('%t/i8/output_0.npy'); assert y.dtype == np.int8, y.dtype; np.testing.assert_array_equal(y, a + b)"

// RUN: mlprog-run %s --entry xor_bool --input %t/b0.npy --input %t/b1.npy --output-dir %t/bool --print | FileCheck %s --check-prefix=BOOL
// RUN: %python -c "import numpy as np; y = np.load('%t/bool/output_0.npy'); assert y.dtype == np.bool_; np.testing.assert_array_equal(y, np.load('%t/b0.npy') ^ np.load('%t/b1.npy'))"
// BOOL: output 0: shape (4,) dtype bool
// BOOL-NEXT: [False, True, True, False]

// RUN: mlprog-run %s --entry mul_f16 --input %t/f16.npy --output-dir %t/f16
// RUN: %python -c "import numpy as np; x = np.load('%t/f16.npy'); y = np.load('%t/f16/output_0.npy'); assert y.dtype == np.float16; np.testing.assert_allclose(y, x * x)"

// RUN: mlprog-run %s --entry exp_f64 --input %t/f64.npy --output-dir %t/f64
// RUN: %python -c "import numpy as np; x = np.load('%t/f64.npy'); y = np.load('%t/f64/output_0.npy'); assert y.dtype == np.float64; np.testing.assert_allclose(y, np.exp(x), rtol=1e-12)"

// RUN: mlprog-run %s --entry tanh_f32 --input %t/f32.npy --output-dir %t/f32
// RUN: %python -c "import numpy as np; x = np.load('%t/f32.npy'); np.testing.assert_allclose(np.load('%t/f32/output_0.npy'), np.tanh(x), rtol=1e-6)"

#id = affine_map<(i) -> (i)>
func.func @add_i64(%a: tensor<3xi64>, %b: tensor<3xi64>) -> tensor<3xi64> {
  %e = tensor.empty() : tensor<3xi64>
  %r = linalg.add ins(%a, %b : tensor<3xi64>, tensor<3xi64>) outs(%e : tensor<3xi64>) -> tensor<3xi64>
  return %r : tensor<3xi64>
}
func.func @add_i8(%a: tensor<4xi8>, %b: tensor<4xi8>) -> tensor<4xi8> {
  %e = tensor.empty() : tensor<4xi8>
  %r = linalg.add ins(%a, %b : tensor<4xi8>, tensor<4xi8>) outs(%e : tensor<4xi8>) -> tensor<4xi8>
  return %r : tensor<4xi8>
}
func.func @xor_bool(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  %e = tensor.empty() : tensor<4xi1>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xi1>, tensor<4xi1>) outs(%e : tensor<4xi1>) {
  ^bb0(%x: i1, %y: i1, %o: i1):
    %z = arith.xori %x, %y : i1
    linalg.yield %z : i1
  } -> tensor<4xi1>
  return %r : tensor<4xi1>
}
func.func @mul_f16(%a: tensor<4xf16>) -> tensor<4xf16> {
  %e = tensor.empty() : tensor<4xf16>
  %r = linalg.mul ins(%a, %a : tensor<4xf16>, tensor<4xf16>) outs(%e : tensor<4xf16>) -> tensor<4xf16>
  return %r : tensor<4xf16>
}
func.func @exp_f64(%a: tensor<3xf64>) -> tensor<3xf64> {
  %e = tensor.empty() : tensor<3xf64>
  %r = linalg.exp ins(%a : tensor<3xf64>) outs(%e : tensor<3xf64>) -> tensor<3xf64>
  return %r : tensor<3xf64>
}
func.func @tanh_f32(%a: tensor<3xf32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<3xf32>) outs(%e : tensor<3xf32>) {
  ^bb0(%x: f32, %o: f32):
    %t = math.tanh %x : f32
    linalg.yield %t : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}
