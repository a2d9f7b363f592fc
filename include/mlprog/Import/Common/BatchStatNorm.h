//===- BatchStatNorm.h - Batch statistics normalization builders -*- C++
//-*-===//
//
// Format-independent normalization builders that compute their statistics
// from the batch (batch norm in training mode, running averages), built from
// the reduction and elementwise builders. Layer norm is buildLayerNorm in
// Normalization.h. Inference-mode batch norm is
// buildBatchNormInference in Elementwise.h.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_BATCHSTATNORM_H
#define MLPROG_IMPORT_COMMON_BATCHSTATNORM_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlprog {

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

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_BATCHSTATNORM_H
