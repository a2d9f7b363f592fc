//===- ElementwiseOps.cpp - aten elementwise math, casts, activations -----===//
//
// Arithmetic (Tensor and Scalar overloads share a handler), unary math,
// activations and dtype casts (`to`, `type_as`, `float`, ...).
//
// One handler per aten op (overloads told apart by the node's schema): it
// reads the arguments at the schema's positions, applies torch's type
// promotion, and calls the shared builders in mlprog/Import/Common.
// Semantics belong in the builders, not here.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "HandlerUtils.h"

#include "mlprog/Import/Common/Creation.h"
#include "mlprog/Import/Common/Elementwise.h"

#include <cmath>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

template <BinaryOpKind K, bool Alpha = false>
LogicalResult binaryH(Im &im, Node *n) {
  return binary(im, n, K, Alpha);
}

LogicalResult rsub(Im &im, Node *n) {
  return binary(im, n, BinaryOpKind::Sub, true, /*reverse=*/true);
}

LogicalResult divMode(Im &im, Node *n) {
  // aten::div.Tensor_mode / Scalar_mode: rounding_mode None/'trunc'/'floor'.
  Location l = im.loc(n);
  const TSValue &mode = im.get(n->input(2));
  if (mode.isNone())
    return binary(im, n, BinaryOpKind::Div, false);
  const TSValue &a = im.get(n->input(0)), &c = im.get(n->input(1));
  Type et = im.promote({&a, &c});
  FailureOr<Value> x = im.tensorOf(a, et, l), y = im.tensorOf(c, et, l);
  if (failed(x) || failed(y))
    return failure();
  DivisionKind k = mode.str == "floor" ? DivisionKind::FloorDivide
                                       : DivisionKind::TruncDivide;
  return im.setTensor(n, 0, buildDivision(im.b, l, k, *x, *y));
}

template <DivisionKind K> LogicalResult division(Im &im, Node *n) {
  FailureOr<std::pair<Value, Value>> xy = promotedPair(im, n);
  if (failed(xy))
    return failure();
  return im.setTensor(n, 0,
                      buildDivision(im.b, im.loc(n), K, xy->first, xy->second));
}

/// fmod(self, other): C's truncated remainder (the sign of `self`).
LogicalResult fmod(Im &im, Node *n) {
  FailureOr<std::pair<Value, Value>> xy = promotedPair(im, n);
  if (failed(xy))
    return failure();
  return im.setTensor(n, 0,
                      buildRemainder(im.b, im.loc(n), xy->first, xy->second,
                                     /*truncated=*/true, /*isUnsigned=*/false));
}

template <UnaryOpKind K> LogicalResult unary(Im &im, Node *n) {
  bool intOk =
      K == UnaryOpKind::Relu || K == UnaryOpKind::Neg || K == UnaryOpKind::Abs;
  FailureOr<Value> x = intOk ? im.tensorInput(n, 0) : floatInput(im, n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, buildElementwiseUnary(im.b, im.loc(n), K, *x));
}

template <PointwiseKind K> LogicalResult pointwise(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, buildPointwise(im.b, im.loc(n), K, *x));
}

LogicalResult gelu(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  if (failed(x))
    return failure();
  bool tanh = n->inputs().size() > 1 && im.get(n->input(1)).str == "tanh";
  return im.setTensor(
      n, 0,
      buildPointwise(im.b, im.loc(n),
                     tanh ? PointwiseKind::GeluTanh : PointwiseKind::Gelu, *x));
}

/// floor/ceil/round(self) (the identity on integers) and
/// round.decimals(self, *, decimals): as torch computes it in the input's
/// float type, round(x * 10^d) / 10^d, or round(x / 10^-d) * 10^-d for
/// d < 0 (round half to even).
LogicalResult roundOrIdentity(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(elemOf(*x)))
    return im.setTensor(n, 0, *x);
  StringRef name = n->kind().toUnqualString();
  PointwiseKind k = name.starts_with("floor")  ? PointwiseKind::Floor
                    : name.starts_with("ceil") ? PointwiseKind::Ceil
                                               : PointwiseKind::Round;
  int64_t decimals = 0;
  if (k == PointwiseKind::Round && n->inputs().size() > 1) {
    FailureOr<int64_t> d = im.intInput(n, 1);
    if (failed(d))
      return failure();
    decimals = *d;
  }
  if (decimals == 0)
    return im.setTensor(n, 0, buildPointwise(im.b, l, k, *x));
  auto scalarType = RankedTensorType::get({}, elemOf(*x));
  Value scale = buildConstant(
      im.b, l,
      DenseElementsAttr::get(
          scalarType,
          im.b.getFloatAttr(elemOf(*x), std::pow(10.0, std::abs(decimals)))));
  BinaryOpKind in = decimals > 0 ? BinaryOpKind::Mul : BinaryOpKind::Div;
  BinaryOpKind out = decimals > 0 ? BinaryOpKind::Div : BinaryOpKind::Mul;
  FailureOr<Value> r = buildElementwiseBinary(im.b, l, in, *x, scale);
  if (succeeded(r))
    r = buildPointwise(im.b, l, k, *r);
  if (succeeded(r))
    r = buildElementwiseBinary(im.b, l, out, *r, scale);
  return im.setTensor(n, 0, r);
}

/// clamp with tensor bounds (clamp.Tensor, clamp_min/max.Tensor) or
/// numbers known only at run time: all operands in their promoted dtype.
LogicalResult clampTensor(Im &im, Node *n, std::optional<unsigned> loArg,
                          std::optional<unsigned> hiArg) {
  Location l = im.loc(n);
  SmallVector<const TSValue *> operands = {&im.get(n->input(0))};
  for (std::optional<unsigned> arg : {loArg, hiArg})
    if (arg && !im.isNoneInput(n, *arg))
      operands.push_back(&im.get(n->input(*arg)));
  Type et = im.promote(operands);
  FailureOr<Value> x = im.tensorOf(*operands[0], et, l);
  if (failed(x))
    return failure();
  Value bounds[2];
  for (unsigned i = 0; i < 2; ++i) {
    std::optional<unsigned> arg = i == 0 ? loArg : hiArg;
    if (!arg || im.isNoneInput(n, *arg))
      continue;
    FailureOr<Value> bound = im.tensorOf(im.get(n->input(*arg)), et, l);
    if (failed(bound))
      return failure();
    bounds[i] = *bound;
  }
  return im.setTensor(n, 0, buildClipTensor(im.b, l, *x, bounds[0], bounds[1]));
}

LogicalResult clamp(Im &im, Node *n, std::optional<unsigned> loArg,
                    std::optional<unsigned> hiArg) {
  for (std::optional<unsigned> arg : {loArg, hiArg})
    if (arg && !im.isNoneInput(n, *arg) &&
        !im.get(n->input(*arg)).isConstScalar())
      return clampTensor(im, n, loArg, hiArg);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  std::optional<double> lo, hi;
  if (loArg && !im.isNoneInput(n, *loArg)) {
    FailureOr<double> v = im.numberInput(n, *loArg);
    if (failed(v))
      return failure();
    lo = *v;
  }
  if (hiArg && !im.isNoneInput(n, *hiArg)) {
    FailureOr<double> v = im.numberInput(n, *hiArg);
    if (failed(v))
      return failure();
    hi = *v;
  }
  return im.setTensor(n, 0, buildClamp(im.b, im.loc(n), *x, lo, hi));
}

LogicalResult clampH(Im &im, Node *n) { return clamp(im, n, 1, 2); }

LogicalResult clampMin(Im &im, Node *n) {
  return clamp(im, n, 1, std::nullopt);
}

LogicalResult clampMax(Im &im, Node *n) {
  return clamp(im, n, std::nullopt, 1);
}

LogicalResult hardtanh(Im &im, Node *n) { return clamp(im, n, 1, 2); }

LogicalResult relu6(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, buildClamp(im.b, im.loc(n), *x, 0.0, 6.0));
}

LogicalResult leakyRelu(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  FailureOr<double> slope = numberOr(im, n, 1, 0.01);
  if (failed(x) || failed(slope))
    return failure();
  return im.setTensor(n, 0, buildLeakyRelu(im.b, im.loc(n), *x, *slope));
}

LogicalResult elu(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  FailureOr<double> alpha = numberOr(im, n, 1, 1.0);
  FailureOr<double> scale = numberOr(im, n, 2, 1.0);
  FailureOr<double> inScale = numberOr(im, n, 3, 1.0);
  if (failed(x) || failed(alpha) || failed(scale) || failed(inScale))
    return failure();
  return im.setTensor(n, 0,
                      buildElu(im.b, im.loc(n), *x, *alpha, *scale, *inScale));
}

LogicalResult selu(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(
      n, 0,
      buildElu(im.b, im.loc(n), *x, 1.6732632423543772, 1.0507009873554805));
}

LogicalResult softplus(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  FailureOr<double> beta = numberOr(im, n, 1, 1.0);
  FailureOr<double> threshold = numberOr(im, n, 2, 20.0);
  if (failed(x) || failed(beta) || failed(threshold))
    return failure();
  return im.setTensor(n, 0,
                      buildSoftplus(im.b, im.loc(n), *x, *beta, *threshold));
}

/// `x` converted to `et` as torch converts: uint8 sources (`srcU`) read
/// unsigned; a float converted to uint8 (`dstU`) is truncated toward zero
/// and wrapped modulo 256 (C's conversion through int64, which torch's CPU
/// kernels perform), where arith.fptoui would leave negative values
/// undefined.
FailureOr<Value> torchConvert(Im &im, Location l, Value x, Type et, bool srcU,
                              bool dstU) {
  FailureOr<Value> r;
  if (dstU && isa<FloatType>(elemOf(x))) {
    FailureOr<Value> wide =
        buildConvertElementType(im.b, l, x, im.b.getI64Type());
    if (failed(wide))
      return failure();
    r = buildConvertElementType(im.b, l, *wide, et, false, true);
  } else {
    r = buildConvertElementType(im.b, l, x, et, srcU, dstU);
  }
  if (succeeded(r) && dstU)
    im.unsignedValues.insert(*r);
  return r;
}

/// aten::to.dtype(self, dtype, ...), to.dtype_layout(self, dtype, layout,
/// device, ...), to.device(self, device, dtype, ...), to.other(self, other).
LogicalResult to(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  const c10::FunctionSchema &schema = n->schema();
  Type et;
  bool dstU = im.isUint8(n->output(0));
  if (schema.overload_name() == "other") {
    FailureOr<Value> other = im.tensorInput(n, 1);
    if (failed(other))
      return failure();
    et = elemOf(*other);
    dstU |= im.isUint8(n->input(1));
  } else {
    auto dtypeArg = schema.argumentIndexWithName("dtype");
    if (dtypeArg) {
      FailureOr<Type> t = im.dtypeInput(n, *dtypeArg);
      if (failed(t))
        return failure();
      et = *t;
      const TSValue &d = im.get(n->input(*dtypeArg));
      dstU |= d.intConst && *d.intConst == int(c10::ScalarType::Byte);
    }
  }
  if (!et)
    return im.setTensor(n, 0, *x);
  return im.setTensor(
      n, 0, torchConvert(im, l, *x, et, im.isUint8(n->input(0)), dstU));
}

LogicalResult typeAs(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0), y = im.tensorInput(n, 1);
  if (failed(x) || failed(y))
    return failure();
  return im.setTensor(n, 0,
                      torchConvert(im, im.loc(n), *x, elemOf(*y),
                                   im.isUint8(n->input(0)),
                                   im.isUint8(n->input(1))));
}

template <int Dtype> LogicalResult castTo(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  Type et = convertScalarType(im.ctx, c10::ScalarType(Dtype));
  return im.setTensor(n, 0,
                      torchConvert(im, im.loc(n), *x, et,
                                   im.isUint8(n->input(0)),
                                   Dtype == int(c10::ScalarType::Byte)));
}

/// angle(self) of a real tensor (integers promote to float).
LogicalResult angle(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, buildAngle(im.b, im.loc(n), *x));
}

} // namespace

void mlprog::torchscript::registerElementwiseOps(OpTable &table) {
  table.add({
      {"aten::angle", angle},
      {"aten::add", binaryH<BinaryOpKind::Add, true>},
      {"aten::sub", binaryH<BinaryOpKind::Sub, true>},
      {"aten::mul", binaryH<BinaryOpKind::Mul>},
      {"aten::div", binaryH<BinaryOpKind::Div>},
      {"aten::div.Tensor_mode", divMode},
      {"aten::div.Scalar_mode", divMode},
      {"aten::true_divide", binaryH<BinaryOpKind::Div>},
      {"aten::rsub", rsub},
      {"aten::pow", binaryH<BinaryOpKind::Pow>},
      {"aten::atan2", binaryH<BinaryOpKind::Atan2>},
      {"aten::arctan2", binaryH<BinaryOpKind::Atan2>},
      {"aten::maximum", binaryH<BinaryOpKind::Max>},
      {"aten::minimum", binaryH<BinaryOpKind::Min>},
      {"aten::floor_divide", division<DivisionKind::FloorDivide>},
      {"aten::remainder", division<DivisionKind::Remainder>},
      {"aten::fmod", fmod},
      {"aten::relu", unary<UnaryOpKind::Relu>},
      {"aten::sigmoid", unary<UnaryOpKind::Sigmoid>},
      {"aten::tanh", unary<UnaryOpKind::Tanh>},
      {"aten::exp", unary<UnaryOpKind::Exp>},
      {"aten::log", unary<UnaryOpKind::Log>},
      {"aten::neg", unary<UnaryOpKind::Neg>},
      {"aten::abs", unary<UnaryOpKind::Abs>},
      {"aten::sqrt", unary<UnaryOpKind::Sqrt>},
      {"aten::erf", unary<UnaryOpKind::Erf>},
      {"aten::rsqrt", pointwise<PointwiseKind::Rsqrt>},
      {"aten::reciprocal", pointwise<PointwiseKind::Reciprocal>},
      {"aten::floor", roundOrIdentity},
      {"aten::ceil", roundOrIdentity},
      {"aten::round", roundOrIdentity},
      {"aten::sin", pointwise<PointwiseKind::Sin>},
      {"aten::cos", pointwise<PointwiseKind::Cos>},
      {"aten::log1p", pointwise<PointwiseKind::Log1p>},
      {"aten::expm1", pointwise<PointwiseKind::Expm1>},
      {"aten::log2", pointwise<PointwiseKind::Log2>},
      {"aten::log10", pointwise<PointwiseKind::Log10>},
      {"aten::gelu", gelu},
      {"aten::silu", pointwise<PointwiseKind::Silu>},
      {"aten::hardswish", pointwise<PointwiseKind::Hardswish>},
      {"aten::hardsigmoid", pointwise<PointwiseKind::Hardsigmoid>},
      {"aten::mish", pointwise<PointwiseKind::Mish>},
      {"aten::softsign", pointwise<PointwiseKind::Softsign>},
      {"aten::hardtanh", hardtanh},
      {"aten::relu6", relu6},
      {"aten::clamp", clampH},
      {"aten::clip", clampH},
      {"aten::clamp_min", clampMin},
      {"aten::clamp_max", clampMax},
      {"aten::leaky_relu", leakyRelu},
      {"aten::elu", elu},
      {"aten::selu", selu},
      {"aten::softplus", softplus},
      {"aten::to", to},
      {"aten::type_as", typeAs},
      {"aten::float", castTo<int(c10::ScalarType::Float)>},
      {"aten::double", castTo<int(c10::ScalarType::Double)>},
      {"aten::long", castTo<int(c10::ScalarType::Long)>},
      {"aten::int", castTo<int(c10::ScalarType::Int)>},
      {"aten::bool", castTo<int(c10::ScalarType::Bool)>},
      {"aten::byte", castTo<int(c10::ScalarType::Byte)>},
  });
}
