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
#include <utility>

namespace mlprog {

/// Computes one result element from the (scalar) operand elements.
using ScalarBodyFn = llvm::function_ref<mlir::Value(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// Builds a `linalg.generic` over the numpy-style broadcast of `operands`
/// (ranked tensors of any rank, aligned at the trailing dimension; a static
/// extent 1 stretches to the other extent). A dynamic extent that may be 1
/// where the result's is not stretches at run time: an `scf.if` makes a
/// stretched copy of that operand only when its extent is 1. The result has
/// `resultElementType`; `body` computes one element from the operand elements.
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
/// atan2(lhs, rhs)) are float only. On i1 (bool) tensors Add and Max are
/// `or`, Min and Mul `and`, as torch and numpy compute them.
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
/// To or from `!ml_program.string` it converts as buildStringCast
/// (Strings.h) does.
/// Errors: unranked tensors, element types other than float, signless
/// integer (i1 included) and string.
/// Spec: MIL cast; ONNX Cast; aten::to(dtype).
mlir::FailureOr<mlir::Value>
buildConvertElementType(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                        mlir::Type elementType, bool srcUnsigned = false,
                        bool dstUnsigned = false,
                        const NarrowFloatCast &narrow = {});

/// Reinterprets the bits of every element of the ranked tensor `x` as
/// `elementType` of the same width (arith.bitcast); bool (i1, one byte in
/// the formats) and 8-bit integers convert as the byte 0/1 and as
/// "non-zero", the only bit patterns bool has.
/// Errors: element types of different widths, non-numeric types.
/// Spec: ONNX BitCast (opset 26); aten::view(dtype) of the same width.
mlir::FailureOr<mlir::Value> buildBitcast(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value x,
                                          mlir::Type elementType);

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
  Trunc,       ///< round toward zero
  Frac,        ///< x - trunc(x)
  Exp2,        ///< 2^x
  Erfc,        ///< 1 - erf(x), without the cancellation
  Deg2Rad,     ///< x * pi / 180
  Rad2Deg,     ///< x * 180 / pi
  LogSigmoid,  ///< log(sigmoid(x)), as -softplus(-x)
  Logit,       ///< log(x / (1 - x)) (callers clamp to [eps, 1 - eps])
  Sinc,        ///< sin(pi x) / (pi x), 1 at 0
};

/// Returns `kind(x)` elementwise for a float tensor `x` (same type); Sign
/// also takes signless integer tensors (signed; i1 is returned as is).
/// Errors: unranked or non-float tensors.
/// Spec: the aten op of the same name (torch.nn.functional for activations,
/// aten::gelu approximate = none / tanh; aten::log_sigmoid, logit, sinc,
/// deg2rad, rad2deg, exp2, erfc, trunc, frac); MIL rsqrt/floor/ceil/round/sign/
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
  /// x > alpha ? x : beta (alpha = threshold, beta = value; NaN stays NaN).
  Threshold,
};

/// `kind(x; alpha, beta)` elementwise on a float tensor, same type (f16 and
/// bf16 computed in f32 and rounded once).
/// Errors: non-float element types.
/// Spec: ONNX HardSigmoid/ThresholdedRelu/Shrink/Celu/HardSwish/Swish (24);
/// aten::hardshrink/softshrink (Shrink), celu, threshold;
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

/// Special functions of float tensors. They are computed in f64 (libm-grade
/// building blocks, series and rational approximations) and rounded once to
/// the element type, so f32 results are as accurate as torch's.
enum class SpecialFunctionKind {
  Erfinv,  ///< inverse of erf: NaN outside [-1, 1], +-inf at +-1
  Lgamma,  ///< log |Gamma(x)|: +inf at 0, the negative integers and +-inf
  Digamma, ///< Gamma'(x) / Gamma(x): -+inf at +-0, NaN at negative integers
  Ndtr,    ///< standard normal CDF, erfc(-x / sqrt(2)) / 2
  LogNdtr, ///< log(ndtr(x)), accurate in the far left tail
  Erfcx,   ///< exp(x^2) * erfc(x), without overflow for large x
  Entr,    ///< -x ln x for x > 0, 0 at 0, -inf for x < 0
  I0,      ///< modified Bessel function of the first kind, order 0
  I0e,     ///< exp(-|x|) * I0(x)
  I1,      ///< modified Bessel function of the first kind, order 1
  I1e,     ///< exp(-|x|) * I1(x)
};

/// `kind(x)` elementwise on a float tensor `x`, same shape and type.
/// Errors: unranked or non-float tensors.
/// Spec: aten::erfinv, lgamma, digamma, special_ndtr, special_log_ndtr,
/// special_erfcx, special_entr, i0, special_i0e, special_i1, special_i1e
/// (torch's ATen/native/Math.h: Cephes Chebyshev expansions for the Bessel
/// functions, Pavlis' rational approximation plus two Newton steps for
/// erfinv, SciPy's log_ndtr); ONNX Erf's inverse has no ONNX op.
mlir::FailureOr<mlir::Value> buildSpecialFunction(mlir::OpBuilder &b,
                                                  mlir::Location loc,
                                                  SpecialFunctionKind kind,
                                                  mlir::Value x);

/// Elementwise binary functions beyond arithmetic.
enum class BinaryMathKind {
  CopySign,   ///< |lhs| with the sign bit of rhs (float)
  Hypot,      ///< sqrt(lhs^2 + rhs^2) without intermediate overflow (float)
  FMax,       ///< maximum ignoring NaN: NaN only where both are NaN
  FMin,       ///< minimum ignoring NaN: NaN only where both are NaN
  NextAfter,  ///< the next representable float after lhs toward rhs
  LogAddExp,  ///< log(exp(lhs) + exp(rhs)) (float)
  LogAddExp2, ///< log2(2^lhs + 2^rhs) (float)
  Xlogy,      ///< lhs * log(rhs); 0 where lhs == 0, NaN where rhs is NaN
  Xlog1py,    ///< lhs * log1p(rhs); 0 where lhs == 0, NaN where rhs is NaN
  Heaviside,  ///< lhs == 0 ? rhs : (lhs > 0 ? 1 : 0) (NaN lhs gives 0)
};

/// `kind(lhs, rhs)` with numpy broadcasting on tensors of one element type:
/// float for all kinds; FMax, FMin and Heaviside also accept signless
/// integers (signed; i1 compares false < true). Same element type.
/// Errors: unranked operands, differing element types, an integer element
/// type for a float-only kind, shapes that do not broadcast.
/// Spec: aten::copysign, hypot, fmax, fmin, nextafter, logaddexp,
/// logaddexp2, xlogy, special_xlog1py, heaviside (C99 copysign, hypot, fmax,
/// fmin, nextafter).
mlir::FailureOr<mlir::Value> buildBinaryMath(mlir::OpBuilder &b,
                                             mlir::Location loc,
                                             BinaryMathKind kind,
                                             mlir::Value lhs, mlir::Value rhs);

/// i1 tensor, true where `x` is neither infinite nor NaN (always true for
/// integer and i1 tensors).
/// Errors: unranked or non-numeric tensors.
/// Spec: aten::isfinite; numpy.isfinite.
mlir::FailureOr<mlir::Value> buildIsFinite(mlir::OpBuilder &b,
                                           mlir::Location loc, mlir::Value x);

/// i1 tensor, true where the sign bit of `x` is set (-0.0 and negative NaNs
/// included) for floats, where `x < 0` for signless integers (read signed),
/// never for i1.
/// Errors: unranked or non-numeric tensors.
/// Spec: aten::signbit; C99 signbit.
mlir::FailureOr<mlir::Value> buildSignBit(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value x);

/// The argument of the real float `x` as a complex number: pi where x < 0,
/// 0 elsewhere (-0.0 included), NaN where x is NaN.
/// Errors: non-float tensors.
/// Spec: aten::angle (real input); numpy.angle.
mlir::FailureOr<mlir::Value> buildAngle(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::Value x);

/// `x` with NaN replaced by `nan`, +inf by `posinf` and -inf by `neginf`
/// (absent: the largest / lowest finite value of the element type), for a
/// float tensor; same type. The replacements are rounded to the type.
/// Errors: unranked or non-float tensors.
/// Spec: aten::nan_to_num; numpy.nan_to_num.
mlir::FailureOr<mlir::Value>
buildNanToNum(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x, double nan,
              std::optional<double> posinf, std::optional<double> neginf);

/// Linear interpolation `start + weight * (end - start)`, evaluated as
/// `end - (end - start) * (1 - weight)` where |weight| >= 0.5 (exact at
/// weight 1), with numpy broadcasting of all three float tensors of one
/// element type.
/// Errors: unranked, non-float or differing element types, shapes that do
/// not broadcast.
/// Spec: aten::lerp.Tensor / lerp.Scalar (ATen's lerp formula).
mlir::FailureOr<mlir::Value> buildLerp(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value start, mlir::Value end,
                                       mlir::Value weight);

/// i1 tensor, true where `a == b` or, for finite differences,
/// `|a - b| <= atol + |rtol * b|`; with `equalNan` two NaNs are close.
/// Operands share one float or signless integer element type (integers: the
/// tolerance test runs in f64; i1 compares exactly). Numpy broadcasting.
/// Errors: unranked operands, differing or non-numeric element types, shapes
/// that do not broadcast.
/// Spec: aten::isclose; numpy.isclose.
mlir::FailureOr<mlir::Value> buildIsClose(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value a,
                                          mlir::Value bv, double rtol,
                                          double atol, bool equalNan);

/// Splits a float tensor `x` into a mantissa (x's type, magnitude in
/// [0.5, 1) or 0) and an i32 exponent with x = mantissa * 2^exponent; zeros,
/// infinities and NaN keep x as the mantissa and give exponent 0. Subnormal
/// inputs are normalized.
/// Errors: unranked or non-float tensors, floats wider than 64 bits.
/// Spec: aten::frexp.Tensor; C99 frexp.
mlir::FailureOr<std::pair<mlir::Value, mlir::Value>>
buildFrexp(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);

/// Gated linear unit: splits the float tensor `x` in halves a, b along
/// `axis` (in [0, rank); its extent static and even) and returns
/// `a * sigmoid(b)`.
/// Errors: non-float tensors, an axis out of range, a dynamic or odd extent.
/// Spec: aten::glu (torch.nn.functional.glu); the GLU of Dauphin et al.
mlir::FailureOr<mlir::Value> buildGlu(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value x, int64_t axis);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_ELEMENTWISE_H
