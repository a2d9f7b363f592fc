// The PTX we emit assembles with NVIDIA's ptxas for sm_80 and sm_90, when
// ptxas happens to be installed (it is not a dependency of mlprog).
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t/sm90 %t/sm80
// RUN: mlprog-opt %s --mlprog-lower-to-gpu="chip=sm_90 features=+ptx80" -o %t/sm90.mlir
// RUN: %python %mlprog_src_root/scripts/extract_ptx.py %t/sm90.mlir --split %t/sm90
// RUN: for f in %t/sm90/*.ptx; do %ptxas -arch=sm_90 $f -o $f.cubin || exit 1; done
// RUN: mlprog-opt %s --mlprog-lower-to-gpu -o %t/sm80.mlir
// RUN: %python %mlprog_src_root/scripts/extract_ptx.py %t/sm80.mlir --split %t/sm80
// RUN: for f in %t/sm80/*.ptx; do %ptxas -arch=sm_80 $f -o $f.cubin || exit 1; done
// RUN: ls %t/sm90/*.cubin | wc -l | FileCheck %s --check-prefix=COUNT
// COUNT: {{^}}6{{$}}

// Math that kernels compute without libdevice, on f32, f16 and f64 inputs,
// a broadcasting add, a row reduction and an integer select.
ml_program.func @math(%x: tensor<64xf32>, %h: tensor<64xf16>, %d: tensor<64xf64>)
    -> (tensor<64xf32>, tensor<64xf16>, tensor<64xf64>) {
  %a = math.floor %x : tensor<64xf32>
  %b = math.sqrt %a : tensor<64xf32>
  %c = math.erf %b : tensor<64xf32>
  %e = math.log %c : tensor<64xf32>
  %f = math.round %e : tensor<64xf32>
  %g = math.absf %f : tensor<64xf32>
  %r = math.rsqrt %g : tensor<64xf32>
  %s = math.powf %r, %x : tensor<64xf32>
  %h1 = math.exp %h : tensor<64xf16>
  %h2 = math.sqrt %h1 : tensor<64xf16>
  %d1 = math.sqrt %d : tensor<64xf64>
  %d2 = math.ceil %d1 : tensor<64xf64>
  ml_program.return %s, %h2, %d2 : tensor<64xf32>, tensor<64xf16>, tensor<64xf64>
}

ml_program.func @reduce(%x: tensor<8x16xf32>, %b: tensor<16xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %sum = linalg.generic {
      indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                       affine_map<(i, j) -> (i, j)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<8x16xf32>, tensor<16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %t = arith.addf %p, %q : f32
    linalg.yield %t : f32
  } -> tensor<8x16xf32>
  %e1 = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8xf32>) -> tensor<8xf32>
  %r = linalg.reduce ins(%sum : tensor<8x16xf32>) outs(%init : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  ml_program.return %r : tensor<8xf32>
}
