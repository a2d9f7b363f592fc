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
#include "mlprog/Import/Common/MatrixFactorization.h"
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

/// var/std(self, dim, unbiased, keepdim) and .correction(self, dim, *,
/// correction, keepdim); var(self, unbiased); the var_mean/std_mean forms
/// (same arguments) also return the mean.
LogicalResult varStd(Im &im, Node *n, bool isStd, bool withMean) {
  Location l = im.loc(n);
  FailureOr<Value> x = floatInput(im, n, 0);
  if (failed(x))
    return failure();
  std::string ov = n->schema().overload_name();
  SmallVector<int64_t> dims;
  double correction = 1;
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
    if (ov == "correction" || ov == "correction_names") {
      if (!im.isNoneInput(n, 2)) {
        FailureOr<double> c = im.numberInput(n, 2);
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
  bool scalar = rankOf(*x) == 0;
  x = scalarToUnit(im, n, *x, dims);
  if (failed(x))
    return failure();
  FailureOr<Value> v = buildVariance(im.b, l, *x, dims, keep, correction);
  if (succeeded(v) && isStd)
    v = buildElementwiseUnary(im.b, l, UnaryOpKind::Sqrt, *v);
  if (failed(im.setTensor(n, 0, unitToScalar(im, n, v, scalar))))
    return failure();
  if (!withMean)
    return success();
  return im.setTensor(
      n, 1,
      unitToScalar(im, n,
                   buildReduce(im.b, l, ReduceKind::Mean, *x, dims, keep),
                   scalar));
}

LogicalResult var(Im &im, Node *n) { return varStd(im, n, false, false); }

LogicalResult stdDev(Im &im, Node *n) { return varStd(im, n, true, false); }

LogicalResult varMean(Im &im, Node *n) { return varStd(im, n, false, true); }

LogicalResult stdMean(Im &im, Node *n) { return varStd(im, n, true, true); }

/// The optional int list argument `i` (None: empty, every dim).
FailureOr<SmallVector<int64_t>> optDims(Im &im, Node *n, unsigned i) {
  if (im.isNoneInput(n, i))
    return SmallVector<int64_t>();
  return im.intListInput(n, i);
}

/// Applies `f` to `x` reduced over `dims` (0-d inputs as scalarToUnit).
LogicalResult
reduceWith(Im &im, Node *n, unsigned result, Value x, SmallVector<int64_t> dims,
           function_ref<FailureOr<Value>(Value, ArrayRef<int64_t>)> f) {
  bool scalar = rankOf(x) == 0;
  FailureOr<Value> xu = scalarToUnit(im, n, x, dims);
  if (failed(xu))
    return failure();
  return im.setTensor(n, result, unitToScalar(im, n, f(*xu, dims), scalar));
}

/// `x` converted to the optional dtype argument `i`, or to float32 when it
/// is an integer tensor (norms are float only).
FailureOr<Value> normInput(Im &im, Node *n, unsigned dtypeArg) {
  FailureOr<Value> x = floatInput(im, n, 0);
  FailureOr<Type> t = im.dtypeInput(n, dtypeArg);
  if (failed(x) || failed(t))
    return failure();
  if (*t)
    return buildConvertElementType(im.b, im.loc(n), *x, *t);
  return x;
}

/// linalg_vector_norm(self, ord=2, dim=None, keepdim=False, *, dtype=None).
LogicalResult vectorNorm(Im &im, Node *n) {
  FailureOr<Value> x = normInput(im, n, 4);
  FailureOr<double> ord = im.numberInput(n, 1);
  FailureOr<SmallVector<int64_t>> dims = optDims(im, n, 2);
  FailureOr<bool> keep = im.boolInput(n, 3);
  if (failed(x) || failed(ord) || failed(dims) || failed(keep))
    return failure();
  return reduceWith(im, n, 0, *x, *dims, [&](Value v, ArrayRef<int64_t> d) {
    return buildVectorNorm(im.b, im.loc(n), v, *ord, d, *keep);
  });
}

/// The order argument `i` of a matrix norm: a number, "fro" (nullopt) or
/// another string (an unsupported-error).
FailureOr<std::optional<double>> matrixOrd(Im &im, Node *n, unsigned i) {
  const TSValue &v = im.get(n->input(i));
  if (v.kind == TSValue::Kind::Str) {
    if (v.str == "fro")
      return std::optional<double>();
    return im.unsupported(n, "matrix norm of order '" + v.str + "'");
  }
  FailureOr<double> d = im.numberInput(n, i);
  if (failed(d))
    return failure();
  return std::optional<double>(*d);
}

/// Whether argument `i` is the order "nuc" (the nuclear norm).
bool isNuclear(Im &im, Node *n, unsigned i) {
  const TSValue &v = im.get(n->input(i));
  return v.kind == TSValue::Kind::Str && v.str == "nuc";
}

/// The matrix norm of order "nuc" over `dims` (two, in [-rank, rank)).
FailureOr<Value> nuclearNorm(Im &im, Node *n, Value x, ArrayRef<int64_t> dims,
                             bool keep) {
  int64_t r = rankOf(x);
  FailureOr<int64_t> d0 = normDim(im, n, dims[0], r),
                     d1 = normDim(im, n, dims[1], r);
  if (failed(d0) || failed(d1))
    return failure();
  return buildSingularValueNorm(im.b, im.loc(n), x, SingularValueNorm::Sum, *d0,
                                *d1, keep);
}

/// linalg_matrix_norm(self, ord, dim=[-2, -1], keepdim, *, dtype) and
/// .str_ord (ord "fro" or "nuc").
LogicalResult matrixNorm(Im &im, Node *n) {
  FailureOr<Value> x = normInput(im, n, 4);
  FailureOr<SmallVector<int64_t>> dims = im.intListInput(n, 2);
  FailureOr<bool> keep = im.boolInput(n, 3);
  if (failed(x) || failed(dims) || failed(keep))
    return failure();
  if (dims->size() != 2)
    return emitError(im.loc(n))
           << "linalg_matrix_norm needs two dims, got " << dims->size();
  if (isNuclear(im, n, 1))
    return im.setTensor(n, 0, nuclearNorm(im, n, *x, *dims, *keep));
  FailureOr<std::optional<double>> ord = matrixOrd(im, n, 1);
  if (failed(ord))
    return failure();
  return im.setTensor(n, 0,
                      buildMatrixNorm(im.b, im.loc(n), *x, *ord, (*dims)[0],
                                      (*dims)[1], *keep));
}

/// linalg_norm(self, ord=None, dim=None, keepdim, *, dtype) and .ord_str:
/// a vector norm over one dim (or a flattened input without ord), a matrix
/// norm over two.
LogicalResult linalgNorm(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = normInput(im, n, 4);
  FailureOr<SmallVector<int64_t>> dims = optDims(im, n, 2);
  FailureOr<bool> keep = im.boolInput(n, 3);
  if (failed(x) || failed(dims) || failed(keep))
    return failure();
  bool noOrd = im.isNoneInput(n, 1);
  bool strOrd = im.get(n->input(1)).kind == TSValue::Kind::Str;
  if (dims->empty() && !noOrd) {
    int64_t r = rankOf(*x);
    if (r != 1 && r != 2)
      return emitError(l) << "linalg_norm with an order and no dim needs a "
                             "1-D or 2-D input, got rank "
                          << r;
    dims = r == 1 ? SmallVector<int64_t>{0} : SmallVector<int64_t>{0, 1};
  }
  if (dims->size() == 2 || strOrd) {
    if (dims->size() != 2)
      return emitError(l) << "linalg_norm with a string order needs two dims";
    if (!noOrd && isNuclear(im, n, 1))
      return im.setTensor(n, 0, nuclearNorm(im, n, *x, *dims, *keep));
    FailureOr<std::optional<double>> ord =
        noOrd ? FailureOr<std::optional<double>>(std::optional<double>())
              : matrixOrd(im, n, 1);
    if (failed(ord))
      return failure();
    return im.setTensor(
        n, 0,
        buildMatrixNorm(im.b, l, *x, *ord, (*dims)[0], (*dims)[1], *keep));
  }
  if (dims->size() > 2)
    return emitError(l) << "linalg_norm takes one or two dims, got "
                        << dims->size();
  FailureOr<double> ord = noOrd ? 2.0 : im.numberInput(n, 1);
  if (failed(ord))
    return failure();
  return reduceWith(im, n, 0, *x, *dims, [&](Value v, ArrayRef<int64_t> d) {
    return buildVectorNorm(im.b, l, v, *ord, d, *keep);
  });
}

/// logsumexp(self, dim, keepdim): integer inputs give float32.
LogicalResult logsumexp(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  FailureOr<SmallVector<int64_t>> dims = optDims(im, n, 1);
  FailureOr<bool> keep = im.boolInput(n, 2);
  if (failed(x) || failed(dims) || failed(keep))
    return failure();
  return reduceWith(im, n, 0, *x, *dims, [&](Value v, ArrayRef<int64_t> d) {
    return buildLogSumExp(im.b, im.loc(n), v, d, *keep);
  });
}

/// nansum/nanmean(self, dim=None, keepdim=False, *, dtype=None).
template <ReduceKind K> LogicalResult nanReduce(Im &im, Node *n) {
  FailureOr<Value> x = normInput(im, n, 3);
  FailureOr<SmallVector<int64_t>> dims = optDims(im, n, 1);
  FailureOr<bool> keep = im.boolInput(n, 2);
  if (failed(x) || failed(dims) || failed(keep))
    return failure();
  return reduceWith(im, n, 0, *x, *dims, [&](Value v, ArrayRef<int64_t> d) {
    return buildNanReduce(im.b, im.loc(n), K, v, d, *keep);
  });
}

/// `x != 0` as a bool tensor (bool tensors as they are).
FailureOr<Value> nonZero(Im &im, Node *n, Value x) {
  Type et = elemOf(x);
  if (et.isInteger(1))
    return x;
  return buildConvertElementType(im.b, im.loc(n), x, im.b.getI1Type());
}

/// all/any(self), .dim(self, dim, keepdim), .dims(self, dim=None, keepdim):
/// bool results (uint8 inputs are not told apart from int8 here).
template <bool IsAll> LogicalResult allAny(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  FailureOr<Value> t = nonZero(im, n, *x);
  if (failed(t))
    return failure();
  SmallVector<int64_t> dims;
  bool keep = false;
  std::string ov = n->schema().overload_name();
  if (!ov.empty()) {
    FailureOr<SmallVector<int64_t>> d = optDims(im, n, 1);
    FailureOr<bool> k = im.boolInput(n, 2);
    if (failed(d) || failed(k))
      return failure();
    dims = *d;
    keep = *k;
  }
  return reduceWith(im, n, 0, *t, dims, [&](Value v, ArrayRef<int64_t> d) {
    return buildReduce(im.b, im.loc(n),
                       IsAll ? ReduceKind::Min : ReduceKind::Max, v, d, keep);
  });
}

/// count_nonzero(self, dim=None) and .dim_IntList(self, dim): int64.
LogicalResult countNonzero(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  FailureOr<Value> t = nonZero(im, n, *x);
  if (failed(t))
    return failure();
  t = buildConvertElementType(im.b, l, *t, im.b.getI64Type());
  if (failed(t))
    return failure();
  SmallVector<int64_t> dims;
  if (!im.isNoneInput(n, 1)) {
    FailureOr<SmallVector<int64_t>> d = im.intListInput(n, 1);
    if (failed(d))
      return failure();
    dims = *d;
  }
  return reduceWith(im, n, 0, *t, dims, [&](Value v, ArrayRef<int64_t> d) {
    return buildReduce(im.b, l, ReduceKind::Sum, v, d, false);
  });
}

/// aminmax(self, *, dim=None, keepdim=False) -> (min, max).
LogicalResult aminmax(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<bool> keep = im.boolInput(n, 2);
  if (failed(x) || failed(keep))
    return failure();
  SmallVector<int64_t> dims;
  if (!im.isNoneInput(n, 1)) {
    FailureOr<int64_t> d = im.intInput(n, 1);
    if (failed(d))
      return failure();
    dims.push_back(*d);
  }
  for (unsigned i = 0; i < 2; ++i)
    if (failed(
            reduceWith(im, n, i, *x, dims, [&](Value v, ArrayRef<int64_t> d) {
              return buildReduce(im.b, im.loc(n),
                                 i ? ReduceKind::Max : ReduceKind::Min, v, d,
                                 *keep);
            })))
      return failure();
  return success();
}

/// trace(self): integer inputs sum in int64.
LogicalResult trace(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(elemOf(*x)))
    x = buildConvertElementType(im.b, im.loc(n), *x, im.b.getI64Type());
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, buildTrace(im.b, im.loc(n), *x));
}

/// Inputs 0 and 1 promoted to their common float dtype.
FailureOr<std::pair<Value, Value>> floatPair(Im &im, Node *n) {
  FailureOr<std::pair<Value, Value>> p = promotedPair(im, n);
  if (failed(p) || isa<FloatType>(elemOf(p->first)))
    return p;
  Location l = im.loc(n);
  FailureOr<Value> a =
      buildConvertElementType(im.b, l, p->first, im.b.getF32Type());
  FailureOr<Value> c =
      buildConvertElementType(im.b, l, p->second, im.b.getF32Type());
  if (failed(a) || failed(c))
    return failure();
  return std::make_pair(*a, *c);
}

/// dist(self, other, p=2): the p-norm of the broadcast difference.
LogicalResult dist(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<std::pair<Value, Value>> p = floatPair(im, n);
  FailureOr<double> ord = im.numberInput(n, 2);
  if (failed(p) || failed(ord))
    return failure();
  FailureOr<Value> d =
      buildElementwiseBinary(im.b, l, BinaryOpKind::Sub, p->first, p->second);
  if (failed(d))
    return failure();
  return im.setTensor(n, 0, buildVectorNorm(im.b, l, *d, *ord, {}, false));
}

/// cdist(x1, x2, p=2., compute_mode=None).
LogicalResult cdist(Im &im, Node *n) {
  FailureOr<std::pair<Value, Value>> p = floatPair(im, n);
  FailureOr<double> ord = im.numberInput(n, 2);
  if (failed(p) || failed(ord))
    return failure();
  return im.setTensor(n, 0,
                      buildCDist(im.b, im.loc(n), p->first, p->second, *ord));
}

/// pdist(self, p=2.).
LogicalResult pdist(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  FailureOr<double> ord = im.numberInput(n, 1);
  if (failed(x) || failed(ord))
    return failure();
  return im.setTensor(n, 0, buildPDist(im.b, im.loc(n), *x, *ord));
}

/// pairwise_distance(x1, x2, p=2., eps=1e-6, keepdim=False).
LogicalResult pairwiseDistance(Im &im, Node *n) {
  FailureOr<std::pair<Value, Value>> p = floatPair(im, n);
  FailureOr<double> ord = im.numberInput(n, 2);
  FailureOr<double> eps = im.numberInput(n, 3);
  FailureOr<bool> keep = im.boolInput(n, 4);
  if (failed(p) || failed(ord) || failed(eps) || failed(keep))
    return failure();
  return im.setTensor(n, 0,
                      buildPairwiseDistance(im.b, im.loc(n), p->first,
                                            p->second, *ord, *eps, *keep));
}

/// diff(self, n=1, dim=-1, prepend=None, append=None): prepend and append
/// are concatenated along `dim` first (n = 0 returns `self` alone).
LogicalResult diff(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> order = im.intInput(n, 1);
  FailureOr<int64_t> dim = im.intInput(n, 2);
  if (failed(x) || failed(order) || failed(dim))
    return failure();
  if (*order == 0)
    return im.setTensor(n, 0, *x);
  SmallVector<Value> parts;
  for (unsigned i : {3u, 0u, 4u}) {
    if (i == 0) {
      parts.push_back(*x);
      continue;
    }
    if (im.isNoneInput(n, i))
      continue;
    FailureOr<Value> p = im.tensorInput(n, i);
    if (failed(p))
      return failure();
    parts.push_back(*p);
  }
  if (parts.size() > 1) {
    SmallVector<const TSValue *> ops;
    for (unsigned i : {3u, 0u, 4u})
      if (!im.isNoneInput(n, i))
        ops.push_back(&im.get(n->input(i)));
    Type et = im.promote(ops);
    for (Value &p : parts) {
      FailureOr<Value> c = buildConvertElementType(im.b, l, p, et);
      if (failed(c))
        return failure();
      p = *c;
    }
    x = buildConcat(im.b, l, parts, *dim);
    if (failed(x))
      return failure();
  }
  return im.setTensor(n, 0, buildDiff(im.b, l, *x, *order, *dim));
}

/// cummax/cummin(self, dim) -> (values, indices).
template <bool IsMax> LogicalResult cumulativeExtreme(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> d = im.intInput(n, 1);
  if (failed(x) || failed(d))
    return failure();
  bool scalar = rankOf(*x) == 0;
  SmallVector<int64_t> dims = {*d};
  x = scalarToUnit(im, n, *x, dims);
  if (failed(x))
    return failure();
  FailureOr<std::pair<Value, Value>> r =
      buildCumulativeExtreme(im.b, im.loc(n), *x, dims[0], IsMax);
  if (failed(r) ||
      failed(im.setTensor(n, 0, unitToScalar(im, n, r->first, scalar))))
    return failure();
  return im.setTensor(n, 1, unitToScalar(im, n, r->second, scalar));
}

/// logcumsumexp(self, dim): integer inputs give float32.
LogicalResult logcumsumexp(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  FailureOr<int64_t> d = im.intInput(n, 1);
  if (failed(x) || failed(d))
    return failure();
  return reduceWith(im, n, 0, *x, {*d}, [&](Value v, ArrayRef<int64_t> dims) {
    return buildLogCumSumExp(im.b, im.loc(n), v, dims[0]);
  });
}

/// Sets the order statistic `kind` of `x` along `dim` (values, and indices
/// when the node has two results).
LogicalResult orderStatistic(Im &im, Node *n, Value x, int64_t dim,
                             OrderStatisticKind kind, int64_t k, bool keep) {
  bool scalar = rankOf(x) == 0;
  SmallVector<int64_t> dims = {dim};
  FailureOr<Value> xu = scalarToUnit(im, n, x, dims);
  if (failed(xu))
    return failure();
  FailureOr<std::pair<Value, Value>> r =
      buildOrderStatistic(im.b, im.loc(n), *xu, dims[0], kind, k, keep);
  if (failed(r) ||
      failed(im.setTensor(n, 0, unitToScalar(im, n, r->first, scalar))))
    return failure();
  if (n->outputs().size() < 2)
    return success();
  return im.setTensor(n, 1, unitToScalar(im, n, r->second, scalar));
}

/// median/nanmedian(self) over every element (values only) and
/// .dim(self, dim, keepdim) -> (values, indices).
template <OrderStatisticKind K> LogicalResult median(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  if (n->schema().overload_name().empty()) {
    auto type = cast<RankedTensorType>(x->getType());
    if (!type.hasStaticShape())
      return im.unsupported(n, "median over all dims of a dynamic shape");
    FailureOr<Value> flat = buildReshape(im.b, l, *x, {type.getNumElements()});
    if (failed(flat))
      return failure();
    return orderStatistic(im, n, *flat, 0, K, 0, false);
  }
  FailureOr<int64_t> d = im.intInput(n, 1);
  FailureOr<bool> keep = im.boolInput(n, 2);
  if (failed(d) || failed(keep))
    return failure();
  return orderStatistic(im, n, *x, *d, K, 0, *keep);
}

/// kthvalue(self, k, dim=-1, keepdim=False) -> (values, indices), k 1-based.
LogicalResult kthvalue(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> k = im.intInput(n, 1);
  FailureOr<int64_t> d = im.intInput(n, 2);
  FailureOr<bool> keep = im.boolInput(n, 3);
  if (failed(x) || failed(k) || failed(d) || failed(keep))
    return failure();
  return orderStatistic(im, n, *x, *d, OrderStatisticKind::Kth, *k - 1, *keep);
}

/// mode(self, dim=-1, keepdim=False) -> (values, indices).
LogicalResult mode(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> d = im.intInput(n, 1);
  FailureOr<bool> keep = im.boolInput(n, 2);
  if (failed(x) || failed(d) || failed(keep))
    return failure();
  return orderStatistic(im, n, *x, *d, OrderStatisticKind::Mode, 0, *keep);
}

/// cosine_similarity(x1, x2, dim=1, eps=1e-8).
LogicalResult cosineSimilarity(Im &im, Node *n) {
  FailureOr<std::pair<Value, Value>> p = floatPair(im, n);
  FailureOr<int64_t> dim = im.intInput(n, 2);
  FailureOr<double> eps = im.numberInput(n, 3);
  if (failed(p) || failed(dim) || failed(eps))
    return failure();
  return im.setTensor(
      n, 0,
      buildCosineSimilarity(im.b, im.loc(n), p->first, p->second, *dim, *eps));
}

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
      {"aten::var_mean", varMean},
      {"aten::std_mean", stdMean},
      {"aten::linalg_vector_norm", vectorNorm},
      {"aten::linalg_matrix_norm", matrixNorm},
      {"aten::linalg_norm", linalgNorm},
      {"aten::logsumexp", logsumexp},
      {"aten::nansum", nanReduce<ReduceKind::Sum>},
      {"aten::nanmean", nanReduce<ReduceKind::Mean>},
      {"aten::all", allAny<true>},
      {"aten::any", allAny<false>},
      {"aten::count_nonzero", countNonzero},
      {"aten::aminmax", aminmax},
      {"aten::trace", trace},
      {"aten::dist", dist},
      {"aten::cdist", cdist},
      {"aten::pdist", pdist},
      {"aten::pairwise_distance", pairwiseDistance},
      {"aten::cosine_similarity", cosineSimilarity},
      {"aten::diff", diff},
      {"aten::cummax", cumulativeExtreme<true>},
      {"aten::cummin", cumulativeExtreme<false>},
      {"aten::logcumsumexp", logcumsumexp},
      {"aten::median", median<OrderStatisticKind::Median>},
      {"aten::nanmedian", median<OrderStatisticKind::NanMedian>},
      {"aten::kthvalue", kthvalue},
      {"aten::mode", mode},
      {"aten::softmax", softmax<false>},
      {"aten::log_softmax", softmax<true>},
      {"aten::cumsum", cumulative<ReduceKind::Sum>},
      {"aten::cumprod", cumulative<ReduceKind::Prod>},
  });
}
