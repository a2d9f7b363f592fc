//===- fuzz-weight-bin.cpp - Core ML weight.bin reader --------------------===//
//
// Opens the bytes as a blob file, reads every record the header counts (at
// the 64-byte-aligned offsets where writers put them) and checks each
// against a tensor type derived from its own fields.
//
//===----------------------------------------------------------------------===//

#include "FuzzCommon.h"
#include "mlprog/Formats/BlobFile.h"

#include <cstring>

using namespace mlprog;
using namespace mlprog::mil;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static bool initialized = (fuzz::initLimits(), true);
  (void)initialized;
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(reinterpret_cast<const char *>(data), size),
      "weight.bin");
  llvm::Expected<BlobFile> file = BlobFile::fromBuffer(std::move(buffer));
  if (!file) {
    llvm::consumeError(file.takeError());
    return 0;
  }
  uint64_t offset = BlobFile::kHeaderSize;
  for (uint32_t i = 0; i < file->getCount() && i < 64; ++i) {
    llvm::Expected<BlobRecord> record = file->getRecord(offset);
    if (!record) {
      llvm::consumeError(record.takeError());
      offset += BlobFile::kAlignment;
      continue;
    }
    // The element count the blob's size implies, and one more.
    unsigned bits = getBlobDataTypeBitWidth(uint32_t(record->dataType));
    uint64_t count = bits ? record->sizeInBytes * 8 / bits : 0;
    for (uint64_t n : {count, count + 1})
      llvm::consumeError(BlobFile::checkTensor(*record, record->dataType, n));
    llvm::ArrayRef<char> bytes = file->getData(*record);
    // Touch the first and last byte: the range must lie inside the file.
    volatile char sink = 0;
    if (!bytes.empty())
      sink = bytes.front() ^ bytes.back();
    (void)sink;
    offset = record->dataOffset + record->sizeInBytes;
    offset = (offset + BlobFile::kAlignment - 1) / BlobFile::kAlignment *
             BlobFile::kAlignment;
  }
  return 0;
}
