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

#include "mlprog/Import/Common/Elementwise.h"

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

/// log(x, epsilon = 1e-45): log(x + epsilon).
LogicalResult importLog(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<double> eps = ctx.getFloat("epsilon", 1e-45);
  if (failed(x) || failed(eps))
    return failure();
  FailureOr<Value> shifted = buildAddScalar(ctx.b, ctx.loc, *x, *eps);
  if (failed(shifted))
    return failure();
  return ctx.setResult(
      0, buildElementwiseUnary(ctx.b, ctx.loc, UnaryOpKind::Log, *shifted));
}

/// rsqrt(x, epsilon = 1e-12): 1 / sqrt(x + epsilon).
LogicalResult importRsqrt(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<double> eps = ctx.getFloat("epsilon", 1e-12);
  if (failed(x) || failed(eps))
    return failure();
  FailureOr<Value> shifted = buildAddScalar(ctx.b, ctx.loc, *x, *eps);
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

LogicalResult importIdentity(OpContext &ctx) {
  return ctx.setResult(0, ctx.input("x"));
}

/// cast(x, dtype): dtype is "bool", "int8"..."int64", "uint8"...,
/// "fp16", "fp32", "fp64".
LogicalResult importCast(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<std::string> dtype = ctx.getString("dtype");
  if (failed(x) || failed(dtype))
    return failure();
  FailureOr<Type> to = parseDType(ctx, *dtype, "cast");
  if (failed(to))
    return failure();
  return ctx.setResult(
      0, buildConvertElementType(ctx.b, ctx.loc, *x, *to, false,
                                 StringRef(*dtype).starts_with("uint")));
}

} // namespace

void registerElementwiseOps(OpTable &table) {
  table.add({
      {"abs", importUnary<UnaryOpKind::Abs>},
      {"add", importBinary<BinaryOpKind::Add>},
      {"cast", importCast},
      {"ceil", importActivation<PointwiseKind::Ceil>},
      {"clip", importClip},
      {"cos", importActivation<PointwiseKind::Cos>},
      {"erf", importUnary<UnaryOpKind::Erf>},
      {"exp", importUnary<UnaryOpKind::Exp>},
      {"floor", importActivation<PointwiseKind::Floor>},
      {"floor_div", importFloorDiv},
      {"gelu", importGelu},
      {"identity", importIdentity},
      {"leaky_relu", importLeakyRelu},
      {"log", importLog},
      {"maximum", importBinary<BinaryOpKind::Max>},
      {"minimum", importBinary<BinaryOpKind::Min>},
      {"mul", importBinary<BinaryOpKind::Mul>},
      {"pow", importBinary<BinaryOpKind::Pow>},
      {"real_div", importBinary<BinaryOpKind::Div>},
      {"relu", importUnary<UnaryOpKind::Relu>},
      {"relu6", importRelu6},
      {"round", importActivation<PointwiseKind::Round>},
      {"rsqrt", importRsqrt},
      {"sigmoid", importUnary<UnaryOpKind::Sigmoid>},
      {"sign", importActivation<PointwiseKind::Sign>},
      {"silu", importActivation<PointwiseKind::Silu>},
      {"sin", importActivation<PointwiseKind::Sin>},
      {"softplus", importActivation<PointwiseKind::Softplus>},
      {"sqrt", importUnary<UnaryOpKind::Sqrt>},
      {"sub", importBinary<BinaryOpKind::Sub>},
      {"tanh", importUnary<UnaryOpKind::Tanh>},
  });
}

} // namespace mlprog::mil_import
