//===- Optimizer.h - Training update rules ----------------------*- C++ -*-===//
//
// One step of the gradient-descent optimizers of ONNX's training domain
// (ai.onnx.preview.training, version 1: Adagrad, Momentum, Adam): pure
// elementwise updates of a float tensor X from its gradient G and the
// optimizer's accumulated state, with a scalar learning rate R and update
// count T. Deterministic, so they run like any other op.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_OPTIMIZER_H
#define MLPROG_IMPORT_COMMON_OPTIMIZER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlprog {

/// Adagrad's attributes (ONNX defaults 0).
struct AdagradParams {
  double decayFactor = 0.0;
  double epsilon = 0.0;
  double normCoefficient = 0.0;
};

/// One Adagrad step of float tensor `x` (any shape) with gradient `g` and
/// accumulated squared gradient `h` (both x's shape and element type);
/// `r` is the learning rate (rank-0 float tensor), `t` the update count
/// (rank-0 integer tensor). Returns {X_new, H_new}:
///   r' = R / (1 + T * decay_factor)
///   G' = norm_coefficient * X + G
///   H_new = H + G' * G'
///   X_new = X - r' * G' / (sqrt(H_new) + epsilon)
/// Errors (emitted at `loc`): non-float X, mismatched shapes or types,
/// non-scalar R or T. Spec: ONNX Adagrad (ai.onnx.preview.training-1).
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
buildAdagrad(mlir::OpBuilder &b, mlir::Location loc, mlir::Value r,
             mlir::Value t, mlir::Value x, mlir::Value g, mlir::Value h,
             const AdagradParams &params);

/// Momentum's attributes (all required by the spec).
struct MomentumParams {
  double alpha = 0.0;
  double beta = 0.0;
  double normCoefficient = 0.0;
  /// "nesterov" instead of "standard" mode.
  bool nesterov = false;
};

/// One momentum step of `x` with gradient `g` and momentum `v` (shapes and
/// operands as buildAdagrad). Returns {X_new, V_new}:
///   G' = norm_coefficient * X + G
///   V_new = alpha * V + (T > 0 ? beta : 1) * G'
///   standard: X_new = X - R * V_new
///   nesterov: X_new = X - R * (G' + alpha * V_new)
/// Spec: ONNX Momentum (ai.onnx.preview.training-1).
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
buildMomentum(mlir::OpBuilder &b, mlir::Location loc, mlir::Value r,
              mlir::Value t, mlir::Value x, mlir::Value g, mlir::Value v,
              const MomentumParams &params);

/// Adam's attributes (ONNX defaults).
struct AdamParams {
  double alpha = 0.9;
  double beta = 0.999;
  double epsilon = 1e-6;
  double normCoefficient = 0.0;
  double normCoefficientPost = 0.0;
};

/// One Adam step of `x` with gradient `g`, first moment `v` and second
/// moment `h`. Returns {X_new, V_new, H_new}:
///   G' = norm_coefficient * X + G
///   V_new = alpha * V + (1 - alpha) * G'
///   H_new = beta * H + (1 - beta) * G' * G'
///   r' = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R
///   X_new = (1 - norm_coefficient_post) *
///           (X - r' * V_new / (sqrt(H_new) + epsilon))
/// Spec: ONNX Adam (ai.onnx.preview.training-1).
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
buildAdam(mlir::OpBuilder &b, mlir::Location loc, mlir::Value r, mlir::Value t,
          mlir::Value x, mlir::Value g, mlir::Value v, mlir::Value h,
          const AdamParams &params);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_OPTIMIZER_H
