//===- ScatterOps.cpp - aten scatters ------------------------------------===//
//
// scatter (src, value, reduce), scatter_add, scatter_reduce, index_add,
// index_fill, index_reduce and put.
//
// One handler per aten op (overloads told apart by the node's schema): it
// reads the arguments at the schema's positions, applies torch's type
// promotion, and calls the shared builders in mlprog/Import/Common.
// Semantics belong in the builders, not here.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "HandlerUtils.h"

#include "mlprog/Import/Common/Creation.h"
#include "mlprog/Import/Common/Logic.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// A tensor of `shape` and `et` filled with the scalar or 0-d tensor `v`.
FailureOr<Value> filledLike(Im &im, Location l, ArrayRef<int64_t> shape,
                            Type et, const TSValue &v) {
  Value scalar;
  if (v.isTensor()) {
    FailureOr<Value> t = im.tensorOf(v, et, l);
    if (failed(t))
      return failure();
    if (rankOf(*t) != 0)
      return emitError(l) << "expected a 0-d tensor value, got "
                          << t->getType();
    scalar = tensor::ExtractOp::create(im.b, l, *t, ValueRange{});
  } else {
    scalar = im.scalarAs(v, et, l);
  }
  SmallVector<OpFoldResult> sizes;
  for (int64_t e : shape)
    sizes.push_back(im.b.getIndexAttr(e));
  return buildFull(im.b, l, sizes, et, scalar);
}

/// Scatter operands with a 0-d self read as [1]: torch treats a 0-d tensor
/// as a 1-element one along dim 0 and gives a 0-d result.
struct ScatterOperands {
  Value self, index;
  int64_t dim;
  bool scalar;
};

FailureOr<ScatterOperands> scatterOperands(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0), idx = im.tensorInput(n, 2);
  FailureOr<int64_t> d = im.intInput(n, 1);
  if (failed(x) || failed(idx) || failed(d))
    return failure();
  FailureOr<int64_t> dim = normDim(im, n, *d, rankOf(*x));
  if (failed(dim))
    return failure();
  ScatterOperands ops{*x, *idx, *dim, rankOf(*x) == 0};
  if (ops.scalar) {
    FailureOr<Value> s = buildReshape(im.b, l, *x, {1});
    if (failed(s))
      return failure();
    ops.self = *s;
  }
  return ops;
}

/// The result of a scatter on `ops` (reshaped back to 0-d for a 0-d self).
LogicalResult setScatterResult(Im &im, Node *n, const ScatterOperands &ops,
                               FailureOr<Value> r) {
  if (failed(r) || !ops.scalar)
    return im.setTensor(n, 0, r);
  return im.setTensor(n, 0, buildReshape(im.b, im.loc(n), *r, {}));
}

/// `v` as a tensor of `et` and rank `rank` (a 0-d `v` becomes [1] when
/// `rank` is 1).
FailureOr<Value> operandOfRank(Im &im, Location l, const TSValue &v, Type et,
                               int64_t rank) {
  FailureOr<Value> t = im.tensorOf(v, et, l);
  if (failed(t) || rankOf(*t) == rank)
    return t;
  if (rankOf(*t) == 0 && rank == 1)
    return buildReshape(im.b, l, *t, {1});
  return emitError(l) << "expected a tensor of rank " << rank << ", got "
                      << t->getType();
}

/// The part of `src` (scatter's src) of the shape of `index`.
FailureOr<Value> cropTo(Im &im, Location l, Value src, Value index) {
  SmallVector<int64_t> ss = shapeOf(src), is = shapeOf(index);
  if (ss == is)
    return src;
  SmallVector<SliceDim> dims(ss.size());
  for (size_t d = 0; d < ss.size() && d < is.size(); ++d)
    if (ss[d] != is[d])
      dims[d].stop = is[d];
  return buildSlice(im.b, l, src, dims);
}

/// scatter.src/value(self, dim, index, src | value) and their .reduce forms
/// (reduce 'add' | 'multiply'), scatter_add(self, dim, index, src).
LogicalResult scatter(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<ScatterOperands> ops = scatterOperands(im, n);
  if (failed(ops))
    return failure();
  Type et = elemOf(ops->self);
  if (rankOf(ops->index) == 0)
    ops->index = *buildReshape(im.b, l, ops->index, {1});
  int64_t rank = rankOf(ops->self);
  const TSValue &srcV = im.get(n->input(3));
  FailureOr<Value> src;
  if (srcV.isTensor() && !srcV.wrappedNumber &&
      n->schema().arguments()[3].name() == "src") {
    src = operandOfRank(im, l, srcV, et, rank);
    if (succeeded(src))
      src = cropTo(im, l, *src, ops->index);
  } else {
    src = filledLike(im, l, shapeOf(ops->index), et, srcV);
  }
  if (failed(src))
    return failure();
  ScatterReduction reduction = ScatterReduction::None;
  if (std::string(n->kind().toUnqualString()) == "scatter_add") {
    reduction = ScatterReduction::Add;
  } else if (auto ri = n->schema().argumentIndexWithName("reduce")) {
    const TSValue &r = im.get(n->input(*ri));
    if (r.kind != TSValue::Kind::Str)
      return emitError(l) << "scatter: reduce must be a string constant";
    if (r.str == "add")
      reduction = ScatterReduction::Add;
    else if (r.str == "multiply")
      reduction = ScatterReduction::Mul;
    else
      return emitError(l) << "scatter: unknown reduce '" << r.str << "'";
  }
  return setScatterResult(im, n, *ops,
                          buildScatterElements(im.b, l, ops->self, ops->index,
                                               *src, ops->dim, reduction));
}

/// The reduce string of scatter_reduce / index_reduce.
FailureOr<ScatterReduceKind> reduceKind(Im &im, Node *n, unsigned i) {
  const TSValue &r = im.get(n->input(i));
  if (r.kind != TSValue::Kind::Str)
    return emitError(im.loc(n)) << "expected a reduce string constant";
  std::optional<ScatterReduceKind> k =
      llvm::StringSwitch<std::optional<ScatterReduceKind>>(r.str)
          .Case("sum", ScatterReduceKind::Sum)
          .Case("prod", ScatterReduceKind::Prod)
          .Case("mean", ScatterReduceKind::Mean)
          .Case("amax", ScatterReduceKind::Amax)
          .Case("amin", ScatterReduceKind::Amin)
          .Default(std::nullopt);
  if (!k)
    return emitError(im.loc(n)) << "unknown reduce '" << r.str << "'";
  return *k;
}

/// scatter_reduce.two(self, dim, index, src, reduce, include_self).
LogicalResult scatterReduce(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<ScatterOperands> ops = scatterOperands(im, n);
  FailureOr<ScatterReduceKind> kind = reduceKind(im, n, 4);
  FailureOr<bool> includeSelf = im.boolInput(n, 5);
  if (failed(ops) || failed(kind) || failed(includeSelf))
    return failure();
  int64_t rank = rankOf(ops->self);
  FailureOr<Value> index =
      operandOfRank(im, l, im.get(n->input(2)), elemOf(ops->index), rank);
  FailureOr<Value> src =
      operandOfRank(im, l, im.get(n->input(3)), elemOf(ops->self), rank);
  if (failed(index) || failed(src))
    return failure();
  src = cropTo(im, l, *src, *index);
  if (failed(src))
    return failure();
  return setScatterResult(im, n, *ops,
                          buildScatterReduce(im.b, l, ops->self, *index, *src,
                                             ops->dim, *kind, *includeSelf));
}

/// The 0-d or 1-D `index` of the index_* ops as scatter indices of `shape`:
/// index[i] along `dim`, broadcast over the other dims.
FailureOr<Value> indexAlongDim(Im &im, Location l, Value index,
                               ArrayRef<int64_t> shape, int64_t dim) {
  if (rankOf(index) > 1)
    return emitError(l) << "expected a 0-d or 1-D index, got "
                        << index.getType();
  SmallVector<int64_t> column(shape.size(), 1);
  column[dim] = shape[dim];
  FailureOr<Value> c = buildReshape(im.b, l, index, column);
  if (failed(c))
    return failure();
  return buildExpand(im.b, l, *c, shape);
}

/// The `source` argument of the index_* ops (input 3) as a tensor of self's
/// rank and dtype, and the index broadcast to its shape.
FailureOr<std::pair<Value, Value>>
indexSourceAndIndex(Im &im, Node *n, const ScatterOperands &ops) {
  Location l = im.loc(n);
  FailureOr<Value> src = operandOfRank(im, l, im.get(n->input(3)),
                                       elemOf(ops.self), rankOf(ops.self));
  if (failed(src))
    return failure();
  FailureOr<Value> idx =
      indexAlongDim(im, l, ops.index, shapeOf(*src), ops.dim);
  if (failed(idx))
    return failure();
  return std::make_pair(*src, *idx);
}

/// index_add(self, dim, index, source, alpha).
LogicalResult indexAdd(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<ScatterOperands> ops = scatterOperands(im, n);
  if (failed(ops))
    return failure();
  FailureOr<std::pair<Value, Value>> si = indexSourceAndIndex(im, n, *ops);
  if (failed(si))
    return failure();
  Value src = si->first;
  const TSValue &alpha = im.get(n->input(4));
  if (!alpha.asDouble() || *alpha.asDouble() != 1.0) {
    Type et = elemOf(src);
    Value a = im.scalarAs(alpha, et, l);
    FailureOr<Value> at = buildFull(im.b, l, {}, et, a);
    if (failed(at))
      return failure();
    FailureOr<Value> scaled =
        et.isInteger(1)
            ? buildLogical(im.b, l, LogicalKind::And, src, *at)
            : buildElementwiseBinary(im.b, l, BinaryOpKind::Mul, src, *at);
    if (failed(scaled))
      return failure();
    src = *scaled;
  }
  return setScatterResult(im, n, *ops,
                          buildScatterElements(im.b, l, ops->self, si->second,
                                               src, ops->dim,
                                               ScatterReduction::Add));
}

/// index_fill(self, dim, index, value) (a number or a 0-d tensor).
LogicalResult indexFill(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<ScatterOperands> ops = scatterOperands(im, n);
  if (failed(ops))
    return failure();
  SmallVector<int64_t> shape = shapeOf(ops->self);
  if (llvm::is_contained(shape, ShapedType::kDynamic))
    return im.unsupported(n, "index_fill of dynamic extents");
  auto it = cast<RankedTensorType>(ops->index.getType());
  shape[ops->dim] = it.getRank() ? it.getDimSize(0) : 1;
  FailureOr<Value> fill =
      filledLike(im, l, shape, elemOf(ops->self), im.get(n->input(3)));
  if (failed(fill))
    return failure();
  FailureOr<Value> idx = indexAlongDim(im, l, ops->index, shape, ops->dim);
  if (failed(idx))
    return failure();
  return setScatterResult(im, n, *ops,
                          buildScatterElements(im.b, l, ops->self, *idx, *fill,
                                               ops->dim,
                                               ScatterReduction::None));
}

/// index_reduce(self, dim, index, source, reduce, include_self).
LogicalResult indexReduce(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<ScatterOperands> ops = scatterOperands(im, n);
  FailureOr<ScatterReduceKind> kind = reduceKind(im, n, 4);
  FailureOr<bool> includeSelf = im.boolInput(n, 5);
  if (failed(ops) || failed(kind) || failed(includeSelf))
    return failure();
  FailureOr<std::pair<Value, Value>> si = indexSourceAndIndex(im, n, *ops);
  if (failed(si))
    return failure();
  return setScatterResult(im, n, *ops,
                          buildScatterReduce(im.b, l, ops->self, si->second,
                                             si->first, ops->dim, *kind,
                                             *includeSelf));
}

/// `x` flattened to 1-D (a 0-d tensor becomes [1]).
FailureOr<Value> flat(Im &im, Location l, Value x) {
  int64_t r = rankOf(x);
  if (r == 0)
    return buildReshape(im.b, l, x, {1});
  if (r == 1)
    return x;
  return buildCollapseDims(im.b, l, x, 0, r - 1);
}

/// put(self, index, source, accumulate): the flattened `self` with the
/// elements at `index` replaced by (or, with accumulate, incremented by)
/// `source`.
LogicalResult put(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0), idx = im.tensorInput(n, 1);
  FailureOr<bool> acc = im.boolInput(n, 3);
  if (failed(x) || failed(idx) || failed(acc))
    return failure();
  FailureOr<Value> src = im.tensorOf(im.get(n->input(2)), elemOf(*x), l);
  if (failed(src))
    return failure();
  SmallVector<int64_t> shape = shapeOf(*x);
  FailureOr<Value> fx = flat(im, l, *x), fi = flat(im, l, *idx),
                   fs = flat(im, l, *src);
  if (failed(fx) || failed(fi) || failed(fs))
    return failure();
  FailureOr<Value> r = buildScatterElements(im.b, l, *fx, *fi, *fs, 0,
                                            *acc ? ScatterReduction::Add
                                                 : ScatterReduction::None);
  if (failed(r))
    return failure();
  return im.setTensor(n, 0, buildReshape(im.b, l, *r, shape));
}

} // namespace

void mlprog::torchscript::registerScatterOps(OpTable &table) {
  table.add({
      {"aten::scatter", scatter},
      {"aten::scatter_add", scatter},
      {"aten::scatter_reduce", scatterReduce},
      {"aten::index_add", indexAdd},
      {"aten::index_fill", indexFill},
      {"aten::index_reduce", indexReduce},
      {"aten::put", put},
  });
}
