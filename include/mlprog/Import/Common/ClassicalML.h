//===- ClassicalML.h - Ops of classical machine learning --------*- C++ -*-===//
//
// The numeric ops of ONNX's `ai.onnx.ml` domain, as scikit-learn exports
// (sklearn-onnx) write them, built from the shared builders.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_CLASSICALML_H
#define MLPROG_IMPORT_COMMON_CLASSICALML_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlprog {

/// `y = x > threshold ? 1 : 0` elementwise, in x's float or integer type.
/// Errors: a tensor that is neither float nor integer.
/// Spec: ONNX-ML Binarizer (ai.onnx.ml version 1).
mlir::FailureOr<mlir::Value> buildBinarizer(mlir::OpBuilder &b,
                                            mlir::Location loc, mlir::Value x,
                                            double threshold);

/// The elements of `x` at `indices` (any shape, read flattened; integer)
/// along x's last axis: [..., N] -> [..., K] for K indices, and a 1-D x
/// [N] gives [1, K]. Negative indices count from the end.
/// Errors: a rank-0 x, non-integer indices.
/// Spec: ONNX-ML ArrayFeatureExtractor (ai.onnx.ml version 1).
mlir::FailureOr<mlir::Value> buildArrayFeatureExtractor(mlir::OpBuilder &b,
                                                        mlir::Location loc,
                                                        mlir::Value x,
                                                        mlir::Value indices);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_CLASSICALML_H
