//===- BlobFile.cpp - Core ML weight blob (storage v2) reader -------------===//

#include "mlprog/Formats/BlobFile.h"
#include "mlprog/Support/ResourceLimits.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace mlprog::mil;

namespace {
struct DataTypeInfo {
  const char *name;
  unsigned bits;
};
} // namespace

static DataTypeInfo getInfo(uint32_t dtype) {
  static const DataTypeInfo infos[] = {
      {"unknown", 0},      {"Float16", 16},  {"Float32", 32}, {"UInt8", 8},
      {"Int8", 8},         {"BFloat16", 16}, {"Int16", 16},   {"UInt16", 16},
      {"Int4", 4},         {"UInt1", 1},     {"UInt2", 2},    {"UInt4", 4},
      {"UInt3", 3},        {"UInt6", 6},     {"Int32", 32},   {"UInt32", 32},
      {"Float8E4M3FN", 8}, {"Float8E5M2", 8}};
  if (dtype >= std::size(infos))
    return infos[0];
  return infos[dtype];
}

unsigned mlprog::mil::getBlobDataTypeBitWidth(uint32_t dtype) {
  return getInfo(dtype).bits;
}

StringRef mlprog::mil::getBlobDataTypeName(uint32_t dtype) {
  return getInfo(dtype).name;
}

static Error makeError(const Twine &message) {
  return createStringError(inconvertibleErrorCode(), message);
}

Expected<BlobFile> BlobFile::open(StringRef path) {
  // A device or FIFO (e.g. /dev/zero) would be read until memory runs out.
  sys::fs::file_status status;
  if (!sys::fs::status(path, status) &&
      status.type() != sys::fs::file_type::regular_file)
    return makeError("cannot open weight blob file '" + path +
                     "': not a regular file");
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer =
      MemoryBuffer::getFile(path, /*IsText=*/false,
                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError("cannot open weight blob file '" + path +
                     "': " + buffer.getError().message());
  return fromBuffer(std::move(*buffer));
}

Expected<BlobFile> BlobFile::fromBuffer(std::unique_ptr<MemoryBuffer> buffer) {
  uint64_t size = buffer->getBufferSize();
  if (size < kHeaderSize)
    return makeError(formatv("weight blob file is {0} bytes, shorter than "
                             "its {1}-byte header",
                             size, kHeaderSize));
  const char *data = buffer->getBufferStart();
  uint32_t count = support::endian::read32le(data);
  uint32_t version = support::endian::read32le(data + 4);
  if (version != kVersion)
    return makeError(formatv("unsupported weight blob file version {0} "
                             "(expected {1})",
                             version, kVersion));
  // Each blob needs at least its metadata record.
  if (uint64_t(count) > (size - kHeaderSize) / kMetadataSize)
    return makeError(formatv("weight blob file header declares {0} blobs, "
                             "more than its {1} bytes can hold",
                             count, size));
  return BlobFile(std::move(buffer), count);
}

Expected<BlobRecord> BlobFile::getRecord(uint64_t metadataOffset) const {
  uint64_t size = getSize();
  if (metadataOffset % kAlignment != 0)
    return makeError(formatv("blob metadata offset {0} is not {1}-byte "
                             "aligned",
                             metadataOffset, kAlignment));
  if (metadataOffset < kHeaderSize)
    return makeError(formatv("blob metadata offset {0} points into the "
                             "file header",
                             metadataOffset));
  if (metadataOffset > size || size - metadataOffset < kMetadataSize)
    return makeError(formatv("blob metadata offset {0} is past the end of "
                             "the {1}-byte file",
                             metadataOffset, size));
  const char *record = buffer->getBufferStart() + metadataOffset;
  uint32_t sentinel = support::endian::read32le(record);
  if (sentinel != kSentinel)
    return makeError(formatv("bad blob metadata sentinel {0:x} at offset "
                             "{1} (expected 0xdeadbeef)",
                             sentinel, metadataOffset));
  uint32_t dtype = support::endian::read32le(record + 4);
  BlobRecord result;
  result.metadataOffset = metadataOffset;
  result.sizeInBytes = support::endian::read64le(record + 8);
  result.dataOffset = support::endian::read64le(record + 16);
  result.paddingSizeInBits = support::endian::read64le(record + 24);
  unsigned bits = getBlobDataTypeBitWidth(dtype);
  if (bits == 0)
    return makeError(
        formatv("unknown blob dtype {0} at offset {1}", dtype, metadataOffset));
  result.dataType = BlobDataType(dtype);
  if (result.dataOffset % kAlignment != 0)
    return makeError(formatv("blob data offset {0} is not {1}-byte aligned",
                             result.dataOffset, kAlignment));
  if (result.dataOffset < metadataOffset + kMetadataSize)
    return makeError(formatv("blob data offset {0} overlaps its metadata "
                             "record at {1}",
                             result.dataOffset, metadataOffset));
  if (result.dataOffset > size || size - result.dataOffset < result.sizeInBytes)
    return makeError(formatv("blob data [{0}, {0} + {1}) is past the end of "
                             "the {2}-byte file",
                             result.dataOffset, result.sizeInBytes, size));
  // Writers before iOS18 left the padding (and the reserved fields) of
  // byte-sized dtypes uninitialized, so it is only meaningful, and only
  // checked, for the sub-byte dtypes (as MILBlob's StorageReader does).
  if (bits % 8 == 0) {
    result.paddingSizeInBits = 0;
    return result;
  }
  if (result.paddingSizeInBits >= 8 ||
      (8 % bits == 0 && result.paddingSizeInBits % bits != 0))
    return makeError(formatv("invalid blob padding of {0} bits for dtype {1}",
                             result.paddingSizeInBits,
                             getBlobDataTypeName(dtype)));
  return result;
}

Error BlobFile::checkTensor(const BlobRecord &record, BlobDataType dtype,
                            uint64_t numElements) {
  if (record.dataType != dtype)
    return makeError(formatv("blob at offset {0} holds {1} data, expected {2}",
                             record.metadataOffset,
                             getBlobDataTypeName(uint32_t(record.dataType)),
                             getBlobDataTypeName(uint32_t(dtype))));
  if (Error err = mlprog::checkByteLimit(
          record.sizeInBytes,
          formatv("blob at offset {0}", record.metadataOffset)))
    return err;
  unsigned bits = getBlobDataTypeBitWidth(uint32_t(dtype));
  // numElements * bits + padding == sizeInBytes * 8, without overflow.
  uint64_t sizeBits = record.sizeInBytes * 8;
  if (record.sizeInBytes > UINT64_MAX / 8 ||
      numElements > (UINT64_MAX - 8) / bits ||
      numElements * bits + record.paddingSizeInBits != sizeBits)
    return makeError(formatv("blob at offset {0} holds {1} bytes, but {2} "
                             "{3} elements need {4} bits",
                             record.metadataOffset, record.sizeInBytes,
                             numElements, getBlobDataTypeName(uint32_t(dtype)),
                             numElements > (UINT64_MAX - 8) / bits
                                 ? std::string("more than 2^64")
                                 : std::to_string(numElements * bits)));
  return Error::success();
}
