//===- ElementwiseOps.cpp - ONNX elementwise math, casts, activations -----===//
//
// Handlers for the ONNX ops that apply a scalar function to each element
// (with numpy broadcasting): arithmetic, unary math, casts, activations,
// Dropout and Identity.
//
// Handlers only read operands and attributes (with the ONNX operator spec's
// defaults for the model's opset) and call the shared builders in
// mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"
#include "NodeContext.h"
#include "TensorConversion.h"

#include "mlprog/Import/Common/Creation.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Random.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace mlprog::onnx_import {

namespace {

/// Integer Add/Sub/Mul of two constants with multidirectional (numpy)
/// broadcasting, as the shape and axis arithmetic of exported graphs and
/// function bodies computes them (`Sub(Mul(c, c), Gather(Shape(c), [0]))`
/// of torch's padding export: a rank-0 and a rank-1 operand), or null.
DenseElementsAttr foldIntBinary(NodeContext &ctx, BinaryOpKind kind) {
  DenseElementsAttr l = ctx.optionalConstantInput(0),
                    r = ctx.optionalConstantInput(1);
  if (!foldable(l) || !foldable(r) ||
      l.getElementType() != r.getElementType() ||
      !l.getElementType().isSignlessInteger() ||
      (kind != BinaryOpKind::Add && kind != BinaryOpKind::Sub &&
       kind != BinaryOpKind::Mul))
    return {};
  ArrayRef<int64_t> ls = cast<RankedTensorType>(l.getType()).getShape(),
                    rs = cast<RankedTensorType>(r.getType()).getShape();
  size_t rank = std::max(ls.size(), rs.size());
  // Shapes and strides aligned on the right; a broadcast dimension has
  // stride 0.
  SmallVector<int64_t> shape(rank), lStride(rank, 0), rStride(rank, 0);
  int64_t lStep = 1, rStep = 1;
  for (size_t k = rank; k-- > 0;) {
    size_t fromEnd = rank - 1 - k;
    int64_t a = fromEnd < ls.size() ? ls[ls.size() - 1 - fromEnd] : 1;
    int64_t c = fromEnd < rs.size() ? rs[rs.size() - 1 - fromEnd] : 1;
    if (a != c && a != 1 && c != 1)
      return {};
    shape[k] = a == 1 ? c : a;
    lStride[k] = a == 1 ? 0 : lStep;
    rStride[k] = c == 1 ? 0 : rStep;
    lStep *= a;
    rStep *= c;
  }
  int64_t n = ShapedType::getNumElements(shape);
  if (n > kFoldLimit)
    return {};
  SmallVector<APInt> lv(l.getValues<APInt>()), rv(r.getValues<APInt>()), out;
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, li = 0, ri = 0;
    for (size_t k = rank; k-- > 0;) {
      int64_t index = rest % shape[k];
      rest /= shape[k];
      li += index * lStride[k];
      ri += index * rStride[k];
    }
    const APInt &a = lv[li], &c = rv[ri];
    out.push_back(kind == BinaryOpKind::Add   ? a + c
                  : kind == BinaryOpKind::Sub ? a - c
                                              : a * c);
  }
  return DenseElementsAttr::get(
      RankedTensorType::get(shape, l.getElementType()), out);
}

/// Add, Sub, Mul, Div, Pow (ONNX opset 7+: multidirectional broadcasting).
template <BinaryOpKind Kind> LogicalResult importBinary(NodeContext &ctx) {
  FailureOr<Value> lhs = ctx.input(0), rhs = ctx.input(1);
  if (failed(lhs) || failed(rhs))
    return failure();
  if (DenseElementsAttr folded = foldIntBinary(ctx, Kind))
    return setFolded(ctx, 0, folded);
  return ctx.setResult(0, buildElementwiseBinary(ctx.b, ctx.loc, Kind, *lhs,
                                                 *rhs, ctx.isUnsignedInput(0)));
}

/// Max, Min: variadic (opset 8+ broadcasting), folded left to right.
template <BinaryOpKind Kind> LogicalResult importVariadic(NodeContext &ctx) {
  FailureOr<Value> acc = ctx.input(0);
  for (int i = 1; succeeded(acc) && i < ctx.node.input_size(); ++i) {
    FailureOr<Value> next = ctx.input(i);
    if (failed(next))
      return failure();
    acc = buildElementwiseBinary(ctx.b, ctx.loc, Kind, *acc, *next,
                                 ctx.isUnsignedInput(0));
  }
  return ctx.setResult(0, acc);
}

/// Relu, Sigmoid, Tanh, Exp, Log, Neg, Abs, Sqrt, Erf.
template <UnaryOpKind Kind> LogicalResult importUnary(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildElementwiseUnary(ctx.b, ctx.loc, Kind, *x));
}

/// Identity: the output is the input value (a tensor, a sequence or an
/// optional, whose presence flag it keeps).
LogicalResult importIdentity(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  ctx.setOutputPresence(0, ctx.inputPresence(0));
  // A constant stays one, so that operands read as attributes (axes,
  // shapes) fold through Identity (exported function bodies use it).
  if (DenseElementsAttr c = ctx.optionalConstantInput(0)) {
    ctx.setConstantResult(0, *x, c);
    return success();
  }
  return ctx.setResult(0, *x);
}

/// Dropout: in inference (opset < 12, or training_mode absent or false) the
/// identity with an all-true mask; with training_mode true or computed at
/// run time, buildDropout's random mask (opset 12+: ratio is input 1,
/// default 0.5, and `seed` an attribute; without one the seed is 0, so the
/// mask is the same on every call).
LogicalResult importDropout(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  bool inference = ctx.opset < 12 || !ctx.hasInput(2);
  if (!inference)
    if (DenseElementsAttr mode = ctx.optionalConstantInput(2))
      inference =
          llvm::none_of(mode.getValues<bool>(), [](bool v) { return v; });
  if (!inference) {
    Value ratio = ctx.optionalInput(1);
    FailureOr<Value> training = ctx.input(2);
    if (failed(training))
      return failure();
    FailureOr<DropoutResult> dropout = buildDropout(
        ctx.b, ctx.loc, *x, ratio, *training, uint64_t(ctx.getInt("seed", 0)));
    if (failed(dropout))
      return failure();
    if (ctx.hasOutput(1) && failed(ctx.setResult(1, dropout->mask)))
      return failure();
    return ctx.setResult(0, dropout->output);
  }
  if (ctx.hasOutput(1)) {
    FailureOr<Value> mask = buildBroadcastedGeneric(
        ctx.b, ctx.loc, *x, ctx.b.getI1Type(),
        [](OpBuilder &b, Location loc, ValueRange) -> Value {
          return arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
        });
    if (failed(ctx.setResult(1, mask)))
      return failure();
  }
  return ctx.setResult(0, x);
}

/// The float8/float4 attributes of Cast and CastLike: `saturate` (opset 19+,
/// default 1) and `round_mode` (opset 24+, "up", "down" or "nearest";
/// FLOAT8E8M0 only).
FailureOr<NarrowFloatCast> narrowFloatCast(NodeContext &ctx) {
  NarrowFloatCast narrow;
  narrow.saturate = ctx.getInt("saturate", 1) != 0;
  std::string mode = ctx.getString("round_mode", "up");
  if (mode == "up")
    narrow.e8m0Rounding = arith::RoundingMode::upward;
  else if (mode == "down")
    narrow.e8m0Rounding = arith::RoundingMode::downward;
  else if (mode == "nearest")
    narrow.e8m0Rounding = arith::RoundingMode::to_nearest_even;
  else
    return emitError(ctx.loc) << "unsupported " << ctx.node.op_type()
                              << " round_mode '" << mode << "'";
  return narrow;
}

/// Cast (opset 6+; `to` an ONNX data type). Strings are unsupported;
/// float -> integer truncates toward zero (wrapping into 4- and 2-bit
/// integers); float -> bfloat16 rounds to nearest even, as onnxruntime
/// (1.15+) and the reference and test data of onnx 1.13+ do (onnx 1.12's
/// test data truncated); float8/float4 as NarrowFloatCast says.
LogicalResult importCast(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  int64_t to = ctx.getInt("to", 0);
  FailureOr<Type> et = convertElementType(ctx.loc, int32_t(to));
  FailureOr<NarrowFloatCast> narrow = narrowFloatCast(ctx);
  if (failed(et) || failed(narrow))
    return failure();
  ctx.setOutputDataType(0, int32_t(to));
  // Integer casts of constants fold (the Cast(Constant) of shape and pad
  // arithmetic in exported graphs), so that what reads them stays static.
  DenseElementsAttr c = ctx.optionalConstantInput(0);
  auto from = dyn_cast_if_present<IntegerType>(c ? c.getElementType() : Type());
  auto target = dyn_cast<IntegerType>(*et);
  if (foldable(c) && from && target && c.getNumElements() <= kFoldLimit) {
    bool zeroExtend = from.getWidth() == 1 || ctx.isUnsignedInput(0);
    SmallVector<APInt> out;
    for (const APInt &v : c.getValues<APInt>())
      out.push_back(target.getWidth() == 1
                        ? APInt(1, !v.isZero())
                        : (zeroExtend ? v.zextOrTrunc(target.getWidth())
                                      : v.sextOrTrunc(target.getWidth())));
    return setFolded(
        ctx, 0, DenseElementsAttr::get(c.getType().clone(Type(target)), out));
  }
  return ctx.setResult(0, buildConvertElementType(
                              ctx.b, ctx.loc, *x, *et, ctx.isUnsignedInput(0),
                              isUnsignedDataType(int32_t(to)), *narrow));
}

/// BitCast (opset 26): the bits of each element as the type `to` of the
/// same width.
LogicalResult importBitCast(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  int64_t to = ctx.getInt("to", 0);
  FailureOr<Type> et = convertElementType(ctx.loc, int32_t(to));
  if (failed(et))
    return failure();
  ctx.setOutputDataType(0, int32_t(to));
  return ctx.setResult(0, buildBitcast(ctx.b, ctx.loc, *x, *et));
}

/// CastLike (opset 15+): Cast to the element type of input 1.
LogicalResult importCastLike(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), like = ctx.input(1);
  FailureOr<NarrowFloatCast> narrow = narrowFloatCast(ctx);
  if (failed(x) || failed(like) || failed(narrow))
    return failure();
  return ctx.setResult(
      0, buildConvertElementType(
             ctx.b, ctx.loc, *x, getElementTypeOrSelf(like->getType()),
             ctx.isUnsignedInput(0), ctx.isUnsignedInput(1), *narrow));
}

/// Pow (opset 7+; base and exponent types independent since opset 12).
LogicalResult importPow(NodeContext &ctx) {
  FailureOr<Value> base = ctx.input(0), exponent = ctx.input(1);
  if (failed(base) || failed(exponent))
    return failure();
  if (getElementTypeOrSelf(base->getType()) ==
          getElementTypeOrSelf(exponent->getType()) &&
      isa<FloatType>(getElementTypeOrSelf(base->getType())))
    return ctx.setResult(0, buildElementwiseBinary(ctx.b, ctx.loc,
                                                   BinaryOpKind::Pow, *base,
                                                   *exponent));
  return ctx.setResult(0, buildPowMixed(ctx.b, ctx.loc, *base, *exponent,
                                        ctx.isUnsignedInput(0),
                                        ctx.isUnsignedInput(1)));
}

/// Sum, Mean (opset 8+ broadcasting): variadic, folded left to right; Mean
/// divides by the input count.
template <bool IsMean> LogicalResult importSumMean(NodeContext &ctx) {
  FailureOr<SmallVector<Value>> in = allInputs(ctx);
  if (failed(in) || in->empty())
    return failure();
  FailureOr<Value> acc = (*in)[0];
  for (Value v : ArrayRef<Value>(*in).drop_front()) {
    acc = buildElementwiseBinary(ctx.b, ctx.loc, BinaryOpKind::Add, *acc, v);
    if (failed(acc))
      return failure();
  }
  if (IsMean) {
    Type et = getElementTypeOrSelf(acc->getType());
    if (!isa<FloatType>(et))
      return emitError(ctx.loc) << "unsupported Mean of element type " << et;
    auto type = RankedTensorType::get({}, et);
    Value n = buildConstant(
        ctx.b, ctx.loc,
        DenseElementsAttr::get(type, ctx.b.getFloatAttr(et, in->size())));
    acc = buildElementwiseBinary(ctx.b, ctx.loc, BinaryOpKind::Div, *acc, n);
  }
  return ctx.setResult(0, acc);
}

/// Reciprocal, Floor, Ceil, Round (half to even), Sign, Sin, Cos, Mish,
/// Softsign: float only.
template <PointwiseKind Kind> LogicalResult importPointwise(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildPointwise(ctx.b, ctx.loc, Kind, *x));
}

/// Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh (float).
template <MathFunctionKind Kind> LogicalResult importMath(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildMathFunction(ctx.b, ctx.loc, Kind, *x));
}

/// Mod (opset 10+): fmod = 0 takes the divisor's sign (integers), fmod = 1
/// the dividend's (C fmod).
LogicalResult importMod(NodeContext &ctx) {
  FailureOr<Value> lhs = ctx.input(0), rhs = ctx.input(1);
  if (failed(lhs) || failed(rhs))
    return failure();
  return ctx.setResult(0, buildRemainder(ctx.b, ctx.loc, *lhs, *rhs,
                                         ctx.getInt("fmod", 0) != 0,
                                         ctx.isUnsignedInput(0)));
}

/// BitShift (opset 11+, unsigned integers; opset 28 adds signed ones, whose
/// right shift is arithmetic; direction LEFT or RIGHT).
LogicalResult importBitShift(NodeContext &ctx) {
  FailureOr<Value> lhs = ctx.input(0), rhs = ctx.input(1);
  if (failed(lhs) || failed(rhs))
    return failure();
  std::string direction = ctx.getString("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    return emitError(ctx.loc)
           << "BitShift direction must be LEFT or RIGHT, got '" << direction
           << "'";
  return ctx.setResult(0, buildBitShift(ctx.b, ctx.loc, *lhs, *rhs,
                                        direction == "LEFT",
                                        !ctx.isUnsignedInput(0)));
}

/// Clip: before opset 11 `min`/`max` attributes (floats, default the float
/// range); from opset 11 optional inputs 1 and 2 (scalars of the input's
/// type, possibly computed at run time).
LogicalResult importClip(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  if (ctx.opset < 11) {
    std::optional<double> lo, hi;
    if (ctx.attribute("min"))
      lo = ctx.getFloat("min", 0.0);
    if (ctx.attribute("max"))
      hi = ctx.getFloat("max", 0.0);
    return ctx.setResult(0, buildClamp(ctx.b, ctx.loc, *x, lo, hi));
  }
  return ctx.setResult(
      0, buildClipTensor(ctx.b, ctx.loc, *x, ctx.optionalInput(1),
                         ctx.optionalInput(2), ctx.isUnsignedInput(0)));
}

/// Elu (alpha = 1), Selu (alpha, gamma per the spec), LeakyRelu (alpha =
/// 0.01), Softplus.
LogicalResult importElu(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(
      0, buildElu(ctx.b, ctx.loc, *x, ctx.getFloat("alpha", 1.0)));
}

LogicalResult importSelu(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(
      0, buildElu(ctx.b, ctx.loc, *x,
                  ctx.getFloat("alpha", 1.67326319217681884765625),
                  ctx.getFloat("gamma", 1.05070102214813232421875)));
}

LogicalResult importLeakyRelu(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(
      0, buildLeakyRelu(ctx.b, ctx.loc, *x, ctx.getFloat("alpha", 0.01)));
}

LogicalResult importSoftplus(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(
      0, buildPointwise(ctx.b, ctx.loc, PointwiseKind::Softplus, *x));
}

/// HardSigmoid (alpha 0.2, beta 0.5), HardSwish, ThresholdedRelu (alpha 1),
/// Shrink (lambd 0.5, bias 0), Celu (alpha 1), Swish (opset 24, alpha 1).
template <ParamActivationKind Kind>
LogicalResult importParamActivation(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  double alpha = 0, beta = 0;
  switch (Kind) {
  case ParamActivationKind::HardSigmoid:
    alpha = ctx.getFloat("alpha", 0.2);
    beta = ctx.getFloat("beta", 0.5);
    break;
  case ParamActivationKind::ThresholdedRelu:
  case ParamActivationKind::Celu:
  case ParamActivationKind::Swish:
    alpha = ctx.getFloat("alpha", 1.0);
    break;
  case ParamActivationKind::Shrink:
    alpha = ctx.getFloat("lambd", 0.5);
    beta = ctx.getFloat("bias", 0.0);
    break;
  default: // HardSwish; the others are not ONNX ops.
    break;
  }
  return ctx.setResult(
      0, buildParamActivation(ctx.b, ctx.loc, Kind, *x, alpha, beta));
}

/// Gelu (opset 20): approximate "none" (erf) or "tanh".
LogicalResult importGelu(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  std::string approximate = ctx.getString("approximate", "none");
  if (approximate != "none" && approximate != "tanh")
    return emitError(ctx.loc)
           << "Gelu: invalid approximate '" << approximate << "'";
  return ctx.setResult(0, buildPointwise(ctx.b, ctx.loc,
                                         approximate == "tanh"
                                             ? PointwiseKind::GeluTanh
                                             : PointwiseKind::Gelu,
                                         *x));
}

/// SwiGLU (opset 28): Swish_alpha(A) * B, alpha 1 by default.
LogicalResult importSwiGLU(NodeContext &ctx) {
  FailureOr<Value> a = ctx.input(0), v = ctx.input(1);
  if (failed(a) || failed(v))
    return failure();
  return ctx.setResult(
      0, buildSwiGLU(ctx.b, ctx.loc, *a, *v, ctx.getFloat("alpha", 1.0)));
}

/// PRelu: opset 7+ broadcasts the slope numpy-style to X; before opset 7 a
/// 1-D slope [C] applies per channel (dim 1 of X). Models upgraded from
/// opset 6 by the version converter keep such a slope, so a 1-D slope that
/// matches X's dim 1 but cannot broadcast against X's last dim is read the
/// opset-6 way too.
LogicalResult importPRelu(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), slope = ctx.input(1);
  if (failed(x) || failed(slope))
    return failure();
  auto st = cast<RankedTensorType>(slope->getType());
  int64_t rank = rankOf(*x);
  auto xt = cast<RankedTensorType>(x->getType());
  bool perChannelUpgrade =
      st.getRank() == 1 && rank >= 3 && !st.isDynamicDim(0) &&
      xt.getDimSize(1) == st.getDimSize(0) && !xt.isDynamicDim(rank - 1) &&
      xt.getDimSize(rank - 1) != st.getDimSize(0);
  if ((ctx.opset < 7 || perChannelUpgrade) && st.getRank() == 1 && rank >= 2 &&
      st.getDimSize(0) != 1) {
    if (st.isDynamicDim(0))
      return emitError(ctx.loc)
             << "unsupported PRelu (opset < 7) with a dynamic slope extent";
    SmallVector<int64_t> shape(rank - 1, 1);
    shape[0] = st.getDimSize(0);
    slope = buildReshape(ctx.b, ctx.loc, *slope, shape);
    if (failed(slope))
      return failure();
  }
  return ctx.setResult(0, buildPRelu(ctx.b, ctx.loc, *x, *slope));
}

} // namespace

void registerElementwiseOps(OpTable &table) {
  table.add({
      {"Abs", importUnary<UnaryOpKind::Abs>},
      {"Acos", importMath<MathFunctionKind::Acos>},
      {"Acosh", importMath<MathFunctionKind::Acosh>},
      {"Add", importBinary<BinaryOpKind::Add>},
      {"Asin", importMath<MathFunctionKind::Asin>},
      {"Asinh", importMath<MathFunctionKind::Asinh>},
      {"Atan", importMath<MathFunctionKind::Atan>},
      {"Atanh", importMath<MathFunctionKind::Atanh>},
      {"BitShift", importBitShift},
      {"BitCast", importBitCast},
      {"Cast", importCast},
      {"CastLike", importCastLike},
      {"Ceil", importPointwise<PointwiseKind::Ceil>},
      {"Celu", importParamActivation<ParamActivationKind::Celu>},
      {"Clip", importClip},
      {"Cos", importPointwise<PointwiseKind::Cos>},
      {"Cosh", importMath<MathFunctionKind::Cosh>},
      {"Div", importBinary<BinaryOpKind::Div>},
      {"Dropout", importDropout},
      {"Elu", importElu},
      {"Erf", importUnary<UnaryOpKind::Erf>},
      {"Exp", importUnary<UnaryOpKind::Exp>},
      {"Floor", importPointwise<PointwiseKind::Floor>},
      {"HardSigmoid", importParamActivation<ParamActivationKind::HardSigmoid>},
      {"HardSwish", importParamActivation<ParamActivationKind::HardSwish>},
      {"Identity", importIdentity},
      {"LeakyRelu", importLeakyRelu},
      {"Log", importUnary<UnaryOpKind::Log>},
      {"Max", importVariadic<BinaryOpKind::Max>},
      {"Mean", importSumMean<true>},
      {"Min", importVariadic<BinaryOpKind::Min>},
      {"Gelu", importGelu},
      {"Mish", importPointwise<PointwiseKind::Mish>},
      {"SwiGLU", importSwiGLU},
      {"Swish", importParamActivation<ParamActivationKind::Swish>},
      {"Mod", importMod},
      {"Mul", importBinary<BinaryOpKind::Mul>},
      {"Neg", importUnary<UnaryOpKind::Neg>},
      {"PRelu", importPRelu},
      {"Pow", importPow},
      {"Reciprocal", importPointwise<PointwiseKind::Reciprocal>},
      {"Relu", importUnary<UnaryOpKind::Relu>},
      {"Round", importPointwise<PointwiseKind::Round>},
      {"Selu", importSelu},
      {"Shrink", importParamActivation<ParamActivationKind::Shrink>},
      {"Sigmoid", importUnary<UnaryOpKind::Sigmoid>},
      {"Sign", importPointwise<PointwiseKind::Sign>},
      {"Sin", importPointwise<PointwiseKind::Sin>},
      {"Sinh", importMath<MathFunctionKind::Sinh>},
      {"Softplus", importSoftplus},
      {"Softsign", importPointwise<PointwiseKind::Softsign>},
      {"Sqrt", importUnary<UnaryOpKind::Sqrt>},
      {"Sub", importBinary<BinaryOpKind::Sub>},
      {"Sum", importSumMean<false>},
      {"Tan", importMath<MathFunctionKind::Tan>},
      {"Tanh", importUnary<UnaryOpKind::Tanh>},
      {"ThresholdedRelu",
       importParamActivation<ParamActivationKind::ThresholdedRelu>},
  });
}

} // namespace mlprog::onnx_import
