//===- QuantizationOps.cpp - ONNX quantization ops ------------------------===//
//
// Handlers for ONNX quantize, dequantize, integer matmul/conv. The
// semantics live in mlprog/Import/Common/Quantization.h; here the ONNX
// element types (uint8 vs int8, which MLIR's signless integers do not
// distinguish) pick the signedness of each operand and result.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"
#include "TensorConversion.h"

#include "mlprog/Import/Common/Conv.h"
#include "mlprog/Import/Common/Quantization.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace mlprog::onnx_import {
namespace {

/// Inputs `first` .. `first + count - 1`, all required.
FailureOr<SmallVector<Value>> requiredInputs(NodeContext &ctx, unsigned first,
                                             unsigned count) {
  SmallVector<Value> values;
  for (unsigned i = first; i < first + count; ++i) {
    FailureOr<Value> v = ctx.input(i);
    if (failed(v))
      return failure();
    values.push_back(*v);
  }
  return values;
}

/// Whether integer input `i` is unsigned; when its ONNX type is unknown
/// (e.g. inside an expanded function body), that of input `other`, which
/// has the same ONNX type by the op's type constraints.
bool isUnsigned(NodeContext &ctx, unsigned i, unsigned other) {
  return ctx.isUnsignedInput(i) || ctx.isUnsignedInput(other);
}

/// The quantized type given by the zero point input `zpIndex`: its element
/// type (uint8 when `dfltUnsigned` and the input is absent).
FailureOr<QuantizedType> zeroPointType(NodeContext &ctx, unsigned zpIndex) {
  Value zp = ctx.optionalInput(zpIndex);
  if (!zp) {
    // Opset 21+: `output_dtype` names the result type; uint8 otherwise.
    int64_t dtype = ctx.opset >= 21 ? ctx.getInt("output_dtype", 0) : 0;
    if (!dtype)
      return QuantizedType{ctx.b.getIntegerType(8), /*isUnsigned=*/true};
    FailureOr<Type> type = convertElementType(ctx.loc, int32_t(dtype));
    if (failed(type))
      return failure();
    auto it = dyn_cast<IntegerType>(*type);
    if (!it || it.getWidth() == 1)
      return emitError(ctx.loc) << "unsupported " << ctx.node.op_type()
                                << " output_dtype " << dtype;
    bool isUnsigned = dtype == onnx::TensorProto::UINT8 ||
                      dtype == onnx::TensorProto::UINT16 || dtype == kUInt4 ||
                      dtype == kUInt2;
    return QuantizedType{it, isUnsigned};
  }
  auto it = dyn_cast<IntegerType>(getElementTypeOrSelf(zp.getType()));
  if (!it || it.getWidth() == 1)
    return emitError(ctx.loc) << "unsupported " << ctx.node.op_type()
                              << " zero point of type " << zp.getType();
  return QuantizedType{it, ctx.isUnsignedInput(zpIndex)};
}

/// The quantization axis of QuantizeLinear/DequantizeLinear: the `axis`
/// attribute (default 1) from opset 13; none before (per-tensor only). An
/// axis outside the input's rank is reported by the builder only if a
/// parameter is per-axis.
std::optional<int64_t> quantAxis(NodeContext &ctx, Value x) {
  if (ctx.opset < 13)
    return std::nullopt;
  int64_t rank = rankOf(x), axis = ctx.getInt("axis", 1);
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

/// Records the ONNX type of output 0 from a quantized type.
void recordQuantizedOutput(NodeContext &ctx, QuantizedType t) {
  switch (t.type.getWidth()) {
  case 16:
    ctx.setOutputDataType(0, t.isUnsigned ? onnx::TensorProto::UINT16
                                          : onnx::TensorProto::INT16);
    return;
  case 8:
    ctx.setOutputDataType(0, t.isUnsigned ? onnx::TensorProto::UINT8
                                          : onnx::TensorProto::INT8);
    return;
  case 4:
    ctx.setOutputDataType(0, t.isUnsigned ? kUInt4 : kInt4);
    return;
  case 2:
    ctx.setOutputDataType(0, t.isUnsigned ? kUInt2 : kInt2);
    return;
  default:
    return;
  }
}

/// The 8- or 4-bit float QuantizeLinear produces, if it produces one: the
/// zero point's element type, or without a zero point the `output_dtype`
/// attribute (opset 21+).
FailureOr<FloatType> floatQuantizedType(NodeContext &ctx, unsigned zpIndex) {
  Value zp = ctx.optionalInput(zpIndex);
  if (zp)
    return dyn_cast<FloatType>(getElementTypeOrSelf(zp.getType()));
  int64_t dtype = ctx.getInt("output_dtype", 0);
  if (!dtype)
    return FloatType();
  FailureOr<Type> type = convertElementType(ctx.loc, int32_t(dtype));
  if (failed(type))
    return failure();
  return dyn_cast<FloatType>(*type);
}

/// Checks that `block_size` divides the static extent of x along `axis`
/// (QuantizeLinear/DequantizeLinear opset 21+); a partial last block is an
/// unsupported-feature error.
LogicalResult checkBlocks(NodeContext &ctx, Value x, int64_t blockSize) {
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t rank = xt.getRank(), axis = ctx.getInt("axis", 1);
  if (axis < -rank || axis >= rank)
    return emitError(ctx.loc) << ctx.node.op_type() << " axis " << axis
                              << " out of range for rank " << rank;
  axis = axis < 0 ? axis + rank : axis;
  int64_t extent = xt.getDimSize(axis);
  if (ShapedType::isDynamic(extent) || extent % blockSize != 0)
    return emitError(ctx.loc)
           << "unsupported " << ctx.node.op_type() << " block_size "
           << blockSize << " that does not divide the static extent " << extent
           << " of axis " << axis;
  return success();
}

/// QuantizeLinear (opsets 10 and 13): y = saturate(round(x / y_scale) +
/// y_zero_point), uint8 without a zero point; per-axis scale and zero point
/// along `axis` from opset 13. Rounding is half to even. Opset 19+: float8
/// results with `saturate`; opset 21+: int4/uint4 and float4 results, and
/// integer results blocked along `axis` with `block_size`.
LogicalResult importQuantizeLinear(NodeContext &ctx) {
  FailureOr<SmallVector<Value>> in = requiredInputs(ctx, 0, 2);
  if (failed(in))
    return failure();
  FailureOr<FloatType> floatType = floatQuantizedType(ctx, 2);
  if (failed(floatType))
    return failure();
  if (*floatType)
    return ctx.setResult(0, buildQuantizeLinearToFloat(
                                ctx.b, ctx.loc, (*in)[0], (*in)[1],
                                ctx.optionalInput(2), quantAxis(ctx, (*in)[0]),
                                *floatType, ctx.getInt("saturate", 1) != 0));
  FailureOr<QuantizedType> type = zeroPointType(ctx, 2);
  if (failed(type))
    return failure();
  recordQuantizedOutput(ctx, *type);
  if (int64_t blockSize = ctx.opset >= 21 ? ctx.getInt("block_size", 0) : 0;
      blockSize > 0) {
    if (failed(checkBlocks(ctx, (*in)[0], blockSize)))
      return failure();
    return ctx.setResult(
        0, buildBlockwiseQuantizeLinear(ctx.b, ctx.loc, (*in)[0], (*in)[1],
                                        ctx.optionalInput(2), *type));
  }
  return ctx.setResult(0, buildQuantizeLinear(ctx.b, ctx.loc, (*in)[0],
                                              (*in)[1], ctx.optionalInput(2),
                                              quantAxis(ctx, (*in)[0]), *type));
}

/// Blocked DequantizeLinear (opset 21+, `block_size` > 0): scale and zero
/// point have x's rank, ceil(D / block_size) entries along `axis` and x's
/// extents elsewhere. Blocks that divide the axis go to the blockwise
/// builder; a partial last block is an unsupported-feature error.
LogicalResult importBlockedDequantizeLinear(NodeContext &ctx, Value x,
                                            Value scale, int64_t blockSize) {
  if (failed(checkBlocks(ctx, x, blockSize)))
    return failure();
  return ctx.setResult(0, buildBlockwiseDequantizeLinear(
                              ctx.b, ctx.loc, x, scale, ctx.optionalInput(2),
                              isUnsigned(ctx, 0, 2)));
}

/// DequantizeLinear (opsets 10 and 13): y = (x - x_zero_point) * x_scale
/// for 2- to 32-bit integer x; per-axis scale and zero point along `axis`
/// from opset 13; float8/float4 x (opsets 19, 21+): y = x * x_scale;
/// blocked along `axis` with `block_size` (opset 21+).
LogicalResult importDequantizeLinear(NodeContext &ctx) {
  FailureOr<SmallVector<Value>> in = requiredInputs(ctx, 0, 2);
  if (failed(in))
    return failure();
  if (int64_t blockSize = ctx.opset >= 21 ? ctx.getInt("block_size", 0) : 0;
      blockSize > 0)
    return importBlockedDequantizeLinear(ctx, (*in)[0], (*in)[1], blockSize);
  return ctx.setResult(0, buildDequantizeLinear(ctx.b, ctx.loc, (*in)[0],
                                                (*in)[1], ctx.optionalInput(2),
                                                quantAxis(ctx, (*in)[0]),
                                                isUnsigned(ctx, 0, 2)));
}

/// MatMulInteger (opset 10): (A - a_zero_point) @ (B - b_zero_point) in
/// int32; zero points per-tensor, per-row of A and per-column of B.
LogicalResult importMatMulInteger(NodeContext &ctx) {
  FailureOr<SmallVector<Value>> in = requiredInputs(ctx, 0, 2);
  if (failed(in))
    return failure();
  ctx.setOutputDataType(0, onnx::TensorProto::INT32);
  return ctx.setResult(
      0, buildMatMulInteger(ctx.b, ctx.loc, (*in)[0], (*in)[1],
                            ctx.optionalInput(2), ctx.optionalInput(3),
                            isUnsigned(ctx, 0, 2), isUnsigned(ctx, 1, 3)));
}

/// The window geometry and groups of ConvInteger/QLinearConv, whose
/// attributes are Conv's (kernel_shape defaults to the filter's extents).
FailureOr<WindowParams> convParams(NodeContext &ctx, Value x, Value w) {
  auto wt = cast<RankedTensorType>(w.getType());
  if (wt.getRank() < 3)
    return emitError(ctx.loc)
           << ctx.node.op_type() << " weight must have rank >= 3, got "
           << w.getType();
  return getWindowParams(ctx, x, wt.getShape().drop_front(2));
}

/// ConvInteger (opset 10): Conv of (x - x_zero_point) and (w -
/// w_zero_point) accumulated in int32; w_zero_point per-tensor or per
/// output channel.
LogicalResult importConvInteger(NodeContext &ctx) {
  FailureOr<SmallVector<Value>> in = requiredInputs(ctx, 0, 2);
  if (failed(in))
    return failure();
  FailureOr<WindowParams> params = convParams(ctx, (*in)[0], (*in)[1]);
  if (failed(params))
    return failure();
  ctx.setOutputDataType(0, onnx::TensorProto::INT32);
  return ctx.setResult(
      0, buildConvInteger(ctx.b, ctx.loc, (*in)[0], (*in)[1],
                          ctx.optionalInput(2), ctx.optionalInput(3),
                          /*bias=*/Value(), *params, ctx.getInt("group", 1),
                          isUnsigned(ctx, 0, 2), isUnsigned(ctx, 1, 3)));
}

/// QLinearMatMul (opset 10): inputs a, a_scale, a_zero_point, b, b_scale,
/// b_zero_point, y_scale, y_zero_point. The int32 product of the shifted
/// operands is requantized with a_scale * b_scale / y_scale (a_scale
/// per-tensor or per-row, b_scale per-tensor or per-column).
LogicalResult importQLinearMatMul(NodeContext &ctx) {
  FailureOr<SmallVector<Value>> in = requiredInputs(ctx, 0, 8);
  if (failed(in))
    return failure();
  Value a = (*in)[0], aScale = (*in)[1], aZp = (*in)[2], b = (*in)[3],
        bScale = (*in)[4], bZp = (*in)[5], yScale = (*in)[6], yZp = (*in)[7];
  FailureOr<QuantizedType> type = zeroPointType(ctx, 7);
  if (failed(type))
    return failure();
  FailureOr<Value> acc =
      buildMatMulInteger(ctx.b, ctx.loc, a, b, aZp, bZp, isUnsigned(ctx, 0, 2),
                         isUnsigned(ctx, 3, 5));
  if (failed(acc))
    return failure();
  recordQuantizedOutput(ctx, *type);
  aScale = alignPerRowParam(ctx.b, ctx.loc, aScale, rankOf(a));
  return ctx.setResult(0, buildRequantize(ctx.b, ctx.loc, *acc, aScale, bScale,
                                          yScale, yZp, *type));
}

/// QLinearConv (opset 10): inputs x, x_scale, x_zero_point, w, w_scale,
/// w_zero_point, y_scale, y_zero_point and optional int32 bias B; Conv's
/// attributes. w_scale and w_zero_point are per-tensor or per output
/// channel.
LogicalResult importQLinearConv(NodeContext &ctx) {
  FailureOr<SmallVector<Value>> in = requiredInputs(ctx, 0, 8);
  if (failed(in))
    return failure();
  Value x = (*in)[0], xScale = (*in)[1], xZp = (*in)[2], w = (*in)[3],
        wScale = (*in)[4], wZp = (*in)[5], yScale = (*in)[6], yZp = (*in)[7];
  FailureOr<QuantizedType> type = zeroPointType(ctx, 7);
  if (failed(type))
    return failure();
  FailureOr<WindowParams> params = convParams(ctx, x, w);
  if (failed(params))
    return failure();
  FailureOr<Value> acc = buildConvInteger(
      ctx.b, ctx.loc, x, w, xZp, wZp, ctx.optionalInput(8), *params,
      ctx.getInt("group", 1), isUnsigned(ctx, 0, 2), isUnsigned(ctx, 3, 5));
  if (failed(acc))
    return failure();
  auto accType = cast<RankedTensorType>(acc->getType());
  FailureOr<Value> wScaleAligned =
      alignAxisParam(ctx.b, ctx.loc, wScale, accType.getRank(), 1,
                     accType.getDimSize(1), "QLinearConv w_scale");
  if (failed(wScaleAligned))
    return failure();
  recordQuantizedOutput(ctx, *type);
  return ctx.setResult(0, buildRequantize(ctx.b, ctx.loc, *acc, xScale,
                                          *wScaleAligned, yScale, yZp, *type));
}

/// The quantized operand at inputs `value`, `value + 1` (scale) and
/// `value + 2` (zero point, optional), its signedness from the ONNX types.
FailureOr<QuantizedValue> quantizedInput(NodeContext &ctx, unsigned value) {
  FailureOr<Value> v = ctx.input(value), scale = ctx.input(value + 1);
  if (failed(v) || failed(scale))
    return failure();
  return QuantizedValue{*v, *scale, ctx.optionalInput(value + 2),
                        isUnsigned(ctx, value, value + 2)};
}

/// The quantized type of an output whose zero point is input `zpIndex`, or,
/// when that is absent, of the quantized input `like` (these contrib ops
/// keep their input's type).
FailureOr<QuantizedType> outputType(NodeContext &ctx, unsigned zpIndex,
                                    const QuantizedValue &like) {
  if (ctx.hasInput(zpIndex))
    return zeroPointType(ctx, zpIndex);
  auto it = dyn_cast<IntegerType>(getElementTypeOrSelf(like.value.getType()));
  if (!it || it.getWidth() == 1)
    return emitError(ctx.loc) << "unsupported " << ctx.node.op_type()
                              << " input of type " << like.value.getType();
  return QuantizedType{it, like.isUnsigned};
}

/// com.microsoft QLinearAdd / QLinearMul (onnxruntime contrib op, version
/// 1): A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale,
/// C_zero_point; numpy broadcasting.
template <BinaryOpKind Kind>
LogicalResult importQLinearBinary(NodeContext &ctx) {
  FailureOr<QuantizedValue> a = quantizedInput(ctx, 0),
                            b = quantizedInput(ctx, 3);
  FailureOr<Value> yScale = ctx.input(6);
  if (failed(a) || failed(b) || failed(yScale))
    return failure();
  FailureOr<QuantizedType> type = outputType(ctx, 7, *a);
  if (failed(type))
    return failure();
  recordQuantizedOutput(ctx, *type);
  return ctx.setResult(0,
                       buildQLinearBinary(ctx.b, ctx.loc, Kind, *a, *b, *yScale,
                                          ctx.optionalInput(7), *type));
}

/// com.microsoft QLinearGlobalAveragePool (onnxruntime contrib op, version
/// 1): X, x_scale, x_zero_point, y_scale, y_zero_point; `channels_last`.
LogicalResult importQLinearGlobalAveragePool(NodeContext &ctx) {
  FailureOr<QuantizedValue> x = quantizedInput(ctx, 0);
  FailureOr<Value> yScale = ctx.input(3);
  if (failed(x) || failed(yScale))
    return failure();
  FailureOr<QuantizedType> type = outputType(ctx, 4, *x);
  if (failed(type))
    return failure();
  recordQuantizedOutput(ctx, *type);
  return ctx.setResult(0, buildQLinearGlobalAveragePool(
                              ctx.b, ctx.loc, *x, *yScale, ctx.optionalInput(4),
                              *type, ctx.getInt("channels_last", 0) != 0));
}

/// com.microsoft QGemm (onnxruntime contrib op, version 1): A, a_scale,
/// a_zero_point, B, b_scale, b_zero_point, optional i32 C, optional y_scale
/// and y_zero_point (absent: a float result); `alpha`, `transA`, `transB`.
LogicalResult importQGemm(NodeContext &ctx) {
  FailureOr<QuantizedValue> a = quantizedInput(ctx, 0),
                            b = quantizedInput(ctx, 3);
  if (failed(a) || failed(b))
    return failure();
  std::optional<QuantizedType> type;
  if (ctx.hasInput(8)) {
    FailureOr<QuantizedType> t = zeroPointType(ctx, 8);
    if (failed(t))
      return failure();
    type = *t;
    recordQuantizedOutput(ctx, *type);
  }
  return ctx.setResult(
      0, buildQGemm(ctx.b, ctx.loc, *a, *b, ctx.optionalInput(6),
                    ctx.optionalInput(7), ctx.optionalInput(8), type,
                    ctx.getFloat("alpha", 1.0), ctx.getInt("transA", 0) != 0,
                    ctx.getInt("transB", 0) != 0));
}

} // namespace

void registerQuantizationOps(OpTable &table) {
  table.add({
      {"QuantizeLinear", importQuantizeLinear},
      {"DequantizeLinear", importDequantizeLinear},
      {"MatMulInteger", importMatMulInteger},
      {"ConvInteger", importConvInteger},
      {"QLinearMatMul", importQLinearMatMul},
      {"QLinearConv", importQLinearConv},
      {"com.microsoft::QLinearAdd", importQLinearBinary<BinaryOpKind::Add>},
      {"com.microsoft::QLinearMul", importQLinearBinary<BinaryOpKind::Mul>},
      {"com.microsoft::QLinearGlobalAveragePool",
       importQLinearGlobalAveragePool},
      {"com.microsoft::QGemm", importQGemm},
  });
}

} // namespace mlprog::onnx_import
