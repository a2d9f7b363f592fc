//===- Logic.h - Comparisons, boolean logic and select ----------*- C++ -*-===//

//
// Format-independent builders for comparisons (to i1), boolean logic and
// elementwise selection, emitted as broadcasting linalg.generic ops (see
// buildBroadcastedGeneric). Element type conversions are in Elementwise.h.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_LOGIC_H
#define MLPROG_IMPORT_COMMON_LOGIC_H

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
/// gives true); `isUnsigned` compares integers as unsigned. i1 (bool) always
/// compares unsigned, false < true, as numpy, PyTorch and onnxruntime order
/// booleans (signed i1 would read true as -1). Strings compare for
/// Equal/NotEqual only, as buildStringEqual (Strings.h).
/// Errors: unranked operands, differing or non-numeric element types,
/// shapes that do not broadcast.
/// Spec: MIL equal/not_equal/less/less_equal/greater/greater_equal; ONNX
/// Equal/Less/Greater/LessOrEqual/GreaterOrEqual;
/// aten::eq/ne/lt/le/gt/ge.Tensor.
mlir::FailureOr<mlir::Value> buildCompare(mlir::OpBuilder &b,
                                          mlir::Location loc, CompareKind kind,
                                          mlir::Value lhs, mlir::Value rhs,
                                          bool isUnsigned = false);

/// The scalar comparison of buildCompare on two scalars `lhs`, `rhs` of one
/// float or signless integer type (i1 compares unsigned); returns an i1.
/// Spec: TorchScript aten::eq/ne/lt/le/gt/ge on int, float and bool scalars.
mlir::Value buildScalarCompare(mlir::OpBuilder &b, mlir::Location loc,
                               CompareKind kind, mlir::Value lhs,
                               mlir::Value rhs, bool isUnsigned = false);

/// Elementwise boolean operators.
enum class LogicalKind { And, Or, Xor };

/// `lhs <kind> rhs` on i1 tensors with numpy broadcasting.
/// Errors: operands that are not ranked i1 tensors, shapes that do not
/// broadcast.
/// Spec: MIL logical_and/or/xor; ONNX And/Or/Xor;
/// aten::logical_and/or/xor, __and__/__or__ on bool.
mlir::FailureOr<mlir::Value> buildLogical(mlir::OpBuilder &b,
                                          mlir::Location loc, LogicalKind kind,
                                          mlir::Value lhs, mlir::Value rhs);

/// `not x` on an i1 tensor. Errors: `x` not a ranked i1 tensor.
/// Spec: MIL logical_not; ONNX Not; aten::logical_not.
mlir::FailureOr<mlir::Value> buildLogicalNot(mlir::OpBuilder &b,
                                             mlir::Location loc, mlir::Value x);

/// `lhs <kind> rhs` bitwise on signless-integer tensors of one element type
/// (i1 included), numpy broadcasting; same element type.
/// Errors: non-integer or differing element types, shapes that do not
/// broadcast.
/// Spec: ONNX BitwiseAnd/BitwiseOr/BitwiseXor (opset 18); aten::bitwise_*.
mlir::FailureOr<mlir::Value> buildBitwise(mlir::OpBuilder &b,
                                          mlir::Location loc, LogicalKind kind,
                                          mlir::Value lhs, mlir::Value rhs);

/// The bitwise complement of a signless-integer tensor `x` (same type).
/// Errors: `x` not a ranked integer tensor.
/// Spec: ONNX BitwiseNot (opset 18); aten::bitwise_not.
mlir::FailureOr<mlir::Value> buildBitwiseNot(mlir::OpBuilder &b,
                                             mlir::Location loc, mlir::Value x);

/// `cond ? a : b` elementwise with numpy broadcasting of all three; `cond`
/// has i1 elements, `a` and `b` one element type.
/// Errors: a non-i1 condition, differing element types of `a` and `b`,
/// shapes that do not broadcast.
/// Spec: MIL select; ONNX Where; aten::where.self.
mlir::FailureOr<mlir::Value> buildSelect(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value cond, mlir::Value a,
                                         mlir::Value bv);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_LOGIC_H
