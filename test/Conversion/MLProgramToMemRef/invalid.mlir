// RUN: mlprog-opt %s --convert-ml-program-to-memref --split-input-file -verify-diagnostics

// expected-error @+1 {{cannot be lowered: the bounding type 'tensor<*xf32>' must be a ranked tensor or a scalar}}
ml_program.global private mutable @unranked : tensor<*xf32>

// -----

// expected-error @+1 {{cannot be lowered: the bounding type 'tensor<?xf32>' needs a statically shaped initial value}}
ml_program.global private @dynamic_extern(#ml_program.extern : tensor<?xf32>) : tensor<?xf32>

// -----

// expected-error @+1 {{must be ordered into an 'ml_program.func' first (run --mlprog-topological-sort)}}
ml_program.subgraph @graph(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  ml_program.output %arg0 : tensor<4xf32>
}
