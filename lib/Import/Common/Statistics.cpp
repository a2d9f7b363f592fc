//===- Statistics.cpp - Covariance, quantiles, histograms -----------------===//

#include "mlprog/Import/Common/Statistics.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/LinearAlgebra.h"
#include "mlprog/Import/Common/Logic.h"
#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

/// A 0-d tensor constant `v` of the float type `et`.
static Value scalarTensor(OpBuilder &b, Location loc, Type et, double v) {
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({}, et),
                             b.getFloatAttr(et, v)));
}

/// The float type of ranked `x` with a static shape, or an error.
static FailureOr<FloatType> staticFloat(Location loc, Value x, StringRef what) {
  auto t = dyn_cast<RankedTensorType>(x.getType());
  if (!t || !t.hasStaticShape() || !isa<FloatType>(t.getElementType()))
    return emitError(loc) << what
                          << ": expected a float tensor of static shape, got "
                          << x.getType();
  return cast<FloatType>(t.getElementType());
}

/// Sum of every element of `x` as a 0-d tensor.
static Value sumAll(OpBuilder &b, Location loc, Value x) {
  FailureOr<Value> s = buildReduce(b, loc, ReduceKind::Sum, x, {}, false);
  return succeeded(s) ? *s : Value();
}

FailureOr<Value> mlprog::buildCovariance(OpBuilder &b, Location loc, Value x,
                                         double correction, Value fweights,
                                         Value aweights) {
  FailureOr<FloatType> et = staticFloat(loc, x, "cov");
  if (failed(et))
    return failure();
  auto t = cast<RankedTensorType>(x.getType());
  if (t.getRank() > 2)
    return emitError(loc) << "cov: expected a tensor of rank <= 2, got " << t;
  if (t.getRank() < 2) {
    FailureOr<Value> r =
        buildReshape(b, loc, x, {1, t.getRank() ? t.getDimSize(0) : 1});
    if (failed(r))
      return failure();
    x = *r;
  }
  int64_t obs = cast<RankedTensorType>(x.getType()).getDimSize(1);
  auto weight = [&](Value w) -> FailureOr<Value> {
    auto wt = dyn_cast<RankedTensorType>(w.getType());
    if (!wt || wt.getShape() != ArrayRef<int64_t>{obs})
      return emitError(loc) << "cov: expected weights of shape [" << obs
                            << "], got " << w.getType();
    return buildConvertElementType(b, loc, w, *et);
  };
  auto bin = [&](BinaryOpKind k, Value l, Value r) {
    return l && r ? binaryOrNull(b, loc, k, l, r) : Value();
  };
  Value w, aw;
  if (fweights) {
    FailureOr<Value> f = weight(fweights);
    if (failed(f))
      return failure();
    w = *f;
  }
  if (aweights) {
    FailureOr<Value> a = weight(aweights);
    if (failed(a))
      return failure();
    aw = *a;
    w = w ? bin(BinaryOpKind::Mul, w, aw) : aw;
  }
  Value wsum = w ? sumAll(b, loc, w) : scalarTensor(b, loc, *et, obs);
  Value xw = w ? bin(BinaryOpKind::Mul, x, w) : x;
  if (!wsum || !xw)
    return failure();
  FailureOr<Value> total = buildReduce(b, loc, ReduceKind::Sum, xw, {1}, true);
  if (failed(total))
    return failure();
  Value avg = bin(BinaryOpKind::Div, *total, wsum);
  Value corr = scalarTensor(b, loc, *et, correction);
  Value norm;
  if (w && correction != 0 && aw)
    norm = bin(BinaryOpKind::Sub, wsum,
               bin(BinaryOpKind::Mul, corr,
                   bin(BinaryOpKind::Div,
                       sumAll(b, loc, bin(BinaryOpKind::Mul, w, aw)), wsum)));
  else
    norm = bin(BinaryOpKind::Sub, wsum, corr);
  norm = bin(BinaryOpKind::Max, norm, scalarTensor(b, loc, *et, 0));
  Value xc = bin(BinaryOpKind::Sub, x, avg);
  Value xcw = w ? bin(BinaryOpKind::Mul, xc, w) : xc;
  if (!norm || !xcw)
    return failure();
  FailureOr<Value> xt = buildTranspose(b, loc, xcw, {1, 0});
  if (failed(xt))
    return failure();
  FailureOr<Value> c = buildMatMul(b, loc, xc, *xt);
  if (failed(c))
    return failure();
  Value r = bin(BinaryOpKind::Div, *c, norm);
  if (!r)
    return failure();
  return buildSqueeze(b, loc, r, {});
}

FailureOr<Value> mlprog::buildCorrelation(OpBuilder &b, Location loc, Value x) {
  FailureOr<Value> c = buildCovariance(b, loc, x, 1, Value(), Value());
  if (failed(c))
    return failure();
  auto ct = cast<RankedTensorType>(c->getType());
  if (ct.getRank() == 0)
    return binaryOrNull(b, loc, BinaryOpKind::Div, *c, *c);
  FailureOr<Value> d = buildDiagonal(b, loc, *c, 0, 0, 1);
  if (failed(d))
    return failure();
  Value sd = unaryOrNull(b, loc, UnaryOpKind::Sqrt, *d);
  if (!sd)
    return failure();
  int64_t v = ct.getDimSize(0);
  FailureOr<Value> col = buildReshape(b, loc, sd, {v, 1}),
                   row = buildReshape(b, loc, sd, {1, v});
  if (failed(col) || failed(row))
    return failure();
  Value r = binaryOrNull(b, loc, BinaryOpKind::Div, *c, *col);
  r = r ? binaryOrNull(b, loc, BinaryOpKind::Div, r, *row) : r;
  if (!r)
    return failure();
  return buildClamp(b, loc, r, -1.0, 1.0);
}

/// round-half-to-even of the float `v` (math.roundeven does not lower on
/// every CPU pipeline).
static Value roundHalfEven(OpBuilder &b, Location loc, Value v) {
  Type et = v.getType();
  auto c = [&](double d) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(et, d));
  };
  Value f = math::FloorOp::create(b, loc, v);
  Value diff = arith::SubFOp::create(b, loc, v, f);
  Value up = arith::AddFOp::create(b, loc, f, c(1));
  Value half = arith::MulFOp::create(b, loc, f, c(0.5));
  Value fEven =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                            math::FloorOp::create(b, loc, half), half);
  Value tie = arith::SelectOp::create(b, loc, fEven, f, up);
  Value gt =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, diff, c(0.5));
  Value eq =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, diff, c(0.5));
  return arith::SelectOp::create(b, loc, gt, up,
                                 arith::SelectOp::create(b, loc, eq, tie, f));
}

FailureOr<Value> mlprog::buildQuantile(OpBuilder &b, Location loc, Value x,
                                       Value q, std::optional<int64_t> dim,
                                       bool keepDim, QuantileInterpolation mode,
                                       bool ignoreNaN) {
  FailureOr<FloatType> et = staticFloat(loc, x, "quantile");
  if (failed(et))
    return failure();
  auto qt = dyn_cast<RankedTensorType>(q.getType());
  if (!qt || qt.getRank() > 1 || qt.getElementType() != *et ||
      !qt.hasStaticShape())
    return emitError(loc) << "quantile: expected q as a 0-d or 1-D tensor of "
                          << *et << ", got " << q.getType();
  auto t = cast<RankedTensorType>(x.getType());
  int64_t rank = t.getRank();
  SmallVector<int64_t> outer, kept;
  Value xs;
  if (!dim) {
    FailureOr<Value> f = buildReshape(b, loc, x, {t.getNumElements()});
    if (failed(f))
      return failure();
    xs = *f;
    kept.assign(rank, 1);
  } else {
    if (*dim < 0 || *dim >= std::max<int64_t>(rank, 1))
      return emitError(loc)
             << "quantile: dim " << *dim << " out of range for " << t;
    if (rank == 0) {
      FailureOr<Value> f = buildReshape(b, loc, x, {1});
      if (failed(f))
        return failure();
      xs = *f;
    } else {
      SmallVector<int64_t> perm;
      for (int64_t d = 0; d < rank; ++d)
        if (d != *dim) {
          perm.push_back(d);
          outer.push_back(t.getDimSize(d));
        }
      perm.push_back(*dim);
      FailureOr<Value> p = buildTranspose(b, loc, x, perm);
      if (failed(p))
        return failure();
      xs = *p;
      kept.assign(t.getShape().begin(), t.getShape().end());
      kept[*dim] = 1;
    }
  }
  int64_t n = cast<RankedTensorType>(xs.getType()).getShape().back();
  if (n == 0)
    return emitError(loc) << "quantile: unsupported empty input";
  int64_t last = outer.size();
  // NaNs become +inf so that they sort last; they are counted apart.
  FailureOr<Value> nan = buildIsNaN(b, loc, xs);
  if (failed(nan))
    return failure();
  Value inf = scalarTensor(b, loc, *et, INFINITY);
  FailureOr<Value> filled = buildSelect(b, loc, *nan, inf, xs);
  FailureOr<Value> nanF = buildConvertElementType(b, loc, *nan, *et);
  if (failed(filled) || failed(nanF))
    return failure();
  FailureOr<Value> nanCount =
      buildReduce(b, loc, ReduceKind::Sum, *nanF, {last}, false);
  FailureOr<std::pair<Value, Value>> sorted =
      buildTopK(b, loc, *filled, n, last, /*largest=*/false);
  if (failed(nanCount) || failed(sorted))
    return failure();
  Value values = sorted->first;
  bool qList = qt.getRank() == 1;
  SmallVector<OpFoldResult> sizes;
  if (qList)
    sizes.push_back(b.getIndexAttr(qt.getDimSize(0)));
  for (int64_t e : outer)
    sizes.push_back(b.getIndexAttr(e));
  Value init = createEmpty(b, loc, sizes, *et);
  int64_t loops = sizes.size();
  AffineMap id = AffineMap::getMultiDimIdentityMap(loops, b.getContext());
  Value result =
      linalg::GenericOp::create(
          b, loc, init.getType(), ValueRange(), init,
          SmallVector<AffineMap>{id}, parallelIterators(loops),
          [&](OpBuilder &nb, Location nl, ValueRange) {
            IndexMath m{nb, nl};
            auto cf = [&](double d) -> Value {
              return arith::ConstantOp::create(nb, nl, nb.getFloatAttr(*et, d));
            };
            SmallVector<Value> at;
            for (int64_t d = 0; d < loops; ++d)
              at.push_back(linalg::IndexOp::create(nb, nl, d));
            ArrayRef<Value> rest = ArrayRef<Value>(at).drop_front(qList);
            Value qv = tensor::ExtractOp::create(
                nb, nl, q, qList ? ValueRange{at[0]} : ValueRange{});
            Value nans = tensor::ExtractOp::create(nb, nl, *nanCount, rest);
            Value k = arith::SubFOp::create(nb, nl, cf(n), nans);
            Value pos = arith::MulFOp::create(
                nb, nl, qv, arith::SubFOp::create(nb, nl, k, cf(1)));
            switch (mode) {
            case QuantileInterpolation::Lower:
              pos = math::FloorOp::create(nb, nl, pos);
              break;
            case QuantileInterpolation::Higher:
              pos = math::CeilOp::create(nb, nl, pos);
              break;
            case QuantileInterpolation::Nearest:
              pos = roundHalfEven(nb, nl, pos);
              break;
            default:
              break;
            }
            auto read = [&](Value p) -> Value {
              Value i = arith::FPToSIOp::create(nb, nl, nb.getI64Type(), p);
              i = m.clamp(m.index(i), m.c(0), m.c(n - 1));
              SmallVector<Value> idx(rest);
              idx.push_back(i);
              return tensor::ExtractOp::create(nb, nl, values, idx);
            };
            Value lo = math::FloorOp::create(nb, nl, pos);
            Value below = read(lo);
            Value v = below;
            if (mode == QuantileInterpolation::Linear ||
                mode == QuantileInterpolation::Midpoint) {
              Value above = read(math::CeilOp::create(nb, nl, pos));
              Value wgt = mode == QuantileInterpolation::Midpoint
                              ? cf(0.5)
                              : arith::SubFOp::create(nb, nl, pos, lo);
              // torch's lerp: from the nearer end.
              Value diff = arith::SubFOp::create(nb, nl, above, below);
              Value fromLo = arith::AddFOp::create(
                  nb, nl, below, arith::MulFOp::create(nb, nl, wgt, diff));
              Value fromHi = arith::SubFOp::create(
                  nb, nl, above,
                  arith::MulFOp::create(
                      nb, nl, diff, arith::SubFOp::create(nb, nl, cf(1), wgt)));
              Value small = arith::CmpFOp::create(
                  nb, nl, arith::CmpFPredicate::OLT, wgt, cf(0.5));
              v = arith::SelectOp::create(nb, nl, small, fromLo, fromHi);
            }
            Value isNan =
                ignoreNaN
                    ? arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OLE,
                                            k, cf(0))
                    : arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OGT,
                                            nans, cf(0));
            v = arith::SelectOp::create(nb, nl, isNan, cf(NAN), v);
            linalg::YieldOp::create(nb, nl, v);
          })
          .getResult(0);
  if (!keepDim)
    return result;
  SmallVector<int64_t> shape;
  if (qList)
    shape.push_back(qt.getDimSize(0));
  shape.append(kept);
  return buildReshape(b, loc, result, shape);
}

FailureOr<Value> mlprog::buildHistogram(OpBuilder &b, Location loc, Value x,
                                        int64_t bins, double min, double max) {
  FailureOr<FloatType> et = staticFloat(loc, x, "histc");
  if (failed(et))
    return failure();
  if (bins < 1 || min > max)
    return emitError(loc) << "histc: expected bins >= 1 and min <= max";
  int64_t numel = cast<RankedTensorType>(x.getType()).getNumElements();
  if (numel == 0)
    return createFilled(b, loc, {b.getIndexAttr(bins)}, b.getFloatAttr(*et, 0));
  FailureOr<Value> flatX = buildReshape(b, loc, x, {numel});
  if (failed(flatX))
    return failure();
  auto cf = [&](double d) -> Value {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(*et, d));
  };
  Value lo = cf(min), hi = cf(max);
  if (min == max) {
    FailureOr<Value> mn =
        buildReduce(b, loc, ReduceKind::Min, *flatX, {}, false);
    FailureOr<Value> mx =
        buildReduce(b, loc, ReduceKind::Max, *flatX, {}, false);
    if (failed(mn) || failed(mx))
      return failure();
    lo = tensor::ExtractOp::create(b, loc, *mn, ValueRange{});
    hi = tensor::ExtractOp::create(b, loc, *mx, ValueRange{});
    Value same =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, lo, hi);
    lo = arith::SelectOp::create(b, loc, same,
                                 arith::SubFOp::create(b, loc, lo, cf(1)), lo);
    hi = arith::SelectOp::create(b, loc, same,
                                 arith::AddFOp::create(b, loc, hi, cf(1)), hi);
  }
  MLIRContext *ctx = b.getContext();
  Value zeros =
      createFilled(b, loc, {b.getIndexAttr(bins)}, b.getFloatAttr(*et, 0));
  return linalg::GenericOp::create(
             b, loc, zeros.getType(), *flatX, zeros,
             SmallVector<AffineMap>{
                 AffineMap::get(2, 0, getAffineDimExpr(1, ctx)),
                 AffineMap::get(2, 0, getAffineDimExpr(0, ctx))},
             {utils::IteratorType::parallel, utils::IteratorType::reduction},
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               IndexMath k{nb, nl};
               Value v = args[0];
               Value inRange = arith::AndIOp::create(
                   nb, nl,
                   arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OGE, v,
                                         lo),
                   arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OLE, v,
                                         hi));
               Value scaled = arith::DivFOp::create(
                   nb, nl,
                   arith::MulFOp::create(
                       nb, nl, arith::SubFOp::create(nb, nl, v, lo),
                       arith::ConstantOp::create(
                           nb, nl, nb.getFloatAttr(*et, double(bins)))),
                   arith::SubFOp::create(nb, nl, hi, lo));
               // In range, scaled is in [0, bins]; anything else is masked.
               Value clamped = arith::MinimumFOp::create(
                   nb, nl,
                   arith::MaximumFOp::create(
                       nb, nl, scaled,
                       arith::ConstantOp::create(nb, nl,
                                                 nb.getFloatAttr(*et, 0))),
                   arith::ConstantOp::create(nb, nl,
                                             nb.getFloatAttr(*et, bins)));
               Value pos = k.index(arith::FPToSIOp::create(
                   nb, nl, nb.getI64Type(),
                   arith::SelectOp::create(
                       nb, nl, inRange, clamped,
                       arith::ConstantOp::create(nb, nl,
                                                 nb.getFloatAttr(*et, 0)))));
               pos = k.min(pos, k.c(bins - 1));
               Value hit = arith::AndIOp::create(
                   nb, nl, inRange,
                   k.eq(pos, linalg::IndexOp::create(nb, nl, 0)));
               Value one = arith::SelectOp::create(
                   nb, nl, hit,
                   arith::ConstantOp::create(nb, nl, nb.getFloatAttr(*et, 1)),
                   arith::ConstantOp::create(nb, nl, nb.getFloatAttr(*et, 0)));
               linalg::YieldOp::create(
                   nb, nl,
                   arith::AddFOp::create(nb, nl, args[1], one).getResult());
             })
      .getResult(0);
}

FailureOr<Value> mlprog::buildIsIn(OpBuilder &b, Location loc, Value elements,
                                   Value testElements, bool invert) {
  auto et = dyn_cast<RankedTensorType>(elements.getType());
  auto tt = dyn_cast<RankedTensorType>(testElements.getType());
  if (!et || !tt || et.getElementType() != tt.getElementType() ||
      !tt.hasStaticShape())
    return emitError(loc) << "isin: expected tensors of one element type "
                             "(static test shape), got "
                          << elements.getType() << " and "
                          << testElements.getType();
  FailureOr<Value> test =
      buildReshape(b, loc, testElements, {tt.getNumElements()});
  if (failed(test))
    return failure();
  int64_t rank = et.getRank();
  MLIRContext *ctx = b.getContext();
  Value init = createFilled(b, loc, tensor::getMixedSizes(b, loc, elements),
                            b.getBoolAttr(invert));
  AffineMap id =
      AffineMap::getMultiDimIdentityMap(rank + 1, ctx).getMajorSubMap(rank);
  SmallVector<utils::IteratorType> iters = parallelIterators(rank);
  iters.push_back(utils::IteratorType::reduction);
  Type elt = et.getElementType();
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{elements, *test}, init,
             SmallVector<AffineMap>{
                 id, AffineMap::get(rank + 1, 0, getAffineDimExpr(rank, ctx)),
                 id},
             iters,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value eq =
                   isa<FloatType>(elt)
                       ? Value(arith::CmpFOp::create(nb, nl,
                                                     arith::CmpFPredicate::OEQ,
                                                     args[0], args[1]))
                       : Value(arith::CmpIOp::create(nb, nl,
                                                     arith::CmpIPredicate::eq,
                                                     args[0], args[1]));
               Value r = invert
                             ? Value(arith::AndIOp::create(
                                   nb, nl, args[2],
                                   arith::XOrIOp::create(
                                       nb, nl, eq,
                                       arith::ConstantOp::create(
                                           nb, nl, nb.getBoolAttr(true)))))
                             : Value(arith::OrIOp::create(nb, nl, args[2], eq));
               linalg::YieldOp::create(nb, nl, r);
             })
      .getResult(0);
}
