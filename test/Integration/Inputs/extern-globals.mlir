// Every form of global the CPU lowering handles: extern from a safetensors
// key, extern by symbol name from the default bundle, a mutable extern raw
// blob, a mutable scalar and an immutable global with a dynamic bounding
// type.
ml_program.global private @w(#ml_program.extern : tensor<2x3xf32>) : tensor<2x3xf32> {ml_program.external_storage = #ml_program.external_storage<file = "bundle.safetensors", key = "w">}
ml_program.global private @b(#ml_program.extern : tensor<3xf32>) : tensor<3xf32>
ml_program.global private mutable @acc(#ml_program.extern : tensor<3xf32>) : tensor<3xf32> {ml_program.external_storage = #ml_program.external_storage<file = "blob.bin", offset = 16, length = 12>}
ml_program.global private mutable @count(0 : i64) : i64
ml_program.global private @dyn(dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<?xf32>
ml_program.func @main() -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, i64, tensor<?xf32>) {
  %w = ml_program.global_load_const @w : tensor<2x3xf32>
  %b = ml_program.global_load_const @b : tensor<3xf32>
  %a = ml_program.global_load @acc : tensor<3xf32>
  %s = arith.addf %a, %b : tensor<3xf32>
  ml_program.global_store @acc = %s : tensor<3xf32>
  %c = ml_program.global_load @count : i64
  %one = arith.constant 1 : i64
  %c1 = arith.addi %c, %one : i64
  ml_program.global_store @count = %c1 : i64
  %d = ml_program.global_load_const @dyn : tensor<?xf32>
  ml_program.return %w, %b, %s, %c1, %d : tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, i64, tensor<?xf32>
}
