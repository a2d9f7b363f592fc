//===- Statistics.h - Covariance, quantiles, histograms ---------*- C++ -*-===//
//
// Format-independent builders for descriptive statistics: covariance and
// correlation matrices, quantiles, histograms, set membership, distinct
// values (unique), bag-of-n-grams features.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_STATISTICS_H
#define MLPROG_IMPORT_COMMON_STATISTICS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlprog {

/// The covariance matrix of the variables in the rows of the float `x`
/// ([V, O], or [O] for one variable; static shape), observations weighted
/// by the product of the optional integer frequency weights `fweights` [O]
/// and float observation weights `aweights` [O] (null when absent):
/// c = (x - avg) (w (x - avg))^T / max(norm, 0), avg the weighted means,
/// norm = sum(w) - correction (times sum(w aweights) / sum(w) with
/// aweights). Unit dims are squeezed: one variable gives a 0-d tensor.
/// Errors: non-float x, rank > 2, dynamic shapes, weights of another shape.
/// Spec: aten::cov (torch.cov, numpy.cov with ddof = correction).
mlir::FailureOr<mlir::Value>
buildCovariance(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                double correction, mlir::Value fweights, mlir::Value aweights);

/// The Pearson correlation coefficients of the rows of `x` (as
/// buildCovariance with correction 1): cov / (stddev_i stddev_j), clipped
/// to [-1, 1]; a single variable gives cov / cov (1, or NaN).
/// Spec: aten::corrcoef; numpy.corrcoef.
mlir::FailureOr<mlir::Value>
buildCorrelation(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);

/// How a quantile between two order statistics a[i] <= a[j] is read.
enum class QuantileInterpolation { Linear, Lower, Higher, Nearest, Midpoint };

/// The `q`-quantiles of the float `x` (static shape) along `dim` (in [0,
/// rank); all elements flattened when absent): `q` is a 0-d or 1-D tensor
/// of x's element type (values in [0, 1], not checked). With `rank` = q (k -
/// 1) over the k sorted values, Linear interpolates a[floor] to a[ceil]
/// (torch's lerp), Lower/Higher take a[floor]/a[ceil], Nearest
/// a[round-half-even], Midpoint their mean. A slice holding NaN gives NaN
/// unless `ignoreNaN` (nanquantile: NaNs are dropped and k is the count of
/// the others; an all-NaN slice gives NaN). The result has the reduced
/// shape (the dim kept with extent 1 under `keepDim`, every dim with no
/// `dim`), preceded by q's extent when q is 1-D.
/// Errors: non-float x, q of another type or rank > 1, dim out of range,
/// dynamic shapes, an empty reduction.
/// Spec: aten::quantile, aten::nanquantile (scalar and Tensor q).
mlir::FailureOr<mlir::Value>
buildQuantile(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
              mlir::Value q, std::optional<int64_t> dim, bool keepDim,
              QuantileInterpolation mode, bool ignoreNaN);

/// The histogram of the float `x` (any shape, flattened) over `bins` equal
/// bins of [min, max]: result [bins] of x's type, counting the elements in
/// range (the last bin includes max; NaN and out-of-range elements are
/// dropped); bin = floor((v - min) * bins / (max - min)) in x's type. With
/// min == max the range is the data's [min, max], widened by 1 on each side
/// when it is one point.
/// Errors: non-float x, bins < 1, min > max, a dynamic shape.
/// Spec: aten::histc.
mlir::FailureOr<mlir::Value> buildHistogram(mlir::OpBuilder &b,
                                            mlir::Location loc, mlir::Value x,
                                            int64_t bins, double min,
                                            double max);

/// Set membership: an i1 tensor of `elements`' shape, true where the
/// element equals some element of `testElements` (any shape, same element
/// type; NaN equals nothing), negated with `invert`.
/// Errors: element types that differ, dynamic test shapes.
/// Spec: aten::isin (Tensor_Tensor, Tensor_Scalar, Scalar_Tensor).
mlir::FailureOr<mlir::Value> buildIsIn(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value elements,
                                       mlir::Value testElements, bool invert);

/// How buildUnique orders and groups the distinct slices.
enum class UniqueOrder {
  /// Ascending, comparing slices lexicographically (element by element in
  /// row-major order).
  Sorted,
  /// In the order of each distinct slice's first occurrence.
  FirstOccurrence,
  /// Only runs of equal consecutive slices merge, in input order.
  Consecutive,
};

/// The distinct slices of `x` along `axis` and how they map to the input.
struct UniqueResult {
  /// [m, rest...] with the distinct slices moved back to `axis` (1-D [m]
  /// when no axis is given), x's element type; m is dynamic.
  mlir::Value values;
  /// int64 [m]: the position of each distinct slice's first occurrence
  /// (the first of its run for Consecutive).
  mlir::Value firstIndices;
  /// int64 [n]: for every input slice, the index of its value in `values`.
  mlir::Value inverseIndices;
  /// int64 [m]: how often each distinct slice occurs.
  mlir::Value counts;
};

/// The distinct slices of `x` along `axis` (in [-rank, rank)), or of the
/// flattened `x` when `axis` is empty (its n elements are the slices).
/// Slices compare element by element (floats ordered, NaN equal to
/// nothing; integers unsigned when `isUnsigned`). Built as scalar loops,
/// O(n^2) slice comparisons, meant for small extents.
/// Errors: non-numeric or unranked `x`, rank 0 with an axis, axis out of
/// range.
/// Spec: ONNX Unique (opset 11); numpy.unique (return_index,
/// return_inverse, return_counts, axis); aten::_unique2, aten::unique_dim,
/// aten::unique_consecutive.
mlir::FailureOr<UniqueResult> buildUnique(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value x,
                                          std::optional<int64_t> axis,
                                          UniqueOrder order, bool isUnsigned);

/// How buildNGramFeatures turns n-gram counts into features.
enum class NGramWeighting {
  /// The count (term frequency).
  TF,
  /// The weight where the count is positive, else 0 (1 without weights).
  IDF,
  /// The count times the weight (the count without weights).
  TFIDF,
};

/// The n-gram vocabulary of buildNGramFeatures, known at import time.
struct NGramVocabulary {
  /// The n-grams, each a sequence of token ids.
  llvm::SmallVector<llvm::SmallVector<int64_t>> grams;
  /// The feature index of each n-gram (same length as `grams`).
  llvm::SmallVector<int64_t> featureIndices;
  /// Per-feature weights (empty, or one per feature) for IDF and TFIDF.
  llvm::SmallVector<double> weights;
  int64_t minLength = 1, maxLength = 1;
  /// The largest gap allowed between the tokens of an n-gram of length >= 2
  /// (unigrams are counted once).
  int64_t maxSkip = 0;
};

/// Bag-of-n-grams features of the integer token rows of `x` ([C], or
/// [B, C]; static C): the result is f32 [F] or [B, F], F = max feature index
/// + 1. Every n-gram of the vocabulary whose length is in [minLength,
/// maxLength] is counted at each start i and skip s (0 <= s <= maxSkip,
/// s = 0 only for unigrams) where x[i + k (s + 1)] equals its k-th token for
/// every k, the counts are summed into the n-gram's feature, and then
/// weighted by `weighting`. A vocabulary n-gram listed twice counts for its
/// last feature index.
/// Errors: a non-integer or dynamic-length `x`, rank > 2, negative feature
/// indices, weights of another length than F.
/// Spec: ONNX TfIdfVectorizer (opset 9, integer pools).
mlir::FailureOr<mlir::Value>
buildNGramFeatures(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                   const NGramVocabulary &vocabulary, NGramWeighting weighting);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_STATISTICS_H
