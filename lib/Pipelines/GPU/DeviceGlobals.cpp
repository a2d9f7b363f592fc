//===- DeviceGlobals.cpp - Constant globals in device-readable buffers ----===//
//
// Implements --mlprog-gpu-device-globals: kernels cannot read a global's host
// memory, so each function copies the constant globals it uses into buffers
// that --mlprog-gpu-host-alloc later makes managed memory.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

namespace mlprog {
#define GEN_PASS_DEF_DEVICEGLOBALSPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;

namespace {
struct DeviceGlobalsPass
    : public mlprog::impl::DeviceGlobalsPassBase<DeviceGlobalsPass> {
  using Base::Base;

  void runOnOperation() override {
    SymbolTable symbols(getOperation());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (failed(copyGlobals(func, symbols)))
        return signalPassFailure();
    }
  }

  /// Replaces every memref.get_global of a constant global in `func` with a
  /// copy made at the entry and freed before each return. Fails (with a
  /// diagnostic) on a mutable global.
  static LogicalResult copyGlobals(func::FuncOp func, SymbolTable &symbols) {
    SmallVector<memref::GetGlobalOp> gets;
    func.walk([&](memref::GetGlobalOp op) { gets.push_back(op); });
    if (gets.empty())
      return success();
    SmallVector<func::ReturnOp> returns;
    func.walk([&](func::ReturnOp op) { returns.push_back(op); });
    llvm::DenseMap<StringAttr, Value> copies;
    OpBuilder builder(func.getBody());
    for (memref::GetGlobalOp get : gets) {
      auto global = symbols.lookup<memref::GlobalOp>(get.getName());
      if (!global)
        continue;
      if (!global.getConstant())
        return get.emitError("mutable global @")
               << get.getName()
               << " is not supported by --mlprog-lower-to-gpu yet (its state "
                  "would have to live in device memory across calls)";
      Value &copy = copies[get.getNameAttr().getAttr()];
      if (!copy) {
        auto type = cast<MemRefType>(get.getType());
        builder.setInsertionPointToStart(&func.getBody().front());
        Value source = memref::GetGlobalOp::create(builder, get.getLoc(), type,
                                                   get.getName());
        auto bufferType =
            MemRefType::get(type.getShape(), type.getElementType());
        copy = memref::AllocOp::create(builder, get.getLoc(), bufferType);
        memref::CopyOp::create(builder, get.getLoc(), source, copy);
        for (func::ReturnOp ret : returns) {
          builder.setInsertionPoint(ret);
          memref::DeallocOp::create(builder, get.getLoc(), copy);
        }
      }
      if (copy.getType() != get.getType()) {
        OpBuilder castBuilder(get);
        copy = memref::CastOp::create(castBuilder, get.getLoc(), get.getType(),
                                      copy);
      }
      get.replaceAllUsesWith(copy);
      get.erase();
    }
    return success();
  }
};
} // namespace
