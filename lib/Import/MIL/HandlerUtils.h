//===- HandlerUtils.h - Helpers shared by the MIL op handlers ---*- C++ -*-===//
//
// Private to MLProgImportMIL. Tensor types, axes and the window parameters
// of conv and pooling, shared by the handler families.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_LIB_IMPORT_MIL_HANDLERUTILS_H
#define MLPROG_LIB_IMPORT_MIL_HANDLERUTILS_H

#include "Importer.h"

#include "mlprog/Import/Common/Conv.h"

namespace mlprog::mil_import {

/// Rank of a ranked tensor value.
int64_t rankOf(mlir::Value v);

/// Type of a ranked tensor value.
mlir::RankedTensorType typeOf(mlir::Value v);

/// Normalizes `axis` in [-rank, rank) to [0, rank); a located error when
/// out of range.
mlir::FailureOr<int64_t> normalizeAxis(OpContext &ctx, int64_t axis,
                                       int64_t rank);

/// The element type a MIL dtype string names: "bool", "int8".."int64",
/// "uint8".."uint64" (as signless integers), "fp16", "fp32", "fp64", "bf16";
/// a located "unsupported <op> dtype" error otherwise.
mlir::FailureOr<mlir::Type> parseDType(OpContext &ctx, llvm::StringRef dtype,
                                       llvm::StringRef op);

/// The strides, dilations, pad_type ("valid" default, "same", "same_lower",
/// "custom") and pad ([begin, end] per spatial dim) of conv and pooling.
/// "same"/"same_lower" on a dynamic spatial extent needs stride 1 there.
mlir::FailureOr<WindowParams> getWindowParams(OpContext &ctx, mlir::Value x,
                                              llvm::ArrayRef<int64_t> kernel,
                                              bool hasDilations);

/// The integers bound to parameter `name` when they are known at import
/// time: an immediate, a `const`, or a value an earlier op folded to an
/// arith.constant (e.g. `shape` of a static tensor). std::nullopt when the
/// parameter is absent or computed at run time; no diagnostic.
std::optional<llvm::SmallVector<int64_t>> foldedInts(OpContext &ctx,
                                                     llvm::StringRef name);

/// The declared type of output `i` (null when it has none or it is not a
/// ranked tensor type); used as a hint for run-time shapes.
mlir::RankedTensorType declaredType(OpContext &ctx, unsigned i);

/// The integers of the compile-time tuple parameter `name`: one scalar per
/// binding (how coremltools writes `reshape_like`'s begins/ends/end_masks),
/// or one binding holding them all; an error for run-time values.
mlir::FailureOr<llvm::SmallVector<int64_t>> getTupleInts(OpContext &ctx,
                                                         llvm::StringRef name);

} // namespace mlprog::mil_import

#endif // MLPROG_LIB_IMPORT_MIL_HANDLERUTILS_H
