//===- EmitCInterface.cpp - C wrappers for public functions ---------------===//
//
// Implements --mlprog-emit-c-interface (`emit-c-interface=1` of
// --mlprog-lower-to-cpu).
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlprog {
#define GEN_PASS_DEF_EMITCINTERFACEPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;

namespace {
struct EmitCInterfacePass
    : public mlprog::impl::EmitCInterfacePassBase<EmitCInterfacePass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        func->setAttr("llvm.emit_c_interface", UnitAttr::get(&getContext()));
  }
};
} // namespace
