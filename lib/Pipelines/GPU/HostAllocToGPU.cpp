//===- HostAllocToGPU.cpp - Host buffers as managed memory ----------------===//
//
// Implements --mlprog-gpu-host-alloc: memref.alloc → gpu.alloc host_shared,
// memref.dealloc → the CUDA runtime's mlprog_cuda_dealloc.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/GPUPipeline.h"
#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlprog {
#define GEN_PASS_DEF_HOSTALLOCTOGPUPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;

namespace {
struct HostAllocToGPUPass
    : public mlprog::impl::HostAllocToGPUPassBase<HostAllocToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    IRRewriter rewriter(&getContext());
    bool needsDealloc = false;
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      func.walk([&](memref::AllocOp alloc) {
        rewriter.setInsertionPoint(alloc);
        auto replacement = gpu::AllocOp::create(
            rewriter, alloc.getLoc(), alloc.getType(), /*asyncToken=*/Type(),
            ValueRange(), alloc.getDynamicSizes(), alloc.getSymbolOperands(),
            /*hostShared=*/true);
        rewriter.replaceOp(alloc, replacement.getMemref());
      });
      func.walk([&](memref::DeallocOp dealloc) {
        rewriter.setInsertionPoint(dealloc);
        Location loc = dealloc.getLoc();
        Value index = memref::ExtractAlignedPointerAsIndexOp::create(
            rewriter, loc, dealloc.getMemref());
        Value pointer = arith::IndexCastOp::create(
            rewriter, loc, rewriter.getI64Type(), index);
        func::CallOp::create(rewriter, loc, mlprog::kCudaDeallocFunction,
                             TypeRange(), pointer);
        rewriter.eraseOp(dealloc);
        needsDealloc = true;
      });
    }
    if (needsDealloc && !module.lookupSymbol(mlprog::kCudaDeallocFunction)) {
      rewriter.setInsertionPointToEnd(module.getBody());
      auto decl = func::FuncOp::create(
          rewriter, module.getLoc(), mlprog::kCudaDeallocFunction,
          rewriter.getFunctionType({rewriter.getI64Type()}, {}));
      decl.setPrivate();
    }
  }
};
} // namespace
