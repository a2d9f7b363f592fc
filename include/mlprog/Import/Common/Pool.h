//===- Pool.h - Pooling builders --------------------------------*- C++ -*-===//
//
// Format-independent builders for pooling on channels-first tensors
// ([N, C, D1, ..., Dn]) with the window geometry of Conv.h, emitted as
// upstream named linalg ops (linalg.pooling_nchw_max, ...) on an explicitly
// padded input, or as a linalg.generic window reduction (3-D pooling, max
// pooling with indices). Unpooling is buildMaxUnpool in SliceGather.h.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_POOL_H
#define MLPROG_IMPORT_COMMON_POOL_H

#include "mlprog/Import/Common/Conv.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <utility>

namespace mlprog {

/// Max pooling of `input` [N, C, D1..Dn] (any n >= 1) with window `kernel`,
/// padding with the lowest value of the element type. With `ceilMode` the
/// output extent rounds up, except that a window starting in the end padding
/// is dropped (PyTorch/onnxruntime rule). Spatial extents must be static.
/// `isUnsigned` orders integer elements as unsigned (ONNX uint8 MaxPool).
/// Spec: ONNX MaxPool (single output; storage_order irrelevant).
mlir::FailureOr<mlir::Value>
buildMaxPool(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
             llvm::ArrayRef<int64_t> kernel, const WindowParams &params,
             bool ceilMode, bool isUnsigned = false);

/// Max pooling as buildMaxPool, also returning the int64 indices of the
/// maxima: offsets into the unpadded input [N, C, D1..Dn], batch and channel
/// included, (N, C) row-major and the spatial dims row-major, or
/// column-major (Dn slowest, D1 fastest) with `spatialColumnMajor`. With
/// `planeIndices` the batch and channel are left out: an index is the
/// offset within its (n, c) plane [D1..Dn] (aten's convention). The
/// first maximum in window order wins ties. Channel and spatial extents must
/// be static.
/// Spec: ONNX MaxPool output Indices (storage_order 0 / 1);
/// aten::max_pool{1,2,3}d_with_indices (`planeIndices`, row-major).
mlir::FailureOr<std::pair<mlir::Value, mlir::Value>>
buildMaxPoolWithIndices(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value input, llvm::ArrayRef<int64_t> kernel,
                        const WindowParams &params, bool ceilMode,
                        bool spatialColumnMajor, bool isUnsigned = false,
                        bool planeIndices = false);

/// Average pooling of float `input` [N, C, D1..Dn] (any n >= 1), same
/// geometry as buildMaxPool (dilations included). The divisor of a window is
/// the number of its (dilated) taps inside the input, or inside the explicitly
/// padded input when `countIncludePad` (elements added by `ceilMode` never
/// count), matching PyTorch and onnxruntime. A non-zero `divisorOverride`
/// divides every window by that number instead (aten accepts negative ones).
/// Errors: a non-float tensor.
/// Spec: ONNX AveragePool (dilations since opset 19); aten::avg_pool{1,2,3}d
/// (divisor_override).
mlir::FailureOr<mlir::Value>
buildAveragePool(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                 llvm::ArrayRef<int64_t> kernel, const WindowParams &params,
                 bool ceilMode, bool countIncludePad,
                 int64_t divisorOverride = 0);

/// Lp pooling of float `input` [N, C, D1..Dn] (any n >= 1), same geometry
/// as buildMaxPool (dilations allowed): (sum over the window of |x|^p)^(1/p),
/// padding contributing 0. p = 1 and p = 2 use abs / multiply and sqrt, other
/// values math.powf; the sums are in the element type.
/// Errors: a non-float tensor, p <= 0.
/// Spec: ONNX LpPool-18 (the node tests' `pool(..., "LPPOOL")`);
/// torch.nn.functional.lp_pool{1,2,3}d without ceil_mode windows.
mlir::FailureOr<mlir::Value> buildLpPool(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value input,
                                         llvm::ArrayRef<int64_t> kernel,
                                         const WindowParams &params,
                                         bool ceilMode, double p);

/// Mean over all spatial dimensions of float `input` [N, C, D1..Dn]
/// (n >= 1, static spatial extents), giving [N, C, 1, ..., 1].
/// Spec: ONNX GlobalAveragePool.
mlir::FailureOr<mlir::Value> buildGlobalAveragePool(mlir::OpBuilder &b,
                                                    mlir::Location loc,
                                                    mlir::Value input);

/// Adaptive average pooling of float `input` [N, C, D1..Dn] (n >= 1, static
/// spatial extents) to the positive extents `outputSize` [O1..On] (static,
/// or index values known at run time, the result extents then dynamic and
/// the windows computed at run time): output o
/// along dim i averages the input window [floor(o * Di / Oi),
/// ceil((o + 1) * Di / Oi)). Windows may differ in size and overlap when Oi
/// does not divide Di; the window sum is divided by each dim's window length
/// in turn, as aten does. Result [N, C, O1..On] of the input's type.
/// Errors: a non-float tensor, rank < 3, dynamic spatial extents, a size
/// count other than n, non-positive sizes.
/// Spec: aten::adaptive_avg_pool{1,2,3}d; torch.nn.AdaptiveAvgPool*d.
mlir::FailureOr<mlir::Value>
buildAdaptiveAveragePool(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value input,
                         llvm::ArrayRef<mlir::OpFoldResult> outputSize);

/// Adaptive max pooling of int or float `input` [N, C, D1..Dn] with the
/// windows of buildAdaptiveAveragePool: returns the maxima [N, C, O1..On]
/// (input's type) and their int64 indices, offsets within each (n, c) plane
/// [D1..Dn] in row-major order. The first maximum in window order wins
/// ties; a NaN wins over numbers (the last NaN of the window).
/// Errors: as buildAdaptiveAveragePool (int inputs allowed).
/// Spec: aten::adaptive_max_pool{1,2,3}d.
mlir::FailureOr<std::pair<mlir::Value, mlir::Value>>
buildAdaptiveMaxPool(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                     llvm::ArrayRef<mlir::OpFoldResult> outputSize);

/// Max unpooling with per-plane indices: `x` [N, C, D1..Dn] and `indices`
/// (same shape, signless integer), each index an offset within its (n, c)
/// plane of the result [N, C, O1..On] (`outputSize` = [O1..On], row-major),
/// as aten max pooling returns them. The result is zero except at those
/// positions, which receive x (the later element wins a repeated index);
/// indices outside the plane are skipped (aten raises an error). Static
/// shapes.
/// Errors: shape mismatches, dynamic extents, a size count other than n.
/// Spec: aten::max_unpool2d / max_unpool3d (stride and padding only check
/// the sizes there, and are not needed).
mlir::FailureOr<mlir::Value>
buildMaxUnpoolPlanes(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                     mlir::Value indices, llvm::ArrayRef<int64_t> outputSize);

/// How buildEmbeddingBag reduces a bag.
enum class EmbeddingBagMode { Sum, Mean, Max };

/// Bags of embeddings: row b of the result [B, D] reduces the rows
/// `weight`[indices[j]] (weight [V, D] float, indices [N] signless
/// integer) for j in [offsets[b], offsets[b + 1]) (the last bag ends at N;
/// with `includeLastOffset` `offsets` has B + 1 entries and the last one
/// ends the last bag). Sum adds the rows (each scaled by
/// `perSampleWeights`[j] when that [N] tensor of weight's type is
/// non-null), Mean divides the sum by the bag's size, Max takes the
/// elementwise maximum; entries equal to `paddingIdx` (when set; negative
/// counts from V) are left out, and an empty bag gives zeros. Accumulates
/// in the weight's type in index order. Bag bounds are clamped into
/// [0, N]; indices are clamped into [0, V).
/// Errors: ranks and element types, per-sample weights with a mode other
/// than Sum.
/// Spec: aten::embedding_bag (output 0); torch.nn.functional.embedding_bag.
mlir::FailureOr<mlir::Value>
buildEmbeddingBag(mlir::OpBuilder &b, mlir::Location loc, mlir::Value weight,
                  mlir::Value indices, mlir::Value offsets,
                  EmbeddingBagMode mode, mlir::Value perSampleWeights,
                  bool includeLastOffset, std::optional<int64_t> paddingIdx);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_POOL_H
