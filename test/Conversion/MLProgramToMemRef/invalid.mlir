// RUN: mlprog-opt %s --convert-ml-program-to-memref --split-input-file -verify-diagnostics

// expected-error @+1 {{cannot be lowered yet: the bounding type 'tensor<?xf32>' is not a statically shaped tensor}}
ml_program.global private mutable @dynamic : tensor<?xf32>

// -----

// expected-error @+1 {{cannot be lowered yet: #ml_program.extern initial values need a weights bundle}}
ml_program.global private @external(#ml_program.extern : tensor<4xf32>) : tensor<4xf32>

// -----

ml_program.subgraph @unordered(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{uses a value defined later in subgraph @unordered}}
  %0 = arith.addf %1, %1 : tensor<4xf32>
  %1 = arith.addf %arg0, %arg0 : tensor<4xf32>
  ml_program.output %0 : tensor<4xf32>
}
