// A global read from the raw bytes at OFFSET of FILE (a test substitutes
// both with sed): external-storage-confinement.test.
ml_program.global private @w(#ml_program.extern : tensor<2xf32>) : tensor<2xf32> {ml_program.external_storage = #ml_program.external_storage<file = "FILE", offset = OFFSET>}
ml_program.func @main() -> tensor<2xf32> {
  %w = ml_program.global_load_const @w : tensor<2xf32>
  ml_program.return %w : tensor<2xf32>
}
