// A weight kept in a separate file (see docs/weights.md).
ml_program.global private @w(#ml_program.extern : tensor<2x3xf32>) : tensor<2x3xf32> {ml_program.external_storage = #ml_program.external_storage<file = "bundle.safetensors", key = "w">}
ml_program.func @main() -> tensor<2x3xf32> {
  %w = ml_program.global_load_const @w : tensor<2x3xf32>
  ml_program.return %w : tensor<2x3xf32>
}
