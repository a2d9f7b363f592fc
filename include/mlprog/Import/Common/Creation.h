//===- Creation.h - Tensor creation builders --------------------*- C++ -*-===//
//
// Format-independent builders that create tensors from scalars: filled
// tensors and ranges.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_CREATION_H
#define MLPROG_IMPORT_COMMON_CREATION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlprog {

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

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_CREATION_H
