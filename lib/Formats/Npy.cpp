//===- Npy.cpp - Host tensors and NumPy .npy I/O --------------------------===//
//
// The .npy format: the magic "\x93NUMPY", a major and a minor version byte, a
// little-endian header length (2 bytes in 1.0, 4 bytes in 2.0/3.0), and an
// ASCII (1.0, 2.0) or UTF-8 (3.0) Python dict literal with exactly the keys
// 'descr', 'fortran_order' and 'shape', padded with spaces and a newline.
// The raw data follows.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Formats/Npy.h"
#include "mlprog/Support/ResourceLimits.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemAlloc.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

using namespace llvm;
using namespace mlprog;

namespace {
/// What we know about each dtype, indexed by `DType`.
struct DTypeInfo {
  DType dtype;
  size_t size;
  StringRef name;
  StringRef numpyName;
  StringRef descr;
};
} // namespace

static constexpr DTypeInfo kDTypes[] = {
    {DType::Bool, 1, "bool", "bool", "|b1"},
    {DType::I8, 1, "i8", "int8", "|i1"},
    {DType::I16, 2, "i16", "int16", "<i2"},
    {DType::I32, 4, "i32", "int32", "<i4"},
    {DType::I64, 8, "i64", "int64", "<i8"},
    {DType::U8, 1, "u8", "uint8", "|u1"},
    {DType::U16, 2, "u16", "uint16", "<u2"},
    {DType::U32, 4, "u32", "uint32", "<u4"},
    {DType::U64, 8, "u64", "uint64", "<u8"},
    {DType::F16, 2, "f16", "float16", "<f2"},
    {DType::BF16, 2, "bf16", "bfloat16", "bfloat16"},
    {DType::F32, 4, "f32", "float32", "<f4"},
    {DType::F64, 8, "f64", "float64", "<f8"},
    {DType::F8E4M3FN, 1, "f8E4M3FN", "float8_e4m3fn", "float8_e4m3fn"},
    {DType::F8E4M3FNUZ, 1, "f8E4M3FNUZ", "float8_e4m3fnuz", "float8_e4m3fnuz"},
    {DType::F8E5M2, 1, "f8E5M2", "float8_e5m2", "float8_e5m2"},
    {DType::F8E5M2FNUZ, 1, "f8E5M2FNUZ", "float8_e5m2fnuz", "float8_e5m2fnuz"},
    {DType::F8E8M0FNU, 1, "f8E8M0FNU", "float8_e8m0fnu", "float8_e8m0fnu"},
    {DType::F4E2M1FN, 1, "f4E2M1FN", "float4_e2m1fn", "float4_e2m1fn"},
    {DType::I4, 1, "i4", "int4", "int4"},
    {DType::U4, 1, "u4", "uint4", "uint4"},
    {DType::I2, 1, "i2", "int2", "int2"},
    {DType::U2, 1, "u2", "uint2", "uint2"},
    {DType::Str, sizeof(const char *), "str", "str", "<U"},
};

static const DTypeInfo &getInfo(DType dtype) {
  return kDTypes[static_cast<size_t>(dtype)];
}

size_t mlprog::getDTypeSize(DType dtype) { return getInfo(dtype).size; }
StringRef mlprog::getDTypeName(DType dtype) { return getInfo(dtype).name; }
StringRef mlprog::getNumpyDTypeName(DType dtype) {
  return getInfo(dtype).numpyName;
}
StringRef mlprog::getNpyDescr(DType dtype) { return getInfo(dtype).descr; }

unsigned mlprog::getDTypeBits(DType dtype) {
  switch (dtype) {
  case DType::F4E2M1FN:
  case DType::I4:
  case DType::U4:
    return 4;
  case DType::I2:
  case DType::U2:
    return 2;
  default:
    return 8 * getDTypeSize(dtype);
  }
}

void mlprog::clearPaddingBits(HostTensor &tensor) {
  unsigned bits = getDTypeBits(tensor.getDType());
  if (bits >= 8)
    return;
  uint8_t mask = (1u << bits) - 1;
  for (uint8_t &byte : tensor.getValues<uint8_t>())
    byte &= mask;
}

std::string mlprog::formatShape(ArrayRef<int64_t> shape) {
  std::string result = "(";
  for (auto [i, dim] : llvm::enumerate(shape))
    result += (i ? "," : "") + std::to_string(dim);
  return result + (shape.size() == 1 ? ",)" : ")");
}

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

/// Product of `shape`'s dimensions (1 for rank 0).
static int64_t getNumElements(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

HostTensor::HostTensor(DType dtype, ArrayRef<int64_t> shape, uint8_t *data,
                       std::shared_ptr<void> storage)
    : dtype(dtype), shape(shape), numElements(::getNumElements(shape)),
      data(data), storage(std::move(storage)) {}

HostTensor::HostTensor(DType dtype, ArrayRef<int64_t> shape)
    : dtype(dtype), shape(shape), numElements(::getNumElements(shape)) {
  // At least one byte, so that the data pointer is never null.
  size_t bytes = std::max<size_t>(getNumBytes(), 1);
  data = static_cast<uint8_t *>(llvm::allocate_buffer(bytes, kAlignment));
  storage = std::shared_ptr<void>(data, [bytes](void *ptr) {
    llvm::deallocate_buffer(ptr, bytes, kAlignment);
  });
  std::memset(data, 0, bytes);
}

HostTensor HostTensor::wrap(DType dtype, ArrayRef<int64_t> shape, uint8_t *data,
                            std::shared_ptr<void> owner) {
  return HostTensor(dtype, shape, data, std::move(owner));
}

StringRef HostTensor::getString(int64_t index) const {
  const char *text;
  std::memcpy(&text, getData() + index * sizeof(text), sizeof(text));
  return text ? StringRef(text) : StringRef();
}

void HostTensor::setString(int64_t index, StringRef value) {
  if (!strings)
    strings = std::make_unique<BumpPtrAllocator>();
  char *copy = strings->Allocate<char>(value.size() + 1);
  std::memcpy(copy, value.data(), value.size());
  copy[value.size()] = '\0';
  const char *text = copy;
  std::memcpy(getData() + index * sizeof(text), &text, sizeof(text));
}

/// Appends the UTF-8 encoding of the code point `c` (<= U+10FFFF).
static void appendUTF8(std::string &out, uint32_t c) {
  if (c < 0x80) {
    out += char(c);
  } else if (c < 0x800) {
    out += char(0xC0 | (c >> 6));
    out += char(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += char(0xE0 | (c >> 12));
    out += char(0x80 | ((c >> 6) & 0x3F));
    out += char(0x80 | (c & 0x3F));
  } else {
    out += char(0xF0 | (c >> 18));
    out += char(0x80 | ((c >> 12) & 0x3F));
    out += char(0x80 | ((c >> 6) & 0x3F));
    out += char(0x80 | (c & 0x3F));
  }
}

/// The code points of the UTF-8 `text`; a byte that does not start a valid
/// sequence becomes U+FFFD.
static SmallVector<uint32_t> decodeUTF8(StringRef text) {
  SmallVector<uint32_t> out;
  for (size_t i = 0; i < text.size();) {
    auto byte = [&](size_t k) { return uint8_t(text[k]); };
    uint8_t lead = byte(i);
    size_t length = lead < 0x80   ? 1
                    : lead < 0xC2 ? 0
                    : lead < 0xE0 ? 2
                    : lead < 0xF0 ? 3
                    : lead < 0xF5 ? 4
                                  : 0;
    uint32_t c = length == 1 ? lead : lead & (0x3F >> (length - 1));
    bool valid = length != 0 && i + length <= text.size();
    for (size_t k = 1; valid && k < length; ++k) {
      valid = (byte(i + k) & 0xC0) == 0x80;
      c = (c << 6) | (byte(i + k) & 0x3F);
    }
    static constexpr uint32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
    valid = valid && c >= kMinimum[length] && c <= 0x10FFFF &&
            !(c >= 0xD800 && c <= 0xDFFF);
    out.push_back(valid ? c : 0xFFFD);
    i += valid ? length : 1;
  }
  return out;
}

Expected<HostTensor> HostTensor::create(DType dtype, ArrayRef<int64_t> shape) {
  Expected<uint64_t> bytes =
      checkTensorByteSize(shape, 8 * getDTypeSize(dtype),
                          "tensor of shape " + formatShape(shape) +
                              " and dtype " + getNumpyDTypeName(dtype));
  if (!bytes)
    return bytes.takeError();
  return HostTensor(dtype, shape);
}

//===----------------------------------------------------------------------===//
// Header parsing
//===----------------------------------------------------------------------===//

namespace {
/// The three entries of a .npy header dict.
struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  SmallVector<int64_t> shape;
};

/// Recursive-descent parser of the Python dict literal in a .npy header.
/// Only the value forms numpy writes are accepted: strings, True/False and
/// tuples of non-negative integers.
class HeaderParser {
public:
  explicit HeaderParser(StringRef text) : rest(text) {}

  /// Parses the whole dict; the error says what is malformed.
  Expected<NpyHeader> parse();

private:
  bool consume(StringRef token) {
    rest = rest.ltrim(" \t\r\n");
    return rest.consume_front(token);
  }
  Error error(const Twine &what) {
    return createStringError("malformed header: " + what);
  }
  Expected<std::string> parseString();
  Expected<bool> parseBool();
  Expected<SmallVector<int64_t>> parseShape();
  Error parseEntry(NpyHeader &header, unsigned &seen);

  StringRef rest;
};
} // namespace

Expected<std::string> HeaderParser::parseString() {
  rest = rest.ltrim(" \t\r\n");
  if (rest.empty() || (rest.front() != '\'' && rest.front() != '"'))
    return error("expected a string");
  char quote = rest.front();
  size_t end = rest.find(quote, 1);
  if (end == StringRef::npos)
    return error("unterminated string");
  std::string value = rest.slice(1, end).str();
  rest = rest.drop_front(end + 1);
  return value;
}

Expected<bool> HeaderParser::parseBool() {
  if (consume("True"))
    return true;
  if (consume("False"))
    return false;
  return error("expected True or False for 'fortran_order'");
}

Expected<SmallVector<int64_t>> HeaderParser::parseShape() {
  if (!consume("("))
    return error("expected a tuple for 'shape'");
  SmallVector<int64_t> shape;
  while (!consume(")")) {
    rest = rest.ltrim(" \t\r\n");
    size_t digits = rest.find_first_not_of("0123456789");
    int64_t dim;
    if (digits == 0 || rest.take_front(digits).getAsInteger(10, dim))
      return error("expected a non-negative integer in 'shape'");
    rest = rest.drop_front(digits);
    shape.push_back(dim);
    if (!consume(",") && !rest.ltrim(" ").starts_with(")"))
      return error("expected ',' or ')' in 'shape'");
  }
  return shape;
}

/// Parses one `'key': value` entry. `seen` collects the keys found (bits).
Error HeaderParser::parseEntry(NpyHeader &header, unsigned &seen) {
  Expected<std::string> key = parseString();
  if (!key)
    return key.takeError();
  if (!consume(":"))
    return error("expected ':' after '" + *key + "'");
  unsigned bit;
  if (*key == "descr") {
    bit = 1;
    Expected<std::string> descr = parseString();
    if (!descr)
      return error("'descr' must be a string (structured dtypes are not "
                   "supported)");
    header.descr = *descr;
  } else if (*key == "fortran_order") {
    bit = 2;
    Expected<bool> value = parseBool();
    if (!value)
      return value.takeError();
    header.fortranOrder = *value;
  } else if (*key == "shape") {
    bit = 4;
    Expected<SmallVector<int64_t>> shape = parseShape();
    if (!shape)
      return shape.takeError();
    header.shape = std::move(*shape);
  } else {
    return error("unexpected key '" + *key + "'");
  }
  if (seen & bit)
    return error("duplicate key '" + *key + "'");
  seen |= bit;
  return Error::success();
}

Expected<NpyHeader> HeaderParser::parse() {
  if (!consume("{"))
    return error("expected '{'");
  NpyHeader header;
  unsigned seen = 0;
  while (!consume("}")) {
    if (Error err = parseEntry(header, seen))
      return std::move(err);
    if (!consume(",") && !rest.ltrim(" ").starts_with("}"))
      return error("expected ',' or '}'");
  }
  if (seen != 7)
    return error("'descr', 'fortran_order' and 'shape' are all required");
  return header;
}

/// Maps a `descr` to a dtype; big-endian and unknown types are errors.
/// bfloat16 has two spellings: ours, and the 2-byte void that np.save
/// writes for an ml_dtypes.bfloat16 array.
static Expected<DType> parseDescr(StringRef descr) {
  if (descr.size() >= 2 && StringRef("<|=").contains(descr.front()) &&
      descr[1] == 'U' && llvm::all_of(descr.drop_front(2), llvm::isDigit))
    return DType::Str;
  if (descr == "bfloat16" || descr == "<V2" || descr == "|V2" || descr == "=V2")
    return DType::BF16;
  // The ml_dtypes names of the 8-, 4- and 2-bit types.
  for (const DTypeInfo &info : kDTypes)
    if (info.size == 1 && descr == info.descr)
      return info.dtype;
  if (descr.size() >= 3 && descr.front() == '>' && descr.drop_front(2) != "1")
    return createStringError("big-endian dtype '" + descr +
                             "' is not supported; save the array with "
                             "arr.astype(arr.dtype.newbyteorder('<'))");
  if (descr.size() >= 3 && StringRef("<|=>").contains(descr.front())) {
    StringRef code = descr.drop_front();
    for (const DTypeInfo &info : kDTypes)
      if (StringRef(info.descr).drop_front() == code)
        return info.dtype;
  }
  return createStringError("unsupported dtype '" + descr +
                           "' (supported: bool, int8-64, uint8-64, float16, "
                           "float32, float64, bfloat16, and by their "
                           "ml_dtypes names float8_e4m3fn, float8_e4m3fnuz, "
                           "float8_e5m2, float8_e5m2fnuz, float8_e8m0fnu, "
                           "float4_e2m1fn, int4, uint4, int2, uint2)");
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

static constexpr StringLiteral kMagic("\x93NUMPY");

/// Splits `bytes` into the header text and the data that follows it.
static Expected<std::pair<StringRef, StringRef>> splitHeader(StringRef bytes) {
  if (!bytes.starts_with(kMagic))
    return createStringError("not a .npy file (bad magic)");
  if (bytes.size() < kMagic.size() + 2)
    return createStringError("truncated header");
  uint8_t major = bytes[kMagic.size()];
  if (major < 1 || major > 3)
    return createStringError(
        "unsupported .npy format version " + Twine(unsigned(major)) + "." +
        Twine(unsigned(uint8_t(bytes[kMagic.size() + 1]))));
  size_t lengthSize = major == 1 ? 2 : 4;
  size_t prefix = kMagic.size() + 2 + lengthSize;
  if (bytes.size() < prefix)
    return createStringError("truncated header");
  const char *lengthPtr = bytes.data() + kMagic.size() + 2;
  uint64_t headerLength = major == 1
                              ? uint64_t(support::endian::read16le(lengthPtr))
                              : uint64_t(support::endian::read32le(lengthPtr));
  if (bytes.size() - prefix < headerLength)
    return createStringError("truncated header");
  return std::make_pair(bytes.substr(prefix, headerLength),
                        bytes.drop_front(prefix + headerLength));
}

/// The string tensor of `shape` in `data`, elements of the numpy unicode
/// dtype `descr` ('<U<n>': n UTF-32LE code units, NUL padded).
static Expected<HostTensor>
parseStrings(StringRef descr, ArrayRef<int64_t> shape, StringRef data) {
  uint64_t width = 0;
  if (descr.drop_front(2).getAsInteger(10, width) && descr.size() > 2)
    return createStringError("malformed string dtype '" + descr + "'");
  Expected<HostTensor> tensor = HostTensor::create(DType::Str, shape);
  if (!tensor)
    return tensor.takeError();
  int64_t count = tensor->getNumElements();
  if (width > uint64_t(std::numeric_limits<int64_t>::max() / 4) ||
      (count && 4 * width > data.size() / uint64_t(count)))
    return createStringError("truncated data: shape " + formatShape(shape) +
                             " of '" + descr + "' needs " + Twine(4 * width) +
                             " bytes per element, found " + Twine(data.size()) +
                             " bytes");
  std::string text;
  for (int64_t i = 0; i < count; ++i) {
    text.clear();
    const char *element = data.data() + i * 4 * width;
    for (uint64_t k = 0; k < width; ++k) {
      uint32_t c = support::endian::read32le(element + 4 * k);
      if (c == 0) {
        // numpy strips trailing NULs; one inside a string cannot be held.
        for (uint64_t r = k + 1; r < width; ++r)
          if (support::endian::read32le(element + 4 * r) != 0)
            return createStringError("string element " + Twine(i) +
                                     " holds a NUL character");
        break;
      }
      if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return createStringError("string element " + Twine(i) +
                                 " holds an invalid code point " + Twine(c));
      appendUTF8(text, c);
    }
    tensor->setString(i, text);
  }
  return tensor;
}

/// Parses the header and data; errors are not yet prefixed with the name.
static Expected<HostTensor> parseNpyImpl(StringRef bytes) {
  auto parts = splitHeader(bytes);
  if (!parts)
    return parts.takeError();
  auto [headerText, data] = *parts;
  Expected<NpyHeader> header = HeaderParser(headerText).parse();
  if (!header)
    return header.takeError();
  if (header->fortranOrder)
    return createStringError("Fortran-ordered arrays are not supported; save "
                             "np.ascontiguousarray(arr) instead");
  Expected<DType> dtype = parseDescr(header->descr);
  if (!dtype)
    return dtype.takeError();
  if (*dtype == DType::Str)
    return parseStrings(header->descr, header->shape, data);
  Expected<HostTensor> tensor = HostTensor::create(*dtype, header->shape);
  if (!tensor)
    return tensor.takeError();
  if (data.size() < tensor->getNumBytes())
    return createStringError(
        "truncated data: shape " + formatShape(header->shape) + " of " +
        getNumpyDTypeName(*dtype) + " needs " + Twine(tensor->getNumBytes()) +
        " bytes, found " + Twine(data.size()));
  std::memcpy(tensor->getData(), data.data(), tensor->getNumBytes());
  return tensor;
}

Expected<HostTensor> mlprog::parseNpy(StringRef bytes, StringRef name) {
  Expected<HostTensor> tensor = parseNpyImpl(bytes);
  if (!tensor)
    return createStringError(name + ": " + toString(tensor.takeError()));
  return tensor;
}

Expected<HostTensor> mlprog::readNpy(StringRef path) {
  // A device or FIFO (e.g. /dev/zero) would be read until memory runs out.
  sys::fs::file_status status;
  if (!sys::fs::status(path, status) &&
      status.type() != sys::fs::file_type::regular_file)
    return createStringError(path + ": cannot open: not a regular file");
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFile(
      path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return createStringError(path +
                             ": cannot open: " + buffer.getError().message());
  return parseNpy((*buffer)->getBuffer(), path);
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

std::string mlprog::serializeNpy(const HostTensor &tensor) {
  // Python's tuple repr: "()", "(4,)", "(2, 3)".
  std::string shape = "(";
  for (auto [i, dim] : llvm::enumerate(tensor.getShape()))
    shape += (i ? ", " : "") + std::to_string(dim);
  shape += tensor.getRank() == 1 ? ",)" : ")";
  std::string descr = getNpyDescr(tensor.getDType()).str();
  std::vector<SmallVector<uint32_t>> texts;
  size_t width = 1;
  if (tensor.getDType() == DType::Str) {
    for (int64_t i = 0; i < tensor.getNumElements(); ++i) {
      texts.push_back(decodeUTF8(tensor.getString(i)));
      width = std::max(width, texts.back().size());
    }
    descr += std::to_string(width);
  }
  std::string dict = "{'descr': '" + descr +
                     "', 'fortran_order': False, 'shape': " + shape + ", }";

  // Pad with spaces so that magic + version + length + header is a multiple
  // of 64 bytes, and end the header with a newline.
  size_t v1Prefix = kMagic.size() + 2 + 2;
  size_t v1Length = alignTo(v1Prefix + dict.size() + 1, 64) - v1Prefix;
  size_t lengthSize = v1Length > 65535 ? 4 : 2;
  size_t prefix = kMagic.size() + 2 + lengthSize;
  size_t total = alignTo(prefix + dict.size() + 1, 64);
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';

  std::string out(kMagic);
  out += char(lengthSize == 2 ? 1 : 2);
  out += char(0);
  char length[4];
  if (lengthSize == 2)
    support::endian::write16le(length, dict.size());
  else
    support::endian::write32le(length, dict.size());
  out.append(length, lengthSize);
  out += dict;
  if (tensor.getDType() == DType::Str) {
    for (const SmallVector<uint32_t> &text : texts) {
      for (size_t k = 0; k < width; ++k) {
        char unit[4];
        support::endian::write32le(unit, k < text.size() ? text[k] : 0);
        out.append(unit, 4);
      }
    }
    return out;
  }
  out.append(reinterpret_cast<const char *>(tensor.getData()),
             tensor.getNumBytes());
  return out;
}

Error mlprog::writeNpy(StringRef path, const HostTensor &tensor) {
  std::string bytes = serializeNpy(tensor);
  Error err = writeToOutput(path, [&](raw_ostream &os) {
    os << bytes;
    return Error::success();
  });
  if (err)
    return createStringError(path +
                             ": cannot write: " + toString(std::move(err)));
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

/// Converts a 16-bit float (`semantics` half or bfloat) to double.
static double convertBits(const fltSemantics &semantics, uint64_t bits,
                          unsigned width) {
  APFloat value(semantics, APInt(width, bits));
  // NaN prints as numpy does, without a sign (APFloat would also turn
  // f8E8M0FNU's NaN into an infinity on the way).
  if (value.isNaN())
    return NAN;
  bool losesInfo;
  value.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven,
                &losesInfo);
  return value.convertToDouble();
}

/// The APFloat semantics of an 8- or 4-bit float dtype.
static const fltSemantics &getNarrowSemantics(DType dtype) {
  switch (dtype) {
  case DType::F8E4M3FNUZ:
    return APFloat::Float8E4M3FNUZ();
  case DType::F8E5M2:
    return APFloat::Float8E5M2();
  case DType::F8E5M2FNUZ:
    return APFloat::Float8E5M2FNUZ();
  case DType::F8E8M0FNU:
    return APFloat::Float8E8M0FNU();
  case DType::F4E2M1FN:
    return APFloat::Float4E2M1FN();
  default:
    return APFloat::Float8E4M3FN();
  }
}

/// Prints the element at flat index `index`.
static void printElement(raw_ostream &os, const HostTensor &tensor,
                         int64_t index) {
  const uint8_t *ptr =
      tensor.getData() + index * getDTypeSize(tensor.getDType());
  auto load = [&](auto value) {
    std::memcpy(&value, ptr, sizeof(value));
    return value;
  };
  switch (tensor.getDType()) {
  case DType::Bool:
    os << (*ptr ? "True" : "False");
    return;
  case DType::I8:
    os << int(load(int8_t()));
    return;
  case DType::I16:
    os << load(int16_t());
    return;
  case DType::I32:
    os << load(int32_t());
    return;
  case DType::I64:
    os << load(int64_t());
    return;
  case DType::U8:
    os << unsigned(load(uint8_t()));
    return;
  case DType::U16:
    os << load(uint16_t());
    return;
  case DType::U32:
    os << load(uint32_t());
    return;
  case DType::U64:
    os << load(uint64_t());
    return;
  case DType::F16:
    os << format("%g", convertBits(APFloat::IEEEhalf(), load(uint16_t()), 16));
    return;
  case DType::BF16:
    os << format("%g", convertBits(APFloat::BFloat(), load(uint16_t()), 16));
    return;
  case DType::F32:
    os << format("%g", load(float()));
    return;
  case DType::F64:
    os << format("%g", load(double()));
    return;
  case DType::F8E4M3FN:
  case DType::F8E4M3FNUZ:
  case DType::F8E5M2:
  case DType::F8E5M2FNUZ:
  case DType::F8E8M0FNU:
  case DType::F4E2M1FN: {
    unsigned bits = getDTypeBits(tensor.getDType());
    os << format("%g", convertBits(getNarrowSemantics(tensor.getDType()),
                                   *ptr & ((1u << bits) - 1), bits));
    return;
  }
  case DType::I4:
  case DType::I2: {
    unsigned bits = getDTypeBits(tensor.getDType());
    os << APInt(bits, *ptr & ((1u << bits) - 1)).getSExtValue();
    return;
  }
  case DType::U4:
  case DType::U2: {
    unsigned bits = getDTypeBits(tensor.getDType());
    os << unsigned(*ptr & ((1u << bits) - 1));
    return;
  }
  case DType::Str:
    os << '\'' << tensor.getString(index) << '\'';
    return;
  }
}

/// Prints dimension `dim` of the sub-tensor starting at flat index `base`.
static void printDim(raw_ostream &os, const HostTensor &tensor, size_t dim,
                     int64_t base, int64_t stride, bool elide,
                     int64_t edgeItems) {
  ArrayRef<int64_t> shape = tensor.getShape();
  int64_t size = shape[dim];
  int64_t innerStride = size ? stride / size : 0;
  bool skip = elide && size > 2 * edgeItems;
  os << '[';
  for (int64_t i = 0; i < size; ++i) {
    if (skip && i == edgeItems) {
      os << "...";
      i = size - edgeItems - 1;
    } else if (dim + 1 == shape.size()) {
      printElement(os, tensor, base + i);
    } else {
      printDim(os, tensor, dim + 1, base + i * innerStride, innerStride, elide,
               edgeItems);
    }
    if (i + 1 < size)
      os << (dim + 1 == shape.size() ? ", "
                                     : ",\n" + std::string(dim + 1, ' '));
  }
  os << ']';
}

void mlprog::printTensor(raw_ostream &os, const HostTensor &tensor,
                         int64_t edgeItems, int64_t threshold) {
  if (tensor.getRank() == 0) {
    printElement(os, tensor, 0);
    return;
  }
  printDim(os, tensor, 0, 0, tensor.getNumElements(),
           tensor.getNumElements() > threshold, edgeItems);
}
