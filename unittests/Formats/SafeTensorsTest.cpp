//===- SafeTensorsTest.cpp - Tests of the safetensors reader/writer -------===//

#include "mlprog/Formats/SafeTensors.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

#include <cstring>
#include <vector>

using namespace mlprog;

namespace {

/// A bundle with `header` as its JSON text and `data` as its data section.
std::string makeBundle(llvm::StringRef header, llvm::StringRef data) {
  std::string out(8, '\0');
  llvm::support::endian::write64le(out.data(), header.size());
  return out + header.str() + data.str();
}

/// The error message of `value`, or "" if it succeeded.
template <typename T> std::string errorOf(llvm::Expected<T> value) {
  if (value)
    return "";
  return llvm::toString(value.takeError());
}

std::string parseError(llvm::StringRef header, llvm::StringRef data = "") {
  std::string bytes = makeBundle(header, data);
  return errorOf(SafeTensorsFile::parse(bytes, "b.safetensors"));
}

/// A temporary file path removed at the end of the test.
struct TempPath {
  llvm::SmallString<128> path;
  TempPath() {
    llvm::sys::fs::createTemporaryFile("safetensors-test", "safetensors", path);
  }
  ~TempPath() { llvm::sys::fs::remove(path); }
};

TEST(SafeTensorsTest, DTypeNamesRoundTrip) {
  mlir::MLIRContext ctx;
  for (llvm::StringRef name :
       {"BOOL", "U8", "I8", "U16", "I16", "U32", "I32", "U64", "I64", "F16",
        "BF16", "F32", "F64", "F8_E4M3", "F8_E5M2"}) {
    std::optional<SafeTensorsDType> dtype = parseSafeTensorsDType(name);
    ASSERT_TRUE(dtype) << name.str();
    EXPECT_EQ(getSafeTensorsDTypeName(*dtype), name);
    mlir::Type type = getMLIRElementType(*dtype, &ctx);
    unsigned bits = type.getIntOrFloatBitWidth();
    EXPECT_EQ(getSafeTensorsDTypeSize(*dtype), bits == 1 ? 1 : bits / 8);
  }
  EXPECT_FALSE(parseSafeTensorsDType("F4"));
  EXPECT_EQ(getSafeTensorsDType(mlir::Float32Type::get(&ctx)),
            SafeTensorsDType::F32);
  EXPECT_EQ(getSafeTensorsDType(mlir::IntegerType::get(&ctx, 8)),
            SafeTensorsDType::I8);
  EXPECT_EQ(getSafeTensorsDType(
                mlir::IntegerType::get(&ctx, 8, mlir::IntegerType::Unsigned)),
            SafeTensorsDType::U8);
  EXPECT_FALSE(getSafeTensorsDType(mlir::IndexType::get(&ctx)));
  EXPECT_FALSE(getSafeTensorsDType(mlir::IntegerType::get(&ctx, 4)));
}

TEST(SafeTensorsTest, ParsesEntriesAndMetadata) {
  std::string data(24, '\0');
  float values[4] = {1, 2, 3, 4};
  std::memcpy(data.data() + 8, values, 16);
  std::string bytes = makeBundle(
      R"({"__metadata__": {"format": "pt"},
          "b": {"dtype": "F32", "shape": [2, 2], "data_offsets": [8, 24]},
          "a": {"dtype": "I64", "shape": [], "data_offsets": [0, 8]}})",
      data);
  auto file = SafeTensorsFile::parse(bytes, "b.safetensors");
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  ASSERT_EQ((*file)->getEntries().size(), 2u);
  // Ordered by data offset, not by header order.
  EXPECT_EQ((*file)->getEntries()[0].name, "a");
  const SafeTensorsEntry *b = (*file)->lookup("b");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->dtype, SafeTensorsDType::F32);
  EXPECT_EQ(b->shape, (llvm::SmallVector<int64_t>{2, 2}));
  EXPECT_EQ(b->byteSize, 16u);
  llvm::StringRef payload = (*file)->getData(*b);
  EXPECT_EQ(std::memcmp(payload.data(), values, 16), 0);
  EXPECT_EQ((*file)->getMetadata().lookup("format"), "pt");
  EXPECT_FALSE((*file)->lookup("c"));
}

TEST(SafeTensorsTest, RejectsMalformedHeaders) {
  EXPECT_NE(errorOf(SafeTensorsFile::parse("abc", "x"))
                .find("shorter than the 8-byte header length"),
            std::string::npos);
  std::string huge(8, '\xff');
  EXPECT_NE(errorOf(SafeTensorsFile::parse(huge, "x")).find("exceeds the file"),
            std::string::npos);
  EXPECT_NE(parseError("{").find("not valid JSON"), std::string::npos);
  EXPECT_NE(parseError("[]").find("not a JSON object"), std::string::npos);
  EXPECT_NE(parseError(R"({"a": 1})").find("not a JSON object"),
            std::string::npos);
  EXPECT_NE(parseError(R"({"a": {"shape": [], "data_offsets": [0, 0]}})")
                .find("missing string 'dtype'"),
            std::string::npos);
  EXPECT_NE(parseError(R"({"a": {"dtype": "Q7", "shape": [],
                               "data_offsets": [0, 0]}})")
                .find("unknown dtype 'Q7'"),
            std::string::npos);
  EXPECT_NE(parseError(R"({"a": {"dtype": "F32", "shape": [-1],
                               "data_offsets": [0, 0]}})")
                .find("not a non-negative integer"),
            std::string::npos);
  EXPECT_NE(parseError(R"({"a": {"dtype": "F32", "shape": [1],
                               "data_offsets": [0]}})")
                .find("not an array of two integers"),
            std::string::npos);
  EXPECT_NE(parseError(R"({"a": {"dtype": "F32", "shape": [1],
                               "data_offsets": [4, 0]}})",
                       "12345678")
                .find("lie outside"),
            std::string::npos);
  EXPECT_NE(parseError(R"({"a": {"dtype": "F32", "shape": [1],
                               "data_offsets": [0, 8]}})",
                       "1234")
                .find("lie outside the 4-byte data section"),
            std::string::npos);
  EXPECT_NE(parseError(R"({"a": {"dtype": "F32", "shape": [3],
                               "data_offsets": [0, 8]}})",
                       "12345678")
                .find("span 8 bytes, but dtype and shape need 12"),
            std::string::npos);
  EXPECT_NE(parseError(R"({"a": {"dtype": "F64", "shape":
                               [4294967296, 4294967296],
                               "data_offsets": [0, 0]}})")
                .find("overflows 64 bits"),
            std::string::npos);
  EXPECT_NE(parseError(R"({"__metadata__": {"k": 1}})").find("not a string"),
            std::string::npos);
}

TEST(SafeTensorsTest, WriteThenReadRoundTrips) {
  TempPath temp;
  std::vector<int8_t> small = {1, -2, 3};
  std::vector<double> big = {0.5, -1.5};
  std::vector<float> medium = {1, 2, 3, 4, 5, 6};
  std::vector<SafeTensorsWriteEntry> entries = {
      {"small",
       SafeTensorsDType::I8,
       {3},
       llvm::ArrayRef(reinterpret_cast<const char *>(small.data()), 3)},
      {"big",
       SafeTensorsDType::F64,
       {2},
       llvm::ArrayRef(reinterpret_cast<const char *>(big.data()), 16)},
      {"medium",
       SafeTensorsDType::F32,
       {2, 3},
       llvm::ArrayRef(reinterpret_cast<const char *>(medium.data()), 24)},
  };
  llvm::StringMap<std::string> metadata;
  metadata["producer"] = "mlprog";
  ASSERT_FALSE(bool(writeSafeTensors(temp.path, entries, metadata)));

  auto file = SafeTensorsFile::open(temp.path);
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  // Largest elements first; the data section starts 64-byte aligned, so
  // every tensor is aligned to its element size.
  llvm::ArrayRef<SafeTensorsEntry> read = (*file)->getEntries();
  ASSERT_EQ(read.size(), 3u);
  EXPECT_EQ(read[0].name, "big");
  EXPECT_EQ(read[1].name, "medium");
  EXPECT_EQ(read[2].name, "small");
  EXPECT_EQ(read[0].fileOffset % 64, 0u);
  for (const SafeTensorsEntry &entry : read)
    EXPECT_EQ(entry.fileOffset % getSafeTensorsDTypeSize(entry.dtype), 0u);
  // No holes: the format's reference reader requires contiguous data.
  EXPECT_EQ(read[1].fileOffset, read[0].fileOffset + read[0].byteSize);
  EXPECT_EQ(read[2].fileOffset, read[1].fileOffset + read[1].byteSize);
  for (const SafeTensorsWriteEntry &entry : entries) {
    const SafeTensorsEntry *got = (*file)->lookup(entry.name);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->dtype, entry.dtype);
    EXPECT_EQ(got->shape, entry.shape);
    llvm::StringRef data = (*file)->getData(*got);
    EXPECT_EQ(data, llvm::StringRef(entry.data.data(), entry.data.size()));
  }
  EXPECT_EQ((*file)->getMetadata().lookup("producer"), "mlprog");
  EXPECT_EQ((*file)->getMutableData(read[0]), nullptr);
}

TEST(SafeTensorsTest, CopyOnWriteLeavesTheFileUnchanged) {
  TempPath temp;
  std::vector<float> values = {1, 2};
  SafeTensorsWriteEntry entry{
      "x",
      SafeTensorsDType::F32,
      {2},
      llvm::ArrayRef(reinterpret_cast<const char *>(values.data()), 8)};
  ASSERT_FALSE(bool(writeSafeTensors(temp.path, entry)));
  {
    auto file = SafeTensorsFile::open(temp.path, /*copyOnWrite=*/true);
    ASSERT_TRUE(bool(file));
    char *data = (*file)->getMutableData(*(*file)->lookup("x"));
    ASSERT_TRUE(data);
    float changed = 7;
    std::memcpy(data, &changed, 4);
    EXPECT_EQ((*file)->getData(*(*file)->lookup("x"))[0],
              reinterpret_cast<char *>(&changed)[0]);
  }
  auto reread = SafeTensorsFile::open(temp.path);
  ASSERT_TRUE(bool(reread));
  float first;
  std::memcpy(&first, (*reread)->getData(*(*reread)->lookup("x")).data(), 4);
  EXPECT_EQ(first, 1.0f);
}

TEST(SafeTensorsTest, WriterRejectsBadEntries) {
  TempPath temp;
  char bytes[8] = {};
  SafeTensorsWriteEntry a{
      "a", SafeTensorsDType::F32, {2}, llvm::ArrayRef(bytes, 8)};
  SafeTensorsWriteEntry wrongSize{
      "b", SafeTensorsDType::F32, {3}, llvm::ArrayRef(bytes, 8)};
  SafeTensorsWriteEntry reserved{
      "__metadata__", SafeTensorsDType::U8, {8}, llvm::ArrayRef(bytes, 8)};
  auto message = [&](std::vector<SafeTensorsWriteEntry> entries) {
    llvm::Error err = writeSafeTensors(temp.path, entries);
    return err ? llvm::toString(std::move(err)) : std::string();
  };
  EXPECT_NE(message({a, a}).find("duplicate tensor name 'a'"),
            std::string::npos);
  EXPECT_NE(message({wrongSize})
                .find("8 bytes of data, but dtype and shape "
                      "need 12"),
            std::string::npos);
  EXPECT_NE(message({reserved}).find("invalid tensor name"), std::string::npos);
  EXPECT_NE(errorOf(SafeTensorsFile::open("/nonexistent/x.safetensors"))
                .find("cannot open"),
            std::string::npos);
}

} // namespace
