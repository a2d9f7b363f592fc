//===- IndexingOps.cpp - aten advanced indexing and nonzero ---------------===//
//
// Advanced indexing (index.Tensor, index_put, masked_select), take,
// take_along_dim, and the nonzero family (nonzero, argwhere, nonzero_numpy,
// nonzero_static).
//
// One handler per aten op (overloads told apart by the node's schema): it
// reads the arguments at the schema's positions, applies torch's type
// promotion, and calls the shared builders in mlprog/Import/Common.
// Semantics belong in the builders, not here.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "HandlerUtils.h"

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

/// The `Tensor?[] indices` argument `i`: null for None entries; uint8
/// masks (the legacy mask dtype) become bool.
FailureOr<SmallVector<Value>> indexList(Im &im, Node *n, unsigned i) {
  Location l = im.loc(n);
  FailureOr<std::vector<TSValue>> list = im.listInput(n, i);
  if (failed(list))
    return failure();
  SmallVector<Value> out;
  for (const TSValue &v : *list) {
    if (v.isNone()) {
      out.push_back(Value());
      continue;
    }
    FailureOr<Value> t = im.asTensor(v, l);
    if (failed(t))
      return failure();
    Type et = elemOf(*t);
    if (et.isUnsignedInteger(8))
      t = im.tensorOf(v, im.b.getI1Type(), l);
    else if (!et.isSignlessInteger())
      return emitError(l) << "index: indices must be integer or boolean "
                             "tensors, got "
                          << t->getType();
    if (failed(t))
      return failure();
    out.push_back(*t);
  }
  return out;
}

/// index.Tensor(self, Tensor?[] indices): `x[i, :, j]`, `x[mask]`,
/// `table[index.view(-1)]` (numpy advanced indexing).
LogicalResult index(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<Value>> idx = indexList(im, n, 1);
  if (failed(x) || failed(idx))
    return failure();
  return im.setTensor(n, 0, buildAdvancedIndex(im.b, im.loc(n), *x, *idx));
}

/// index_put(self, Tensor?[] indices, values, accumulate): `x[i] = v`,
/// `x[mask] = 0.0`, `x.index_put_((i,), v, accumulate=True)`.
LogicalResult indexPut(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<Value>> idx = indexList(im, n, 1);
  if (failed(x) || failed(idx))
    return failure();
  FailureOr<Value> v = im.tensorOf(im.get(n->input(2)), elemOf(*x), l);
  FailureOr<bool> acc =
      im.isNoneInput(n, 3) ? FailureOr<bool>(false) : im.boolInput(n, 3);
  if (failed(v) || failed(acc))
    return failure();
  return im.setTensor(n, 0, buildAdvancedIndexPut(im.b, l, *x, *idx, *v, *acc));
}

/// masked_select(self, mask): the elements of `self` (both broadcast to one
/// shape) where `mask` is true, as a 1-D tensor of dynamic extent.
LogicalResult maskedSelect(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<Value> m = im.tensorOf(im.get(n->input(1)), im.b.getI1Type(), l);
  if (failed(x) || failed(m))
    return failure();
  // Broadcast both to their common shape: select(m, x, x) has it.
  FailureOr<Value> xb = buildSelect(im.b, l, *m, *x, *x);
  if (failed(xb))
    return failure();
  FailureOr<Value> mb =
      buildExpandToSizes(im.b, l, *m, tensor::getMixedSizes(im.b, l, *xb));
  if (failed(mb))
    return failure();
  int64_t rank = rankOf(*xb);
  if (rank == 0) {
    // 0-d operands select from a 1-element tensor.
    xb = buildReshape(im.b, l, *xb, {1});
    mb = buildReshape(im.b, l, *mb, {1});
    if (failed(xb) || failed(mb))
      return failure();
    rank = 1;
  }
  FailureOr<Value> flatX = buildCollapseDims(im.b, l, *xb, 0, rank - 1);
  FailureOr<Value> flatM = buildCollapseDims(im.b, l, *mb, 0, rank - 1);
  if (failed(flatX) || failed(flatM))
    return failure();
  return im.setTensor(n, 0, buildAdvancedIndex(im.b, l, *flatX, {*flatM}));
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

/// take(self, index): the flattened `self` gathered at `index` (the result
/// has its shape).
LogicalResult take(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0), idx = im.tensorInput(n, 1);
  if (failed(x) || failed(idx))
    return failure();
  FailureOr<Value> f = flat(im, l, *x);
  if (failed(f))
    return failure();
  return im.setTensor(n, 0, buildGather(im.b, l, *f, *idx, 0));
}

/// take_along_dim(self, indices, dim): without dim, both flattened;
/// otherwise `self` and `indices` broadcast against each other in the dims
/// other than `dim`, then gathered along it.
LogicalResult takeAlongDim(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0), idx = im.tensorInput(n, 1);
  if (failed(x) || failed(idx))
    return failure();
  if (im.isNoneInput(n, 2)) {
    FailureOr<Value> fx = flat(im, l, *x), fi = flat(im, l, *idx);
    if (failed(fx) || failed(fi))
      return failure();
    return im.setTensor(n, 0, buildGatherAlongAxis(im.b, l, *fx, *fi, 0));
  }
  FailureOr<int64_t> d = im.intInput(n, 2);
  if (failed(d))
    return failure();
  auto xt = cast<RankedTensorType>(x->getType());
  auto it = cast<RankedTensorType>(idx->getType());
  int64_t rank = xt.getRank();
  if (it.getRank() != rank || !xt.hasStaticShape() || !it.hasStaticShape())
    return emitError(l) << "take_along_dim: expected static tensors of one "
                           "rank, got "
                        << xt << " and " << it;
  FailureOr<int64_t> dim = normDim(im, n, *d, rank);
  if (failed(dim))
    return failure();
  if (rank == 0) {
    FailureOr<Value> fx = flat(im, l, *x), fi = flat(im, l, *idx);
    if (failed(fx) || failed(fi))
      return failure();
    FailureOr<Value> g = buildGatherAlongAxis(im.b, l, *fx, *fi, 0);
    if (failed(g))
      return failure();
    return im.setTensor(n, 0, buildReshape(im.b, l, *g, {}));
  }
  SmallVector<int64_t> xs(xt.getShape()), is(it.getShape());
  for (int64_t k = 0; k < rank; ++k) {
    if (k == *dim)
      continue;
    if (xs[k] != is[k] && xs[k] != 1 && is[k] != 1)
      return emitError(l) << "take_along_dim: " << xt << " and " << it
                          << " do not broadcast";
    xs[k] = is[k] = std::max(xs[k], is[k]);
  }
  FailureOr<Value> bx = buildExpand(im.b, l, *x, xs),
                   bi = buildExpand(im.b, l, *idx, is);
  if (failed(bx) || failed(bi))
    return failure();
  return im.setTensor(n, 0, buildGatherAlongAxis(im.b, l, *bx, *bi, *dim));
}

/// The coordinates of the non-zero elements of `x` as [n, rank] (n dynamic;
/// a 0-d `x` gives [n, 0], n being 0 or 1).
FailureOr<Value> nonzeroRows(Im &im, Location l, Value x) {
  FailureOr<Value> cols = buildNonZero(im.b, l, x);
  if (failed(cols))
    return failure();
  if (rankOf(x) == 0) {
    SmallVector<OpFoldResult> sizes = {tensor::getMixedSize(im.b, l, *cols, 1),
                                       im.b.getIndexAttr(0)};
    return tensor::EmptyOp::create(im.b, l, sizes, im.b.getI64Type())
        .getResult();
  }
  return buildTranspose(im.b, l, *cols, {1, 0});
}

/// nonzero/argwhere(self): [n, rank] coordinates (a 0-d tensor gives
/// [n, 0]).
LogicalResult nonzero(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, nonzeroRows(im, l, *x));
}

/// nonzero_numpy(self): the coordinates as one 1-D tensor per dim.
LogicalResult nonzeroNumpy(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  int64_t rank = std::max<int64_t>(rankOf(*x), 1);
  FailureOr<Value> cols = buildNonZero(im.b, l, *x);
  if (failed(cols))
    return failure();
  std::vector<TSValue> parts;
  for (int64_t d = 0; d < rank; ++d) {
    FailureOr<Value> p =
        buildSelectIndex(im.b, l, *cols, 0, im.b.getIndexAttr(d));
    if (failed(p))
      return failure();
    parts.push_back(TSValue::tensor(*p));
  }
  return im.set(n, 0, TSValue::list(std::move(parts)));
}

/// nonzero_static(self, size, fill_value): the first `size` rows of
/// nonzero, padded with rows of `fill_value`.
LogicalResult nonzeroStatic(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> size = im.intInput(n, 1), fill = im.intInput(n, 2);
  if (failed(x) || failed(size) || failed(fill))
    return failure();
  if (*size < 0)
    return emitError(l) << "nonzero_static: negative size " << *size;
  if (*size == 0)
    return im.setTensor(
        n, 0,
        tensor::EmptyOp::create(im.b, l, ArrayRef<int64_t>{0, rankOf(*x)},
                                im.b.getI64Type())
            .getResult());
  FailureOr<Value> rows = nonzeroRows(im, l, *x);
  if (failed(rows))
    return failure();
  // Pad (or, with a negative width, crop) the rows to `size`.
  Value count = tensor::DimOp::create(im.b, l, *rows, 0);
  Value high = arith::SubIOp::create(
      im.b, l, arith::ConstantIndexOp::create(im.b, l, *size), count);
  Value fillValue =
      arith::ConstantOp::create(im.b, l, im.b.getI64IntegerAttr(*fill));
  SmallVector<OpFoldResult> low(2, im.b.getIndexAttr(0));
  SmallVector<OpFoldResult> highs = {high, im.b.getIndexAttr(0)};
  return im.setTensor(n, 0,
                      buildPadDynamic(im.b, l, *rows, low, highs,
                                      PadMode::Constant, fillValue,
                                      {*size, rankOf(*x)}));
}

} // namespace

void mlprog::torchscript::registerIndexingOps(OpTable &table) {
  table.add({
      {"aten::index.Tensor", index},
      {"aten::index_put", indexPut},
      {"aten::masked_select", maskedSelect},
      {"aten::take", take},
      {"aten::take_along_dim", takeAlongDim},
      {"aten::nonzero", nonzero},
      {"aten::argwhere", nonzero},
      {"aten::nonzero_numpy", nonzeroNumpy},
      {"aten::nonzero_static", nonzeroStatic},
  });
}
