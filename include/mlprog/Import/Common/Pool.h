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
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

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
/// column-major (Dn slowest, D1 fastest) with `spatialColumnMajor`. The
/// first maximum in window order wins ties. Channel and spatial extents must
/// be static.
/// Spec: ONNX MaxPool output Indices (storage_order 0 / 1).
mlir::FailureOr<std::pair<mlir::Value, mlir::Value>>
buildMaxPoolWithIndices(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value input, llvm::ArrayRef<int64_t> kernel,
                        const WindowParams &params, bool ceilMode,
                        bool spatialColumnMajor, bool isUnsigned = false);

/// Average pooling of float `input` [N, C, D1..Dn] (any n >= 1), same
/// geometry as buildMaxPool (dilations must be 1). The divisor of a window is
/// the number of its elements inside the input, or inside the explicitly
/// padded input when `countIncludePad` (elements added by `ceilMode` never
/// count), matching PyTorch and onnxruntime.
/// Spec: ONNX AveragePool.
mlir::FailureOr<mlir::Value>
buildAveragePool(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                 llvm::ArrayRef<int64_t> kernel, const WindowParams &params,
                 bool ceilMode, bool countIncludePad);

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

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_POOL_H
