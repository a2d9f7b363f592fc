//===- fuzz-mil.cpp - MIL Program / .mlmodel bytes -> importMIL -----------===//
//
// The buffer is named as if it lay in a fresh empty directory, so blob file
// references and .mlpackage manifests resolve to files that do not exist
// (or to absolute paths the input names, which must be refused safely).
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"
#include "mlprog/Import/MIL/ImportMIL.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace mlprog;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool initialized = (fuzz::initLimits(), true);
  (void)initialized;
  mlir::MLIRContext ctx;
  ctx.disableMultithreading();
  fuzz::DiagnosticCounter diags(ctx);
  auto buffer = llvm::MemoryBuffer::getMemBuffer(
      llvm::StringRef(reinterpret_cast<const char *>(data), size),
      "/nonexistent-mlprog-fuzz/model.mlmodel",
      /*RequiresNullTerminator=*/false);
  auto module = importMIL(*buffer, &ctx);
  fuzz::checkFailureExplained(!module, diags, "importMIL");
  return 0;
}
