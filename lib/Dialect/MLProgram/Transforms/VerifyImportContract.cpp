//===- VerifyImportContract.cpp - Check the importers' output contract ----===//
//
// In the spirit of torch-mlir's VerifyLinalgOnTensorsBackendContract: one
// place states which dialects an importer may leave behind.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/Dialect/MLProgram/Transforms/Passes.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSet.h"

namespace mlprog {
#define GEN_PASS_DEF_VERIFYIMPORTCONTRACT
#include "mlprog/Dialect/MLProgram/Transforms/Passes.h.inc"
} // namespace mlprog

using namespace mlir;

namespace {
struct VerifyImportContractPass
    : mlprog::impl::VerifyImportContractBase<VerifyImportContractPass> {
  using Base::Base;

  void runOnOperation() override {
    static const llvm::StringSet<> allowed = {"builtin", "ml_program", "func",
                                              "linalg",  "tensor",     "arith",
                                              "math",    "scf",        "cf"};
    bool failed = false;
    getOperation()->walk([&](Operation *op) {
      StringRef dialect = op->getName().getDialectNamespace();
      if (!allowed.contains(dialect)) {
        op->emitError() << "import contract violated: '" << op->getName()
                        << "' is from dialect '" << dialect
                        << "', which importers must not emit";
        failed = true;
        return WalkResult::skip();
      }
      auto isMemRef = [](Type t) { return isa<BaseMemRefType>(t); };
      if (llvm::any_of(op->getResultTypes(), isMemRef) ||
          llvm::any_of(op->getOperandTypes(), isMemRef)) {
        op->emitError() << "import contract violated: '" << op->getName()
                        << "' uses a memref; importers work on tensors";
        failed = true;
      }
      return WalkResult::advance();
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
