//===- MathOps.cpp - aten unary and binary math, special functions --------===//
//
// Trigonometric and hyperbolic functions, rounding, exp2/erfc/erfinv, the
// gamma and Bessel families of torch.special, float classification (isnan,
// isfinite, signbit, nan_to_num, frexp), C99 binary functions (copysign,
// hypot, fmax, nextafter, ...), lerp/addcmul/addcdiv/isclose, the
// identities of real tensors (positive, conj, real, ...) and parameterized
// activations (hardshrink, threshold, celu, glu, prelu, logsigmoid).
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
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// Inputs 0 and 1 promoted (Importer::promote) and then, for integer or
/// bool results, converted to float32: torch's rule for float-valued
/// binary functions (xlogy, copysign, ...).
FailureOr<std::pair<Value, Value>> promotedFloatPair(Im &im, Node *n) {
  Location l = im.loc(n);
  const TSValue &a = im.get(n->input(0)), &c = im.get(n->input(1));
  Type et = im.promote({&a, &c});
  if (!isa<FloatType>(et))
    et = im.b.getF32Type();
  FailureOr<Value> x = im.tensorOf(a, et, l), y = im.tensorOf(c, et, l);
  if (failed(x) || failed(y))
    return failure();
  return std::make_pair(*x, *y);
}

/// An i1 tensor of `x`'s shape filled with `value`.
FailureOr<Value> filledBool(Im &im, Location l, Value x, bool value) {
  Value v = arith::ConstantOp::create(im.b, l, im.b.getBoolAttr(value));
  return buildFull(im.b, l, tensor::getMixedSizes(im.b, l, x), im.b.getI1Type(),
                   v);
}

template <MathFunctionKind K> LogicalResult mathFn(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, buildMathFunction(im.b, im.loc(n), K, *x));
}

template <PointwiseKind K> LogicalResult floatFn(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, buildPointwise(im.b, im.loc(n), K, *x));
}

template <SpecialFunctionKind K> LogicalResult special(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, buildSpecialFunction(im.b, im.loc(n), K, *x));
}

/// trunc/fix: the identity on integers.
LogicalResult trunc(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(elemOf(*x)))
    return im.setTensor(n, 0, *x);
  return im.setTensor(
      n, 0, buildPointwise(im.b, im.loc(n), PointwiseKind::Trunc, *x));
}

/// sign/sgn keep integer and bool dtypes.
LogicalResult sign(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0,
                      buildPointwise(im.b, im.loc(n), PointwiseKind::Sign, *x));
}

/// square(self) = pow(self, 2): integers stay, bool becomes int64.
LogicalResult square(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  if (elemOf(*x).isInteger(1))
    x = buildConvertElementType(im.b, l, *x, im.b.getI64Type());
  if (failed(x))
    return failure();
  return im.setTensor(
      n, 0, buildElementwiseBinary(im.b, l, BinaryOpKind::Mul, *x, *x));
}

/// positive, conj, conj_physical, resolve_conj, resolve_neg, real: the
/// identity on real tensors.
LogicalResult identity(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, *x);
}

LogicalResult isreal(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, filledBool(im, im.loc(n), *x, true));
}

/// isnan/isinf/isposinf/isneginf: all false on integer and bool tensors.
template <bool Nan, bool Pos, bool Neg>
LogicalResult classify(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(elemOf(*x)))
    return im.setTensor(n, 0, filledBool(im, l, *x, false));
  if (Nan)
    return im.setTensor(n, 0, buildIsNaN(im.b, l, *x));
  return im.setTensor(n, 0, buildIsInf(im.b, l, *x, Pos, Neg));
}

LogicalResult isfinite(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, buildIsFinite(im.b, im.loc(n), *x));
}

LogicalResult signbit(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, buildSignBit(im.b, im.loc(n), *x));
}

/// nan_to_num(self, nan=None, posinf=None, neginf=None): integers as is.
LogicalResult nanToNum(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(elemOf(*x)))
    return im.setTensor(n, 0, *x);
  FailureOr<double> nan = numberOr(im, n, 1, 0.0);
  if (failed(nan))
    return failure();
  std::optional<double> bound[2];
  for (unsigned i = 0; i < 2; ++i) {
    if (im.isNoneInput(n, 2 + i))
      continue;
    FailureOr<double> v = im.numberInput(n, 2 + i);
    if (failed(v))
      return failure();
    bound[i] = *v;
  }
  return im.setTensor(
      n, 0, buildNanToNum(im.b, im.loc(n), *x, *nan, bound[0], bound[1]));
}

/// logit(self, eps=None): clamped to [eps, 1 - eps] when eps is given.
LogicalResult logit(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = floatInput(im, n, 0);
  if (failed(x))
    return failure();
  if (n->inputs().size() > 1 && !im.isNoneInput(n, 1)) {
    FailureOr<double> eps = im.numberInput(n, 1);
    if (failed(eps))
      return failure();
    x = buildClamp(im.b, l, *x, *eps, 1.0 - *eps);
    if (failed(x))
      return failure();
  }
  return im.setTensor(n, 0, buildPointwise(im.b, l, PointwiseKind::Logit, *x));
}

LogicalResult frexp(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  FailureOr<std::pair<Value, Value>> parts = buildFrexp(im.b, im.loc(n), *x);
  if (failed(parts) || failed(im.setTensor(n, 0, parts->first)))
    return failure();
  return im.setTensor(n, 1, parts->second);
}

/// Binary functions whose integer inputs promote to float32.
template <BinaryMathKind K> LogicalResult floatBinary(Im &im, Node *n) {
  FailureOr<std::pair<Value, Value>> xy = promotedFloatPair(im, n);
  if (failed(xy))
    return failure();
  return im.setTensor(
      n, 0, buildBinaryMath(im.b, im.loc(n), K, xy->first, xy->second));
}

/// Binary functions computed in the promoted dtype (fmax, heaviside, ...).
template <BinaryMathKind K> LogicalResult promotedBinary(Im &im, Node *n) {
  FailureOr<std::pair<Value, Value>> xy = promotedPair(im, n);
  if (failed(xy))
    return failure();
  return im.setTensor(
      n, 0, buildBinaryMath(im.b, im.loc(n), K, xy->first, xy->second));
}

/// float_power(self, exponent): pow in float64.
LogicalResult floatPower(Im &im, Node *n) {
  Location l = im.loc(n);
  Type f64 = im.b.getF64Type();
  FailureOr<Value> x = im.tensorOf(im.get(n->input(0)), f64, l);
  FailureOr<Value> y = im.tensorOf(im.get(n->input(1)), f64, l);
  if (failed(x) || failed(y))
    return failure();
  return im.setTensor(
      n, 0, buildElementwiseBinary(im.b, l, BinaryOpKind::Pow, *x, *y));
}

/// ldexp(self, other) = self * pow(2, other), as ATen composes it.
LogicalResult ldexp(Im &im, Node *n) {
  Location l = im.loc(n);
  const TSValue &self = im.get(n->input(0));
  FailureOr<Value> other = im.tensorInput(n, 1);
  if (failed(other))
    return failure();
  Type pt = elemOf(*other);
  if (!isa<FloatType>(pt))
    pt = im.b.getF32Type();
  FailureOr<Value> e = buildConvertElementType(im.b, l, *other, pt);
  if (succeeded(e))
    e = buildPointwise(im.b, l, PointwiseKind::Exp2, *e);
  if (failed(e))
    return failure();
  TSValue power = TSValue::tensor(*e);
  Type et = im.promote({&self, &power});
  FailureOr<Value> x = im.tensorOf(self, et, l), p = im.tensorOf(power, et, l);
  if (failed(x) || failed(p))
    return failure();
  return im.setTensor(
      n, 0, buildElementwiseBinary(im.b, l, BinaryOpKind::Mul, *x, *p));
}

/// lerp.Scalar / lerp.Tensor(self, end, weight).
LogicalResult lerp(Im &im, Node *n) {
  Location l = im.loc(n);
  const TSValue &s = im.get(n->input(0)), &e = im.get(n->input(1));
  Type et = im.promote({&s, &e});
  FailureOr<Value> x = im.tensorOf(s, et, l), y = im.tensorOf(e, et, l);
  FailureOr<Value> w = im.tensorOf(im.get(n->input(2)), et, l);
  if (failed(x) || failed(y) || failed(w))
    return failure();
  return im.setTensor(n, 0, buildLerp(im.b, l, *x, *y, *w));
}

/// addcmul/addcdiv(self, tensor1, tensor2, *, value=1):
/// self + (value * tensor1) op tensor2, in ATen's order of operations.
template <BinaryOpKind K> LogicalResult addcop(Im &im, Node *n) {
  Location l = im.loc(n);
  const TSValue &s = im.get(n->input(0)), &t1 = im.get(n->input(1)),
                &t2 = im.get(n->input(2));
  Type et = im.promote({&s, &t1, &t2});
  if (K == BinaryOpKind::Div && !isa<FloatType>(et))
    return im.unsupported(n, "integer division in aten::addcdiv");
  FailureOr<Value> x = im.tensorOf(s, et, l), a = im.tensorOf(t1, et, l),
                   c = im.tensorOf(t2, et, l);
  FailureOr<double> value = numberOr(im, n, 3, 1.0);
  if (failed(x) || failed(a) || failed(c) || failed(value))
    return failure();
  if (*value != 1) {
    FailureOr<Value> v = im.tensorOf(TSValue::ofFloat(*value), et, l);
    if (failed(v))
      return failure();
    a = buildElementwiseBinary(im.b, l, BinaryOpKind::Mul, *v, *a);
  }
  FailureOr<Value> r =
      failed(a) ? a : buildElementwiseBinary(im.b, l, K, *a, *c);
  if (failed(r))
    return failure();
  return im.setTensor(
      n, 0, buildElementwiseBinary(im.b, l, BinaryOpKind::Add, *x, *r));
}

/// isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False).
LogicalResult isclose(Im &im, Node *n) {
  FailureOr<std::pair<Value, Value>> xy = promotedPair(im, n);
  FailureOr<double> rtol = numberOr(im, n, 2, 1e-5);
  FailureOr<double> atol = numberOr(im, n, 3, 1e-8);
  if (failed(xy) || failed(rtol) || failed(atol))
    return failure();
  bool equalNan = false;
  if (n->inputs().size() > 4 && !im.isNoneInput(n, 4)) {
    FailureOr<bool> e = im.boolInput(n, 4);
    if (failed(e))
      return failure();
    equalNan = *e;
  }
  return im.setTensor(n, 0,
                      buildIsClose(im.b, im.loc(n), xy->first, xy->second,
                                   *rtol, *atol, equalNan));
}

/// hardshrink/softshrink(self, lambd=0.5).
template <bool Soft> LogicalResult shrink(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  FailureOr<double> lambd = numberOr(im, n, 1, 0.5);
  if (failed(x) || failed(lambd))
    return failure();
  return im.setTensor(n, 0,
                      buildParamActivation(im.b, im.loc(n),
                                           ParamActivationKind::Shrink, *x,
                                           *lambd, Soft ? *lambd : 0.0));
}

/// threshold(self, threshold, value).
LogicalResult threshold(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<double> t = im.numberInput(n, 1), v = im.numberInput(n, 2);
  if (failed(x) || failed(t) || failed(v))
    return failure();
  if (!isa<FloatType>(elemOf(*x)))
    return im.unsupported(n, "integer input of aten::threshold");
  return im.setTensor(n, 0,
                      buildParamActivation(im.b, im.loc(n),
                                           ParamActivationKind::Threshold, *x,
                                           *t, *v));
}

LogicalResult celu(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  FailureOr<double> alpha = numberOr(im, n, 1, 1.0);
  if (failed(x) || failed(alpha))
    return failure();
  return im.setTensor(n, 0,
                      buildParamActivation(im.b, im.loc(n),
                                           ParamActivationKind::Celu, *x,
                                           *alpha));
}

/// glu(self, dim=-1).
LogicalResult glu(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  int64_t dim = -1;
  if (n->inputs().size() > 1) {
    FailureOr<int64_t> d = im.intInput(n, 1);
    if (failed(d))
      return failure();
    dim = *d;
  }
  FailureOr<int64_t> axis = normDim(im, n, dim, rankOf(*x));
  if (failed(axis))
    return failure();
  return im.setTensor(n, 0, buildGlu(im.b, im.loc(n), *x, *axis));
}

/// prelu(self, weight): one slope, or one per channel (dim 1), so the
/// weight is reshaped to [C, 1, ...] (or a 0-d slope) before broadcasting.
LogicalResult prelu(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  FailureOr<Value> w = im.tensorOf(im.get(n->input(1)), elemOf(*x), l);
  if (failed(w))
    return failure();
  auto wt = cast<RankedTensorType>(w->getType());
  if (!wt.hasStaticShape())
    return im.unsupported(n, "prelu weight of dynamic shape");
  int64_t rank = rankOf(*x);
  SmallVector<int64_t> shape;
  if (wt.getNumElements() != 1) {
    if (rank < 2)
      return emitError(l) << "prelu: " << wt.getNumElements()
                          << " weights for an input of rank " << rank;
    shape.push_back(wt.getNumElements());
    shape.append(rank - 2, 1);
  }
  FailureOr<Value> slope = buildReshape(im.b, l, *w, shape);
  if (failed(slope))
    return failure();
  return im.setTensor(n, 0, buildPRelu(im.b, l, *x, *slope));
}

} // namespace

void mlprog::torchscript::registerMathOps(OpTable &table) {
  table.add({
      {"aten::acos", mathFn<MathFunctionKind::Acos>},
      {"aten::arccos", mathFn<MathFunctionKind::Acos>},
      {"aten::asin", mathFn<MathFunctionKind::Asin>},
      {"aten::arcsin", mathFn<MathFunctionKind::Asin>},
      {"aten::atan", mathFn<MathFunctionKind::Atan>},
      {"aten::arctan", mathFn<MathFunctionKind::Atan>},
      {"aten::acosh", mathFn<MathFunctionKind::Acosh>},
      {"aten::arccosh", mathFn<MathFunctionKind::Acosh>},
      {"aten::asinh", mathFn<MathFunctionKind::Asinh>},
      {"aten::arcsinh", mathFn<MathFunctionKind::Asinh>},
      {"aten::atanh", mathFn<MathFunctionKind::Atanh>},
      {"aten::arctanh", mathFn<MathFunctionKind::Atanh>},
      {"aten::cosh", mathFn<MathFunctionKind::Cosh>},
      {"aten::sinh", mathFn<MathFunctionKind::Sinh>},
      {"aten::tan", mathFn<MathFunctionKind::Tan>},
      {"aten::trunc", trunc},
      {"aten::fix", trunc},
      {"aten::frac", floatFn<PointwiseKind::Frac>},
      {"aten::exp2", floatFn<PointwiseKind::Exp2>},
      {"aten::special_exp2", floatFn<PointwiseKind::Exp2>},
      {"aten::erfc", floatFn<PointwiseKind::Erfc>},
      {"aten::special_erfc", floatFn<PointwiseKind::Erfc>},
      {"aten::deg2rad", floatFn<PointwiseKind::Deg2Rad>},
      {"aten::rad2deg", floatFn<PointwiseKind::Rad2Deg>},
      {"aten::sinc", floatFn<PointwiseKind::Sinc>},
      {"aten::special_sinc", floatFn<PointwiseKind::Sinc>},
      {"aten::log_sigmoid", floatFn<PointwiseKind::LogSigmoid>},
      {"aten::logit", logit},
      {"aten::special_logit", logit},
      {"aten::erfinv", special<SpecialFunctionKind::Erfinv>},
      {"aten::special_erfinv", special<SpecialFunctionKind::Erfinv>},
      {"aten::lgamma", special<SpecialFunctionKind::Lgamma>},
      {"aten::special_gammaln", special<SpecialFunctionKind::Lgamma>},
      {"aten::digamma", special<SpecialFunctionKind::Digamma>},
      {"aten::special_digamma", special<SpecialFunctionKind::Digamma>},
      {"aten::special_psi", special<SpecialFunctionKind::Digamma>},
      {"aten::special_ndtr", special<SpecialFunctionKind::Ndtr>},
      {"aten::special_log_ndtr", special<SpecialFunctionKind::LogNdtr>},
      {"aten::special_erfcx", special<SpecialFunctionKind::Erfcx>},
      {"aten::special_entr", special<SpecialFunctionKind::Entr>},
      {"aten::i0", special<SpecialFunctionKind::I0>},
      {"aten::special_i0", special<SpecialFunctionKind::I0>},
      {"aten::special_i0e", special<SpecialFunctionKind::I0e>},
      {"aten::special_i1", special<SpecialFunctionKind::I1>},
      {"aten::special_i1e", special<SpecialFunctionKind::I1e>},
      {"aten::sign", sign},
      {"aten::sgn", sign},
      {"aten::signbit", signbit},
      {"aten::square", square},
      {"aten::positive", identity},
      {"aten::conj", identity},
      {"aten::conj_physical", identity},
      {"aten::real", identity},
      {"aten::isreal", isreal},
      {"aten::isnan", classify<true, false, false>},
      {"aten::isinf", classify<false, true, true>},
      {"aten::isposinf", classify<false, true, false>},
      {"aten::isneginf", classify<false, false, true>},
      {"aten::isfinite", isfinite},
      {"aten::nan_to_num", nanToNum},
      {"aten::frexp", frexp},
      {"aten::copysign", floatBinary<BinaryMathKind::CopySign>},
      {"aten::hypot", floatBinary<BinaryMathKind::Hypot>},
      {"aten::nextafter", floatBinary<BinaryMathKind::NextAfter>},
      {"aten::logaddexp", floatBinary<BinaryMathKind::LogAddExp>},
      {"aten::logaddexp2", floatBinary<BinaryMathKind::LogAddExp2>},
      {"aten::xlogy", floatBinary<BinaryMathKind::Xlogy>},
      {"aten::special_xlogy", floatBinary<BinaryMathKind::Xlogy>},
      {"aten::special_xlog1py", floatBinary<BinaryMathKind::Xlog1py>},
      {"aten::fmax", promotedBinary<BinaryMathKind::FMax>},
      {"aten::fmin", promotedBinary<BinaryMathKind::FMin>},
      {"aten::heaviside", promotedBinary<BinaryMathKind::Heaviside>},
      {"aten::float_power", floatPower},
      {"aten::ldexp", ldexp},
      {"aten::lerp", lerp},
      {"aten::addcmul", addcop<BinaryOpKind::Mul>},
      {"aten::addcdiv", addcop<BinaryOpKind::Div>},
      {"aten::isclose", isclose},
      {"aten::hardshrink", shrink<false>},
      {"aten::softshrink", shrink<true>},
      {"aten::threshold", threshold},
      {"aten::celu", celu},
      {"aten::glu", glu},
      {"aten::prelu", prelu},
  });
}
