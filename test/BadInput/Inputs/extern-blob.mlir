// A global read from bytes [64, 96) of blob.bin (--weights-dir).
ml_program.global private @w(#ml_program.extern : tensor<2x4xf32>) : tensor<2x4xf32> {ml_program.external_storage = #ml_program.external_storage<file = "blob.bin", offset = 64, length = 32>}
ml_program.func @main() -> tensor<2x4xf32> {
  %w = ml_program.global_load_const @w : tensor<2x4xf32>
  ml_program.return %w : tensor<2x4xf32>
}
