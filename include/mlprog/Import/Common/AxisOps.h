//===- AxisOps.h - Norm reductions, scans, hardmax, LRN, einsum -*- C++ -*-===//
//
// Format-independent builders for ops that work along axes of a ranked
// tensor beyond Reduction.h: norm-style reductions, softmax
// variants over several axes, hardmax, cumulative sums, mean-variance and
// local response normalization, and einsum.
// They emit linalg.generic (and tensor reshapes), composed from the other
// builders where possible.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_AXISOPS_H
#define MLPROG_IMPORT_COMMON_AXISOPS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlprog {

/// Reductions composed of an elementwise map, a sum and a final function.
enum class NormReduceKind {
  L1,        ///< sum(|x|)
  L2,        ///< sqrt(sum(x * x))
  LogSum,    ///< log(sum(x))
  LogSumExp, ///< log(sum(exp(x))), computed as m + log(sum(exp(x - m)))
  SumSquare, ///< sum(x * x)
};

/// Reduces `x` over `axes` (as buildReduce: each in [-rank, rank), empty
/// means all, `keepDims` keeps unit dims). L1 and SumSquare accept signless
/// integers too; the others need floats.
/// Spec: ONNX ReduceL1/ReduceL2/ReduceLogSum/ReduceLogSumExp/ReduceSumSquare.
mlir::FailureOr<mlir::Value>
buildNormReduce(mlir::OpBuilder &b, mlir::Location loc, NormReduceKind kind,
                mlir::Value x, llvm::ArrayRef<int64_t> axes, bool keepDims);

/// 1 at the first maximum of `x` along the dims [axis, rank) taken jointly
/// (row-major order), 0 elsewhere; same shape and type as `x` (float or
/// signless integer). `coerce` = false uses the single dim `axis`.
/// Errors: rank 0, axis out of range.
/// Spec: ONNX Hardmax (opset < 13 coerces to 2-D at axis; 13+ one axis).
mlir::FailureOr<mlir::Value> buildHardmax(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value x,
                                          int64_t axis, bool coerce);

/// Cumulative sum of `x` (float or signless integer) along `axis` in
/// [-rank, rank). `exclusive` leaves out the element itself (the first
/// output is 0); `reverse` sums from the end. Emitted as one linalg.generic
/// with an extra reduction loop (quadratic in the axis extent).
/// Spec: ONNX CumSum (opset 11/14); numpy.cumsum; aten::cumsum.
mlir::FailureOr<mlir::Value> buildCumSum(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value x, int64_t axis,
                                         bool exclusive, bool reverse);

/// (x - mean) / (sqrt(mean(x^2) - mean^2) + 1e-9) with mean taken over
/// `axes`, float `x`.
/// Spec: ONNX MeanVarianceNormalization (function body, opset 13).
mlir::FailureOr<mlir::Value>
buildMeanVarianceNormalization(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value x, llvm::ArrayRef<int64_t> axes);

/// Local response normalization of float `x` [N, C, D1...] (rank >= 3, C
/// static or dynamic) across channels:
/// y = x / (bias + alpha / size * sum_{c' in window(c)} x[c']^2)^beta, the
/// window [c - floor((size-1)/2), c + ceil((size-1)/2)] clipped to [0, C).
/// Spec: ONNX LRN; aten::local_response_norm.
mlir::FailureOr<mlir::Value> buildLRN(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value x, int64_t size, double alpha,
                                      double beta, double bias);

/// Einstein summation of `operands` (float or signless integer tensors of
/// one element type) per `equation` ("ij,jk->ik", lower/upper case letters,
/// "..." for leading broadcast-free batch dims, repeated letters within an
/// operand for diagonals, implicit output = letters seen once, sorted).
/// Products accumulate in the element type.
/// Errors: malformed equations, rank or extent mismatches.
/// Spec: ONNX Einsum; numpy.einsum; aten::einsum.
mlir::FailureOr<mlir::Value> buildEinsum(mlir::OpBuilder &b, mlir::Location loc,
                                         llvm::StringRef equation,
                                         mlir::ValueRange operands);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_AXISOPS_H
