//===- NpyTest.cpp - Tests of .npy reading and writing --------------------===//

#include "mlprog/Formats/Npy.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <cstring>
#include <optional>
#include <vector>

using namespace mlprog;

namespace {

/// Builds a .npy file (version 1.0) with `dict` as the header text.
std::string makeNpy(llvm::StringRef dict, llvm::StringRef data,
                    char major = 1) {
  std::string header = dict.str();
  size_t lengthSize = major == 1 ? 2 : 4;
  while ((8 + lengthSize + header.size() + 1) % 64)
    header += ' ';
  header += '\n';
  std::string out("\x93NUMPY", 6);
  out += major;
  out += char(0);
  for (size_t i = 0; i < lengthSize; ++i)
    out += char((header.size() >> (8 * i)) & 0xff);
  return out + header + data.str();
}

/// The error message of `value`, or "" if it succeeded.
template <typename T> std::string errorOf(llvm::Expected<T> value) {
  if (value)
    return "";
  return llvm::toString(value.takeError());
}

/// Fills `tensor` with a byte pattern.
void fill(HostTensor &tensor) {
  for (size_t i = 0; i < tensor.getNumBytes(); ++i)
    tensor.getData()[i] = static_cast<uint8_t>(i * 7 + 1);
}

class NpyRoundTrip : public ::testing::TestWithParam<DType> {};

TEST_P(NpyRoundTrip, PreservesShapeDTypeAndBytes) {
  HostTensor tensor(GetParam(), {2, 3});
  fill(tensor);
  llvm::Expected<HostTensor> parsed = parseNpy(serializeNpy(tensor), "mem.npy");
  ASSERT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(parsed->getDType(), GetParam());
  EXPECT_EQ(parsed->getShape(), llvm::ArrayRef<int64_t>({2, 3}));
  EXPECT_EQ(0, std::memcmp(parsed->getData(), tensor.getData(),
                           tensor.getNumBytes()));
}

INSTANTIATE_TEST_SUITE_P(
    AllDTypes, NpyRoundTrip,
    ::testing::Values(DType::Bool, DType::I8, DType::I16, DType::I32,
                      DType::I64, DType::U8, DType::U16, DType::U32, DType::U64,
                      DType::F16, DType::BF16, DType::F32, DType::F64,
                      DType::F8E4M3FN, DType::F8E4M3FNUZ, DType::F8E5M2,
                      DType::F8E5M2FNUZ, DType::F8E8M0FNU, DType::F4E2M1FN,
                      DType::I4, DType::U4, DType::I2, DType::U2),
    [](const ::testing::TestParamInfo<DType> &info) {
      return getNumpyDTypeName(info.param).str();
    });

TEST(Npy, HeaderIsPaddedTo64Bytes) {
  std::string bytes = serializeNpy(HostTensor(DType::F32, {4}));
  EXPECT_EQ(bytes.size(), 128u + 16u);
  EXPECT_NE(bytes.find("'descr': '<f4', 'fortran_order': False, "
                       "'shape': (4,), }"),
            std::string::npos);
  EXPECT_EQ(bytes[127], '\n');
}

TEST(Npy, ZeroDimensional) {
  HostTensor scalar(DType::F64, {});
  scalar.getValues<double>()[0] = 2.5;
  std::string bytes = serializeNpy(scalar);
  EXPECT_NE(bytes.find("'shape': ()"), std::string::npos);
  llvm::Expected<HostTensor> parsed = parseNpy(bytes, "s.npy");
  ASSERT_TRUE(static_cast<bool>(parsed));
  EXPECT_EQ(parsed->getRank(), 0);
  EXPECT_EQ(parsed->getNumElements(), 1);
  EXPECT_EQ(parsed->getValues<double>()[0], 2.5);
}

TEST(Npy, EmptyArray) {
  llvm::Expected<HostTensor> parsed = parseNpy(
      makeNpy("{'descr': '<i4', 'fortran_order': False, 'shape': (0, 3), }",
              ""),
      "e.npy");
  ASSERT_TRUE(static_cast<bool>(parsed));
  EXPECT_EQ(parsed->getNumElements(), 0);
  EXPECT_NE(parsed->getData(), nullptr);
}

// np.save writes an ml_dtypes.bfloat16 array as a 2-byte void ('<V2');
// it reads as bfloat16, bits unchanged.
TEST(Npy, VoidOfTwoBytesIsBFloat16) {
  uint16_t bits[2] = {0x3fc0, 0xc000}; // 1.5, -2.0
  llvm::StringRef data(reinterpret_cast<const char *>(bits), 4);
  for (const char *descr : {"<V2", "|V2"}) {
    llvm::Expected<HostTensor> parsed =
        parseNpy(makeNpy(std::string("{'descr': '") + descr +
                             "', 'fortran_order': False, 'shape': (2,), }",
                         data),
                 "bf16.npy");
    ASSERT_TRUE(static_cast<bool>(parsed))
        << llvm::toString(parsed.takeError());
    EXPECT_EQ(parsed->getDType(), DType::BF16);
    EXPECT_EQ(parsed->getValues<uint16_t>()[1], 0xc000);
  }
  // Written back in our own spelling.
  llvm::Expected<HostTensor> parsed = parseNpy(
      makeNpy("{'descr': '<V2', 'fortran_order': False, 'shape': (2,), }",
              data),
      "bf16.npy");
  ASSERT_TRUE(static_cast<bool>(parsed));
  EXPECT_NE(serializeNpy(*parsed).find("'descr': 'bfloat16'"),
            std::string::npos);
}

// Strings are numpy's '<U<n>' (UTF-32LE, NUL padded) in files and owned
// UTF-8 in the tensor; they round-trip with the width of the longest.
TEST(Npy, UnicodeStrings) {
  HostTensor tensor(DType::Str, {3});
  tensor.setString(0, "monday");
  tensor.setString(1, "\xc3\xa4\xce\xb1"); // U+00E4 U+03B1
  // Element 2 stays null: it reads (and is written) as "".
  std::string bytes = serializeNpy(tensor);
  EXPECT_NE(bytes.find("'descr': '<U6'"), std::string::npos);
  llvm::Expected<HostTensor> parsed = parseNpy(bytes, "str.npy");
  ASSERT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(parsed->getDType(), DType::Str);
  EXPECT_EQ(parsed->getString(0), "monday");
  EXPECT_EQ(parsed->getString(1), "\xc3\xa4\xce\xb1");
  EXPECT_EQ(parsed->getString(2), "");
  std::string printed;
  llvm::raw_string_ostream os(printed);
  printTensor(os, *parsed);
  EXPECT_EQ(printed, "['monday', '\xc3\xa4\xce\xb1', '']");

  // A NUL inside a string and a surrogate are refused by element.
  uint32_t inner[2] = {0x61, 0};
  uint32_t innerNul[4] = {0x61, 0, 0, 0x62};
  EXPECT_NE(
      errorOf(parseNpy(makeNpy("{'descr': '<U2', 'fortran_order': False, "
                               "'shape': (2,), }",
                               llvm::StringRef(
                                   reinterpret_cast<char *>(innerNul), 16)),
                       "nul.npy"))
          .find("element 1 holds a NUL character"),
      std::string::npos);
  uint32_t surrogate[2] = {0xd800, 0};
  EXPECT_NE(
      errorOf(parseNpy(makeNpy("{'descr': '<U2', 'fortran_order': False, "
                               "'shape': (1,), }",
                               llvm::StringRef(
                                   reinterpret_cast<char *>(surrogate), 8)),
                       "surrogate.npy"))
          .find("invalid code point 55296"),
      std::string::npos);
  EXPECT_TRUE(static_cast<bool>(parseNpy(
      makeNpy("{'descr': '<U2', 'fortran_order': False, 'shape': (1,), }",
              llvm::StringRef(reinterpret_cast<char *>(inner), 8)),
      "ok.npy")));
}

// The 8-, 4- and 2-bit types go by their ml_dtypes names, one byte per
// element; a 1-byte void (what np.save writes for some of them) says not
// which type it is and is refused.
TEST(Npy, NarrowTypesByMlDtypesName) {
  uint8_t bits[3] = {0x38, 0x0f, 0xc0};
  llvm::StringRef data(reinterpret_cast<const char *>(bits), 3);
  llvm::Expected<HostTensor> parsed =
      parseNpy(makeNpy("{'descr': 'float8_e4m3fn', 'fortran_order': False, "
                       "'shape': (3,), }",
                       data),
               "f8.npy");
  ASSERT_TRUE(static_cast<bool>(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(parsed->getDType(), DType::F8E4M3FN);
  EXPECT_EQ(getDTypeBits(DType::F8E4M3FN), 8u);
  EXPECT_NE(serializeNpy(*parsed).find("'descr': 'float8_e4m3fn'"),
            std::string::npos);
  std::string printed;
  llvm::raw_string_ostream os(printed);
  printTensor(os, *parsed);
  EXPECT_EQ(printed, "[1, 0.0292969, -2]");

  llvm::Expected<HostTensor> bad = parseNpy(
      makeNpy("{'descr': '<V1', 'fortran_order': False, 'shape': (3,), }",
              data),
      "v1.npy");
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_NE(llvm::toString(bad.takeError()).find("unsupported dtype '<V1'"),
            std::string::npos);
}

// 4- and 2-bit elements print as their value bits and lose the bits above
// them in clearPaddingBits.
TEST(Npy, SubByteIntegers) {
  HostTensor i4(DType::I4, {3});
  uint8_t values[3] = {0xff, 0x07, 0x18};
  std::memcpy(i4.getData(), values, 3);
  std::string printed;
  llvm::raw_string_ostream os(printed);
  printTensor(os, i4);
  EXPECT_EQ(printed, "[-1, 7, -8]");
  clearPaddingBits(i4);
  EXPECT_EQ(i4.getValues<uint8_t>()[0], 0x0f);
  EXPECT_EQ(i4.getValues<uint8_t>()[2], 0x08);
  EXPECT_EQ(getDTypeBits(DType::U2), 2u);
  HostTensor u2(DType::U2, {1});
  u2.getValues<uint8_t>()[0] = 0xfe;
  clearPaddingBits(u2);
  EXPECT_EQ(u2.getValues<uint8_t>()[0], 2);
}

TEST(Npy, Versions2And3) {
  int32_t values[2] = {7, -8};
  llvm::StringRef data(reinterpret_cast<const char *>(values), 8);
  for (char major : {2, 3}) {
    llvm::Expected<HostTensor> parsed = parseNpy(
        makeNpy("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }",
                data, major),
        "v.npy");
    ASSERT_TRUE(static_cast<bool>(parsed))
        << llvm::toString(parsed.takeError());
    EXPECT_EQ(parsed->getValues<int32_t>()[1], -8);
  }
}

TEST(Npy, AcceptsPipeAndNativeByteOrders) {
  EXPECT_EQ(errorOf(parseNpy(makeNpy("{'descr': '|u1', 'fortran_order': "
                                     "False, 'shape': (1,)}",
                                     "x"),
                             "p.npy")),
            "");
  EXPECT_EQ(errorOf(parseNpy(makeNpy("{\"descr\": \"=f4\", \"shape\": (1,), "
                                     "\"fortran_order\": False}",
                                     "abcd"),
                             "n.npy")),
            "");
}

TEST(Npy, BadMagic) {
  EXPECT_EQ(errorOf(parseNpy("PK\x03\x04 not numpy", "a.npy")),
            "a.npy: not a .npy file (bad magic)");
}

TEST(Npy, TruncatedData) {
  std::string bytes = makeNpy(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", "1234");
  EXPECT_EQ(errorOf(parseNpy(bytes, "t.npy")),
            "t.npy: truncated data: shape (2,2) of float32 needs 16 bytes, "
            "found 4");
}

TEST(Npy, TruncatedHeader) {
  std::string bytes = makeNpy(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", "");
  EXPECT_EQ(errorOf(parseNpy(llvm::StringRef(bytes).take_front(20), "h.npy")),
            "h.npy: truncated header");
}

TEST(Npy, FortranOrderIsAnError) {
  std::string error = errorOf(parseNpy(
      makeNpy("{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }",
              "abcd"),
      "f.npy"));
  EXPECT_NE(error.find("f.npy: Fortran-ordered arrays are not supported"),
            std::string::npos)
      << error;
}

TEST(Npy, BigEndianIsAnError) {
  std::string error = errorOf(parseNpy(
      makeNpy("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }",
              "abcd"),
      "b.npy"));
  EXPECT_NE(error.find("b.npy: big-endian dtype '>f4' is not supported"),
            std::string::npos)
      << error;
}

TEST(Npy, UnsupportedDType) {
  std::string error = errorOf(parseNpy(
      makeNpy("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
              "abcdefgh"),
      "c.npy"));
  EXPECT_NE(error.find("c.npy: unsupported dtype '<c8'"), std::string::npos)
      << error;
}

TEST(Npy, MalformedHeaders) {
  for (llvm::StringRef dict :
       {"{'descr': '<f4', 'shape': (1,), }",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }",
        "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1,",
        "not a dict"}) {
    std::string error = errorOf(parseNpy(makeNpy(dict, "abcd"), "m.npy"));
    EXPECT_NE(error.find("m.npy: malformed header"), std::string::npos)
        << dict.str() << " -> " << error;
  }
}

TEST(Npy, HugeShapeIsAnErrorNotAnAllocation) {
  std::string error =
      errorOf(parseNpy(makeNpy("{'descr': '<f8', 'fortran_order': False, "
                               "'shape': (4294967296, 4294967296), }",
                               ""),
                       "big.npy"));
  EXPECT_NE(error.find("big.npy: tensor of shape (4294967296,4294967296) and "
                       "dtype float64: element count overflows int64"),
            std::string::npos)
      << error;
}

TEST(Npy, FileRoundTripAndMissingFile) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("npytest", "npy", path));
  HostTensor tensor(DType::I64, {3});
  tensor.getValues<int64_t>()[2] = -42;
  ASSERT_FALSE(static_cast<bool>(writeNpy(path, tensor)));
  llvm::Expected<HostTensor> read = readNpy(path);
  ASSERT_TRUE(static_cast<bool>(read));
  EXPECT_EQ(read->getValues<int64_t>()[2], -42);
  llvm::sys::fs::remove(path);
  std::string error = errorOf(readNpy(path));
  EXPECT_EQ(error.rfind((path + ": cannot open").str(), 0), 0u) << error;
}

TEST(Npy, PrintElidesLargeTensors) {
  HostTensor tensor(DType::I32, {2, 1000});
  std::string text;
  llvm::raw_string_ostream os(text);
  printTensor(os, tensor);
  EXPECT_EQ(text, "[[0, 0, 0, ..., 0, 0, 0],\n [0, 0, 0, ..., 0, 0, 0]]");
}

TEST(Npy, FormatShape) {
  EXPECT_EQ(formatShape({}), "()");
  EXPECT_EQ(formatShape({4}), "(4,)");
  EXPECT_EQ(formatShape({1, 3, 224, 224}), "(1,3,224,224)");
}

} // namespace

TEST(HostTensor, WrapViewsBytesItDoesNotOwnOrOwnsThemThroughItsOwner) {
  std::vector<float> values = {1, 2, 3, 4, 5, 6};
  // A borrowed view: no copy, the bytes are the caller's.
  HostTensor view = HostTensor::wrap(
      DType::F32, {2, 3}, reinterpret_cast<uint8_t *>(values.data()), nullptr);
  EXPECT_EQ(view.getData(), reinterpret_cast<uint8_t *>(values.data()));
  EXPECT_EQ(view.getValues<float>()[4], 5.0f);
  values[4] = 50;
  EXPECT_EQ(view.getValues<float>()[4], 50.0f);

  // An owned buffer is released with the last tensor over it, moves
  // included, and not before.
  bool released = false;
  auto *bytes = new float[2]{7, 8};
  std::shared_ptr<void> owner(bytes, [&released](void *ptr) {
    delete[] static_cast<float *>(ptr);
    released = true;
  });
  std::optional<HostTensor> moved;
  {
    HostTensor tensor = HostTensor::wrap(
        DType::F32, {2}, reinterpret_cast<uint8_t *>(bytes), std::move(owner));
    moved.emplace(std::move(tensor));
  }
  EXPECT_FALSE(released);
  EXPECT_EQ(moved->getValues<float>()[1], 8.0f);
  moved.reset();
  EXPECT_TRUE(released);
}
