//===- CompressionOps.cpp - MIL constexpr_* decompression ops -------------===//
//
// The compressed-weight ops of iOS16 (`constexpr_affine_dequantize`,
// `constexpr_cast`, `constexpr_lut_to_dense`, `constexpr_sparse_to_dense`,
// parameters as attributes) and iOS18 (`constexpr_blockwise_shift_scale`,
// `constexpr_lut_to_dense` with per-group and vector tables,
// `constexpr_sparse_to_dense` with uint1 masks, `constexpr_lut_to_sparse`,
// `constexpr_sparse_blockwise_shift_scale`, `constexpr_cast`, parameters as
// const inputs). The compressed tensors stay compressed in their globals;
// each op becomes the run-time IR of a shared builder (Quantization.h,
// Compression.h), which the pipeline may constant-fold.
//
// Spec: coremltools `mil/ops/defs/iOS16/constexpr_ops.py` and
// `iOS18/compression.py`.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"

#include "mlprog/Import/Common/Compression.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Quantization.h"
#include "mlprog/Import/Common/Shape.h"

#include "llvm/ADT/bit.h"

using namespace mlir;

namespace mlprog::mil_import {
namespace {

/// The compile-time value of parameter `name`: an attribute (iOS16) or a
/// const input (iOS18); null when absent or computed by another op.
const mil::Value *findConstant(OpContext &ctx, StringRef name) {
  auto attr = ctx.op.attributes().find(std::string(name));
  if (attr != ctx.op.attributes().end())
    return &attr->second;
  auto it = ctx.op.inputs().find(std::string(name));
  if (it == ctx.op.inputs().end() || it->second.arguments_size() != 1)
    return nullptr;
  const mil::Argument::Binding &binding = it->second.arguments(0);
  if (binding.has_value())
    return &binding.value();
  const NamedValue *value = ctx.importer.lookup(binding.name());
  return value ? value->constant : nullptr;
}

/// Whether parameter `name` is given, as an attribute or an input.
bool hasParam(OpContext &ctx, StringRef name) {
  return ctx.op.attributes().count(std::string(name)) || ctx.has(name);
}

/// The tensor of parameter `name` (attribute or input); null when it is
/// absent and `optional`.
FailureOr<Value> tensorParam(OpContext &ctx, StringRef name,
                             bool optional = false) {
  auto attr = ctx.op.attributes().find(std::string(name));
  if (attr != ctx.op.attributes().end())
    return ctx.importer.materialize(attr->second, ctx.loc, name);
  if (optional)
    return ctx.optionalInput(name);
  return ctx.input(name);
}

/// The MIL data type of parameter `name` where it is a compile-time value.
mil::DataType dataTypeOf(OpContext &ctx, StringRef name) {
  const mil::Value *value = findConstant(ctx, name);
  if (value && value->type().has_tensortype())
    return value->type().tensortype().datatype();
  return mil::UNUSED_TYPE;
}

/// The integers of compile-time parameter `name`.
FailureOr<SmallVector<int64_t>> intsParam(OpContext &ctx, StringRef name) {
  const mil::Value *value = findConstant(ctx, name);
  if (!value)
    return emitError(ctx.loc)
           << "parameter '" << name << "' must be a compile-time constant";
  return readInts(ctx.loc, *value, name);
}

/// The static shape of tensor `v`.
ArrayRef<int64_t> shapeOf(Value v) { return typeOf(v).getShape(); }

/// Product of `shape`, or an error when it overflows.
FailureOr<int64_t> numElements(OpContext &ctx, ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d && n > INT64_MAX / 8 / d))
      return emitError(ctx.loc) << "invalid shape extent " << d;
    n *= d;
  }
  return n;
}

/// Checks, where mask parameter `name` is a compile-time value held as
/// bytes (packed LSB first, one bit per element), that its first
/// `numElements` bits have `count` set bits.
LogicalResult checkMaskCount(OpContext &ctx, StringRef name,
                             int64_t numElements, int64_t count) {
  const mil::Value *value = findConstant(ctx, name);
  if (!value)
    return success();
  FailureOr<ArrayRef<char>> bytes =
      ctx.importer.getConstantBytes(*value, ctx.loc, name);
  if (failed(bytes) || int64_t(bytes->size()) * 8 < numElements)
    return success();
  int64_t set = 0;
  for (int64_t k = 0; k < numElements; ++k)
    set += (uint8_t((*bytes)[k / 8]) >> (k % 8)) & 1;
  if (set != count)
    return emitError(ctx.loc)
           << "mask '" << name << "' has " << set
           << " set bits but the nonzero data holds " << count << " elements";
  return success();
}

/// Checks that the static `v` (parameter `name`) has rank 0 or 1.
LogicalResult checkScalarOrVector(OpContext &ctx, Value v, StringRef name) {
  if (!typeOf(v).hasStaticShape() || rankOf(v) > 1)
    return emitError(ctx.loc) << "parameter '" << name << "' of type "
                              << v.getType() << " must be a scalar or a vector";
  return success();
}

/// iOS16 constexpr_affine_dequantize: y = scale * (quantized_data -
/// zero_point), scale and zero point per-tensor (rank 0 or one element) or
/// per-axis along `axis`; the ONNX DequantizeLinear builder. A float zero
/// point goes through the blockwise builder.
LogicalResult importAffineDequantize(OpContext &ctx) {
  FailureOr<Value> data = tensorParam(ctx, "quantized_data");
  FailureOr<Value> zp = failed(data) ? FailureOr<Value>(failure())
                                     : tensorParam(ctx, "zero_point");
  FailureOr<Value> scale =
      failed(zp) ? FailureOr<Value>(failure()) : tensorParam(ctx, "scale");
  FailureOr<SmallVector<int64_t>> axisVals =
      failed(scale) ? FailureOr<SmallVector<int64_t>>(failure())
                    : intsParam(ctx, "axis");
  if (failed(axisVals))
    return failure();
  if (axisVals->size() != 1)
    return emitError(ctx.loc) << "parameter 'axis' must be a scalar";
  int64_t rank = rankOf(*data);
  FailureOr<int64_t> axis = normalizeAxis(ctx, (*axisVals)[0], rank);
  if (failed(axis) || failed(checkScalarOrVector(ctx, *scale, "scale")) ||
      failed(checkScalarOrVector(ctx, *zp, "zero_point")))
    return failure();
  bool isUnsigned = isUnsignedDataType(dataTypeOf(ctx, "quantized_data"));
  // An integer zero point of the other signedness (int8 data, uint8 zero
  // point, which MLIR's signless i8 cannot tell apart) is read as a float.
  bool zpUnsigned = isUnsignedDataType(dataTypeOf(ctx, "zero_point"));
  if (getElementTypeOrSelf(zp->getType()).isInteger() &&
      zpUnsigned != isUnsigned) {
    zp = buildConvertElementType(ctx.b, ctx.loc, *zp,
                                 getElementTypeOrSelf(scale->getType()),
                                 zpUnsigned);
    if (failed(zp))
      return failure();
  }
  if (getElementTypeOrSelf(zp->getType()) ==
      getElementTypeOrSelf(data->getType()))
    return ctx.setResult(0, buildDequantizeLinear(ctx.b, ctx.loc, *data, *scale,
                                                  *zp, *axis, isUnsigned));
  // Float zero point: per-axis parameters get the data's rank.
  auto toRank = [&](Value p) -> FailureOr<Value> {
    SmallVector<int64_t> shape(rank, 1);
    if (rankOf(p) == 1)
      shape[*axis] = shapeOf(p)[0];
    return buildReshape(ctx.b, ctx.loc, p, shape);
  };
  FailureOr<Value> s = toRank(*scale);
  FailureOr<Value> z = failed(s) ? FailureOr<Value>(failure()) : toRank(*zp);
  if (failed(z))
    return failure();
  return ctx.setResult(0, buildBlockwiseDequantizeLinear(ctx.b, ctx.loc, *data,
                                                         *s, *z, isUnsigned));
}

/// iOS18 constexpr_blockwise_shift_scale: y = scale * (data - offset) with
/// scale and offset of the data's rank, each extent dividing the data's.
LogicalResult importBlockwiseShiftScale(OpContext &ctx) {
  FailureOr<Value> data = tensorParam(ctx, "data");
  FailureOr<Value> scale =
      failed(data) ? FailureOr<Value>(failure()) : tensorParam(ctx, "scale");
  FailureOr<Value> offset = failed(scale) ? FailureOr<Value>(failure())
                                          : tensorParam(ctx, "offset", true);
  if (failed(offset))
    return failure();
  return ctx.setResult(0, buildBlockwiseDequantizeLinear(
                              ctx.b, ctx.loc, *data, *scale, *offset,
                              isUnsignedDataType(dataTypeOf(ctx, "data"))));
}

/// constexpr_cast (iOS16 attributes, iOS18 inputs): fp16 -> fp32.
LogicalResult importConstexprCast(OpContext &ctx) {
  FailureOr<Value> x = tensorParam(ctx, "source_val");
  if (failed(x))
    return failure();
  const mil::Value *dtype = findConstant(ctx, "output_dtype");
  if (!dtype)
    return emitError(ctx.loc) << "parameter 'output_dtype' must be a "
                              << "compile-time string";
  FailureOr<std::string> name = readString(ctx.loc, *dtype, "output_dtype");
  if (failed(name))
    return failure();
  Type to;
  if (*name == "fp32")
    to = ctx.b.getF32Type();
  else if (*name == "fp16")
    to = ctx.b.getF16Type();
  else
    return emitError(ctx.loc) << "unsupported constexpr_cast output_dtype '"
                              << *name << "' (fp16, fp32)";
  if (!isa<FloatType>(getElementTypeOrSelf(x->getType())))
    return emitError(ctx.loc)
           << "unsupported constexpr_cast source " << x->getType() << " (fp16)";
  return ctx.setResult(0, buildConvertElementType(ctx.b, ctx.loc, *x, to));
}

/// The iOS16 `shape` parameter: the static extents of the result.
FailureOr<SmallVector<int64_t>> shapeParam(OpContext &ctx) {
  FailureOr<SmallVector<int64_t>> shape = intsParam(ctx, "shape");
  if (failed(shape) || failed(numElements(ctx, *shape)))
    return failure();
  return shape;
}

/// Checks an iOS18 LUT against its indices (shape `indexShape`, MIL type
/// `indexType`): rank k + 2, 2^nbits entries, and returns the vector axis
/// (normalized) when the vectors are longer than 1.
FailureOr<std::optional<int64_t>> checkLut(OpContext &ctx, Value lut,
                                           ArrayRef<int64_t> indexShape,
                                           mil::DataType indexType,
                                           StringRef indicesName) {
  static const std::pair<mil::DataType, unsigned> widths[] = {
      {mil::UINT1, 1}, {mil::UINT2, 2}, {mil::UINT3, 3},
      {mil::UINT4, 4}, {mil::UINT6, 6}, {mil::UINT8, 8}};
  unsigned bits = 0;
  for (auto [type, width] : widths)
    if (type == indexType)
      bits = width;
  if (!bits)
    return emitError(ctx.loc) << "parameter '" << indicesName
                              << "' must be uint1, uint2, uint3, uint4, "
                                 "uint6 or uint8";
  int64_t k = indexShape.size();
  ArrayRef<int64_t> lutShape = shapeOf(lut);
  if (int64_t(lutShape.size()) != k + 2)
    return emitError(ctx.loc)
           << "parameter 'lut' of type " << lut.getType() << " must have rank "
           << k + 2 << " (the indices' rank + 2)";
  if (lutShape[k] != (int64_t(1) << bits))
    return emitError(ctx.loc)
           << "parameter 'lut' has " << lutShape[k] << " entries, but " << bits
           << "-bit indices need " << (1 << bits);
  if (lutShape[k + 1] == 1 && !hasParam(ctx, "vector_axis"))
    return std::optional<int64_t>();
  FailureOr<SmallVector<int64_t>> axis = intsParam(ctx, "vector_axis");
  if (failed(axis))
    return failure();
  if (axis->size() != 1)
    return emitError(ctx.loc) << "parameter 'vector_axis' must be a scalar";
  FailureOr<int64_t> a = normalizeAxis(ctx, (*axis)[0], k);
  if (failed(a))
    return failure();
  return std::optional<int64_t>(*a);
}

/// constexpr_lut_to_dense. iOS16 (`shape` given): indices packed in uint8
/// bytes, one table of 2, 4, 16, 64 or 256 entries. iOS18: uintN indices of
/// the result's shape, per-group tables [G.., 2^N, V], vector palettes
/// along `vector_axis`.
LogicalResult importLutToDense(OpContext &ctx) {
  FailureOr<Value> indices = tensorParam(ctx, "indices");
  FailureOr<Value> lut =
      failed(indices) ? FailureOr<Value>(failure()) : tensorParam(ctx, "lut");
  if (failed(lut))
    return failure();
  if (!typeOf(*lut).hasStaticShape() || !typeOf(*indices).hasStaticShape())
    return emitError(ctx.loc) << "lut and indices need static shapes";
  if (!hasParam(ctx, "shape")) {
    FailureOr<std::optional<int64_t>> axis = checkLut(
        ctx, *lut, shapeOf(*indices), dataTypeOf(ctx, "indices"), "indices");
    if (failed(axis))
      return failure();
    return ctx.setResult(
        0, buildLookupTable(ctx.b, ctx.loc, *indices, *lut, *axis));
  }
  FailureOr<SmallVector<int64_t>> shape = shapeParam(ctx);
  if (failed(shape))
    return failure();
  int64_t n = *numElements(ctx, *shape);
  int64_t entries = rankOf(*lut) == 1 ? shapeOf(*lut)[0] : 0;
  unsigned bits = entries > 0 && llvm::has_single_bit(uint64_t(entries))
                      ? llvm::countr_zero(uint64_t(entries))
                      : 0;
  if (bits != 1 && bits != 2 && bits != 4 && bits != 6 && bits != 8)
    return emitError(ctx.loc) << "parameter 'lut' of type " << lut->getType()
                              << " must be a vector of 2, 4, 16, 64 or 256 "
                                 "entries";
  if (rankOf(*indices) != 1 || shapeOf(*indices)[0] != (n * bits + 7) / 8)
    return emitError(ctx.loc)
           << "parameter 'indices' of type " << indices->getType()
           << " must hold ceil(" << bits << " * " << n
           << " / 8) = " << (n * bits + 7) / 8 << " bytes";
  FailureOr<Value> unpacked =
      buildUnpackBits(ctx.b, ctx.loc, *indices, bits, *shape);
  SmallVector<int64_t> tableShape(shape->size(), 1);
  tableShape.append({entries, 1});
  FailureOr<Value> table = failed(unpacked)
                               ? FailureOr<Value>(failure())
                               : buildReshape(ctx.b, ctx.loc, *lut, tableShape);
  if (failed(table))
    return failure();
  return ctx.setResult(
      0, buildLookupTable(ctx.b, ctx.loc, *unpacked, *table, std::nullopt));
}

/// constexpr_sparse_to_dense. iOS16 (`shape` given): a uint8 mask of packed
/// bits; iOS18: a uint1 mask of the result's shape. The n-th set bit takes
/// nonzero_data[n], the rest are zero.
LogicalResult importSparseToDense(OpContext &ctx) {
  FailureOr<Value> data = tensorParam(ctx, "nonzero_data");
  FailureOr<Value> mask =
      failed(data) ? FailureOr<Value>(failure()) : tensorParam(ctx, "mask");
  if (failed(mask))
    return failure();
  if (rankOf(*data) != 1 || !typeOf(*data).hasStaticShape())
    return emitError(ctx.loc) << "parameter 'nonzero_data' of type "
                              << data->getType() << " must be a vector";
  int64_t count = shapeOf(*data)[0];
  Value bits = *mask;
  if (hasParam(ctx, "shape")) {
    FailureOr<SmallVector<int64_t>> shape = shapeParam(ctx);
    if (failed(shape))
      return failure();
    int64_t n = *numElements(ctx, *shape);
    if (rankOf(*mask) != 1 || shapeOf(*mask)[0] != (n + 7) / 8)
      return emitError(ctx.loc) << "parameter 'mask' of type "
                                << mask->getType() << " must hold ceil(" << n
                                << " / 8) = " << (n + 7) / 8 << " bytes";
    if (failed(checkMaskCount(ctx, "mask", n, count)))
      return failure();
    FailureOr<Value> unpacked =
        buildUnpackBits(ctx.b, ctx.loc, *mask, 1, *shape);
    if (failed(unpacked))
      return failure();
    bits = *unpacked;
  } else if (!typeOf(*mask).hasStaticShape() ||
             failed(checkMaskCount(ctx, "mask", typeOf(*mask).getNumElements(),
                                   count))) {
    return failure();
  }
  return ctx.setResult(0, buildSparseToDense(ctx.b, ctx.loc, bits, *data));
}

/// iOS18 constexpr_lut_to_sparse: the LUT applied to sparse indices. Outputs
/// the mask (repeated V times along vector_axis for vector palettes) and
/// the looked-up nonzero values in the order of that mask.
LogicalResult importLutToSparse(OpContext &ctx) {
  FailureOr<Value> mask = tensorParam(ctx, "indices_mask");
  FailureOr<Value> indices = failed(mask)
                                 ? FailureOr<Value>(failure())
                                 : tensorParam(ctx, "indices_nonzero_data");
  FailureOr<Value> lut =
      failed(indices) ? FailureOr<Value>(failure()) : tensorParam(ctx, "lut");
  if (failed(lut))
    return failure();
  if (!typeOf(*mask).hasStaticShape() || rankOf(*indices) != 1 ||
      !typeOf(*indices).hasStaticShape() || !typeOf(*lut).hasStaticShape())
    return emitError(ctx.loc) << "indices_mask, lut (static) and "
                              << "indices_nonzero_data (a vector) expected";
  int64_t count = shapeOf(*indices)[0];
  if (failed(checkMaskCount(ctx, "indices_mask", typeOf(*mask).getNumElements(),
                            count)))
    return failure();
  FailureOr<std::optional<int64_t>> axis =
      checkLut(ctx, *lut, shapeOf(*mask),
               dataTypeOf(ctx, "indices_nonzero_data"), "indices_nonzero_data");
  if (failed(axis))
    return failure();
  int64_t vector = shapeOf(*lut).back();
  FailureOr<Value> dense = buildSparseToDense(ctx.b, ctx.loc, *mask, *indices);
  FailureOr<Value> values =
      failed(dense) ? FailureOr<Value>(failure())
                    : buildLookupTable(ctx.b, ctx.loc, *dense, *lut, *axis);
  FailureOr<Value> outMask =
      failed(values)
          ? FailureOr<Value>(failure())
          : buildRepeat(ctx.b, ctx.loc, *mask, axis->value_or(0), vector);
  if (failed(outMask))
    return failure();
  if (failed(ctx.setResult(0, *outMask)))
    return failure();
  return ctx.setResult(
      1, buildDenseToSparse(ctx.b, ctx.loc, *values, *outMask, count * vector));
}

/// iOS18 constexpr_sparse_blockwise_shift_scale: blockwise dequantization of
/// sparse data. Outputs the mask and the dequantized nonzero values.
LogicalResult importSparseBlockwiseShiftScale(OpContext &ctx) {
  FailureOr<Value> mask = tensorParam(ctx, "data_mask");
  FailureOr<Value> data = failed(mask) ? FailureOr<Value>(failure())
                                       : tensorParam(ctx, "nonzero_data");
  FailureOr<Value> scale =
      failed(data) ? FailureOr<Value>(failure()) : tensorParam(ctx, "scale");
  FailureOr<Value> offset = failed(scale) ? FailureOr<Value>(failure())
                                          : tensorParam(ctx, "offset", true);
  if (failed(offset))
    return failure();
  if (!typeOf(*mask).hasStaticShape() || rankOf(*data) != 1 ||
      !typeOf(*data).hasStaticShape())
    return emitError(ctx.loc) << "data_mask (static) and nonzero_data (a "
                              << "vector) expected";
  int64_t count = shapeOf(*data)[0];
  if (failed(checkMaskCount(ctx, "data_mask", typeOf(*mask).getNumElements(),
                            count)))
    return failure();
  FailureOr<Value> dense = buildSparseToDense(ctx.b, ctx.loc, *mask, *data);
  FailureOr<Value> scaled =
      failed(dense) ? FailureOr<Value>(failure())
                    : buildBlockwiseDequantizeLinear(
                          ctx.b, ctx.loc, *dense, *scale, *offset,
                          isUnsignedDataType(dataTypeOf(ctx, "nonzero_data")));
  if (failed(scaled) || failed(ctx.setResult(0, *mask)))
    return failure();
  return ctx.setResult(
      1, buildDenseToSparse(ctx.b, ctx.loc, *scaled, *mask, count));
}

/// The axis of iOS17 quantize/dequantize: needed (and normalized) when the
/// scale is a vector of more than one element, else none.
FailureOr<std::optional<int64_t>> quantizationAxis(OpContext &ctx, Value x,
                                                   Value scale) {
  if (typeOf(scale).getNumElements() <= 1 || rankOf(scale) == 0)
    return std::optional<int64_t>();
  FailureOr<SmallVector<int64_t>> axis = intsParam(ctx, "axis");
  if (failed(axis))
    return failure();
  if (axis->size() != 1)
    return emitError(ctx.loc) << "parameter 'axis' must be a scalar";
  FailureOr<int64_t> a = normalizeAxis(ctx, (*axis)[0], rankOf(x));
  if (failed(a))
    return failure();
  return std::optional<int64_t>(*a);
}

/// iOS17 quantize(input, zero_point, scale, axis, output_dtype "int8" or
/// "uint8"): clip(round(input / scale) + zero_point) with ties to even,
/// per-tensor or per-axis; ONNX QuantizeLinear's builder.
LogicalResult importQuantize(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("input");
  FailureOr<Value> scale = tensorParam(ctx, "scale");
  FailureOr<Value> zp = tensorParam(ctx, "zero_point", /*optional=*/true);
  FailureOr<std::string> dtype = ctx.getString("output_dtype");
  if (failed(x) || failed(scale) || failed(zp) || failed(dtype))
    return failure();
  if (*dtype != "int8" && *dtype != "uint8")
    return emitError(ctx.loc) << "unsupported quantize output_dtype '" << *dtype
                              << "' (int8 or uint8)";
  FailureOr<std::optional<int64_t>> axis = quantizationAxis(ctx, *x, *scale);
  if (failed(axis))
    return failure();
  QuantizedType result{ctx.b.getIntegerType(8), *dtype == "uint8"};
  return ctx.setResult(
      0, buildQuantizeLinear(ctx.b, ctx.loc, *x, *scale, *zp, *axis, result));
}

/// iOS17 dequantize(input int8/uint8, zero_point, scale, axis):
/// scale * (input - zero_point), per-tensor or per-axis; ONNX
/// DequantizeLinear's builder.
LogicalResult importDequantize(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("input");
  FailureOr<Value> scale = tensorParam(ctx, "scale");
  FailureOr<Value> zp = tensorParam(ctx, "zero_point", /*optional=*/true);
  if (failed(x) || failed(scale) || failed(zp))
    return failure();
  FailureOr<std::optional<int64_t>> axis = quantizationAxis(ctx, *x, *scale);
  if (failed(axis))
    return failure();
  // The signedness MLIR's signless i8 loses: the input's declared type, else
  // the zero point's (MIL gives both one dtype).
  bool isUnsigned = ctx.isUnsignedInput("input") ||
                    isUnsignedDataType(dataTypeOf(ctx, "zero_point"));
  return ctx.setResult(0, buildDequantizeLinear(ctx.b, ctx.loc, *x, *scale, *zp,
                                                *axis, isUnsigned));
}

} // namespace

void registerCompressionOps(OpTable &table) {
  table.add({
      {"constexpr_affine_dequantize", importAffineDequantize},
      {"dequantize", importDequantize},
      {"quantize", importQuantize},
      {"constexpr_blockwise_shift_scale", importBlockwiseShiftScale},
      {"constexpr_cast", importConstexprCast},
      {"constexpr_lut_to_dense", importLutToDense},
      {"constexpr_lut_to_sparse", importLutToSparse},
      {"constexpr_sparse_blockwise_shift_scale",
       importSparseBlockwiseShiftScale},
      {"constexpr_sparse_to_dense", importSparseToDense},
  });
}

} // namespace mlprog::mil_import
