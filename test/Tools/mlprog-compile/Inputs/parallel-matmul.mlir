// A matmul large enough that -O2 splits it into several output tiles, run
// in parallel by OpenMP (aot-vs-jit.test).
func.func @main(%a: tensor<256x96xf32>, %b: tensor<96x320xf32>) -> tensor<256x320xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x320xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<256x320xf32>) -> tensor<256x320xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x96xf32>, tensor<96x320xf32>) outs(%init : tensor<256x320xf32>) -> tensor<256x320xf32>
  return %r : tensor<256x320xf32>
}
