// The PTX version follows the chip: without a +ptxNN in `features`, the
// pipeline uses the oldest PTX ISA the chip supports (sm_90: 7.8). A PTX
// version too old for the chip, a malformed one, or an unknown chip is an
// error when the pipeline is parsed — not LLVM's fatal error from the NVPTX
// backend ("PTX version 7.0 does not support target 'sm_90'").
// RUN: mlprog-opt %s --mlprog-lower-to-gpu="chip=sm_90" | FileCheck %s
// RUN: mlprog-opt %s --mlprog-lower-to-gpu="chip=sm_90a features=+ptx86" | FileCheck %s --check-prefix=EXPLICIT
// RUN: not mlprog-opt %s --mlprog-lower-to-gpu="chip=sm_90 features=+ptx70" 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not mlprog-opt %s --mlprog-lower-to-gpu="chip=sm_90 features=+ptxabc" 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not mlprog-opt %s --mlprog-lower-to-gpu="chip=sm_999" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not mlprog-compile %s --target=cuda --gpu-chip=sm_90 --gpu-features=+ptx70 -o %t.so 2>&1 | FileCheck %s --check-prefix=AOT
// The kernels' LLVM optimization level is 0-3, like the CPU pipeline's.
// RUN: mlprog-opt %s --mlprog-lower-to-gpu="chip=sm_90 opt-level=1" | FileCheck %s --check-prefix=O1
// RUN: not mlprog-opt %s --mlprog-lower-to-gpu="opt-level=7" 2>&1 | FileCheck %s --check-prefix=O7
// RUN: not mlprog-opt %s --mlprog-lower-to-gpu="opt-level=-1" 2>&1 | FileCheck %s --check-prefix=ONEG

// CHECK: gpu.binary @main_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx78">
// EXPLICIT: #nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">
// OLD: --mlprog-lower-to-gpu: PTX ISA 7.0 (features '+ptx70') does not support chip 'sm_90', which needs PTX 7.8 or later (+ptx78); leave +ptxNN out to get it
// BAD: --mlprog-lower-to-gpu: invalid PTX feature '+ptxabc' (expected +ptxNN, e.g. +ptx80)
// CHIP: --mlprog-lower-to-gpu: unknown GPU chip 'sm_999'
// AOT: PTX ISA 7.0 (features '+ptx70') does not support chip 'sm_90'
// O1: #nvvm.target<O = 1, chip = "sm_90"
// O7: '7' is not an optimization level 0-3
// ONEG: '-1' value invalid for uint argument

#map = affine_map<(d0) -> (d0)>
ml_program.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  ml_program.return %y : tensor<4xf32>
}
