//===- StridedOps.cpp - aten strided views and index-map rearrangements ---===//
//
// as_strided, as_strided_copy, as_strided_scatter, repeat_interleave,
// combinations, _chunk_cat and masked_scatter.
//
// One handler per aten op (overloads told apart by the node's schema): it
// reads the arguments at the schema's positions, applies torch's type
// promotion, and calls the shared builders in mlprog/Import/Common.
// Semantics belong in the builders, not here.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "HandlerUtils.h"

#include "mlprog/Import/Common/Rearrange.h"
#include "mlprog/Import/Common/Shape.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// Whether the value of input `i` is laid out row-major in its own storage,
/// as the importer's values are: not a view that reorders, broadcasts or
/// offsets another tensor (reshapes of such tensors keep the order).
bool rowMajorStorage(Node *n, unsigned i) {
  Node *p = n->input(i)->node();
  while (isViewNode(p)) {
    std::string kind = p->kind().toUnqualString();
    if (kind == "contiguous")
      return true;
    if (kind != "view" && kind != "reshape" && kind != "_unsafe_view" &&
        kind != "flatten" && kind != "unsqueeze" && kind != "squeeze" &&
        kind != "alias" && kind != "detach" && kind != "view_as" &&
        kind != "reshape_as")
      return false;
    p = p->input(0)->node();
  }
  return true;
}

/// The (size, stride, storage_offset) arguments from input `first` on.
struct View {
  SmallVector<int64_t> sizes, strides;
  int64_t offset = 0;
};
FailureOr<View> viewArgs(Im &im, Node *n, unsigned first) {
  View v;
  FailureOr<SmallVector<int64_t>> sizes = im.intListInput(n, first),
                                  strides = im.intListInput(n, first + 1);
  if (failed(sizes) || failed(strides))
    return failure();
  v.sizes = *sizes;
  v.strides = *strides;
  if (!im.isNoneInput(n, first + 2)) {
    FailureOr<int64_t> o = im.intInput(n, first + 2);
    if (failed(o))
      return failure();
    v.offset = *o;
  }
  return v;
}

/// as_strided/as_strided_copy(self, size, stride, storage_offset=None).
LogicalResult asStrided(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<View> v = viewArgs(im, n, 1);
  if (failed(x) || failed(v))
    return failure();
  if (!rowMajorStorage(n, 0))
    return im.unsupported(n, "as_strided of a view that is not row-major");
  return im.setTensor(
      n, 0,
      buildAsStrided(im.b, im.loc(n), *x, v->sizes, v->strides, v->offset));
}

/// as_strided_scatter(self, src, size, stride, storage_offset=None).
LogicalResult asStridedScatter(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<View> v = viewArgs(im, n, 2);
  if (failed(x) || failed(v))
    return failure();
  if (!rowMajorStorage(n, 0))
    return im.unsupported(n,
                          "as_strided_scatter of a view that is not row-major");
  FailureOr<Value> src = im.tensorOf(im.get(n->input(1)), elemOf(*x), l);
  if (failed(src))
    return failure();
  return im.setTensor(n, 0,
                      buildAsStridedScatter(im.b, l, *x, *src, v->sizes,
                                            v->strides, v->offset));
}

/// repeat_interleave.self_int(self, repeats, dim=None, *, output_size),
/// .self_Tensor(self, repeats, dim=None, *, output_size) and
/// .Tensor(repeats, *, output_size): without dim the flattened tensor.
LogicalResult repeatInterleave(Im &im, Node *n) {
  Location l = im.loc(n);
  const c10::FunctionSchema &schema = n->schema();
  std::optional<int64_t> outputSize;
  if (auto i = schema.argumentIndexWithName("output_size"))
    if (!im.isNoneInput(n, *i)) {
      FailureOr<int64_t> o = im.intInput(n, *i);
      if (failed(o))
        return failure();
      outputSize = *o;
    }
  if (schema.overload_name() == "Tensor") {
    FailureOr<Value> reps = im.tensorInput(n, 0);
    if (failed(reps))
      return failure();
    return im.setTensor(
        n, 0, buildRepeatInterleave(im.b, l, Value(), *reps, 0, 0, outputSize));
  }
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  int64_t dim = 0;
  if (im.isNoneInput(n, 2)) {
    FailureOr<Value> f = ravelValue(im, l, *x);
    if (failed(f))
      return failure();
    x = *f;
  } else {
    FailureOr<int64_t> d = im.intInput(n, 2);
    if (failed(d))
      return failure();
    if (rankOf(*x) == 0) {
      FailureOr<Value> f = ravelValue(im, l, *x);
      if (failed(f))
        return failure();
      x = *f;
    }
    FailureOr<int64_t> nd = normDim(im, n, *d, rankOf(*x));
    if (failed(nd))
      return failure();
    dim = *nd;
  }
  const TSValue &reps = im.get(n->input(1));
  if (!reps.isTensor()) {
    FailureOr<int64_t> r = im.intInput(n, 1);
    if (failed(r))
      return failure();
    return im.setTensor(
        n, 0, buildRepeatInterleave(im.b, l, *x, Value(), *r, dim, outputSize));
  }
  Value r = reps.value;
  if (rankOf(r) == 0) {
    FailureOr<Value> one = buildReshape(im.b, l, r, {1});
    if (failed(one))
      return failure();
    r = *one;
  }
  return im.setTensor(
      n, 0, buildRepeatInterleave(im.b, l, *x, r, 0, dim, outputSize));
}

/// combinations(self, r=2, with_replacement=False).
LogicalResult combinations(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> r = im.intInput(n, 1);
  FailureOr<bool> rep = im.boolInput(n, 2);
  if (failed(x) || failed(r) || failed(rep))
    return failure();
  return im.setTensor(n, 0, buildCombinations(im.b, im.loc(n), *x, *r, *rep));
}

/// _chunk_cat(tensors, dim, num_chunks): dim counts in the first tensor.
LogicalResult chunkCat(Im &im, Node *n) {
  FailureOr<SmallVector<Value>> xs = tensorList(im, n, 0);
  FailureOr<int64_t> d = im.intInput(n, 1), chunks = im.intInput(n, 2);
  if (failed(xs) || failed(d) || failed(chunks))
    return failure();
  if (xs->empty())
    return emitError(im.loc(n)) << "_chunk_cat: expected tensors";
  FailureOr<int64_t> dim = normDim(im, n, *d, rankOf(xs->front()));
  if (failed(dim))
    return failure();
  return im.setTensor(n, 0, buildChunkCat(im.b, im.loc(n), *xs, *dim, *chunks));
}

/// masked_scatter(self, mask, source).
LogicalResult maskedScatter(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  FailureOr<Value> mask = im.tensorOf(im.get(n->input(1)), im.b.getI1Type(), l);
  FailureOr<Value> src = im.tensorOf(im.get(n->input(2)), elemOf(*x), l);
  if (failed(mask) || failed(src))
    return failure();
  return im.setTensor(n, 0, buildMaskedScatter(im.b, l, *x, *mask, *src));
}

} // namespace

void mlprog::torchscript::registerStridedOps(OpTable &table) {
  table.add({
      {"aten::as_strided", asStrided},
      {"aten::as_strided_copy", asStrided},
      {"aten::as_strided_scatter", asStridedScatter},
      {"aten::repeat_interleave", repeatInterleave},
      {"aten::combinations", combinations},
      {"aten::_chunk_cat", chunkCat},
      {"aten::masked_scatter", maskedScatter},
  });
}
