//===- ShapeBlocks.cpp - Shape-of, stack, batch/space blocks, windows -----===//
//
// Data-movement builders that Shape.cpp does not hold: the shape of a tensor
// as a tensor, stacking, broadcasting to a common shape, reversal, rolling,
// space/batch block moves (reshape + transpose + pad/crop), sliding windows
// (one strided linalg.generic) and diagonals.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cstdint>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

FailureOr<Value> mlprog::buildShapeOf(OpBuilder &b, Location loc, Value x,
                                      Type elementType) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "shape");
  if (failed(type))
    return failure();
  auto intType = dyn_cast<IntegerType>(elementType);
  if (!intType)
    return emitError(loc) << "shape: element type must be an integer, got "
                          << elementType;
  int64_t rank = type->getRank();
  auto resultType = RankedTensorType::get({rank}, elementType);
  if (type->hasStaticShape()) {
    SmallVector<APInt> dims;
    for (int64_t d : type->getShape())
      dims.push_back(APInt(intType.getWidth(), d));
    return Value(arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(resultType, dims)));
  }
  SmallVector<Value> elems;
  for (int64_t d = 0; d < rank; ++d)
    elems.push_back(arith::IndexCastOp::create(
        b, loc, elementType, tensor::DimOp::create(b, loc, x, d)));
  return Value(tensor::FromElementsOp::create(b, loc, resultType, elems));
}

FailureOr<Value> mlprog::buildStack(OpBuilder &b, Location loc,
                                    ValueRange inputs, int64_t axis) {
  if (inputs.empty())
    return emitError(loc) << "stack needs at least one input";
  SmallVector<Value> expanded;
  for (Value x : inputs) {
    FailureOr<Value> u = buildUnsqueeze(b, loc, x, axis);
    if (failed(u))
      return failure();
    expanded.push_back(*u);
  }
  return buildConcat(b, loc, expanded, axis);
}

FailureOr<Value> mlprog::buildReverse(OpBuilder &b, Location loc, Value x,
                                      ArrayRef<int64_t> axes) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "reverse");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  SmallVector<SliceDim> dims(rank);
  bool dynamic = false;
  for (int64_t a : axes) {
    if (a < 0 || a >= rank)
      return emitError(loc)
             << "reverse: axis " << a << " out of range for " << *type;
    dynamic |= ShapedType::isDynamic(type->getDimSize(a));
    dims[a].step = -1;
  }
  if (!dynamic)
    return buildSlice(b, loc, x, dims);
  // A dynamic extent: the run-time slice -1::-1 (stop clamps to -1).
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  SmallVector<DynamicSliceDim> runtime(rank);
  for (int64_t a = 0; a < rank; ++a)
    if (dims[a].step == -1)
      runtime[a] = {c(-1), c(INT32_MIN), c(-1)};
  return buildSliceDynamic(b, loc, x, runtime, type->getShape());
}

FailureOr<SmallVector<Value>>
mlprog::buildBroadcastTensors(OpBuilder &b, Location loc, ValueRange tensors) {
  SmallVector<Value> out;
  for (auto [i, t] : llvm::enumerate(tensors)) {
    Type et = elementTypeOf(t);
    if (!et)
      return emitError(loc)
             << "broadcast_tensors needs ranked tensors, got " << t.getType();
    unsigned idx = i;
    FailureOr<Value> r = buildBroadcastedGeneric(
        b, loc, tensors, et,
        [idx](OpBuilder &, Location, ValueRange args) { return args[idx]; });
    if (failed(r))
      return failure();
    out.push_back(*r);
  }
  return out;
}

FailureOr<Value> mlprog::buildRoll(OpBuilder &b, Location loc, Value x,
                                   int64_t axis, int64_t shift) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "roll");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  if (axis < 0 || axis >= rank)
    return emitError(loc) << "roll: axis " << axis << " out of range for "
                          << *type;
  int64_t extent = type->getDimSize(axis);
  if (!ShapedType::isDynamic(extent)) {
    if (extent == 0)
      return x;
    int64_t s = ((shift % extent) + extent) % extent;
    if (s == 0)
      return x;
    SmallVector<SliceDim> head(rank), tail(rank);
    head[axis] = {extent - s, extent, 1};
    tail[axis] = {0, extent - s, 1};
    FailureOr<Value> a = buildSlice(b, loc, x, head),
                     c = buildSlice(b, loc, x, tail);
    if (failed(a) || failed(c))
      return failure();
    return buildConcat(b, loc, {*a, *c}, axis);
  }
  // A run-time extent n: element i reads (i + n - shift mod n) mod n. The
  // modulus is taken of max(n, 1) so that an empty extent divides by
  // nothing (the loop then runs no iteration).
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value n = arith::MaxSIOp::create(
      b, loc, tensor::DimOp::create(b, loc, x, axis), c(1));
  Value s = arith::RemSIOp::create(b, loc, c(shift), n);
  // offset = (n - s) mod n, in [0, n) for s in (-n, n).
  Value offset =
      arith::RemSIOp::create(b, loc, arith::SubIOp::create(b, loc, n, s), n);
  offset = arith::RemSIOp::create(b, loc,
                                  arith::AddIOp::create(b, loc, offset, n), n);
  Value init = createEmpty(b, loc, tensor::getMixedSizes(b, loc, x),
                           type->getElementType());
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange(), init,
             SmallVector<AffineMap>{id}, parallelIterators(rank),
             [&](OpBuilder &nb, Location nl, ValueRange) {
               SmallVector<Value> at;
               for (int64_t d = 0; d < rank; ++d)
                 at.push_back(linalg::IndexOp::create(nb, nl, d));
               at[axis] = arith::RemSIOp::create(
                   nb, nl, arith::AddIOp::create(nb, nl, at[axis], offset), n);
               linalg::YieldOp::create(
                   nb, nl,
                   tensor::ExtractOp::create(nb, nl, x, at).getResult());
             })
      .getResult(0);
}

/// Checks [N, C, S1..SM] with static extents and M block entries.
static LogicalResult checkBlockInput(Location loc, StringRef what,
                                     RankedTensorType type,
                                     ArrayRef<int64_t> block) {
  if (type.getRank() != int64_t(block.size()) + 2 || !type.hasStaticShape() ||
      llvm::any_of(block, [](int64_t v) { return v < 1; }))
    return emitError(loc) << what << " needs a static [N, C, S1..S"
                          << block.size()
                          << "] tensor and positive block "
                             "sizes, got "
                          << type;
  return success();
}

FailureOr<Value> mlprog::buildSpaceToBatch(OpBuilder &b, Location loc, Value x,
                                           ArrayRef<int64_t> block,
                                           ArrayRef<int64_t> padsBegin,
                                           ArrayRef<int64_t> padsEnd) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "space_to_batch");
  if (failed(type) ||
      failed(checkBlockInput(loc, "space_to_batch", *type, block)))
    return failure();
  size_t m = block.size();
  if (padsBegin.size() != m || padsEnd.size() != m)
    return emitError(loc) << "space_to_batch: " << m
                          << " spatial dims need as many pads";
  SmallVector<int64_t> low(2, 0), high(2, 0);
  low.append(padsBegin.begin(), padsBegin.end());
  high.append(padsEnd.begin(), padsEnd.end());
  FailureOr<Value> padded =
      buildPad(b, loc, x, low, high, PadMode::Constant, 0.0);
  if (failed(padded))
    return failure();
  ArrayRef<int64_t> s = cast<RankedTensorType>(padded->getType()).getShape();
  // [N, C, S1/b1, b1, ..] -> [b1, .., bM, N, C, S1/b1, ..] -> [prod*N, C, ..]
  SmallVector<int64_t> split = {s[0], s[1]}, perm, out;
  int64_t batch = s[0];
  for (size_t i = 0; i < m; ++i) {
    if (s[2 + i] % block[i])
      return emitError(loc) << "space_to_batch: padded extent " << s[2 + i]
                            << " is not divisible by block size " << block[i];
    split.append({s[2 + i] / block[i], block[i]});
    perm.push_back(3 + 2 * i);
    batch *= block[i];
  }
  perm.append({0, 1});
  out = {batch, s[1]};
  for (size_t i = 0; i < m; ++i) {
    perm.push_back(2 + 2 * i);
    out.push_back(s[2 + i] / block[i]);
  }
  FailureOr<Value> r = buildReshape(b, loc, *padded, split);
  if (succeeded(r))
    r = buildTranspose(b, loc, *r, perm);
  if (succeeded(r))
    r = buildReshape(b, loc, *r, out);
  return r;
}

FailureOr<Value> mlprog::buildBatchToSpace(OpBuilder &b, Location loc, Value x,
                                           ArrayRef<int64_t> block,
                                           ArrayRef<int64_t> cropsBegin,
                                           ArrayRef<int64_t> cropsEnd) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "batch_to_space");
  if (failed(type) ||
      failed(checkBlockInput(loc, "batch_to_space", *type, block)))
    return failure();
  size_t m = block.size();
  if (cropsBegin.size() != m || cropsEnd.size() != m)
    return emitError(loc) << "batch_to_space: " << m
                          << " spatial dims need as many crops";
  ArrayRef<int64_t> s = type->getShape();
  int64_t prod = 1;
  for (int64_t v : block)
    prod *= v;
  if (s[0] % prod)
    return emitError(loc) << "batch_to_space: batch " << s[0]
                          << " is not divisible by the block volume " << prod;
  int64_t n = s[0] / prod;
  // [b1..bM, N, C, S1..SM] -> [N, C, S1, b1, .., SM, bM] -> [N, C, S1*b1, ..]
  SmallVector<int64_t> split(block.begin(), block.end()), perm, out;
  split.append({n, s[1]});
  split.append(s.begin() + 2, s.end());
  perm = {int64_t(m), int64_t(m) + 1};
  out = {n, s[1]};
  for (size_t i = 0; i < m; ++i) {
    perm.append({int64_t(m + 2 + i), int64_t(i)});
    out.push_back(s[2 + i] * block[i]);
  }
  FailureOr<Value> r = buildReshape(b, loc, x, split);
  if (succeeded(r))
    r = buildTranspose(b, loc, *r, perm);
  if (succeeded(r))
    r = buildReshape(b, loc, *r, out);
  if (failed(r))
    return failure();
  SmallVector<SliceDim> dims(2);
  for (size_t i = 0; i < m; ++i) {
    if (cropsBegin[i] < 0 || cropsEnd[i] < 0 ||
        cropsBegin[i] + cropsEnd[i] > out[2 + i])
      return emitError(loc)
             << "batch_to_space: crops " << cropsBegin[i] << ", " << cropsEnd[i]
             << " do not fit extent " << out[2 + i];
    SliceDim d;
    d.start = cropsBegin[i];
    d.stop = out[2 + i] - cropsEnd[i];
    dims.push_back(d);
  }
  return buildSlice(b, loc, *r, dims);
}

FailureOr<Value> mlprog::buildSlidingWindows(OpBuilder &b, Location loc,
                                             Value x, int64_t axis,
                                             int64_t size, int64_t stride) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "sliding_windows");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  if (axis < 0 || axis >= rank)
    return emitError(loc) << "sliding_windows: axis " << axis
                          << " out of range for " << *type;
  int64_t extent = type->getDimSize(axis);
  if (ShapedType::isDynamic(extent) || size < 1 || stride < 1 || size > extent)
    return emitError(loc) << "sliding_windows: size " << size << " and stride "
                          << stride << " do not fit the static extent of dim "
                          << axis << " of " << *type;
  SmallVector<int64_t> shape(type->getShape());
  shape[axis] = (extent - size) / stride + 1;
  shape.insert(shape.begin() + axis + 1, size);
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> in;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t loopDim = d <= axis ? d : d + 1;
    in.push_back(d == axis ? getAffineDimExpr(axis, ctx) * stride +
                                 getAffineDimExpr(axis + 1, ctx)
                           : getAffineDimExpr(loopDim, ctx));
  }
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank + 1; ++d) {
    int64_t src = d <= axis ? d : d - 1;
    sizes.push_back(d != axis && d != axis + 1 &&
                            ShapedType::isDynamic(shape[d])
                        ? OpFoldResult(tensor::DimOp::create(b, loc, x, src))
                        : OpFoldResult(b.getIndexAttr(shape[d])));
  }
  Value init = tensor::EmptyOp::create(b, loc, sizes, type->getElementType());
  SmallVector<AffineMap> maps = {AffineMap::get(rank + 1, 0, in, ctx),
                                 b.getMultiDimIdentityMap(rank + 1)};
  auto op = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{x}, ValueRange{init}, maps,
      parallelIterators(rank + 1),
      [](OpBuilder &nb, Location nl, ValueRange args) {
        linalg::YieldOp::create(nb, nl, args[0]);
      });
  return op.getResult(0);
}

namespace {
/// The checked geometry of a diagonal: the extent of the diagonal and the
/// shape of buildDiagonal's result.
struct DiagonalPlane {
  int64_t length;
  SmallVector<int64_t> shape;
};
} // namespace

static FailureOr<DiagonalPlane> diagonalPlane(Location loc,
                                              RankedTensorType type,
                                              int64_t offset, int64_t dim1,
                                              int64_t dim2) {
  int64_t rank = type.getRank();
  if (rank < 2 || dim1 == dim2 || dim1 < 0 || dim2 < 0 || dim1 >= rank ||
      dim2 >= rank)
    return emitError(loc) << "diagonal: dims " << dim1 << " and " << dim2
                          << " do not name two dims of " << type;
  int64_t n1 = type.getDimSize(dim1), n2 = type.getDimSize(dim2);
  if (ShapedType::isDynamic(n1) || ShapedType::isDynamic(n2))
    return emitError(loc) << "diagonal: dims " << dim1 << " and " << dim2
                          << " of " << type << " must be static";
  DiagonalPlane p;
  p.length = std::max<int64_t>(0, offset >= 0 ? std::min(n1, n2 - offset)
                                              : std::min(n1 + offset, n2));
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim1 && d != dim2)
      p.shape.push_back(type.getDimSize(d));
  p.shape.push_back(p.length);
  return p;
}

FailureOr<Value> mlprog::buildDiagonal(OpBuilder &b, Location loc, Value x,
                                       int64_t offset, int64_t dim1,
                                       int64_t dim2) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "diagonal");
  if (failed(type))
    return failure();
  FailureOr<DiagonalPlane> plane =
      diagonalPlane(loc, *type, offset, dim1, dim2);
  if (failed(plane))
    return failure();
  int64_t rank = type->getRank(), outRank = rank - 1;
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim1 && d != dim2)
      sizes.push_back(tensor::getMixedSize(b, loc, x, d));
  sizes.push_back(b.getIndexAttr(plane->length));
  Value init = createEmpty(b, loc, sizes, type->getElementType());
  if (plane->length == 0 || llvm::is_contained(plane->shape, 0))
    return init;
  // The elements are read with tensor.extract: linalg's verifier would
  // equate the extents of dim1 and dim2 with the diagonal's through an
  // input map i -> (i, i).
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{}, ValueRange{init},
             SmallVector<AffineMap>{b.getMultiDimIdentityMap(outRank)},
             parallelIterators(outRank),
             [&](OpBuilder &nb, Location nl, ValueRange) {
               Value i = linalg::IndexOp::create(nb, nl, outRank - 1);
               SmallVector<Value> at;
               int64_t other = 0;
               for (int64_t d = 0; d < rank; ++d) {
                 if (d == dim1 || d == dim2) {
                   int64_t shift =
                       std::max<int64_t>(d == dim1 ? -offset : offset, 0);
                   at.push_back(
                       arith::AddIOp::create(nb, nl, i, cIndex(nb, nl, shift)));
                 } else {
                   at.push_back(linalg::IndexOp::create(nb, nl, other++));
                 }
               }
               linalg::YieldOp::create(
                   nb, nl,
                   tensor::ExtractOp::create(nb, nl, x, at).getResult());
             })
      .getResult(0);
}

FailureOr<Value> mlprog::buildDiagonalScatter(OpBuilder &b, Location loc,
                                              Value x, Value src,
                                              int64_t offset, int64_t dim1,
                                              int64_t dim2) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "diagonal_scatter");
  FailureOr<RankedTensorType> st = getRankedType(loc, src, "diagonal_scatter");
  if (failed(type) || failed(st))
    return failure();
  FailureOr<DiagonalPlane> plane =
      diagonalPlane(loc, *type, offset, dim1, dim2);
  if (failed(plane))
    return failure();
  if (st->getElementType() != type->getElementType() ||
      failed(verifyCompatibleShape(st->getShape(), plane->shape)))
    return emitError(loc) << "diagonal_scatter: source " << *st
                          << " does not fit the diagonal of " << *type;
  if (plane->length == 0 || llvm::is_contained(type->getShape(), 0))
    return x;
  int64_t rank = type->getRank();
  Value init = createEmpty(b, loc, tensor::getMixedSizes(b, loc, x),
                           type->getElementType());
  AffineMap id = b.getMultiDimIdentityMap(rank);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{x}, ValueRange{init},
             SmallVector<AffineMap>{id, id}, parallelIterators(rank),
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value i1 = linalg::IndexOp::create(nb, nl, dim1);
               Value i2 = linalg::IndexOp::create(nb, nl, dim2);
               Value onDiagonal =
                   arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq,
                                         arith::SubIOp::create(nb, nl, i2, i1),
                                         cIndex(nb, nl, offset));
               // The position along the diagonal, clamped so that the read
               // stays in bounds off the diagonal too.
               Value k = offset >= 0 ? i1 : i2;
               k = arith::MinSIOp::create(nb, nl, k,
                                          cIndex(nb, nl, plane->length - 1));
               SmallVector<Value> at;
               for (int64_t d = 0; d < rank; ++d)
                 if (d != dim1 && d != dim2)
                   at.push_back(linalg::IndexOp::create(nb, nl, d));
               at.push_back(k);
               Value v = tensor::ExtractOp::create(nb, nl, src, at);
               linalg::YieldOp::create(
                   nb, nl,
                   arith::SelectOp::create(nb, nl, onDiagonal, v, args[0])
                       .getResult());
             })
      .getResult(0);
}

FailureOr<Value> mlprog::buildIm2Col(OpBuilder &b, Location loc, Value x,
                                     ArrayRef<int64_t> kernel,
                                     ArrayRef<int64_t> dilation,
                                     ArrayRef<int64_t> padding,
                                     ArrayRef<int64_t> stride) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "im2col");
  if (failed(type))
    return failure();
  auto pairOk = [](ArrayRef<int64_t> p, int64_t min) {
    return p.size() == 2 && p[0] >= min && p[1] >= min;
  };
  if (type->getRank() != 4 || !type->hasStaticShape() || !pairOk(kernel, 1) ||
      !pairOk(dilation, 1) || !pairOk(stride, 1) || !pairOk(padding, 0))
    return emitError(loc) << "im2col: expected a static [N, C, H, W] tensor "
                             "and positive kernel, dilation and stride, got "
                          << *type;
  ArrayRef<int64_t> s = type->getShape();
  int64_t out[2];
  for (int k = 0; k < 2; ++k) {
    out[k] = (s[2 + k] + 2 * padding[k] - dilation[k] * (kernel[k] - 1) - 1) /
                 stride[k] +
             1;
    if (s[2 + k] + 2 * padding[k] - dilation[k] * (kernel[k] - 1) - 1 < 0)
      out[k] = 0;
  }
  if (out[0] < 1 || out[1] < 1)
    return emitError(loc) << "im2col: the kernel does not fit " << *type;
  Type et = type->getElementType();
  Value padded = x;
  if (padding[0] || padding[1])
    padded = padStatic(b, loc, x, {0, 0, padding[0], padding[1]},
                       {0, 0, padding[0], padding[1]}, b.getZeroAttr(et));
  // Loops (n, c, i, j, oh, ow).
  MLIRContext *ctx = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineExpr> in = {d(0), d(1),
                                d(4) * stride[0] + d(2) * dilation[0],
                                d(5) * stride[1] + d(3) * dilation[1]};
  SmallVector<int64_t> shape = {s[0],      s[1],   kernel[0],
                                kernel[1], out[0], out[1]};
  Value init = tensor::EmptyOp::create(b, loc, shape, et);
  SmallVector<AffineMap> maps = {AffineMap::get(6, 0, in, ctx),
                                 b.getMultiDimIdentityMap(6)};
  Value patches = linalg::GenericOp::create(
                      b, loc, init.getType(), ValueRange{padded},
                      ValueRange{init}, maps, parallelIterators(6),
                      [](OpBuilder &nb, Location nl, ValueRange args) {
                        linalg::YieldOp::create(nb, nl, args[0]);
                      })
                      .getResult(0);
  return buildReshape(b, loc, patches,
                      {s[0], s[1] * kernel[0] * kernel[1], out[0] * out[1]});
}

FailureOr<Value> mlprog::buildCenterCropPad(OpBuilder &b, Location loc, Value x,
                                            Value shape,
                                            ArrayRef<int64_t> axes) {
  FailureOr<RankedTensorType> xt = getRankedType(loc, x, "center crop/pad");
  if (failed(xt))
    return failure();
  auto st = dyn_cast<RankedTensorType>(shape.getType());
  int64_t rank = xt->getRank(), n = axes.size();
  if (!st || st.getRank() != 1 || !st.getElementType().isSignlessInteger() ||
      st.getDimSize(0) != n)
    return emitError(loc) << "center crop/pad: shape must be a 1-D integer "
                             "tensor of "
                          << n << " elements, got " << shape.getType();
  SmallVector<bool> seen(rank, false);
  for (int64_t a : axes) {
    if (a < 0 || a >= rank || seen[a])
      return emitError(loc)
             << "center crop/pad: bad axis " << a << " for rank " << rank;
    seen[a] = true;
  }
  IndexMath m{b, loc};
  SmallVector<Value> targets = readIndices(m, shape);
  SmallVector<OpFoldResult> inSizes = tensor::getMixedSizes(b, loc, x);
  SmallVector<OpFoldResult> outSizes = inSizes, cropAt(rank, b.getIndexAttr(0)),
                            padAt(rank, b.getIndexAttr(0)), copy = inSizes;
  for (auto [i, a] : llvm::enumerate(axes)) {
    Value dim = getValueOrCreateConstantIndexOp(b, loc, inSizes[a]);
    Value target = m.max(targets[i], m.c(0));
    Value two = m.c(2);
    cropAt[a] =
        arith::DivSIOp::create(b, loc, m.max(m.sub(dim, target), m.c(0)), two)
            .getResult();
    padAt[a] =
        arith::DivSIOp::create(b, loc, m.max(m.sub(target, dim), m.c(0)), two)
            .getResult();
    copy[a] = m.min(dim, target);
    outSizes[a] = target;
  }
  // Static where the folder can tell (constant shapes).
  auto fold = [&](SmallVector<OpFoldResult> &v) {
    for (OpFoldResult &f : v)
      if (std::optional<int64_t> c = getConstantIntValue(f))
        f = b.getIndexAttr(*c);
  };
  fold(outSizes), fold(cropAt), fold(padAt), fold(copy);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  Value cropped =
      tensor::ExtractSliceOp::create(b, loc, x, cropAt, copy, strides);
  Value zeros =
      createFilled(b, loc, outSizes, b.getZeroAttr(xt->getElementType()));
  return tensor::InsertSliceOp::create(b, loc, cropped, zeros, padAt, copy,
                                       strides)
      .getResult();
}
