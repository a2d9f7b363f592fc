// --mlprog-lower-to-gpu: host LLVM with kernel launches through the mgpu*
// runtime, PTX kernels for the requested chip. Each case checks the host IR
// and the PTX (extracted with scripts/extract_ptx.py).
// RUN: rm -rf %t && mkdir -p %t
// RUN: mlprog-opt %s --split-input-file --mlprog-lower-to-gpu="chip=sm_90 features=+ptx80" -o %t/gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t/gpu.mlir
// RUN: %python %mlprog_src_root/scripts/extract_ptx.py %t/gpu.mlir | FileCheck %s --check-prefix=PTX
// Only LLVM and the GPU binaries remain.
// RUN: FileCheck %s --check-prefix=ONLY-LLVM < %t/gpu.mlir
// ONLY-LLVM-NOT: {{(ml_program|func|linalg|tensor|memref|bufferization|affine|scf|cf|arith|math)\.}}
// ONLY-LLVM-NOT: gpu.launch {
// ONLY-LLVM-NOT: gpu.module

// An elementwise chain (add, mul, exp, tanh) is one kernel of 256-thread
// blocks; exp and tanh become arithmetic, so no libdevice call remains.
// HOST-LABEL: llvm.func @chain
// HOST: llvm.call @mgpuMemAlloc
// HOST: gpu.launch_func @chain_kernel::@chain_kernel blocks in
// HOST-NOT: gpu.launch_func
// HOST: llvm.return
// HOST: gpu.binary @chain_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
// PTX-LABEL: // gpu.binary @chain_kernel
// PTX: .version 8.0
// PTX: .target sm_90
// PTX: .visible .entry chain_kernel(
// PTX: .maxntid 256, 1, 1
// PTX: mov.u32 {{.*}}%ctaid.x
// PTX: mov.u32 {{.*}}%tid.x
// PTX-NOT: __nv_
// PTX: cvt.rmi.f32.f32
// PTX-NOT: __nv_
// PTX: ret;
ml_program.func @chain(%a: tensor<4x1000xf32>, %b: tensor<4x1000xf32>) -> tensor<4x1000xf32> {
  %s = arith.addf %a, %b : tensor<4x1000xf32>
  %m = arith.mulf %s, %a : tensor<4x1000xf32>
  %e = math.exp %m : tensor<4x1000xf32>
  %t = math.tanh %e : tensor<4x1000xf32>
  ml_program.return %t : tensor<4x1000xf32>
}

// -----

// A row reduction: one thread per output row, the reduced dimension a loop.
// HOST-LABEL: llvm.func @row_sum
// HOST-COUNT-2: gpu.launch_func
// HOST: llvm.return
// PTX-LABEL: // gpu.binary @row_sum_kernel_0
// PTX: .visible .entry row_sum_kernel(
// PTX: .maxntid 256, 1, 1
// PTX: add.rn.f32
ml_program.func @row_sum(%x: tensor<300x70xf32>) -> tensor<300xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<300xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<300xf32>) -> tensor<300xf32>
  %sum = linalg.reduce ins(%x : tensor<300x70xf32>) outs(%init : tensor<300xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %r = arith.addf %in, %acc : f32
      linalg.yield %r : f32
    }
  ml_program.return %sum : tensor<300xf32>
}

// -----

// A matmul with a constant weight global: the global is copied into managed
// memory at entry (kernels cannot read host .rodata) and freed through the
// runtime before returning.
// HOST-LABEL: llvm.mlir.global private constant @w
// HOST-LABEL: llvm.func @matmul
// HOST: llvm.call @mgpuMemAlloc
// HOST: "llvm.intr.memcpy"
// HOST: gpu.launch_func @matmul_kernel
// HOST: gpu.launch_func @matmul_kernel_0
// HOST: llvm.call @mlprog_cuda_dealloc
// HOST: llvm.return
// PTX-LABEL: // gpu.binary @matmul_kernel_0
// PTX: .visible .entry matmul_kernel(
// PTX: mul.rn.f32
// PTX: add.rn.f32
ml_program.global private @w(dense<0.5> : tensor<64x32xf32>) : tensor<64x32xf32>
ml_program.func @matmul(%a: tensor<128x64xf32>) -> tensor<128x32xf32> {
  %w = ml_program.global_load_const @w : tensor<64x32xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x32xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<128x32xf32>) -> tensor<128x32xf32>
  %r = linalg.matmul ins(%a, %w : tensor<128x64xf32>, tensor<64x32xf32>) outs(%init : tensor<128x32xf32>) -> tensor<128x32xf32>
  ml_program.return %r : tensor<128x32xf32>
}

// -----

// Dynamic sizes: the grid is computed on the host from the runtime size.
// HOST-LABEL: llvm.func @dynamic
// HOST: llvm.sdiv
// HOST: gpu.launch_func @dynamic_kernel::@dynamic_kernel blocks in
ml_program.func @dynamic(%a: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %r = arith.negf %a : tensor<?x3xf32>
  ml_program.return %r : tensor<?x3xf32>
}
