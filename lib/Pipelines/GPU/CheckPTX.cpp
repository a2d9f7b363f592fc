//===- CheckPTX.cpp - Reject kernels that call libdevice ------------------===//
//
// Implements --mlprog-gpu-check-ptx, the last step of --mlprog-lower-to-gpu.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSet.h"

namespace mlprog {
#define GEN_PASS_DEF_CHECKPTXPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;

/// The distinct libdevice function names (`__nv_` followed by identifier
/// characters) in `text`, separated by ", "; empty if there are none.
static std::string getLibdeviceCalls(StringRef text) {
  llvm::StringSet<> names;
  for (size_t pos = text.find("__nv_"); pos != StringRef::npos;
       pos = text.find("__nv_", pos + 1)) {
    size_t end = pos;
    while (end < text.size() && (isalnum(text[end]) || text[end] == '_'))
      ++end;
    names.insert(text.slice(pos, end));
  }
  std::string list;
  for (const auto &name : names)
    list += (list.empty() ? "" : ", ") + name.getKey().str();
  return list;
}

namespace {
struct CheckPTXPass : public mlprog::impl::CheckPTXPassBase<CheckPTXPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](gpu::BinaryOp binary) {
      for (Attribute attr : binary.getObjects()) {
        auto object = dyn_cast<gpu::ObjectAttr>(attr);
        if (!object)
          continue;
        std::string list = getLibdeviceCalls(object.getObject().getValue());
        if (list.empty())
          continue;
        binary.emitError("kernels call libdevice functions (")
            << list
            << "), which mlprog cannot link; the math operation has no "
               "expansion for this element type";
        signalPassFailure();
      }
    });
  }
};
} // namespace
