//===- ResourceLimits.h - Limits on what untrusted inputs may allocate
//-*-C++-*-===//
//
// Every reader of an untrusted file (ONNX initializers, MIL immediates and
// weight.bin blobs, safetensors bundles, .npy arrays) and mlprog-run check a
// tensor's byte size here before they allocate or map it: a size that
// overflows int64 or exceeds the configured limit is an error, not an
// attempted allocation.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_SUPPORT_RESOURCELIMITS_H
#define MLPROG_SUPPORT_RESOURCELIMITS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace mlprog {

/// The default limit on one tensor's byte size: 16 GiB.
inline constexpr uint64_t kDefaultMaxTensorBytes = uint64_t(1) << 34;

/// The largest byte size one tensor may have. In order of precedence: the
/// value of `setMaxTensorBytes` (the tools' `--max-tensor-bytes=N` option),
/// the environment variable `MLPROG_MAX_TENSOR_BYTES` (a decimal byte count;
/// ignored when malformed), `kDefaultMaxTensorBytes`. Never above INT64_MAX.
uint64_t getMaxTensorBytes();

/// Overrides the limit for this process (0 restores the default lookup).
void setMaxTensorBytes(uint64_t bytes);

/// Registers the command-line option `--max-tensor-bytes=N`, which calls
/// `setMaxTensorBytes(N)`. Tools that read tensors call it before parsing
/// their options; calling it again does nothing.
void registerResourceLimitOptions();

/// The byte size of a dense tensor of `shape` whose elements take
/// `elementBits` bits each (packed: ceil(count * bits / 8) bytes). Errors,
/// prefixed with `what` (e.g. "tensor 'w'"): a negative (or dynamic)
/// extent, an element or byte count that overflows int64, or a size above
/// `getMaxTensorBytes()`; the message names the limit and how to raise it.
llvm::Expected<uint64_t> checkTensorByteSize(llvm::ArrayRef<int64_t> shape,
                                             uint64_t elementBits,
                                             const llvm::Twine &what);

/// As `checkTensorByteSize` for a byte count already computed (a blob's
/// declared size).
llvm::Error checkByteLimit(uint64_t bytes, const llvm::Twine &what);

} // namespace mlprog

#endif // MLPROG_SUPPORT_RESOURCELIMITS_H
