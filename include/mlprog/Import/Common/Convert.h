//===- Convert.h - Element type conversion builders -------------*- C++ -*-===//
//
// Format-independent element type conversions of scalars and ranked tensors
// (arith casts; a tensor cast is an elementwise linalg.generic).
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_CONVERT_H
#define MLPROG_IMPORT_COMMON_CONVERT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlprog {

/// Converts the scalar `x` (float, signless integer or i1) to `to` (same
/// kinds): float<->float extends/truncates (round to nearest; f16<->bf16
/// through f32), int->float is signed (unsigned with `srcUnsigned`, always
/// from i1) and exact or rounds to nearest, float->int truncates toward zero
/// (fptosi, fptoui with `dstUnsigned`), int->int sign-extends (zero-extends
/// with `srcUnsigned` or from i1) or truncates, and anything -> i1 is
/// `x != 0`. Returns `x` when the types match, null for other types.
/// Spec: C++/numpy conversion (aten::to, ONNX Cast, MIL cast).
mlir::Value buildConvertScalar(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value x, mlir::Type to,
                               bool srcUnsigned = false,
                               bool dstUnsigned = false);

/// Converts every element of the ranked tensor `x` to `elementType` as
/// buildConvertScalar does; returns `x` unchanged when the types match.
/// `srcUnsigned`/`dstUnsigned` give the signedness of signless integer
/// source/destination elements (ONNX uint8 and friends).
/// Errors: unranked tensors, element types other than float and signless
/// integer (i1 included).
/// Spec: MIL cast; ONNX Cast (non-string types); aten::to(dtype).
mlir::FailureOr<mlir::Value>
buildConvertElementType(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                        mlir::Type elementType, bool srcUnsigned = false,
                        bool dstUnsigned = false);

/// Converts the float tensor `x` to bfloat16 by truncating the f32 value
/// (the low 16 bits are dropped: round toward zero; other float types go
/// through f32 first); NaNs stay (quiet) NaNs. This is the rounding of the
/// ONNX 1.12 backend test data (numpy `float32 >> 16`) and of onnxruntime
/// before 1.15; arith.truncf (buildConvertScalar, buildCast) rounds to
/// nearest even instead.
/// Errors: non-float element types.
/// Spec: ONNX Cast to BFLOAT16 (opset 13+, rounding unspecified).
mlir::FailureOr<mlir::Value>
buildTruncateToBF16(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_CONVERT_H
