//===- ModelPathTest.cpp - Files a model names, confined to its folder ----===//

#include "mlprog/Support/ModelPath.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <string>

using namespace mlprog;
namespace fs = llvm::sys::fs;

namespace {

/// A fresh tree per test:
///   ROOT/m/w.bin (8 bytes), ROOT/m/sub/x.bin (8 bytes), ROOT/m2/y.bin,
///   ROOT/outside.bin, and symlinks made by the tests.
class ModelPath : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(fs::createUniqueDirectory("model-path-test", root));
    ASSERT_FALSE(fs::real_path(root, root));
    folder = join("m");
    ASSERT_FALSE(fs::create_directories(join("m/sub")));
    ASSERT_FALSE(fs::create_directories(join("m2")));
    for (const char *file :
         {"m/w.bin", "m/sub/x.bin", "m2/y.bin", "outside.bin"})
      write(join(file));
  }
  void TearDown() override { fs::remove_directories(root); }

  std::string join(llvm::StringRef relative) const {
    llvm::SmallString<256> path(root);
    llvm::sys::path::append(path, relative);
    return std::string(path);
  }
  static void write(const std::string &path) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << "12345678";
  }
  /// The error message of resolving `name` in the model folder, "" if none.
  std::string errorOf(llvm::StringRef name, bool allowAbsolute = false) {
    ModelPathOptions options;
    options.allowAbsolute = allowAbsolute;
    llvm::Expected<ModelFile> file = resolveModelPath(folder, name, options);
    if (file)
      return "";
    return llvm::toString(file.takeError());
  }

  llvm::SmallString<256> root;
  std::string folder;
};

TEST_F(ModelPath, ResolvesInsideTheFolder) {
  llvm::Expected<ModelFile> file = resolveModelPath(folder, "sub/x.bin");
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  EXPECT_EQ(file->path, join("m/sub/x.bin"));
  EXPECT_EQ(file->size, 8u);
  // `..` that stays inside, and `.` components, are canonicalized away.
  file = resolveModelPath(folder, "./sub/../w.bin");
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  EXPECT_EQ(file->path, join("m/w.bin"));
}

TEST_F(ModelPath, RefusesNamesThatLeave) {
  EXPECT_EQ(errorOf("../outside.bin"),
            "'../outside.bin' leaves the model folder '" + folder + "'");
  EXPECT_EQ(errorOf("./a/../../outside.bin"),
            "'./a/../../outside.bin' leaves the model folder '" + folder + "'");
  EXPECT_EQ(errorOf(join("outside.bin")),
            "'" + join("outside.bin") +
                "' is an absolute path; a model may only name files inside "
                "its folder");
  EXPECT_EQ(errorOf(""), "the file name is empty");
  EXPECT_EQ(errorOf(llvm::StringRef("w.bin\0/../../x", 14)),
            std::string("'w.bin\0/../../x' holds a NUL byte", 33));
}

TEST_F(ModelPath, RefusesSymlinksThatLeave) {
  ASSERT_FALSE(fs::create_link(join("outside.bin"), join("m/out.bin")));
  EXPECT_EQ(errorOf("out.bin"),
            "'out.bin' resolves to '" + join("outside.bin") +
                "', outside the model folder '" + folder + "'");
  // A sibling folder whose name extends the model folder's is outside too.
  ASSERT_FALSE(fs::create_link(join("m2/y.bin"), join("m/sibling.bin")));
  EXPECT_NE(errorOf("sibling.bin").find("outside the model folder"),
            std::string::npos);
  // A symlink that stays inside is followed.
  ASSERT_FALSE(fs::create_link(join("m/sub/x.bin"), join("m/in.bin")));
  EXPECT_EQ(errorOf("in.bin"), "");
}

TEST_F(ModelPath, SymlinkedFolder) {
  // The folder itself may be reached through a symlink.
  ASSERT_FALSE(fs::create_link(join("m"), join("alias")));
  llvm::Expected<ModelFile> file = resolveModelPath(join("alias"), "w.bin");
  ASSERT_TRUE(bool(file)) << llvm::toString(file.takeError());
  EXPECT_EQ(file->path, join("m/w.bin"));
}

TEST_F(ModelPath, PercentEncodingIsLiteral) {
  EXPECT_NE(errorOf("%2e%2e/outside.bin").find("cannot be opened"),
            std::string::npos);
  write(join("m/%2e%2e"));
  EXPECT_EQ(errorOf("%2e%2e"), "");
}

TEST_F(ModelPath, RefusesNonRegularFiles) {
  EXPECT_EQ(errorOf("sub"), "'sub' is not a regular file: '" + join("m/sub") +
                                "' is a directory");
  EXPECT_EQ(errorOf("."),
            "'.' is not a regular file: '" + folder + "' is a directory");
  EXPECT_NE(errorOf("missing.bin").find("No such file or directory"),
            std::string::npos);
}

TEST_F(ModelPath, AllowAbsolute) {
  EXPECT_EQ(errorOf(join("outside.bin"), /*allowAbsolute=*/true), "");
  EXPECT_NE(
      errorOf(join("m/sub"), /*allowAbsolute=*/true).find("is a directory"),
      std::string::npos);
  // Relative names stay confined.
  EXPECT_NE(errorOf("../outside.bin", /*allowAbsolute=*/true)
                .find("leaves the model folder"),
            std::string::npos);
}

TEST_F(ModelPath, Ranges) {
  ModelFile file{"f", 8};
  EXPECT_FALSE(bool(checkModelFileRange(file, 0, 8)));
  EXPECT_FALSE(bool(checkModelFileRange(file, 8, 0)));
  EXPECT_EQ(llvm::toString(checkModelFileRange(file, 4, 5)),
            "(offset 4, length 5) lies beyond the end of 'f' (8 bytes)");
  EXPECT_EQ(llvm::toString(checkModelFileRange(file, UINT64_MAX, 1)),
            "(offset 18446744073709551615, length 1) overflows a 64-bit file "
            "offset");
}

} // namespace
