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
      return emitError(loc) << what
                            << ": dynamic spatial extents are not "
                               "supported";
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
  auto split = [&](Value v, ArrayRef<ReassociationIndices> groupsOf,
                   unsigned dim) {
    auto t = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape(t.getShape());
    shape[dim] /= groups;
    shape.insert(shape.begin() + dim, groups);
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v);
    sizes[dim] = b.getIndexAttr(shape[dim + 1]);
    sizes.insert(sizes.begin() + dim, b.getIndexAttr(groups));
    return tensor::ExpandShapeOp::create(b, loc, t.clone(shape), v, groupsOf,
                                         sizes)
        .getResult();
  };
  SmallVector<ReassociationIndices> dim1 = {{0}, {1, 2}, {3}, {4}};
  SmallVector<ReassociationIndices> dim0 = {{0, 1}, {2}, {3}, {4}};
  Value in5 = split(in, dim1, 1);
  Value f5 = split(filter, dim0, 0);
  Value init5 = split(init, dim1, 1);
  Value r = linalg::Conv2DNgchwGfchwOp::create(b, loc, init5.getType(),
                                               ValueRange{in5, f5}, init5,
                                               strides, dilations)
                .getResult(0);
  return tensor::CollapseShapeOp::create(b, loc, initType, r, dim1);
}

FailureOr<Value> mlprog::buildConv(OpBuilder &b, Location loc, Value input,
                                   Value filter, Value bias,
                                   const WindowParams &params, int64_t groups) {
  auto it = dyn_cast<RankedTensorType>(input.getType());
  auto ft = dyn_cast<RankedTensorType>(filter.getType());
  if (!it || !ft || it.getRank() < 3 || it.getRank() > 5 ||
      ft.getRank() != it.getRank() ||
      it.getElementType() != ft.getElementType())
    return emitError(loc) << "conv needs [N, C, D...] input and [F, C/g, "
                             "K...] filter of one element type (1-3 spatial "
                             "dims), got "
                          << input.getType() << " and " << filter.getType();
  int64_t n = it.getRank() - 2;
  int64_t channels = it.getDimSize(1), features = ft.getDimSize(0);
  if (ShapedType::isDynamic(channels) || ft.hasStaticShape() == false)
    return emitError(loc) << "conv needs static channel and filter extents";
  if (groups < 1 || channels % groups || features % groups ||
      ft.getDimSize(1) * groups != channels)
    return emitError(loc) << "conv: " << channels << " input channels, "
                          << features << " filters and filter depth "
                          << ft.getDimSize(1) << " do not fit " << groups
                          << " groups";
  if (groups != 1 && n != 2)
    return emitError(loc) << "grouped conv is only supported in 2-D";
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

/// Shared part of max and sum pooling: checks, pads with `padValue`, and
/// emits linalg.pooling_{ncw,nchw}_{max,sum} into a `padValue`-filled init.
static FailureOr<std::pair<Value, Window>>
buildPool(OpBuilder &b, Location loc, StringRef what, PoolKind kind,
          Value input, ArrayRef<int64_t> kernel, const WindowParams &params,
          bool ceilMode, TypedAttr padValue, TypedAttr initValue) {
  auto it = dyn_cast<RankedTensorType>(input.getType());
  if (!it || (it.getRank() != 3 && it.getRank() != 4))
    return emitError(loc) << what
                          << " supports [N, C, W] and [N, C, H, W] "
                             "inputs, got "
                          << input.getType();
  FailureOr<Window> w = resolveWindow(loc, what, it.getShape().drop_front(2),
                                      kernel, params, ceilMode);
  if (failed(w))
    return failure();
  Value padded = padSpatial(b, loc, input, *w, padValue);
  SmallVector<OpFoldResult> sizes =
      outputSizes(b, loc, input, tensor::getMixedSize(b, loc, input, 1), *w);
  Value init = createFilled(b, loc, sizes, initValue);
  Value window = tensor::EmptyOp::create(b, loc, kernel, it.getElementType());
  Attribute strides = b.getI64TensorAttr(w->strides);
  Attribute dilations = b.getI64TensorAttr(w->dilations);
  SmallVector<Value> ins = {padded, window};
  Type rt = init.getType();
  Value r;
  if (kind == PoolKind::Max && it.getRank() == 4)
    r = linalg::PoolingNchwMaxOp::create(b, loc, rt, ins, init, strides,
                                         dilations)
            .getResult(0);
  else if (kind == PoolKind::Max)
    r = linalg::PoolingNcwMaxOp::create(b, loc, rt, ins, init, strides,
                                        dilations)
            .getResult(0);
  else if (it.getRank() == 4)
    r = linalg::PoolingNchwSumOp::create(b, loc, rt, ins, init, strides,
                                         dilations)
            .getResult(0);
  else
    r = linalg::PoolingNcwSumOp::create(b, loc, rt, ins, init, strides,
                                        dilations)
            .getResult(0);
  return std::make_pair(r, *w);
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
    return emitError(loc) << "average pool with dilation is not supported";
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
  SmallVector<Attribute> divisors;
  if (perDim.size() == 1) {
    for (int64_t c : perDim[0])
      divisors.push_back(b.getFloatAttr(et, double(std::max<int64_t>(c, 1))));
  } else {
    for (int64_t ch : perDim[0])
      for (int64_t cw : perDim[1])
        divisors.push_back(
            b.getFloatAttr(et, double(std::max<int64_t>(ch * cw, 1))));
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
