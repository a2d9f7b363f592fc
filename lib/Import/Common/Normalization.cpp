//===- Normalization.cpp - Layer and instance normalization ---------------===//

#include "mlprog/Import/Common/Normalization.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Pointwise.h"
#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlprog;

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
