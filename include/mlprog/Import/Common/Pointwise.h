//===- Pointwise.h - Activations and other pointwise functions --*- C++ -*-===//
//
// Format-independent builders for pointwise functions beyond the basic
// arithmetic of Elementwise.h: activations, rounding, trigonometry, clamping
// and Python-style division, emitted as linalg.generic.
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
  Softsign,    ///< x / (1 + |x|)
  Softplus,    ///< log(1 + exp(x)), as max(x, 0) + log1p(exp(-|x|))
  GeluSigmoid, ///< x * sigmoid(1.702 x)
};

/// Returns `kind(x)` elementwise for a float tensor `x` (same type).
/// Errors: unranked or non-float tensors.
/// Spec: the aten op of the same name (torch.nn.functional for activations,
/// aten::gelu approximate = none / tanh); MIL rsqrt/floor/ceil/round/sign/
/// sin/cos/silu/softplus and gelu (EXACT / TANH_APPROXIMATION /
/// SIGMOID_APPROXIMATION); ONNX Softplus/Softsign/Sin/Cos/Floor/Ceil/Round/
/// Sign/Reciprocal/HardSwish/Mish/Gelu.
mlir::FailureOr<mlir::Value> buildPointwise(mlir::OpBuilder &b,
                                            mlir::Location loc,
                                            PointwiseKind kind, mlir::Value x);

/// `min(max(x, lo), hi)` elementwise; either bound may be absent. For float
/// tensors a NaN input stays NaN; signless integer tensors compare signed
/// and the bounds are truncated to integers.
/// Errors: unranked or non-numeric tensors.
/// Spec: aten::clamp, hardtanh, relu6; ONNX Clip (constant bounds); MIL clip
/// and relu6 (lo 0, hi 6).
mlir::FailureOr<mlir::Value> buildClamp(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::Value x, std::optional<double> lo,
                                        std::optional<double> hi);

/// `x >= 0 ? x : alpha * x` for a float tensor.
/// Errors: unranked or non-float tensors.
/// Spec: aten::leaky_relu; ONNX LeakyRelu; MIL leaky_relu.
mlir::FailureOr<mlir::Value> buildLeakyRelu(mlir::OpBuilder &b,
                                            mlir::Location loc, mlir::Value x,
                                            double alpha);

/// `x + c` elementwise for a scalar `c` on a float tensor, e.g. the epsilon
/// MIL adds inside log and rsqrt. Errors: unranked or non-float tensors.
mlir::FailureOr<mlir::Value>
buildAddScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, double c);

/// `x > 0 ? scale * x : scale * alpha * (exp(x * inputScale) - 1)`.
/// Spec: aten::elu (scale = inputScale = 1), selu; ONNX Elu/Selu.
mlir::FailureOr<mlir::Value> buildElu(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value x, double alpha,
                                      double scale = 1.0,
                                      double inputScale = 1.0);

/// `beta * x > threshold ? x : log(1 + exp(beta * x)) / beta`, the log
/// computed as PointwiseKind::Softplus does. Errors: non-float tensors.
/// Spec: aten::softplus (PointwiseKind::Softplus is beta = 1, threshold =
/// inf, as ONNX Softplus).
mlir::FailureOr<mlir::Value> buildSoftplus(mlir::OpBuilder &b,
                                           mlir::Location loc, mlir::Value x,
                                           double beta, double threshold);

/// Python-style division and remainder with numpy broadcasting, operands of
/// one element type. `FloorDivide` rounds the quotient toward -inf;
/// `Remainder` has the sign of the divisor (`a - floor(a / b) * b`);
/// `TruncDivide` rounds toward zero (float: trunc(a / b)). Integer division
/// by zero is undefined behaviour, as in C.
enum class DivisionKind { FloorDivide, Remainder, TruncDivide };

/// Errors: differing or non-numeric element types, shapes that do not
/// broadcast.
/// Spec: aten::floor_divide, aten::div(rounding_mode='floor'/'trunc'),
/// aten::remainder; Python `//` and `%`; MIL floor_div.
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
