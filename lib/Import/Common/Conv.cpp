//===- Conv.cpp - Convolution builders ------------------------------------===//

#include "mlprog/Import/Common/Conv.h"
#include "Utils.h"

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
    // With stride 1 the total is dilation * (kernel - 1) whatever the
    // input extent, so a dynamic one is fine there.
    int64_t total = dilation * (kernel[i] - 1);
    if (!ShapedType::isDynamic(inputSpatial[i])) {
      int64_t out = llvm::divideCeil(inputSpatial[i], stride);
      total =
          std::max<int64_t>(0, (out - 1) * stride + dilation * (kernel[i] - 1) +
                                   1 - inputSpatial[i]);
    }
    int64_t small = total / 2;
    params.padsBegin[i] = extraAtBegin ? total - small : small;
    params.padsEnd[i] = total - params.padsBegin[i];
  }
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
  if (it.getElementType().isF16() || it.getElementType().isBF16())
    return accumulateInF32(
        b, loc, {input, filter, bias}, [&](ArrayRef<Value> wide) {
          return buildConv(b, loc, wide[0], wide[1], wide[2], params, groups);
        });
  FailureOr<Window> w =
      resolveWindow(loc, "conv", it.getShape().drop_front(2),
                    ft.getShape().drop_front(2), params, /*ceilMode=*/false,
                    /*allowDynamic=*/true);
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

/// W'[g * Fg + fo, ci, k] = W[g * Cg + ci, fo, K - 1 - k]: per group, swap
/// the channel dims and flip the window.
static Value transformFilter(OpBuilder &b, Location loc, Value filter,
                             int64_t groups) {
  auto type = cast<RankedTensorType>(filter.getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t cg = shape[0] / groups, fg = shape[1];
  unsigned rank = shape.size();
  MLIRContext *ctx = b.getContext();
  AffineExpr f = getAffineDimExpr(0, ctx), ci = getAffineDimExpr(1, ctx);
  SmallVector<AffineExpr> exprs = {f.floorDiv(fg) * cg + ci, f % fg};
  SmallVector<int64_t> outShape = {groups * fg, cg};
  for (unsigned d = 2; d < rank; ++d) {
    exprs.push_back(shape[d] - 1 - getAffineDimExpr(d, ctx));
    outShape.push_back(shape[d]);
  }
  Value init = tensor::EmptyOp::create(b, loc, outShape, type.getElementType());
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, ctx),
                                 AffineMap::getMultiDimIdentityMap(rank, ctx)};
  return linalg::GenericOp::create(
             b, loc, init.getType(), filter, init, maps,
             parallelIterators(rank),
             [](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl, args[0]);
             })
      .getResult(0);
}

FailureOr<Value>
mlprog::buildConvTranspose(OpBuilder &b, Location loc, Value input,
                           Value filter, Value bias, const WindowParams &params,
                           int64_t groups, ArrayRef<int64_t> outputPadding) {
  auto it = dyn_cast<RankedTensorType>(input.getType());
  auto ft = dyn_cast<RankedTensorType>(filter.getType());
  if (!it || !ft || it.getRank() < 3 || ft.getRank() != it.getRank() ||
      !isa<FloatType>(it.getElementType()) ||
      ft.getElementType() != it.getElementType())
    return emitError(loc) << "conv_transpose needs float input [N, C, D...] "
                             "and filter [C, F/groups, K...] of one element "
                             "type, got "
                          << input.getType() << " and " << filter.getType();
  size_t n = it.getRank() - 2;
  // The batch may be dynamic (Mask R-CNN's mask head runs over the run-time
  // count of detections); channels, spatial extents and filter are static.
  if (!ft.hasStaticShape() ||
      llvm::any_of(it.getShape().drop_front(),
                   [](int64_t e) { return ShapedType::isDynamic(e); }))
    return emitError(loc) << "conv_transpose needs static channels and "
                             "spatial extents and a static filter, got "
                          << it << " and " << ft;
  if (groups < 1 || it.getDimSize(1) != ft.getDimSize(0) ||
      ft.getDimSize(0) % groups != 0)
    return emitError(loc) << "conv_transpose: filter " << ft
                          << " does not match input " << it << " with "
                          << groups << " groups";
  auto get = [&](ArrayRef<int64_t> v, size_t i, int64_t dflt) {
    return v.empty() ? dflt : v[i];
  };
  if ((!params.strides.empty() && params.strides.size() != n) ||
      (!params.dilations.empty() && params.dilations.size() != n) ||
      (!params.padsBegin.empty() && params.padsBegin.size() != n) ||
      (!params.padsEnd.empty() && params.padsEnd.size() != n) ||
      (!outputPadding.empty() && outputPadding.size() != n))
    return emitError(loc) << "conv_transpose: window parameters need " << n
                          << " values";
  // Insert stride - 1 zeros between input elements.
  Type et = it.getElementType();
  SmallVector<int64_t> dilatedShape(it.getShape());
  SmallVector<int64_t> strides(it.getRank(), 1);
  bool anyStride = false;
  for (size_t i = 0; i < n; ++i) {
    int64_t s = get(params.strides, i, 1);
    if (s < 1)
      return emitError(loc) << "conv_transpose: stride must be >= 1";
    dilatedShape[2 + i] = (it.getDimSize(2 + i) - 1) * s + 1;
    strides[2 + i] = s;
    anyStride |= s > 1;
  }
  Value x = input;
  if (anyStride) {
    SmallVector<OpFoldResult> zeroSizes =
        getAsIndexOpFoldResult(b.getContext(), dilatedShape);
    SmallVector<OpFoldResult> inputSizes = tensor::getMixedSizes(b, loc, input);
    zeroSizes[0] = inputSizes[0];
    Value zeros = createFilled(b, loc, zeroSizes, b.getZeroAttr(et));
    SmallVector<int64_t> offsets(it.getRank(), 0);
    x = tensor::InsertSliceOp::create(
        b, loc, input, zeros, getAsIndexOpFoldResult(b.getContext(), offsets),
        inputSizes, getAsIndexOpFoldResult(b.getContext(), strides));
  }
  // Pad by dilation * (K - 1) - pad (+ output padding at the end); crop
  // where that is negative.
  SmallVector<int64_t> low(it.getRank(), 0), high(it.getRank(), 0);
  SmallVector<int64_t> cropLow(it.getRank(), 0), cropHigh(it.getRank(), 0);
  for (size_t i = 0; i < n; ++i) {
    int64_t d = get(params.dilations, i, 1);
    int64_t k = ft.getDimSize(2 + i);
    int64_t lo = d * (k - 1) - get(params.padsBegin, i, 0);
    int64_t hi =
        d * (k - 1) - get(params.padsEnd, i, 0) + get(outputPadding, i, 0);
    (lo >= 0 ? low : cropLow)[2 + i] = std::abs(lo);
    (hi >= 0 ? high : cropHigh)[2 + i] = std::abs(hi);
  }
  x = padStatic(b, loc, x, low, high, b.getZeroAttr(et));
  if (llvm::any_of(cropLow, [](int64_t c) { return c > 0; }) ||
      llvm::any_of(cropHigh, [](int64_t c) { return c > 0; })) {
    auto xt = cast<RankedTensorType>(x.getType());
    SmallVector<OpFoldResult> offsets, sizes, unit;
    for (int64_t d = 0; d < xt.getRank(); ++d) {
      int64_t size = xt.getDimSize(d) - cropLow[d] - cropHigh[d];
      if (d >= 2 && size < 1)
        return emitError(loc) << "conv_transpose: padding leaves no output";
      offsets.push_back(b.getIndexAttr(cropLow[d]));
      sizes.push_back(
          ShapedType::isDynamic(xt.getDimSize(d))
              ? OpFoldResult(tensor::DimOp::create(b, loc, x, d).getResult())
              : OpFoldResult(b.getIndexAttr(size)));
      unit.push_back(b.getIndexAttr(1));
    }
    x = tensor::ExtractSliceOp::create(b, loc, x, offsets, sizes, unit);
  }
  WindowParams convParams;
  convParams.dilations = params.dilations;
  return buildConv(b, loc, x, transformFilter(b, loc, filter, groups), bias,
                   convParams, groups);
}
