//===- Scatter.h - Scatter and data-dependent indexing ----------*- C++ -*-===//
//
// Format-independent builders for ops that write elements at positions read
// from a tensor (scatters, unpooling) and for ops whose result extent
// depends on tensor values (non-zero, compress, non-max suppression).
//
// They are lowered to scf.for nests on tensors: the result is threaded
// through the loops as an iteration argument and updated element by element
// with tensor.extract / tensor.insert (one-shot bufferization makes the
// updates in place). Data-dependent extents are computed by a first counting
// loop, then a dynamically sized tensor.empty is filled by a second loop.
//
// Out-of-range indices: every builder here SKIPS an update whose (wrapped)
// position lies outside the result -- nothing is written out of bounds and no
// clamping moves an update onto a valid position. The formats leave such
// indices undefined (ONNX: "it is an error").
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_SCATTER_H
#define MLPROG_IMPORT_COMMON_SCATTER_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlprog {

/// How a scatter combines an update with the element already there.
/// None overwrites; Add/Mul/Max/Min combine (booleans: Add and Max are `or`,
/// Mul and Min are `and`; integers compare signed).
enum class ScatterReduction { None, Add, Mul, Max, Min };

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

#endif // MLPROG_IMPORT_COMMON_SCATTER_H
