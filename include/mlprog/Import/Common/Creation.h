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

#include <optional>

namespace mlprog {

/// Materializes `value` as an `arith.constant` tensor; a tensor of strings
/// (a DenseStringElementsAttr of `!ml_program.string`) as buildStringTensor
/// (Strings.h) builds it, since string constants cannot be dense attributes
/// after import.
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

/// The 1-D tensor of `steps` (>= 0) values evenly spaced from the scalar
/// `start` to the scalar `end` (any int/float types), as PyTorch's CPU
/// kernels compute them: both bounds are first converted to `elementType`
/// (truncating for integers); step = (end - start) / (steps - 1); element i
/// is start + step * i below steps / 2 and end - step * (steps - 1 - i)
/// from there (steps == 1 gives [start]). Integer results compute in f64
/// and truncate; float results compute in `elementType`. With `base`
/// (logspace) each value v becomes base^v: for integers v and the power are
/// f32 (truncated at the end), for floats the power is taken in f64 and
/// rounded to `elementType`.
/// Errors: steps < 0, a non-int/float element type.
/// Spec: aten::linspace / aten::logspace (all overloads; bounds read with
/// Scalar::to<dtype>).
mlir::FailureOr<mlir::Value>
buildLinspace(mlir::OpBuilder &b, mlir::Location loc, mlir::Value start,
              mlir::Value end, int64_t steps, mlir::Type elementType,
              std::optional<double> base = std::nullopt);

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
