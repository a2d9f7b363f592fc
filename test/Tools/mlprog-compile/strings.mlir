// The C ABI has no string dtype yet: a string tensor at the boundary of an
// entry point is refused by name, before anything is compiled.
// RUN: not mlprog-compile %s -o %t.so 2>&1 | FileCheck %s
// CHECK: @upper: argument 0 is a tensor of strings (tensor<2x!ml_program.string>), which the C ABI does not support yet

ml_program.func @upper(%s: tensor<2x!ml_program.string>) -> tensor<2x!ml_program.string> {
  %e = tensor.empty() : tensor<2x!ml_program.string>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%s : tensor<2x!ml_program.string>) outs(%e : tensor<2x!ml_program.string>) {
  ^bb0(%a: !ml_program.string, %o: !ml_program.string):
    %u = ml_program.string_upper %a
    linalg.yield %u : !ml_program.string
  } -> tensor<2x!ml_program.string>
  ml_program.return %r : tensor<2x!ml_program.string>
}
