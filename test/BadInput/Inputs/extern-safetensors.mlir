// A global read from w.safetensors (key "w") next to this file (or
// --weights-dir).
ml_program.global private @w(#ml_program.extern : tensor<2x4xf32>) : tensor<2x4xf32> {ml_program.external_storage = #ml_program.external_storage<file = "w.safetensors", key = "w">}
ml_program.func @main() -> tensor<2x4xf32> {
  %w = ml_program.global_load_const @w : tensor<2x4xf32>
  ml_program.return %w : tensor<2x4xf32>
}
