//===- Normalization.h - Batch, layer and instance norms --------*- C++ -*-===//
//
// Format-independent normalizations of float tensors, composed from the
// reduction and elementwise builders: batch norm (inference and training),
// running averages, layer norm, instance norm, mean-variance normalization
// and local response normalization.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_NORMALIZATION_H
#define MLPROG_IMPORT_COMMON_NORMALIZATION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlprog {

/// Batch normalization in inference mode:
/// `y = scale * (x - mean) / sqrt(var + epsilon) + bias`, where `x` is
/// [N, C, D1, ...] (rank >= 2, float) and scale/bias/mean/var are [C] of the
/// same element type, broadcast along dimension 1.
/// Spec: ONNX BatchNormalization (training_mode = 0).
mlir::FailureOr<mlir::Value>
buildBatchNormInference(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                        mlir::Value scale, mlir::Value bias, mlir::Value mean,
                        mlir::Value var, double epsilon);

/// Result of buildBatchNormTraining.
struct BatchNormTrainingResult {
  mlir::Value output;      ///< normalized x, same type as x
  mlir::Value mean;        ///< [C] batch mean
  mlir::Value biasedVar;   ///< [C] batch variance, divided by N
  mlir::Value unbiasedVar; ///< [C] batch variance, divided by N - 1
};

/// Batch normalization of float `x` [N, C, D1...] with statistics over every
/// dim but 1: y = (x - mean) / sqrt(biasedVar + eps) * weight + bias, where
/// `weight`/`bias` are [C] or null (1 and 0). Also returns the statistics
/// the caller needs to update running averages.
/// Spec: aten::batch_norm with training=True; ONNX BatchNormalization
/// (training_mode = 1).
mlir::FailureOr<BatchNormTrainingResult>
buildBatchNormTraining(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                       mlir::Value weight, mlir::Value bias, double epsilon);

/// Exponential moving average of batch statistics: `running * keep + batch
/// * (1 - keep)` elementwise (numpy broadcasting), float tensors of one
/// element type. ONNX calls `keep` momentum; PyTorch's momentum is 1 - keep.
/// Spec: ONNX BatchNormalization running_mean/running_var (opset 14+).
mlir::FailureOr<mlir::Value>
buildRunningAverage(mlir::OpBuilder &b, mlir::Location loc, mlir::Value running,
                    mlir::Value batch, double keep);

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

/// Root-mean-square normalization of float `x` over `axes` (each in
/// [-rank, rank), distinct): `y = x / sqrt(mean(x^2) + epsilon) * scale`.
/// The first stage (up to the division) runs in `computeType` (null: x's
/// element type; ONNX stash_type), converted back to x's type; the product
/// with `scale` (any float type, numpy-broadcast against x, null for none)
/// is in scale's element type, which the result has.
/// Errors: non-float or unranked `x`, bad axes, a `scale` that does not
/// broadcast.
/// Spec: ONNX RMSNormalization (opset 23: axes = [axis, rank)); aten::rms_norm.
mlir::FailureOr<mlir::Value> buildRMSNorm(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value x,
                                          llvm::ArrayRef<int64_t> axes,
                                          mlir::Value scale, double epsilon,
                                          mlir::Type computeType = {});

/// Group normalization of float `x` [N, C, D1...] (rank >= 2, C static and
/// a multiple of `numGroups`): each instance's C / numGroups channels of a
/// group are normalized together over them and D1...,
/// `(x - mean) / sqrt(var + epsilon)` (computed in `computeType`, null: x's
/// element type, and converted back), then scaled by `scale` and shifted by
/// `bias`, both [C] (per channel) or [numGroups] (per group), x's type, or
/// null (none).
/// Errors: non-float `x`, rank < 2, dynamic or indivisible C, parameters of
/// other shapes or types.
/// Spec: ONNX GroupNormalization (opset 18: per-group scale/bias; opset 21:
/// per-channel, stash_type); aten::group_norm.
mlir::FailureOr<mlir::Value>
buildGroupNorm(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
               int64_t numGroups, mlir::Value scale, mlir::Value bias,
               double epsilon, mlir::Type computeType = {});

/// x / ||x||_p along `axis` (in [-rank, rank)) of float `x`: p = 1 divides
/// by sum(|x|), p = 2 by sqrt(sum(x * x)); where the norm is 0 the result
/// is 0 (onnx 1.23's reference and node tests).
/// Errors: p other than 1 or 2, an axis out of range, non-float `x`.
/// Spec: ONNX LpNormalization-1/22.
mlir::FailureOr<mlir::Value> buildLpNormalization(mlir::OpBuilder &b,
                                                  mlir::Location loc,
                                                  mlir::Value x, int64_t axis,
                                                  int64_t p);

/// x / sqrt(sum(x * x) + epsilon) of float `x`, the sum taken over `axes`
/// (each in [-rank, rank), distinct; empty means every axis) and broadcast
/// back; same type as `x`.
/// Errors: non-float or unranked `x`, bad axes.
/// Spec: MIL l2_norm (iOS15: axes = the last three dims, the leading ones
/// batch).
mlir::FailureOr<mlir::Value> buildL2Normalize(mlir::OpBuilder &b,
                                              mlir::Location loc, mlir::Value x,
                                              llvm::ArrayRef<int64_t> axes,
                                              double epsilon);
/// (x - mean) / (sqrt(mean(x^2) - mean^2) + 1e-9) with mean taken over
/// `axes`, float `x`.
/// Spec: ONNX MeanVarianceNormalization (function body, opset 13).
mlir::FailureOr<mlir::Value>
buildMeanVarianceNormalization(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value x, llvm::ArrayRef<int64_t> axes);

/// Local response normalization of float `x` [N, C, D1...] (rank >= 3, C
/// static or dynamic) across channels:
/// y = x / (bias + alpha / size * sum_{c' in window(c)} x[c']^2)^beta, the
/// window [c - floor((size-1)/2), c + ceil((size-1)/2)] clipped to [0, C)
/// (ONNX), or with `extraBefore` [c - ceil((size-1)/2), c + floor((size-1)/2)]
/// (aten, Core ML); the two differ for even sizes only.
/// Spec: ONNX LRN; aten::local_response_norm; MIL local_response_norm.
mlir::FailureOr<mlir::Value> buildLRN(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value x, int64_t size, double alpha,
                                      double beta, double bias,
                                      bool extraBefore = false);

/// Each sub-tensor of float `x` along `dim` (in [-rank, rank)) whose p-norm
/// (buildVectorNorm over the other dims) exceeds `maxNorm` scaled by
/// maxNorm / (norm + 1e-7); the others unchanged.
/// Errors: non-float or 0-d `x`, a dim out of range.
/// Spec: aten::renorm.
mlir::FailureOr<mlir::Value> buildRenorm(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value x, double p, int64_t dim,
                                         double maxNorm);

/// The rows of the float embedding table `weight` [V, D] named by the
/// integer `indices` (any shape) renormalized as buildRenorm along dim 0
/// (p-norm above `maxNorm` scaled to maxNorm / (norm + 1e-7)); the other
/// rows unchanged. The value torch's in-place op leaves in `weight`.
/// Errors: non-float or non-2-D weight, non-integer indices.
/// Spec: aten::embedding_renorm_ (F.embedding with max_norm).
mlir::FailureOr<mlir::Value>
buildEmbeddingRenorm(mlir::OpBuilder &b, mlir::Location loc, mlir::Value weight,
                     mlir::Value indices, double maxNorm, double p);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_NORMALIZATION_H
