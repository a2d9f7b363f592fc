//===- Normalization.cpp - Batch, layer, instance and local norms ---------===//

#include "mlprog/Import/Common/Normalization.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Logic.h"
#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/Statistics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"

#include <map>
#include <tuple>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

FailureOr<Value> mlprog::buildBatchNormInference(OpBuilder &b, Location loc,
                                                 Value x, Value scale,
                                                 Value bias, Value mean,
                                                 Value var, double epsilon) {
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  if (!xt || xt.getRank() < 2 || !isa<FloatType>(xt.getElementType()))
    return emitError(loc) << "batch norm needs a float tensor of rank >= 2, "
                             "got "
                          << x.getType();
  int64_t channels = xt.getDimSize(1);
  for (Value p : {scale, bias, mean, var}) {
    auto pt = dyn_cast<RankedTensorType>(p.getType());
    if (!pt || pt.getRank() != 1 ||
        pt.getElementType() != xt.getElementType() ||
        (!pt.isDynamicDim(0) && !ShapedType::isDynamic(channels) &&
         pt.getDimSize(0) != channels))
      return emitError(loc) << "batch norm parameter of type " << p.getType()
                            << " does not match " << x.getType();
  }
  unsigned rank = xt.getRank();
  MLIRContext *ctx = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap channel = AffineMap::get(rank, 0, getAffineDimExpr(1, ctx));
  SmallVector<AffineMap> maps = {identity, channel, channel,
                                 channel,  channel, identity};
  Value init = createEmpty(b, loc, tensor::getMixedSizes(b, loc, x),
                           xt.getElementType());
  Type et = xt.getElementType();
  auto generic = linalg::GenericOp::create(
      b, loc, xt, ValueRange{x, scale, bias, mean, var}, init, maps,
      parallelIterators(rank), [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value eps = createScalar(nb, nl, et, epsilon);
        Value centered = arith::SubFOp::create(nb, nl, a[0], a[3]);
        Value stddev = math::SqrtOp::create(
            nb, nl, arith::AddFOp::create(nb, nl, a[4], eps));
        Value normed = arith::DivFOp::create(nb, nl, centered, stddev);
        Value scaled = arith::MulFOp::create(nb, nl, normed, a[1]);
        linalg::YieldOp::create(
            nb, nl, ValueRange{arith::AddFOp::create(nb, nl, scaled, a[2])});
      });
  return generic.getResult(0);
}

FailureOr<BatchNormTrainingResult>
mlprog::buildBatchNormTraining(OpBuilder &b, Location loc, Value x,
                               Value weight, Value bias, double epsilon) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || type.getRank() < 2 || !isa<FloatType>(type.getElementType()))
    return emitError(loc) << "batch norm needs a float tensor of rank >= 2, "
                             "got "
                          << x.getType();
  SmallVector<int64_t> axes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d != 1)
      axes.push_back(d);
  BatchNormTrainingResult r;
  FailureOr<Value> mean = buildReduce(b, loc, ReduceKind::Mean, x, axes,
                                      /*keepDims=*/false);
  FailureOr<Value> var = buildVariance(b, loc, x, axes, false, 0);
  FailureOr<Value> uvar = buildVariance(b, loc, x, axes, false, 1);
  if (failed(mean) || failed(var) || failed(uvar))
    return failure();
  r.mean = *mean;
  r.biasedVar = *var;
  r.unbiasedVar = *uvar;
  Type et = type.getElementType();
  SmallVector<OpFoldResult> c = {tensor::getMixedSize(b, loc, x, 1)};
  if (!weight)
    weight = createFilled(b, loc, c, b.getFloatAttr(et, 1.0));
  if (!bias)
    bias = createFilled(b, loc, c, b.getFloatAttr(et, 0.0));
  FailureOr<Value> y = buildBatchNormInference(b, loc, x, weight, bias, r.mean,
                                               r.biasedVar, epsilon);
  if (failed(y))
    return failure();
  r.output = *y;
  return r;
}

FailureOr<Value> mlprog::buildRunningAverage(OpBuilder &b, Location loc,
                                             Value running, Value batch,
                                             double keep) {
  Type et = getElementTypeOrSelf(running.getType());
  if (!isa<FloatType>(et) || getElementTypeOrSelf(batch.getType()) != et)
    return emitError(loc) << "running average needs float tensors of one "
                             "element type, got "
                          << running.getType() << " and " << batch.getType();
  return buildBroadcastedGeneric(
      b, loc, {running, batch}, et,
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value r =
            arith::MulFOp::create(nb, nl, a[0], createScalar(nb, nl, et, keep));
        Value t = arith::MulFOp::create(nb, nl, a[1],
                                        createScalar(nb, nl, et, 1.0 - keep));
        return arith::AddFOp::create(nb, nl, r, t);
      });
}

/// Normalizes `x` over `axes` (normalized, distinct) without the affine
/// part; the statistics keep the reduced dims as 1s.
static FailureOr<LayerNormResult> normalize(OpBuilder &b, Location loc, Value x,
                                            ArrayRef<int64_t> axes,
                                            double epsilon) {
  FailureOr<Value> mean =
      buildReduce(b, loc, ReduceKind::Mean, x, axes, /*keepDims=*/true);
  if (failed(mean))
    return failure();
  FailureOr<Value> centered =
      buildElementwiseBinary(b, loc, BinaryOpKind::Sub, x, *mean);
  if (failed(centered))
    return failure();
  FailureOr<Value> squared =
      buildElementwiseBinary(b, loc, BinaryOpKind::Mul, *centered, *centered);
  if (failed(squared))
    return failure();
  FailureOr<Value> var =
      buildReduce(b, loc, ReduceKind::Mean, *squared, axes, /*keepDims=*/true);
  if (failed(var))
    return failure();
  FailureOr<Value> shifted = buildAddScalar(b, loc, *var, epsilon);
  if (failed(shifted))
    return failure();
  FailureOr<Value> inv = buildPointwise(b, loc, PointwiseKind::Rsqrt, *shifted);
  if (failed(inv))
    return failure();
  FailureOr<Value> y =
      buildElementwiseBinary(b, loc, BinaryOpKind::Mul, *centered, *inv);
  if (failed(y))
    return failure();
  return LayerNormResult{*y, *mean, *inv};
}

/// Reshapes a parameter holding x's extents at `axes` (in order) to x's rank
/// with unit extents elsewhere, so that it broadcasts against x. Any other
/// parameter is an error when `strict`, else returned as is (numpy
/// broadcasting against x).
static FailureOr<Value> spreadParam(OpBuilder &b, Location loc, Value p,
                                    RankedTensorType xt, ArrayRef<int64_t> axes,
                                    StringRef what, bool strict) {
  auto pt = dyn_cast<RankedTensorType>(p.getType());
  if (!pt || pt.getElementType() != xt.getElementType())
    return emitError(loc) << what << " of type " << p.getType()
                          << " does not match the element type of " << xt;
  SmallVector<int64_t> expected, spread(xt.getRank(), 1);
  for (int64_t a : axes) {
    expected.push_back(xt.getDimSize(a));
    spread[a] = xt.getDimSize(a);
  }
  if (pt.getShape() != ArrayRef<int64_t>(expected)) {
    if (strict)
      return emitError(loc) << what << " of type " << p.getType()
                            << " does not match the normalized dims of " << xt;
    return p;
  }
  if (pt.getRank() == xt.getRank())
    return p;
  // Trailing axes in order broadcast without a reshape.
  bool trailing = true;
  for (auto [i, a] : llvm::enumerate(axes))
    trailing &= a == xt.getRank() - int64_t(axes.size()) + int64_t(i);
  if (trailing)
    return p;
  if (llvm::count_if(spread, ShapedType::isDynamic) > 1)
    return emitError(loc) << what << ": more than one dynamic normalized dim";
  return buildReshape(b, loc, p, spread);
}

static FailureOr<Value> applyAffine(OpBuilder &b, Location loc, Value y,
                                    RankedTensorType xt, ArrayRef<int64_t> axes,
                                    Value gamma, Value beta, bool strict) {
  if (gamma) {
    FailureOr<Value> g = spreadParam(b, loc, gamma, xt, axes, "gamma", strict);
    if (failed(g))
      return failure();
    FailureOr<Value> r =
        buildElementwiseBinary(b, loc, BinaryOpKind::Mul, y, *g);
    if (failed(r))
      return failure();
    y = *r;
  }
  if (beta) {
    FailureOr<Value> bb = spreadParam(b, loc, beta, xt, axes, "beta", strict);
    if (failed(bb))
      return failure();
    FailureOr<Value> r =
        buildElementwiseBinary(b, loc, BinaryOpKind::Add, y, *bb);
    if (failed(r))
      return failure();
    y = *r;
  }
  return y;
}

FailureOr<LayerNormResult> mlprog::buildLayerNorm(OpBuilder &b, Location loc,
                                                  Value x,
                                                  ArrayRef<int64_t> axes,
                                                  Value gamma, Value beta,
                                                  double epsilon) {
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  if (!xt || !isa<FloatType>(xt.getElementType()))
    return emitError(loc) << "layer norm needs a ranked float tensor, got "
                          << x.getType();
  int64_t rank = xt.getRank();
  SmallVector<int64_t> normalized;
  SmallVector<bool> seen(rank, false);
  for (int64_t a : axes) {
    if (a < -rank || a >= rank || seen[(a + rank) % rank])
      return emitError(loc)
             << "layer norm: invalid axis " << a << " for rank " << rank;
    seen[(a + rank) % rank] = true;
    normalized.push_back((a + rank) % rank);
  }
  if (axes.empty())
    for (int64_t d = 0; d < rank; ++d)
      normalized.push_back(d);
  FailureOr<LayerNormResult> r = normalize(b, loc, x, normalized, epsilon);
  if (failed(r))
    return failure();
  FailureOr<Value> y = applyAffine(b, loc, r->y, xt, normalized, gamma, beta,
                                   /*strict=*/false);
  if (failed(y))
    return failure();
  r->y = *y;
  return r;
}

FailureOr<Value> mlprog::buildInstanceNorm(OpBuilder &b, Location loc, Value x,
                                           Value gamma, Value beta,
                                           double epsilon) {
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  if (!xt || xt.getRank() < 3 || !isa<FloatType>(xt.getElementType()))
    return emitError(loc) << "instance norm needs a float tensor of rank >= 3, "
                             "got "
                          << x.getType();
  SmallVector<int64_t> spatial;
  for (int64_t d = 2; d < xt.getRank(); ++d)
    spatial.push_back(d);
  FailureOr<LayerNormResult> r = normalize(b, loc, x, spatial, epsilon);
  if (failed(r))
    return failure();
  return applyAffine(b, loc, r->y, xt, {1}, gamma, beta, /*strict=*/true);
}

/// `x` converted to `type` (null or x's element type: unchanged).
static FailureOr<Value> convertTo(OpBuilder &b, Location loc, Value x,
                                  Type type) {
  if (!type || type == elementTypeOf(x))
    return x;
  return buildConvertElementType(b, loc, x, type);
}

FailureOr<Value> mlprog::buildRMSNorm(OpBuilder &b, Location loc, Value x,
                                      ArrayRef<int64_t> axes, Value scale,
                                      double epsilon, Type computeType) {
  Type et = elementTypeOf(x);
  if (!isa_and_nonnull<FloatType>(et) ||
      (computeType && !isa<FloatType>(computeType)) ||
      (scale && !isa_and_nonnull<FloatType>(elementTypeOf(scale))))
    return emitError(loc) << "RMS normalization needs float tensors, got "
                          << x.getType();
  FailureOr<Value> xc = convertTo(b, loc, x, computeType);
  if (failed(xc))
    return failure();
  FailureOr<Value> meanSq =
      buildReduce(b, loc, ReduceKind::Mean,
                  binaryOrNull(b, loc, BinaryOpKind::Mul, *xc, *xc), axes,
                  /*keepDims=*/true);
  if (failed(meanSq))
    return failure();
  FailureOr<Value> shifted = buildAddScalar(b, loc, *meanSq, epsilon);
  if (failed(shifted))
    return failure();
  FailureOr<Value> normalized =
      buildElementwiseBinary(b, loc, BinaryOpKind::Div, *xc,
                             unaryOrNull(b, loc, UnaryOpKind::Sqrt, *shifted));
  if (succeeded(normalized))
    normalized = convertTo(b, loc, *normalized, et);
  if (failed(normalized) || !scale)
    return normalized;
  normalized = convertTo(b, loc, *normalized, elementTypeOf(scale));
  if (failed(normalized))
    return failure();
  return buildElementwiseBinary(b, loc, BinaryOpKind::Mul, *normalized, scale);
}

/// Reshapes a group norm parameter [C] or [G] to broadcast against the
/// grouped input [N, G, C/G, D...] of rank `rank`.
static FailureOr<Value> groupParam(OpBuilder &b, Location loc, Value p, Type et,
                                   int64_t channels, int64_t groups,
                                   int64_t rank, StringRef what) {
  auto pt = dyn_cast<RankedTensorType>(p.getType());
  if (!pt || pt.getRank() != 1 || pt.getElementType() != et ||
      (pt.getDimSize(0) != channels && pt.getDimSize(0) != groups))
    return emitError(loc) << "group norm " << what << " of type " << p.getType()
                          << " is not [" << channels << "] or [" << groups
                          << "] of " << et;
  SmallVector<int64_t> shape(rank, 1);
  shape[1] = groups;
  if (pt.getDimSize(0) == channels)
    shape[2] = channels / groups;
  return buildReshape(b, loc, p, shape);
}

FailureOr<Value> mlprog::buildGroupNorm(OpBuilder &b, Location loc, Value x,
                                        int64_t numGroups, Value scale,
                                        Value bias, double epsilon,
                                        Type computeType) {
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  if (!xt || xt.getRank() < 2 || !isa<FloatType>(xt.getElementType()) ||
      (computeType && !isa<FloatType>(computeType)))
    return emitError(loc) << "group norm needs a float tensor of rank >= 2, "
                             "got "
                          << x.getType();
  int64_t channels = xt.getDimSize(1);
  if (numGroups <= 0 || ShapedType::isDynamic(channels) ||
      channels % numGroups != 0)
    return emitError(loc) << "group norm: " << numGroups
                          << " groups do not divide the channels of "
                          << x.getType();
  Type et = xt.getElementType();
  Value grouped = splitDim(b, loc, x, 1, numGroups);
  int64_t rank = xt.getRank() + 1;
  FailureOr<Value> xc = convertTo(b, loc, grouped, computeType);
  if (failed(xc))
    return failure();
  FailureOr<LayerNormResult> r = normalize(
      b, loc, *xc, llvm::to_vector(llvm::seq<int64_t>(2, rank)), epsilon);
  if (failed(r))
    return failure();
  FailureOr<Value> y = convertTo(b, loc, r->y, et);
  for (auto [p, kind, what] : {std::tuple{scale, BinaryOpKind::Mul, "scale"},
                               std::tuple{bias, BinaryOpKind::Add, "bias"}}) {
    if (failed(y))
      return failure();
    if (!p)
      continue;
    FailureOr<Value> param =
        groupParam(b, loc, p, et, channels, numGroups, rank, what);
    if (failed(param))
      return failure();
    y = buildElementwiseBinary(b, loc, kind, *y, *param);
  }
  if (failed(y))
    return failure();
  return mergeDims(b, loc, *y, 1);
}

FailureOr<Value> mlprog::buildL2Normalize(OpBuilder &b, Location loc, Value x,
                                          ArrayRef<int64_t> axes,
                                          double epsilon) {
  if (!isa_and_nonnull<FloatType>(elementTypeOf(x)))
    return emitError(loc) << "l2 normalization needs a float tensor, got "
                          << x.getType();
  FailureOr<Value> sumSq =
      buildNormReduce(b, loc, NormReduceKind::SumSquare, x, axes, true);
  if (failed(sumSq))
    return failure();
  FailureOr<Value> shifted = buildAddScalar(b, loc, *sumSq, epsilon);
  if (failed(shifted))
    return failure();
  FailureOr<Value> inv = buildPointwise(b, loc, PointwiseKind::Rsqrt, *shifted);
  if (failed(inv))
    return failure();
  return buildElementwiseBinary(b, loc, BinaryOpKind::Mul, x, *inv);
}

FailureOr<Value>
mlprog::buildMeanVarianceNormalization(OpBuilder &b, Location loc, Value x,
                                       ArrayRef<int64_t> axes) {
  if (!isa_and_nonnull<FloatType>(elementTypeOf(x)))
    return emitError(loc) << "mean-variance normalization needs a float "
                             "tensor, got "
                          << x.getType();
  FailureOr<Value> mean = buildReduce(b, loc, ReduceKind::Mean, x, axes, true);
  if (failed(mean))
    return failure();
  Value x2 = binaryOrNull(b, loc, BinaryOpKind::Mul, x, x);
  FailureOr<Value> meanSq =
      buildReduce(b, loc, ReduceKind::Mean, x2, axes, true);
  if (failed(meanSq))
    return failure();
  Value var =
      binaryOrNull(b, loc, BinaryOpKind::Sub, *meanSq,
                   binaryOrNull(b, loc, BinaryOpKind::Mul, *mean, *mean));
  Value stddev = unaryOrNull(b, loc, UnaryOpKind::Sqrt, var);
  FailureOr<Value> denom = buildAddScalar(b, loc, stddev, 1e-9);
  if (failed(denom))
    return failure();
  return buildElementwiseBinary(
      b, loc, BinaryOpKind::Div,
      binaryOrNull(b, loc, BinaryOpKind::Sub, x, *mean), *denom);
}

FailureOr<Value> mlprog::buildLRN(OpBuilder &b, Location loc, Value x,
                                  int64_t size, double alpha, double beta,
                                  double bias, bool extraBefore) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || type.getRank() < 3 || !isa<FloatType>(type.getElementType()))
    return emitError(loc) << "LRN needs a float tensor of rank >= 3, got "
                          << x.getType();
  if (size < 1)
    return emitError(loc) << "LRN size must be positive, got " << size;
  Type et = type.getElementType();
  int64_t rank = type.getRank();
  Value sq = binaryOrNull(b, loc, BinaryOpKind::Mul, x, x);
  SmallVector<int64_t> low(rank, 0), high(rank, 0);
  high[1] = (size - 1) / 2;
  low[1] = size - 1 - high[1];
  if (!extraBefore)
    std::swap(low[1], high[1]);
  Value padded = padStatic(b, loc, sq, low, high, b.getZeroAttr(et));
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> inExprs, outExprs;
  for (int64_t d = 0; d < rank; ++d) {
    outExprs.push_back(getAffineDimExpr(d, ctx));
    inExprs.push_back(d == 1 ? getAffineDimExpr(1, ctx) +
                                   getAffineDimExpr(rank, ctx)
                             : getAffineDimExpr(d, ctx));
  }
  // A [size] operand only gives the window loop its extent.
  Value window = createEmpty(b, loc, {b.getIndexAttr(size)}, et);
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank + 1, 0, inExprs, ctx),
      AffineMap::get(rank + 1, 0, {getAffineDimExpr(rank, ctx)}, ctx),
      AffineMap::get(rank + 1, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iterators = parallelIterators(rank);
  iterators.push_back(utils::IteratorType::reduction);
  Value init =
      createFilled(b, loc, tensor::getMixedSizes(b, loc, x), b.getZeroAttr(et));
  Value sum =
      linalg::GenericOp::create(
          b, loc, init.getType(), ValueRange{padded, window}, init, maps,
          iterators,
          [&](OpBuilder &nb, Location nl, ValueRange a) {
            linalg::YieldOp::create(
                nb, nl, arith::AddFOp::create(nb, nl, a[0], a[2]).getResult());
          })
          .getResult(0);
  return buildBroadcastedGeneric(
      b, loc, {x, sum}, et, [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value scaled = arith::MulFOp::create(
            nb, nl, a[1], createScalar(nb, nl, et, alpha / double(size)));
        Value base = arith::AddFOp::create(nb, nl, scaled,
                                           createScalar(nb, nl, et, bias));
        Value p =
            math::PowFOp::create(nb, nl, base, createScalar(nb, nl, et, beta));
        return arith::DivFOp::create(nb, nl, a[0], p).getResult();
      });
}

FailureOr<Value> mlprog::buildLpNormalization(OpBuilder &b, Location loc,
                                              Value x, int64_t axis,
                                              int64_t p) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || !isa<FloatType>(type.getElementType()))
    return emitError(loc) << "lp normalization needs a float tensor, got "
                          << x.getType();
  if (p != 1 && p != 2)
    return emitError(loc) << "lp normalization needs p = 1 or 2, got " << p;
  int64_t rank = type.getRank();
  if (axis < -rank || axis >= rank)
    return emitError(loc) << "lp normalization: axis " << axis
                          << " out of range for rank " << rank;
  FailureOr<Value> norm =
      buildNormReduce(b, loc, p == 1 ? NormReduceKind::L1 : NormReduceKind::L2,
                      x, {axis < 0 ? axis + rank : axis}, /*keepDims=*/true);
  if (failed(norm))
    return failure();
  Type et = type.getElementType();
  return buildBroadcastedGeneric(
      b, loc, ValueRange{x, *norm}, et,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value zero = arith::ConstantOp::create(nb, nl, nb.getZeroAttr(et));
        Value isZero = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ,
                                             args[1], zero);
        return arith::SelectOp::create(
                   nb, nl, isZero, zero,
                   arith::DivFOp::create(nb, nl, args[0], args[1]))
            .getResult();
      });
}

FailureOr<Value> mlprog::buildRenorm(OpBuilder &b, Location loc, Value x,
                                     double p, int64_t dim, double maxNorm) {
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  if (!xt || xt.getRank() < 1 || !isa<FloatType>(xt.getElementType()))
    return emitError(loc) << "renorm needs a float tensor of rank >= 1, got "
                          << x.getType();
  int64_t rank = xt.getRank();
  if (dim < -rank || dim >= rank)
    return emitError(loc) << "renorm: dim " << dim << " out of range for rank "
                          << rank;
  dim = (dim + rank) % rank;
  SmallVector<int64_t> others;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim)
      others.push_back(d);
  Type et = xt.getElementType();
  // A 1-D input has nothing but `dim`: each element is its own sub-tensor.
  FailureOr<Value> norm =
      others.empty() ? buildElementwiseUnary(b, loc, UnaryOpKind::Abs, x)
                     : buildVectorNorm(b, loc, x, p, others, /*keepDims=*/true);
  if (failed(norm))
    return failure();
  return buildBroadcastedGeneric(
      b, loc, ValueRange{x, *norm}, et,
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value limit = createScalar(nb, nl, et, maxNorm);
        Value over = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OGT,
                                           a[1], limit);
        Value factor = arith::DivFOp::create(
            nb, nl, limit,
            arith::AddFOp::create(nb, nl, a[1],
                                  createScalar(nb, nl, et, 1e-7)));
        Value scaled = arith::MulFOp::create(nb, nl, a[0], factor);
        return arith::SelectOp::create(nb, nl, over, scaled, a[0]);
      });
}

FailureOr<Value> mlprog::buildEmbeddingRenorm(OpBuilder &b, Location loc,
                                              Value weight, Value indices,
                                              double maxNorm, double p) {
  auto wt = dyn_cast<RankedTensorType>(weight.getType());
  Type it = elementTypeOf(indices);
  if (!wt || wt.getRank() != 2 || !isa<FloatType>(wt.getElementType()) ||
      wt.isDynamicDim(0) || !it || !it.isSignlessInteger() || it.isInteger(1))
    return emitError(loc) << "embedding_renorm: expected a float [V, D] table "
                             "and integer indices, got "
                          << weight.getType() << " and " << indices.getType();
  int64_t v = wt.getDimSize(0);
  SmallVector<int64_t> rows = llvm::to_vector(llvm::seq<int64_t>(0, v));
  Value ids = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({v}, b.getI64Type()),
                             ArrayRef<int64_t>(rows)));
  FailureOr<Value> idx =
      buildConvertElementType(b, loc, indices, b.getI64Type());
  if (failed(idx))
    return failure();
  FailureOr<Value> named = buildIsIn(b, loc, ids, *idx, /*invert=*/false);
  if (failed(named))
    return failure();
  FailureOr<Value> column = buildReshape(b, loc, *named, {v, 1});
  FailureOr<Value> renormed = buildRenorm(b, loc, weight, p, 0, maxNorm);
  if (failed(column) || failed(renormed))
    return failure();
  return buildSelect(b, loc, *column, *renormed, weight);
}
