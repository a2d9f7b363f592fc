//===- fuzz-onnx.cpp - ONNX model bytes -> importONNX ---------------------===//

#include "FuzzCommon.h"
#include "mlprog/Import/ONNX/ImportONNX.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace mlprog;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool initialized = (fuzz::initLimits(), true);
  (void)initialized;
  mlir::MLIRContext ctx;
  ctx.disableMultithreading();
  fuzz::DiagnosticCounter diags(ctx);
  auto buffer = llvm::MemoryBuffer::getMemBuffer(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz.onnx",
      /*RequiresNullTerminator=*/false);
  auto module = importONNX(*buffer, &ctx);
  fuzz::checkFailureExplained(!module, diags, "importONNX");
  return 0;
}
