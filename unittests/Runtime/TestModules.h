//===- TestModules.h - IR shared by the runtime unit tests ------*- C++ -*-===//

#ifndef MLPROG_UNITTESTS_RUNTIME_TESTMODULES_H
#define MLPROG_UNITTESTS_RUNTIME_TESTMODULES_H

#include "llvm/ADT/StringRef.h"

namespace mlprog::testing {

/// Adds a constant global to the input; returns the input and the global
/// directly as extra results (both need clones to be owned by the caller).
constexpr llvm::StringLiteral kAddModule = R"mlir(
ml_program.global private @w(dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>) : tensor<4xf32>
ml_program.func @main(%arg0: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<4xf32>) {
  %w = ml_program.global_load_const @w : tensor<4xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %arg0, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%arg0, %w : tensor<?x4xf32>, tensor<4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x4xf32>
  ml_program.return %r, %arg0, %w : tensor<?x4xf32>, tensor<?x4xf32>, tensor<4xf32>
}
)mlir";

} // namespace mlprog::testing

#endif // MLPROG_UNITTESTS_RUNTIME_TESTMODULES_H
