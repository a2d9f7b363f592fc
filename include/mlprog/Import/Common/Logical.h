//===- Logical.h - Comparison, logical, select and cast builders -*- C++
//-*-===//
//
// Format-independent builders for comparisons (to i1), boolean logic,
// elementwise selection and element type conversion, emitted as
// broadcasting linalg.generic ops (see buildBroadcastedGeneric).
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_LOGICAL_H
#define MLPROG_IMPORT_COMMON_LOGICAL_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlprog {

/// Elementwise comparisons.
enum class CompareKind {
  Equal,
  NotEqual,
  Less,
  LessEqual,
  Greater,
  GreaterEqual
};

/// `lhs <kind> rhs` with numpy broadcasting, giving an i1 tensor. Operands
/// share one float or signless integer (i1 included) element type; floats
/// compare ordered (any NaN gives false) except NotEqual (unordered, NaN
/// gives true); `isUnsigned` compares integers as unsigned.
/// Spec: MIL equal/not_equal/less/less_equal/greater/greater_equal; ONNX
/// Equal/Less/Greater/...; aten::eq/lt/gt/...
mlir::FailureOr<mlir::Value> buildCompare(mlir::OpBuilder &b,
                                          mlir::Location loc, CompareKind kind,
                                          mlir::Value lhs, mlir::Value rhs,
                                          bool isUnsigned = false);

/// Elementwise boolean operators.
enum class LogicalKind { And, Or, Xor };

/// `lhs <kind> rhs` on i1 tensors with numpy broadcasting.
/// Spec: MIL logical_and/or/xor; ONNX And/Or/Xor.
mlir::FailureOr<mlir::Value> buildLogical(mlir::OpBuilder &b,
                                          mlir::Location loc, LogicalKind kind,
                                          mlir::Value lhs, mlir::Value rhs);

/// `not x` on an i1 tensor.
/// Spec: MIL logical_not; ONNX Not.
mlir::FailureOr<mlir::Value> buildLogicalNot(mlir::OpBuilder &b,
                                             mlir::Location loc, mlir::Value x);

/// `cond ? a : b` elementwise with numpy broadcasting of all three; `cond`
/// has i1 elements, `a` and `b` one element type.
/// Spec: MIL select; ONNX Where; aten::where.
mlir::FailureOr<mlir::Value> buildSelect(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value cond, mlir::Value a,
                                         mlir::Value bv);

/// Converts the elements of `x` to `elementType` (float, signless integer
/// or i1). Float -> integer truncates toward zero (fptosi/fptoui); integer
/// -> float is exact or rounds to nearest; integer widths extend (sign or
/// zero, by `srcUnsigned`) or truncate; anything -> i1 is `x != 0`; i1 ->
/// number is 0 or 1.
/// Spec: MIL cast; ONNX Cast (non-string types); aten::to(dtype).
mlir::FailureOr<mlir::Value> buildCast(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value x, mlir::Type elementType,
                                       bool srcUnsigned = false,
                                       bool dstUnsigned = false);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_LOGICAL_H
