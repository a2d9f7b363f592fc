//===- Strings.h - String tensors --------------------------------*- C++
//-*-===//
//
// Format-independent builders for tensors of `!ml_program.string`: string
// literals, casts between strings and numbers, and normalization. Each
// applies the scalar ml_program string ops elementwise (linalg.generic);
// --convert-ml-program-strings-to-llvm lowers those to the C runtime
// (docs/strings.md).
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_STRINGS_H
#define MLPROG_IMPORT_COMMON_STRINGS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlprog {

/// Whether `type` is `!ml_program.string` or a shaped type of them.
bool isStringType(mlir::Type type);

/// A tensor of `shape` holding the UTF-8 strings `values` in C order (one
/// per element), built with tensor.from_elements of
/// `ml_program.string_constant`s.
/// Errors: a value holding a NUL byte, a count that does not match `shape`.
/// Spec: ONNX TensorProto.string_data (string initializers and constants).
mlir::FailureOr<mlir::Value>
buildStringTensor(mlir::OpBuilder &b, mlir::Location loc,
                  llvm::ArrayRef<int64_t> shape,
                  llvm::ArrayRef<std::string> values);

/// Converts every element of the ranked tensor `x` between strings and
/// numbers: number -> string formats as `ml_program.string_from_number`
/// (numpy's `str`; floats other than f16/bf16/f32/f64 format as their f32
/// value, integers other than i1/i8/i16/i32/i64 as their i64 value), string
/// -> number parses as `ml_program.string_to_number` and converts to
/// `elementType` as buildConvertScalar does. `srcUnsigned`/`dstUnsigned`:
/// signless integers that are unsigned. Exactly one of the two element types
/// is `!ml_program.string`; string -> string returns `x`.
/// Errors: unranked tensors, a number type that is neither float nor signless
/// integer.
/// Spec: ONNX Cast / CastLike to and from STRING (opset 9+).
mlir::FailureOr<mlir::Value> buildStringCast(mlir::OpBuilder &b,
                                             mlir::Location loc, mlir::Value x,
                                             mlir::Type elementType,
                                             bool srcUnsigned = false,
                                             bool dstUnsigned = false);

/// `lhs == rhs` (or `!=` when `negate`) on string tensors with numpy
/// broadcasting, giving an i1 tensor: byte equality of the UTF-8 texts.
/// Errors: operands that are not ranked string tensors, shapes that do not
/// broadcast.
/// Spec: ONNX Equal (opset 19+, string inputs); numpy `==` on str arrays.
mlir::FailureOr<mlir::Value> buildStringEqual(mlir::OpBuilder &b,
                                              mlir::Location loc,
                                              mlir::Value lhs, mlir::Value rhs,
                                              bool negate = false);

/// `lhs + rhs` on string tensors with numpy broadcasting: each result
/// element is the concatenation of the two texts.
/// Errors: operands that are not ranked string tensors, shapes that do not
/// broadcast.
/// Spec: ONNX StringConcat (opset 20); numpy.char.add.
mlir::FailureOr<mlir::Value> buildStringConcat(mlir::OpBuilder &b,
                                               mlir::Location loc,
                                               mlir::Value lhs,
                                               mlir::Value rhs);

/// Python's `str.split(delimiter or None, maxsplit)` of every element of the
/// string tensor `x` (shape [D...]): returns the parts, padded with "" to the
/// largest count M ([D..., M], M dynamic; 0 when `x` is empty), and the
/// number of parts of each element (i64, [D...]). An empty `delimiter`
/// splits at runs of white space and ignores leading and trailing white
/// space; a negative `maxsplit` is unlimited.
/// Errors: `x` not a ranked string tensor, a delimiter holding NUL.
/// Spec: ONNX StringSplit (opset 20).
mlir::FailureOr<std::pair<mlir::Value, mlir::Value>>
buildStringSplit(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                 llvm::StringRef delimiter, int64_t maxsplit);

/// What StringNormalizer does to the case of the strings it keeps.
enum class StringCaseChange { None, Lower, Upper };

/// ONNX StringNormalizer: `x`, strings of shape [C] or [1, C], without the
/// elements equal to one of `stopwords` (compared after lowering both sides
/// when not `caseSensitive`), then lowered or uppered as `caseChange` says.
/// The result has shape [C'] or [1, C'] with C' dynamic when there are
/// stopwords; when nothing is left it is [""] (shape [1] or [1, 1]), as the
/// spec requires. Case mapping is the runtime's Unicode simple mapping
/// (locale independent; see ml_program.string_lower).
/// Errors: `x` not a ranked string tensor of shape [C] or [1, C].
/// Spec: ONNX StringNormalizer (opset 10).
mlir::FailureOr<mlir::Value>
buildStringNormalize(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                     StringCaseChange caseChange, bool caseSensitive,
                     llvm::ArrayRef<std::string> stopwords);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_STRINGS_H
