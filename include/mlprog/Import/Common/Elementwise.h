//===- Elementwise.h - Broadcasting elementwise tensor ops ------*- C++ -*-===//
//
// Format-independent builders for elementwise ops on ranked tensors, emitted
// as `linalg.generic` so that upstream elementwise fusion applies. Importers
// (ONNX, TorchScript, MIL) call these; an op's semantics live only here.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_ELEMENTWISE_H
#define MLPROG_IMPORT_COMMON_ELEMENTWISE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlprog {

/// Computes one result element from the (scalar) operand elements.
using ScalarBodyFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// Builds a `linalg.generic` over the numpy-style broadcast of `operands`
/// (ranked tensors of any rank, aligned at the trailing dimension; a static
/// extent 1 stretches to the other extent). A dynamic extent is assumed, not
/// checked, to equal the result extent. The result has `resultElementType`;
/// `body` computes one element from the operand elements.
///
/// Errors: unranked operands, or static extents that differ and are not 1.
/// Spec: numpy broadcasting, ONNX "Broadcasting in ONNX" (multidirectional).
mlir::FailureOr<mlir::Value>
buildBroadcastedGeneric(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::ValueRange operands, mlir::Type resultElementType,
                        ScalarBodyFn body);

/// Elementwise binary arithmetic.
enum class BinaryOpKind { Add, Sub, Mul, Div, Max, Min, Pow };

/// Returns `lhs <kind> rhs` with numpy broadcasting (see
/// buildBroadcastedGeneric). Both operands need the same element type: float
/// (any width) or signless integer; `isUnsigned` picks unsigned integer
/// division/max/min. Integer division truncates toward zero (C semantics, as
/// onnxruntime). `Pow` is float only.
/// Spec: ONNX Add/Sub/Mul/Div/Max/Min/Pow (opset 7+ broadcasting).
mlir::FailureOr<mlir::Value>
buildElementwiseBinary(mlir::OpBuilder &b, mlir::Location loc,
                       BinaryOpKind kind, mlir::Value lhs, mlir::Value rhs,
                       bool isUnsigned = false);

/// Elementwise unary functions.
enum class UnaryOpKind { Relu, Sigmoid, Tanh, Exp, Log, Neg, Abs, Sqrt, Erf };

/// Returns `kind(x)` elementwise, same shape and element type as `x`.
/// Relu, Neg and Abs accept float and signless integer tensors; the others
/// are float only. Sigmoid is `1 / (1 + exp(-x))`.
/// Spec: ONNX Relu/Sigmoid/Tanh/Exp/Log/Neg/Abs/Sqrt/Erf.
mlir::FailureOr<mlir::Value> buildElementwiseUnary(mlir::OpBuilder &b,
                                                   mlir::Location loc,
                                                   UnaryOpKind kind,
                                                   mlir::Value x);

/// Batch normalization in inference mode:
/// `y = scale * (x - mean) / sqrt(var + epsilon) + bias`, where `x` is
/// [N, C, D1, ...] (rank >= 2, float) and scale/bias/mean/var are [C] of the
/// same element type, broadcast along dimension 1.
/// Spec: ONNX BatchNormalization (training_mode = 0).
mlir::FailureOr<mlir::Value>
buildBatchNormInference(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                        mlir::Value scale, mlir::Value bias, mlir::Value mean,
                        mlir::Value var, double epsilon);

/// Materializes `value` as an `arith.constant` tensor.
/// Spec: ONNX Constant; aten::tensor constants.
mlir::Value buildConstant(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::DenseElementsAttr value);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_ELEMENTWISE_H
