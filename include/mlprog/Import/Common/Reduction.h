//===- Reduction.h - Reductions, softmax, scans and top-k -------*- C++ -*-===//
//
// Format-independent reductions of ranked tensors over a set of axes (sum,
// mean, max, min, product, variance, norms, arg max/min, softmax,
// log-softmax, hardmax), cumulative sums and top-k, emitted as linalg.generic
// with reduction iterators.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_REDUCTION_H
#define MLPROG_IMPORT_COMMON_REDUCTION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <utility>

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

/// buildSoftmax over the single `axis`, with 0 (not NaN) in the slices
/// whose elements are all -inf (fully masked attention rows).
/// Spec: aten::_safe_softmax.
mlir::FailureOr<mlir::Value> buildSafeSoftmax(mlir::OpBuilder &b,
                                              mlir::Location loc, mlir::Value x,
                                              int64_t axis);

/// The gradient of softmax along `axis` (in [-rank, rank)) given the
/// softmax `output` and the gradient `grad` of the result (float, one
/// shape): output * (grad - sum(grad * output, axis)).
/// Spec: aten::_softmax_backward_data.
mlir::FailureOr<mlir::Value>
buildSoftmaxBackward(mlir::OpBuilder &b, mlir::Location loc, mlir::Value grad,
                     mlir::Value output, int64_t axis);

/// Reductions over a set of axes.
enum class ReduceKind { Sum, Mean, Max, Min, Prod };

/// Reduces `x` (float or signless integer; Mean float only) over `axes`
/// (each in [-rank, rank), duplicates rejected; empty means every axis).
/// With `keepDims` the reduced dims stay as extent 1, otherwise they are
/// dropped (a full reduction gives a rank-0 tensor). Max/Min of floats
/// propagate NaN; accumulation is in the element type. Max/Min of `i1`
/// compare unsigned (false < true): any/all.
/// Spec: MIL reduce_sum/mean/max/min/prod; ONNX ReduceSum/Mean/Max/Min/Prod
/// (axes given); aten::sum/mean/amax/amin/prod.
mlir::FailureOr<mlir::Value> buildReduce(mlir::OpBuilder &b, mlir::Location loc,
                                         ReduceKind kind, mlir::Value x,
                                         llvm::ArrayRef<int64_t> axes,
                                         bool keepDims);

/// Variance of float `x` over `axes` (empty: all): the mean of squared
/// deviations divided by max(N - correction, 0), N the reduced element count
/// (correction 0: biased/population, 1: unbiased/sample; any real number).
/// Spec: aten::var.correction, torch.var(unbiased=...).
mlir::FailureOr<mlir::Value> buildVariance(mlir::OpBuilder &b,
                                           mlir::Location loc, mlir::Value x,
                                           llvm::ArrayRef<int64_t> axes,
                                           bool keepDims, double correction);

/// Index (i64) of the first maximum (`isMax`) or minimum of `x` along `axis`
/// in [-rank, rank); the axis is dropped unless `keepDims`.
/// With `selectLast` the last extreme index is returned instead;
/// `isUnsigned` compares integers as unsigned. A float NaN counts as the
/// extreme (max and min): the index of the first NaN, as torch returns.
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

/// buildReduce over axes known only at run time: `axes` is a 1-D signless
/// integer tensor (entries in [-rank, rank), distinct; static or dynamic
/// length). Empty axes (at run time) mean every dim, or none when
/// `noopWithEmptyAxes`. `x` may have dynamic extents. With `keepDims` the
/// result has `x`'s rank, an extent dynamic where the dim may be reduced;
/// without it `axes` needs a static length k (the result has rank - k).
/// Each dim is reduced under an scf.if on whether `axes` names it.
/// Errors: `x` not a ranked numeric tensor (Mean: float), `axes` not 1-D
/// integer, `keepDims` = false with a dynamic-length `axes`.
/// Spec: ONNX ReduceSum-13 / ReduceMean/Max/Min/Prod-18 with a non-constant
/// axes input.
mlir::FailureOr<mlir::Value>
buildReduceRuntimeAxes(mlir::OpBuilder &b, mlir::Location loc, ReduceKind kind,
                       mlir::Value x, mlir::Value axes, bool keepDims,
                       bool noopWithEmptyAxes);

/// buildNormReduce over run-time `axes`, as buildReduceRuntimeAxes (same
/// axes rules, element types as buildNormReduce). LogSumExp is unsupported.
/// Spec: ONNX ReduceL1/L2/LogSum/SumSquare-18 with a non-constant axes input.
mlir::FailureOr<mlir::Value>
buildNormReduceRuntimeAxes(mlir::OpBuilder &b, mlir::Location loc,
                           NormReduceKind kind, mlir::Value x, mlir::Value axes,
                           bool keepDims, bool noopWithEmptyAxes);

/// 1 at the first maximum of `x` along the dims [axis, rank) taken jointly
/// (row-major order), 0 elsewhere; same shape and type as `x` (float or
/// signless integer). `coerce` = false uses the single dim `axis`.
/// Errors: rank 0, axis out of range.
/// Spec: ONNX Hardmax (opset < 13 coerces to 2-D at axis; 13+ one axis).
mlir::FailureOr<mlir::Value> buildHardmax(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value x,
                                          int64_t axis, bool coerce);

/// Cumulative sum (`kind` Sum) or product (Prod) of `x` (float or signless
/// integer) along `axis` in [-rank, rank). `exclusive` leaves out the
/// element itself (the first output is 0, or 1 for a product); `reverse`
/// accumulates from the end. Emitted as one linalg.generic with an extra
/// reduction loop (quadratic in the axis extent).
/// Errors: bool or non-numeric `x`, axis out of range, other kinds.
/// Spec: ONNX CumSum (opset 11/14), CumProd (opset 26); numpy.cumsum/
/// cumprod; aten::cumsum/cumprod.
mlir::FailureOr<mlir::Value> buildCumSum(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value x, int64_t axis,
                                         bool exclusive, bool reverse,
                                         ReduceKind kind = ReduceKind::Sum);

/// The `k` largest (`largest`) or smallest elements of `x` along `axis`
/// (k <= extent, checked when the extent is static; a run-time extent below
/// k leaves the extra entries 0), sorted (descending for largest), with
/// their int64 positions; ties keep the lower index first. Static extents
/// up to 512 count ranks (O(n^2) compares in one parallel linalg.generic);
/// longer or dynamic ones are merge sorted (O(n log min(n, k)) per slice,
/// scf loops), which detectors' TopK over all anchors and classes needs.
/// Spec: ONNX TopK (sorted = 1); aten::topk.
mlir::FailureOr<std::pair<mlir::Value, mlir::Value>>
buildTopK(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, int64_t k,
          int64_t axis, bool largest);

/// buildTopK with a run-time `k` (an index Value or attribute): the result
/// extent along `axis` is `k`, dynamic unless `k` is an attribute; the
/// extent along `axis` may be dynamic. k in [0, extent] is the caller's
/// contract (checked by buildTopK for static k); a larger k leaves the
/// extra entries 0.
/// Spec: ONNX TopK with a non-constant k input.
mlir::FailureOr<std::pair<mlir::Value, mlir::Value>>
buildTopKDynamic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                 mlir::OpFoldResult k, int64_t axis, bool largest);

/// The vector p-norm of float `x` over `axes` (as buildReduce: each in
/// [-rank, rank), empty means all, `keepDims` keeps unit dims), same element
/// type: ord = inf: max |x|; -inf: min |x|; 0: the count of non-zero
/// elements; 1: sum |x|; 2: sqrt(sum x * x); otherwise
/// (sum |x|^ord)^(1 / ord).
/// Errors: non-float or unranked `x`, bad axes.
/// Spec: aten::linalg_vector_norm (torch.linalg.vector_norm, torch.norm with
/// a number or "fro" on vectors).
mlir::FailureOr<mlir::Value>
buildVectorNorm(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                double ord, llvm::ArrayRef<int64_t> axes, bool keepDims);

/// The matrix norm of float `x` whose matrices span the two distinct dims
/// `rowDim`, `colDim` (each in [-rank, rank)): "fro" (ord empty: the
/// Frobenius norm, sqrt of the sum of squares), ord = inf / -inf: the
/// max / min over rows of the absolute row sums, ord = 1 / -1: the max / min
/// over columns of the absolute column sums, ord = 2 / -2: the largest /
/// smallest singular value (buildSingularValueNorm, which also gives "nuc").
/// Both dims are dropped unless `keepDims`.
/// Errors: other orders, bad dims, non-float `x`.
/// Spec: aten::linalg_matrix_norm (and .str_ord "fro").
mlir::FailureOr<mlir::Value> buildMatrixNorm(mlir::OpBuilder &b,
                                             mlir::Location loc, mlir::Value x,
                                             std::optional<double> ord,
                                             int64_t rowDim, int64_t colDim,
                                             bool keepDims);

/// `log(sum(exp(x)))` of float `x` over `axes` (as buildReduce), computed as
/// m + log(sum(exp(x - m))) with m the max, except that an infinite m is
/// replaced by 0 so that all -inf gives -inf and a +inf gives +inf (not
/// NaN).
/// Spec: aten::logsumexp; ONNX ReduceLogSumExp.
mlir::FailureOr<mlir::Value> buildLogSumExp(mlir::OpBuilder &b,
                                            mlir::Location loc, mlir::Value x,
                                            llvm::ArrayRef<int64_t> axes,
                                            bool keepDims);

/// Sum (`kind` Sum) or mean (Mean) of float `x` over `axes` (as
/// buildReduce) with NaN elements left out: a NaN counts as 0 in the sum
/// and is not counted by the mean (all NaN: the mean is NaN, 0 / 0).
/// Errors: non-float `x`, other kinds.
/// Spec: aten::nansum, aten::nanmean.
mlir::FailureOr<mlir::Value>
buildNanReduce(mlir::OpBuilder &b, mlir::Location loc, ReduceKind kind,
               mlir::Value x, llvm::ArrayRef<int64_t> axes, bool keepDims);

/// The sum of the main diagonal of the 2-D numeric tensor `x` (rows and
/// columns may differ: min(rows, cols) elements), as a 0-d tensor of x's
/// element type.
/// Errors: `x` not a ranked 2-D numeric tensor.
/// Spec: aten::trace.
mlir::FailureOr<mlir::Value> buildTrace(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::Value x);

/// The p-norm distance between every row of `x1` [B..., P, M] and every row
/// of `x2` [B..., R, M] (float, one element type; batch dims broadcast):
/// [B..., P, R], each `buildVectorNorm(x1[p] - x2[r], p)`.
/// Errors: rank < 2, differing M, non-float operands.
/// Spec: aten::cdist (every compute_mode computes the same values).
mlir::FailureOr<mlir::Value> buildCDist(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::Value x1, mlir::Value x2,
                                        double p);

/// The p-norm distance between each pair of rows i < j of the 2-D float
/// `x` [N, M] (N static), in row-major order of (i, j): [N * (N - 1) / 2].
/// Errors: `x` not 2-D float with a static N.
/// Spec: aten::pdist.
mlir::FailureOr<mlir::Value> buildPDist(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::Value x, double p);

/// `buildVectorNorm(x1 - x2 + eps, p)` over the last dim of the broadcast
/// of float `x1` and `x2` (one element type), kept as extent 1 with
/// `keepDims`. Errors: non-float operands, shapes that do not broadcast.
/// Spec: aten::pairwise_distance.
mlir::FailureOr<mlir::Value>
buildPairwiseDistance(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x1,
                      mlir::Value x2, double p, double eps, bool keepDims);

/// Cosine similarity of float `x1` and `x2` (one element type, numpy
/// broadcast) along `dim` of the broadcast shape: sum over `dim` of
/// (x1 / max(||x1||, eps)) * (x2 / max(||x2||, eps)), the norms taken over
/// `dim` (2-norm). The dim is dropped.
/// Errors: non-float operands, shapes that do not broadcast, bad dim.
/// Spec: aten::cosine_similarity (torch 2.x: each input normalized first).
mlir::FailureOr<mlir::Value>
buildCosineSimilarity(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x1,
                      mlir::Value x2, int64_t dim, double eps);

/// The `n`-th forward difference of `x` (numeric or i1, rank >= 1) along
/// `axis` in [-rank, rank): out[i] = x[i + 1] - x[i] applied `n` times
/// (i1: x[i + 1] != x[i]), each step one shorter along `axis` (extent 0 once
/// n >= extent; a dynamic extent needs n <= extent).
/// Errors: 0-d `x`, a bad axis, n < 0.
/// Spec: aten::diff (prepend/append concatenated by the caller); numpy.diff.
mlir::FailureOr<mlir::Value> buildDiff(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value x, int64_t n, int64_t axis);

/// Running maximum (`isMax`) or minimum of `x` (float or signless integer,
/// rank >= 1) along `axis` in [-rank, rank), with the int64 position it was
/// taken from: ties take the later position, and a NaN, once seen, is kept
/// (a later NaN moves the position).
/// Errors: 0-d or non-numeric `x`, a bad axis.
/// Spec: aten::cummax, aten::cummin.
mlir::FailureOr<std::pair<mlir::Value, mlir::Value>>
buildCumulativeExtreme(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                       int64_t axis, bool isMax);

/// log(cumsum(exp(x))) of float `x` along `axis` in [-rank, rank), shifted
/// by the (finite) max of each slice so that exp does not overflow.
/// Spec: aten::logcumsumexp.
mlir::FailureOr<mlir::Value> buildLogCumSumExp(mlir::OpBuilder &b,
                                               mlir::Location loc,
                                               mlir::Value x, int64_t axis);

/// Order statistics along one axis.
enum class OrderStatisticKind {
  Kth,       ///< the k-th smallest (k 0-based)
  Median,    ///< the lower median; a slice holding NaN gives its first NaN
  NanMedian, ///< the lower median of the non-NaN elements (all NaN: NaN)
  Mode,      ///< the most frequent value (ties: the smallest), at its last
             ///< position
};

/// The `kind` order statistic of `x` (float or signless integer, rank >= 1)
/// along `axis` in [-rank, rank), with its int64 position. Elements are
/// ordered ascending with NaN after every number and equal elements by
/// position (the first of equal elements is the smaller), so that the
/// k-th smallest is the element of rank k. The axis is dropped unless
/// `keepDims`. Built as a rank count (O(n^2) per slice).
/// Errors: 0-d or non-numeric `x`, a bad axis, k outside [0, extent) for a
/// static extent.
/// Spec: aten::kthvalue (k - 1), median.dim, nanmedian.dim, mode.
mlir::FailureOr<std::pair<mlir::Value, mlir::Value>>
buildOrderStatistic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                    int64_t axis, OrderStatisticKind kind, int64_t k,
                    bool keepDims);

/// Sums `x` (float or signless integer, static extents where reduced) down
/// to `shape`, to which x broadcasts: the leading extra dims are summed
/// away and the dims where `shape` has 1 and x more are summed keeping
/// extent 1 (the inverse of broadcasting, as gradients need).
/// Errors: a shape x does not broadcast to.
/// Spec: aten::sum_to_size.
mlir::FailureOr<mlir::Value> buildSumToSize(mlir::OpBuilder &b,
                                            mlir::Location loc, mlir::Value x,
                                            llvm::ArrayRef<int64_t> shape);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_REDUCTION_H
