//===- RawElements.h - Raw bytes of elements attributes ---------*- C++ -*-===//
//
// The bytes of a global's inline initial value, as the bundle writer
// (--mlprog-externalize-globals) and the layout folds
// (--mlprog-fold-constant-transposes, --mlprog-fold-constant-panels) need
// them.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_DIALECT_MLPROGRAM_TRANSFORMS_RAWELEMENTS_H
#define MLPROG_DIALECT_MLPROGRAM_TRANSFORMS_RAWELEMENTS_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/Support/LLVM.h"

#include <vector>

namespace mlprog {

/// Bytes per stored element of `elementType`, an integer or float type: its
/// bit width rounded up to bytes (i1 takes one byte).
uint64_t getStoredElementSize(mlir::Type elementType);

/// The raw little-endian bytes of `value` (a dense or dense_resource
/// elements attribute of integers or floats) in C order, one element after
/// the other at getStoredElementSize bytes each. Splats and i1 values are
/// materialized into `storage`, which must outlive the result; otherwise
/// the result points into the attribute. Fails for other attributes and for
/// a dense_resource whose blob is missing or has the wrong size.
mlir::FailureOr<mlir::ArrayRef<char>>
getRawElementBytes(mlir::ElementsAttr value, std::vector<char> &storage);

/// `bytes` (C order, `elementSize` bytes per element, shape `shape`)
/// permuted like linalg.transpose with `permutation`: result dimension i is
/// input dimension permutation[i]. For weights whose layout is fixed at
/// compile time (--mlprog-fold-constant-transposes, the register-block
/// panels of --mlprog-fold-constant-panels).
std::vector<char> transposeRawElements(llvm::ArrayRef<char> bytes,
                                       llvm::ArrayRef<int64_t> shape,
                                       llvm::ArrayRef<int64_t> permutation,
                                       uint64_t elementSize);

/// The block of `bytes` (C order, `elementSize` bytes per element, shape
/// `shape`) at `offsets` of extents `sizes`, in C order, like a
/// tensor.extract_slice with unit strides; the block must lie inside
/// `shape`. For weights sliced by a split contraction
/// (--mlprog-fold-constant-panels).
std::vector<char> sliceRawElements(llvm::ArrayRef<char> bytes,
                                   llvm::ArrayRef<int64_t> shape,
                                   llvm::ArrayRef<int64_t> offsets,
                                   llvm::ArrayRef<int64_t> sizes,
                                   uint64_t elementSize);

} // namespace mlprog

#endif // MLPROG_DIALECT_MLPROGRAM_TRANSFORMS_RAWELEMENTS_H
