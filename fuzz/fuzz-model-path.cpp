//===- fuzz-model-path.cpp - The model-path resolver ----------------------===//
//
// Resolves the fuzzer's bytes as a file name inside a fixed model folder
// whose tree holds every trap the resolver must see through: symlinks out
// of the folder (to a file, to the parent, through a subfolder), a symlink
// loop, a symlink that stays inside, a directory, a fifo, a file literally
// named `%2e%2e`, and a sibling folder whose name extends the model
// folder's. Input layout: byte 0 bit 0 sets allowAbsolute; bytes 1..16 are
// the little-endian offset and length of a range check; the rest is the
// name. Whatever the name, a success must be a canonical regular file inside
// the folder (or, with allowAbsolute, anywhere when the name is absolute),
// and a range accepted by checkModelFileRange must lie inside the file.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Support/ModelPath.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace mlprog;
namespace fs = llvm::sys::fs;

namespace {

/// The fixed tree, built once per process under a fresh temp folder.
struct Tree {
  std::string root, folder;

  Tree() {
    llvm::SmallString<128> dir;
    if (fs::createUniqueDirectory("fuzz-model-path", dir) ||
        fs::real_path(dir, dir))
      std::abort();
    root = std::string(dir);
    folder = root + "/m";
    for (const char *sub : {"/m", "/m/sub", "/m/dir", "/m2"})
      if (fs::create_directories(root + sub))
        std::abort();
    for (const char *file :
         {"/m/w.bin", "/m/sub/x.bin", "/m/%2e%2e", "/m2/y.bin", "/secret"})
      writeFile(root + file);
    link(root + "/secret", "/m/out");
    link("..", "/m/up");
    link("../m2", "/m/sibling");
    link("sub/x.bin", "/m/in");
    link("loop-b", "/m/loop-a");
    link("loop-a", "/m/loop-b");
    link("sub/../../secret", "/m/sub-out");
    if (mkfifo((folder + "/fifo").c_str(), 0600))
      std::abort();
  }
  ~Tree() {
    // llvm::sys::fs::remove refuses fifos.
    unlink((folder + "/fifo").c_str());
    fs::remove_directories(root);
  }

  static void writeFile(const std::string &path) {
    FILE *file = std::fopen(path.c_str(), "wb");
    if (!file)
      std::abort();
    std::fputs("0123456789abcdef", file);
    std::fclose(file);
  }
  void link(const std::string &target, const char *at) const {
    if (symlink(target.c_str(), (root + at).c_str()))
      std::abort();
  }
};

void check(bool condition, const char *what) {
  if (!condition) {
    std::fprintf(stderr, "fuzz-model-path: %s\n", what);
    std::abort();
  }
}

uint64_t readLE64(const uint8_t *data) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i)
    value = value << 8 | data[i];
  return value;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static Tree tree;
  if (size < 17)
    return 0;
  ModelPathOptions options;
  options.allowAbsolute = data[0] & 1;
  uint64_t offset = readLE64(data + 1), length = readLE64(data + 9);
  llvm::StringRef name(reinterpret_cast<const char *>(data + 17), size - 17);

  llvm::Expected<ModelFile> file = resolveModelPath(tree.folder, name, options);
  if (!file) {
    check(!llvm::toString(file.takeError()).empty(), "an empty error");
    return 0;
  }
  bool absolute = llvm::sys::path::is_absolute(name);
  check(options.allowAbsolute || !absolute, "accepted an absolute name");
  check(absolute || llvm::StringRef(file->path).starts_with(tree.folder + "/"),
        "resolved outside the folder");
  llvm::SmallString<256> canonical;
  check(!fs::real_path(file->path, canonical) && canonical == file->path,
        "the path is not canonical");
  fs::file_status status;
  check(!fs::status(file->path, status) &&
            status.type() == fs::file_type::regular_file &&
            status.getSize() == file->size,
        "not the regular file it claims");

  llvm::Error range = checkModelFileRange(*file, offset, length);
  if (range) {
    llvm::consumeError(std::move(range));
    return 0;
  }
  check(offset <= file->size && length <= file->size - offset,
        "accepted a range outside the file");
  return 0;
}
