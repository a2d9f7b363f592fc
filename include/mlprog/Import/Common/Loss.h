//===- Loss.h - Loss functions ----------------------------------*- C++ -*-===//
//
// Format-independent loss functions of float tensors (regression,
// classification, ranking and embedding losses), composed from the
// elementwise, reduction and gather builders, with torch's reductions.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_LOSS_H
#define MLPROG_IMPORT_COMMON_LOSS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlprog {

/// How a loss reduces its per-element values; the numbers are aten's
/// `int reduction` argument (at::Reduction::Reduction).
enum class LossReduction { None = 0, Mean = 1, Sum = 2 };

/// `loss` as it is (None), or its mean or sum over every element as a 0-d
/// tensor. Errors: a non-float `loss`.
/// Spec: aten apply_loss_reduction.
mlir::FailureOr<mlir::Value> buildLossReduction(mlir::OpBuilder &b,
                                                mlir::Location loc,
                                                mlir::Value loss,
                                                LossReduction reduction);

/// Elementwise regression losses of d = input - target.
enum class RegressionLossKind {
  MSE,      ///< d * d
  L1,       ///< |d|
  Huber,    ///< |d| < delta ? d * d / 2 : delta * (|d| - delta / 2)
  SmoothL1, ///< |d| < beta ? d * d / (2 beta) : |d| - beta / 2 (beta 0: L1)
};

/// The `kind` loss of float `input` and `target` (one element type, numpy
/// broadcast), `param` being Huber's delta or SmoothL1's beta, reduced.
/// Errors: non-float or mismatched operands, shapes that do not broadcast.
/// Spec: aten::mse_loss, l1_loss, huber_loss, smooth_l1_loss.
mlir::FailureOr<mlir::Value>
buildRegressionLoss(mlir::OpBuilder &b, mlir::Location loc,
                    RegressionLossKind kind, mlir::Value input,
                    mlir::Value target, double param, LossReduction reduction);

/// Kullback-Leibler divergence of log-probabilities `input` from `target`
/// (float, broadcast): target * log(target) - target * input (0 where
/// target is 0), or with `logTarget` exp(target) * (target - input);
/// reduced (Mean: over every element; batchmean is the caller's).
/// Spec: aten::kl_div.
mlir::FailureOr<mlir::Value>
buildKLDivLoss(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
               mlir::Value target, bool logTarget, LossReduction reduction);

/// Binary cross entropy of probabilities `input` and `target` (float, same
/// element type, broadcast): (target - 1) * max(log(1 - input), -100) -
/// target * max(log(input), -100), times `weight` (null: none), reduced.
/// Spec: aten::binary_cross_entropy.
mlir::FailureOr<mlir::Value>
buildBinaryCrossEntropy(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value input, mlir::Value target,
                        mlir::Value weight, LossReduction reduction);

/// Binary cross entropy of logits: (1 - target) * input -
/// log_sigmoid(input) * (1 + (posWeight - 1) * target), times `weight`;
/// `weight`/`posWeight` null for none; log_sigmoid(x) = min(x, 0) -
/// log1p(exp(-|x|)). Float operands of one element type, broadcast.
/// Spec: aten::binary_cross_entropy_with_logits.
mlir::FailureOr<mlir::Value>
buildBinaryCrossEntropyWithLogits(mlir::OpBuilder &b, mlir::Location loc,
                                  mlir::Value input, mlir::Value target,
                                  mlir::Value weight, mlir::Value posWeight,
                                  LossReduction reduction);

/// Negative log-likelihood of the float log-probabilities `input`
/// [N, C, D...] or [C] at the integer class indices `target` [N, D...] or
/// []: -weight[t] * input[n, t, d...], 0 where t == `ignoreIndex`; `weight`
/// [C] or null (ones). Mean divides the sum by the summed weights of the
/// targets not ignored (NaN when all are).
/// Errors: non-float input, non-integer target, mismatched ranks.
/// Spec: aten::nll_loss_nd (nll_loss, nll_loss2d).
mlir::FailureOr<mlir::Value>
buildNLLLoss(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
             mlir::Value target, mlir::Value weight, LossReduction reduction,
             int64_t ignoreIndex);

/// Cross entropy of the float logits `input` [N, C, D...] or [C] (classes
/// along dim 1, or 0 for 1-D): log_softmax over the classes, then with an
/// integer `target` the NLL loss (buildNLLLoss) mixed with label smoothing
/// `(1 - s) * nll + s / C * smooth`, smooth the weighted sum of -log p over
/// the classes (reduced like the NLL loss); with a float `target` (class
/// probabilities, input's shape, smoothed to t * (1 - s) + s / C) the loss
/// -sum(log p * t * weight) over the classes, Mean dividing the total by
/// numel / C.
/// Spec: aten::cross_entropy_loss.
mlir::FailureOr<mlir::Value>
buildCrossEntropyLoss(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                      mlir::Value target, mlir::Value weight,
                      LossReduction reduction, int64_t ignoreIndex,
                      double labelSmoothing);

/// Hinge embedding loss: (target != 1 ? max(margin - input, 0) : 0) +
/// (target != -1 ? input : 0), float operands broadcast, reduced.
/// Spec: aten::hinge_embedding_loss.
mlir::FailureOr<mlir::Value>
buildHingeEmbeddingLoss(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value input, mlir::Value target, double margin,
                        LossReduction reduction);

/// max(0, -target * (input1 - input2) + margin), float operands broadcast,
/// reduced. Spec: aten::margin_ranking_loss.
mlir::FailureOr<mlir::Value>
buildMarginRankingLoss(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value input1, mlir::Value input2,
                       mlir::Value target, double margin,
                       LossReduction reduction);

/// log1p(exp(-target * input)), float operands broadcast, reduced.
/// Spec: aten::soft_margin_loss.
mlir::FailureOr<mlir::Value>
buildSoftMarginLoss(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                    mlir::Value target, LossReduction reduction);

/// Cosine embedding loss of float `input1`, `input2` ([N, D] or [D]) and
/// `target` ([N] or []): cos = sum(x1 * x2) / sqrt((sum(x1^2) + 1e-12) *
/// (sum(x2^2) + 1e-12)) over the last dim; 1 - cos where target == 1,
/// max(cos - margin, 0) where target == -1, else 0; reduced.
/// Spec: aten::cosine_embedding_loss.
mlir::FailureOr<mlir::Value>
buildCosineEmbeddingLoss(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value input1, mlir::Value input2,
                         mlir::Value target, double margin,
                         LossReduction reduction);

/// Poisson negative log-likelihood: exp(input) - target * input with
/// `logInput`, else input - target * log(input + eps); with `full` plus the
/// Stirling term target * log(target) - target + log(2 pi target) / 2 where
/// target > 1. Float operands broadcast, reduced.
/// Spec: aten::poisson_nll_loss.
mlir::FailureOr<mlir::Value>
buildPoissonNLLLoss(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                    mlir::Value target, bool logInput, bool full, double eps,
                    LossReduction reduction);

/// max(margin + d(anchor, positive) - d(anchor, negative), 0), d the
/// pairwise distance (buildPairwiseDistance with `p`, `eps`); with `swap`
/// the negative distance is min(d(a, n), d(p, n)). Reduced.
/// Spec: aten::triplet_margin_loss.
mlir::FailureOr<mlir::Value>
buildTripletMarginLoss(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value anchor, mlir::Value positive,
                       mlir::Value negative, double margin, double p,
                       double eps, bool swap, LossReduction reduction);

/// Multi-class margin loss of float `input` [N, C] or [C] (C static) at the
/// integer class indices `target` [N] or []: for each row,
/// sum over i != y of max(0, margin - x[y] + x[i])^p * weight[y] / C, p 1
/// or 2, `weight` [C] or null. Reduced.
/// Errors: p other than 1 or 2, bad shapes, a dynamic C.
/// Spec: aten::multi_margin_loss.
mlir::FailureOr<mlir::Value>
buildMultiMarginLoss(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                     mlir::Value target, int64_t p, double margin,
                     mlir::Value weight, LossReduction reduction);

/// The multi-label margin loss of float `x` [N, C] (or [C], or 0-d as
/// [1]) and int `target` of x's shape, whose row lists class indices up to
/// the first -1: per row, sum over listed classes j and unlisted classes i
/// of max(0, 1 - (x[j] - x[i])), divided by C; then `reduction`.
/// Errors: non-float x, a target of another shape or non-integer type.
/// Spec: aten::multilabel_margin_loss.
mlir::FailureOr<mlir::Value>
buildMultiLabelMarginLoss(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                          mlir::Value target, LossReduction reduction);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_LOSS_H
