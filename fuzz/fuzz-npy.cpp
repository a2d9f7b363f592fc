//===- fuzz-npy.cpp - NumPy .npy reader -----------------------------------===//
//
// Parses the bytes; a parsed array is serialized and parsed again and must
// come back with the same dtype, shape and bytes.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"
#include "mlprog/Formats/Npy.h"

#include <cstring>

using namespace mlprog;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool initialized = (fuzz::initLimits(), true);
  (void)initialized;
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  llvm::Expected<HostTensor> tensor = parseNpy(bytes, "fuzz.npy");
  if (!tensor) {
    llvm::consumeError(tensor.takeError());
    return 0;
  }
  std::string again = serializeNpy(*tensor);
  llvm::Expected<HostTensor> back = parseNpy(again, "again.npy");
  if (!back || back->getDType() != tensor->getDType() ||
      back->getShape() != tensor->getShape() ||
      std::memcmp(back->getData(), tensor->getData(), tensor->getNumBytes()))
    __builtin_trap();
  return 0;
}
