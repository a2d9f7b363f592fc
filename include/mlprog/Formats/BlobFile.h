//===- BlobFile.h - Core ML weight blob (storage v2) reader -----*- C++ -*-===//
//
// Reads the "blob storage v2" files (`weight.bin`) that hold the large
// constants of a Core ML ML Program. Layout (all integers little-endian,
// every record 64-byte aligned):
//
//   offset 0   storage header, 64 bytes:
//                uint32 count, uint32 version (= 2), 56 reserved bytes
//   per blob   metadata record, 64 bytes:
//                uint32 sentinel (= 0xDEADBEEF), uint32 dtype,
//                uint64 sizeInBytes, uint64 offset (of the data),
//                uint64 paddingSizeInBits, 32 reserved bytes
//              followed (at `offset`, 64-byte aligned) by sizeInBytes bytes
//              of raw element data.
//
// This is the layout of coremltools' MILBlob (`Blob/StorageFormat.hpp`,
// `StorageWriter.cpp`). Writers before iOS18 leave the reserved fields and
// the padding of byte-sized dtypes uninitialized: they are ignored, and the
// padding is only read for the sub-byte dtypes. Sub-byte elements (int4,
// uint1/2/3/4/6) are packed LSB first: element i occupies bits
// [i * bits, (i + 1) * bits) of the little-endian bit stream, an element may
// straddle two bytes (uint3, uint6), and paddingSizeInBits (< 8) unused bits
// end the last byte.
//
// A program's `BlobFileValue.offset` is the offset of a metadata record.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_FORMATS_BLOBFILE_H
#define MLPROG_FORMATS_BLOBFILE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>

namespace mlprog::mil {

/// Element types of blob storage v2, numbered as in Core ML's MILBlob
/// `BlobDataType` (values are stable; new ones are only appended).
enum class BlobDataType : uint32_t {
  Float16 = 1,
  Float32 = 2,
  UInt8 = 3,
  Int8 = 4,
  BFloat16 = 5,
  Int16 = 6,
  UInt16 = 7,
  Int4 = 8,
  UInt1 = 9,
  UInt2 = 10,
  UInt4 = 11,
  UInt3 = 12,
  UInt6 = 13,
  Int32 = 14,
  UInt32 = 15,
  Float8E4M3FN = 16,
  Float8E5M2 = 17,
};

/// Bits per element of blob dtype `dtype`, or 0 if `dtype` is not a known
/// BlobDataType value.
unsigned getBlobDataTypeBitWidth(uint32_t dtype);

/// The name of blob dtype `dtype` ("Float16", ...), or "unknown".
llvm::StringRef getBlobDataTypeName(uint32_t dtype);

/// One validated metadata record.
struct BlobRecord {
  BlobDataType dataType;
  /// Offset of the metadata record in the file.
  uint64_t metadataOffset;
  /// Offset of the first data byte in the file (64-byte aligned).
  uint64_t dataOffset;
  uint64_t sizeInBytes;
  /// Unused bits at the end of the data (sub-byte element types).
  uint64_t paddingSizeInBits;
};

/// A blob storage v2 file held in memory (memory-mapped when opened from a
/// path). Every accessor validates what it reads; errors are llvm::Error
/// values with a message naming the offending field (no asserts on file
/// contents).
class BlobFile {
public:
  static constexpr uint32_t kVersion = 2;
  static constexpr uint32_t kSentinel = 0xDEADBEEF;
  static constexpr uint64_t kAlignment = 64;
  static constexpr uint64_t kHeaderSize = 64;
  static constexpr uint64_t kMetadataSize = 64;

  /// Memory-maps `path` and checks its storage header (size >= 64,
  /// version 2, `count` metadata records fit in the file).
  static llvm::Expected<BlobFile> open(llvm::StringRef path);

  /// Takes `buffer` and checks its storage header as `open` does.
  static llvm::Expected<BlobFile>
  fromBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer);

  /// Number of blobs the header declares.
  uint32_t getCount() const { return count; }
  /// Size of the file in bytes.
  uint64_t getSize() const { return buffer->getBufferSize(); }
  llvm::StringRef getIdentifier() const {
    return buffer->getBufferIdentifier();
  }

  /// Reads the metadata record at `metadataOffset` and validates it: the
  /// offset is 64-byte aligned, past the header and the record lies within
  /// the file; the sentinel is 0xDEADBEEF; the dtype is known; the data
  /// offset is 64-byte aligned, after the record, and data offset + size
  /// lies within the file (without overflow); for sub-byte dtypes the
  /// padding is < 8 bits (a multiple of the element width for 1, 2 and 4
  /// bits). The padding of byte-sized dtypes is ignored (reported as 0).
  llvm::Expected<BlobRecord> getRecord(uint64_t metadataOffset) const;

  /// The data bytes of a record returned by getRecord.
  llvm::ArrayRef<char> getData(const BlobRecord &record) const {
    return llvm::ArrayRef<char>(buffer->getBufferStart() + record.dataOffset,
                                record.sizeInBytes);
  }

  /// Checks that `record` holds exactly `numElements` elements of `dtype`:
  /// same dtype, and sizeInBytes * 8 == numElements * bits + padding.
  static llvm::Error checkTensor(const BlobRecord &record, BlobDataType dtype,
                                 uint64_t numElements);

private:
  BlobFile(std::unique_ptr<llvm::MemoryBuffer> buffer, uint32_t count)
      : buffer(std::move(buffer)), count(count) {}

  std::unique_ptr<llvm::MemoryBuffer> buffer;
  uint32_t count;
};

} // namespace mlprog::mil

#endif // MLPROG_FORMATS_BLOBFILE_H
