//===- Shape.h - Reshape, transpose, concat, pad and friends ----*- C++ -*-===//
//
// Format-independent data-movement builders on ranked tensors: reshapes
// (tensor.collapse_shape/expand_shape/reshape, also to run-time shapes),
// transposes, concatenation, unit-dim insertion and removal, broadcasting,
// tiling, padding, block moves (depth-to-space), band masks and sequence
// reversal. Builders named ...Dynamic take run-time arguments; their result
// extents are dynamic unless a caller passes the shape it knows as a hint.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_SHAPE_H
#define MLPROG_IMPORT_COMMON_SHAPE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

namespace mlprog {

/// Resolves a requested reshape target against `inputShape` (which may hold
/// ShapedType::kDynamic): an entry 0 copies the input extent at the same
/// index (unless `allowZero`, where 0 is a literal zero extent), one entry -1
/// is inferred from the element count. The result holds extents >= 0 or
/// kDynamic where the input's dynamic extents leave it unknown.
/// Errors: more than one -1, entries < -1, 0 past the input rank, element
/// counts that cannot match.
/// Spec: ONNX Reshape (opset 5+, allowzero since 14); aten::view's -1.
mlir::FailureOr<llvm::SmallVector<int64_t>>
resolveReshapeShape(mlir::Location loc, llvm::ArrayRef<int64_t> inputShape,
                    llvm::ArrayRef<int64_t> requested, bool allowZero);

/// Reshapes `x` to `shape` (resolved: extents >= 0 or at most one
/// ShapedType::kDynamic), keeping the row-major element order. Static shapes
/// become collapse_shape + expand_shape; a dynamic result extent is computed
/// from the element count at run time (tensor.reshape).
mlir::FailureOr<mlir::Value> buildReshape(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value x,
                                          llvm::ArrayRef<int64_t> shape);

/// Flattens `x` [D0..Dr-1] to 2-D [D0*..*D(axis-1), Daxis*..*D(r-1)],
/// 0 <= axis <= r (callers normalize negative axes). An empty product is 1.
/// Spec: ONNX Flatten.
mlir::FailureOr<mlir::Value> buildFlatten(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value x,
                                          int64_t axis);

/// Merges the adjacent dims [start, end] of `x` (0 <= start <= end < rank)
/// into one of their product extent, any of them dynamic
/// (tensor.collapse_shape; `x` itself when start == end).
/// Errors: dims out of range.
/// Spec: aten::flatten(start_dim, end_dim).
mlir::FailureOr<mlir::Value> buildCollapseDims(mlir::OpBuilder &b,
                                               mlir::Location loc,
                                               mlir::Value x, int64_t start,
                                               int64_t end);
/// Permutes the dimensions of `x`: result dim i is input dim `perm[i]`.
/// `perm` must be a permutation of [0, rank).
/// Spec: ONNX Transpose; aten::permute.
mlir::FailureOr<mlir::Value> buildTranspose(mlir::OpBuilder &b,
                                            mlir::Location loc, mlir::Value x,
                                            llvm::ArrayRef<int64_t> perm);

/// Concatenates `inputs` (same rank >= 1 and element type, equal extents
/// except along `axis`) along `axis` in [-rank, rank).
/// Spec: ONNX Concat; aten::cat.
mlir::FailureOr<mlir::Value> buildConcat(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::ValueRange inputs, int64_t axis);

/// Inserts an extent-1 dim at `dim` in [0, rank].
/// Spec: aten::unsqueeze; ONNX Unsqueeze.
mlir::FailureOr<mlir::Value> buildUnsqueeze(mlir::OpBuilder &b,
                                            mlir::Location loc, mlir::Value x,
                                            int64_t dim);

/// Removes the listed dims (in [0, rank)) when their static extent is 1;
/// other listed dims are kept (torch semantics). An empty list removes every
/// static extent-1 dim.
/// Spec: aten::squeeze / squeeze.dim; ONNX Squeeze.
mlir::FailureOr<mlir::Value> buildSqueeze(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value x,
                                          llvm::ArrayRef<int64_t> dims);

/// Broadcasts `x` to `shape` (numpy rules, `x` aligned at the trailing
/// dim); an entry -1 keeps the corresponding extent of `x`.
/// Spec: aten::expand; ONNX Expand.
mlir::FailureOr<mlir::Value> buildExpand(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value x,
                                         llvm::ArrayRef<int64_t> shape);

/// The extents of the 1-D integer tensor `shape` (static length) as index
/// values (tensor.extract + index_cast), or constants where `shape` is a
/// compile-time constant.
llvm::SmallVector<mlir::OpFoldResult>
extractShapeSizes(mlir::OpBuilder &b, mlir::Location loc, mlir::Value shape);

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

/// Broadcasts `x` against the run-time shape `sizes` (numpy rules, aligned
/// at the trailing dim; an extent 1 in `sizes` keeps `x`'s). Dims of `x`
/// that stretch must have static extent 1.
/// Spec: ONNX Expand with a non-constant shape input.
mlir::FailureOr<mlir::Value>
buildExpandToSizes(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                   llvm::ArrayRef<mlir::OpFoldResult> sizes);

/// Casts `v` to the shape `hint` (same rank, ShapedType::kDynamic where
/// unknown) where that makes its type more static; `v` unchanged when
/// `hint` is empty, of another rank, or contradicts a static extent of `v`.
mlir::Value refineToShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                          llvm::ArrayRef<int64_t> hint);

/// Inserts unit dims into `x` (rank r) at the output positions held in the
/// 1-D signless-integer tensor `axes` (static length k, entries in
/// [-(r + k), r + k), distinct, any order): the result has rank r + k and
/// its shape is computed at run time (tensor.reshape). `hint` refines the
/// result type. Repeated or out-of-range axes are undefined behaviour.
/// Errors: `axes` not a 1-D integer tensor of static length.
/// Spec: ONNX Unsqueeze (opset 13+) with a non-constant axes input.
mlir::FailureOr<mlir::Value>
buildUnsqueezeDynamic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                      mlir::Value axes, llvm::ArrayRef<int64_t> hint = {});

/// Removes from `x` (rank r) the dims listed in the 1-D signless-integer
/// tensor `axes` (static length k <= r, entries in [-r, r), distinct, each
/// naming an extent-1 dim): the result has rank r - k, its shape computed
/// at run time (tensor.reshape). `hint` refines the result type. Repeated
/// axes or listed extents other than 1 are undefined behaviour.
/// Errors: `axes` not a 1-D integer tensor of static length <= r.
/// Spec: ONNX Squeeze (opset 13+) with a non-constant axes input.
mlir::FailureOr<mlir::Value>
buildSqueezeDynamic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                    mlir::Value axes, llvm::ArrayRef<int64_t> hint = {});

/// Repeats `x` `reps[d]` times along each dim d (reps.size() == rank,
/// reps >= 1, static extents where reps > 1).
/// Spec: MIL tile; ONNX Tile; numpy.tile with equal ranks.
mlir::FailureOr<mlir::Value> buildTile(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value x,
                                       llvm::ArrayRef<int64_t> reps);

/// Padding modes: Constant fills, Reflect mirrors without repeating the
/// edge, Replicate repeats the edge, Wrap continues periodically from the
/// other end (numpy.pad's "wrap", ONNX Pad-19's "wrap").
enum class PadMode { Constant, Reflect, Replicate, Wrap };

/// Pads `x` by `low[d]` / `high[d]` (>= 0) elements per dim. Constant mode
/// fills with `value`; Reflect mirrors without repeating the edge (pad <
/// extent); Replicate repeats the edge; Wrap reads x[(i - low) mod n].
/// Reflect/Replicate/Wrap need static extents (>= 1 for Wrap) on padded
/// dims.
/// Spec: MIL pad; ONNX Pad (constant/reflect/edge/wrap); numpy.pad.
mlir::FailureOr<mlir::Value> buildPad(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value x,
                                      llvm::ArrayRef<int64_t> low,
                                      llvm::ArrayRef<int64_t> high,
                                      PadMode mode, double value);

/// Pads `x` by `low[d]` / `high[d]` elements per dim (index Values or
/// attributes; negative values crop, as in ONNX): result extent
/// extent + low + high. Constant mode fills with `padValue` (a scalar of
/// `x`'s element type; null means zero) via tensor.extract_slice (crop) and
/// tensor.pad; Reflect mirrors without repeating the edge (any width, by
/// repeated reflection as numpy.pad), Replicate repeats the edge and Wrap
/// reads x[(i - low) mod extent], each as a linalg.generic gather that needs
/// extents >= 1 on padded dims.
/// `hint` refines the result type.
/// Errors: low/high sizes != rank, padValue of another type.
/// Spec: ONNX Pad (opset 11+, pads as a non-constant input); numpy.pad.
mlir::FailureOr<mlir::Value>
buildPadDynamic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                llvm::ArrayRef<mlir::OpFoldResult> low,
                llvm::ArrayRef<mlir::OpFoldResult> high, PadMode mode,
                mlir::Value padValue, llvm::ArrayRef<int64_t> hint = {});

/// Spreads the widths `pads` [begin_0 .. begin_k-1, end_0 .. end_k-1] (index
/// Values or attributes) over the dims of a rank-`rank` tensor that the
/// run-time 1-D integer tensor `axes` [k] (static k; negative axes count from
/// the end) lists: low[d] / high[d] is the sum of the begin / end widths of
/// the entries equal to d, 0 for dims not listed. Axes out of [-rank, rank)
/// pad nothing; a repeated axis gets the sum of its widths (the importer
/// cannot refuse run-time values).
/// Errors: `axes` not a 1-D integer tensor of static length k, `pads` not
/// 2 * k long.
/// Spec: ONNX Pad-18 (the `axes` input).
mlir::LogicalResult
spreadPadWidths(mlir::OpBuilder &b, mlir::Location loc, int64_t rank,
                llvm::ArrayRef<mlir::OpFoldResult> pads, mlir::Value axes,
                llvm::SmallVectorImpl<mlir::OpFoldResult> &low,
                llvm::SmallVectorImpl<mlir::OpFoldResult> &high);

/// Moves blocks of `blockSize` x `blockSize` channels of `x` [N, C, H, W]
/// into space: the result is [N, C / bs^2, H * bs, W * bs]. `crd` selects
/// the column-row-depth channel order (else depth-column-row, DCR). C must
/// be static and divisible by bs^2; H, W static.
/// Spec: ONNX DepthToSpace (mode DCR/CRD); aten::pixel_shuffle (CRD).
mlir::FailureOr<mlir::Value> buildDepthToSpace(mlir::OpBuilder &b,
                                               mlir::Location loc,
                                               mlir::Value x, int64_t blockSize,
                                               bool crd);

/// The inverse of buildDepthToSpace: `x` [N, C, H, W] (H, W static and
/// divisible by bs) becomes [N, C * bs^2, H / bs, W / bs], the channel
/// index (by * bs + bx) * C + c (DCR), or c * bs^2 + by * bs + bx with
/// `crd`.
/// Spec: ONNX SpaceToDepth (mode DCR/CRD, opset 28); aten::pixel_unshuffle
/// (CRD).
mlir::FailureOr<mlir::Value> buildSpaceToDepth(mlir::OpBuilder &b,
                                               mlir::Location loc,
                                               mlir::Value x, int64_t blockSize,
                                               bool crd = false);

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

/// The extents of `x` as a 1-D tensor [rank] of the integer `elementType`:
/// an arith.constant when the shape is static, tensor.dim reads otherwise.
/// Errors: a non-integer element type.
/// Spec: MIL shape (int32); ONNX Shape (int64, without start/end).
mlir::FailureOr<mlir::Value> buildShapeOf(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value x,
                                          mlir::Type elementType);

/// Stacks `inputs` (same shape and element type, at least one) along a new
/// dim at `axis` in [0, rank].
/// Spec: MIL stack; aten::stack; numpy.stack.
mlir::FailureOr<mlir::Value> buildStack(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::ValueRange inputs, int64_t axis);

/// Reverses `x` along each of `axes` (in [0, rank)); dynamic extents are
/// read at run time (buildSliceDynamic).
/// Spec: MIL reverse; numpy.flip; aten::flip.
mlir::FailureOr<mlir::Value> buildReverse(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value x,
                                          llvm::ArrayRef<int64_t> axes);

/// Each of `tensors` (ranked, any element types) broadcast numpy-style to
/// their common shape, element types kept.
/// Errors: shapes that do not broadcast.
/// Spec: aten::broadcast_tensors; numpy.broadcast_arrays.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
buildBroadcastTensors(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::ValueRange tensors);

/// `x` cropped or zero-padded, centred, to `shape` along `axes` (distinct,
/// in [0, rank)): `shape` is a 1-D integer tensor with one extent per axis
/// (a constant gives static extents). Along an axis of extent D and target
/// T, a crop keeps [floor((D - T) / 2), + T) and a pad puts the input at
/// floor((T - D) / 2).
/// Errors: `shape` not a 1-D integer tensor of len(axes) elements, bad axes.
/// Spec: ONNX CenterCropPad (opset 18).
mlir::FailureOr<mlir::Value>
buildCenterCropPad(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                   mlir::Value shape, llvm::ArrayRef<int64_t> axes);

/// Rolls `x` by `shift` elements along `axis` (in [0, rank)): element i of
/// the result is element (i - shift) mod n of `x`, n the extent (any shift,
/// negative too; n = 0 gives `x`). A static extent is two slices and a
/// concat; a run-time extent one gather-like linalg.generic.
/// Spec: aten::roll (one dim); numpy.roll.
mlir::FailureOr<mlir::Value> buildRoll(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value x, int64_t axis,
                                       int64_t shift);

/// Moves spatial blocks into the batch: `x` [N, C, S1..SM] (static) is
/// zero-padded by `padsBegin`/`padsEnd` on S1..SM, each padded extent Pi
/// split into [Pi / bi, bi] (bi = block[i]), and the block offsets moved
/// before the batch: the result is [b1*..*bM*N, C, P1/b1, .., PM/bM] whose
/// batch index is ((o1 * b2 + o2) ..) * N + n for block offsets oi.
/// Errors: rank != M + 2, dynamic extents, block sizes < 1, padded extents
/// not divisible by the block.
/// Spec: MIL space_to_batch (channels-first tf.space_to_batch_nd).
mlir::FailureOr<mlir::Value>
buildSpaceToBatch(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                  llvm::ArrayRef<int64_t> block,
                  llvm::ArrayRef<int64_t> padsBegin,
                  llvm::ArrayRef<int64_t> padsEnd);

/// The inverse of buildSpaceToBatch: `x` [b1*..*bM*N, C, S1..SM] (static)
/// becomes [N, C, S1*b1 - cb1 - ce1, ..], cropping `cropsBegin`/`cropsEnd`
/// elements from each interleaved spatial dim.
/// Errors: rank != M + 2, dynamic extents, a batch not divisible by the
/// block volume, crops that do not fit.
/// Spec: MIL batch_to_space (channels-first tf.batch_to_space_nd).
mlir::FailureOr<mlir::Value>
buildBatchToSpace(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                  llvm::ArrayRef<int64_t> block,
                  llvm::ArrayRef<int64_t> cropsBegin,
                  llvm::ArrayRef<int64_t> cropsEnd);

/// The windows of `size` elements every `stride` elements along `axis` (in
/// [0, rank), static extent L >= size): result shape x.shape[:axis] +
/// [(L - size) / stride + 1, size] + x.shape[axis + 1:], element
/// [.., w, s, ..] = x[.., w * stride + s, ..] (one linalg.generic with a
/// strided input map).
/// Errors: axis out of range, a dynamic extent, size or stride < 1 or size
/// > L.
/// Spec: MIL sliding_windows; aten::unfold (Tensor.unfold).
mlir::FailureOr<mlir::Value> buildSlidingWindows(mlir::OpBuilder &b,
                                                 mlir::Location loc,
                                                 mlir::Value x, int64_t axis,
                                                 int64_t size, int64_t stride);

/// The sliding 2-D patches of `x` [N, C, H, W] (static) zero-padded by
/// `padding` (ph, pw) on both sides: the result [N, C * kh * kw, L] holds in
/// row c * kh * kw + i * kw + j and column oh * OW + ow the element
/// x[n, c, oh * sh + i * dh - ph, ow * sw + j * dw - pw] (0 in the padding),
/// OH = (H + 2 ph - dh * (kh - 1) - 1) / sh + 1 and OW alike, L = OH * OW.
/// `kernel`, `dilation`, `stride` are (h, w) pairs. One linalg.generic with
/// a strided input map, then a reshape.
/// Errors: rank != 4, dynamic extents, kernel/dilation/stride < 1, padding
/// < 0, no complete patch.
/// Spec: aten::im2col (torch.nn.functional.unfold).
mlir::FailureOr<mlir::Value>
buildIm2Col(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
            llvm::ArrayRef<int64_t> kernel, llvm::ArrayRef<int64_t> dilation,
            llvm::ArrayRef<int64_t> padding, llvm::ArrayRef<int64_t> stride);

/// The diagonal at `offset` of the plane of dims `dim1` and `dim2` of `x`
/// (distinct, in [0, rank); their extents n1, n2 static): both dims are
/// removed and a last dim appended whose element i is x at i + max(-offset,
/// 0) along dim1 and i + max(offset, 0) along dim2; its extent is
/// max(0, min(n1, n2 - offset)) for offset >= 0 and max(0, min(n1 + offset,
/// n2)) below. One linalg.generic with an affine input map.
/// Errors: rank < 2, dims equal or out of range, dynamic extents on dim1 or
/// dim2.
/// Spec: aten::diagonal / linalg_diagonal; numpy.diagonal.
mlir::FailureOr<mlir::Value> buildDiagonal(mlir::OpBuilder &b,
                                           mlir::Location loc, mlir::Value x,
                                           int64_t offset, int64_t dim1,
                                           int64_t dim2);

/// The inverse of buildDiagonal: a copy of `x` whose diagonal (the same
/// `offset`, `dim1`, `dim2`) is replaced by `src`, which has x's element
/// type and the shape buildDiagonal gives.
/// Errors: as buildDiagonal; `src` of another element type or shape.
/// Spec: aten::diagonal_scatter (and diag_embed as the diagonal scattered
/// into zeros).
mlir::FailureOr<mlir::Value>
buildDiagonalScatter(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                     mlir::Value src, int64_t offset, int64_t dim1,
                     int64_t dim2);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_SHAPE_H
