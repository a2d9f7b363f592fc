//===- BlobFileTest.cpp - Core ML weight blob reader tests ----------------===//

#include "mlprog/Formats/BlobFile.h"

#include "llvm/Support/Endian.h"
#include "gtest/gtest.h"

#include <cstring>
#include <string>
#include <vector>

using namespace mlprog::mil;

namespace {

/// Builds a blob storage v2 image: header, then per blob a metadata record
/// and 64-byte aligned data.
class BlobWriter {
public:
  /// Appends a blob and returns its metadata offset.
  uint64_t add(uint32_t dtype, const std::vector<char> &data,
               uint64_t padding = 0) {
    align();
    uint64_t meta = bytes.size();
    bytes.resize(meta + 64, 0);
    uint64_t dataOffset = meta + 64;
    put32(meta, BlobFile::kSentinel);
    put32(meta + 4, dtype);
    put64(meta + 8, data.size());
    put64(meta + 16, dataOffset);
    put64(meta + 24, padding);
    bytes.insert(bytes.end(), data.begin(), data.end());
    ++count;
    return meta;
  }
  std::string finish() {
    align();
    put32(0, count);
    put32(4, 2);
    return bytes;
  }
  void put32(uint64_t at, uint32_t v) {
    llvm::support::endian::write32le(&bytes[at], v);
  }
  void put64(uint64_t at, uint64_t v) {
    llvm::support::endian::write64le(&bytes[at], v);
  }

  std::string bytes = std::string(64, '\0');

private:
  void align() { bytes.resize((bytes.size() + 63) / 64 * 64, 0); }
  uint32_t count = 0;
};

llvm::Expected<BlobFile> load(const std::string &image) {
  return BlobFile::fromBuffer(llvm::MemoryBuffer::getMemBufferCopy(image));
}

std::string message(llvm::Error err) { return llvm::toString(std::move(err)); }

std::vector<char> floats(std::vector<float> v) {
  std::vector<char> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

TEST(BlobFileTest, ReadsRecordsAndData) {
  BlobWriter w;
  uint64_t a = w.add(2, floats({1.0f, 2.0f, 3.0f}));
  uint64_t b = w.add(1, std::vector<char>(10, 7));
  llvm::Expected<BlobFile> file = load(w.finish());
  ASSERT_TRUE(bool(file)) << message(file.takeError());
  EXPECT_EQ(file->getCount(), 2u);
  EXPECT_EQ(a, 64u);
  EXPECT_EQ(b, 192u);
  llvm::Expected<BlobRecord> ra = file->getRecord(a);
  ASSERT_TRUE(bool(ra)) << message(ra.takeError());
  EXPECT_EQ(ra->dataType, BlobDataType::Float32);
  EXPECT_EQ(ra->dataOffset, 128u);
  EXPECT_EQ(ra->sizeInBytes, 12u);
  llvm::ArrayRef<char> data = file->getData(*ra);
  float values[3];
  std::memcpy(values, data.data(), 12);
  EXPECT_EQ(values[2], 3.0f);
  EXPECT_FALSE(bool(BlobFile::checkTensor(*ra, BlobDataType::Float32, 3)));
  llvm::Expected<BlobRecord> rb = file->getRecord(b);
  ASSERT_TRUE(bool(rb)) << message(rb.takeError());
  EXPECT_EQ(rb->dataType, BlobDataType::Float16);
  EXPECT_FALSE(bool(BlobFile::checkTensor(*rb, BlobDataType::Float16, 5)));
}

TEST(BlobFileTest, RejectsShortFileAndBadVersion) {
  EXPECT_NE(message(load(std::string(10, '\0')).takeError())
                .find("shorter than its 64-byte header"),
            std::string::npos);
  BlobWriter w;
  std::string image = w.finish();
  image[4] = 3;
  EXPECT_NE(message(load(image).takeError())
                .find("unsupported weight blob file version 3"),
            std::string::npos);
}

TEST(BlobFileTest, RejectsCountBeyondFile) {
  BlobWriter w;
  w.add(2, floats({1.0f}));
  std::string image = w.finish();
  llvm::support::endian::write32le(&image[0], 1000);
  EXPECT_NE(message(load(image).takeError()).find("declares 1000 blobs"),
            std::string::npos);
}

TEST(BlobFileTest, RejectsBadSentinel) {
  BlobWriter w;
  uint64_t a = w.add(2, floats({1.0f}));
  w.put32(a, 0xCAFEBABE);
  llvm::Expected<BlobFile> file = load(w.finish());
  ASSERT_TRUE(bool(file));
  EXPECT_NE(message(file->getRecord(a).takeError())
                .find("bad blob metadata sentinel 0xcafebabe at offset 64"),
            std::string::npos);
}

TEST(BlobFileTest, RejectsMetadataOffsets) {
  BlobWriter w;
  w.add(2, floats({1.0f}));
  llvm::Expected<BlobFile> file = load(w.finish());
  ASSERT_TRUE(bool(file));
  EXPECT_NE(message(file->getRecord(65).takeError()).find("not 64-byte"),
            std::string::npos);
  EXPECT_NE(message(file->getRecord(0).takeError()).find("file header"),
            std::string::npos);
  EXPECT_NE(message(file->getRecord(1u << 20).takeError())
                .find("past the end of the 192-byte file"),
            std::string::npos);
  // Offsets near 2^64 must not wrap around.
  EXPECT_NE(message(file->getRecord(UINT64_MAX - 63).takeError())
                .find("past the end"),
            std::string::npos);
}

TEST(BlobFileTest, RejectsUnknownDtype) {
  BlobWriter w;
  uint64_t a = w.add(99, floats({1.0f}));
  llvm::Expected<BlobFile> file = load(w.finish());
  ASSERT_TRUE(bool(file));
  EXPECT_NE(
      message(file->getRecord(a).takeError()).find("unknown blob dtype 99"),
      std::string::npos);
  EXPECT_EQ(getBlobDataTypeBitWidth(0), 0u);
  EXPECT_EQ(getBlobDataTypeBitWidth(18), 0u);
  EXPECT_EQ(getBlobDataTypeBitWidth(8), 4u);
}

TEST(BlobFileTest, RejectsDataPastEndAndOverflow) {
  BlobWriter w;
  uint64_t a = w.add(2, floats({1.0f, 2.0f}));
  w.put64(a + 8, 1000); // sizeInBytes
  llvm::Expected<BlobFile> file = load(w.finish());
  ASSERT_TRUE(bool(file));
  EXPECT_NE(message(file->getRecord(a).takeError()).find("past the end"),
            std::string::npos);

  BlobWriter v;
  uint64_t b = v.add(2, floats({1.0f, 2.0f}));
  v.put64(b + 8, UINT64_MAX - 64); // offset + size wraps
  llvm::Expected<BlobFile> file2 = load(v.finish());
  ASSERT_TRUE(bool(file2));
  EXPECT_NE(message(file2->getRecord(b).takeError()).find("past the end"),
            std::string::npos);
}

TEST(BlobFileTest, RejectsMisplacedData) {
  BlobWriter w;
  uint64_t a = w.add(2, floats({1.0f}));
  w.put64(a + 16, 100); // unaligned data offset
  llvm::Expected<BlobFile> file = load(w.finish());
  ASSERT_TRUE(bool(file));
  EXPECT_NE(message(file->getRecord(a).takeError()).find("not 64-byte aligned"),
            std::string::npos);

  BlobWriter v;
  uint64_t b = v.add(2, floats({1.0f}));
  v.put64(b + 16, 64); // data overlapping its own metadata
  llvm::Expected<BlobFile> file2 = load(v.finish());
  ASSERT_TRUE(bool(file2));
  EXPECT_NE(message(file2->getRecord(b).takeError()).find("overlaps"),
            std::string::npos);
}

TEST(BlobFileTest, ChecksPaddingAndTensorSize) {
  BlobWriter w;
  // Writers before iOS18 leave the padding of byte-sized dtypes
  // uninitialized (13376768496 in a public package): it is ignored.
  uint64_t a = w.add(2, floats({1.0f, 2.0f}), /*padding=*/13376768496ull);
  uint64_t b = w.add(8, std::vector<char>(2, 0), /*padding=*/4);  // 3 x int4
  uint64_t c = w.add(11, std::vector<char>(2, 0), /*padding=*/3); // uint4
  uint64_t d = w.add(12, std::vector<char>(2, 0), /*padding=*/8); // uint3
  llvm::Expected<BlobFile> file = load(w.finish());
  ASSERT_TRUE(bool(file));
  llvm::Expected<BlobRecord> ra = file->getRecord(a);
  ASSERT_TRUE(bool(ra)) << message(ra.takeError());
  EXPECT_EQ(ra->paddingSizeInBits, 0u);
  EXPECT_FALSE(bool(BlobFile::checkTensor(*ra, BlobDataType::Float32, 2)));
  EXPECT_NE(message(file->getRecord(c).takeError())
                .find("invalid blob padding of 3 bits for dtype UInt4"),
            std::string::npos);
  EXPECT_NE(message(file->getRecord(d).takeError())
                .find("invalid blob padding of 8 bits for dtype UInt3"),
            std::string::npos);
  llvm::Expected<BlobRecord> rb = file->getRecord(b);
  ASSERT_TRUE(bool(rb)) << message(rb.takeError());
  EXPECT_FALSE(bool(BlobFile::checkTensor(*rb, BlobDataType::Int4, 3)));
  EXPECT_NE(message(BlobFile::checkTensor(*rb, BlobDataType::Int4, 4))
                .find("holds 2 bytes, but 4 Int4 elements need 16 bits"),
            std::string::npos);
  EXPECT_NE(message(BlobFile::checkTensor(*rb, BlobDataType::UInt4, 3))
                .find("holds Int4 data, expected UInt4"),
            std::string::npos);
  EXPECT_NE(
      message(BlobFile::checkTensor(*rb, BlobDataType::Int4, UINT64_MAX / 2))
          .find("more than 2^64"),
      std::string::npos);
}

TEST(BlobFileTest, OpenReportsMissingFile) {
  llvm::Expected<BlobFile> file = BlobFile::open("/nonexistent/weight.bin");
  EXPECT_NE(message(file.takeError()).find("cannot open weight blob file"),
            std::string::npos);
}

} // namespace
