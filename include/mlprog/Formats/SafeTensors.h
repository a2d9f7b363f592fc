//===- SafeTensors.h - safetensors weights bundles --------------*- C++ -*-===//
//
// Reading and writing weights bundles in the safetensors format
// (huggingface/safetensors, "Format"): an 8-byte little-endian unsigned
// header length N, N bytes of UTF-8 JSON mapping each tensor name to
// {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]} (byte
// offsets relative to the end of the header; an optional "__metadata__"
// object of string values), then the tensors' raw little-endian bytes in
// C order. The data section has no holes (the reference implementation
// rejects them), so our writer pads the header with spaces until the data
// starts at a multiple of 64 bytes and orders tensors by decreasing element
// size: every tensor is then aligned to its element size and a
// memory-mapped bundle can be used in place.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_FORMATS_SAFETENSORS_H
#define MLPROG_FORMATS_SAFETENSORS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
class Type;
} // namespace mlir

namespace mlprog {

/// Element types of the safetensors format, by their header spelling.
enum class SafeTensorsDType : uint8_t {
  Bool,   ///< "BOOL", one byte holding 0 or 1.
  U8,     ///< "U8"
  I8,     ///< "I8"
  U16,    ///< "U16"
  I16,    ///< "I16"
  U32,    ///< "U32"
  I32,    ///< "I32"
  U64,    ///< "U64"
  I64,    ///< "I64"
  F16,    ///< "F16", IEEE half.
  BF16,   ///< "BF16"
  F32,    ///< "F32"
  F64,    ///< "F64"
  F8E4M3, ///< "F8_E4M3" (OCP FP8 E4M3FN).
  F8E5M2, ///< "F8_E5M2"
};

/// The header spelling of `dtype` ("F32", "BOOL", "F8_E4M3", ...).
llvm::StringRef getSafeTensorsDTypeName(SafeTensorsDType dtype);
/// Parses a header spelling; std::nullopt for an unknown one.
std::optional<SafeTensorsDType> parseSafeTensorsDType(llvm::StringRef name);
/// Bytes per element of `dtype`.
unsigned getSafeTensorsDTypeSize(SafeTensorsDType dtype);
/// The MLIR element type of `dtype`: signless iN for BOOL (i1) and the
/// integers (U/I alike), fN/bf16/f8E4M3FN/f8E5M2 for the floats.
mlir::Type getMLIRElementType(SafeTensorsDType dtype, mlir::MLIRContext *ctx);
/// The safetensors dtype holding elements of `type`; std::nullopt for types
/// the format cannot hold (index, i4, complex, ...). Signless integers map to
/// the signed spelling.
std::optional<SafeTensorsDType> getSafeTensorsDType(mlir::Type type);

/// One tensor of a bundle.
struct SafeTensorsEntry {
  std::string name;
  SafeTensorsDType dtype;
  llvm::SmallVector<int64_t> shape;
  /// Absolute byte offset of the data in the file, and its size in bytes
  /// (product of `shape` times the element size).
  uint64_t fileOffset = 0;
  uint64_t byteSize = 0;
};

/// A safetensors file opened for reading: the parsed and validated header,
/// and the file's bytes memory-mapped read-only (never copied).
class SafeTensorsFile {
public:
  /// Opens and validates `path`. Errors name the file and say what is wrong:
  /// a file shorter than its header length, a header that is not a JSON
  /// object, an entry without a known dtype, a non-negative integer shape or
  /// two data offsets, offsets that are reversed, outside the data section
  /// or disagree with dtype and shape (sizes that overflow 64 bits too).
  /// With `copyOnWrite`, the mapping is private and writable: writes
  /// through `getMutableData` stay in this process (pages are copied only
  /// when written).
  static llvm::Expected<std::unique_ptr<SafeTensorsFile>>
  open(llvm::StringRef path, bool copyOnWrite = false);

  /// Parses a bundle held in memory (the bytes must outlive the result's
  /// `getData` users); same validation as `open`. `name` is used in errors.
  static llvm::Expected<std::unique_ptr<SafeTensorsFile>>
  parse(llvm::StringRef bytes, llvm::StringRef name);

  /// The tensors in file order (ordered by data offset).
  llvm::ArrayRef<SafeTensorsEntry> getEntries() const { return entries; }
  /// The tensor named `name`, or null.
  const SafeTensorsEntry *lookup(llvm::StringRef name) const;
  /// The bytes of `entry` inside the mapping.
  llvm::StringRef getData(const SafeTensorsEntry &entry) const {
    return bytes.substr(entry.fileOffset, entry.byteSize);
  }
  /// Writable bytes of `entry`; null unless opened with `copyOnWrite`.
  char *getMutableData(const SafeTensorsEntry &entry) const;
  /// The `__metadata__` string map (empty when absent).
  const llvm::StringMap<std::string> &getMetadata() const { return metadata; }
  const std::string &getPath() const { return path; }

private:
  SafeTensorsFile() = default;
  llvm::Error parseHeader();

  std::string path;
  std::unique_ptr<llvm::sys::fs::mapped_file_region> mapping;
  bool writable = false;
  llvm::StringRef bytes;
  std::vector<SafeTensorsEntry> entries;
  llvm::StringMap<size_t> index;
  llvm::StringMap<std::string> metadata;
};

/// A tensor to write: its name, dtype, shape and raw little-endian bytes in
/// C order (`data.size()` must equal the shape's element count times the
/// dtype's size).
struct SafeTensorsWriteEntry {
  std::string name;
  SafeTensorsDType dtype;
  llvm::SmallVector<int64_t> shape;
  llvm::ArrayRef<char> data;
};

/// Writes `entries` (stably ordered by decreasing element size) and
/// `metadata` to `path` atomically: the bundle goes to a temporary file in
/// the same directory that is renamed over `path` only once complete.
/// Errors: duplicate or empty names, a name of "__metadata__", data sizes
/// that disagree with dtype and shape, and I/O failures.
llvm::Error writeSafeTensors(llvm::StringRef path,
                             llvm::ArrayRef<SafeTensorsWriteEntry> entries,
                             const llvm::StringMap<std::string> &metadata = {});

} // namespace mlprog

#endif // MLPROG_FORMATS_SAFETENSORS_H
