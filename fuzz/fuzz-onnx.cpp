//===- fuzz-onnx.cpp - ONNX model bytes -> importONNX ---------------------===//
//
// A model whose bytes name a `past_key_values.` input is imported with
// --state=auto, so models with past_key_values.* / present.* names (and their
// mutations) also reach the state bindings; every other model is imported
// as mlprog-translate does by default (--state=auto refuses a model without
// such inputs).
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
  // output becomes a mutable global (StateBindings.cpp).
  ONNXImportOptions options;
  options.autoState = buffer->getBuffer().contains("past_key_values.");
  auto module = importONNX(*buffer, &ctx, options);
  fuzz::checkFailureExplained(!module, diags, "importONNX");
  return 0;
}
