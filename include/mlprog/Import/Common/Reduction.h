//===- Reduction.h - Reductions, softmax and arg max/min --------*- C++ -*-===//
//
// Format-independent reductions of ranked tensors over a set of axes (sum,
// mean, max, min, product, variance, arg max/min, softmax, log-softmax),
// emitted as linalg.generic with reduction iterators.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_REDUCTION_H
#define MLPROG_IMPORT_COMMON_REDUCTION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlprog {

/// Softmax of float `x` taken jointly over `axes` (each in [-rank, rank),
/// distinct), same shape as `x`: exp(x - max) / sum(exp(x - max)), the max
/// and sum over `axes`; subtracting the max keeps exp from overflowing.
/// ONNX opset < 13 ("coerce to 2-D at axis") is axes = [axis, rank); opset
/// >= 13 is the single axis.
/// Spec: ONNX Softmax; aten::softmax.
mlir::FailureOr<mlir::Value> buildSoftmax(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value x,
                                          llvm::ArrayRef<int64_t> axes);

/// Reductions over a set of axes.
enum class ReduceKind { Sum, Mean, Max, Min, Prod };

/// Reduces `x` (float or signless integer; Mean float only) over `axes`
/// (each in [-rank, rank), duplicates rejected; empty means every axis).
/// With `keepDims` the reduced dims stay as extent 1, otherwise they are
/// dropped (a full reduction gives a rank-0 tensor). Max/Min of floats
/// propagate NaN; accumulation is in the element type.
/// Spec: MIL reduce_sum/mean/max/min/prod; ONNX ReduceSum/Mean/Max/Min/Prod
/// (axes given); aten::sum/mean/amax/amin/prod.
mlir::FailureOr<mlir::Value> buildReduce(mlir::OpBuilder &b, mlir::Location loc,
                                         ReduceKind kind, mlir::Value x,
                                         llvm::ArrayRef<int64_t> axes,
                                         bool keepDims);

/// Variance of float `x` over `axes` (empty: all): the mean of squared
/// deviations divided by (N - correction), N the reduced element count
/// (correction 0: biased/population, 1: unbiased/sample).
/// Spec: aten::var.correction, torch.var(unbiased=...).
mlir::FailureOr<mlir::Value> buildVariance(mlir::OpBuilder &b,
                                           mlir::Location loc, mlir::Value x,
                                           llvm::ArrayRef<int64_t> axes,
                                           bool keepDims, int64_t correction);

/// Index (i64) of the first maximum (`isMax`) or minimum of `x` along `axis`
/// in [-rank, rank); the axis is dropped unless `keepDims`.
/// With `selectLast` the last extreme index is returned instead;
/// `isUnsigned` compares integers as unsigned.
/// Spec: aten::argmax/argmin (with dim), ONNX ArgMax/ArgMin
/// (select_last_index).
mlir::FailureOr<mlir::Value> buildArgReduce(mlir::OpBuilder &b,
                                            mlir::Location loc, mlir::Value x,
                                            int64_t axis, bool keepDims,
                                            bool isMax, bool selectLast = false,
                                            bool isUnsigned = false);

/// `log(softmax(x))` taken jointly over `axes` (each in [-rank, rank),
/// distinct), same shape as `x`: x - m - log(sum(exp(x - m))), m the max
/// over `axes` (subtracting it keeps exp from overflowing). Float only.
/// Errors: non-float or unranked `x`, bad axes.
/// Spec: aten::log_softmax (one dim); ONNX LogSoftmax (opset < 13: axes =
/// [axis, rank); 13+: [axis]).
mlir::FailureOr<mlir::Value> buildLogSoftmax(mlir::OpBuilder &b,
                                             mlir::Location loc, mlir::Value x,
                                             llvm::ArrayRef<int64_t> axes);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_REDUCTION_H
