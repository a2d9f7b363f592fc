//===- ReductionDynamic.cpp - Reductions over run-time axes ---------------===//
//
// Reductions whose axes are a tensor computed at run time (ONNX Reduce*-18
// take them as an input, and exported function bodies compute them from
// graph inputs). Each dim is reduced under an scf.if on whether the axes name
// it, so neither the axes nor the input extents need to be known.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

/// For each dim of a rank-`rank` tensor an i1 that holds when the run-time
/// `axes` (1-D integer, any length) name it; empty axes name every dim
/// unless `noopWithEmptyAxes`.
static SmallVector<Value> namedDims(OpBuilder &b, Location loc, Value axes,
                                    int64_t rank, bool noopWithEmptyAxes) {
  IndexMath m{b, loc};
  Value no = arith::ConstantIntOp::create(b, loc, 0, 1);
  Value len = tensor::DimOp::create(b, loc, axes, 0);
  SmallVector<Value> flags = loop(
      b, loc, m.c(0), len, SmallVector<Value>(rank, no),
      [&](OpBuilder &nb, Location nl, Value i, ValueRange acc) {
        IndexMath nm{nb, nl};
        Value a = nm.wrap(
            nm.index(tensor::ExtractOp::create(nb, nl, axes, ValueRange{i})),
            nm.c(rank));
        SmallVector<Value> next;
        for (int64_t d = 0; d < rank; ++d)
          next.push_back(
              arith::OrIOp::create(nb, nl, acc[d], nm.eq(a, nm.c(d))));
        return next;
      });
  if (!noopWithEmptyAxes) {
    Value empty = m.eq(len, m.c(0));
    for (Value &f : flags)
      f = arith::OrIOp::create(b, loc, f, empty);
  }
  return flags;
}

/// Reduces (Sum, Max, Min or Prod) each dim d of `x` for which `flags[d]`
/// holds, keeping it as extent 1; the extents of such dims become dynamic.
/// Dim d is one linalg.generic whose output extent is (flag ? 1 : n) and
/// whose reduction loop k has extent (flag ? n : 1), reading x at i_d + k:
/// a sum over the dim or a copy, with no region on the condition.
static Value reduceFlagged(OpBuilder &b, Location loc, ReduceKind kind, Value x,
                           ArrayRef<Value> flags) {
  IndexMath m{b, loc};
  MLIRContext *ctx = b.getContext();
  Value cur = x;
  int64_t rank = flags.size();
  for (int64_t d = 0; d < rank; ++d) {
    auto t = cast<RankedTensorType>(cur.getType());
    Type et = t.getElementType();
    if (t.getDimSize(d) == 1)
      continue;
    Value n = tensor::DimOp::create(b, loc, cur, d);
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, cur);
    sizes[d] = m.select(flags[d], m.c(1), n);
    Value window =
        tensor::EmptyOp::create(b, loc, {m.select(flags[d], n, m.c(1))}, et)
            .getResult();
    Value acc = createFilled(b, loc, sizes, reductionInit(b, kind, et));
    // Loops: the rank output dims, then k.
    SmallVector<AffineExpr> in;
    for (int64_t j = 0; j < rank; ++j)
      in.push_back(getAffineDimExpr(j, ctx) +
                   (j == d ? getAffineDimExpr(rank, ctx)
                           : getAffineConstantExpr(0, ctx)));
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank + 1, 0, in, ctx),
        AffineMap::get(rank + 1, 0, getAffineDimExpr(rank, ctx)),
        AffineMap::getMultiDimIdentityMap(rank + 1, ctx).getMajorSubMap(rank)};
    SmallVector<utils::IteratorType> iterators = parallelIterators(rank);
    iterators.push_back(utils::IteratorType::reduction);
    cur = linalg::GenericOp::create(
              b, loc, acc.getType(), ValueRange{cur, window}, acc, maps,
              iterators,
              [&](OpBuilder &nb, Location nl, ValueRange args) {
                linalg::YieldOp::create(
                    nb, nl, reductionCombine(nb, nl, kind, args[0], args[2]));
              })
              .getResult(0);
  }
  return cur;
}

/// The checks and the static-length cases shared by both entry points:
/// returns the result when it is settled here, null to go on.
static FailureOr<Value> checkRuntimeAxes(OpBuilder &b, Location loc, Value x,
                                         Value axes, bool keepDims,
                                         bool noopWithEmptyAxes,
                                         function_ref<FailureOr<Value>()> all) {
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  if (!xt || !xt.getElementType().isIntOrFloat())
    return emitError(loc) << "reduction needs a ranked numeric tensor, got "
                          << x.getType();
  auto at = dyn_cast<RankedTensorType>(axes.getType());
  if (!at || at.getRank() != 1 || !at.getElementType().isSignlessInteger())
    return emitError(loc)
           << "reduction: axes must be a 1-D integer tensor, got "
           << axes.getType();
  if (at.getDimSize(0) == 0)
    return noopWithEmptyAxes ? FailureOr<Value>(x) : all();
  if (!keepDims && at.isDynamicDim(0))
    return emitError(loc) << "unsupported reduction without keepdims over "
                             "run-time axes of unknown length";
  return Value();
}

/// Drops the reduced (extent-1) dims named by `axes` unless `keepDims`.
static FailureOr<Value> finish(OpBuilder &b, Location loc, Value r, Value axes,
                               bool keepDims) {
  if (keepDims)
    return r;
  return buildSqueezeDynamic(b, loc, r, axes);
}

FailureOr<Value> mlprog::buildReduceRuntimeAxes(OpBuilder &b, Location loc,
                                                ReduceKind kind, Value x,
                                                Value axes, bool keepDims,
                                                bool noopWithEmptyAxes) {
  FailureOr<Value> settled =
      checkRuntimeAxes(b, loc, x, axes, keepDims, noopWithEmptyAxes, [&] {
        return buildReduce(b, loc, kind, x, {}, keepDims);
      });
  if (failed(settled) || *settled)
    return settled;
  Type et = elementTypeOf(x);
  if (kind == ReduceKind::Mean && !isa<FloatType>(et))
    return emitError(loc) << "mean reduction needs a float tensor, got "
                          << x.getType();
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<Value> flags = namedDims(b, loc, axes, rank, noopWithEmptyAxes);
  Value r = reduceFlagged(
      b, loc, kind == ReduceKind::Mean ? ReduceKind::Sum : kind, x, flags);
  if (kind == ReduceKind::Mean) {
    // Divide by the product of the reduced extents.
    IndexMath m{b, loc};
    Value count = m.c(1);
    for (int64_t d = 0; d < rank; ++d)
      count =
          m.mul(count, m.select(flags[d], tensor::DimOp::create(b, loc, x, d),
                                m.c(1)));
    Value n = arith::UIToFPOp::create(
        b, loc, et,
        arith::IndexCastUIOp::create(b, loc, b.getI64Type(), count));
    Value nt = tensor::FromElementsOp::create(
        b, loc, RankedTensorType::get({}, et), ValueRange{n});
    FailureOr<Value> q =
        buildElementwiseBinary(b, loc, BinaryOpKind::Div, r, nt);
    if (failed(q))
      return failure();
    r = *q;
  }
  return finish(b, loc, r, axes, keepDims);
}

FailureOr<Value> mlprog::buildNormReduceRuntimeAxes(OpBuilder &b, Location loc,
                                                    NormReduceKind kind,
                                                    Value x, Value axes,
                                                    bool keepDims,
                                                    bool noopWithEmptyAxes) {
  FailureOr<Value> settled =
      checkRuntimeAxes(b, loc, x, axes, keepDims, noopWithEmptyAxes, [&] {
        return buildNormReduce(b, loc, kind, x, {}, keepDims);
      });
  if (failed(settled) || *settled)
    return settled;
  Type et = elementTypeOf(x);
  bool needsFloat =
      kind != NormReduceKind::L1 && kind != NormReduceKind::SumSquare;
  if (needsFloat && !isa<FloatType>(et))
    return emitError(loc) << "norm reduction needs a ranked float tensor, got "
                          << x.getType();
  if (kind == NormReduceKind::LogSumExp)
    return emitError(loc) << "unsupported ReduceLogSumExp over run-time axes";
  Value pre = x;
  if (kind == NormReduceKind::L1)
    pre = unaryOrNull(b, loc, UnaryOpKind::Abs, x);
  else if (kind == NormReduceKind::L2 || kind == NormReduceKind::SumSquare)
    pre = binaryOrNull(b, loc, BinaryOpKind::Mul, x, x);
  if (!pre)
    return failure();
  SmallVector<Value> flags =
      namedDims(b, loc, axes, cast<RankedTensorType>(x.getType()).getRank(),
                noopWithEmptyAxes);
  FailureOr<Value> r =
      finish(b, loc, reduceFlagged(b, loc, ReduceKind::Sum, pre, flags), axes,
             keepDims);
  if (failed(r) || kind == NormReduceKind::L1 ||
      kind == NormReduceKind::SumSquare)
    return r;
  return buildElementwiseUnary(
      b, loc, kind == NormReduceKind::L2 ? UnaryOpKind::Sqrt : UnaryOpKind::Log,
      *r);
}
