//===- ElementwiseMath.h - More elementwise math and logic ------*- C++ -*-===//
//
// Format-independent builders for elementwise functions not covered by
// Elementwise.h and Pointwise.h: inverse and hyperbolic
// trigonometry, float classification, remainders, bit shifts, mixed-type
// power, parametric activations and clipping by tensor bounds. All emit
// broadcasting linalg.generic ops (see buildBroadcastedGeneric).
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_ELEMENTWISEMATH_H
#define MLPROG_IMPORT_COMMON_ELEMENTWISEMATH_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlprog {

/// Unary float functions that map onto one `math` dialect op.
enum class MathFunctionKind {
  Tan,
  Asin,
  Acos,
  Atan,
  Sinh,
  Cosh,
  Asinh,
  Acosh,
  Atanh,
};

/// `kind(x)` elementwise on a float tensor `x`, same shape and type.
/// Errors: non-float element types.
/// Spec: ONNX Tan/Asin/Acos/Atan/Sinh/Cosh/Asinh/Acosh/Atanh; aten ops of the
/// same names.
mlir::FailureOr<mlir::Value> buildMathFunction(mlir::OpBuilder &b,
                                               mlir::Location loc,
                                               MathFunctionKind kind,
                                               mlir::Value x);

/// i1 tensor, true where float `x` is NaN.
/// Spec: ONNX IsNaN; aten::isnan.
mlir::FailureOr<mlir::Value> buildIsNaN(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::Value x);

/// i1 tensor, true where float `x` is +inf (if `detectPositive`) or -inf (if
/// `detectNegative`).
/// Spec: ONNX IsInf (detect_positive, detect_negative); aten::isinf.
mlir::FailureOr<mlir::Value> buildIsInf(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::Value x, bool detectPositive,
                                        bool detectNegative);

/// Remainder of `lhs / rhs` with numpy broadcasting, operands of one float
/// or signless integer type. With `truncated` (C fmod) the result has the
/// sign of the dividend; otherwise (Python `%`, integers only in ONNX) it has
/// the sign of the divisor. `isUnsigned` treats integers as unsigned (both
/// conventions then agree). Integer division by zero is undefined, as in C.
/// Errors: mismatched or non-numeric element types.
/// Spec: ONNX Mod (fmod = 1: truncated; fmod = 0: floored); numpy.fmod,
/// numpy.mod.
mlir::FailureOr<mlir::Value> buildRemainder(mlir::OpBuilder &b,
                                            mlir::Location loc, mlir::Value lhs,
                                            mlir::Value rhs, bool truncated,
                                            bool isUnsigned);

/// `lhs << rhs` (`left`) or logical `lhs >> rhs` on unsigned integers held
/// in signless integer tensors of one type, numpy broadcasting. Shift
/// amounts >= the bit width give 0.
/// Spec: ONNX BitShift (direction LEFT/RIGHT).
mlir::FailureOr<mlir::Value> buildBitShift(mlir::OpBuilder &b,
                                           mlir::Location loc, mlir::Value lhs,
                                           mlir::Value rhs, bool left);

/// `base ^ exponent` with numpy broadcasting where the element types may
/// differ: float base: the exponent is converted to the base type (signed,
/// or unsigned with `exponentUnsigned`) and math.powf is used; integer
/// base: computed in f64 and truncated back to the base type (as
/// onnxruntime does). The result has the base's element type.
/// Errors: non-numeric element types.
/// Spec: ONNX Pow (opset 12+, T and T1 independent).
mlir::FailureOr<mlir::Value>
buildPowMixed(mlir::OpBuilder &b, mlir::Location loc, mlir::Value base,
              mlir::Value exponent, bool baseUnsigned, bool exponentUnsigned);

/// Float activations with up to two scalar parameters.
enum class ParamActivationKind {
  /// max(0, min(1, alpha * x + beta)).
  HardSigmoid,
  /// x > alpha ? x : 0.
  ThresholdedRelu,
  /// x < -alpha ? x + beta : (x > alpha ? x - beta : 0) (alpha = lambd,
  /// beta = bias).
  Shrink,
  /// max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).
  Celu,
  /// x * hard_sigmoid(x) with alpha = 1/6, beta = 0.5 (parameters ignored).
  HardSwish,
};

/// `kind(x; alpha, beta)` elementwise on a float tensor, same type.
/// Errors: non-float element types.
/// Spec: ONNX HardSigmoid/ThresholdedRelu/Shrink/Celu/HardSwish.
mlir::FailureOr<mlir::Value> buildParamActivation(mlir::OpBuilder &b,
                                                  mlir::Location loc,
                                                  ParamActivationKind kind,
                                                  mlir::Value x, double alpha,
                                                  double beta = 0.0);

/// `x < 0 ? slope * x : x` with `slope` broadcast numpy-style to `x` (result
/// has x's shape when slope is unidirectionally broadcastable), float or
/// signed integer of one element type.
/// Spec: ONNX PRelu (opset 7+); aten::prelu.
mlir::FailureOr<mlir::Value> buildPRelu(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::Value x, mlir::Value slope);

/// `min(max(x, lo), hi)` where `lo` and `hi` are tensors (null: no bound)
/// broadcast numpy-style against `x`, all of one element type (float or
/// signless integer, compared unsigned with `isUnsigned`). A NaN in `x`
/// stays NaN.
/// Spec: ONNX Clip (opset 11+: min and max as inputs).
mlir::FailureOr<mlir::Value> buildClipTensor(mlir::OpBuilder &b,
                                             mlir::Location loc, mlir::Value x,
                                             mlir::Value lo, mlir::Value hi,
                                             bool isUnsigned = false);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_ELEMENTWISEMATH_H
