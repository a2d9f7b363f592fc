//===- Predicate.h - Comparison, logical and select builders ----*- C++ -*-===//
//
// Format-independent builders for elementwise comparisons, boolean logic and
// `where` on ranked tensors with numpy broadcasting (linalg.generic).
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_PREDICATE_H
#define MLPROG_IMPORT_COMMON_PREDICATE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlprog {

/// Elementwise comparisons.
enum class ComparisonKind { Eq, Ne, Lt, Le, Gt, Ge };

/// Returns the i1 tensor `lhs <kind> rhs` with numpy broadcasting. Both
/// operands need one element type (float: ordered compare, except Ne which
/// is true for NaN; integer: signed, or unsigned with `isUnsigned`).
/// Spec: ONNX Equal/Less/Greater/...; aten::eq/ne/lt/le/gt/ge.
mlir::FailureOr<mlir::Value>
buildComparison(mlir::OpBuilder &b, mlir::Location loc, ComparisonKind kind,
                mlir::Value lhs, mlir::Value rhs, bool isUnsigned = false);

/// Emits the scalar comparison of buildComparison on two scalars of one type.
mlir::Value buildScalarComparison(mlir::OpBuilder &b, mlir::Location loc,
                                  ComparisonKind kind, mlir::Value lhs,
                                  mlir::Value rhs, bool isUnsigned = false);

/// Boolean binary logic.
enum class BoolOpKind { And, Or, Xor };

/// Elementwise boolean logic on i1 tensors, numpy broadcasting.
/// Spec: ONNX And/Or/Xor; aten::logical_and/or/xor, __and__/__or__ on bool.
mlir::FailureOr<mlir::Value> buildBoolOp(mlir::OpBuilder &b, mlir::Location loc,
                                         BoolOpKind kind, mlir::Value lhs,
                                         mlir::Value rhs);

/// Elementwise `not` of an i1 tensor.
/// Spec: ONNX Not; aten::logical_not.
mlir::FailureOr<mlir::Value> buildBoolNot(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value x);

/// `cond ? a : b` elementwise with three-way numpy broadcasting; `cond` is
/// an i1 tensor, `a` and `b` share one element type.
/// Spec: ONNX Where; aten::where.self.
mlir::FailureOr<mlir::Value> buildWhere(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::Value cond, mlir::Value a,
                                        mlir::Value bv);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_PREDICATE_H
