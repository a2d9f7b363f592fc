//===- Rearrange.h - Block moves, masks and shape-tensor ops ----*- C++ -*-===//
//
// Format-independent builders that rearrange elements of ranked tensors
// (depth-to-space, sequence reversal, triangular masks, one-hot, N-D
// gathers, top-k) and the data-movement ops whose target shape is itself a
// run-time tensor (reshape, expand, range).
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_REARRANGE_H
#define MLPROG_IMPORT_COMMON_REARRANGE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <utility>

namespace mlprog {

/// Moves blocks of `blockSize` x `blockSize` channels of `x` [N, C, H, W]
/// into space: the result is [N, C / bs^2, H * bs, W * bs]. `crd` selects
/// the column-row-depth channel order (else depth-column-row, DCR). C must
/// be static and divisible by bs^2; H, W static.
/// Spec: ONNX DepthToSpace (mode DCR/CRD); aten::pixel_shuffle (CRD).
mlir::FailureOr<mlir::Value> buildDepthToSpace(mlir::OpBuilder &b,
                                               mlir::Location loc,
                                               mlir::Value x, int64_t blockSize,
                                               bool crd);

/// The inverse of DCR buildDepthToSpace: `x` [N, C, H, W] (H, W static and
/// divisible by bs) becomes [N, C * bs^2, H / bs, W / bs].
/// Spec: ONNX SpaceToDepth; aten::pixel_unshuffle uses CRD instead.
mlir::FailureOr<mlir::Value> buildSpaceToDepth(mlir::OpBuilder &b,
                                               mlir::Location loc,
                                               mlir::Value x,
                                               int64_t blockSize);

/// Keeps the diagonal band of the last two dims of `x` (rank >= 2, numeric
/// element type) and zeroes the rest: element (.., i, j) is kept when
/// `minDiagonal` <= j - i <= `maxDiagonal`. Each bound is a static integer
/// attribute, an `index` Value, or null for no bound (so the upper triangle
/// from diagonal k is {k, null}, the lower one {null, k}).
/// Errors: rank < 2, non-numeric element types.
/// Spec: ONNX Trilu (upper: {k, null}; lower: {null, k}); aten::triu /
/// aten::tril; MIL band_part and tf.linalg.band_part (lower l >= 0:
/// minDiagonal -l; upper u >= 0: maxDiagonal u; negative: no bound).
mlir::FailureOr<mlir::Value> buildBandPart(mlir::OpBuilder &b,
                                           mlir::Location loc, mlir::Value x,
                                           mlir::OpFoldResult minDiagonal,
                                           mlir::OpFoldResult maxDiagonal);

/// Reverses, for each batch entry b along `batchAxis`, the first
/// `lengths[b]` elements along `timeAxis` of `x` (rank >= 2); the rest is
/// copied. `lengths` is a 1-D integer tensor.
/// Spec: ONNX ReverseSequence.
mlir::FailureOr<mlir::Value>
buildReverseSequence(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                     mlir::Value lengths, int64_t batchAxis, int64_t timeAxis);

/// One-hot encoding: `indices` (integer, any shape S) gains a new dim of
/// extent `depth` at `axis` in [0, rank(S)]; the element is `onValue` where
/// the new dim's index equals the index (negative indices count from
/// `depth`), `offValue` elsewhere (indices out of range give all off).
/// `onValue`/`offValue` are scalars of the result element type.
/// Spec: ONNX OneHot; tf.one_hot.
mlir::FailureOr<mlir::Value> buildOneHot(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value indices, int64_t depth,
                                         int64_t axis, mlir::Value offValue,
                                         mlir::Value onValue);

/// N-D gather: `indices` (integer, shape [B..., M..., q], the first
/// `batchDims` dims matching `data`'s) selects slices of `data`
/// [B..., D1..Dr]: result shape [B..., M..., D(q+1)..Dr]; negative indices
/// count from the end, out-of-range ones clamp. q must be static.
/// Spec: ONNX GatherND; tf.gather_nd.
mlir::FailureOr<mlir::Value> buildGatherND(mlir::OpBuilder &b,
                                           mlir::Location loc, mlir::Value data,
                                           mlir::Value indices,
                                           int64_t batchDims);

/// The `k` largest (`largest`) or smallest elements of `x` along `axis`
/// (extent static, k <= extent), sorted (descending for largest), with their
/// int64 positions; ties keep the lower index first. Built as a rank count
/// (O(n^2) per slice), meant for small extents.
/// Spec: ONNX TopK (sorted = 1); aten::topk.
mlir::FailureOr<std::pair<mlir::Value, mlir::Value>>
buildTopK(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, int64_t k,
          int64_t axis, bool largest);

/// Reshapes `x` to the extents held in the 1-D integer tensor `shape`
/// (static length r) at run time: 0 copies the input extent at that index
/// unless `allowZero`, and one -1 takes the remaining element count. The
/// result has rank r; `staticHint` (r entries, kDynamic where unknown, or
/// empty) refines its type. Invalid shapes are undefined behaviour.
/// Spec: ONNX Reshape with a non-constant shape input.
mlir::FailureOr<mlir::Value>
buildReshapeToShapeTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                          mlir::Value shape, bool allowZero,
                          llvm::ArrayRef<int64_t> staticHint = {});

/// The extents of the 1-D integer tensor `shape` (static length) as index
/// values (tensor.extract + index_cast), or constants where `shape` is a
/// compile-time constant.
llvm::SmallVector<mlir::OpFoldResult>
extractShapeSizes(mlir::OpBuilder &b, mlir::Location loc, mlir::Value shape);

/// Broadcasts `x` against the run-time shape `sizes` (numpy rules, aligned
/// at the trailing dim; an extent 1 in `sizes` keeps `x`'s). Dims of `x`
/// that stretch must have static extent 1.
/// Spec: ONNX Expand with a non-constant shape input.
mlir::FailureOr<mlir::Value>
buildExpandToSizes(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                   llvm::ArrayRef<mlir::OpFoldResult> sizes);

/// The 1-D tensor start, start + delta, ... of max(ceil((limit - start) /
/// delta), 0) elements, where start, limit and delta are 0-D tensors of one
/// numeric element type read at run time.
/// Spec: ONNX Range.
mlir::FailureOr<mlir::Value>
buildRangeDynamic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value start,
                  mlir::Value limit, mlir::Value delta);

/// buildOneHot with a run-time `depth` (an index Value or attribute, >= 0;
/// the new dim is dynamic unless `depth` is an attribute).
/// Spec: ONNX OneHot with a non-constant depth input.
mlir::FailureOr<mlir::Value>
buildOneHotDynamic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value indices,
                   mlir::OpFoldResult depth, int64_t axis, mlir::Value offValue,
                   mlir::Value onValue);

/// buildTopK with a run-time `k` (an index Value or attribute): the result
/// extent along `axis` is `k`, dynamic unless `k` is an attribute; the
/// extent along `axis` may be dynamic. k in [0, extent] is the caller's
/// contract (checked by buildTopK for static k); a larger k leaves the
/// extra entries 0.
/// Spec: ONNX TopK with a non-constant k input.
mlir::FailureOr<std::pair<mlir::Value, mlir::Value>>
buildTopKDynamic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                 mlir::OpFoldResult k, int64_t axis, bool largest);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_REARRANGE_H
