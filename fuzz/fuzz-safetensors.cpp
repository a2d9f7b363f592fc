//===- fuzz-safetensors.cpp - safetensors header and entry reader ---------===//
//
// Parses the bytes as a bundle and, when that succeeds, reads every entry's
// bytes through the file's own view (which must lie inside the input).
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"
#include "mlprog/Formats/SafeTensors.h"

using namespace mlprog;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool initialized = (fuzz::initLimits(), true);
  (void)initialized;
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  auto file = SafeTensorsFile::parse(bytes, "fuzz.safetensors");
  if (!file) {
    llvm::consumeError(file.takeError());
    return 0;
  }
  for (const SafeTensorsEntry &entry : (*file)->getEntries()) {
    if ((*file)->lookup(entry.name) == nullptr)
      __builtin_trap();
    llvm::StringRef view = (*file)->getData(entry);
    if (view.size() != entry.byteSize)
      __builtin_trap();
    volatile char sink = 0;
    if (!view.empty())
      sink = view.front() ^ view.back();
    (void)sink;
  }
  return 0;
}
