// A module already lowered by mlprog-opt --mlprog-lower-to-cpu runs too: the
// pipeline records the tensor signature as `mlprog.signature`.
// RUN: rm -rf %t && mkdir -p %t
// RUN: mlprog-opt --mlprog-lower-to-cpu %s -o %t/lowered.mlir
// RUN: FileCheck %s --check-prefix=LOWERED < %t/lowered.mlir
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.arange(8, dtype=np.float32).reshape(2, 4))"
// RUN: mlprog-run %t/lowered.mlir --input %t/x.npy --print | FileCheck %s
// RUN: not mlprog-run %t/lowered.mlir --input %t/x.npy --input %t/x.npy 2>&1 | FileCheck %s --check-prefix=ERR

// LOWERED: llvm.func @main({{.*}}mlprog.signature = (tensor<?x4xf32>) -> tensor<4x?xf32>
// CHECK: output 0: shape (4,2) dtype float32
// CHECK-NEXT: {{\[\[}}0, 4],
// CHECK-NEXT:  [1, 5],
// ERR: lowered.mlir: @main expects 1 input(s), got 2

ml_program.func @main(%x: tensor<?x4xf32>) -> tensor<4x?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<4x?xf32>
  %t = linalg.transpose ins(%x : tensor<?x4xf32>) outs(%e : tensor<4x?xf32>) permutation = [1, 0]
  ml_program.return %t : tensor<4x?xf32>
}
