//===- ModelPath.h - Files a model names, inside its folder -----*- C++ -*-===//
//
// A model names other files: ONNX external data (`location`), Core ML blob
// values (`@model_path/weights/weight.bin`), the root model of an
// .mlpackage's Manifest.json, the `ml_program.external_storage` of an
// imported global. Every such name goes through this one resolver, so that
// a model never reaches outside its folder (DESIGN.md rule 6; onnx >= 1.16,
// CVE-2024-27318 and CVE-2024-5187, and onnxruntime refuse the same):
// absolute names, `..` that climbs out, and symlinks that resolve outside
// are refused, as are names of directories, fifos and devices, and byte
// ranges that leave the file. A name is never URL-decoded: `%2e%2e` is a
// file of that name inside the folder.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_SUPPORT_MODELPATH_H
#define MLPROG_SUPPORT_MODELPATH_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace mlprog {

/// A file a model names, found inside the model's folder.
struct ModelFile {
  /// The canonical absolute path (`llvm::sys::fs::real_path`: no `.`, `..`
  /// or symlinks), the one to open.
  std::string path;
  /// The file's size in bytes when it was resolved.
  uint64_t size = 0;
};

/// How strictly `resolveModelPath` treats a name.
struct ModelPathOptions {
  /// Accepts absolute names (still canonicalized, and still refused unless
  /// they name a regular file) without confining them to the folder. Only
  /// for IR: the importers write the canonical absolute paths they checked
  /// into `ml_program.external_storage`, and an IR file is a program (its
  /// functions may call anything the process links), not a model. Relative
  /// names stay confined either way.
  bool allowAbsolute = false;
};

/// Resolves `name`, a path that a model names, relative to the model's
/// folder `folder` (empty: the current directory) and returns the canonical
/// path and size of the regular file it names. `name` is used byte for
/// byte: no URL decoding, no trimming. Errors, whose message starts with
/// the quoted name:
///  - `name` is empty or holds a NUL byte;
///  - `name` is absolute (unless `options.allowAbsolute`);
///  - `name` climbs out of the folder lexically (`..`, `./a/../../b`);
///  - the folder or the file does not exist or cannot be read;
///  - the canonical path lies outside the canonical folder (a symlink, in
///    the folder or in the name, that points out);
///  - the path is not a regular file (a directory, fifo, socket, device).
/// The file can change between this check and its opening (a race with
/// whoever can write the folder); readers open `ModelFile::path`, which
/// holds no symlink.
llvm::Expected<ModelFile>
resolveModelPath(llvm::StringRef folder, llvm::StringRef name,
                 const ModelPathOptions &options = {});

/// Checks that the byte range [offset, offset + length) lies inside `file`.
/// Errors: the sum overflows uint64_t, or the range ends past `file.size`;
/// the message names the range and the file.
llvm::Error checkModelFileRange(const ModelFile &file, uint64_t offset,
                                uint64_t length);

/// `resolveModelPath` reporting failure as an error diagnostic at `loc`:
/// "<subject>: <reason>", where `subject` names what the file holds (for
/// example "external data of tensor 'w'").
mlir::FailureOr<ModelFile>
resolveModelPath(mlir::Location loc, llvm::StringRef folder,
                 llvm::StringRef name, const llvm::Twine &subject,
                 const ModelPathOptions &options = {});

/// `checkModelFileRange` reporting failure as an error diagnostic at `loc`:
/// "<subject> (offset O, length L) lies beyond the end of '<path>' (N
/// bytes)", or "... overflows a 64-bit file offset".
mlir::LogicalResult checkModelFileRange(mlir::Location loc,
                                        const ModelFile &file, uint64_t offset,
                                        uint64_t length,
                                        const llvm::Twine &subject);

/// The importers' `--weights-dir DIR` command-line option (mlprog-translate):
/// the folder that the files a model names (ONNX external data, Core ML
/// weight blobs) resolve against and must stay inside, instead of the model
/// file's own folder. Empty (the default): the model's folder. The option is
/// registered on the first call, so every importer's translation
/// registration calls this and the option exists once whichever importers
/// the tool links.
llvm::cl::opt<std::string> &importWeightsDirOption();

} // namespace mlprog

#endif // MLPROG_SUPPORT_MODELPATH_H
