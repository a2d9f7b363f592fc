//===- Pool.cpp - Pooling builders ----------------------------------------===//

#include "mlprog/Import/Common/Pool.h"
#include "Utils.h"
#include "mlprog/Import/Common/Conv.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

namespace {
enum class PoolKind { Max, Sum };
} // namespace

/// Loops (N, C, O1..On | K1..Kn) of a pooling generic and its maps: the
/// padded input read at O_i * stride_i + K_i * dilation_i, the `window`
/// operand (which only gives the K loops their extents) at K, and every
/// output at (N, C, O...).
static std::pair<SmallVector<AffineMap>, SmallVector<utils::IteratorType>>
poolingMaps(MLIRContext *ctx, const Window &w, unsigned numOutputs) {
  unsigned n = w.strides.size(), loops = 2 + 2 * n;
  SmallVector<AffineExpr> inExprs = {getAffineDimExpr(0, ctx),
                                     getAffineDimExpr(1, ctx)};
  llvm::append_range(inExprs, windowExprs(ctx, w, 2, 2 + n));
  SmallVector<AffineExpr> windowDims, outExprs;
  for (unsigned i = 0; i < n; ++i)
    windowDims.push_back(getAffineDimExpr(2 + n + i, ctx));
  for (unsigned i = 0; i < 2 + n; ++i)
    outExprs.push_back(getAffineDimExpr(i, ctx));
  SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, inExprs, ctx),
                                 AffineMap::get(loops, 0, windowDims, ctx)};
  maps.append(numOutputs, AffineMap::get(loops, 0, outExprs, ctx));
  SmallVector<utils::IteratorType> iterators(loops,
                                             utils::IteratorType::reduction);
  for (unsigned i = 0; i < 2 + n; ++i)
    iterators[i] = utils::IteratorType::parallel;
  return {maps, iterators};
}

/// Pooling for spatial ranks without a channels-first named op (upstream's
/// 3-D pooling ops are channels-last only): one linalg.generic per
/// poolingMaps, combining like linalg.pooling_nchw_{max,sum}.
static Value poolGeneric(OpBuilder &b, Location loc, PoolKind kind,
                         Value padded, Value window, Value init,
                         const Window &w) {
  auto [maps, iterators] = poolingMaps(b.getContext(), w, 1);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{padded, window}, init, maps,
             iterators,
             [kind](OpBuilder &nb, Location nl, ValueRange args) {
               Value x = args[0], acc = args[2], r;
               bool isFloat = isa<FloatType>(x.getType());
               if (kind == PoolKind::Max)
                 r = isFloat
                         ? arith::MaximumFOp::create(nb, nl, acc, x).getResult()
                         : arith::MaxSIOp::create(nb, nl, acc, x).getResult();
               else
                 r = isFloat
                         ? arith::AddFOp::create(nb, nl, acc, x).getResult()
                         : arith::AddIOp::create(nb, nl, acc, x).getResult();
               linalg::YieldOp::create(nb, nl, r);
             })
      .getResult(0);
}

namespace {
/// Operands of a pooling op after checks and padding.
struct PoolOperands {
  Window w;
  /// Input padded with the pad value, [N, C, P1..Pn].
  Value padded;
  /// Empty [K1..Kn] tensor giving the window extents.
  Value window;
  /// Output sizes [N, C, O1..On].
  SmallVector<OpFoldResult> sizes;
};
} // namespace

/// Checks a pooling input [N, C, D1..Dn] (n >= 1), resolves the window and
/// pads the input with `padValue`.
static FailureOr<PoolOperands> preparePool(OpBuilder &b, Location loc,
                                           StringRef what, Value input,
                                           ArrayRef<int64_t> kernel,
                                           const WindowParams &params,
                                           bool ceilMode, TypedAttr padValue) {
  auto it = dyn_cast<RankedTensorType>(input.getType());
  if (!it || it.getRank() < 3)
    return emitError(loc) << what
                          << " needs an [N, C, D1, ..., Dn] input, "
                             "got "
                          << input.getType();
  FailureOr<Window> w = resolveWindow(loc, what, it.getShape().drop_front(2),
                                      kernel, params, ceilMode);
  if (failed(w))
    return failure();
  PoolOperands ops;
  ops.w = *w;
  ops.padded = padSpatial(b, loc, input, *w, padValue);
  ops.window = tensor::EmptyOp::create(b, loc, kernel, it.getElementType());
  ops.sizes =
      outputSizes(b, loc, input, tensor::getMixedSize(b, loc, input, 1), *w);
  return ops;
}

/// Shared part of max and sum pooling: checks, pads with `padValue`, and
/// emits linalg.pooling_{ncw,nchw}_{max,sum} (1-D, 2-D) or a generic window
/// reduction (other ranks) into an `initValue`-filled init.
static FailureOr<std::pair<Value, Window>>
buildPool(OpBuilder &b, Location loc, StringRef what, PoolKind kind,
          Value input, ArrayRef<int64_t> kernel, const WindowParams &params,
          bool ceilMode, TypedAttr padValue, TypedAttr initValue) {
  FailureOr<PoolOperands> ops =
      preparePool(b, loc, what, input, kernel, params, ceilMode, padValue);
  if (failed(ops))
    return failure();
  Value init = createFilled(b, loc, ops->sizes, initValue);
  Attribute strides = b.getI64TensorAttr(ops->w.strides);
  Attribute dilations = b.getI64TensorAttr(ops->w.dilations);
  SmallVector<Value> ins = {ops->padded, ops->window};
  Type rt = init.getType();
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  Value r;
  if (rank > 4)
    r = poolGeneric(b, loc, kind, ops->padded, ops->window, init, ops->w);
  else if (kind == PoolKind::Max && rank == 4)
    r = linalg::PoolingNchwMaxOp::create(b, loc, rt, ins, init, strides,
                                         dilations)
            .getResult(0);
  else if (kind == PoolKind::Max)
    r = linalg::PoolingNcwMaxOp::create(b, loc, rt, ins, init, strides,
                                        dilations)
            .getResult(0);
  else if (rank == 4)
    r = linalg::PoolingNchwSumOp::create(b, loc, rt, ins, init, strides,
                                         dilations)
            .getResult(0);
  else
    r = linalg::PoolingNcwSumOp::create(b, loc, rt, ins, init, strides,
                                        dilations)
            .getResult(0);
  return std::make_pair(r, ops->w);
}

/// Flips the sign bit of integer `x`, mapping unsigned order onto signed
/// order (an involution), so unsigned max pooling can use the signed op.
static Value flipSignBit(OpBuilder &b, Location loc, Value x) {
  Type et = cast<RankedTensorType>(x.getType()).getElementType();
  return *buildBroadcastedGeneric(
      b, loc, x, et, [&](OpBuilder &nb, Location nl, ValueRange args) {
        APInt sign = APInt::getSignMask(et.getIntOrFloatBitWidth());
        Value mask =
            arith::ConstantOp::create(nb, nl, nb.getIntegerAttr(et, sign));
        return arith::XOrIOp::create(nb, nl, args[0], mask).getResult();
      });
}

FailureOr<Value> mlprog::buildMaxPool(OpBuilder &b, Location loc, Value input,
                                      ArrayRef<int64_t> kernel,
                                      const WindowParams &params, bool ceilMode,
                                      bool isUnsigned) {
  auto it = dyn_cast<RankedTensorType>(input.getType());
  if (!it || !it.getElementType().isIntOrFloat())
    return emitError(loc) << "max pool needs an int or float tensor, got "
                          << input.getType();
  bool flip = isUnsigned && it.getElementType().isSignlessInteger();
  if (flip)
    input = flipSignBit(b, loc, input);
  TypedAttr lowest = getLowestAttr(it.getElementType());
  FailureOr<std::pair<Value, Window>> r =
      buildPool(b, loc, "max pool", PoolKind::Max, input, kernel, params,
                ceilMode, lowest, lowest);
  if (failed(r))
    return failure();
  return flip ? flipSignBit(b, loc, r->first) : r->first;
}

FailureOr<std::pair<Value, Value>> mlprog::buildMaxPoolWithIndices(
    OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> kernel,
    const WindowParams &params, bool ceilMode, bool spatialColumnMajor,
    bool isUnsigned, bool planeIndices) {
  auto it = dyn_cast<RankedTensorType>(input.getType());
  if (!it || !it.getElementType().isIntOrFloat())
    return emitError(loc) << "max pool needs an int or float tensor, got "
                          << input.getType();
  if (llvm::any_of(it.getShape().drop_front(1), ShapedType::isDynamic))
    return emitError(loc) << "unsupported max pool indices with dynamic "
                             "channel or spatial extents";
  Type et = it.getElementType();
  bool flip = isUnsigned && et.isSignlessInteger();
  if (flip)
    input = flipSignBit(b, loc, input);
  TypedAttr lowest = getLowestAttr(et);
  FailureOr<PoolOperands> ops =
      preparePool(b, loc, "max pool", input, kernel, params, ceilMode, lowest);
  if (failed(ops))
    return failure();
  Type i64 = b.getI64Type();
  Value values = createFilled(b, loc, ops->sizes, lowest);
  Value indices = createFilled(b, loc, ops->sizes, b.getZeroAttr(i64));
  auto [maps, iterators] = poolingMaps(b.getContext(), ops->w, 2);
  const Window &w = ops->w;
  ArrayRef<int64_t> shape = it.getShape();
  unsigned n = kernel.size();
  auto body = [&](OpBuilder &nb, Location nl, ValueRange args) {
    Value x = args[0], best = args[2], bestIndex = args[3];
    auto index = [&](unsigned dim) -> Value {
      return linalg::IndexOp::create(nb, nl, dim);
    };
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(nb, nl, v);
    };
    // Offset in the unpadded input: ((n * C + c) * D1 + p1) * D2 + p2 ...
    // (without n * C + c for plane indices)
    // with p_i = o_i * stride_i + k_i * dilation_i - padBegin_i, the spatial
    // dims taken last to first when column-major.
    Value flat =
        planeIndices
            ? constant(0)
            : arith::AddIOp::create(
                  nb, nl,
                  arith::MulIOp::create(nb, nl, index(0), constant(shape[1])),
                  index(1))
                  .getResult();
    for (unsigned j = 0; j < n; ++j) {
      unsigned i = spatialColumnMajor ? n - 1 - j : j;
      Value pos = arith::AddIOp::create(
          nb, nl,
          arith::MulIOp::create(nb, nl, index(2 + i), constant(w.strides[i])),
          arith::MulIOp::create(nb, nl, index(2 + n + i),
                                constant(w.dilations[i])));
      pos = arith::SubIOp::create(nb, nl, pos, constant(w.padsBegin[i]));
      flat = arith::AddIOp::create(
          nb, nl, arith::MulIOp::create(nb, nl, flat, constant(shape[2 + i])),
          pos);
    }
    // Strictly greater: the first maximum in window order wins, as in
    // onnxruntime; padding holds the lowest value and never wins.
    Value greater =
        isa<FloatType>(et)
            ? arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OGT, x, best)
                  .getResult()
            : arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sgt, x, best)
                  .getResult();
    Value flat64 = arith::IndexCastOp::create(nb, nl, i64, flat);
    linalg::YieldOp::create(
        nb, nl,
        ValueRange{
            arith::SelectOp::create(nb, nl, greater, x, best),
            arith::SelectOp::create(nb, nl, greater, flat64, bestIndex)});
  };
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{values.getType(), indices.getType()},
      ValueRange{ops->padded, ops->window}, ValueRange{values, indices}, maps,
      iterators, body);
  Value result = generic.getResult(0);
  return std::make_pair(flip ? flipSignBit(b, loc, result) : result,
                        generic.getResult(1));
}

/// Number of window taps of output `o` that land in [lo, hi) (one dim).
static int64_t countTaps(int64_t o, int64_t stride, int64_t dilation,
                         int64_t padBegin, int64_t kernel, int64_t lo,
                         int64_t hi) {
  int64_t count = 0;
  for (int64_t j = 0; j < kernel; ++j) {
    int64_t p = o * stride - padBegin + j * dilation;
    count += p >= lo && p < hi;
  }
  return count;
}

FailureOr<Value> mlprog::buildAveragePool(OpBuilder &b, Location loc,
                                          Value input, ArrayRef<int64_t> kernel,
                                          const WindowParams &params,
                                          bool ceilMode, bool countIncludePad,
                                          int64_t divisorOverride) {
  auto it = dyn_cast<RankedTensorType>(input.getType());
  if (!it || !isa<FloatType>(it.getElementType()))
    return emitError(loc) << "average pool needs a float tensor, got "
                          << input.getType();
  Type et = it.getElementType();
  TypedAttr zero = b.getZeroAttr(et);
  FailureOr<std::pair<Value, Window>> r =
      buildPool(b, loc, "average pool", PoolKind::Sum, input, kernel, params,
                ceilMode, zero, zero);
  if (failed(r))
    return failure();
  auto &[sum, w] = *r;
  // Divisors depend only on the static geometry: fold them to a constant.
  SmallVector<SmallVector<int64_t>> perDim;
  for (size_t i = 0; i < kernel.size(); ++i) {
    int64_t in = it.getDimSize(i + 2);
    int64_t lo = countIncludePad ? -w.padsBegin[i] : 0;
    int64_t hi = countIncludePad ? in + w.padsEnd[i] : in;
    SmallVector<int64_t> counts;
    for (int64_t o = 0; o < w.outputSpatial[i]; ++o)
      counts.push_back(countTaps(o, w.strides[i], w.dilations[i],
                                 w.padsBegin[i], kernel[i], lo, hi));
    perDim.push_back(std::move(counts));
  }
  // The divisor of an output position is the product of its per-dim counts;
  // enumerate positions in row-major order.
  int64_t numOutputs = 1;
  for (int64_t o : w.outputSpatial)
    numOutputs *= o;
  SmallVector<Attribute> divisors;
  for (int64_t flat = 0; flat < numOutputs; ++flat) {
    int64_t count = 1, rest = flat;
    for (size_t i = perDim.size(); i-- > 0;) {
      count *= perDim[i][rest % w.outputSpatial[i]];
      rest /= w.outputSpatial[i];
    }
    count =
        divisorOverride != 0 ? divisorOverride : std::max<int64_t>(count, 1);
    divisors.push_back(b.getFloatAttr(et, double(count)));
  }
  auto divType = RankedTensorType::get(w.outputSpatial, et);
  Value div = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(divType, divisors));
  unsigned rank = it.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> spatial;
  for (unsigned d = 2; d < rank; ++d)
    spatial.push_back(getAffineDimExpr(d, ctx));
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<AffineMap> maps = {
      identity, AffineMap::get(rank, 0, spatial, ctx), identity};
  Value init = createEmpty(b, loc, tensor::getMixedSizes(b, loc, sum), et);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{sum, div}, init, maps,
             parallelIterators(rank),
             [](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(
                   nb, nl,
                   ValueRange{arith::DivFOp::create(nb, nl, args[0], args[1])});
             })
      .getResult(0);
}

FailureOr<Value> mlprog::buildLpPool(OpBuilder &b, Location loc, Value input,
                                     ArrayRef<int64_t> kernel,
                                     const WindowParams &params, bool ceilMode,
                                     double p) {
  auto it = dyn_cast<RankedTensorType>(input.getType());
  if (!it || !isa<FloatType>(it.getElementType()))
    return emitError(loc) << "lp pool needs a float tensor, got "
                          << input.getType();
  if (!(p > 0))
    return emitError(loc) << "lp pool needs p > 0, got " << p;
  Type et = it.getElementType();
  FailureOr<Value> powered = buildBroadcastedGeneric(
      b, loc, input, et, [&](OpBuilder &nb, Location nl, ValueRange args) {
        if (p == 2)
          return arith::MulFOp::create(nb, nl, args[0], args[0]).getResult();
        Value a = math::AbsFOp::create(nb, nl, args[0]);
        if (p == 1)
          return a;
        return math::PowFOp::create(nb, nl, a, createScalar(nb, nl, et, p))
            .getResult();
      });
  if (failed(powered))
    return failure();
  TypedAttr zero = b.getZeroAttr(et);
  FailureOr<std::pair<Value, Window>> sum =
      buildPool(b, loc, "lp pool", PoolKind::Sum, *powered, kernel, params,
                ceilMode, zero, zero);
  if (failed(sum))
    return failure();
  if (p == 1)
    return sum->first;
  return buildBroadcastedGeneric(
      b, loc, sum->first, et, [&](OpBuilder &nb, Location nl, ValueRange args) {
        if (p == 2)
          return math::SqrtOp::create(nb, nl, args[0]).getResult();
        return math::PowFOp::create(nb, nl, args[0],
                                    createScalar(nb, nl, et, 1.0 / p))
            .getResult();
      });
}

FailureOr<Value> mlprog::buildGlobalAveragePool(OpBuilder &b, Location loc,
                                                Value input) {
  auto it = dyn_cast<RankedTensorType>(input.getType());
  if (!it || it.getRank() < 3 || !isa<FloatType>(it.getElementType()) ||
      llvm::any_of(it.getShape().drop_front(2), ShapedType::isDynamic))
    return emitError(loc) << "global average pool needs a float [N, C, D...] "
                             "tensor with static spatial extents, got "
                          << input.getType();
  unsigned rank = it.getRank();
  Type et = it.getElementType();
  int64_t count = 1;
  for (int64_t d : it.getShape().drop_front(2))
    count *= d;
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> outExprs = {getAffineDimExpr(0, ctx),
                                      getAffineDimExpr(1, ctx)};
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                 AffineMap::get(rank, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  iterators[0] = iterators[1] = utils::IteratorType::parallel;
  Value acc = createFilled(b, loc,
                           {tensor::getMixedSize(b, loc, input, 0),
                            tensor::getMixedSize(b, loc, input, 1)},
                           b.getZeroAttr(et));
  Value sum =
      linalg::GenericOp::create(
          b, loc, acc.getType(), input, acc, maps, iterators,
          [](OpBuilder &nb, Location nl, ValueRange args) {
            linalg::YieldOp::create(
                nb, nl,
                ValueRange{arith::AddFOp::create(nb, nl, args[0], args[1])});
          })
          .getResult(0);
  Value init = createEmpty(b, loc, tensor::getMixedSizes(b, loc, sum), et);
  AffineMap id2 = AffineMap::getMultiDimIdentityMap(2, ctx);
  Value mean =
      linalg::GenericOp::create(
          b, loc, init.getType(), sum, init, {id2, id2}, parallelIterators(2),
          [&](OpBuilder &nb, Location nl, ValueRange args) {
            Value n = createScalar(nb, nl, et, double(count));
            linalg::YieldOp::create(
                nb, nl, ValueRange{arith::DivFOp::create(nb, nl, args[0], n)});
          })
          .getResult(0);
  for (unsigned d = 2; d < rank; ++d)
    mean = insertUnitDim(b, loc, mean, d);
  return mean;
}

//===--- Adaptive pooling -------------------------------------------------===//

/// Checks an adaptive pooling input [N, C, D1..Dn] with static spatial
/// extents against `outputSize` [O1..On].
static LogicalResult checkAdaptive(Location loc, StringRef what, Value input,
                                   ArrayRef<OpFoldResult> outputSize,
                                   bool floatOnly) {
  auto it = dyn_cast<RankedTensorType>(input.getType());
  if (!it || it.getRank() < 3 ||
      !(floatOnly ? isa<FloatType>(it.getElementType())
                  : it.getElementType().isIntOrFloat()))
    return emitError(loc) << what << " needs " << (floatOnly ? "a float" : "an")
                          << " [N, C, D1, ..., Dn] input, got "
                          << input.getType();
  if (int64_t(outputSize.size()) != it.getRank() - 2)
    return emitError(loc) << what << ": " << outputSize.size()
                          << " output sizes for " << it.getRank() - 2
                          << " spatial dims";
  if (llvm::any_of(it.getShape().drop_front(2), ShapedType::isDynamic))
    return emitError(loc) << "unsupported " << what
                          << " with dynamic spatial extents";
  for (OpFoldResult o : outputSize) {
    std::optional<int64_t> c = getConstantIntValue(o);
    if (c && *c <= 0)
      return emitError(loc) << what << ": output sizes must be positive";
  }
  return success();
}

/// Longest adaptive window along a dim of `in` elements pooled to `out`:
/// windows are [floor(o * in / out), ceil((o + 1) * in / out)). For an
/// extent known only at run time, the bound min(in, ceil(in / out) + 1).
static OpFoldResult longestAdaptiveWindow(OpBuilder &b, Location loc,
                                          int64_t in, OpFoldResult out) {
  if (std::optional<int64_t> c = getConstantIntValue(out)) {
    int64_t longest = 1;
    for (int64_t o = 0; o < *c; ++o)
      longest = std::max(longest, ((o + 1) * in + *c - 1) / *c - (o * in) / *c);
    return b.getIndexAttr(longest);
  }
  IndexMath m{b, loc};
  Value o = cast<Value>(out);
  Value ceil = arith::CeilDivUIOp::create(b, loc, m.c(in), o);
  return m.min(m.add(ceil, m.c(1)), m.c(in));
}

/// Bounds [start, end) of the adaptive window of output index `o` (index)
/// along a dim of `in` elements pooled to `out`.
static std::pair<Value, Value> adaptiveBounds(IndexMath &m, Value o, int64_t in,
                                              OpFoldResult out) {
  Value outV = getValueOrCreateConstantIndexOp(m.b, m.loc, out);
  auto div = [&](Value x) {
    return arith::DivUIOp::create(m.b, m.loc, x, outV).getResult();
  };
  Value start = div(m.mul(o, m.c(in)));
  Value end = div(m.add(m.mul(m.add(o, m.c(1)), m.c(in)), m.sub(outV, m.c(1))));
  return {start, end};
}

/// One linalg.generic over (N, C, O1..On | K1..Kn), Ki the longest window
/// along dim i, reading the input at start_i + k_i (clamped into the input;
/// taps past the window's end are masked out). Max yields the maximum and
/// its plane index, otherwise the window sum.
static SmallVector<Value> adaptiveGeneric(OpBuilder &b, Location loc,
                                          Value input,
                                          ArrayRef<OpFoldResult> outputSize,
                                          bool isMax) {
  auto it = cast<RankedTensorType>(input.getType());
  Type et = it.getElementType();
  ArrayRef<int64_t> in = it.getShape().drop_front(2);
  unsigned n = outputSize.size(), loops = 2 + 2 * n;
  SmallVector<OpFoldResult> kernel;
  for (unsigned i = 0; i < n; ++i)
    kernel.push_back(longestAdaptiveWindow(b, loc, in[i], outputSize[i]));
  SmallVector<OpFoldResult> sizes = {tensor::getMixedSize(b, loc, input, 0),
                                     tensor::getMixedSize(b, loc, input, 1)};
  llvm::append_range(sizes, outputSize);
  Value window = createEmpty(b, loc, kernel, et);
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> windowDims, outExprs;
  for (unsigned i = 0; i < n; ++i)
    windowDims.push_back(getAffineDimExpr(2 + n + i, ctx));
  for (unsigned i = 0; i < 2 + n; ++i)
    outExprs.push_back(getAffineDimExpr(i, ctx));
  SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, windowDims, ctx)};
  SmallVector<Value> inits;
  if (isMax) {
    inits.push_back(createFilled(b, loc, sizes, getLowestAttr(et)));
    inits.push_back(createFilled(b, loc, sizes, b.getI64IntegerAttr(0)));
  } else {
    inits.push_back(createFilled(b, loc, sizes, b.getZeroAttr(et)));
  }
  maps.append(inits.size(), AffineMap::get(loops, 0, outExprs, ctx));
  SmallVector<utils::IteratorType> iterators(loops,
                                             utils::IteratorType::reduction);
  for (unsigned i = 0; i < 2 + n; ++i)
    iterators[i] = utils::IteratorType::parallel;
  auto body = [&](OpBuilder &nb, Location nl, ValueRange args) {
    IndexMath m{nb, nl};
    Value valid, first, flat = m.c(0);
    SmallVector<Value> at = {linalg::IndexOp::create(nb, nl, 0),
                             linalg::IndexOp::create(nb, nl, 1)};
    for (unsigned i = 0; i < n; ++i) {
      Value o = linalg::IndexOp::create(nb, nl, 2 + i);
      Value k = linalg::IndexOp::create(nb, nl, 2 + n + i);
      auto [start, end] = adaptiveBounds(m, o, in[i], outputSize[i]);
      Value pos = m.add(start, k);
      Value inside = m.lt(pos, end);
      Value isFirst = m.eq(k, m.c(0));
      valid = valid ? arith::AndIOp::create(nb, nl, valid, inside).getResult()
                    : inside;
      first = first ? arith::AndIOp::create(nb, nl, first, isFirst).getResult()
                    : isFirst;
      pos = m.min(pos, m.c(in[i] - 1));
      at.push_back(pos);
      flat = m.add(m.mul(flat, m.c(in[i])), pos);
    }
    Value x = tensor::ExtractOp::create(nb, nl, input, at);
    if (!isMax) {
      Value acc = args[1];
      Value sum = isa<FloatType>(et)
                      ? arith::AddFOp::create(nb, nl, acc, x).getResult()
                      : arith::AddIOp::create(nb, nl, acc, x).getResult();
      linalg::YieldOp::create(nb, nl, ValueRange{m.select(valid, sum, acc)});
      return;
    }
    Value best = args[1], bestIndex = args[2];
    // aten: the window's first element, then any greater value or NaN.
    Value take;
    if (isa<FloatType>(et)) {
      take = arith::OrIOp::create(
          nb, nl,
          arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OGT, x, best),
          arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::UNO, x, x));
    } else {
      take = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sgt, x, best);
    }
    take = arith::OrIOp::create(nb, nl, take, first);
    take = arith::AndIOp::create(nb, nl, take, valid);
    Value flat64 = arith::IndexCastOp::create(nb, nl, nb.getI64Type(), flat);
    linalg::YieldOp::create(
        nb, nl,
        ValueRange{m.select(take, x, best), m.select(take, flat64, bestIndex)});
  };
  auto generic =
      linalg::GenericOp::create(b, loc, TypeRange(ValueRange(inits)), window,
                                inits, maps, iterators, body);
  return SmallVector<Value>(generic.getResults());
}

FailureOr<Value>
mlprog::buildAdaptiveAveragePool(OpBuilder &b, Location loc, Value input,
                                 ArrayRef<OpFoldResult> outputSize) {
  if (failed(checkAdaptive(loc, "adaptive average pool", input, outputSize,
                           /*floatOnly=*/true)))
    return failure();
  auto it = cast<RankedTensorType>(input.getType());
  ArrayRef<int64_t> in = it.getShape().drop_front(2);
  unsigned n = outputSize.size();
  std::optional<SmallVector<int64_t>> outConst =
      getConstantIntValues(outputSize);
  if (outConst && llvm::all_of(*outConst, [](int64_t o) { return o == 1; }))
    return buildGlobalAveragePool(b, loc, input);
  // Uniform windows: a strided average pool (named linalg ops).
  if (outConst && llvm::all_of(llvm::zip(in, *outConst), [](auto p) {
        return std::get<0>(p) % std::get<1>(p) == 0;
      })) {
    SmallVector<int64_t> kernel;
    WindowParams params;
    for (unsigned i = 0; i < n; ++i) {
      kernel.push_back(in[i] / (*outConst)[i]);
      params.strides.push_back(in[i] / (*outConst)[i]);
    }
    params.padsBegin.assign(n, 0);
    params.padsEnd.assign(n, 0);
    return buildAveragePool(b, loc, input, kernel, params, false, true);
  }
  Value sum = adaptiveGeneric(b, loc, input, outputSize, /*isMax=*/false)[0];
  // Divide by each dim's window length in turn.
  Type et = it.getElementType();
  unsigned rank = it.getRank();
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  Value init = createEmpty(b, loc, tensor::getMixedSizes(b, loc, sum), et);
  return linalg::GenericOp::create(
             b, loc, init.getType(), sum, init, {id, id},
             parallelIterators(rank),
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               IndexMath m{nb, nl};
               Value r = args[0];
               for (unsigned i = 0; i < n; ++i) {
                 Value o = linalg::IndexOp::create(nb, nl, 2 + i);
                 auto [start, end] = adaptiveBounds(m, o, in[i], outputSize[i]);
                 Value len = arith::IndexCastOp::create(nb, nl, nb.getI64Type(),
                                                        m.sub(end, start));
                 r = arith::DivFOp::create(
                     nb, nl, r, arith::SIToFPOp::create(nb, nl, et, len));
               }
               linalg::YieldOp::create(nb, nl, r);
             })
      .getResult(0);
}

FailureOr<std::pair<Value, Value>>
mlprog::buildAdaptiveMaxPool(OpBuilder &b, Location loc, Value input,
                             ArrayRef<OpFoldResult> outputSize) {
  if (failed(checkAdaptive(loc, "adaptive max pool", input, outputSize,
                           /*floatOnly=*/false)))
    return failure();
  SmallVector<Value> r =
      adaptiveGeneric(b, loc, input, outputSize, /*isMax=*/true);
  return std::make_pair(r[0], r[1]);
}
