//===- fuzz-onnx.cpp - ONNX model bytes -> importONNX ---------------------===//
//
// Imports with --state=auto, so models with past_key_values.* / present.*
// names also reach the state bindings.
//
//===----------------------------------------------------------------------===//

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
  // --state=auto: every past_key_values.* input that has a present.*
  // output becomes a mutable global (StateBindings.cpp); a no-op for models
  // without those names.
  ONNXImportOptions options;
  options.autoState = true;
  auto module = importONNX(*buffer, &ctx, options);
  fuzz::checkFailureExplained(!module, diags, "importONNX");
  return 0;
}
