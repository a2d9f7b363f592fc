//===- SliceGather.h - Slices, gathers and scatters -------------*- C++ -*-===//
//
// Format-independent builders that read or write parts of a ranked tensor
// by position: strided slices (tensor.extract_slice, or a linalg.generic
// gather for negative steps and run-time bounds), splits, single-index
// selection, gathers (linalg.generic reading with tensor.extract; negative
// indices count from the end, out-of-range ones clamp), and the ops whose
// result extent depends on tensor values.
//
// Scatters and data-dependent ops are scf.for nests on tensors: the result
// is threaded through the loops and updated element by element
// (tensor.extract / tensor.insert; one-shot bufferization makes the updates
// in place). Data-dependent extents are counted by a first loop, then a
// dynamically sized tensor.empty is filled by a second. Every scatter here
// SKIPS an update whose (wrapped) position lies outside the result; the
// formats leave such indices undefined (ONNX: "it is an error").
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_SLICEGATHER_H
#define MLPROG_IMPORT_COMMON_SLICEGATHER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlprog {

/// One dimension of a Python-style slice `start:stop:step`. A missing start
/// or stop means "from the beginning" / "to the end" in the direction of
/// `step` (the sign of step decides); negative start/stop count from the
/// end; out-of-range bounds clamp. `step` != 0.
struct SliceDim {
  std::optional<int64_t> start;
  std::optional<int64_t> stop;
  int64_t step = 1;
};

/// Where a SliceDim lands in a dim of static extent n: Python's
/// `slice.indices(n)` as (start, size, step), `size` elements being read at
/// start, start + step, ... (step < 0 walks backwards).
struct ResolvedSlice {
  int64_t start, size, step;
};

/// Resolves `dim` (step != 0) against the static extent `extent`: negative
/// bounds count from the end and out-of-range ones clamp, as numpy does.
/// Spec: Python slice.indices; ONNX Slice; aten::slice.
ResolvedSlice resolveSlice(const SliceDim &dim, int64_t extent);

/// Slices `x` with one SliceDim per dimension (`dims.size() == rank`),
/// giving extents ceil((stop - start) / step) (0 when empty), then drops
/// the dims listed in `squeezeDims` (each must have extent 1). A sliced dim
/// of dynamic extent has its result extent computed at run time; where its
/// bounds need the extent to resolve (negative start or stop, negative
/// step) the whole slice is buildSliceDynamic's with constant bounds, the
/// result's static extents kept. Otherwise positive steps become one
/// tensor.extract_slice, negative steps a linalg.generic with a reversed
/// affine map. Bounds known only at run time are buildSliceDynamic's.
/// Errors: dims.size() != rank, step 0, squeezed dims of extent other than
/// 1.
/// Spec: numpy basic indexing; MIL slice_by_index (masks resolved by the
/// caller) and slice_by_size; ONNX Slice (constant starts/ends/axes/steps);
/// aten::slice.Tensor, aten::split.
mlir::FailureOr<mlir::Value>
buildSlice(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
           llvm::ArrayRef<SliceDim> dims,
           llvm::ArrayRef<int64_t> squeezeDims = {});

/// One dimension of a slice with run-time bounds: `start`, `stop`, `step`
/// are signless-integer or index scalars, all null for a dim left whole.
/// Python/ONNX semantics: negative start/stop count from the end; with
/// step > 0 both clamp to [0, extent]; with step < 0 start clamps to
/// [0, extent - 1] and stop to [-1, extent - 1]. A step of 0 (invalid in
/// every format) is read as 1 rather than dividing by zero.
struct DynamicSliceDim {
  mlir::Value start;
  mlir::Value stop;
  mlir::Value step;
};

/// The inverse of buildSlice: a copy of `x` (static shape) whose elements
/// selected by `dims` (one SliceDim per dim, as buildSlice) are replaced by
/// `update` (x's element type), whose shape is the slice's with the dims
/// listed in `squeezeDims` (each selecting one element) removed. Negative
/// steps write the update backwards. One tensor.insert_slice.
/// Errors: dims.size() != rank, a dynamic shape, step 0, element type or
/// shape mismatches.
/// Spec: MIL slice_update (iOS18); numpy x[slices] = update.
mlir::FailureOr<mlir::Value>
buildSliceUpdate(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                 mlir::Value update, llvm::ArrayRef<SliceDim> dims,
                 llvm::ArrayRef<int64_t> squeezeDims = {});

/// buildSliceUpdate at run-time positions: `update` (x's element type,
/// without the `squeezeDims`, which take one element; its dynamic extents
/// are the slice's, read at run time) is
/// written into `x` from `starts[d]` (index Values or attributes; negative
/// starts count from the end) every `strides[d]` (static, >= 1) elements.
/// Positions past the end are undefined behaviour (not checked at run time).
/// Errors: strides < 1, rank or element type mismatches.
/// Spec: MIL slice_update (iOS18) with begin computed at run time.
mlir::FailureOr<mlir::Value> buildSliceUpdateDynamic(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, mlir::Value update,
    llvm::ArrayRef<mlir::OpFoldResult> starts, llvm::ArrayRef<int64_t> strides,
    llvm::ArrayRef<int64_t> squeezeDims = {});

/// Slices `x` (ranked, any element type) with one DynamicSliceDim per dim:
/// result extent max(ceil((stop - start) / step), 0) on sliced dims (dynamic
/// in the type), `x`'s extent on whole dims; result[i] =
/// x[start + i * step]: a tensor.extract_slice with run-time offsets when
/// every step is the constant 1, else a linalg.generic gather (so negative
/// steps need no special case). `hint` refines the result type (see
/// refineToShape).
/// Errors: dims.size() != rank, partially null dims.
/// Spec: ONNX Slice (opset 10+) with non-constant starts/ends/axes/steps.
mlir::FailureOr<mlir::Value>
buildSliceDynamic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                  llvm::ArrayRef<DynamicSliceDim> dims,
                  llvm::ArrayRef<int64_t> hint = {});

/// Splits `x` along `axis` (in [-rank, rank)) into consecutive pieces of
/// `sizes` extents (non-negative, summing to the extent of `axis`; a
/// dynamic extent is taken to be their sum, as the specs require).
/// Spec: MIL split; ONNX Split; aten::split_with_sizes.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
buildSplit(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, int64_t axis,
           llvm::ArrayRef<int64_t> sizes);

/// Splits `x` along `axis` (in [0, rank)) into consecutive pieces of the
/// run-time `sizes` (index Values or attributes, >= 0, summing to the
/// extent): tensor.extract_slice at prefix-sum offsets; a piece's extent
/// along `axis` is dynamic unless its size is an attribute.
/// Spec: ONNX Split (opset 13+) with a non-constant split input.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
buildSplitDynamic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                  int64_t axis, llvm::ArrayRef<mlir::OpFoldResult> sizes);

/// `x` indexed with a single `index` along `dim` (the dim is removed). A
/// static negative index counts from the end; out-of-range static indices
/// are errors. A dynamic index (index-typed Value) counts from the end when
/// negative and must then be in range (not checked at run time).
/// Spec: aten::select.int; x[i].
mlir::FailureOr<mlir::Value> buildSelectIndex(mlir::OpBuilder &b,
                                              mlir::Location loc, mlir::Value x,
                                              int64_t dim,
                                              mlir::OpFoldResult index);

/// numpy `take(x, indices, axis)`: result shape x.shape[:axis] +
/// indices.shape[batchDims:] + x.shape[axis+1:]. `indices` has a signless
/// integer element type; negative indices count from the end; indices out
/// of range are clamped into [0, extent) (the formats leave them undefined).
/// With `batchDims` (0 <= batchDims <= axis), the first batchDims dims of x
/// and indices are shared batch dims: result[b, a, i, r] =
/// x[b, a, indices[b, i], r] (tf.gather's batch_dims).
/// Errors: axis or batchDims out of range, indices' batch extents that
/// differ from x's (static).
/// Spec: MIL gather (iOS15, and batch_dims since iOS16); ONNX Gather;
/// aten::index_select.
mlir::FailureOr<mlir::Value> buildGather(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value x, mlir::Value indices,
                                         int64_t axis, int64_t batchDims = 0);

/// numpy `take_along_axis(x, indices, axis)`: `indices` has x's rank and
/// the result its shape; result[i] = x[i with dim axis replaced by
/// indices[i]], negative indices counting from the end, out-of-range ones
/// clamped. Dims other than `axis` of `indices` must not exceed x's.
/// Spec: MIL gather_along_axis; ONNX GatherElements; aten::gather.
mlir::FailureOr<mlir::Value>
buildGatherAlongAxis(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                     mlir::Value indices, int64_t axis);

/// N-D gather: `indices` (integer, shape [B..., M..., q], the first
/// `batchDims` dims matching `data`'s) selects slices of `data`
/// [B..., D1..Dr]: result shape [B..., M..., D(q+1)..Dr]; negative indices
/// count from the end, out-of-range ones clamp. q must be static.
/// Spec: ONNX GatherND; tf.gather_nd.
mlir::FailureOr<mlir::Value> buildGatherND(mlir::OpBuilder &b,
                                           mlir::Location loc, mlir::Value data,
                                           mlir::Value indices,
                                           int64_t batchDims);

/// numpy advanced indexing `x[indices[0], indices[1], ...]`: one entry per
/// leading dim of `x` (null for a whole dim, `:`; missing trailing entries
/// are whole dims). Integer index tensors (any signless width) broadcast
/// among themselves to a shape B; negative entries count from the end and
/// out-of-range ones clamp. A boolean (i1) mask of rank m covers m dims and
/// stands for the coordinates of its true elements (nonzero), so the result
/// has a dynamic extent. Result: when the indexed dims are adjacent,
/// x.shape[:first] + B + x.shape[last+1:]; otherwise B + the whole dims.
/// Errors: more entries than dims, non-integer indices, 0-d masks, index
/// shapes that do not broadcast.
/// Spec: numpy advanced indexing; aten::index.Tensor.
mlir::FailureOr<mlir::Value>
buildAdvancedIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                   llvm::ArrayRef<mlir::Value> indices);
/// The assignment `x[indices] = values` (or `+=` with `accumulate`, which
/// adds every duplicate index): a copy of `x` whose elements selected as in
/// buildAdvancedIndex are replaced by (or incremented by) `values` (x's
/// element type) broadcast to the shape of x[indices]. With one boolean
/// mask and values that broadcast against the dims after it (a scalar: the
/// masked_fill case) it is an elementwise select of static shape; otherwise
/// an N-D scatter (buildScatterND), whose duplicate indices without
/// `accumulate` keep the last write.
/// Errors: as buildAdvancedIndex; values of another element type or not
/// broadcastable to the indexed shape.
/// Spec: numpy x[idx] = v; aten::index_put / index_put_.
mlir::FailureOr<mlir::Value>
buildAdvancedIndexPut(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                      llvm::ArrayRef<mlir::Value> indices, mlir::Value values,
                      bool accumulate);
/// How a scatter combines an update with the element already there.
/// None overwrites; Add/Mul/Max/Min combine (booleans: Add and Max are `or`,
/// Mul and Min are `and`; integers compare signed); Sub and Div compute
/// `old - update` and `old / update` (integers: signed division truncating
/// towards zero; booleans: Sub is `xor`, Div keeps `old`), as MIL's scatter
/// modes "sub" and "div".
enum class ScatterReduction { None, Add, Mul, Max, Min, Sub, Div };

/// numpy `put_along_axis` with a reduction: a copy of `data` where, for
/// every multi-index i of `indices`, element (i with dim `axis` replaced by
/// indices[i]) is combined with updates[i], in row-major order of i (so
/// duplicate indices accumulate). `data`, `indices` and `updates` have the
/// same rank; `indices` (signless integer, width > 1) and `updates` (data's
/// element type) the same shape, not larger than data's in dims != axis.
/// Negative indices count from the end of dim `axis`; updates whose position
/// is still out of range are skipped. `axis` in [-rank, rank).
/// Errors: non-integer indices, rank/shape/element type mismatches.
/// Spec: ONNX ScatterElements (opset 11-18) and Scatter (opset 9-10);
/// aten::scatter / scatter_reduce; MIL scatter_along_axis.
mlir::FailureOr<mlir::Value>
buildScatterElements(mlir::OpBuilder &b, mlir::Location loc, mlir::Value data,
                     mlir::Value indices, mlir::Value updates, int64_t axis,
                     ScatterReduction reduction);

/// The reductions of torch's scatter_reduce / index_reduce.
enum class ScatterReduceKind { Sum, Prod, Mean, Amax, Amin };

/// torch `scatter_reduce(data, axis, indices, updates, reduce,
/// include_self)`: buildScatterElements with the reduction `kind`, where
/// `includeSelf` = false first resets every element that receives an update
/// to the reduction's identity (0, 1, -inf/min, +inf/max), so that only the
/// updates combine. Mean divides the sum by the number of values combined
/// (data's own element counted when `includeSelf`): a true division for
/// floats, rounding towards -inf for integers; elements without updates
/// keep `data`. Operands and errors as buildScatterElements; Mean needs a
/// float or signless integer (not bool) element type.
/// Spec: aten::scatter_reduce.two, aten::index_reduce (with the index
/// broadcast along the dim).
mlir::FailureOr<mlir::Value>
buildScatterReduce(mlir::OpBuilder &b, mlir::Location loc, mlir::Value data,
                   mlir::Value indices, mlir::Value updates, int64_t axis,
                   ScatterReduceKind kind, bool includeSelf);

/// N-D scatter: `indices` (signless integer, shape [M..., q], q static in
/// [1, rank(data)]) addresses slices data[idx, ...] of `data` [D0..Dr-1];
/// `updates` has shape [M..., Dq..Dr-1] and data's element type. The result
/// is a copy of `data` with every slice combined with its update, in
/// row-major order of M. Negative index components count from the end;
/// slices whose position is out of range are skipped.
/// Errors: non-integer indices, dynamic q, shape or element type mismatches.
/// Spec: ONNX ScatterND (opset 11-18); tf.tensor_scatter_nd_update;
/// MIL scatter_nd.
mlir::FailureOr<mlir::Value>
buildScatterND(mlir::OpBuilder &b, mlir::Location loc, mlir::Value data,
               mlir::Value indices, mlir::Value updates,
               ScatterReduction reduction);

/// numpy `array(nonzero(x))`: an i64 tensor [rank, n] (n dynamic: the number
/// of elements of `x` that are not zero/false) whose column k holds the
/// coordinates of the k-th such element in row-major order. A rank-0 `x` is
/// treated as shape [1]. Element types: integer, bool (i1) or float (NaN is
/// non-zero).
/// Spec: ONNX NonZero (opset 9-13); numpy.nonzero; aten::nonzero (transposed).
mlir::FailureOr<mlir::Value> buildNonZero(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value x);

/// For each element v of `values`, the number of elements of the sorted
/// last dim of `sortedSequence` that are < v (`right` = false: the leftmost
/// insertion point) or <= v (`right`: the rightmost one), as
/// `resultType` (a signless integer type). `sortedSequence` is 1-D (any
/// `values` shape) or [B..., M] with `values` [B..., K]; both have one
/// numeric element type (integers compare signed, bool unsigned). A linalg
/// reduction over M (linear per value, not a binary search).
/// Errors: rank or leading-shape mismatches, differing element types.
/// Spec: aten::searchsorted (without sorter), aten::bucketize (1-D
/// boundaries); numpy.searchsorted.
mlir::FailureOr<mlir::Value> buildSearchSorted(mlir::OpBuilder &b,
                                               mlir::Location loc,
                                               mlir::Value sortedSequence,
                                               mlir::Value values, bool right,
                                               mlir::Type resultType);

/// numpy `compress(condition, x, axis)`: the slices of `x` along `axis`
/// whose entry in the 1-D `condition` (i1, or an integer/float compared
/// with 0) is true, in order; the result has x's shape with extent `axis`
/// dynamic. Without `axis`, `x` is flattened first and the result is 1-D.
/// A condition shorter than the extent selects nothing past its end; a
/// longer one is read only up to the extent. `axis` in [-rank, rank).
/// Errors: condition not 1-D, axis out of range.
/// Spec: ONNX Compress (opset 9-11); numpy.compress.
mlir::FailureOr<mlir::Value> buildCompress(mlir::OpBuilder &b,
                                           mlir::Location loc, mlir::Value x,
                                           mlir::Value condition,
                                           std::optional<int64_t> axis);

/// Partial inverse of max pooling: `x` [N, C, D1..Dn] and `indices` (same
/// shape, signless integer) as produced by a max pool with `kernel`,
/// `strides` and `pads` (n begins, then n ends). The unpooled extents are
/// (Di - 1) * stride - pad_begin - pad_end + kernel; each index is a flat
/// (row-major) position in the unpooled tensor [N, C, unpooled...]. The
/// result, of extents `outputSizes` (rank entries; empty: the unpooled
/// extents), is zero except at those positions, which receive x. Output
/// extents larger than the unpooled ones add padding at the end of each
/// dim (the positions keep their coordinates); positions outside the result
/// are skipped.
/// Errors: shape mismatches, kernel/stride/pad counts not matching n.
/// Spec: ONNX MaxUnpool (opset 9-11).
mlir::FailureOr<mlir::Value>
buildMaxUnpool(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
               mlir::Value indices, llvm::ArrayRef<int64_t> kernel,
               llvm::ArrayRef<int64_t> strides, llvm::ArrayRef<int64_t> pads,
               llvm::ArrayRef<mlir::OpFoldResult> outputSizes = {});

/// Greedy non-maximum suppression. `boxes` [B, N, 4] (float; corners
/// [y1, x1, y2, x2] in either order, or [x_center, y_center, width, height]
/// when `centerPointBox`), `scores` [B, C, N] (boxes' element type).
/// `maxOutputPerClass` (integer), `iouThreshold` and `scoreThreshold`
/// (float) are one-element tensors (rank 0 or 1) or null: a null maximum
/// selects nothing, a null IoU threshold is 0, a null score threshold keeps
/// every box. For each batch b and class c, boxes with score >
/// scoreThreshold are visited by decreasing score (ties: lower index first)
/// and selected unless their IoU with a box already selected for (b, c)
/// exceeds iouThreshold, until maxOutputPerClass are selected. Returns the
/// i64 tensor [n, 3] of (b, c, box index) rows, n dynamic, ordered by b,
/// then c, then selection order.
/// Errors: shape or element type mismatches.
/// Spec: ONNX NonMaxSuppression (opset 10-11), following onnxruntime's
/// IoU test (boxes of zero area never suppress).
mlir::FailureOr<mlir::Value>
buildNonMaxSuppression(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value boxes, mlir::Value scores,
                       mlir::Value maxOutputPerClass, mlir::Value iouThreshold,
                       mlir::Value scoreThreshold, bool centerPointBox);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_SLICEGATHER_H
