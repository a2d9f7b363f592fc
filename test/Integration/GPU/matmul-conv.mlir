// GPU execution: a matmul with a constant weight, a batch matmul with a
// dynamic batch, and a strided 2-D convolution, compared with the CPU JIT.
// REQUIRES: cuda-device
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(2); np.save('%t/a.npy', r.standard_normal((200, 64), dtype=np.float32)); np.save('%t/p.npy', r.standard_normal((3, 17, 33), dtype=np.float32)); np.save('%t/q.npy', r.standard_normal((3, 33, 9), dtype=np.float32)); np.save('%t/img.npy', r.standard_normal((2, 3, 32, 32), dtype=np.float32)); np.save('%t/k.npy', r.standard_normal((8, 3, 3, 3), dtype=np.float32))"
// RUN: %python %S/Inputs/gpu_vs_cpu.py --bin %mlprog_obj_root/bin --work %t/mm %s --entry matmul --input %t/a.npy --rtol 1e-4 --atol 1e-4
// RUN: %python %S/Inputs/gpu_vs_cpu.py --bin %mlprog_obj_root/bin --work %t/bmm %s --entry bmm --input %t/p.npy --input %t/q.npy --rtol 1e-4 --atol 1e-4
// RUN: %python %S/Inputs/gpu_vs_cpu.py --bin %mlprog_obj_root/bin --work %t/conv %s --entry conv --input %t/img.npy --input %t/k.npy --rtol 1e-4 --atol 1e-4 | FileCheck %s
// CHECK: matmul-conv.mlir: 1 output(s) agree

ml_program.global private @w(dense<0.125> : tensor<64x48xf32>) : tensor<64x48xf32>
ml_program.func @matmul(%a: tensor<200x64xf32>) -> tensor<200x48xf32> {
  %w = ml_program.global_load_const @w : tensor<64x48xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<200x48xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<200x48xf32>) -> tensor<200x48xf32>
  %r = linalg.matmul ins(%a, %w : tensor<200x64xf32>, tensor<64x48xf32>) outs(%init : tensor<200x48xf32>) -> tensor<200x48xf32>
  ml_program.return %r : tensor<200x48xf32>
}

ml_program.func @bmm(%p: tensor<?x17x33xf32>, %q: tensor<?x33x9xf32>) -> tensor<?x17x9xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %p, %c0 : tensor<?x17x33xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x17x9xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x17x9xf32>) -> tensor<?x17x9xf32>
  %r = linalg.batch_matmul ins(%p, %q : tensor<?x17x33xf32>, tensor<?x33x9xf32>) outs(%init : tensor<?x17x9xf32>) -> tensor<?x17x9xf32>
  ml_program.return %r : tensor<?x17x9xf32>
}

ml_program.func @conv(%img: tensor<2x3x32x32xf32>, %k: tensor<8x3x3x3xf32>) -> tensor<2x8x15x15xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x15x15xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x8x15x15xf32>) -> tensor<2x8x15x15xf32>
  %r = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%img, %k : tensor<2x3x32x32xf32>, tensor<8x3x3x3xf32>) outs(%init : tensor<2x8x15x15xf32>) -> tensor<2x8x15x15xf32>
  ml_program.return %r : tensor<2x8x15x15xf32>
}
