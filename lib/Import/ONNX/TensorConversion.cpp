//===- TensorConversion.cpp - ONNX types and tensors to MLIR --------------===//

#include "TensorConversion.h"

#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/Support/ResourceLimits.h"

#include "mlir/IR/Diagnostics.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>

using namespace mlir;

namespace mlprog::onnx_import {

FailureOr<Type> convertElementType(Location loc, int32_t dataType) {
  MLIRContext *ctx = loc.getContext();
  switch (dataType) {
  case onnx::TensorProto::FLOAT:
    return Type(Float32Type::get(ctx));
  case onnx::TensorProto::DOUBLE:
    return Type(Float64Type::get(ctx));
  case onnx::TensorProto::FLOAT16:
    return Type(Float16Type::get(ctx));
  case onnx::TensorProto::BFLOAT16:
    return Type(BFloat16Type::get(ctx));
  case onnx::TensorProto::BOOL:
    return Type(IntegerType::get(ctx, 1));
  case onnx::TensorProto::STRING:
    return Type(StringType::get(ctx));
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT8:
    return Type(IntegerType::get(ctx, 8));
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::UINT16:
    return Type(IntegerType::get(ctx, 16));
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::UINT32:
    return Type(IntegerType::get(ctx, 32));
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::UINT64:
    return Type(IntegerType::get(ctx, 64));
  case kFloat8E4M3FN:
    return Type(Float8E4M3FNType::get(ctx));
  case kFloat8E4M3FNUZ:
    return Type(Float8E4M3FNUZType::get(ctx));
  case kFloat8E5M2:
    return Type(Float8E5M2Type::get(ctx));
  case kFloat8E5M2FNUZ:
    return Type(Float8E5M2FNUZType::get(ctx));
  case kFloat4E2M1:
    return Type(Float4E2M1FNType::get(ctx));
  case kFloat8E8M0:
    return Type(Float8E8M0FNUType::get(ctx));
  case kInt4:
  case kUInt4:
    return Type(IntegerType::get(ctx, 4));
  case kInt2:
  case kUInt2:
    return Type(IntegerType::get(ctx, 2));
  default:
    break;
  }
  return emitError(loc) << "unsupported ONNX element type "
                        << getDataTypeName(dataType) << " (" << dataType << ")";
}

std::string getDataTypeName(int32_t dataType) {
  if (onnx::TensorProto::DataType_IsValid(dataType))
    return onnx::TensorProto::DataType_Name(
        onnx::TensorProto::DataType(dataType));
  // TensorProto.DataType values added after libonnx 1.12 (onnx.proto of
  // onnx 1.23: the 8-, 6-, 4- and 2-bit types).
  static constexpr const char *kNewerNames[] = {
      "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ",
      "UINT4",        "INT4",           "FLOAT4E2M1", "FLOAT8E8M0",
      "UINT2",        "INT2",           "FLOAT6E2M3", "FLOAT6E3M2"};
  constexpr int32_t kFirstNewer = 17;
  if (dataType >= kFirstNewer &&
      dataType < kFirstNewer + int32_t(std::size(kNewerNames)))
    return kNewerNames[dataType - kFirstNewer];
  return "invalid";
}

bool isUnsignedDataType(int32_t dataType) {
  return dataType == onnx::TensorProto::UINT8 ||
         dataType == onnx::TensorProto::UINT16 ||
         dataType == onnx::TensorProto::UINT32 ||
         dataType == onnx::TensorProto::UINT64 || dataType == kUInt4 ||
         dataType == kUInt2;
}

/// Spelling of a non-tensor TypeProto's kind for diagnostics.
static StringRef valueKind(const onnx::TypeProto &type) {
  switch (type.value_case()) {
  case onnx::TypeProto::kSequenceType:
    return "sequence";
  case onnx::TypeProto::kOptionalType:
    return "optional";
  case onnx::TypeProto::kMapType:
    return "map";
  case onnx::TypeProto::kSparseTensorType:
    return "sparse tensor";
  default:
    return "unknown";
  }
}

/// Runs `convert`, appending " of <what>" to the errors it emits, so an
/// unsupported element type names the value that has it.
template <typename Fn>
static auto nameValueInErrors(Location loc, const std::string &what,
                              Fn convert) {
  ScopedDiagnosticHandler handler(loc.getContext(), [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      diag << " of " << what;
    return failure();
  });
  return convert();
}

FailureOr<RankedTensorType> convertTensorType(Location loc, StringRef name,
                                              const onnx::TypeProto &type) {
  if (!type.has_tensor_type())
    return emitError(loc) << "unsupported ONNX value type (" << valueKind(type)
                          << ") for '" << name << "'";
  const onnx::TypeProto::Tensor &tensor = type.tensor_type();
  FailureOr<Type> elementType =
      nameValueInErrors(loc, "'" + name.str() + "'", [&] {
        return convertElementType(loc, tensor.elem_type());
      });
  if (failed(elementType))
    return failure();
  if (!tensor.has_shape())
    return emitError(loc) << "unsupported tensor of unknown rank for '" << name
                          << "'";
  SmallVector<int64_t> shape;
  for (const auto &dim : tensor.shape().dim())
    shape.push_back(dim.has_dim_value() ? dim.dim_value()
                                        : ShapedType::kDynamic);
  if (llvm::any_of(
          shape, [](int64_t d) { return d < 0 && !ShapedType::isDynamic(d); }))
    return emitError(loc) << "negative tensor extent";
  return RankedTensorType::get(shape, *elementType);
}

FailureOr<BoundaryType> convertBoundaryType(Location loc, StringRef name,
                                            const onnx::TypeProto &type,
                                            bool isOutput) {
  BoundaryType result;
  const onnx::TypeProto *t = &type;
  if (t->has_optional_type()) {
    result.optional = true;
    t = &t->optional_type().elem_type();
  }
  if (t->has_sequence_type()) {
    result.sequence = true;
    t = &t->sequence_type().elem_type();
    if (!t->has_tensor_type())
      return emitError(loc) << "unsupported sequence of " << valueKind(*t)
                            << " values for '" << name << "'";
    result.dataType = t->tensor_type().elem_type();
    result.ragged =
        !t->tensor_type().has_shape() ||
        llvm::any_of(t->tensor_type().shape().dim(),
                     [](const onnx::TensorShapeProto::Dimension &d) {
                       return !d.has_dim_value();
                     });
    if (!t->tensor_type().has_shape()) {
      if (isOutput)
        return result;
      return emitError(loc) << "unsupported sequence of unknown element rank "
                               "for '"
                            << name << "'";
    }
  }
  FailureOr<RankedTensorType> tensor = convertTensorType(loc, name, *t);
  if (failed(tensor))
    return failure();
  result.dataType = t->tensor_type().elem_type();
  result.type = *tensor;
  if (result.sequence) {
    SmallVector<int64_t> shape{ShapedType::kDynamic};
    llvm::append_range(shape, tensor->getShape());
    result.type = RankedTensorType::get(shape, tensor->getElementType());
  }
  return result;
}

/// Appends the low `width` bytes of `value` (little endian host).
static void appendBytes(std::vector<char> &out, uint64_t value,
                        unsigned width) {
  char bytes[8];
  std::memcpy(bytes, &value, sizeof(bytes));
  out.insert(out.end(), bytes, bytes + width);
}

/// Packs the typed repeated field that holds `tensor`'s data into bytes of
/// `width` each; fails if the tensor has no typed data of its type.
static FailureOr<std::vector<char>>
packTypedData(Location loc, const onnx::TensorProto &t, unsigned width) {
  std::vector<char> out;
  switch (t.data_type()) {
  case onnx::TensorProto::FLOAT:
    for (float v : t.float_data()) {
      uint32_t bits;
      std::memcpy(&bits, &v, 4);
      appendBytes(out, bits, 4);
    }
    return out;
  case onnx::TensorProto::DOUBLE:
    for (double v : t.double_data()) {
      uint64_t bits;
      std::memcpy(&bits, &v, 8);
      appendBytes(out, bits, 8);
    }
    return out;
  case onnx::TensorProto::INT64:
    for (int64_t v : t.int64_data())
      appendBytes(out, uint64_t(v), 8);
    return out;
  case onnx::TensorProto::UINT32:
  case onnx::TensorProto::UINT64:
    for (uint64_t v : t.uint64_data())
      appendBytes(out, v, width);
    return out;
  default:
    // int8/16/32, uint8/16, bool, the 16- and 8-bit floats (as bit
    // patterns), and the packed bytes of the 4- and 2-bit types.
    for (int32_t v : t.int32_data())
      appendBytes(out, uint64_t(int64_t(v)), width);
    return out;
  }
}

/// Unpacks `count` elements of `bits` (4 or 2) bits each, packed from the
/// least significant bits of each byte up (onnx.proto, TensorProto
/// raw_data/int32_data), into one byte each with the upper bits clear.
static std::vector<char> unpackSubByte(const std::vector<char> &packed,
                                       unsigned bits, int64_t count) {
  unsigned perByte = 8 / bits;
  unsigned mask = (1u << bits) - 1;
  std::vector<char> out(count);
  for (int64_t i = 0; i < count; ++i)
    out[i] =
        char((uint8_t(packed[i / perByte]) >> (bits * (i % perByte))) & mask);
  return out;
}

/// A STRING tensor's `string_data` as a DenseStringElementsAttr of
/// `!ml_program.string` (one entry per element, C order).
static FailureOr<DenseElementsAttr>
convertStringTensor(Location loc, const onnx::TensorProto &tensor,
                    ArrayRef<int64_t> shape, Type elementType) {
  llvm::Expected<uint64_t> count =
      checkTensorByteSize(shape, 64, "tensor '" + tensor.name() + "'");
  if (!count)
    return emitError(loc) << llvm::toString(count.takeError());
  auto type = RankedTensorType::get(shape, elementType);
  if (tensor.string_data_size() != type.getNumElements())
    return emitError(loc) << "tensor '" << tensor.name() << "' holds "
                          << tensor.string_data_size() << " strings, expected "
                          << type.getNumElements();
  SmallVector<StringRef> values;
  for (const std::string &value : tensor.string_data()) {
    if (value.find('\0') != std::string::npos)
      return emitError(loc) << "unsupported string holding a NUL byte in "
                               "tensor '"
                            << tensor.name() << "'";
    values.push_back(value);
  }
  return DenseElementsAttr(DenseStringElementsAttr::get(type, values));
}

FailureOr<DenseElementsAttr> convertTensor(Location loc,
                                           const onnx::TensorProto &tensor) {
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL)
    return emitError(loc) << "unsupported external data in tensor '"
                          << tensor.name() << "'";
  FailureOr<Type> elementType =
      nameValueInErrors(loc, "tensor '" + tensor.name() + "'", [&] {
        return convertElementType(loc, tensor.data_type());
      });
  if (failed(elementType))
    return failure();
  SmallVector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }))
    return emitError(loc) << "tensor '" << tensor.name()
                          << "' has a negative extent";
  if (isa<StringType>(*elementType))
    return convertStringTensor(loc, tensor, shape, *elementType);
  bool isBool = elementType->isInteger(1);
  // Elements narrower than a byte (int4, uint4, float4, int2, uint2) are
  // packed in the file and held one per byte in the attribute.
  unsigned bits = isBool ? 8 : elementType->getIntOrFloatBitWidth();
  unsigned width = std::max(bits / 8, 1u);
  // Refuse overflowing or oversized tensors before anything is allocated.
  llvm::Expected<uint64_t> byteSize =
      checkTensorByteSize(shape, 8 * width, "tensor '" + tensor.name() + "'");
  if (!byteSize)
    return emitError(loc) << llvm::toString(byteSize.takeError());
  auto type = RankedTensorType::get(shape, *elementType);
  int64_t count = type.getNumElements();
  if (count == 0)
    return DenseElementsAttr::get(type, ArrayRef<Attribute>{});
  std::vector<char> bytes;
  if (tensor.has_raw_data()) {
    bytes.assign(tensor.raw_data().begin(), tensor.raw_data().end());
  } else {
    FailureOr<std::vector<char>> packed = packTypedData(loc, tensor, width);
    if (failed(packed))
      return failure();
    bytes = std::move(*packed);
  }
  int64_t expected =
      bits < 8 ? (count * int64_t(bits) + 7) / 8 : count * int64_t(width);
  if (int64_t(bytes.size()) != expected)
    return emitError(loc) << "tensor '" << tensor.name() << "' holds "
                          << bytes.size() << " bytes of data, expected "
                          << expected;
  if (bits < 8)
    bytes = unpackSubByte(bytes, bits, count);
  if (isBool) {
    // MLIR packs i1 raw buffers as bits; go through bools instead.
    SmallVector<bool> values;
    for (char c : bytes)
      values.push_back(c != 0);
    return DenseElementsAttr::get(type, values);
  }
  return DenseElementsAttr::getFromRawBuffer(type, bytes);
}

} // namespace mlprog::onnx_import
