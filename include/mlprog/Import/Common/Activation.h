//===- Activation.h - Activation and extra elementwise builders -*- C++ -*-===//
//
// Format-independent builders for activation functions and elementwise ops
// beyond Elementwise.h, emitted as broadcasting linalg.generic ops (see
// buildBroadcastedGeneric) on float tensors unless stated otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_ACTIVATION_H
#define MLPROG_IMPORT_COMMON_ACTIVATION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlprog {

/// How GELU is computed.
enum class GeluApproximation {
  /// 0.5 x (1 + erf(x / sqrt(2))).
  None,
  /// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
  Tanh,
  /// x sigmoid(1.702 x).
  Sigmoid,
};

/// GELU of float `x`, same shape and type.
/// Spec: Core ML MIL gelu (mode EXACT / TANH_APPROXIMATION /
/// SIGMOID_APPROXIMATION); aten::gelu (approximate = none / tanh).
mlir::FailureOr<mlir::Value> buildGelu(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value x,
                                       GeluApproximation approximation);

/// Unary float activations with no parameter.
enum class ActivationKind {
  /// x * sigmoid(x).
  Silu,
  /// log(1 + exp(x)), computed as max(x, 0) + log1p(exp(-|x|)).
  Softplus,
  /// 1 / sqrt(x).
  Rsqrt,
  Floor,
  Ceil,
  /// Round half to even.
  Round,
  /// Sign: -1, 0 or 1.
  Sign,
  Sin,
  Cos,
};

/// `kind(x)` elementwise on float `x`, same shape and type.
/// Spec: MIL silu/softplus/rsqrt/floor/ceil/round/sign/sin/cos;
/// aten::silu/softplus(beta=1)/rsqrt/floor/ceil/round/sign/sin/cos.
mlir::FailureOr<mlir::Value> buildActivation(mlir::OpBuilder &b,
                                             mlir::Location loc,
                                             ActivationKind kind,
                                             mlir::Value x);

/// `x >= 0 ? x : alpha * x` on float `x`.
/// Spec: MIL leaky_relu; ONNX LeakyRelu; aten::leaky_relu.
mlir::FailureOr<mlir::Value> buildLeakyRelu(mlir::OpBuilder &b,
                                            mlir::Location loc, mlir::Value x,
                                            double alpha);

/// `min(max(x, lo), hi)` on a float or signless integer tensor; NaN
/// propagates. Either bound may be absent.
/// Spec: MIL clip / relu6 (lo 0, hi 6); ONNX Clip; aten::clamp.
mlir::FailureOr<mlir::Value> buildClip(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value x, std::optional<double> lo,
                                       std::optional<double> hi);

/// `x + c` elementwise for a scalar `c` (float `x`), e.g. the epsilon MIL
/// adds inside log and rsqrt.
mlir::FailureOr<mlir::Value>
buildAddScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, double c);

/// `floor(x / y)` with numpy broadcasting; for signless integers the
/// quotient is rounded toward negative infinity (Python `//`).
/// Errors: mismatched element types, non-numeric elements.
/// Spec: MIL floor_div; numpy.floor_divide; aten::floor_divide.
mlir::FailureOr<mlir::Value> buildFloorDiv(mlir::OpBuilder &b,
                                           mlir::Location loc, mlir::Value x,
                                           mlir::Value y);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_ACTIVATION_H
