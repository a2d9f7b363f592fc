//===- ResourceLimitsTest.cpp - Tensor size limits ------------------------===//

#include "mlprog/Support/ResourceLimits.h"

#include "gtest/gtest.h"

#include <cstdlib>

using namespace mlprog;

namespace {

std::string errorOf(llvm::Expected<uint64_t> value) {
  if (value)
    return "";
  return llvm::toString(value.takeError());
}

/// Restores the process-wide limit and environment after each test.
class ResourceLimits : public ::testing::Test {
protected:
  void TearDown() override {
    setMaxTensorBytes(0);
    unsetenv("MLPROG_MAX_TENSOR_BYTES");
  }
};

TEST_F(ResourceLimits, ByteSizes) {
  EXPECT_EQ(*checkTensorByteSize({2, 3}, 32, "t"), 24u);
  EXPECT_EQ(*checkTensorByteSize({}, 64, "t"), 8u);
  EXPECT_EQ(*checkTensorByteSize({0, 1000000000}, 32, "t"), 0u);
  // Sub-byte elements are packed and rounded up.
  EXPECT_EQ(*checkTensorByteSize({3}, 4, "t"), 2u);
  EXPECT_EQ(*checkTensorByteSize({9}, 1, "t"), 2u);
}

TEST_F(ResourceLimits, OverflowAndNegativeExtents) {
  EXPECT_EQ(errorOf(checkTensorByteSize({-1, 4}, 32, "tensor 'w'")),
            "tensor 'w' has a negative or unknown extent -1");
  EXPECT_EQ(errorOf(checkTensorByteSize({1LL << 32, 1LL << 32}, 8, "w")),
            "w: element count overflows int64");
  EXPECT_EQ(errorOf(checkTensorByteSize({1LL << 60, 4}, 32, "w")),
            "w: byte size overflows int64");
  // The element count overflows before the zero extent is reached: still
  // an invalid shape.
  EXPECT_FALSE(errorOf(checkTensorByteSize({1LL << 62, 8, 0}, 8, "w")).empty());
}

TEST_F(ResourceLimits, DefaultEnvironmentAndOverride) {
  EXPECT_EQ(getMaxTensorBytes(), kDefaultMaxTensorBytes);
  EXPECT_FALSE(errorOf(checkTensorByteSize({1LL << 35}, 8, "w")).empty());
  setenv("MLPROG_MAX_TENSOR_BYTES", "100", 1);
  EXPECT_EQ(getMaxTensorBytes(), 100u);
  EXPECT_EQ(errorOf(checkTensorByteSize({26}, 32, "tensor 'x'")),
            "tensor 'x' needs 104 bytes, more than the limit of 100 (raise it "
            "with --max-tensor-bytes or MLPROG_MAX_TENSOR_BYTES)");
  EXPECT_EQ(*checkTensorByteSize({25}, 32, "x"), 100u);
  // A malformed value is ignored.
  setenv("MLPROG_MAX_TENSOR_BYTES", "lots", 1);
  EXPECT_EQ(getMaxTensorBytes(), kDefaultMaxTensorBytes);
  // The option (setMaxTensorBytes) wins over the environment.
  setenv("MLPROG_MAX_TENSOR_BYTES", "100", 1);
  setMaxTensorBytes(1000);
  EXPECT_EQ(getMaxTensorBytes(), 1000u);
  EXPECT_FALSE(static_cast<bool>(checkByteLimit(1000, "b")));
  EXPECT_EQ(llvm::toString(checkByteLimit(1001, "blob")),
            "blob needs 1001 bytes, more than the limit of 1000 (raise it "
            "with --max-tensor-bytes or MLPROG_MAX_TENSOR_BYTES)");
}

} // namespace
