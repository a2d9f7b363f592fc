//===- Quantization.h - Linear quantization builders ------------*- C++ -*-===//
//
// Format-independent builders for affine (linear) quantization of ranked
// tensors and for integer contractions on quantized operands. MLIR integers
// are signless, so every builder takes the signedness of its integer
// operands and results explicitly (ONNX uint8 vs int8).
//
// Quantization parameters (scales and zero points) are tensors: per-tensor
// (rank 0, or 1-D with one element) or per-axis (1-D with one element per
// index of the quantized axis). Zero points may be null, meaning 0.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_QUANTIZATION_H
#define MLPROG_IMPORT_COMMON_QUANTIZATION_H

#include "mlprog/Import/Common/Elementwise.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlprog {

struct WindowParams;

/// The integer element type of quantized values and its signedness (MLIR
/// integers are signless): e.g. i8 + unsigned for ONNX uint8.
struct QuantizedType {
  mlir::IntegerType type;
  bool isUnsigned = false;
};

/// Linear quantization `y = saturate(round_half_even(x / scale) +
/// zeroPoint)` of `x` (float, or a signless integer read as signed, e.g.
/// ONNX int32 inputs), computed in the scale's float type (f16/bf16 in
/// f32). `scale` is float; `zeroPoint` (may be null) has
/// `result.type` elements. Both are per-tensor, or per-axis along `axis`
/// (already normalized to [0, rank)) when 1-D with more than one element.
/// Saturation clamps to the range of `result` (e.g. [0, 255] for uint8,
/// [-128, 127] for int8); NaN saturates to the lower bound.
///
/// Errors: non-float scale, a zero point whose element type is not
/// `result.type`, a per-axis parameter without `axis`, a per-axis parameter
/// whose static length differs from the static extent of x along `axis`.
/// Spec: ONNX QuantizeLinear (opsets 10 and 13).
mlir::FailureOr<mlir::Value>
buildQuantizeLinear(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                    mlir::Value scale, mlir::Value zeroPoint,
                    std::optional<int64_t> axis, QuantizedType result);

/// Linear quantization into an 8- or 4-bit float: `y = convert(x / scale)`
/// (`+ zeroPoint` for f4E2M1FN; a float8 zero point must be zero and is not
/// added), computed in the scale's float type (f16/bf16 in f32), converted
/// with buildConvertScalar's NarrowFloatCast (`saturate` clamps to the
/// largest finite float8 value; f4E2M1FN always saturates). `scale` and
/// `zeroPoint` (may be null; `result` elements) are per-tensor or per-axis
/// as in buildQuantizeLinear.
///
/// Errors: non-float x or scale, `result` not an 8- or 4-bit float (or
/// f8E8M0FNU), a zero point of another type, per-axis errors as above.
/// Spec: ONNX QuantizeLinear (opsets 19, 21 and 23).
mlir::FailureOr<mlir::Value>
buildQuantizeLinearToFloat(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value x, mlir::Value scale,
                           mlir::Value zeroPoint, std::optional<int64_t> axis,
                           mlir::FloatType result, bool saturate);

/// Linear dequantization `y = (x - zeroPoint) * scale` of the integer
/// tensor `x` (signedness `xUnsigned`; the subtraction is exact in i32 or
/// i64), giving the scale's float element type. An 8- or 4-bit float `x`
/// gives `y = x * scale` (its zero point must be zero and is ignored). `scale`
/// and `zeroPoint` (may be null; x's element type) are per-tensor or per-axis
/// as in buildQuantizeLinear.
///
/// Errors: as buildQuantizeLinear.
/// Spec: ONNX DequantizeLinear (opsets 10, 13, 19, 21 and 23).
mlir::FailureOr<mlir::Value>
buildDequantizeLinear(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                      mlir::Value scale, mlir::Value zeroPoint,
                      std::optional<int64_t> axis, bool xUnsigned);

/// Blockwise linear dequantization `y = (x - zeroPoint) * scale` of `x`
/// (static shape [D0, ..., Dr-1]; a 2- to 32-bit integer of signedness
/// `xUnsigned`, or a float), giving the scale's float element type. `scale`
/// has x's rank and shape [S0, ..., Sr-1] with every Si dividing Di: element
/// x[i0, ...] uses scale[i0 / (D0 / S0), ...], so all-ones is per-tensor, a
/// single Si = Di is per-axis and Si < Di is blocked along dim i.
/// `zeroPoint` (may be null) has the scale's shape and x's element type or a
/// float type. Integer differences are exact (i32/i64); float ones are
/// computed in f32 (f64 for f64 scales).
///
/// Errors: a non-float scale, a scale of another rank or dynamic shape, a
/// scale extent that does not divide the input's, a zero point of another
/// shape or an integer type other than x's.
/// Spec: ONNX DequantizeLinear with `block_size` (opset 21) where the blocks
/// divide the axis; Core ML iOS18 `constexpr_blockwise_shift_scale`.
mlir::FailureOr<mlir::Value>
buildBlockwiseDequantizeLinear(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value x, mlir::Value scale,
                               mlir::Value zeroPoint, bool xUnsigned);

/// Blockwise linear quantization `y = saturate(round_half_even(x / scale) +
/// zeroPoint)` of the float `x` into `result` (as buildQuantizeLinear), with
/// `scale` and `zeroPoint` (may be null; `result.type` elements) laid out as
/// in buildBlockwiseDequantizeLinear: x's rank, each extent dividing x's.
/// Errors: as buildBlockwiseDequantizeLinear; a non-float x.
/// Spec: ONNX QuantizeLinear with `block_size` (opset 21) where the blocks
/// divide the axis.
mlir::FailureOr<mlir::Value>
buildBlockwiseQuantizeLinear(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value x, mlir::Value scale,
                             mlir::Value zeroPoint, QuantizedType result);

/// Integer matrix product `(a - aZeroPoint) @ (b - bZeroPoint)` with numpy
/// matmul semantics (see buildMatMul), operands widened to i32 (sign or zero
/// extension by `aUnsigned` / `bUnsigned`) and accumulated in i32. Zero
/// points may be null, per-tensor, or per-row of `a` (1-D [M], or
/// [..., M, 1]) and per-column of `b` (1-D [N], or [..., 1, N]); they have
/// their operand's element type.
///
/// Errors: non-integer operands, shapes buildMatMul rejects, zero points
/// that do not broadcast.
/// Spec: ONNX MatMulInteger (opset 10).
mlir::FailureOr<mlir::Value>
buildMatMulInteger(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a,
                   mlir::Value bm, mlir::Value aZeroPoint,
                   mlir::Value bZeroPoint, bool aUnsigned, bool bUnsigned);

/// Integer convolution of `input` [N, C, D1..Dn] minus `inputZeroPoint`
/// (per-tensor) with `filter` [F, C / groups, K1..Kn] minus `filterZeroPoint`
/// (per-tensor or per output channel, 1-D [F]), operands widened to i32 and
/// accumulated in i32, plus the optional i32 `bias` [F] (may be null).
/// Padding is zero after the zero point is subtracted. Geometry and shape
/// rules as buildConv.
///
/// Errors: non-integer operands, what buildConv rejects.
/// Spec: ONNX ConvInteger (opset 10); the accumulation of QLinearConv.
mlir::FailureOr<mlir::Value>
buildConvInteger(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
                 mlir::Value filter, mlir::Value inputZeroPoint,
                 mlir::Value filterZeroPoint, mlir::Value bias,
                 const WindowParams &params, int64_t groups, bool inputUnsigned,
                 bool filterUnsigned);

/// Requantizes the i32 accumulator `acc` of a product of two quantized
/// operands: `y = saturate(round_half_even(acc * (scaleA * scaleB / yScale))
/// + yZeroPoint)`, computed in f32 (f64 for f64 scales). `scaleA` and
/// `scaleB` are float tensors that broadcast (numpy) against `acc`;
/// `yScale` and `yZeroPoint` (may be null) are per-tensor.
///
/// Errors: non-float scales, a zero point whose element type is not
/// `result.type`, scales that do not broadcast against `acc`.
/// Spec: the output stage of ONNX QLinearMatMul and QLinearConv (opset 10).
mlir::FailureOr<mlir::Value>
buildRequantize(mlir::OpBuilder &b, mlir::Location loc, mlir::Value acc,
                mlir::Value scaleA, mlir::Value scaleB, mlir::Value yScale,
                mlir::Value yZeroPoint, QuantizedType result);

/// Reshapes the per-row parameter `param` of a matmul operand of rank
/// `operandRank` so that it broadcasts along the rows: a 1-D [M] (M > 1)
/// becomes [M, 1]; anything else is returned unchanged.
/// Spec: ONNX MatMulInteger a_zero_point, QLinearMatMul a_scale.
mlir::Value alignPerRowParam(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value param, int64_t operandRank);

/// Reshapes the per-channel parameter `param` (1-D [C], C > 1) of a tensor
/// of rank `rank` quantized along `axis` to [C, 1, ..., 1] (rank - axis
/// dims) so that it broadcasts (numpy) along `axis`; a per-tensor parameter
/// (rank 0 or one element) becomes rank 0. Errors: parameters of rank > 1,
/// a static length that differs from `axisExtent` (when static).
mlir::FailureOr<mlir::Value>
alignAxisParam(mlir::OpBuilder &b, mlir::Location loc, mlir::Value param,
               int64_t rank, std::optional<int64_t> axis, int64_t axisExtent,
               llvm::StringRef what);

/// A quantized tensor: integer `value` of signedness `isUnsigned`, with a
/// per-tensor float `scale` and `zeroPoint` (may be null: zero) of its
/// element type, or per-channel ones where an op allows them.
struct QuantizedValue {
  mlir::Value value;
  mlir::Value scale;
  mlir::Value zeroPoint;
  bool isUnsigned = false;
};

/// `y = quantize(dequantize(a) op dequantize(bq))` with numpy broadcasting,
/// computed in the scales' float type and rounded half to even into
/// `result` with `yScale` / `yZeroPoint` (per-tensor). `kind` is Add or Mul.
/// Errors: as buildDequantizeLinear and buildQuantizeLinear, operands that
/// do not broadcast.
/// Spec: onnxruntime's com.microsoft QLinearAdd and QLinearMul (version 1).
mlir::FailureOr<mlir::Value>
buildQLinearBinary(mlir::OpBuilder &b, mlir::Location loc, BinaryOpKind kind,
                   const QuantizedValue &a, const QuantizedValue &bq,
                   mlir::Value yScale, mlir::Value yZeroPoint,
                   QuantizedType result);

/// The mean over the spatial dims of the quantized `x` ([N, C, D1..Dn], or
/// [N, D1..Dn, C] when `channelsLast`), requantized into `result` with
/// `yScale` / `yZeroPoint`: [N, C, 1, ..., 1] (or [N, 1, ..., 1, C]).
/// Errors: as buildGlobalAveragePool (static spatial extents).
/// Spec: onnxruntime's com.microsoft QLinearGlobalAveragePool (version 1).
mlir::FailureOr<mlir::Value>
buildQLinearGlobalAveragePool(mlir::OpBuilder &b, mlir::Location loc,
                              const QuantizedValue &x, mlir::Value yScale,
                              mlir::Value yZeroPoint, QuantizedType result,
                              bool channelsLast);

/// Quantized Gemm of 2-D `a` [M, K] (or [K, M] when `transA`) and `bq`
/// [K, N] (or [N, K] when `transB`; scale and zero point per-tensor or
/// per column, 1-D [N]): the i32 accumulator `(a - za) @ (b - zb) + c`
/// (`c`: optional i32 bias broadcasting to [M, N]) scaled by
/// `alpha * scaleA * scaleB`. With `result`, requantized by `yScale` and
/// `yZeroPoint` into it; without, the f32 product (divided by `yScale` when
/// given, as onnxruntime does).
/// Errors: operands that are not 2-D integers, what buildMatMulInteger and
/// buildRequantize reject.
/// Spec: onnxruntime's com.microsoft QGemm (version 1).
mlir::FailureOr<mlir::Value>
buildQGemm(mlir::OpBuilder &b, mlir::Location loc, const QuantizedValue &a,
           const QuantizedValue &bq, mlir::Value c, mlir::Value yScale,
           mlir::Value yZeroPoint, std::optional<QuantizedType> result,
           double alpha, bool transA, bool transB);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_QUANTIZATION_H
