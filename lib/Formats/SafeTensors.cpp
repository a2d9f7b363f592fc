//===- SafeTensors.cpp - safetensors weights bundles ----------------------===//
//
// See SafeTensors.h for the format.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Formats/SafeTensors.h"
#include "mlprog/Support/ResourceLimits.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlprog;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {
struct DTypeInfo {
  SafeTensorsDType dtype;
  const char *name;
  unsigned size;
};
} // namespace

static constexpr DTypeInfo kDTypes[] = {
    {SafeTensorsDType::Bool, "BOOL", 1},
    {SafeTensorsDType::U8, "U8", 1},
    {SafeTensorsDType::I8, "I8", 1},
    {SafeTensorsDType::U16, "U16", 2},
    {SafeTensorsDType::I16, "I16", 2},
    {SafeTensorsDType::U32, "U32", 4},
    {SafeTensorsDType::I32, "I32", 4},
    {SafeTensorsDType::U64, "U64", 8},
    {SafeTensorsDType::I64, "I64", 8},
    {SafeTensorsDType::F16, "F16", 2},
    {SafeTensorsDType::BF16, "BF16", 2},
    {SafeTensorsDType::F32, "F32", 4},
    {SafeTensorsDType::F64, "F64", 8},
    {SafeTensorsDType::F8E4M3, "F8_E4M3", 1},
    {SafeTensorsDType::F8E5M2, "F8_E5M2", 1},
};

static const DTypeInfo &getInfo(SafeTensorsDType dtype) {
  return kDTypes[static_cast<unsigned>(dtype)];
}

StringRef mlprog::getSafeTensorsDTypeName(SafeTensorsDType dtype) {
  return getInfo(dtype).name;
}

unsigned mlprog::getSafeTensorsDTypeSize(SafeTensorsDType dtype) {
  return getInfo(dtype).size;
}

std::optional<SafeTensorsDType> mlprog::parseSafeTensorsDType(StringRef name) {
  for (const DTypeInfo &info : kDTypes)
    if (name == info.name)
      return info.dtype;
  return std::nullopt;
}

mlir::Type mlprog::getMLIRElementType(SafeTensorsDType dtype,
                                      mlir::MLIRContext *ctx) {
  using D = SafeTensorsDType;
  switch (dtype) {
  case D::Bool:
    return mlir::IntegerType::get(ctx, 1);
  case D::U8:
  case D::I8:
  case D::U16:
  case D::I16:
  case D::U32:
  case D::I32:
  case D::U64:
  case D::I64:
    return mlir::IntegerType::get(ctx, getInfo(dtype).size * 8);
  case D::F16:
    return mlir::Float16Type::get(ctx);
  case D::BF16:
    return mlir::BFloat16Type::get(ctx);
  case D::F32:
    return mlir::Float32Type::get(ctx);
  case D::F64:
    return mlir::Float64Type::get(ctx);
  case D::F8E4M3:
    return mlir::Float8E4M3FNType::get(ctx);
  case D::F8E5M2:
    return mlir::Float8E5M2Type::get(ctx);
  }
  return {};
}

std::optional<SafeTensorsDType> mlprog::getSafeTensorsDType(mlir::Type type) {
  using D = SafeTensorsDType;
  if (auto intType = llvm::dyn_cast<mlir::IntegerType>(type)) {
    bool isUnsigned = intType.isUnsigned();
    switch (intType.getWidth()) {
    case 1:
      return D::Bool;
    case 8:
      return isUnsigned ? D::U8 : D::I8;
    case 16:
      return isUnsigned ? D::U16 : D::I16;
    case 32:
      return isUnsigned ? D::U32 : D::I32;
    case 64:
      return isUnsigned ? D::U64 : D::I64;
    default:
      return std::nullopt;
    }
  }
  if (type.isF16())
    return D::F16;
  if (type.isBF16())
    return D::BF16;
  if (type.isF32())
    return D::F32;
  if (type.isF64())
    return D::F64;
  if (llvm::isa<mlir::Float8E4M3FNType>(type))
    return D::F8E4M3;
  if (llvm::isa<mlir::Float8E5M2Type>(type))
    return D::F8E5M2;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

static Error makeError(StringRef file, const llvm::Twine &message) {
  return llvm::createStringError(file + ": " + message);
}

Expected<std::unique_ptr<SafeTensorsFile>>
SafeTensorsFile::open(StringRef path, bool copyOnWrite) {
  Expected<llvm::sys::fs::file_t> fd =
      llvm::sys::fs::openNativeFileForRead(path);
  if (!fd)
    return makeError(path, "cannot open: " + toString(fd.takeError()));
  llvm::scope_exit closeFile([&] { llvm::sys::fs::closeFile(*fd); });
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(*fd, status))
    return makeError(path, "cannot stat: " + ec.message());
  uint64_t size = status.getSize();
  if (size < 8)
    return makeError(path, "not a safetensors file: " + llvm::Twine(size) +
                               " bytes, shorter than the 8-byte header "
                               "length");
  std::error_code ec;
  auto mapping = std::make_unique<llvm::sys::fs::mapped_file_region>(
      *fd,
      copyOnWrite ? llvm::sys::fs::mapped_file_region::priv
                  : llvm::sys::fs::mapped_file_region::readonly,
      size, /*offset=*/0, ec);
  if (ec)
    return makeError(path, "cannot memory-map: " + ec.message());
  std::unique_ptr<SafeTensorsFile> file(new SafeTensorsFile());
  file->path = path.str();
  file->bytes = StringRef(mapping->const_data(), size);
  file->mapping = std::move(mapping);
  file->writable = copyOnWrite;
  if (Error err = file->parseHeader())
    return std::move(err);
  return file;
}

Expected<std::unique_ptr<SafeTensorsFile>>
SafeTensorsFile::parse(StringRef bytes, StringRef name) {
  std::unique_ptr<SafeTensorsFile> file(new SafeTensorsFile());
  file->path = name.str();
  file->bytes = bytes;
  if (bytes.size() < 8)
    return makeError(name,
                     "not a safetensors file: " + llvm::Twine(bytes.size()) +
                         " bytes, shorter than the 8-byte header "
                         "length");
  if (Error err = file->parseHeader())
    return std::move(err);
  return file;
}

char *SafeTensorsFile::getMutableData(const SafeTensorsEntry &entry) const {
  if (!writable)
    return nullptr;
  return mapping->data() + entry.fileOffset;
}

const SafeTensorsEntry *SafeTensorsFile::lookup(StringRef name) const {
  auto it = index.find(name);
  return it == index.end() ? nullptr : &entries[it->second];
}

/// Reads a non-negative JSON integer.
static std::optional<uint64_t> getUnsigned(const llvm::json::Value &value) {
  if (std::optional<int64_t> i = value.getAsInteger(); i && *i >= 0)
    return static_cast<uint64_t>(*i);
  if (std::optional<uint64_t> u = value.getAsUINT64())
    return u;
  return std::nullopt;
}

/// Parses one tensor entry of the header.
static Expected<SafeTensorsEntry> parseEntry(StringRef file, StringRef name,
                                             const llvm::json::Value &value,
                                             uint64_t dataStart,
                                             uint64_t dataSize) {
  auto fail = [&](const llvm::Twine &what) {
    return makeError(file, "tensor '" + name + "': " + what);
  };
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return fail("header entry is not a JSON object");
  SafeTensorsEntry entry;
  entry.name = name.str();
  std::optional<StringRef> dtypeName = object->getString("dtype");
  if (!dtypeName)
    return fail("missing string 'dtype'");
  std::optional<SafeTensorsDType> dtype = parseSafeTensorsDType(*dtypeName);
  if (!dtype)
    return fail("unknown dtype '" + *dtypeName + "'");
  entry.dtype = *dtype;
  const llvm::json::Array *shape = object->getArray("shape");
  if (!shape)
    return fail("missing array 'shape'");
  uint64_t count = 1;
  for (const llvm::json::Value &dim : *shape) {
    std::optional<uint64_t> extent = getUnsigned(dim);
    if (!extent || *extent > static_cast<uint64_t>(INT64_MAX))
      return fail("shape holds a value that is not a non-negative integer");
    entry.shape.push_back(static_cast<int64_t>(*extent));
    if (__builtin_mul_overflow(count, *extent, &count))
      return fail("element count overflows 64 bits");
  }
  if (__builtin_mul_overflow(count, uint64_t(getSafeTensorsDTypeSize(*dtype)),
                             &entry.byteSize))
    return fail("byte size overflows 64 bits");
  if (entry.byteSize > uint64_t(INT64_MAX))
    return fail("byte size overflows int64");
  if (Error err = checkByteLimit(entry.byteSize, "the tensor"))
    return fail(toString(std::move(err)));
  const llvm::json::Array *offsets = object->getArray("data_offsets");
  if (!offsets || offsets->size() != 2)
    return fail("'data_offsets' is not an array of two integers");
  std::optional<uint64_t> begin = getUnsigned((*offsets)[0]);
  std::optional<uint64_t> end = getUnsigned((*offsets)[1]);
  if (!begin || !end)
    return fail("'data_offsets' is not an array of two integers");
  if (*begin > *end || *end > dataSize)
    return fail("data_offsets [" + llvm::Twine(*begin) + ", " +
                llvm::Twine(*end) + "] lie outside the " +
                llvm::Twine(dataSize) + "-byte data section");
  if (*end - *begin != entry.byteSize)
    return fail("data_offsets span " + llvm::Twine(*end - *begin) +
                " bytes, but dtype and shape need " +
                llvm::Twine(entry.byteSize));
  entry.fileOffset = dataStart + *begin;
  return entry;
}

/// The first tensor name that the header object holds twice, if any.
/// llvm::json keeps only one of the two entries, so which one a reader sees
/// would be arbitrary: the file is ambiguous. `header` is valid JSON (it has
/// been parsed), so a scan for the strings followed by ':' at nesting depth
/// one finds the top-level keys.
static std::optional<std::string> findDuplicateKey(StringRef header) {
  llvm::StringSet<> keys;
  unsigned depth = 0;
  for (size_t i = 0; i < header.size(); ++i) {
    char c = header[i];
    if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == '"') {
      size_t begin = i++;
      while (i < header.size() && header[i] != '"')
        i += header[i] == '\\' ? 2 : 1;
      StringRef token = header.slice(begin, i + 1);
      size_t next = header.find_first_not_of(" \t\r\n", i + 1);
      if (depth != 1 || next == StringRef::npos || header[next] != ':')
        continue;
      Expected<llvm::json::Value> key = llvm::json::parse(token);
      if (!key) {
        llvm::consumeError(key.takeError());
        continue;
      }
      std::optional<StringRef> text = key->getAsString();
      if (text && !keys.insert(*text).second)
        return text->str();
    }
  }
  return std::nullopt;
}

Error SafeTensorsFile::parseHeader() {
  uint64_t headerSize = llvm::support::endian::read64le(
      reinterpret_cast<const void *>(bytes.data()));
  if (headerSize > bytes.size() - 8)
    return makeError(path, "header length " + llvm::Twine(headerSize) +
                               " exceeds the file (" +
                               llvm::Twine(bytes.size()) + " bytes)");
  Expected<llvm::json::Value> header =
      llvm::json::parse(bytes.substr(8, headerSize));
  if (!header)
    return makeError(path, "header is not valid JSON: " +
                               toString(header.takeError()));
  const llvm::json::Object *object = header->getAsObject();
  if (!object)
    return makeError(path, "header is not a JSON object");
  if (std::optional<std::string> key =
          findDuplicateKey(bytes.substr(8, headerSize)))
    return makeError(path, "header names tensor '" + *key + "' twice");
  uint64_t dataStart = 8 + headerSize;
  uint64_t dataSize = bytes.size() - dataStart;
  for (const auto &[key, value] : *object) {
    if (key == "__metadata__") {
      const llvm::json::Object *meta = value.getAsObject();
      if (!meta)
        return makeError(path, "'__metadata__' is not a JSON object");
      for (const auto &[metaKey, metaValue] : *meta) {
        std::optional<StringRef> text = metaValue.getAsString();
        if (!text)
          return makeError(path, "'__metadata__' value of '" + metaKey.str() +
                                     "' is not a string");
        metadata[metaKey.str()] = text->str();
      }
      continue;
    }
    Expected<SafeTensorsEntry> entry =
        parseEntry(path, key.str(), value, dataStart, dataSize);
    if (!entry)
      return entry.takeError();
    entries.push_back(std::move(*entry));
  }
  llvm::stable_sort(entries,
                    [](const SafeTensorsEntry &a, const SafeTensorsEntry &b) {
                      return a.fileOffset < b.fileOffset;
                    });
  for (auto [i, entry] : llvm::enumerate(entries))
    index[entry.name] = i;
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

Error mlprog::writeSafeTensors(StringRef path,
                               llvm::ArrayRef<SafeTensorsWriteEntry> entries,
                               const llvm::StringMap<std::string> &metadata) {
  // Largest elements first keeps every tensor aligned to its element size in
  // a data section without holes.
  std::vector<const SafeTensorsWriteEntry *> order;
  for (const SafeTensorsWriteEntry &entry : entries)
    order.push_back(&entry);
  llvm::stable_sort(order, [](const SafeTensorsWriteEntry *a,
                              const SafeTensorsWriteEntry *b) {
    return getSafeTensorsDTypeSize(a->dtype) >
           getSafeTensorsDTypeSize(b->dtype);
  });

  llvm::json::Object header;
  if (!metadata.empty()) {
    llvm::json::Object meta;
    for (const auto &item : metadata)
      meta[item.getKey()] = item.getValue();
    header["__metadata__"] = std::move(meta);
  }
  llvm::StringSet<> names;
  uint64_t offset = 0;
  for (const SafeTensorsWriteEntry *entry : order) {
    if (entry->name.empty() || entry->name == "__metadata__")
      return makeError(path, "invalid tensor name '" + entry->name + "'");
    if (!names.insert(entry->name).second)
      return makeError(path, "duplicate tensor name '" + entry->name + "'");
    uint64_t count = 1;
    for (int64_t extent : entry->shape)
      if (extent < 0 || __builtin_mul_overflow(count, uint64_t(extent), &count))
        return makeError(path, "tensor '" + entry->name +
                                   "': invalid or overflowing shape");
    uint64_t byteSize;
    if (__builtin_mul_overflow(count,
                               uint64_t(getSafeTensorsDTypeSize(entry->dtype)),
                               &byteSize) ||
        byteSize != entry->data.size())
      return makeError(path, "tensor '" + entry->name +
                                 "': " + llvm::Twine(entry->data.size()) +
                                 " bytes of data, but dtype and shape need " +
                                 llvm::Twine(byteSize));
    llvm::json::Array shape;
    for (int64_t extent : entry->shape)
      shape.push_back(extent);
    header[entry->name] = llvm::json::Object{
        {"dtype", getSafeTensorsDTypeName(entry->dtype)},
        {"shape", std::move(shape)},
        {"data_offsets", llvm::json::Array{offset, offset + byteSize}}};
    offset += byteSize;
  }
  std::string headerText;
  llvm::raw_string_ostream(headerText) << llvm::json::Value(std::move(header));
  headerText.append(
      llvm::alignTo(8 + headerText.size(), 64) - 8 - headerText.size(), ' ');

  // Write next to the destination, then rename: no half-written bundle.
  llvm::SmallString<128> model(path);
  model += ".tmp-%%%%%%";
  int fd;
  llvm::SmallString<128> tempPath;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(model, fd, tempPath))
    return makeError(path, "cannot create a temporary file: " + ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    char length[8];
    llvm::support::endian::write64le(length, headerText.size());
    os.write(length, 8);
    os << headerText;
    for (const SafeTensorsWriteEntry *entry : order)
      os.write(entry->data.data(), entry->data.size());
    os.close();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(tempPath);
      return makeError(path, "write failed: " + message);
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(tempPath, path)) {
    llvm::sys::fs::remove(tempPath);
    return makeError(path, "cannot rename the temporary file: " + ec.message());
  }
  return Error::success();
}
