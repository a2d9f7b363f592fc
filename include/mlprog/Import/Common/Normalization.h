//===- Normalization.h - Layer and instance normalization -------*- C++ -*-===//
//
// Format-independent builders for normalizations on float tensors, composed
// from the reduction (buildReduce) and broadcasting elementwise builders.
// Batch normalization (inference) is buildBatchNormInference in
// Elementwise.h.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_NORMALIZATION_H
#define MLPROG_IMPORT_COMMON_NORMALIZATION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlprog {

/// Layer normalization of float `x` over `axes` (each in [-rank, rank),
/// distinct; empty means every axis):
/// `y = (x - mean) / sqrt(var + epsilon) * gamma + beta`, mean and (biased)
/// variance taken over `axes`. `gamma` and `beta` may be null (1 and 0);
/// otherwise their shape is x's extents at `axes` (in order) and they are
/// broadcast over the other dims.
/// Errors: non-float or unranked `x`, bad axes, gamma/beta of another shape
/// or element type.
/// Spec: MIL layer_norm; ONNX LayerNormalization (axes = [axis, rank));
/// aten::layer_norm (trailing normalized_shape).
mlir::FailureOr<mlir::Value> buildLayerNorm(mlir::OpBuilder &b,
                                            mlir::Location loc, mlir::Value x,
                                            llvm::ArrayRef<int64_t> axes,
                                            mlir::Value gamma, mlir::Value beta,
                                            double epsilon);

/// Instance normalization of float `x` [N, C, D1..Dn] (rank >= 3): each
/// (n, c) slice is normalized over D1..Dn, then scaled by `gamma` [C] and
/// shifted by `beta` [C] (either may be null: 1 and 0).
/// Spec: MIL instance_norm; ONNX InstanceNormalization;
/// aten::instance_norm (inference, no running stats).
mlir::FailureOr<mlir::Value>
buildInstanceNorm(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                  mlir::Value gamma, mlir::Value beta, double epsilon);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_NORMALIZATION_H
