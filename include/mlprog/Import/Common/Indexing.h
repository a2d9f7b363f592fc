//===- Indexing.h - Slice, gather, tile, pad and friends --------*- C++ -*-===//
//
// Format-independent builders for ops that move elements by index on ranked
// tensors: strided slices and splits (tensor.extract_slice), gathers and
// resampling (linalg.generic reading with tensor.extract), tiling, padding,
// masks and generated tensors.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_INDEXING_H
#define MLPROG_IMPORT_COMMON_INDEXING_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
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
/// of dynamic extent needs a positive step and non-negative (or missing)
/// start and stop: its result extent is computed at run time. Positive
/// steps become one tensor.extract_slice, negative steps a linalg.generic
/// with a reversed affine map. Bounds known only at run time are
/// buildSliceDynamic's.
/// Errors: dims.size() != rank, step 0, other bounds on dynamic extents,
/// squeezed dims of extent other than 1.
/// Spec: numpy basic indexing; MIL slice_by_index (masks resolved by the
/// caller) and slice_by_size; ONNX Slice (constant starts/ends/axes/steps);
/// aten::slice.Tensor, aten::split.
mlir::FailureOr<mlir::Value>
buildSlice(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
           llvm::ArrayRef<SliceDim> dims,
           llvm::ArrayRef<int64_t> squeezeDims = {});

/// Splits `x` along `axis` (in [-rank, rank)) into consecutive pieces of
/// `sizes` extents (non-negative, summing to the static extent of `axis`).
/// Spec: MIL split; ONNX Split; aten::split_with_sizes.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
buildSplit(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, int64_t axis,
           llvm::ArrayRef<int64_t> sizes);

/// numpy `take(x, indices, axis)`: result shape x.shape[:axis] +
/// indices.shape + x.shape[axis+1:]. `indices` has a signless integer
/// element type; negative indices count from the end; indices out of range
/// are clamped into [0, extent) (the formats leave them undefined).
/// Spec: MIL gather (batch_dims = 0); ONNX Gather; aten::index_select.
mlir::FailureOr<mlir::Value> buildGather(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value x, mlir::Value indices,
                                         int64_t axis);

/// numpy `take_along_axis(x, indices, axis)`: `indices` has x's rank and
/// the result its shape; result[i] = x[i with dim axis replaced by
/// indices[i]], negative indices counting from the end, out-of-range ones
/// clamped. Dims other than `axis` of `indices` must not exceed x's.
/// Spec: MIL gather_along_axis; ONNX GatherElements; aten::gather.
mlir::FailureOr<mlir::Value>
buildGatherAlongAxis(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                     mlir::Value indices, int64_t axis);

/// Repeats `x` `reps[d]` times along each dim d (reps.size() == rank,
/// reps >= 1, static extents where reps > 1).
/// Spec: MIL tile; ONNX Tile; numpy.tile with equal ranks.
mlir::FailureOr<mlir::Value> buildTile(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value x,
                                       llvm::ArrayRef<int64_t> reps);

/// Padding modes.
enum class PadMode { Constant, Reflect, Replicate };

/// Pads `x` by `low[d]` / `high[d]` (>= 0) elements per dim. Constant mode
/// fills with `value`; Reflect mirrors without repeating the edge (pad <
/// extent); Replicate repeats the edge. Reflect/Replicate need static
/// extents on padded dims.
/// Spec: MIL pad; ONNX Pad (constant/reflect/edge); numpy.pad.
mlir::FailureOr<mlir::Value> buildPad(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value x,
                                      llvm::ArrayRef<int64_t> low,
                                      llvm::ArrayRef<int64_t> high,
                                      PadMode mode, double value);

/// Nearest-neighbour upsampling of the last two dims of `x` (rank >= 3,
/// static extents H, W) by positive float scales: output extents
/// floor(H * scaleH), floor(W * scaleW); output (i, j) reads input
/// (min(floor(i / scaleH), H - 1), min(floor(j / scaleW), W - 1)).
/// Spec: MIL upsample_nearest_neighbor; ONNX Resize (nearest, asymmetric,
/// floor).
mlir::FailureOr<mlir::Value> buildUpsampleNearest(mlir::OpBuilder &b,
                                                  mlir::Location loc,
                                                  mlir::Value x, double scaleH,
                                                  double scaleW);

/// The 1-D tensor [start, start + step, ...) stopping before `end`, of
/// ceil((end - start) / step) (at least 0) elements of `elementType`
/// (float or integer), computed at compile time. Errors: step == 0.
/// Spec: MIL range_1d; ONNX Range; numpy.arange.
mlir::FailureOr<mlir::DenseElementsAttr>
buildRangeAttr(mlir::Location loc, mlir::Type elementType, double start,
               double end, double step);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_INDEXING_H
