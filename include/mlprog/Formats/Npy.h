//===- Npy.h - Host tensors and NumPy .npy I/O ------------------*- C++ -*-===//
//
// A host tensor (shape, element type, owned aligned bytes in C order) and
// reading/writing it as a NumPy .npy file, following the format spec
// numpy/lib/format.py ("NPY format", versions 1.0, 2.0 and 3.0).
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_FORMATS_NPY_H
#define MLPROG_FORMATS_NPY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlprog {

/// Element type of a host tensor. Integer kinds keep their NumPy signedness
/// (MLIR integers are signless; see JitRunner.h for how the two are matched).
enum class DType : uint8_t {
  Bool, ///< NumPy `|b1`, one byte holding 0 or 1; MLIR i1.
  I8,   ///< `|i1`
  I16,  ///< `<i2`
  I32,  ///< `<i4`
  I64,  ///< `<i8`
  U8,   ///< `|u1`
  U16,  ///< `<u2`
  U32,  ///< `<u4`
  U64,  ///< `<u8`
  F16,  ///< `<f2`, IEEE half.
  BF16, ///< Written as `'bfloat16'` in .npy headers (NumPy has no code for
        ///< it; np.load reads it once ml_dtypes is imported); read from
        ///< `'bfloat16'` and from the 2-byte void `'<V2'`/`'|V2'` that
        ///< np.save writes for an ml_dtypes.bfloat16 array.
  F32,  ///< `<f4`
  F64,  ///< `<f8`
  // The 8-, 4- and 2-bit types of ONNX (TensorProto.DataType 17-26). NumPy
  // has none of them: in .npy headers each is written under its ml_dtypes
  // name (np.load reads such a file once ml_dtypes is imported), and every
  // element takes one byte, as in an ml_dtypes array. Floats hold their bit
  // pattern; the 4- and 2-bit kinds hold it in the low bits with the high bits
  // clear (int4 -1 is 0x0f), see `getDTypeBits`.
  F8E4M3FN,   ///< `'float8_e4m3fn'`; MLIR f8E4M3FN.
  F8E4M3FNUZ, ///< `'float8_e4m3fnuz'`; MLIR f8E4M3FNUZ.
  F8E5M2,     ///< `'float8_e5m2'`; MLIR f8E5M2.
  F8E5M2FNUZ, ///< `'float8_e5m2fnuz'`; MLIR f8E5M2FNUZ.
  F8E8M0FNU,  ///< `'float8_e8m0fnu'`; MLIR f8E8M0FNU.
  F4E2M1FN,   ///< `'float4_e2m1fn'`; MLIR f4E2M1FN.
  I4,         ///< `'int4'`; MLIR i4.
  U4,         ///< `'uint4'`; MLIR i4 (or ui4).
  I2,         ///< `'int2'`; MLIR i2.
  U2,         ///< `'uint2'`; MLIR i2 (or ui2).
  /// Strings (MLIR `!ml_program.string`): NumPy's fixed-width unicode
  /// `'<U<n>'` in .npy files (n UTF-32LE code units per element, shorter
  /// strings padded with NULs, which numpy strips). In a HostTensor an
  /// element is a `const char *` to a NUL-terminated UTF-8 string that the
  /// tensor owns (`setString`) or that outlives it (results of compiled
  /// code: runtime-owned, include/mlprog-c/Strings.h); null reads as "".
  Str,
};

/// Number of value bits of `dtype` (8 * size, except 4 for F4E2M1FN/I4/U4
/// and 2 for I2/U2, whose elements are still one byte each).
unsigned getDTypeBits(DType dtype);

/// Size of one element of `dtype` in bytes (Bool is one byte).
size_t getDTypeSize(DType dtype);

/// Short name used in diagnostics: "bool", "i8", "u16", "f32", "bf16", ...
llvm::StringRef getDTypeName(DType dtype);

/// NumPy's name: "bool", "int8", "uint16", "float32", "bfloat16", ...
/// (ml_dtypes' name for bfloat16 and the 8-, 4- and 2-bit types).
llvm::StringRef getNumpyDTypeName(DType dtype);

/// The little-endian .npy `descr` of `dtype`, e.g. "<f4", "|b1", "bfloat16";
/// "<U" for Str (serializeNpy appends the width).
llvm::StringRef getNpyDescr(DType dtype);

/// Formats a shape the way diagnostics print it: "(1,3,224,224)", "(4,)",
/// "()".
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// A dense, C-ordered (row-major) tensor in host memory. Its constructors
/// allocate its bytes, aligned to `kAlignment` and zero-initialized; `wrap`
/// makes one over bytes allocated elsewhere (no alignment promised beyond
/// the element's). Movable, not copyable. A rank-0 tensor holds one element.
class HostTensor {
public:
  /// Alignment of the data pointer in bytes.
  static constexpr size_t kAlignment = 64;

  /// Creates a zero-filled tensor. Every dimension must be non-negative (the
  /// caller checks: use `create` for untrusted shapes).
  HostTensor(DType dtype, llvm::ArrayRef<int64_t> shape);

  /// Creates a zero-filled tensor, or an error if a dimension is negative,
  /// the byte size overflows int64 or exceeds `getMaxTensorBytes()`
  /// (mlprog/Support/ResourceLimits.h), before anything is allocated.
  static llvm::Expected<HostTensor> create(DType dtype,
                                           llvm::ArrayRef<int64_t> shape);

  /// A tensor over `shape`'s elements of `dtype` at `data` (C order),
  /// which it neither copies nor zero-fills: `owner` keeps those bytes alive
  /// for as long as the tensor (and its moves) live; a null `owner` makes a
  /// borrowed view whose bytes the caller keeps alive. Zero-copy calls use
  /// it: a caller's array bound as an input, a result buffer the compiled
  /// code allocated handed to the caller. Not for Str tensors (their
  /// strings live in the tensor).
  static HostTensor wrap(DType dtype, llvm::ArrayRef<int64_t> shape,
                         uint8_t *data, std::shared_ptr<void> owner);

  HostTensor(HostTensor &&) = default;
  HostTensor &operator=(HostTensor &&) = default;
  HostTensor(const HostTensor &) = delete;
  HostTensor &operator=(const HostTensor &) = delete;

  DType getDType() const { return dtype; }
  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  int64_t getRank() const { return shape.size(); }
  int64_t getNumElements() const { return numElements; }
  size_t getNumBytes() const { return numElements * getDTypeSize(dtype); }

  /// The first element's byte; never null, even for empty tensors.
  uint8_t *getData() { return data; }
  const uint8_t *getData() const { return data; }

  /// Element `index` of a Str tensor ("" for a null element).
  llvm::StringRef getString(int64_t index) const;
  /// Stores a copy of `value`, owned by this tensor, as element `index` of a
  /// Str tensor. `value` must not contain NUL bytes (they would end it).
  void setString(int64_t index, llvm::StringRef value);

  /// Views the data as `T` elements; `T` must have the dtype's size.
  template <typename T> llvm::MutableArrayRef<T> getValues() {
    return {reinterpret_cast<T *>(getData()), static_cast<size_t>(numElements)};
  }
  template <typename T> llvm::ArrayRef<T> getValues() const {
    return {reinterpret_cast<const T *>(getData()),
            static_cast<size_t>(numElements)};
  }

private:
  HostTensor(DType dtype, llvm::ArrayRef<int64_t> shape, uint8_t *data,
             std::shared_ptr<void> storage);

  DType dtype;
  llvm::SmallVector<int64_t, 4> shape;
  int64_t numElements;
  /// The first element's byte.
  uint8_t *data;
  /// Owns `data`'s bytes (null for a borrowed view, see `wrap`).
  std::shared_ptr<void> storage;
  /// The bytes of the strings `setString` stored (Str only).
  std::unique_ptr<llvm::BumpPtrAllocator> strings;
};

/// Clears the bits above `getDTypeBits` in every element of a 4- or 2-bit
/// tensor (compiled code may leave garbage there: LLVM stores an i4 as a
/// byte whose upper bits are unspecified); other dtypes are left alone.
void clearPaddingBits(HostTensor &tensor);

/// Parses the bytes of a .npy file. `name` (usually the file name) prefixes
/// every error. Accepts format versions 1.0, 2.0 and 3.0, byte orders '<',
/// '|' and '=' and the dtypes of `DType` (`<U<n>` strings are decoded from
/// UTF-32 to UTF-8 and owned by the tensor; a NUL inside a string, a code
/// point beyond U+10FFFF or a surrogate is an error; a 2-byte void is
/// bfloat16, see
/// `DType::BF16`; the ml_dtypes names for the 8-, 4- and 2-bit types; a
/// 1-byte void is refused, it could be any of them), C order only. Errors: bad
/// magic, unsupported version, malformed header, `fortran_order: True`,
/// big-endian
/// ('>') or unsupported dtypes, negative or overflowing shapes, and data
/// shorter than the shape needs. Trailing bytes are ignored, as numpy does.
llvm::Expected<HostTensor> parseNpy(llvm::StringRef bytes,
                                    llvm::StringRef name);

/// Reads the .npy file at `path` (see `parseNpy`); errors name the file.
llvm::Expected<HostTensor> readNpy(llvm::StringRef path);

/// Serializes `tensor` as a version 1.0 .npy file (2.0 if the header needs
/// more than 65535 bytes), little-endian, C order, header padded to 64 bytes.
/// A Str tensor is written as `<U<n>`, n the longest element's length in
/// code points (at least 1), as numpy does; bytes that are not UTF-8 are
/// written as U+FFFD.
std::string serializeNpy(const HostTensor &tensor);

/// Writes `tensor` to `path` atomically (temporary file, then rename).
/// Errors name the file.
llvm::Error writeNpy(llvm::StringRef path, const HostTensor &tensor);

/// Prints `tensor` numpy-style: nested brackets, floats with %g, booleans
/// as True/False, strings quoted ('monday'). Dimensions longer than
/// 2*`edgeItems` are elided with
/// "..." when the tensor has more than `threshold` elements.
void printTensor(llvm::raw_ostream &os, const HostTensor &tensor,
                 int64_t edgeItems = 3, int64_t threshold = 1000);

} // namespace mlprog

#endif // MLPROG_FORMATS_NPY_H
