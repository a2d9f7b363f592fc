//===- MathOps.cpp - ONNX elementwise math, logic, activations, reductions ===//
//
// Handlers only read operands and attributes (with the ONNX operator spec's
// defaults for the model's opset) and call the shared builders in
// mlprog/Import/Common; semantics belong in the builders. The one ONNX
// specific piece here is the dispatch on attributes that ONNX passes as
// run-time inputs (reduction axes, cumsum axis): every consistent variant is
// built and the run-time value selects one.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"
#include "TensorConversion.h"

#include "mlprog/Import/Common/Creation.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/LinearAlgebra.h"
#include "mlprog/Import/Common/Logic.h"
#include "mlprog/Import/Common/Normalization.h"
#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace mlprog::onnx_import {
namespace {

//===--- Helpers ----------------------------------------------------------===//

/// All inputs of the node (each must be present).
FailureOr<SmallVector<Value>> allInputs(NodeContext &ctx) {
  SmallVector<Value> values;
  for (int i = 0; i < ctx.node.input_size(); ++i) {
    FailureOr<Value> v = ctx.input(i);
    if (failed(v))
      return failure();
    values.push_back(*v);
  }
  return values;
}

/// The integer elements of a constant (int32 or int64) tensor.
SmallVector<int64_t> intsOf(DenseElementsAttr attr) {
  SmallVector<int64_t> out;
  for (const APInt &v : attr.getValues<APInt>())
    out.push_back(v.getSExtValue());
  return out;
}

/// A scalar i1 that is true when the run-time integer scalar `axis` (any
/// integer type) names dim `d` of a rank-`rank` tensor (d or d - rank).
Value axisIs(NodeContext &ctx, Value axis, int64_t d, int64_t rank) {
  Type t = axis.getType();
  auto eq = [&](int64_t v) -> Value {
    Value c =
        arith::ConstantOp::create(ctx.b, ctx.loc, ctx.b.getIntegerAttr(t, v));
    return arith::CmpIOp::create(ctx.b, ctx.loc, arith::CmpIPredicate::eq, axis,
                                 c);
  };
  return arith::OrIOp::create(ctx.b, ctx.loc, eq(d), eq(d - rank));
}

/// Picks, at run time, the first candidate whose condition holds (the last
/// one when none does).
Value selectCandidate(NodeContext &ctx, ArrayRef<std::pair<Value, Value>> c) {
  Value r = c.back().second;
  for (int i = int(c.size()) - 2; i >= 0; --i)
    r = arith::SelectOp::create(ctx.b, ctx.loc, c[i].first, c[i].second, r);
  return r;
}

//===--- Casts ------------------------------------------------------------===//

/// Converts `x` to `to` as ONNX Cast does: float -> bfloat16 truncates
/// (the rounding of ONNX 1.12's reference and test data), everything else
/// as buildConvertElementType.
FailureOr<Value> castTo(NodeContext &ctx, Value x, Type to, bool srcUnsigned,
                        bool dstUnsigned) {
  if (to.isBF16() && isa<FloatType>(getElementTypeOrSelf(x.getType())))
    return buildTruncateToBF16(ctx.b, ctx.loc, x);
  return buildConvertElementType(ctx.b, ctx.loc, x, to, srcUnsigned,
                                 dstUnsigned);
}

/// Cast (opset 6+; `to` an ONNX data type). Strings and float8 types are
/// unsupported; float -> integer truncates toward zero; float -> bfloat16
/// truncates the f32 value (ONNX 1.12's reference; later ONNX versions round
/// to nearest even).
LogicalResult importCast(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  int64_t to = ctx.getInt("to", 0);
  FailureOr<Type> et = convertElementType(ctx.loc, int32_t(to));
  if (failed(et))
    return failure();
  ctx.setOutputDataType(0, int32_t(to));
  return ctx.setResult(0, castTo(ctx, *x, *et, ctx.isUnsignedInput(0),
                                 isUnsignedDataType(int32_t(to))));
}

/// CastLike (opset 15+): Cast to the element type of input 1.
LogicalResult importCastLike(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), like = ctx.input(1);
  if (failed(x) || failed(like))
    return failure();
  return ctx.setResult(0,
                       castTo(ctx, *x, getElementTypeOrSelf(like->getType()),
                              ctx.isUnsignedInput(0), ctx.isUnsignedInput(1)));
}

//===--- Elementwise ------------------------------------------------------===//

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

/// Equal, Less, LessOrEqual, Greater, GreaterOrEqual (opset 7+
/// broadcasting; integers compare unsigned for unsigned ONNX types).
template <CompareKind Kind> LogicalResult importCompare(NodeContext &ctx) {
  FailureOr<Value> lhs = ctx.input(0), rhs = ctx.input(1);
  if (failed(lhs) || failed(rhs))
    return failure();
  return ctx.setResult(0, buildCompare(ctx.b, ctx.loc, Kind, *lhs, *rhs,
                                       ctx.isUnsignedInput(0)));
}

/// And, Or, Xor on bool tensors (opset 7+ broadcasting).
template <LogicalKind Kind> LogicalResult importLogical(NodeContext &ctx) {
  FailureOr<Value> lhs = ctx.input(0), rhs = ctx.input(1);
  if (failed(lhs) || failed(rhs))
    return failure();
  return ctx.setResult(0, buildLogical(ctx.b, ctx.loc, Kind, *lhs, *rhs));
}

/// Not on a bool tensor.
LogicalResult importNot(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildLogicalNot(ctx.b, ctx.loc, *x));
}

/// Where (opset 9+; three-way broadcasting).
LogicalResult importWhere(NodeContext &ctx) {
  FailureOr<Value> c = ctx.input(0), x = ctx.input(1), y = ctx.input(2);
  if (failed(c) || failed(x) || failed(y))
    return failure();
  return ctx.setResult(0, buildSelect(ctx.b, ctx.loc, *c, *x, *y));
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

/// BitShift (opset 11+, unsigned integers; direction LEFT or RIGHT).
LogicalResult importBitShift(NodeContext &ctx) {
  FailureOr<Value> lhs = ctx.input(0), rhs = ctx.input(1);
  if (failed(lhs) || failed(rhs))
    return failure();
  std::string direction = ctx.getString("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    return emitError(ctx.loc)
           << "BitShift direction must be LEFT or RIGHT, got '" << direction
           << "'";
  return ctx.setResult(
      0, buildBitShift(ctx.b, ctx.loc, *lhs, *rhs, direction == "LEFT"));
}

/// IsNaN (opset 9+).
LogicalResult importIsNaN(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildIsNaN(ctx.b, ctx.loc, *x));
}

/// IsInf (opset 10+; detect_positive = detect_negative = 1 by default).
LogicalResult importIsInf(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildIsInf(ctx.b, ctx.loc, *x,
                                     ctx.getInt("detect_positive", 1),
                                     ctx.getInt("detect_negative", 1)));
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

//===--- Activations ------------------------------------------------------===//

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
/// Shrink (lambd 0.5, bias 0), Celu (alpha 1).
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
    alpha = ctx.getFloat("alpha", 1.0);
    break;
  case ParamActivationKind::Shrink:
    alpha = ctx.getFloat("lambd", 0.5);
    beta = ctx.getFloat("bias", 0.0);
    break;
  case ParamActivationKind::HardSwish:
    break;
  }
  return ctx.setResult(
      0, buildParamActivation(ctx.b, ctx.loc, Kind, *x, alpha, beta));
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

//===--- Softmax family ---------------------------------------------------===//

/// The axes of Softmax-like ops: opset < 13 coerces to 2-D at `axis`
/// (default 1), i.e. [axis, rank); opset 13+ is [axis] (default -1).
FailureOr<SmallVector<int64_t>> softmaxAxes(NodeContext &ctx, Value x) {
  int64_t rank = rankOf(x);
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", ctx.opset < 13 ? 1 : -1), rank);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> axes = {*axis};
  if (ctx.opset < 13)
    for (int64_t d = *axis + 1; d < rank; ++d)
      axes.push_back(d);
  return axes;
}

/// LogSoftmax (opset 1-13 semantics as Softmax).
LogicalResult importLogSoftmax(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  FailureOr<SmallVector<int64_t>> axes = softmaxAxes(ctx, *x);
  if (failed(axes))
    return failure();
  return ctx.setResult(0, buildLogSoftmax(ctx.b, ctx.loc, *x, *axes));
}

/// Hardmax (opset 1-13 semantics as Softmax; ties pick the first index).
LogicalResult importHardmax(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(0,
                       buildHardmax(ctx.b, ctx.loc, *x,
                                    ctx.getInt("axis", ctx.opset < 13 ? 1 : -1),
                                    ctx.opset < 13));
}

//===--- Reductions -------------------------------------------------------===//

/// One reduction of ONNX's Reduce* family.
enum class OnnxReduce {
  Sum,
  Mean,
  Max,
  Min,
  Prod,
  L1,
  L2,
  LogSum,
  LogSumExp,
  SumSquare
};

FailureOr<Value> buildOnnxReduce(NodeContext &ctx, OnnxReduce kind, Value x,
                                 ArrayRef<int64_t> axes, bool keepDims) {
  switch (kind) {
  case OnnxReduce::Sum:
    return buildReduce(ctx.b, ctx.loc, ReduceKind::Sum, x, axes, keepDims);
  case OnnxReduce::Mean:
    return buildReduce(ctx.b, ctx.loc, ReduceKind::Mean, x, axes, keepDims);
  case OnnxReduce::Max:
  case OnnxReduce::Min:
    if (ctx.isUnsignedInput(0) &&
        getElementTypeOrSelf(x.getType()).getIntOrFloatBitWidth() > 1)
      return emitError(ctx.loc)
             << "unsupported " << ctx.node.op_type() << " of unsigned type";
    return buildReduce(ctx.b, ctx.loc,
                       kind == OnnxReduce::Max ? ReduceKind::Max
                                               : ReduceKind::Min,
                       x, axes, keepDims);
  case OnnxReduce::Prod:
    return buildReduce(ctx.b, ctx.loc, ReduceKind::Prod, x, axes, keepDims);
  case OnnxReduce::L1:
    return buildNormReduce(ctx.b, ctx.loc, NormReduceKind::L1, x, axes,
                           keepDims);
  case OnnxReduce::L2:
    return buildNormReduce(ctx.b, ctx.loc, NormReduceKind::L2, x, axes,
                           keepDims);
  case OnnxReduce::LogSum:
    return buildNormReduce(ctx.b, ctx.loc, NormReduceKind::LogSum, x, axes,
                           keepDims);
  case OnnxReduce::LogSumExp:
    return buildNormReduce(ctx.b, ctx.loc, NormReduceKind::LogSumExp, x, axes,
                           keepDims);
  case OnnxReduce::SumSquare:
    return buildNormReduce(ctx.b, ctx.loc, NormReduceKind::SumSquare, x, axes,
                           keepDims);
  }
  return failure();
}

/// Reduces over axes given at run time: every subset of dims that turns the
/// input shape into the declared output shape is built, and the run-time
/// axes pick one. Needs static input and output shapes and a static number
/// of axes.
LogicalResult reduceRuntimeAxes(NodeContext &ctx, OnnxReduce kind, Value x,
                                Value axesValue, bool keepDims, bool noop) {
  auto xt = cast<RankedTensorType>(x.getType());
  auto at = dyn_cast<RankedTensorType>(axesValue.getType());
  std::optional<SmallVector<int64_t>> outShape = ctx.staticOutputShape(0);
  int64_t rank = xt.getRank();
  if (!xt.hasStaticShape() || !outShape || !at || !at.hasStaticShape() ||
      at.getRank() != 1 || rank > 8)
    return emitError(ctx.loc)
           << "unsupported " << ctx.node.op_type()
           << " with run-time axes and unknown input or output shapes";
  int64_t numAxes = at.getDimSize(0);
  if (numAxes == 0) {
    if (noop)
      return ctx.setResult(0, x);
    return ctx.setResult(0, buildOnnxReduce(ctx, kind, x, {}, keepDims));
  }
  // Read the axes once.
  SmallVector<Value> axisValues;
  for (int64_t k = 0; k < numAxes; ++k) {
    Value idx = arith::ConstantIndexOp::create(ctx.b, ctx.loc, k);
    axisValues.push_back(
        tensor::ExtractOp::create(ctx.b, ctx.loc, axesValue, idx));
  }
  SmallVector<std::pair<Value, Value>> candidates;
  for (unsigned mask = 1; mask < (1u << rank); ++mask) {
    SmallVector<int64_t> shape, axes;
    for (int64_t d = 0; d < rank; ++d) {
      bool reduced = mask & (1u << d);
      if (reduced)
        axes.push_back(d);
      if (!reduced)
        shape.push_back(xt.getDimSize(d));
      else if (keepDims)
        shape.push_back(1);
    }
    if (shape != *outShape || int64_t(axes.size()) > numAxes)
      continue;
    if (candidates.size() == 8)
      return emitError(ctx.loc) << "unsupported " << ctx.node.op_type()
                                << " with run-time axes: too many candidates";
    // The run-time axes name exactly the dims of `mask`.
    Value cond =
        arith::ConstantOp::create(ctx.b, ctx.loc, ctx.b.getBoolAttr(true));
    for (int64_t d = 0; d < rank; ++d) {
      Value in =
          arith::ConstantOp::create(ctx.b, ctx.loc, ctx.b.getBoolAttr(false));
      for (Value a : axisValues)
        in = arith::OrIOp::create(ctx.b, ctx.loc, in, axisIs(ctx, a, d, rank));
      if (!(mask & (1u << d)))
        in = arith::XOrIOp::create(
            ctx.b, ctx.loc, in,
            arith::ConstantOp::create(ctx.b, ctx.loc, ctx.b.getBoolAttr(true)));
      cond = arith::AndIOp::create(ctx.b, ctx.loc, cond, in);
    }
    FailureOr<Value> r = buildOnnxReduce(ctx, kind, x, axes, keepDims);
    if (failed(r))
      return failure();
    candidates.push_back({cond, *r});
  }
  if (candidates.empty())
    return emitError(ctx.loc)
           << ctx.node.op_type() << ": no axes give the declared output shape";
  return ctx.setResult(0, selectCandidate(ctx, candidates));
}

/// ReduceSum/Mean/Max/Min/Prod/L1/L2/LogSum/LogSumExp/SumSquare: `axes` is
/// an attribute before opset 18 (ReduceSum: before 13) and an optional input
/// after; keepdims = 1 by default; with noop_with_empty_axes = 1 empty axes
/// mean identity, otherwise all axes.
template <OnnxReduce Kind> LogicalResult importReduce(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  bool keepDims = ctx.getInt("keepdims", 1);
  bool noop = ctx.getInt("noop_with_empty_axes", 0);
  bool axesAsInput =
      Kind == OnnxReduce::Sum ? ctx.opset >= 13 : ctx.opset >= 18;
  SmallVector<int64_t> axes;
  if (!axesAsInput) {
    axes = ctx.getInts("axes");
  } else if (ctx.hasInput(1)) {
    DenseElementsAttr c = ctx.optionalConstantInput(1);
    if (!c) {
      FailureOr<Value> axesValue = ctx.input(1);
      if (failed(axesValue))
        return failure();
      return reduceRuntimeAxes(ctx, Kind, *x, *axesValue, keepDims, noop);
    }
    axes = intsOf(c);
  }
  if (axes.empty() && noop)
    return ctx.setResult(0, *x);
  return ctx.setResult(0, buildOnnxReduce(ctx, Kind, *x, axes, keepDims));
}

/// ArgMax, ArgMin (axis 0, keepdims 1, select_last_index 0 by default).
template <bool IsMax> LogicalResult importArgReduce(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(0,
                       buildArgReduce(ctx.b, ctx.loc, *x, ctx.getInt("axis", 0),
                                      ctx.getInt("keepdims", 1), IsMax,
                                      ctx.getInt("select_last_index", 0),
                                      ctx.isUnsignedInput(0)));
}

/// CumSum (opset 11+; the axis is input 1, a scalar that may be computed at
/// run time; exclusive, reverse default 0).
LogicalResult importCumSum(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), axisValue = ctx.input(1);
  if (failed(x) || failed(axisValue))
    return failure();
  bool exclusive = ctx.getInt("exclusive", 0),
       reverse = ctx.getInt("reverse", 0);
  if (DenseElementsAttr c = ctx.optionalConstantInput(1)) {
    SmallVector<int64_t> axis = intsOf(c);
    if (axis.size() != 1)
      return emitError(ctx.loc) << "CumSum axis must be a scalar";
    return ctx.setResult(
        0, buildCumSum(ctx.b, ctx.loc, *x, axis[0], exclusive, reverse));
  }
  auto at = dyn_cast<RankedTensorType>(axisValue->getType());
  if (!at || at.getNumElements() != 1)
    return emitError(ctx.loc) << "CumSum axis must be a scalar";
  int64_t rank = rankOf(*x);
  Value zero = arith::ConstantIndexOp::create(ctx.b, ctx.loc, 0);
  Value axis = tensor::ExtractOp::create(
      ctx.b, ctx.loc, *axisValue, SmallVector<Value>(at.getRank(), zero));
  SmallVector<std::pair<Value, Value>> candidates;
  for (int64_t d = 0; d < rank; ++d) {
    FailureOr<Value> r = buildCumSum(ctx.b, ctx.loc, *x, d, exclusive, reverse);
    if (failed(r))
      return failure();
    candidates.push_back({axisIs(ctx, axis, d, rank), *r});
  }
  return ctx.setResult(0, selectCandidate(ctx, candidates));
}

//===--- Normalizations ---------------------------------------------------===//

/// LayerNormalization (opset 17: axis -1, epsilon 1e-5; optional Mean and
/// InvStdDev outputs). stash_type other than 1 (float) is unsupported.
LogicalResult importLayerNorm(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), scale = ctx.input(1);
  if (failed(x) || failed(scale))
    return failure();
  if (int64_t stash = ctx.getInt("stash_type", 1); stash != 1)
    return emitError(ctx.loc)
           << "unsupported LayerNormalization stash_type " << stash;
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", -1), rankOf(*x));
  if (failed(axis))
    return failure();
  FailureOr<LayerNormResult> r = buildLayerNorm(
      ctx.b, ctx.loc, *x, llvm::to_vector(llvm::seq(*axis, rankOf(*x))), *scale,
      ctx.optionalInput(2), ctx.getFloat("epsilon", 1e-5));
  if (failed(r))
    return failure();
  if (failed(ctx.setResult(0, r->y)) || failed(ctx.setResult(1, r->mean)))
    return failure();
  return ctx.setResult(2, r->invStdDev);
}

/// InstanceNormalization (epsilon 1e-5).
LogicalResult importInstanceNorm(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), scale = ctx.input(1), bias = ctx.input(2);
  if (failed(x) || failed(scale) || failed(bias))
    return failure();
  return ctx.setResult(0, buildInstanceNorm(ctx.b, ctx.loc, *x, *scale, *bias,
                                            ctx.getFloat("epsilon", 1e-5)));
}

/// LRN (size required; alpha 1e-4, beta 0.75, bias 1).
LogicalResult importLRN(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  if (!ctx.attribute("size"))
    return emitError(ctx.loc) << "LRN needs a 'size' attribute";
  return ctx.setResult(0, buildLRN(ctx.b, ctx.loc, *x, ctx.getInt("size", 1),
                                   ctx.getFloat("alpha", 1e-4),
                                   ctx.getFloat("beta", 0.75),
                                   ctx.getFloat("bias", 1.0)));
}

/// MeanVarianceNormalization (axes [0, 2, 3] by default).
LogicalResult importMVN(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  SmallVector<int64_t> axes = ctx.getInts("axes");
  if (!ctx.attribute("axes"))
    axes = {0, 2, 3};
  return ctx.setResult(
      0, buildMeanVarianceNormalization(ctx.b, ctx.loc, *x, axes));
}

/// Einsum (opset 12+).
LogicalResult importEinsum(NodeContext &ctx) {
  FailureOr<SmallVector<Value>> in = allInputs(ctx);
  if (failed(in))
    return failure();
  return ctx.setResult(
      0, buildEinsum(ctx.b, ctx.loc, ctx.getString("equation", ""), *in));
}

} // namespace

void registerMathOpHandlers(OpHandlerTable &table) {
  static const std::pair<const char *, OpHandler> handlers[] = {
      {"Acos", importMath<MathFunctionKind::Acos>},
      {"Acosh", importMath<MathFunctionKind::Acosh>},
      {"And", importLogical<LogicalKind::And>},
      {"ArgMax", importArgReduce<true>},
      {"ArgMin", importArgReduce<false>},
      {"Asin", importMath<MathFunctionKind::Asin>},
      {"Asinh", importMath<MathFunctionKind::Asinh>},
      {"Atan", importMath<MathFunctionKind::Atan>},
      {"Atanh", importMath<MathFunctionKind::Atanh>},
      {"BitShift", importBitShift},
      {"Cast", importCast},
      {"CastLike", importCastLike},
      {"Ceil", importPointwise<PointwiseKind::Ceil>},
      {"Celu", importParamActivation<ParamActivationKind::Celu>},
      {"Clip", importClip},
      {"Cos", importPointwise<PointwiseKind::Cos>},
      {"Cosh", importMath<MathFunctionKind::Cosh>},
      {"CumSum", importCumSum},
      {"Einsum", importEinsum},
      {"Elu", importElu},
      {"Equal", importCompare<CompareKind::Equal>},
      {"Floor", importPointwise<PointwiseKind::Floor>},
      {"Greater", importCompare<CompareKind::Greater>},
      {"GreaterOrEqual", importCompare<CompareKind::GreaterEqual>},
      {"HardSigmoid", importParamActivation<ParamActivationKind::HardSigmoid>},
      {"HardSwish", importParamActivation<ParamActivationKind::HardSwish>},
      {"Hardmax", importHardmax},
      {"InstanceNormalization", importInstanceNorm},
      {"IsInf", importIsInf},
      {"IsNaN", importIsNaN},
      {"LRN", importLRN},
      {"LayerNormalization", importLayerNorm},
      {"LeakyRelu", importLeakyRelu},
      {"Less", importCompare<CompareKind::Less>},
      {"LessOrEqual", importCompare<CompareKind::LessEqual>},
      {"LogSoftmax", importLogSoftmax},
      {"Mean", importSumMean<true>},
      {"MeanVarianceNormalization", importMVN},
      {"Mish", importPointwise<PointwiseKind::Mish>},
      {"Mod", importMod},
      {"Not", importNot},
      {"Or", importLogical<LogicalKind::Or>},
      {"PRelu", importPRelu},
      {"Pow", importPow},
      {"Reciprocal", importPointwise<PointwiseKind::Reciprocal>},
      {"ReduceL1", importReduce<OnnxReduce::L1>},
      {"ReduceL2", importReduce<OnnxReduce::L2>},
      {"ReduceLogSum", importReduce<OnnxReduce::LogSum>},
      {"ReduceLogSumExp", importReduce<OnnxReduce::LogSumExp>},
      {"ReduceMax", importReduce<OnnxReduce::Max>},
      {"ReduceMean", importReduce<OnnxReduce::Mean>},
      {"ReduceMin", importReduce<OnnxReduce::Min>},
      {"ReduceProd", importReduce<OnnxReduce::Prod>},
      {"ReduceSum", importReduce<OnnxReduce::Sum>},
      {"ReduceSumSquare", importReduce<OnnxReduce::SumSquare>},
      {"Round", importPointwise<PointwiseKind::Round>},
      {"Selu", importSelu},
      {"Shrink", importParamActivation<ParamActivationKind::Shrink>},
      {"Sign", importPointwise<PointwiseKind::Sign>},
      {"Sin", importPointwise<PointwiseKind::Sin>},
      {"Sinh", importMath<MathFunctionKind::Sinh>},
      {"Softplus", importSoftplus},
      {"Softsign", importPointwise<PointwiseKind::Softsign>},
      {"Sum", importSumMean<false>},
      {"Tan", importMath<MathFunctionKind::Tan>},
      {"ThresholdedRelu",
       importParamActivation<ParamActivationKind::ThresholdedRelu>},
      {"Where", importWhere},
      {"Xor", importLogical<LogicalKind::Xor>},
  };
  for (const auto &[name, handler] : handlers)
    table[name] = handler;
}

} // namespace mlprog::onnx_import
