//===- Shape.h - Reshape, transpose and concat builders ---------*- C++ -*-===//
//
// Format-independent builders for data-movement ops on ranked tensors,
// emitted as tensor.collapse_shape/expand_shape/reshape, linalg.transpose and
// tensor.insert_slice.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_SHAPE_H
#define MLPROG_IMPORT_COMMON_SHAPE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

namespace mlprog {

/// Resolves a requested reshape target against `inputShape` (which may hold
/// ShapedType::kDynamic): an entry 0 copies the input extent at the same
/// index (unless `allowZero`, where 0 is a literal zero extent), one entry -1
/// is inferred from the element count. The result holds extents >= 0 or
/// kDynamic where the input's dynamic extents leave it unknown.
/// Errors: more than one -1, entries < -1, 0 past the input rank, element
/// counts that cannot match.
/// Spec: ONNX Reshape (opset 5+, allowzero since 14); aten::view's -1.
mlir::FailureOr<llvm::SmallVector<int64_t>>
resolveReshapeShape(mlir::Location loc, llvm::ArrayRef<int64_t> inputShape,
                    llvm::ArrayRef<int64_t> requested, bool allowZero);

/// Reshapes `x` to `shape` (resolved: extents >= 0 or at most one
/// ShapedType::kDynamic), keeping the row-major element order. Static shapes
/// become collapse_shape + expand_shape; a dynamic result extent is computed
/// from the element count at run time (tensor.reshape).
mlir::FailureOr<mlir::Value> buildReshape(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value x,
                                          llvm::ArrayRef<int64_t> shape);

/// Flattens `x` [D0..Dr-1] to 2-D [D0*..*D(axis-1), Daxis*..*D(r-1)],
/// 0 <= axis <= r (callers normalize negative axes). An empty product is 1.
/// Spec: ONNX Flatten.
mlir::FailureOr<mlir::Value> buildFlatten(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value x,
                                          int64_t axis);

/// Permutes the dimensions of `x`: result dim i is input dim `perm[i]`.
/// `perm` must be a permutation of [0, rank).
/// Spec: ONNX Transpose; aten::permute.
mlir::FailureOr<mlir::Value> buildTranspose(mlir::OpBuilder &b,
                                            mlir::Location loc, mlir::Value x,
                                            llvm::ArrayRef<int64_t> perm);

/// Concatenates `inputs` (same rank >= 1 and element type, equal extents
/// except along `axis`) along `axis` in [-rank, rank).
/// Spec: ONNX Concat; aten::cat.
mlir::FailureOr<mlir::Value> buildConcat(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::ValueRange inputs, int64_t axis);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_SHAPE_H
