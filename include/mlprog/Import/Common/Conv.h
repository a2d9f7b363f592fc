//===- Conv.h - Convolution builders ----------------------------*- C++ -*-===//
//
// Format-independent builders for convolutions on channels-first tensors
// ([N, C, D1, ..., Dn]), emitted as upstream named linalg ops
// (linalg.conv_2d_nchw_fchw, ...) on an explicitly padded input
// (tensor.pad), or as a linalg.generic window reduction where upstream has
// no channels-first named op (1-D/3-D grouped conv). The window geometry is
// shared with Pool.h.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_CONV_H
#define MLPROG_IMPORT_COMMON_CONV_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

namespace mlprog {

/// Window geometry per spatial dimension (all vectors have one entry per
/// spatial dimension, in order D1..Dn). Empty vectors mean the defaults:
/// stride 1, dilation 1, no padding. Pads are in elements and may differ at
/// the beginning and end of a dimension.
struct WindowParams {
  llvm::SmallVector<int64_t> strides;
  llvm::SmallVector<int64_t> dilations;
  llvm::SmallVector<int64_t> padsBegin;
  llvm::SmallVector<int64_t> padsEnd;
};

/// Computes "same" padding so that output extent = ceil(input / stride):
/// the total padding max(0, (out - 1) * stride + dilation * (kernel - 1) + 1
/// - input) is split evenly, the odd element going to the end
/// (`extraAtBegin == false`, ONNX SAME_UPPER, TF/PyTorch "same") or to the
/// beginning (`extraAtBegin == true`, ONNX SAME_LOWER). Fills
/// `params.padsBegin/padsEnd`; strides and dilations must already be set.
/// An input extent may be ShapedType::kDynamic only where the stride is 1
/// (callers check): the padding, dilation * (kernel - 1), is then the same
/// for every extent.
/// Spec: ONNX Conv/MaxPool/AveragePool attribute `auto_pad`; MIL pad_type
/// same/same_lower.
void computeSamePadding(llvm::ArrayRef<int64_t> inputSpatial,
                        llvm::ArrayRef<int64_t> kernel, bool extraAtBegin,
                        WindowParams &params);

/// N-D convolution (cross-correlation) of `input` [N, C, D1..Dn] with
/// `filter` [F, C / groups, K1..Kn] plus optional `bias` [F] (may be null),
/// giving [N, F, O1..On] with Oi = floor((Di + padsBegin + padsEnd -
/// dilation * (Ki - 1) - 1) / stride) + 1. n = 1, 2, 3, with any groups
/// dividing C and F (depthwise included); n > 3 is an "unsupported" error.
/// Channel and filter extents must be static; N and the input's spatial
/// extents may be dynamic (the output's are then computed at run time and
/// are 0 where the window does not fit). Zero padding. f16 and bf16
/// convolutions accumulate in f32 and round once (accumulateInF32).
/// Spec: ONNX Conv; aten::convolution (NCHW/OIHW layouts).
mlir::FailureOr<mlir::Value> buildConv(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value input, mlir::Value filter,
                                       mlir::Value bias,
                                       const WindowParams &params,
                                       int64_t groups);

/// N-D transposed convolution (the gradient of buildConv with respect to its
/// input) of `input` [N, C, D1..Dn] with `filter` [C, F / groups, K1..Kn]
/// plus optional `bias` [F] (may be null), giving [N, F, O1..On] with
/// Oi = (Di - 1) * stride - padsBegin - padsEnd + dilation * (Ki - 1) + 1 +
/// outputPadding[i]. Built as a stride-1 buildConv over the input with
/// stride - 1 zeros inserted between elements, padded by dilation * (K - 1)
/// - pad (cropped where negative), with the filter flipped and its channel
/// dims swapped per group. Static shapes but for the batch; n = 1..3.
/// Spec: MIL conv_transpose; ONNX ConvTranspose; aten::conv_transpose2d.
mlir::FailureOr<mlir::Value>
buildConvTranspose(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                   mlir::Value filter, mlir::Value bias,
                   const WindowParams &params, int64_t groups,
                   llvm::ArrayRef<int64_t> outputPadding = {});

/// 2-D deformable convolution of `input` [N, C, H, W] with `filter`
/// [F, C / groups, kH, kW], the learned `offset` [N, G * 2 * kH * kW, oH, oW]
/// (per offset group g and tap (i, j): the (dh, dw) pair at channels
/// g * 2 kH kW + 2 (i kW + j) + {0, 1}), an optional `mask` [N, G * kH * kW,
/// oH, oW] (null: all ones) and an optional `bias` [F] (null: 0). Tap (i, j)
/// of output (y, x) samples input channel c (offset group c / (C / G)) at
/// (y * sh - padTop + i * dh + dh_off, x * sw - padLeft + j * dw + dw_off)
/// bilinearly, neighbours outside the input reading 0, times the mask;
/// the samples are then contracted with the filter per channel group.
/// Computed in f32 for f16/bf16 inputs (rounded once). Static shapes.
/// Errors: ranks other than 4, channel counts that `groups` or `offsetGroups`
/// do not divide, offset/mask channel counts or extents that do not match.
/// Spec: ONNX DeformConv (opset 19); torchvision.ops.deform_conv2d.
mlir::FailureOr<mlir::Value>
buildDeformConv2D(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                  mlir::Value filter, mlir::Value offset, mlir::Value mask,
                  mlir::Value bias, const WindowParams &params, int64_t groups,
                  int64_t offsetGroups);

/// Results of buildCausalConvWithState.
struct CausalConvResult {
  mlir::Value output;       ///< [B, C, L], the input's type
  mlir::Value presentState; ///< [B, C, K - 1], the input's type
};

/// Causal depthwise 1-D convolution carrying its left context: `input`
/// [B, C, L] is prefixed by `pastState` [B, C, K - 1] (null: zeros), the
/// result convolved with `weight` [C, 1, K] per channel (stride 1, no
/// padding) plus `bias` [C] (may be null), then SiLU x * sigmoid(x) when
/// `silu` (computed in f32 for f16/bf16, rounded once); presentState is the
/// last K - 1 steps of the prefixed sequence (the next call's pastState).
/// Errors: ranks other than 3, a weight of another channel count or middle
/// extent than 1, a past state of another shape, a dynamic channel count or
/// kernel size.
/// Spec: ONNX CausalConvWithState (opset 27).
mlir::FailureOr<CausalConvResult>
buildCausalConvWithState(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value input, mlir::Value weight,
                         mlir::Value bias, mlir::Value pastState, bool silu);

/// The inverse of im2col: sums the columns of `input` [N, C * prod(K), L]
/// (float) back into an image [N, C, I1..In]. `imageShape` (I) and
/// `blockShape` (K) are 1-D integer tensors of n elements (constants or
/// read at run time); column l holds the block at the l-th position (row
/// major) of the sliding window with `strides`, `dilations` and
/// `padsBegin`/`padsEnd` (n entries each), and its row c * prod(K) + k the
/// block offset k (row major) of channel c; overlapping entries add, padded
/// positions are dropped. Built as scalar loops over the input.
/// Errors: a non-float input of another rank, shape tensors that are not
/// 1-D integer tensors of one static length n matching the parameters.
/// Spec: ONNX Col2Im (opset 18); torch.nn.functional.fold.
mlir::FailureOr<mlir::Value> buildCol2Im(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value input,
                                         mlir::Value imageShape,
                                         mlir::Value blockShape,
                                         const WindowParams &params);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_CONV_H
