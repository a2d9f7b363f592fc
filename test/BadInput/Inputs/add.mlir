// Two f32 inputs of shape (2, 4).
ml_program.func @main(%x: tensor<2x4xf32>, %y: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %init = tensor.empty() : tensor<2x4xf32>
  %s = linalg.add ins(%x, %y : tensor<2x4xf32>, tensor<2x4xf32>) outs(%init : tensor<2x4xf32>) -> tensor<2x4xf32>
  ml_program.return %s : tensor<2x4xf32>
}
