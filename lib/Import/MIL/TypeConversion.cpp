//===- TypeConversion.cpp - MIL types and immediate values -> MLIR --------===//

#include "Importer.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/Endian.h"

using namespace mlir;

namespace mlprog::mil_import {

FailureOr<Type> convertDataType(Location loc, MLIRContext *ctx,
                                mil::DataType type) {
  Builder b(ctx);
  switch (type) {
  case mil::BOOL:
    return b.getI1Type();
  case mil::FLOAT16:
    return b.getF16Type();
  case mil::FLOAT32:
    return b.getF32Type();
  case mil::FLOAT64:
    return b.getF64Type();
  case mil::BFLOAT16:
    return b.getBF16Type();
  case mil::FLOAT8E4M3FN:
    return Type(Float8E4M3FNType::get(ctx));
  case mil::FLOAT8E5M2:
    return Type(Float8E5M2Type::get(ctx));
  case mil::INT8:
  case mil::UINT8:
    return b.getIntegerType(8);
  case mil::INT16:
  case mil::UINT16:
    return b.getIntegerType(16);
  case mil::INT32:
  case mil::UINT32:
    return b.getIntegerType(32);
  case mil::INT64:
  case mil::UINT64:
    return b.getIntegerType(64);
  case mil::INT4:
  case mil::UINT4:
    return b.getIntegerType(4);
  case mil::UINT1:
    return b.getIntegerType(1);
  case mil::UINT2:
    return b.getIntegerType(2);
  case mil::UINT3:
    return b.getIntegerType(3);
  case mil::UINT6:
    return b.getIntegerType(6);
  case mil::STRING:
    return emitError(loc) << "unsupported MIL data type STRING in a tensor";
  default:
    return emitError(loc) << "unsupported MIL data type " << int(type);
  }
}

bool isUnsignedDataType(mil::DataType type) {
  switch (type) {
  case mil::UINT1:
  case mil::UINT2:
  case mil::UINT3:
  case mil::UINT4:
  case mil::UINT6:
  case mil::UINT8:
  case mil::UINT16:
  case mil::UINT32:
  case mil::UINT64:
    return true;
  default:
    return false;
  }
}

FailureOr<RankedTensorType> convertValueType(Location loc, MLIRContext *ctx,
                                             const mil::ValueType &type,
                                             StringRef what) {
  if (!type.has_tensortype())
    return emitError(loc) << "unsupported MIL type of " << what
                          << ": only tensor types are implemented";
  const mil::TensorType &tensor = type.tensortype();
  if (tensor.rank() < 0)
    return emitError(loc) << "unsupported unknown rank of " << what;
  if (tensor.rank() != tensor.dimensions_size())
    return emitError(loc) << "tensor type of " << what << " has rank "
                          << tensor.rank() << " but "
                          << tensor.dimensions_size() << " dimensions";
  SmallVector<int64_t> shape;
  for (const mil::Dimension &dim : tensor.dimensions()) {
    if (dim.has_constant()) {
      uint64_t size = dim.constant().size();
      if (size > uint64_t(INT64_MAX / 2))
        return emitError(loc)
               << "dimension " << size << " of " << what << " is too large";
      shape.push_back(int64_t(size));
    } else if (dim.has_unknown() && !dim.unknown().variadic()) {
      shape.push_back(ShapedType::kDynamic);
    } else {
      return emitError(loc)
             << "unsupported " << (dim.has_unknown() ? "variadic" : "missing")
             << " dimension in the type of " << what;
    }
  }
  FailureOr<Type> element = convertDataType(loc, ctx, tensor.datatype());
  if (failed(element))
    return failure();
  return RankedTensorType::get(shape, *element);
}

std::optional<mil::BlobDataType> getBlobDataType(mil::DataType type) {
  using B = mil::BlobDataType;
  switch (type) {
  case mil::FLOAT16:
    return B::Float16;
  case mil::FLOAT32:
    return B::Float32;
  case mil::BFLOAT16:
    return B::BFloat16;
  case mil::UINT8:
    return B::UInt8;
  case mil::INT8:
    return B::Int8;
  case mil::INT16:
    return B::Int16;
  case mil::UINT16:
    return B::UInt16;
  case mil::INT4:
    return B::Int4;
  case mil::UINT1:
    return B::UInt1;
  case mil::UINT2:
    return B::UInt2;
  case mil::UINT4:
    return B::UInt4;
  case mil::UINT3:
    return B::UInt3;
  case mil::UINT6:
    return B::UInt6;
  case mil::INT32:
    return B::Int32;
  case mil::UINT32:
    return B::UInt32;
  case mil::FLOAT8E4M3FN:
    return B::Float8E4M3FN;
  case mil::FLOAT8E5M2:
    return B::Float8E5M2;
  default:
    return std::nullopt;
  }
}

/// Element attribute from a double for float types.
static FailureOr<DenseElementsAttr>
fromDoubles(Location loc, RankedTensorType type, ArrayRef<double> values) {
  auto ft = dyn_cast<FloatType>(type.getElementType());
  if (!ft)
    return emitError(loc) << "float values for a tensor of " << type;
  SmallVector<APFloat> elements;
  for (double v : values) {
    APFloat f(v);
    bool lost;
    f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    elements.push_back(f);
  }
  return DenseElementsAttr::get(type, elements);
}

static FailureOr<DenseElementsAttr>
fromInts(Location loc, RankedTensorType type, ArrayRef<int64_t> values) {
  Type et = type.getElementType();
  if (!et.isSignlessInteger())
    return emitError(loc) << "integer values for a tensor of " << type;
  unsigned width = et.getIntOrFloatBitWidth();
  SmallVector<APInt> elements;
  for (int64_t v : values)
    elements.push_back(APInt(64, v, /*isSigned=*/true).trunc(width));
  return DenseElementsAttr::get(type, elements);
}

/// Whether MIL packs elements of `type` below a byte (MILBlob sub-byte
/// types: uint1 masks and indices, uint2/3/4/6, int4).
static bool isSubByteDataType(mil::DataType type) {
  switch (type) {
  case mil::UINT1:
  case mil::UINT2:
  case mil::UINT3:
  case mil::UINT4:
  case mil::UINT6:
  case mil::INT4:
    return true;
  default:
    return false;
  }
}

/// The elements of `type` (a static i1..i6 tensor) packed LSB first in
/// `raw`, as MILBlob packs them (see mlprog/Formats/BlobFile.h).
static FailureOr<DenseElementsAttr> unpackSubByte(Location loc, StringRef raw,
                                                  RankedTensorType type) {
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  uint64_t n = type.getNumElements();
  if (uint64_t(raw.size()) != (n * bits + 7) / 8)
    return emitError(loc) << "immediate value holds " << raw.size()
                          << " bytes, its type " << type << " needs "
                          << (n * bits + 7) / 8;
  SmallVector<APInt> elements;
  for (uint64_t k = 0; k < n; ++k) {
    uint64_t bit = k * bits, byte = bit / 8;
    unsigned word = uint8_t(raw[byte]);
    if (byte + 1 < raw.size())
      word |= unsigned(uint8_t(raw[byte + 1])) << 8;
    elements.push_back(APInt(bits, (word >> (bit % 8)) & ((1u << bits) - 1)));
  }
  return DenseElementsAttr::get(type, elements);
}

FailureOr<DenseElementsAttr> convertTensorValue(Location loc,
                                                const mil::TensorValue &value,
                                                RankedTensorType type,
                                                mil::DataType dataType) {
  if (!type.hasStaticShape())
    return emitError(loc) << "immediate value of dynamic type " << type;
  int64_t n = type.getNumElements();
  auto checkCount = [&](int64_t count) -> LogicalResult {
    if (count == n)
      return success();
    return emitError(loc) << "immediate value holds " << count
                          << " elements, its type " << type << " needs " << n;
  };
  switch (value.value_case()) {
  case mil::TensorValue::kFloats: {
    const auto &v = value.floats().values();
    if (failed(checkCount(v.size())))
      return failure();
    return fromDoubles(loc, type, SmallVector<double>(v.begin(), v.end()));
  }
  case mil::TensorValue::kDoubles: {
    const auto &v = value.doubles().values();
    if (failed(checkCount(v.size())))
      return failure();
    return fromDoubles(loc, type, SmallVector<double>(v.begin(), v.end()));
  }
  case mil::TensorValue::kInts: {
    const auto &v = value.ints().values();
    if (failed(checkCount(v.size())))
      return failure();
    return fromInts(loc, type, SmallVector<int64_t>(v.begin(), v.end()));
  }
  case mil::TensorValue::kLongInts: {
    const auto &v = value.longints().values();
    if (failed(checkCount(v.size())))
      return failure();
    return fromInts(loc, type, SmallVector<int64_t>(v.begin(), v.end()));
  }
  case mil::TensorValue::kBools: {
    const auto &v = value.bools().values();
    if (failed(checkCount(v.size())))
      return failure();
    if (!type.getElementType().isInteger(1))
      return emitError(loc) << "bool values for a tensor of " << type;
    SmallVector<bool> elements(v.begin(), v.end());
    return DenseElementsAttr::get(type, ArrayRef<bool>(elements));
  }
  case mil::TensorValue::kBytes: {
    const std::string &raw = value.bytes().values();
    Type et = type.getElementType();
    unsigned bits = et.getIntOrFloatBitWidth();
    if (isSubByteDataType(dataType))
      return unpackSubByte(loc, raw, type);
    if (bits % 8 != 0 || et.isInteger(1))
      return emitError(loc) << "unsupported raw bytes for a tensor of " << type;
    if (uint64_t(raw.size()) != uint64_t(n) * (bits / 8))
      return emitError(loc)
             << "immediate value holds " << raw.size() << " bytes, its type "
             << type << " needs " << uint64_t(n) * (bits / 8);
    bool isSplat = false;
    if (!DenseElementsAttr::isValidRawBuffer(
            type, ArrayRef<char>(raw.data(), raw.size()), isSplat))
      return emitError(loc) << "invalid raw bytes for a tensor of " << type;
    return DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(raw.data(), raw.size()));
  }
  case mil::TensorValue::kStrings:
    return emitError(loc) << "unsupported string value as a tensor";
  case mil::TensorValue::VALUE_NOT_SET:
    break;
  }
  return emitError(loc) << "immediate tensor value holds no elements field";
}

/// The tensor payload of an immediate value, or an error.
static FailureOr<const mil::TensorValue *>
getTensor(Location loc, const mil::Value &value, StringRef what) {
  if (!value.has_immediatevalue() || !value.immediatevalue().has_tensor())
    return emitError(loc) << "parameter '" << what
                          << "' must be an immediate tensor value";
  return &value.immediatevalue().tensor();
}

/// The MIL data type an immediate declares (UNUSED_TYPE if none).
static mil::DataType declaredType(const mil::Value &value) {
  if (value.type().has_tensortype())
    return value.type().tensortype().datatype();
  return mil::UNUSED_TYPE;
}

FailureOr<SmallVector<int64_t>> readInts(Location loc, const mil::Value &value,
                                         StringRef what) {
  FailureOr<const mil::TensorValue *> t = getTensor(loc, value, what);
  if (failed(t))
    return failure();
  const mil::TensorValue &tv = **t;
  SmallVector<int64_t> out;
  switch (tv.value_case()) {
  case mil::TensorValue::kInts:
    out.assign(tv.ints().values().begin(), tv.ints().values().end());
    return out;
  case mil::TensorValue::kLongInts:
    out.assign(tv.longints().values().begin(), tv.longints().values().end());
    return out;
  case mil::TensorValue::kBools:
    out.assign(tv.bools().values().begin(), tv.bools().values().end());
    return out;
  case mil::TensorValue::kBytes: {
    const std::string &raw = tv.bytes().values();
    mil::DataType dt = declaredType(value);
    if (dt == mil::INT8 || dt == mil::UINT8) {
      for (char c : raw)
        out.push_back(dt == mil::INT8 ? int64_t(int8_t(c))
                                      : int64_t(uint8_t(c)));
      return out;
    }
    if ((dt == mil::INT16 || dt == mil::UINT16 || dt == mil::INT32 ||
         dt == mil::UINT32) &&
        raw.size() % (dt <= mil::INT16 || dt == mil::UINT16 ? 2 : 4) == 0) {
      bool two = dt == mil::INT16 || dt == mil::UINT16;
      for (size_t i = 0; i < raw.size(); i += two ? 2 : 4) {
        if (two) {
          uint16_t v = llvm::support::endian::read16le(raw.data() + i);
          out.push_back(dt == mil::INT16 ? int64_t(int16_t(v)) : int64_t(v));
        } else {
          uint32_t v = llvm::support::endian::read32le(raw.data() + i);
          out.push_back(dt == mil::INT32 ? int64_t(int32_t(v)) : int64_t(v));
        }
      }
      return out;
    }
    break;
  }
  default:
    break;
  }
  return emitError(loc) << "parameter '" << what
                        << "' must hold integer values";
}

FailureOr<SmallVector<double>> readFloats(Location loc, const mil::Value &value,
                                          StringRef what) {
  FailureOr<const mil::TensorValue *> t = getTensor(loc, value, what);
  if (failed(t))
    return failure();
  const mil::TensorValue &tv = **t;
  SmallVector<double> out;
  switch (tv.value_case()) {
  case mil::TensorValue::kFloats:
    out.assign(tv.floats().values().begin(), tv.floats().values().end());
    return out;
  case mil::TensorValue::kDoubles:
    out.assign(tv.doubles().values().begin(), tv.doubles().values().end());
    return out;
  case mil::TensorValue::kBytes:
    if (declaredType(value) == mil::FLOAT16 &&
        tv.bytes().values().size() % 2 == 0) {
      const std::string &raw = tv.bytes().values();
      for (size_t i = 0; i < raw.size(); i += 2) {
        APFloat f(APFloat::IEEEhalf(),
                  APInt(16, llvm::support::endian::read16le(raw.data() + i)));
        bool lost;
        f.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
        out.push_back(f.convertToDouble());
      }
      return out;
    }
    break;
  default:
    break;
  }
  FailureOr<SmallVector<int64_t>> ints = readInts(loc, value, what);
  if (failed(ints))
    return failure();
  for (int64_t i : *ints)
    out.push_back(double(i));
  return out;
}

FailureOr<std::string> readString(Location loc, const mil::Value &value,
                                  StringRef what) {
  FailureOr<const mil::TensorValue *> t = getTensor(loc, value, what);
  if (failed(t))
    return failure();
  if (!(*t)->has_strings() || (*t)->strings().values_size() != 1)
    return emitError(loc) << "parameter '" << what
                          << "' must be a single string";
  return (*t)->strings().values(0);
}

} // namespace mlprog::mil_import
