//===- ModelPath.cpp - Files a model names, confined to its folder --------===//
//
// The checks run in the order a reader would hit them: the name alone
// (empty, NUL, absolute, lexical `..` escape), then the file system
// (canonical folder and file, containment, file type). The lexical check
// gives a clear message for `a/../../b` even when `a` does not exist; the
// containment check on canonical paths is what catches symlinks.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Support/ModelPath.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlprog;
using llvm::StringRef;
namespace fs = llvm::sys::fs;
namespace path = llvm::sys::path;

/// An error "'<name>' <message>".
static llvm::Error pathError(StringRef name, const llvm::Twine &message) {
  return llvm::createStringError("'" + name + "' " + message);
}

/// Whether the relative `name` climbs above its starting folder when its
/// `.` and `..` components are applied in order (symlinks aside).
static bool climbsOut(StringRef name) {
  int64_t depth = 0;
  for (StringRef component :
       llvm::make_range(path::begin(name), path::end(name))) {
    if (component == ".")
      continue;
    if (component == "..") {
      if (--depth < 0)
        return true;
      continue;
    }
    ++depth;
  }
  return false;
}

/// Whether the canonical `file` is the canonical `folder` or lies inside it
/// (the folder itself is then refused as a directory, not as an escape).
static bool isInside(StringRef file, StringRef folder) {
  if (!file.consume_front(folder))
    return false;
  // `folder` is "/" or ends without a separator ("/a/b"): "/a/bc" is not in
  // it, "/a/b/c" is.
  return file.empty() || folder.ends_with("/") || file.starts_with("/");
}

/// "a directory", "a fifo", ... for a file type other than a regular file.
static StringRef describeFileType(fs::file_type type) {
  switch (type) {
  case fs::file_type::directory_file:
    return "a directory";
  case fs::file_type::fifo_file:
    return "a fifo";
  case fs::file_type::block_file:
  case fs::file_type::character_file:
    return "a device";
  case fs::file_type::socket_file:
    return "a socket";
  default:
    return "of an unknown type";
  }
}

llvm::Expected<ModelFile>
mlprog::resolveModelPath(StringRef folder, StringRef name,
                         const ModelPathOptions &options) {
  if (name.empty())
    return llvm::createStringError("the file name is empty");
  // Protobuf and JSON strings may hold NUL; the C string the OS sees would
  // end there, naming another file than the one checked.
  if (name.contains('\0'))
    return pathError(name, "holds a NUL byte");
  bool absolute = path::is_absolute(name) || path::has_root_name(name);
  if (absolute && !options.allowAbsolute)
    return pathError(name, "is an absolute path; a model may only name "
                           "files inside its folder");

  // The folder as given, made absolute without touching the file system:
  // the lexical check and a missing folder report it so.
  llvm::SmallString<256> givenFolder(folder.empty() ? "." : folder);
  fs::make_absolute(givenFolder);
  path::remove_dots(givenFolder, /*remove_dot_dot=*/false);
  if (!absolute && climbsOut(name))
    return pathError(name, "leaves the model folder '" + givenFolder + "'");

  llvm::SmallString<256> canonicalFolder;
  llvm::SmallString<256> joined;
  if (absolute) {
    joined = name;
  } else {
    std::error_code ec = fs::real_path(givenFolder, canonicalFolder);
    joined = ec ? givenFolder : canonicalFolder;
    path::append(joined, name);
    if (ec)
      return pathError(name,
                       "cannot be opened ('" + joined + "'): " + ec.message());
  }
  llvm::SmallString<256> canonical;
  if (std::error_code ec = fs::real_path(joined, canonical))
    return pathError(name,
                     "cannot be opened ('" + joined + "'): " + ec.message());
  if (!absolute && !isInside(canonical, canonicalFolder))
    return pathError(name, "resolves to '" + canonical +
                               "', outside the model folder '" +
                               canonicalFolder + "'");

  fs::file_status status;
  if (std::error_code ec = fs::status(canonical, status))
    return pathError(name,
                     "cannot be opened ('" + canonical + "'): " + ec.message());
  if (status.type() != fs::file_type::regular_file)
    return pathError(name, "is not a regular file: '" + canonical + "' is " +
                               describeFileType(status.type()));
  return ModelFile{std::string(canonical), status.getSize()};
}

llvm::Error mlprog::checkModelFileRange(const ModelFile &file, uint64_t offset,
                                        uint64_t length) {
  std::string range = ("(offset " + llvm::Twine(offset) + ", length " +
                       llvm::Twine(length) + ")")
                          .str();
  uint64_t end;
  if (__builtin_add_overflow(offset, length, &end))
    return llvm::createStringError(range + " overflows a 64-bit file offset");
  if (end > file.size)
    return llvm::createStringError(range + " lies beyond the end of '" +
                                   file.path + "' (" + llvm::Twine(file.size) +
                                   " bytes)");
  return llvm::Error::success();
}

mlir::FailureOr<ModelFile>
mlprog::resolveModelPath(mlir::Location loc, StringRef folder, StringRef name,
                         const llvm::Twine &subject,
                         const ModelPathOptions &options) {
  llvm::Expected<ModelFile> file = resolveModelPath(folder, name, options);
  if (!file)
    return mlir::emitError(loc)
           << subject << ": " << llvm::toString(file.takeError());
  return std::move(*file);
}

mlir::LogicalResult mlprog::checkModelFileRange(mlir::Location loc,
                                                const ModelFile &file,
                                                uint64_t offset,
                                                uint64_t length,
                                                const llvm::Twine &subject) {
  if (llvm::Error err = checkModelFileRange(file, offset, length))
    return mlir::emitError(loc)
           << subject << " " << llvm::toString(std::move(err));
  return mlir::success();
}

llvm::cl::opt<std::string> &mlprog::importWeightsDirOption() {
  static llvm::cl::opt<std::string> weightsDir(
      "weights-dir", llvm::cl::value_desc("DIR"),
      llvm::cl::desc("Folder that the files a model names (ONNX external "
                     "data, Core ML weight blobs) are read from and must "
                     "stay inside (default: the model file's folder)"),
      llvm::cl::init(""));
  return weightsDir;
}
