//===- AnnotateEntryPoints.cpp - Signatures and read-only inputs ----------===//
//
// Implements --mlprog-annotate-entry-points, the step of both pipelines that
// prepares public functions to be called from the host before bufferization.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/Pipelines/Passes.h"
#include "mlprog/Pipelines/Pipelines.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlprog {
#define GEN_PASS_DEF_ANNOTATEENTRYPOINTSPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;

namespace {
struct AnnotateEntryPointsPass
    : public mlprog::impl::AnnotateEntryPointsPassBase<
          AnnotateEntryPointsPass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func.isPublic() || func.isExternal())
        continue;
      if (!func->hasAttr(mlprog::kSignatureAttrName))
        func->setAttr(mlprog::kSignatureAttrName,
                      TypeAttr::get(mlprog::getHostSignature(func)));
      // The signature now spells unsigned values as uiN; the markers would
      // only be copied onto the fields of expanded memref descriptors.
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
        func.removeArgAttr(i, mlprog::kUnsignedAttrName);
      for (unsigned i = 0, e = func.getNumResults(); i < e; ++i)
        func.removeResultAttr(i, mlprog::kUnsignedAttrName);
      for (auto [index, type] : llvm::enumerate(func.getArgumentTypes()))
        if (isa<TensorType>(type) &&
            !func.getArgAttr(
                index, bufferization::BufferizationDialect::kWritableAttrName))
          func.setArgAttr(
              index, bufferization::BufferizationDialect::kWritableAttrName,
              BoolAttr::get(&getContext(), false));
    }
  }
};
} // namespace
