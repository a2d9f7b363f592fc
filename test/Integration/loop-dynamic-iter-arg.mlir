// A loop-carried value of dynamic type (an ONNX Scan state whose type is the
// join of its iterations, here tensor<?xf32>) feeding an elementwise op with
// a static result: the loop bounds of the lowered op come from the dynamic
// operand, a tensor.dim of a value defined inside scf.for, which is no valid
// affine dimension. The CPU pipeline lowers linalg to scf loops, so this
// compiles (it used to fail in convert-linalg-to-affine-loops) and runs.
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.array([1, 2], np.float32))"
// RUN: mlprog-run %s --entry main --input %t.x.npy --input %t.x.npy --print | FileCheck %s

// Three iterations of acc = acc + y starting from x.
// CHECK: output 0: shape (2,) dtype float32
// CHECK-NEXT: [4, 8]

#map = affine_map<(d0) -> (d0)>
ml_program.func @main(%x: tensor<?xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x) -> (tensor<?xf32>) {
    %e = tensor.empty() : tensor<2xf32>
    %s = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%acc, %y : tensor<?xf32>, tensor<2xf32>) outs(%e : tensor<2xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %sum = arith.addf %a, %b : f32
      linalg.yield %sum : f32
    } -> tensor<2xf32>
    %d = tensor.cast %s : tensor<2xf32> to tensor<?xf32>
    scf.yield %d : tensor<?xf32>
  }
  %out = tensor.cast %r : tensor<?xf32> to tensor<2xf32>
  ml_program.return %out : tensor<2xf32>
}
