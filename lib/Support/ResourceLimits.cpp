//===- ResourceLimits.cpp - Limits on what untrusted inputs may allocate --===//

#include "mlprog/Support/ResourceLimits.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

#include <atomic>
#include <cstdlib>

using namespace llvm;

static std::atomic<uint64_t> maxTensorBytesOverride{0};

// A function-local static, not a global one: libraries register no options
// at load time (two Python extensions linking this file share libLLVM's
// option registry, where a second registration is a fatal error).
void mlprog::registerResourceLimitOptions() {
  static cl::opt<uint64_t> maxTensorBytesOption(
      "max-tensor-bytes", cl::value_desc("N"),
      cl::desc("Refuse tensors larger than N bytes in model, weight and .npy "
               "files (default: $MLPROG_MAX_TENSOR_BYTES, else 16 GiB)"),
      cl::init(0), cl::callback([](const uint64_t &bytes) {
        mlprog::setMaxTensorBytes(bytes);
      }));
}

uint64_t mlprog::getMaxTensorBytes() {
  uint64_t limit = maxTensorBytesOverride.load();
  if (limit == 0) {
    limit = kDefaultMaxTensorBytes;
    if (const char *env = std::getenv("MLPROG_MAX_TENSOR_BYTES")) {
      uint64_t value;
      if (!StringRef(env).trim().getAsInteger(10, value) && value > 0)
        limit = value;
    }
  }
  return std::min<uint64_t>(limit, INT64_MAX);
}

void mlprog::setMaxTensorBytes(uint64_t bytes) {
  maxTensorBytesOverride.store(bytes);
}

Error mlprog::checkByteLimit(uint64_t bytes, const Twine &what) {
  uint64_t limit = getMaxTensorBytes();
  if (bytes <= limit)
    return Error::success();
  return createStringError(what + " needs " + Twine(bytes) +
                           " bytes, more than the limit of " + Twine(limit) +
                           " (raise it with --max-tensor-bytes or "
                           "MLPROG_MAX_TENSOR_BYTES)");
}

Expected<uint64_t> mlprog::checkTensorByteSize(ArrayRef<int64_t> shape,
                                               uint64_t elementBits,
                                               const Twine &what) {
  int64_t count = 1;
  for (int64_t extent : shape) {
    if (extent < 0)
      return createStringError(what + " has a negative or unknown extent " +
                               Twine(extent));
    if (__builtin_mul_overflow(count, extent, &count))
      return createStringError(what + ": element count overflows int64");
  }
  int64_t bits;
  if (elementBits > INT64_MAX ||
      __builtin_mul_overflow(count, int64_t(elementBits), &bits) ||
      bits > INT64_MAX - 7)
    return createStringError(what + ": byte size overflows int64");
  uint64_t bytes = uint64_t(bits + 7) / 8;
  if (Error err = checkByteLimit(bytes, what))
    return std::move(err);
  return bytes;
}
