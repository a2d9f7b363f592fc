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

/// Layer normalization results with statistics.
struct LayerNormResult {
  mlir::Value y;         ///< normalized, scaled and shifted x
  mlir::Value mean;      ///< mean over the normalized dims, kept as 1s
  mlir::Value invStdDev; ///< 1 / sqrt(var + epsilon), same shape as mean
};

/// Layer normalization of float `x` over `axes` (each in [-rank, rank),
/// distinct; empty means every axis):
/// `y = (x - mean) * invStdDev * gamma + beta`, with mean and the biased
/// variance taken over `axes` and invStdDev = 1 / sqrt(var + epsilon)
/// (math.rsqrt), all computed in x's element type. `gamma` and `beta` may be
/// null (1 and 0); a parameter whose shape is x's extents at `axes` (in
/// order) is spread over the other dims, any other shape broadcasts
/// numpy-style against `x` (ONNX's unidirectional broadcast of scale/B).
/// Errors: non-float or unranked `x`, bad axes, parameters of another
/// element type or a shape that does not broadcast.
/// Spec: MIL layer_norm; ONNX LayerNormalization (opset 17: axes =
/// [axis, rank), stash_type = 1 computed in the input type, with the Mean
/// and InvStdDev outputs); aten::layer_norm (trailing normalized_shape).
mlir::FailureOr<LayerNormResult>
buildLayerNorm(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
               llvm::ArrayRef<int64_t> axes, mlir::Value gamma,
               mlir::Value beta, double epsilon);

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
