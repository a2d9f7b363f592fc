//===- Creation.h - Constants, fills, ranges and one-hot --------*- C++ -*-===//
//
// Format-independent builders that create tensors from scalars and
// attributes: constants, filled tensors, ranges (at compile or run time)
// and one-hot encodings.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_CREATION_H
#define MLPROG_IMPORT_COMMON_CREATION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlprog {

/// Materializes `value` as an `arith.constant` tensor.
/// Spec: ONNX Constant; aten::tensor constants.
mlir::Value buildConstant(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::DenseElementsAttr value);

/// A tensor of `sizes` (static or index Values) and `elementType` filled with
/// the scalar `value` (any int/float type, converted as buildConvertScalar),
/// emitted as linalg.fill.
/// Errors: a value that does not convert to `elementType`.
/// Spec: aten::full/zeros/ones; ONNX ConstantOfShape; MIL fill.
mlir::FailureOr<mlir::Value> buildFull(mlir::OpBuilder &b, mlir::Location loc,
                                       llvm::ArrayRef<mlir::OpFoldResult> sizes,
                                       mlir::Type elementType,
                                       mlir::Value value);

/// The 1-D tensor [start, start + step, ...) below `end` (above it for a
/// negative step) with ceil((end - start) / step) elements of `elementType`.
/// Errors: step 0.
/// Spec: aten::arange.start_step; ONNX Range.
mlir::FailureOr<mlir::Value> buildArange(mlir::OpBuilder &b, mlir::Location loc,
                                         double start, double end, double step,
                                         mlir::Type elementType);

/// The 1-D tensor [start, start + step, ...) stopping before `end`, of
/// ceil((end - start) / step) (at least 0) elements of `elementType`
/// (float or integer), computed at compile time. Errors: step == 0.
/// Spec: MIL range_1d; ONNX Range; numpy.arange.
mlir::FailureOr<mlir::DenseElementsAttr>
buildRangeAttr(mlir::Location loc, mlir::Type elementType, double start,
               double end, double step);

/// The 1-D tensor start, start + delta, ... of max(ceil((limit - start) /
/// delta), 0) elements, where start, limit and delta are 0-D tensors of one
/// numeric element type read at run time.
/// Spec: ONNX Range.
mlir::FailureOr<mlir::Value>
buildRangeDynamic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value start,
                  mlir::Value limit, mlir::Value delta);

/// One-hot encoding: `indices` (integer, any shape S) gains a new dim of
/// extent `depth` at `axis` in [0, rank(S)]; the element is `onValue` where
/// the new dim's index equals the index (negative indices count from
/// `depth`), `offValue` elsewhere (indices out of range give all off).
/// `onValue`/`offValue` are scalars of the result element type.
/// Spec: ONNX OneHot; tf.one_hot.
mlir::FailureOr<mlir::Value> buildOneHot(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value indices, int64_t depth,
                                         int64_t axis, mlir::Value offValue,
                                         mlir::Value onValue);

/// buildOneHot with a run-time `depth` (an index Value or attribute, >= 0;
/// the new dim is dynamic unless `depth` is an attribute).
/// Spec: ONNX OneHot with a non-constant depth input.
mlir::FailureOr<mlir::Value>
buildOneHotDynamic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value indices,
                   mlir::OpFoldResult depth, int64_t axis, mlir::Value offValue,
                   mlir::Value onValue);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_CREATION_H
