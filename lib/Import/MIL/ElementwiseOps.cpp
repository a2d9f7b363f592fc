//===- ElementwiseOps.cpp - MIL elementwise math, activations, cast -------===//
//
// Arithmetic, unary math, activations, clip and cast.
//
// Handlers read the op's named arguments and compile-time parameters
// (supplying the MIL spec defaults, iOS15+ semantics) and call the shared
// builders in mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"
#include "Importer.h"

#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Shape.h"

using namespace mlir;

namespace mlprog::mil_import {
namespace {

template <BinaryOpKind Kind> LogicalResult importBinary(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), y = ctx.input("y");
  if (failed(x) || failed(y))
    return failure();
  return ctx.setResult(0, buildElementwiseBinary(ctx.b, ctx.loc, Kind, *x, *y));
}

LogicalResult importFloorDiv(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), y = ctx.input("y");
  if (failed(x) || failed(y))
    return failure();
  return ctx.setResult(
      0, buildDivision(ctx.b, ctx.loc, DivisionKind::FloorDivide, *x, *y));
}

template <UnaryOpKind Kind> LogicalResult importUnary(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildElementwiseUnary(ctx.b, ctx.loc, Kind, *x));
}

template <PointwiseKind Kind> LogicalResult importActivation(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildPointwise(ctx.b, ctx.loc, Kind, *x));
}

/// x + epsilon, MIL's guard of log, rsqrt and inverse (`epsilon` defaults
/// to `defaultEpsilon`).
FailureOr<Value> getShiftedInput(OpContext &ctx, double defaultEpsilon) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<double> eps = ctx.getFloat("epsilon", defaultEpsilon);
  if (failed(x) || failed(eps))
    return failure();
  return buildAddScalar(ctx.b, ctx.loc, *x, *eps);
}

/// log(x, epsilon = 1e-45): log(x + epsilon).
LogicalResult importLog(OpContext &ctx) {
  FailureOr<Value> shifted = getShiftedInput(ctx, 1e-45);
  if (failed(shifted))
    return failure();
  return ctx.setResult(
      0, buildElementwiseUnary(ctx.b, ctx.loc, UnaryOpKind::Log, *shifted));
}

/// rsqrt(x, epsilon = 1e-12): 1 / sqrt(x + epsilon).
LogicalResult importRsqrt(OpContext &ctx) {
  FailureOr<Value> shifted = getShiftedInput(ctx, 1e-12);
  if (failed(shifted))
    return failure();
  return ctx.setResult(
      0, buildPointwise(ctx.b, ctx.loc, PointwiseKind::Rsqrt, *shifted));
}

LogicalResult importGelu(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<std::string> mode = ctx.getString("mode", std::string("EXACT"));
  if (failed(x) || failed(mode))
    return failure();
  PointwiseKind approximation;
  if (*mode == "EXACT")
    approximation = PointwiseKind::Gelu;
  else if (*mode == "TANH_APPROXIMATION")
    approximation = PointwiseKind::GeluTanh;
  else if (*mode == "SIGMOID_APPROXIMATION")
    approximation = PointwiseKind::GeluSigmoid;
  else
    return emitError(ctx.loc) << "invalid gelu mode '" << *mode << "'";
  return ctx.setResult(0, buildPointwise(ctx.b, ctx.loc, approximation, *x));
}

LogicalResult importLeakyRelu(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<double> alpha = ctx.getFloat("alpha", 0.01);
  if (failed(x) || failed(alpha))
    return failure();
  return ctx.setResult(0, buildLeakyRelu(ctx.b, ctx.loc, *x, *alpha));
}

LogicalResult importRelu6(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildClamp(ctx.b, ctx.loc, *x, 0.0, 6.0));
}

/// clip(x, alpha, beta): min(max(x, alpha), beta).
LogicalResult importClip(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<double> lo = ctx.getFloat("alpha"), hi = ctx.getFloat("beta");
  if (failed(x) || failed(lo) || failed(hi))
    return failure();
  return ctx.setResult(0, buildClamp(ctx.b, ctx.loc, *x, *lo, *hi));
}

template <MathFunctionKind Kind> LogicalResult importMath(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildMathFunction(ctx.b, ctx.loc, Kind, *x));
}

/// A rank-0 constant `value` of `x`'s element type.
Value scalarLike(OpContext &ctx, Value x, double value) {
  Type et = typeOf(x).getElementType();
  auto type = RankedTensorType::get({}, et);
  Attribute element = isa<FloatType>(et)
                          ? Attribute(ctx.b.getFloatAttr(et, value))
                          : Attribute(ctx.b.getIntegerAttr(et, int64_t(value)));
  return arith::ConstantOp::create(
      ctx.b, ctx.loc, DenseElementsAttr::get(type, cast<TypedAttr>(element)));
}

/// exp2(x): 2^x, fp16/fp32/int32 (ints computed in f64 and truncated).
LogicalResult importExp2(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildPowMixed(ctx.b, ctx.loc, scalarLike(ctx, *x, 2),
                                        *x, false, false));
}

/// square(x): x * x, fp16/fp32/int32.
LogicalResult importSquare(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  if (failed(x))
    return failure();
  return ctx.setResult(
      0, buildElementwiseBinary(ctx.b, ctx.loc, BinaryOpKind::Mul, *x, *x));
}

/// inverse(x, epsilon = 1e-4): 1 / (x + epsilon).
LogicalResult importInverse(OpContext &ctx) {
  FailureOr<Value> shifted = getShiftedInput(ctx, 1e-4);
  if (failed(shifted))
    return failure();
  return ctx.setResult(
      0, buildPointwise(ctx.b, ctx.loc, PointwiseKind::Reciprocal, *shifted));
}

/// threshold(x, alpha): max(x, alpha), fp16/fp32/int32.
LogicalResult importThreshold(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<double> alpha = ctx.getFloat("alpha");
  if (failed(x) || failed(alpha))
    return failure();
  return ctx.setResult(0, buildClamp(ctx.b, ctx.loc, *x, *alpha, std::nullopt));
}

/// mod(x, y): Python's `%` (the sign of y), numpy broadcasting.
LogicalResult importMod(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), y = ctx.input("y");
  if (failed(x) || failed(y))
    return failure();
  return ctx.setResult(0, buildRemainder(ctx.b, ctx.loc, *x, *y,
                                         /*truncated=*/false, false));
}

LogicalResult importElu(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<double> alpha = ctx.getFloat("alpha", 1.0);
  if (failed(x) || failed(alpha))
    return failure();
  return ctx.setResult(0, buildElu(ctx.b, ctx.loc, *x, *alpha));
}

/// The activations with scalar `alpha` (and `beta` when `HasBeta`), both
/// required (iOS17: of a float type other than x's).
template <ParamActivationKind Kind, bool HasBeta>
LogicalResult importParamActivation(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<double> alpha = ctx.getFloat("alpha");
  FailureOr<double> beta = HasBeta ? ctx.getFloat("beta") : 0.0;
  if (failed(x) || failed(alpha) || failed(beta))
    return failure();
  return ctx.setResult(
      0, buildParamActivation(ctx.b, ctx.loc, Kind, *x, *alpha, *beta));
}

/// The per-channel parameter `name` ([C], C = dim 1 of `x`) converted to
/// `x`'s element type and shaped [C, 1, ...] to broadcast along dim 1.
FailureOr<Value> channelParam(OpContext &ctx, Value x, StringRef name) {
  FailureOr<Value> param = ctx.input(name);
  if (failed(param))
    return failure();
  RankedTensorType xt = typeOf(x), pt = typeOf(*param);
  if (xt.getRank() < 2)
    return emitError(ctx.loc) << "expected x of rank >= 2, got " << xt;
  if (pt.getRank() != 1 || (!xt.isDynamicDim(1) && !pt.isDynamicDim(0) &&
                            pt.getDimSize(0) != xt.getDimSize(1)))
    return emitError(ctx.loc)
           << "'" << name << "' must be [C] with C = dim 1 of x " << xt
           << ", got " << pt;
  FailureOr<Value> converted =
      buildConvertElementType(ctx.b, ctx.loc, *param, xt.getElementType());
  if (failed(converted))
    return failure();
  SmallVector<int64_t> shape(xt.getRank() - 1, 1);
  shape[0] = pt.getDimSize(0);
  return buildReshape(ctx.b, ctx.loc, *converted, shape);
}

/// prelu(x [B, C, ...], alpha [C]): x < 0 ? alpha_c * x : x.
LogicalResult importPRelu(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  if (failed(x))
    return failure();
  FailureOr<Value> alpha = channelParam(ctx, *x, "alpha");
  if (failed(alpha))
    return failure();
  return ctx.setResult(0, buildPRelu(ctx.b, ctx.loc, *x, *alpha));
}

/// softplus_parametric(x [B, C, ...], alpha [C], beta [C]):
/// alpha_c * softplus(beta_c * x).
LogicalResult importSoftplusParametric(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  if (failed(x))
    return failure();
  FailureOr<Value> alpha = channelParam(ctx, *x, "alpha");
  FailureOr<Value> beta = channelParam(ctx, *x, "beta");
  if (failed(alpha) || failed(beta))
    return failure();
  FailureOr<Value> scaled =
      buildElementwiseBinary(ctx.b, ctx.loc, BinaryOpKind::Mul, *x, *beta);
  if (failed(scaled))
    return failure();
  FailureOr<Value> soft =
      buildPointwise(ctx.b, ctx.loc, PointwiseKind::Softplus, *scaled);
  if (failed(soft))
    return failure();
  return ctx.setResult(
      0,
      buildElementwiseBinary(ctx.b, ctx.loc, BinaryOpKind::Mul, *soft, *alpha));
}

LogicalResult importIdentity(OpContext &ctx) {
  return ctx.setResult(0, ctx.input("x"));
}

/// cast(x, dtype): dtype is "bool", "int8"..."int64", "uint8"...,
/// "fp16", "fp32", "fp64". An x declared unsigned (uint8...) zero-extends.
LogicalResult importCast(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<std::string> dtype = ctx.getString("dtype");
  if (failed(x) || failed(dtype))
    return failure();
  FailureOr<Type> to = parseDType(ctx, *dtype, "cast");
  if (failed(to))
    return failure();
  return ctx.setResult(0, buildConvertElementType(
                              ctx.b, ctx.loc, *x, *to, ctx.isUnsignedInput("x"),
                              StringRef(*dtype).starts_with("uint")));
}

} // namespace

void registerElementwiseOps(OpTable &table) {
  table.add({
      {"abs", importUnary<UnaryOpKind::Abs>},
      {"acos", importMath<MathFunctionKind::Acos>},
      {"add", importBinary<BinaryOpKind::Add>},
      {"asin", importMath<MathFunctionKind::Asin>},
      {"atan", importMath<MathFunctionKind::Atan>},
      {"atanh", importMath<MathFunctionKind::Atanh>},
      {"cast", importCast},
      {"ceil", importActivation<PointwiseKind::Ceil>},
      {"clamped_relu",
       importParamActivation<ParamActivationKind::ClampedRelu, true>},
      {"clip", importClip},
      {"cos", importActivation<PointwiseKind::Cos>},
      {"cosh", importMath<MathFunctionKind::Cosh>},
      {"elu", importElu},
      {"erf", importUnary<UnaryOpKind::Erf>},
      {"exp", importUnary<UnaryOpKind::Exp>},
      {"exp2", importExp2},
      {"floor", importActivation<PointwiseKind::Floor>},
      {"floor_div", importFloorDiv},
      {"gelu", importGelu},
      {"identity", importIdentity},
      {"inverse", importInverse},
      {"leaky_relu", importLeakyRelu},
      {"linear_activation",
       importParamActivation<ParamActivationKind::Affine, true>},
      {"log", importLog},
      {"maximum", importBinary<BinaryOpKind::Max>},
      {"minimum", importBinary<BinaryOpKind::Min>},
      {"mod", importMod},
      {"mul", importBinary<BinaryOpKind::Mul>},
      {"pow", importBinary<BinaryOpKind::Pow>},
      {"prelu", importPRelu},
      {"real_div", importBinary<BinaryOpKind::Div>},
      {"relu", importUnary<UnaryOpKind::Relu>},
      {"relu6", importRelu6},
      {"round", importActivation<PointwiseKind::Round>},
      {"rsqrt", importRsqrt},
      {"scaled_tanh",
       importParamActivation<ParamActivationKind::ScaledTanh, true>},
      {"sigmoid", importUnary<UnaryOpKind::Sigmoid>},
      {"sigmoid_hard",
       importParamActivation<ParamActivationKind::HardSigmoid, true>},
      {"sign", importActivation<PointwiseKind::Sign>},
      {"silu", importActivation<PointwiseKind::Silu>},
      {"sin", importActivation<PointwiseKind::Sin>},
      {"sinh", importMath<MathFunctionKind::Sinh>},
      {"softplus", importActivation<PointwiseKind::Softplus>},
      {"softplus_parametric", importSoftplusParametric},
      {"softsign", importActivation<PointwiseKind::Softsign>},
      {"sqrt", importUnary<UnaryOpKind::Sqrt>},
      {"square", importSquare},
      {"sub", importBinary<BinaryOpKind::Sub>},
      {"tan", importMath<MathFunctionKind::Tan>},
      {"tanh", importUnary<UnaryOpKind::Tanh>},
      {"threshold", importThreshold},
      {"thresholded_relu",
       importParamActivation<ParamActivationKind::ThresholdedReluInclusive,
                             false>},
  });
}

} // namespace mlprog::mil_import
