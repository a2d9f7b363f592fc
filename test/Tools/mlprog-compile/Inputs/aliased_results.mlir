// Three results from one buffer: the whole of it twice and its last row (a
// view at an offset), then the input itself (see result-handover.test).
ml_program.func @main(%x: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<1x2xf32>, tensor<3x2xf32>) {
  %e = tensor.empty() : tensor<3x2xf32>
  %sq = linalg.mul ins(%x, %x : tensor<3x2xf32>, tensor<3x2xf32>) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %row = tensor.extract_slice %sq[2, 0] [1, 2] [1, 1] : tensor<3x2xf32> to tensor<1x2xf32>
  ml_program.return %sq, %sq, %row, %x : tensor<3x2xf32>, tensor<3x2xf32>, tensor<1x2xf32>, tensor<3x2xf32>
}
