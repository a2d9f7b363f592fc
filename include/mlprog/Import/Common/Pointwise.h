//===- Pointwise.h - Activations and other pointwise functions --*- C++ -*-===//
//
// Format-independent builders for pointwise functions beyond the basic
// arithmetic of Elementwise.h: activations, rounding, trigonometry, clamping
// and integer-style division, emitted as linalg.generic.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_POINTWISE_H
#define MLPROG_IMPORT_COMMON_POINTWISE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlprog {

/// Parameterless pointwise functions of float tensors.
enum class PointwiseKind {
  Rsqrt,      ///< 1 / sqrt(x)
  Reciprocal, ///< 1 / x
  Floor,      ///< round toward -inf
  Ceil,       ///< round toward +inf
  Round,      ///< round half to even (torch.round, numpy.round)
  Sin,
  Cos,
  Sign,        ///< -1, 0 or 1 (0 for NaN-free zero)
  Gelu,        ///< x * 0.5 * (1 + erf(x / sqrt(2)))
  GeluTanh,    ///< 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3)))
  Silu,        ///< x * sigmoid(x)
  Hardswish,   ///< x * relu6(x + 3) / 6
  Hardsigmoid, ///< relu6(x + 3) / 6
  Mish,        ///< x * tanh(softplus(x))
  Log1p,       ///< log(1 + x)
  Expm1,       ///< exp(x) - 1
  Log2,
  Log10,
  Softsign, ///< x / (1 + |x|)
};

/// Returns `kind(x)` elementwise for a float tensor `x` (same type).
/// Errors: non-float element types.
/// Spec: the aten op of the same name (torch.nn.functional for activations).
mlir::FailureOr<mlir::Value> buildPointwise(mlir::OpBuilder &b,
                                            mlir::Location loc,
                                            PointwiseKind kind, mlir::Value x);

/// `min(max(x, lo), hi)` elementwise; either bound may be absent. For float
/// tensors a NaN input stays NaN; integer tensors compare signed and the
/// bounds are truncated to integers.
/// Spec: aten::clamp, hardtanh, relu6; ONNX Clip.
mlir::FailureOr<mlir::Value> buildClamp(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::Value x, std::optional<double> lo,
                                        std::optional<double> hi);

/// `x > 0 ? x : slope * x` for a float tensor.
/// Spec: aten::leaky_relu; ONNX LeakyRelu.
mlir::FailureOr<mlir::Value> buildLeakyReluSlope(mlir::OpBuilder &b,
                                                 mlir::Location loc,
                                                 mlir::Value x, double slope);

/// `x > 0 ? scale * x : scale * alpha * (exp(x * inputScale) - 1)`.
/// Spec: aten::elu (scale = inputScale = 1), selu; ONNX Elu/Selu.
mlir::FailureOr<mlir::Value> buildElu(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value x, double alpha,
                                      double scale = 1.0,
                                      double inputScale = 1.0);

/// `beta * x > threshold ? x : log(1 + exp(beta * x)) / beta`.
/// Spec: aten::softplus; ONNX Softplus (beta = 1, threshold = inf).
mlir::FailureOr<mlir::Value> buildSoftplus(mlir::OpBuilder &b,
                                           mlir::Location loc, mlir::Value x,
                                           double beta, double threshold);

/// Python-style division and remainder with numpy broadcasting, operands of
/// one element type. `FloorDivide` rounds the quotient toward -inf;
/// `Remainder` has the sign of the divisor (`a - floor(a / b) * b`);
/// `TruncDivide` rounds toward zero (float: trunc(a / b)). Integer division
/// by zero is undefined behaviour, as in C.
enum class DivisionKind { FloorDivide, Remainder, TruncDivide };

/// Spec: aten::floor_divide, aten::div(rounding_mode='floor'/'trunc'),
/// aten::remainder; Python `//` and `%`.
mlir::FailureOr<mlir::Value> buildDivision(mlir::OpBuilder &b,
                                           mlir::Location loc,
                                           DivisionKind kind, mlir::Value lhs,
                                           mlir::Value rhs);

/// The scalar operation of buildDivision on two scalars of one type.
mlir::Value buildScalarDivision(mlir::OpBuilder &b, mlir::Location loc,
                                DivisionKind kind, mlir::Value lhs,
                                mlir::Value rhs);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_POINTWISE_H
