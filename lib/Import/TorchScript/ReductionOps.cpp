//===- ReductionOps.cpp - aten reductions and softmax ---------------------===//
//
// Sum, mean, prod, amax/amin, max/min (reducing and elementwise), arg
// max/min, var/std, softmax and log_softmax, cumsum and cumprod.
//
// One handler per aten op (overloads told apart by the node's schema): it
// reads the arguments at the schema's positions, applies torch's type
// promotion, and calls the shared builders in mlprog/Import/Common.
// Semantics belong in the builders, not here.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "HandlerUtils.h"

#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// torch reduces a 0-d tensor along dim 0 or -1 as if it had one element
/// along it. For a 0-d `x`, checks `dims` (each -1 or 0, else a located
/// error), sets them to 0 and returns `x` reshaped to [1]; the caller
/// reshapes the result back with `unitToScalar`. Other tensors are returned
/// as they are.
FailureOr<Value> scalarToUnit(Im &im, Node *n, Value x,
                              MutableArrayRef<int64_t> dims) {
  if (rankOf(x) != 0)
    return x;
  for (int64_t &d : dims) {
    if (d != 0 && d != -1)
      return emitError(im.loc(n))
             << "dim " << d << " out of range for the 0-d input of "
             << n->kind().toQualString() << " (expected -1 or 0)";
    d = 0;
  }
  return buildReshape(im.b, im.loc(n), x, {1});
}

/// `x` converted to `et`, then as scalarToUnit.
FailureOr<Value> convertedUnit(Im &im, Node *n, Value x, Type et,
                               MutableArrayRef<int64_t> dims) {
  FailureOr<Value> xc = buildConvertElementType(im.b, im.loc(n), x, et);
  if (failed(xc))
    return failure();
  return scalarToUnit(im, n, *xc, dims);
}

/// `r` reshaped to 0-d when `scalar` (the input was 0-d, see scalarToUnit).
FailureOr<Value> unitToScalar(Im &im, Node *n, FailureOr<Value> r,
                              bool scalar) {
  if (!scalar || failed(r))
    return r;
  return buildReshape(im.b, im.loc(n), *r, {});
}

/// Reduces with optional dim list at `dimArg`, keepdim at `dimArg + 1` and
/// a dtype at `dtypeArg`.
LogicalResult reduceOp(Im &im, Node *n, ReduceKind kind,
                       std::optional<unsigned> dimArg,
                       std::optional<unsigned> dtypeArg) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  SmallVector<int64_t> dims;
  bool keep = false;
  if (dimArg && !im.isNoneInput(n, *dimArg)) {
    FailureOr<SmallVector<int64_t>> d = im.intListInput(n, *dimArg);
    FailureOr<bool> k = im.boolInput(n, *dimArg + 1);
    if (failed(d) || failed(k))
      return failure();
    dims = *d;
    keep = *k;
  }
  Type et = elemOf(*x);
  if (dtypeArg) {
    FailureOr<Type> t = im.dtypeInput(n, *dtypeArg);
    if (failed(t))
      return failure();
    if (*t)
      et = *t;
    else if ((kind == ReduceKind::Sum || kind == ReduceKind::Prod) &&
             !isa<FloatType>(et))
      et = im.b.getI64Type(); // integer sums accumulate in int64
  }
  bool scalar = rankOf(*x) == 0;
  FailureOr<Value> xc = convertedUnit(im, n, *x, et, dims);
  if (failed(xc))
    return failure();
  return im.setTensor(
      n, 0,
      unitToScalar(im, n, buildReduce(im.b, l, kind, *xc, dims, keep), scalar));
}

LogicalResult sum(Im &im, Node *n) {
  std::string ov = n->schema().overload_name();
  if (ov.empty())
    return reduceOp(im, n, ReduceKind::Sum, std::nullopt, 1);
  return reduceOp(im, n, ReduceKind::Sum, 1, 3);
}

LogicalResult mean(Im &im, Node *n) {
  std::string ov = n->schema().overload_name();
  if (ov.empty())
    return reduceOp(im, n, ReduceKind::Mean, std::nullopt, 1);
  return reduceOp(im, n, ReduceKind::Mean, 1, 3);
}

LogicalResult prod(Im &im, Node *n) {
  std::string ov = n->schema().overload_name();
  if (ov.empty())
    return reduceOp(im, n, ReduceKind::Prod, std::nullopt, 1);
  return reduceOp(im, n, ReduceKind::Prod, 1, 3);
}

LogicalResult amax(Im &im, Node *n) {
  return reduceOp(im, n, ReduceKind::Max, 1, std::nullopt);
}

LogicalResult amin(Im &im, Node *n) {
  return reduceOp(im, n, ReduceKind::Min, 1, std::nullopt);
}

/// max/min: (self) all-reduce, .dim(self, dim, keepdim) -> (values,
/// indices), .other(self, other) elementwise.
LogicalResult maxMin(Im &im, Node *n, bool isMax) {
  Location l = im.loc(n);
  std::string ov = n->schema().overload_name();
  if (ov == "other")
    return binary(im, n, isMax ? BinaryOpKind::Max : BinaryOpKind::Min, false);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  ReduceKind k = isMax ? ReduceKind::Max : ReduceKind::Min;
  if (ov.empty())
    return im.setTensor(n, 0, buildReduce(im.b, l, k, *x, {}, false));
  if (ov != "dim")
    return im.unsupported(n, "overload " + ov);
  FailureOr<int64_t> d = im.intInput(n, 1);
  FailureOr<bool> keep = im.boolInput(n, 2);
  if (failed(d) || failed(keep))
    return failure();
  bool scalar = rankOf(*x) == 0;
  SmallVector<int64_t> dims = {*d};
  x = scalarToUnit(im, n, *x, dims);
  if (failed(x))
    return failure();
  if (failed(im.setTensor(n, 0,
                          unitToScalar(im, n,
                                       buildReduce(im.b, l, k, *x, dims, *keep),
                                       scalar))))
    return failure();
  return im.setTensor(
      n, 1,
      unitToScalar(im, n, buildArgReduce(im.b, l, *x, dims[0], *keep, isMax),
                   scalar));
}

LogicalResult maxH(Im &im, Node *n) { return maxMin(im, n, true); }

LogicalResult minH(Im &im, Node *n) { return maxMin(im, n, false); }

LogicalResult argReduce(Im &im, Node *n, bool isMax) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<bool> keep = im.boolInput(n, 2);
  if (failed(x) || failed(keep))
    return failure();
  if (im.isNoneInput(n, 1)) {
    auto type = cast<RankedTensorType>(x->getType());
    if (!type.hasStaticShape())
      return im.unsupported(n, "argmax over all dims of a dynamic shape");
    FailureOr<Value> flat = buildReshape(im.b, l, *x, {type.getNumElements()});
    if (failed(flat))
      return failure();
    return im.setTensor(n, 0, buildArgReduce(im.b, l, *flat, 0, false, isMax));
  }
  FailureOr<int64_t> d = im.intInput(n, 1);
  if (failed(d))
    return failure();
  bool scalar = rankOf(*x) == 0;
  SmallVector<int64_t> dims = {*d};
  x = scalarToUnit(im, n, *x, dims);
  if (failed(x))
    return failure();
  return im.setTensor(
      n, 0,
      unitToScalar(im, n, buildArgReduce(im.b, l, *x, dims[0], *keep, isMax),
                   scalar));
}

LogicalResult argmax(Im &im, Node *n) { return argReduce(im, n, true); }

LogicalResult argmin(Im &im, Node *n) { return argReduce(im, n, false); }

/// var/std(self, dim, unbiased, keepdim) and .correction(self, dim,
/// correction, keepdim); var(self, unbiased).
LogicalResult varStd(Im &im, Node *n, bool isStd) {
  Location l = im.loc(n);
  FailureOr<Value> x = floatInput(im, n, 0);
  if (failed(x))
    return failure();
  std::string ov = n->schema().overload_name();
  SmallVector<int64_t> dims;
  int64_t correction = 1;
  bool keep = false;
  if (ov.empty()) {
    FailureOr<bool> unbiased = im.boolInput(n, 1);
    if (failed(unbiased))
      return failure();
    correction = *unbiased;
  } else {
    if (!im.isNoneInput(n, 1)) {
      FailureOr<SmallVector<int64_t>> d = im.intListInput(n, 1);
      if (failed(d))
        return failure();
      dims = *d;
    }
    if (ov == "correction") {
      if (!im.isNoneInput(n, 2)) {
        FailureOr<int64_t> c = im.intInput(n, 2);
        if (failed(c))
          return failure();
        correction = *c;
      }
    } else {
      FailureOr<bool> unbiased = im.boolInput(n, 2);
      if (failed(unbiased))
        return failure();
      correction = *unbiased;
    }
    FailureOr<bool> k = im.boolInput(n, 3);
    if (failed(k))
      return failure();
    keep = *k;
  }
  FailureOr<Value> v = buildVariance(im.b, l, *x, dims, keep, correction);
  if (failed(v))
    return failure();
  if (isStd)
    v = buildElementwiseUnary(im.b, l, UnaryOpKind::Sqrt, *v);
  return im.setTensor(n, 0, v);
}

LogicalResult var(Im &im, Node *n) { return varStd(im, n, false); }

LogicalResult stdDev(Im &im, Node *n) { return varStd(im, n, true); }

/// softmax/log_softmax(self, dim, dtype).
template <bool Log> LogicalResult softmax(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = floatInput(im, n, 0);
  FailureOr<int64_t> d = im.intInput(n, 1);
  if (failed(x) || failed(d))
    return failure();
  if (n->inputs().size() > 2) {
    FailureOr<Type> t = im.dtypeInput(n, 2);
    if (failed(t))
      return failure();
    if (*t)
      x = buildConvertElementType(im.b, l, *x, *t);
  }
  bool scalar = rankOf(*x) == 0;
  SmallVector<int64_t> dims = {*d};
  x = scalarToUnit(im, n, *x, dims);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0,
                      unitToScalar(im, n,
                                   Log ? buildLogSoftmax(im.b, l, *x, dims)
                                       : buildSoftmax(im.b, l, *x, dims),
                                   scalar));
}

/// cumsum/cumprod(self, dim, *, dtype): integer and bool inputs accumulate
/// in int64 unless `dtype` says otherwise, as in torch.
template <ReduceKind K> LogicalResult cumulative(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> d = im.intInput(n, 1);
  FailureOr<Type> t = im.dtypeInput(n, 2);
  if (failed(x) || failed(d) || failed(t))
    return failure();
  Type et = *t ? *t : elemOf(*x);
  if (!*t && !isa<FloatType>(et))
    et = im.b.getI64Type();
  bool scalar = rankOf(*x) == 0;
  SmallVector<int64_t> dims = {*d};
  FailureOr<Value> xc = convertedUnit(im, n, *x, et, dims);
  if (failed(xc))
    return failure();
  return im.setTensor(
      n, 0,
      unitToScalar(im, n, buildCumSum(im.b, l, *xc, dims[0], false, false, K),
                   scalar));
}

} // namespace

void mlprog::torchscript::registerReductionOps(OpTable &table) {
  table.add({
      {"aten::sum", sum},
      {"aten::mean", mean},
      {"aten::prod", prod},
      {"aten::amax", amax},
      {"aten::amin", amin},
      {"aten::max", maxH},
      {"aten::min", minH},
      {"aten::argmax", argmax},
      {"aten::argmin", argmin},
      {"aten::var", var},
      {"aten::std", stdDev},
      {"aten::softmax", softmax<false>},
      {"aten::log_softmax", softmax<true>},
      {"aten::cumsum", cumulative<ReduceKind::Sum>},
      {"aten::cumprod", cumulative<ReduceKind::Prod>},
  });
}
