//===- NumericalIntegration.cpp - The trapezoidal rule --------------------===//

#include "mlprog/Import/Common/NumericalIntegration.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

/// `v` sliced to [start, stop) along `dim`.
static FailureOr<Value> sliceDim(OpBuilder &b, Location loc, Value v,
                                 int64_t dim, int64_t start, int64_t stop) {
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  SmallVector<SliceDim> dims(rank);
  dims[dim] = SliceDim{start, stop, 1};
  return buildSlice(b, loc, v, dims);
}

/// A rank-0 constant `v` of `et`.
static Value scalarConstant(OpBuilder &b, Location loc, Type et, double v) {
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({}, et),
                             b.getFloatAttr(et, v)));
}

FailureOr<Value> mlprog::buildTrapezoid(OpBuilder &b, Location loc, Value y,
                                        Value x, double dx, int64_t dim,
                                        bool cumulative) {
  auto t = dyn_cast<RankedTensorType>(y.getType());
  if (!t || !isa<FloatType>(t.getElementType()))
    return emitError(loc) << "trapezoid: y must be a float tensor, got "
                          << y.getType();
  int64_t rank = t.getRank();
  if (dim < -rank || dim >= rank)
    return emitError(loc) << "trapezoid: dim " << dim << " out of range for "
                          << t;
  if (dim < 0)
    dim += rank;
  int64_t n = t.getDimSize(dim);
  if (ShapedType::isDynamic(n))
    return emitError(loc) << "trapezoid: unsupported dynamic extent along dim "
                          << dim << " of " << t;
  Type et = t.getElementType();
  if (n == 0) {
    SmallVector<int64_t> shape(t.getShape());
    if (cumulative)
      return y;
    shape.erase(shape.begin() + dim);
    SmallVector<OpFoldResult> sizes;
    for (int64_t e : shape)
      sizes.push_back(b.getIndexAttr(e));
    return createFilled(b, loc, sizes, b.getZeroAttr(et));
  }
  FailureOr<Value> lo = sliceDim(b, loc, y, dim, 0, n - 1);
  FailureOr<Value> hi = sliceDim(b, loc, y, dim, 1, n);
  if (failed(lo) || failed(hi))
    return failure();
  FailureOr<Value> sum =
      buildElementwiseBinary(b, loc, BinaryOpKind::Add, *lo, *hi);
  if (failed(sum))
    return failure();
  // The widths of the intervals: diff(x) along dim, or dx.
  Value width;
  if (x) {
    auto xt = dyn_cast<RankedTensorType>(x.getType());
    if (!xt || xt.getElementType() != et)
      return emitError(loc) << "trapezoid: x must be a tensor of " << et
                            << ", got " << x.getType();
    int64_t xdim = dim;
    if (xt.getRank() == 1 && rank > 1) {
      // A 1-D x lies along dim.
      SmallVector<int64_t> shape(rank, 1);
      shape[dim] = xt.getDimSize(0);
      FailureOr<Value> r = buildReshape(b, loc, x, shape);
      if (failed(r))
        return failure();
      x = *r;
    } else {
      xdim = dim - (rank - xt.getRank());
      if (xdim < 0)
        return emitError(loc) << "trapezoid: x " << xt << " does not reach dim "
                              << dim << " of " << t;
    }
    int64_t xn = cast<RankedTensorType>(x.getType()).getDimSize(xdim);
    if (xn != n)
      return emitError(loc) << "trapezoid: x has " << xn << " points along dim "
                            << dim << ", y has " << n;
    FailureOr<Value> x0 = sliceDim(b, loc, x, xdim, 0, n - 1);
    FailureOr<Value> x1 = sliceDim(b, loc, x, xdim, 1, n);
    if (failed(x0) || failed(x1))
      return failure();
    FailureOr<Value> d =
        buildElementwiseBinary(b, loc, BinaryOpKind::Sub, *x1, *x0);
    if (failed(d))
      return failure();
    width = *d;
  } else {
    width = scalarConstant(b, loc, et, dx);
  }
  FailureOr<Value> terms =
      buildElementwiseBinary(b, loc, BinaryOpKind::Mul, width, *sum);
  if (failed(terms))
    return failure();
  FailureOr<Value> total =
      cumulative ? buildCumSum(b, loc, *terms, dim, false, false)
                 : buildReduce(b, loc, ReduceKind::Sum, *terms, {dim}, false);
  if (failed(total))
    return failure();
  return buildElementwiseBinary(b, loc, BinaryOpKind::Div, *total,
                                scalarConstant(b, loc, et, 2.0));
}
