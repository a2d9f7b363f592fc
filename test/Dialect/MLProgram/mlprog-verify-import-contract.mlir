// RUN: mlprog-opt %s --mlprog-verify-import-contract --split-input-file -verify-diagnostics | FileCheck %s

// A contract module passes unchanged.
// CHECK-LABEL: ml_program.func @contract
ml_program.global private @w(dense<1.0> : tensor<4xf32>) : tensor<4xf32>
ml_program.func @contract(%arg0: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  %w = ml_program.global_load_const @w : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%arg0, %w : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = scf.if %c -> tensor<4xf32> {
    %t = math.tanh %r : tensor<4xf32>
    scf.yield %t : tensor<4xf32>
  } else {
    scf.yield %r : tensor<4xf32>
  }
  ml_program.return %s : tensor<4xf32>
}

// -----

ml_program.func @memref_op(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{import contract violated: 'bufferization.to_buffer' is from dialect 'bufferization', which importers must not emit}}
  %m = bufferization.to_buffer %arg0 : tensor<4xf32> to memref<4xf32>
  ml_program.return %arg0 : tensor<4xf32>
}

// -----

ml_program.func @memref_value(%arg0: tensor<4xf32>, %m: memref<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{import contract violated: 'memref.load' is from dialect 'memref'}}
  %v = memref.load %m[%c0] : memref<4xf32>
  ml_program.return %arg0 : tensor<4xf32>
}

// -----

func.func private @sink(memref<4xf32>)
ml_program.func @memref_in_allowed_dialect(%m: memref<4xf32>) {
  // expected-error @+1 {{import contract violated: 'func.call' uses a memref; importers work on tensors}}
  func.call @sink(%m) : (memref<4xf32>) -> ()
  ml_program.return
}
