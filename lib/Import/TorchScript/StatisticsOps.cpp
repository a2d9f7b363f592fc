//===- StatisticsOps.cpp - aten descriptive statistics --------------------===//
//
// cov, corrcoef, quantile, nanquantile, histc and isin.
//
// One handler per aten op (overloads told apart by the node's schema): it
// reads the arguments at the schema's positions, applies torch's type
// promotion, and calls the shared builders in mlprog/Import/Common.
// Semantics belong in the builders, not here.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "HandlerUtils.h"

#include "mlprog/Import/Common/Statistics.h"

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

} // namespace

void mlprog::torchscript::registerStatisticsOps(OpTable &table) {
  table.add({
      {"aten::cov", cov},
      {"aten::corrcoef", corrcoef},
      {"aten::quantile", quantile},
      {"aten::nanquantile", quantile},
      {"aten::histc", histc},
      {"aten::isin", isin},
  });
}
