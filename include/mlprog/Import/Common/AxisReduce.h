//===- AxisReduce.h - Reductions over axes ----------------------*- C++ -*-===//
//
// Format-independent reductions of ranked tensors over a set of axes (sum,
// mean, max, min, product, variance, arg max/min, log-softmax), emitted as
// linalg.generic with reduction iterators.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_AXISREDUCE_H
#define MLPROG_IMPORT_COMMON_AXISREDUCE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlprog {

// Sum/mean/max/min/prod reductions are buildReduce (Reduction.h).

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

/// `log(softmax(x))` along `axis`, computed as x - max - log(sum(exp(x -
/// max))) for stability. Float only.
/// Spec: aten::log_softmax; ONNX LogSoftmax (opset 13).
mlir::FailureOr<mlir::Value> buildLogSoftmax(mlir::OpBuilder &b,
                                             mlir::Location loc, mlir::Value x,
                                             int64_t axis);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_AXISREDUCE_H
