//===- Elementwise.h - Elementwise arithmetic, math and casts ---*- C++ -*-===//
//
// Format-independent builders for elementwise ops on ranked tensors, emitted
// as broadcasting `linalg.generic` ops (buildBroadcastedGeneric) so that
// upstream elementwise fusion applies: arithmetic, unary math, activations,
// rounding, Python-style division, remainders, bit shifts, clipping and
// element type conversion. Importers (ONNX, TorchScript, MIL) call these; an
// op's semantics live only here.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_ELEMENTWISE_H
#define MLPROG_IMPORT_COMMON_ELEMENTWISE_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

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
enum class BinaryOpKind { Add, Sub, Mul, Div, Max, Min, Pow, Atan2 };

/// Returns `lhs <kind> rhs` with numpy broadcasting (see
/// buildBroadcastedGeneric). Both operands need the same element type: float
/// (any width) or signless integer; `isUnsigned` picks unsigned integer
/// division/max/min. Integer division truncates toward zero (C semantics, as
/// onnxruntime). `Pow` and `Atan2` (the angle of (rhs, lhs) in (-pi, pi], C
/// atan2(lhs, rhs)) are float only.
/// Spec: ONNX Add/Sub/Mul/Div/Max/Min/Pow (opset 7+ broadcasting); aten
/// atan2(Tensor self, Tensor other).
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

/// How a conversion into an 8- or 4-bit float (f8E4M3FN, f8E4M3FNUZ,
/// f8E5M2, f8E5M2FNUZ, f8E8M0FNU, f4E2M1FN) treats values out of range.
/// Spec: ONNX Cast-24/25 `saturate` and `round_mode`.
struct NarrowFloatCast {
  /// Clamp to the largest finite magnitude of the float8 type (infinities
  /// included; NaN stays NaN); without it, out-of-range values become
  /// infinity (f8E5M2) or NaN (the others). For f8E8M0FNU, keep finite
  /// values from rounding up to NaN (infinity still becomes NaN).
  /// f4E2M1FN always saturates.
  bool saturate = false;
  /// How an f32 exponent rounds into f8E8M0FNU: `upward` (ONNX "up", the
  /// default), `downward` ("down") or `to_nearest_even` ("nearest"). Other
  /// types always round to nearest even.
  mlir::arith::RoundingMode e8m0Rounding = mlir::arith::RoundingMode::upward;
};

/// Converts the scalar `x` (float, signless integer or i1) to `to` (same
/// kinds): float<->float extends/truncates (round to nearest; f16<->bf16
/// through f32), int->float is signed (unsigned with `srcUnsigned`, always
/// from i1) and exact or rounds to nearest, float->int truncates toward zero
/// (fptosi, fptoui with `dstUnsigned`), int->int sign-extends (zero-extends
/// with `srcUnsigned` or from i1) or truncates, and anything -> i1 is
/// `x != 0`. Returns `x` when the types match, null for other types.
/// 8- and 4-bit floats convert through f32 (`narrow` says how they round
/// and saturate); float -> 4- or 2-bit integers converts to i32 and wraps,
/// as ONNX's reference (ml_dtypes) does.
/// Spec: C++/numpy conversion (aten::to, ONNX Cast, MIL cast).
mlir::Value buildConvertScalar(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value x, mlir::Type to,
                               bool srcUnsigned = false,
                               bool dstUnsigned = false,
                               const NarrowFloatCast &narrow = {});

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
                        bool dstUnsigned = false,
                        const NarrowFloatCast &narrow = {});

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

/// `lhs << rhs` (`left`) or `lhs >> rhs` on integers held in signless
/// integer tensors of one type, numpy broadcasting. The right shift is
/// logical, or arithmetic (sign-extending) with `isSigned`. Shift amounts
/// that are negative (read signed) or >= the bit width give 0, or -1 for an
/// arithmetic right shift of a negative value.
/// Spec: ONNX BitShift (direction LEFT/RIGHT; opset 28 defines signed T).
mlir::FailureOr<mlir::Value> buildBitShift(mlir::OpBuilder &b,
                                           mlir::Location loc, mlir::Value lhs,
                                           mlir::Value rhs, bool left,
                                           bool isSigned = false);

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
  /// x * sigmoid(alpha * x).
  Swish,
  /// x >= alpha ? x : 0 (MIL thresholded_relu keeps x == alpha).
  ThresholdedReluInclusive,
  /// min(x >= 0 ? x : alpha * x, beta).
  ClampedRelu,
  /// alpha * tanh(beta * x).
  ScaledTanh,
  /// alpha * x + beta.
  Affine,
};

/// `kind(x; alpha, beta)` elementwise on a float tensor, same type.
/// Errors: non-float element types.
/// Spec: ONNX HardSigmoid/ThresholdedRelu/Shrink/Celu/HardSwish/Swish (24);
/// MIL (iOS15/iOS17) sigmoid_hard, thresholded_relu, clamped_relu,
/// scaled_tanh, linear_activation.
mlir::FailureOr<mlir::Value> buildParamActivation(mlir::OpBuilder &b,
                                                  mlir::Location loc,
                                                  ParamActivationKind kind,
                                                  mlir::Value x, double alpha,
                                                  double beta = 0.0);

/// `swish(gate) * value` with swish(a) = a * sigmoid(alpha * a), on float
/// tensors of one type and one shape (no broadcasting); same type.
/// Errors: non-float or differing element types, differing shapes.
/// Spec: ONNX SwiGLU (opset 28).
mlir::FailureOr<mlir::Value> buildSwiGLU(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value gate, mlir::Value value,
                                         double alpha);

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

#endif // MLPROG_IMPORT_COMMON_ELEMENTWISE_H
