//===- ResampleAntialias.h - Antialiased resizing (internal) ----*- C++ -*-===//
//
// The antialiased path of buildResize, shared between Resample.cpp and
// ResampleAntialias.cpp; not part of the builders' public interface.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_LIB_IMPORT_COMMON_RESAMPLEANTIALIAS_H
#define MLPROG_LIB_IMPORT_COMMON_RESAMPLEANTIALIAS_H

#include "mlprog/Import/Common/Resample.h"

#include <optional>

namespace mlprog::detail {

/// A float (or integer) OpFoldResult's compile-time value, if it has one.
std::optional<double> constantFloat(mlir::OpFoldResult v);

/// buildResize with `options.antialias` (Linear/Cubic): one weight matrix
/// per resized dim after the ONNX reference's antialiasing filter (see
/// buildResize). Static input extents, sizes and scales.
/// Errors: run-time extents, sizes or scales (unsupported), the tf
/// coordinate transforms (unsupported), empty extents.
mlir::FailureOr<mlir::Value>
buildAntialiasedResize(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                       llvm::ArrayRef<mlir::OpFoldResult> outSizes,
                       llvm::ArrayRef<mlir::OpFoldResult> scales,
                       const ResizeOptions &options);

} // namespace mlprog::detail

#endif // MLPROG_LIB_IMPORT_COMMON_RESAMPLEANTIALIAS_H
