//===- GPUPasses.td - Passes of the GPU pipeline -----------*- tablegen -*-===//

#ifndef MLPROG_PIPELINES_GPUPASSES_TD
#define MLPROG_PIPELINES_GPUPASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// GPU pipeline (--mlprog-lower-to-gpu)
//===----------------------------------------------------------------------===//

def DeviceGlobalsPass
    : Pass<"mlprog-gpu-device-globals", "mlir::ModuleOp"> {
  let summary = "Copies constant globals used by host functions into "
                "buffers the GPU can read";
  let description = [{
    Kernels cannot read a global's host memory (.rodata, or a memory-mapped
    weights file). In every `func.func` with a body, each constant
    `memref.global` read with `memref.get_global` is copied once, at the
    function's entry, into a `memref.alloc` of the same shape and element
    type (identity layout; a `memref.cast` restores the global's type where
    it differs), and that buffer is freed with `memref.dealloc` before each
    `func.return`. All reads of one global in a function share the copy;
    `mlprog-gpu-host-alloc` later makes the buffer managed memory.

    Errors: a mutable global (its state would have to live in device memory
    between calls; not supported yet).
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def TileParallelLoopsPass
    : Pass<"mlprog-gpu-tile-parallel", "mlir::ModuleOp"> {
  let summary = "Collapses outermost scf.parallel loops to one dimension and "
                "tiles them by the thread-block size";
  let description = [{
    Turns every outermost `scf.parallel` in a `func.func` into blocks x
    threads: its dimensions are collapsed into one
    (`scf::collapseParallelLoops`), which is tiled by `block-size`
    (`scf::tileParallelLoop`) with constant inner bounds and an `scf.if`
    guard, so that `gpu-map-parallel-loops` maps the tile loop to the grid
    and the inner loop to the threads of a block. Nested parallel loops
    (reduction dimensions stay sequential inside a thread) are left alone.

    Errors: `block-size` outside [1, 1024].
  }];
  let options = [
    Option<"blockSize", "block-size", "int64_t", /*default=*/"256",
           "Threads per block">,
  ];
  let dependentDialects = [
    "mlir::affine::AffineDialect",
    "mlir::arith::ArithDialect",
    "mlir::scf::SCFDialect",
  ];
}

def ExpandMathPass : Pass<"mlprog-gpu-expand-math", "mlir::ModuleOp"> {
  let summary = "Expands and approximates math functions so kernels need no "
                "libdevice";
  let description = [{
    GPU-to-NVVM lowers `math.exp`, `floor`, `sqrt`, ... to calls to
    libdevice's `__nv_*` functions, which need the CUDA toolkit's
    `libdevice.10.bc` when the kernels are compiled. This pass rewrites
    them before that:

    - in kernels (inside a `gpu.module`), on scalar f16/bf16/f32/f64:
      `math.floor`, `ceil`, `roundeven` and `sqrt` become one PTX
      instruction (`cvt.rmi`, `cvt.rpi`, `cvt.rni`, `sqrt.rn`) through
      `llvm.inline_asm` (f16/bf16 through f32); `math.trunc` and `fma`
      become `llvm.intr.trunc` and `llvm.intr.fma`; `absf` and `copysign`
      sign-bit arithmetic; `round` a trunc plus a correction (half away
      from zero); `rsqrt` 1 / sqrt;
    - everywhere: upstream's math expansions, and f32 polynomial
      approximations of the transcendental functions (exp, log, tanh, erf,
      ...; f16/bf16 computed in f32), which also spares the host libm.

    Functions without an expansion for an element type (e.g. `exp` on f64)
    are left for NVVM; `mlprog-gpu-check-ptx` then reports them.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::math::MathDialect",
    "mlir::scf::SCFDialect",
    "mlir::LLVM::LLVMDialect",
    // The approximations of vector operands build vector.broadcast.
    "mlir::vector::VectorDialect",
  ];
}

def HostAllocToGPUPass : Pass<"mlprog-gpu-host-alloc", "mlir::ModuleOp"> {
  let summary = "Allocates host buffers as managed memory (gpu.alloc "
                "host_shared)";
  let description = [{
    Makes the buffers of host functions readable and writable by kernels
    and by the host: in every `func.func`, `memref.alloc` becomes
    `gpu.alloc host_shared` (managed memory, `cuMemAllocManaged`) of the
    same type, and `memref.dealloc` becomes a call to the runtime's
    `mlprog_cuda_dealloc(i64)` with the buffer's aligned pointer
    (upstream's `gpu.dealloc` lowering only supports the async form). The
    private declaration of `mlprog_cuda_dealloc` is added once when a
    dealloc was rewritten.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::func::FuncDialect",
    "mlir::gpu::GPUDialect",
    "mlir::memref::MemRefDialect",
  ];
}

def CheckPTXPass : Pass<"mlprog-gpu-check-ptx", "mlir::ModuleOp"> {
  let summary = "Rejects PTX that calls libdevice functions";
  let description = [{
    Runs after the kernels are serialized: fails when the text of an object
    of a `gpu.binary` still names a libdevice function (`__nv_*`). The
    driver cannot load such PTX without linking libdevice, which mlprog
    does not ship. Changes nothing.

    Errors: on the `gpu.binary`, listing the `__nv_*` names (a math
    operation with no expansion for its element type, such as `exp` on
    f64).
  }];
}

#endif // MLPROG_PIPELINES_GPUPASSES_TD
