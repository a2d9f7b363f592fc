//===- fuzz-torchscript.cpp - TorchScript IR text -> importTorchScript ----===//
//
// IR text only: archives (zip, "PK\3\4") are libtorch's own reader.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"
#include "mlprog/Import/TorchScript/ImportTorchScript.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace mlprog;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool initialized = (fuzz::initLimits(), true);
  (void)initialized;
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  if (text.starts_with(llvm::StringRef("PK\x03\x04", 4)))
    return -1;
  mlir::MLIRContext ctx;
  ctx.disableMultithreading();
  fuzz::DiagnosticCounter diags(ctx);
  auto buffer =
      llvm::MemoryBuffer::getMemBuffer(text, "fuzz.ir",
                                       /*RequiresNullTerminator=*/false);
  TorchScriptImportOptions options;
  auto module = importTorchScript(*buffer, &ctx, options);
  fuzz::checkFailureExplained(!module, diags, "importTorchScript");
  return 0;
}
