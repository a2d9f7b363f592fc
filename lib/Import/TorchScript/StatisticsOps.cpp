//===- StatisticsOps.cpp - aten descriptive statistics --------------------===//
//
// cov, corrcoef, quantile, nanquantile, histc, isin and the unique family.
//
// One handler per aten op (overloads told apart by the node's schema): it
// reads the arguments at the schema's positions, applies torch's type
// promotion, and calls the shared builders in mlprog/Import/Common.
// Semantics belong in the builders, not here.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "HandlerUtils.h"

#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/Statistics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// cov(self, *, correction=1, fweights=None, aweights=None).
LogicalResult cov(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  FailureOr<int64_t> correction = im.intInput(n, 1);
  if (failed(x) || failed(correction))
    return failure();
  Value weights[2];
  for (unsigned i = 0; i < 2; ++i)
    if (!im.isNoneInput(n, 2 + i)) {
      FailureOr<Value> w = im.tensorInput(n, 2 + i);
      if (failed(w))
        return failure();
      weights[i] = *w;
    }
  return im.setTensor(n, 0,
                      buildCovariance(im.b, im.loc(n), *x, *correction,
                                      weights[0], weights[1]));
}

/// corrcoef(self).
LogicalResult corrcoef(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, buildCorrelation(im.b, im.loc(n), *x));
}

/// quantile/nanquantile(self, q, dim=None, keepdim=False, *,
/// interpolation='linear'), q a float or a tensor (.scalar overloads).
LogicalResult quantile(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<bool> keep = im.boolInput(n, 3);
  if (failed(x) || failed(keep))
    return failure();
  FailureOr<Value> q = im.tensorOf(im.get(n->input(1)), elemOf(*x), l);
  if (failed(q))
    return failure();
  std::optional<int64_t> dim;
  if (!im.isNoneInput(n, 2)) {
    FailureOr<int64_t> d = im.intInput(n, 2);
    if (failed(d))
      return failure();
    FailureOr<int64_t> nd = normDim(im, n, *d, rankOf(*x));
    if (failed(nd))
      return failure();
    dim = *nd;
  }
  const TSValue &mode = im.get(n->input(4));
  if (mode.kind != TSValue::Kind::Str)
    return emitError(l) << "quantile: the interpolation must be a string";
  std::optional<QuantileInterpolation> m =
      llvm::StringSwitch<std::optional<QuantileInterpolation>>(mode.str)
          .Case("linear", QuantileInterpolation::Linear)
          .Case("lower", QuantileInterpolation::Lower)
          .Case("higher", QuantileInterpolation::Higher)
          .Case("nearest", QuantileInterpolation::Nearest)
          .Case("midpoint", QuantileInterpolation::Midpoint)
          .Default(std::nullopt);
  if (!m)
    return emitError(l) << "quantile: unknown interpolation '" << mode.str
                        << "'";
  bool ignoreNaN = std::string(n->kind().toUnqualString()) == "nanquantile";
  return im.setTensor(
      n, 0, buildQuantile(im.b, l, *x, *q, dim, *keep, *m, ignoreNaN));
}

/// histc(self, bins=100, min=0, max=0).
LogicalResult histc(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> bins = im.intInput(n, 1);
  FailureOr<double> lo = im.numberInput(n, 2), hi = im.numberInput(n, 3);
  if (failed(x) || failed(bins) || failed(lo) || failed(hi))
    return failure();
  return im.setTensor(n, 0,
                      buildHistogram(im.b, im.loc(n), *x, *bins, *lo, *hi));
}

/// isin.Tensor_Tensor / .Tensor_Scalar / .Scalar_Tensor(elements,
/// test_elements, *, assume_unique=False, invert=False): both operands
/// promoted to one dtype.
LogicalResult isin(Im &im, Node *n) {
  Location l = im.loc(n);
  const TSValue &a = im.get(n->input(0)), &t = im.get(n->input(1));
  FailureOr<bool> invert = im.boolInput(n, 3);
  if (failed(invert))
    return failure();
  Type et = im.promote({&a, &t});
  FailureOr<Value> elements = im.tensorOf(a, et, l),
                   tests = im.tensorOf(t, et, l);
  if (failed(elements) || failed(tests))
    return failure();
  return im.setTensor(n, 0, buildIsIn(im.b, l, *elements, *tests, *invert));
}

/// An empty int64 tensor [0]: what torch returns for an output of the unique
/// family that was not asked for.
Value emptyI64(Im &im, Location l) {
  auto t = RankedTensorType::get({0}, im.b.getI64Type());
  return arith::ConstantOp::create(
      im.b, l, DenseElementsAttr::get(t, ArrayRef<int64_t>{}));
}

/// The unique family, whose arguments sit at different positions:
/// _unique2(self, sorted, return_inverse, return_counts),
/// _unique(self, sorted, return_inverse),
/// unique_dim(self, dim, sorted, return_inverse, return_counts),
/// unique_consecutive(self, return_inverse, return_counts, dim=None),
/// unique_dim_consecutive(self, dim, return_inverse, return_counts).
/// Results: values, inverse indices (the input's shape without a dim, [n]
/// with one) and counts; an output not asked for is an empty [0] tensor.
/// torch sorts on the CPU even with sorted=False, so every non-consecutive
/// form is sorted.
LogicalResult unique(Im &im, Node *n) {
  Location l = im.loc(n);
  StringRef op = n->kind().toUnqualString();
  bool consecutive = op.contains("consecutive");
  bool hasDimArg = op.contains("dim");
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  std::optional<int64_t> dim;
  unsigned flags = 1; // position of return_inverse
  if (hasDimArg) {
    FailureOr<int64_t> d = im.intInput(n, 1);
    if (failed(d))
      return failure();
    dim = *d;
    flags = consecutive ? 2 : 3;
  } else if (consecutive) {
    if (!im.isNoneInput(n, 3)) {
      FailureOr<int64_t> d = im.intInput(n, 3);
      if (failed(d))
        return failure();
      dim = *d;
    }
  } else {
    flags = 2;
  }
  FailureOr<bool> wantInverse = im.boolInput(n, flags);
  FailureOr<bool> wantCounts =
      op == "_unique" ? FailureOr<bool>(false) : im.boolInput(n, flags + 1);
  if (failed(wantInverse) || failed(wantCounts))
    return failure();
  FailureOr<UniqueResult> r =
      buildUnique(im.b, l, *x, dim,
                  consecutive ? UniqueOrder::Consecutive : UniqueOrder::Sorted,
                  /*isUnsigned=*/false);
  if (failed(r))
    return failure();
  Value inverse = emptyI64(im, l);
  if (*wantInverse) {
    inverse = r->inverseIndices;
    if (!dim) {
      auto t = cast<RankedTensorType>(x->getType());
      if (!t.hasStaticShape())
        return im.unsupported(n, "inverse indices of a dynamic shape");
      FailureOr<Value> shaped =
          t.getRank()
              ? buildReshape(im.b, l, inverse, t.getShape())
              : buildSqueeze(im.b, l,
                             tensor::CastOp::create(
                                 im.b, l,
                                 RankedTensorType::get({1}, im.b.getI64Type()),
                                 inverse),
                             {0});
      if (failed(shaped))
        return failure();
      inverse = *shaped;
    }
  }
  Value counts = *wantCounts ? r->counts : emptyI64(im, l);
  if (failed(im.setTensor(n, 0, r->values)) ||
      failed(im.setTensor(n, 1, inverse)))
    return failure();
  return n->outputs().size() > 2 ? im.setTensor(n, 2, counts) : success();
}

} // namespace

void mlprog::torchscript::registerStatisticsOps(OpTable &table) {
  table.add({
      {"aten::cov", cov},
      {"aten::corrcoef", corrcoef},
      {"aten::quantile", quantile},
      {"aten::nanquantile", quantile},
      {"aten::histc", histc},
      {"aten::isin", isin},
      {"aten::_unique", unique},
      {"aten::_unique2", unique},
      {"aten::unique_dim", unique},
      {"aten::unique_consecutive", unique},
      {"aten::unique_dim_consecutive", unique},
  });
}
