//===- Spatial.cpp - Convolution and pooling builders ---------------------===//

#include "mlprog/Import/Common/Spatial.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

void mlprog::computeSamePadding(ArrayRef<int64_t> inputSpatial,
                                ArrayRef<int64_t> kernel, bool extraAtBegin,
                                WindowParams &params) {
  size_t n = inputSpatial.size();
  params.padsBegin.assign(n, 0);
  params.padsEnd.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    int64_t stride = params.strides.empty() ? 1 : params.strides[i];
    int64_t dilation = params.dilations.empty() ? 1 : params.dilations[i];
    int64_t out = llvm::divideCeil(inputSpatial[i], stride);
    int64_t total =
        std::max<int64_t>(0, (out - 1) * stride + dilation * (kernel[i] - 1) +
                                 1 - inputSpatial[i]);
    int64_t small = total / 2;
    params.padsBegin[i] = extraAtBegin ? total - small : small;
    params.padsEnd[i] = total - params.padsBegin[i];
  }
}

namespace {
/// Window geometry resolved for one op: every vector has one entry per
/// spatial dim, and the output extents are known.
struct Window {
  SmallVector<int64_t> strides, dilations, padsBegin, padsEnd;
  /// Padding added at the end so that ceil-mode windows fit.
  SmallVector<int64_t> ceilExtra;
  SmallVector<int64_t> outputSpatial;
};
} // namespace

/// Checks `params` against `n` spatial dims and computes output extents.
static FailureOr<Window> resolveWindow(Location loc, StringRef what,
                                       ArrayRef<int64_t> inputSpatial,
                                       ArrayRef<int64_t> kernel,
                                       const WindowParams &params,
                                       bool ceilMode) {
  size_t n = inputSpatial.size();
  Window w;
  auto fill = [&](ArrayRef<int64_t> given, int64_t dflt,
                  SmallVector<int64_t> &out, StringRef name) -> LogicalResult {
    if (given.empty())
      out.assign(n, dflt);
    else if (given.size() == n)
      out.assign(given.begin(), given.end());
    else
      return emitError(loc) << what << ": expected " << n << " " << name
                            << ", got " << given.size();
    return success();
  };
  if (kernel.size() != n)
    return emitError(loc) << what << ": kernel has " << kernel.size()
                          << " dims, input has " << n << " spatial dims";
  if (failed(fill(params.strides, 1, w.strides, "strides")) ||
      failed(fill(params.dilations, 1, w.dilations, "dilations")) ||
      failed(fill(params.padsBegin, 0, w.padsBegin, "begin pads")) ||
      failed(fill(params.padsEnd, 0, w.padsEnd, "end pads")))
    return failure();
  for (size_t i = 0; i < n; ++i) {
    if (ShapedType::isDynamic(inputSpatial[i]))
      return emitError(loc)
             << "unsupported " << what << " with dynamic spatial extents";
    if (w.strides[i] < 1 || w.dilations[i] < 1 || w.padsBegin[i] < 0 ||
        w.padsEnd[i] < 0 || kernel[i] < 1)
      return emitError(loc) << what << ": invalid window geometry";
    int64_t padded = inputSpatial[i] + w.padsBegin[i] + w.padsEnd[i];
    int64_t span = padded - (w.dilations[i] * (kernel[i] - 1) + 1);
    if (span < 0)
      return emitError(loc) << what << ": window larger than padded input";
    int64_t out = (ceilMode ? llvm::divideCeil(span, w.strides[i])
                            : span / w.strides[i]) +
                  1;
    // A ceil-mode window must start inside the input or its begin padding.
    if (ceilMode &&
        (out - 1) * w.strides[i] >= inputSpatial[i] + w.padsBegin[i])
      --out;
    w.outputSpatial.push_back(out);
    int64_t needed =
        (out - 1) * w.strides[i] + w.dilations[i] * (kernel[i] - 1) + 1;
    w.ceilExtra.push_back(std::max<int64_t>(0, needed - padded));
  }
  return w;
}

/// Pads the spatial dims of `x` by the window's pads (+ ceil-mode extra).
static Value padSpatial(OpBuilder &b, Location loc, Value x, const Window &w,
                        TypedAttr value) {
  SmallVector<int64_t> low = {0, 0}, high = {0, 0};
  for (size_t i = 0; i < w.padsBegin.size(); ++i) {
    low.push_back(w.padsBegin[i]);
    high.push_back(w.padsEnd[i] + w.ceilExtra[i]);
  }
  return padStatic(b, loc, x, low, high, value);
}

/// [N, C, outputSpatial...] sizes with N read from `x`.
static SmallVector<OpFoldResult> outputSizes(OpBuilder &b, Location loc,
                                             Value x, OpFoldResult channels,
                                             const Window &w) {
  SmallVector<OpFoldResult> sizes = {tensor::getMixedSize(b, loc, x, 0),
                                     channels};
  for (int64_t o : w.outputSpatial)
    sizes.push_back(b.getIndexAttr(o));
  return sizes;
}

/// Accumulator for conv: the bias broadcast along N and spatial dims, or 0.
static Value convInit(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                      Type et, Value bias) {
  if (!bias)
    return createFilled(b, loc, sizes, b.getZeroAttr(et));
  Value empty = createEmpty(b, loc, sizes, et);
  unsigned rank = sizes.size();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank, 0, getAffineDimExpr(1, ctx)),
      AffineMap::getMultiDimIdentityMap(rank, ctx)};
  return linalg::GenericOp::create(
             b, loc, empty.getType(), bias, empty, maps,
             parallelIterators(rank),
             [](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl, args[0]);
             })
      .getResult(0);
}

/// Affine exprs of the input position O_i * stride_i + K_i * dilation_i for
/// every spatial dim, with output dims starting at loop `outDim` and kernel
/// dims at loop `kernelDim`.
static SmallVector<AffineExpr> windowExprs(MLIRContext *ctx, const Window &w,
                                           unsigned outDim,
                                           unsigned kernelDim) {
  SmallVector<AffineExpr> exprs;
  for (size_t i = 0; i < w.strides.size(); ++i)
    exprs.push_back(getAffineDimExpr(outDim + i, ctx) * w.strides[i] +
                    getAffineDimExpr(kernelDim + i, ctx) * w.dilations[i]);
  return exprs;
}

/// Splits dim `dim` of `v` into [groups, extent / groups] (static extent).
static Value splitGroups(OpBuilder &b, Location loc, Value v, unsigned dim,
                         int64_t groups) {
  auto t = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(t.getShape());
  shape[dim] /= groups;
  shape.insert(shape.begin() + dim, groups);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v);
  sizes[dim] = b.getIndexAttr(shape[dim + 1]);
  sizes.insert(sizes.begin() + dim, b.getIndexAttr(groups));
  SmallVector<ReassociationIndices> reassoc;
  for (int64_t d = 0; d < t.getRank(); ++d) {
    if (d == dim)
      reassoc.push_back({d, d + 1});
    else
      reassoc.push_back({d < dim ? d : d + 1});
  }
  return tensor::ExpandShapeOp::create(b, loc, t.clone(shape), v, reassoc,
                                       sizes)
      .getResult();
}

/// Grouped 2-D conv: split channels into [G, C/G] and use
/// linalg.conv_2d_ngchw_gfchw, or linalg.depthwise_conv_2d_nchw_chw when each
/// group has one input and one output channel.
static Value groupedConv2D(OpBuilder &b, Location loc, Value in, Value filter,
                           Value init, int64_t groups, Attribute strides,
                           Attribute dilations) {
  auto ft = cast<RankedTensorType>(filter.getType());
  auto initType = cast<RankedTensorType>(init.getType());
  if (ft.getDimSize(0) == groups && ft.getDimSize(1) == 1) {
    Value f3 = tensor::CollapseShapeOp::create(
        b, loc, filter, SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}});
    return linalg::DepthwiseConv2DNchwChwOp::create(
               b, loc, initType, ValueRange{in, f3}, init, strides, dilations)
        .getResult(0);
  }
  SmallVector<ReassociationIndices> dim1 = {{0}, {1, 2}, {3}, {4}};
  Value in5 = splitGroups(b, loc, in, 1, groups);
  Value f5 = splitGroups(b, loc, filter, 0, groups);
  Value init5 = splitGroups(b, loc, init, 1, groups);
  Value r = linalg::Conv2DNgchwGfchwOp::create(b, loc, init5.getType(),
                                               ValueRange{in5, f5}, init5,
                                               strides, dilations)
                .getResult(0);
  return tensor::CollapseShapeOp::create(b, loc, initType, r, dim1);
}

/// Grouped conv of any spatial rank n as one linalg.generic (upstream has
/// grouped named ops in 2-D only): input [N, G, C/G, P...], filter
/// [G, F/G, C/G, K...], accumulator [N, G, F/G, O...]; loops
/// (N, G, F/G, O1..On | C/G, K1..Kn).
static Value groupedConvGeneric(OpBuilder &b, Location loc, Value in,
                                Value filter, Value init, int64_t groups,
                                const Window &w) {
  unsigned n = w.strides.size();
  unsigned loops = 4 + 2 * n;
  MLIRContext *ctx = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  Value inG = splitGroups(b, loc, in, 1, groups);
  Value filterG = splitGroups(b, loc, filter, 0, groups);
  Value initG = splitGroups(b, loc, init, 1, groups);
  SmallVector<AffineExpr> inExprs = {d(0), d(1), d(3 + n)};
  llvm::append_range(inExprs, windowExprs(ctx, w, 3, 4 + n));
  SmallVector<AffineExpr> filterExprs = {d(1), d(2), d(3 + n)};
  SmallVector<AffineExpr> outExprs = {d(0), d(1), d(2)};
  for (unsigned i = 0; i < n; ++i) {
    filterExprs.push_back(d(4 + n + i));
    outExprs.push_back(d(3 + i));
  }
  SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, inExprs, ctx),
                                 AffineMap::get(loops, 0, filterExprs, ctx),
                                 AffineMap::get(loops, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iterators(loops,
                                             utils::IteratorType::reduction);
  for (unsigned i = 0; i < 3 + n; ++i)
    iterators[i] = utils::IteratorType::parallel;
  Value r = linalg::GenericOp::create(
                b, loc, initG.getType(), ValueRange{inG, filterG}, initG, maps,
                iterators,
                [](OpBuilder &nb, Location nl, ValueRange args) {
                  Value sum;
                  if (isa<FloatType>(args[0].getType()))
                    sum = arith::AddFOp::create(
                        nb, nl, args[2],
                        arith::MulFOp::create(nb, nl, args[0], args[1]));
                  else
                    sum = arith::AddIOp::create(
                        nb, nl, args[2],
                        arith::MulIOp::create(nb, nl, args[0], args[1]));
                  linalg::YieldOp::create(nb, nl, sum);
                })
                .getResult(0);
  SmallVector<ReassociationIndices> reassoc = {{0}, {1, 2}};
  for (unsigned i = 0; i < n; ++i)
    reassoc.push_back({3 + i});
  return tensor::CollapseShapeOp::create(b, loc, init.getType(), r, reassoc);
}

FailureOr<Value> mlprog::buildConv(OpBuilder &b, Location loc, Value input,
                                   Value filter, Value bias,
                                   const WindowParams &params, int64_t groups) {
  auto it = dyn_cast<RankedTensorType>(input.getType());
  auto ft = dyn_cast<RankedTensorType>(filter.getType());
  if (it && it.getRank() > 5)
    return emitError(loc) << "unsupported conv with " << it.getRank() - 2
                          << " spatial dims (1-3 are implemented)";
  if (!it || !ft || it.getRank() < 3 || ft.getRank() != it.getRank() ||
      it.getElementType() != ft.getElementType())
    return emitError(loc) << "conv needs [N, C, D...] input and [F, C/g, "
                             "K...] filter of one element type (1-3 spatial "
                             "dims), got "
                          << input.getType() << " and " << filter.getType();
  int64_t n = it.getRank() - 2;
  int64_t channels = it.getDimSize(1), features = ft.getDimSize(0);
  if (ShapedType::isDynamic(channels) || ft.hasStaticShape() == false)
    return emitError(loc) << "unsupported conv with dynamic channel or "
                             "filter extents";
  if (groups < 1 || channels % groups || features % groups ||
      ft.getDimSize(1) * groups != channels)
    return emitError(loc) << "conv: " << channels << " input channels, "
                          << features << " filters and filter depth "
                          << ft.getDimSize(1) << " do not fit " << groups
                          << " groups";
  if (bias) {
    auto bt = dyn_cast<RankedTensorType>(bias.getType());
    if (!bt || bt.getRank() != 1 || bt.getElementType() != it.getElementType())
      return emitError(loc) << "conv bias must be [F], got " << bias.getType();
  }
  FailureOr<Window> w =
      resolveWindow(loc, "conv", it.getShape().drop_front(2),
                    ft.getShape().drop_front(2), params, /*ceilMode=*/false);
  if (failed(w))
    return failure();
  Type et = it.getElementType();
  Value padded = padSpatial(b, loc, input, *w, b.getZeroAttr(et));
  Value init =
      convInit(b, loc, outputSizes(b, loc, input, b.getIndexAttr(features), *w),
               et, bias);
  Attribute strides = b.getI64TensorAttr(w->strides);
  Attribute dilations = b.getI64TensorAttr(w->dilations);
  SmallVector<Value> ins = {padded, filter};
  Type rt = init.getType();
  if (groups != 1 && n != 2)
    return groupedConvGeneric(b, loc, padded, filter, init, groups, *w);
  if (groups != 1)
    return groupedConv2D(b, loc, padded, filter, init, groups, strides,
                         dilations);
  if (n == 1)
    return linalg::Conv1DNcwFcwOp::create(b, loc, rt, ins, init, strides,
                                          dilations)
        .getResult(0);
  if (n == 2)
    return linalg::Conv2DNchwFchwOp::create(b, loc, rt, ins, init, strides,
                                            dilations)
        .getResult(0);
  return linalg::Conv3DNcdhwFcdhwOp::create(b, loc, rt, ins, init, strides,
                                            dilations)
      .getResult(0);
}

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

FailureOr<std::pair<Value, Value>>
mlprog::buildMaxPoolWithIndices(OpBuilder &b, Location loc, Value input,
                                ArrayRef<int64_t> kernel,
                                const WindowParams &params, bool ceilMode,
                                bool spatialColumnMajor, bool isUnsigned) {
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
    // with p_i = o_i * stride_i + k_i * dilation_i - padBegin_i, the spatial
    // dims taken last to first when column-major.
    Value flat = arith::AddIOp::create(
        nb, nl, arith::MulIOp::create(nb, nl, index(0), constant(shape[1])),
        index(1));
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
static int64_t countTaps(int64_t o, int64_t stride, int64_t padBegin,
                         int64_t kernel, int64_t lo, int64_t hi) {
  int64_t count = 0;
  for (int64_t j = 0; j < kernel; ++j) {
    int64_t p = o * stride - padBegin + j;
    count += p >= lo && p < hi;
  }
  return count;
}

FailureOr<Value> mlprog::buildAveragePool(OpBuilder &b, Location loc,
                                          Value input, ArrayRef<int64_t> kernel,
                                          const WindowParams &params,
                                          bool ceilMode, bool countIncludePad) {
  auto it = dyn_cast<RankedTensorType>(input.getType());
  if (!it || !isa<FloatType>(it.getElementType()))
    return emitError(loc) << "average pool needs a float tensor, got "
                          << input.getType();
  if (llvm::any_of(params.dilations, [](int64_t d) { return d != 1; }))
    return emitError(loc) << "unsupported average pool with dilation";
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
      counts.push_back(
          countTaps(o, w.strides[i], w.padsBegin[i], kernel[i], lo, hi));
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
    divisors.push_back(b.getFloatAttr(et, double(std::max<int64_t>(count, 1))));
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
