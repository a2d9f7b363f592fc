//===- ReductionOps.cpp - ONNX reductions and softmax ---------------------===//
//
// Handlers for the Reduce* family, ArgMax/ArgMin, CumSum and the softmax
// family (Softmax, LogSoftmax, Hardmax). The one ONNX specific piece here is
// the dispatch on attributes that ONNX passes as run-time inputs (reduction
// axes, cumsum axis): every consistent variant is built and the run-time
// value selects one.
//
// Handlers only read operands and attributes (with the ONNX operator spec's
// defaults for the model's opset) and call the shared builders in
// mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"

#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace mlprog::onnx_import {

namespace {

/// Softmax. Opset < 13: the input is coerced to 2-D at `axis` (default 1),
/// i.e. softmax over dims [axis, rank). Opset 13+: over `axis` (default -1).
LogicalResult importSoftmax(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  int64_t rank = rankOf(*x);
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", ctx.opset < 13 ? 1 : -1), rank);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> axes = {*axis};
  if (ctx.opset < 13)
    for (int64_t d = *axis + 1; d < rank; ++d)
      axes.push_back(d);
  return ctx.setResult(0, buildSoftmax(ctx.b, ctx.loc, *x, axes));
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

/// Reduces over run-time axes dim by dim (buildReduceRuntimeAxes), for
/// inputs or outputs of unknown shape; typed with the inferred output shape
/// where there is one.
LogicalResult reduceFlaggedDims(NodeContext &ctx, OnnxReduce kind, Value x,
                                Value axesValue, bool keepDims, bool noop) {
  FailureOr<Value> r;
  switch (kind) {
  case OnnxReduce::Sum:
  case OnnxReduce::Mean:
  case OnnxReduce::Max:
  case OnnxReduce::Min:
  case OnnxReduce::Prod: {
    static constexpr ReduceKind kinds[] = {ReduceKind::Sum, ReduceKind::Mean,
                                           ReduceKind::Max, ReduceKind::Min,
                                           ReduceKind::Prod};
    r = buildReduceRuntimeAxes(ctx.b, ctx.loc, kinds[int(kind)], x, axesValue,
                               keepDims, noop);
    break;
  }
  default: {
    static constexpr NormReduceKind kinds[] = {
        NormReduceKind::L1, NormReduceKind::L2, NormReduceKind::LogSum,
        NormReduceKind::LogSumExp, NormReduceKind::SumSquare};
    r = buildNormReduceRuntimeAxes(ctx.b, ctx.loc,
                                   kinds[int(kind) - int(OnnxReduce::L1)], x,
                                   axesValue, keepDims, noop);
    break;
  }
  }
  if (failed(r))
    return failure();
  std::optional<SmallVector<int64_t>> hint = ctx.staticOutputShape(0);
  return ctx.setResult(0, hint ? refineToShape(ctx.b, ctx.loc, *r, *hint) : *r);
}

/// Reduces over axes given at run time. With static input and output shapes
/// and a static number of axes, every subset of dims that turns the input
/// shape into the declared output shape is built and the run-time axes pick
/// one (static result types); otherwise each dim is reduced under a run-time
/// condition (reduceFlaggedDims).
LogicalResult reduceRuntimeAxes(NodeContext &ctx, OnnxReduce kind, Value x,
                                Value axesValue, bool keepDims, bool noop) {
  auto xt = cast<RankedTensorType>(x.getType());
  auto at = dyn_cast<RankedTensorType>(axesValue.getType());
  std::optional<SmallVector<int64_t>> outShape = ctx.staticOutputShape(0);
  int64_t rank = xt.getRank();
  if (!xt.hasStaticShape() || !outShape || !at || !at.hasStaticShape() ||
      at.getRank() != 1 || rank > 8 || at.getDimSize(0) == 0)
    return reduceFlaggedDims(ctx, kind, x, axesValue, keepDims, noop);
  int64_t numAxes = at.getDimSize(0);
  // The reduced-dim masks consistent with the declared output shape.
  SmallVector<unsigned> masks;
  for (unsigned mask = 1; mask < (1u << rank); ++mask) {
    SmallVector<int64_t> shape;
    for (int64_t d = 0; d < rank; ++d) {
      if (!(mask & (1u << d)))
        shape.push_back(xt.getDimSize(d));
      else if (keepDims)
        shape.push_back(1);
    }
    if (shape == *outShape && llvm::popcount(mask) <= numAxes)
      masks.push_back(mask);
  }
  if (masks.empty())
    return emitError(ctx.loc)
           << ctx.node.op_type() << ": no axes give the declared output shape";
  if (masks.size() > 8)
    return reduceFlaggedDims(ctx, kind, x, axesValue, keepDims, noop);
  // Read the axes once.
  SmallVector<Value> axisValues;
  for (int64_t k = 0; k < numAxes; ++k) {
    Value idx = arith::ConstantIndexOp::create(ctx.b, ctx.loc, k);
    axisValues.push_back(
        tensor::ExtractOp::create(ctx.b, ctx.loc, axesValue, idx));
  }
  SmallVector<std::pair<Value, Value>> candidates;
  for (unsigned mask : masks) {
    SmallVector<int64_t> axes;
    for (int64_t d = 0; d < rank; ++d)
      if (mask & (1u << d))
        axes.push_back(d);
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

/// CumSum (opset 11+), CumProd (opset 26): the axis is input 1, a scalar
/// that may be computed at run time; exclusive, reverse default 0.
template <ReduceKind Kind> LogicalResult importCumulative(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), axisValue = ctx.input(1);
  if (failed(x) || failed(axisValue))
    return failure();
  bool exclusive = ctx.getInt("exclusive", 0),
       reverse = ctx.getInt("reverse", 0);
  if (DenseElementsAttr c = ctx.optionalConstantInput(1)) {
    SmallVector<int64_t> axis = intsOf(c);
    if (axis.size() != 1)
      return emitError(ctx.loc)
             << ctx.node.op_type() << " axis must be a scalar";
    return ctx.setResult(
        0, buildCumSum(ctx.b, ctx.loc, *x, axis[0], exclusive, reverse, Kind));
  }
  auto at = dyn_cast<RankedTensorType>(axisValue->getType());
  if (!at || at.getNumElements() != 1)
    return emitError(ctx.loc) << ctx.node.op_type() << " axis must be a scalar";
  int64_t rank = rankOf(*x);
  if (rank == 0)
    return emitError(ctx.loc) << ctx.node.op_type()
                              << " input must have rank >= 1 (a scalar has no "
                                 "axis to accumulate along)";
  Value zero = arith::ConstantIndexOp::create(ctx.b, ctx.loc, 0);
  Value axis = tensor::ExtractOp::create(
      ctx.b, ctx.loc, *axisValue, SmallVector<Value>(at.getRank(), zero));
  SmallVector<std::pair<Value, Value>> candidates;
  for (int64_t d = 0; d < rank; ++d) {
    FailureOr<Value> r =
        buildCumSum(ctx.b, ctx.loc, *x, d, exclusive, reverse, Kind);
    if (failed(r))
      return failure();
    candidates.push_back({axisIs(ctx, axis, d, rank), *r});
  }
  return ctx.setResult(0, selectCandidate(ctx, candidates));
}

} // namespace

void registerReductionOps(OpTable &table) {
  table.add({
      {"ArgMax", importArgReduce<true>},
      {"ArgMin", importArgReduce<false>},
      {"CumProd", importCumulative<ReduceKind::Prod>},
      {"CumSum", importCumulative<ReduceKind::Sum>},
      {"Hardmax", importHardmax},
      {"LogSoftmax", importLogSoftmax},
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
      {"Softmax", importSoftmax},
  });
}

} // namespace mlprog::onnx_import
