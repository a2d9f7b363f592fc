//===- PoolOps.cpp - aten pooling ops -------------------------------------===//
//
// Max (with or without indices), average, adaptive average and adaptive
// max pooling in 1-D, 2-D and 3-D, batched or not, max unpooling, and
// embedding bags (pooled embedding rows).
//
// One handler per aten op (overloads told apart by the node's schema): it
// reads the arguments at the schema's positions, applies torch's type
// promotion, and calls the shared builders in mlprog/Import/Common.
// Semantics belong in the builders, not here.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "HandlerUtils.h"

#include "mlprog/Import/Common/Conv.h"
#include "mlprog/Import/Common/Pool.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// Pooling results of a batched input [N, C, D1..Dn].
using PoolResults = FailureOr<SmallVector<Value>>;

/// Calls `build` on `x` [N, C, D1..Dn], or on [1, C, D1..Dn] when `x` is an
/// unbatched [C, D1..Dn] input (which aten's pooling ops accept), dropping
/// the added dim from the results; binds the results to the node's outputs
/// in order.
LogicalResult withBatch(Im &im, Node *n, Value x, int64_t nd,
                        llvm::function_ref<PoolResults(Value)> build) {
  Location l = im.loc(n);
  bool unbatched = rankOf(x) == nd + 1;
  if (unbatched) {
    FailureOr<Value> u = buildUnsqueeze(im.b, l, x, 0);
    if (failed(u))
      return failure();
    x = *u;
  }
  PoolResults results = build(x);
  if (failed(results))
    return failure();
  for (auto [i, r] : llvm::enumerate(*results)) {
    FailureOr<Value> out =
        unbatched ? buildSqueeze(im.b, l, r, {0}) : FailureOr<Value>(r);
    if (failed(im.setTensor(n, i, out)))
      return failure();
  }
  return success();
}

/// The window of max_poolNd[_with_indices](input, kernel, stride, padding,
/// dilation, ceil_mode) and avg_poolNd(input, kernel, stride, padding, ...):
/// an empty stride means the kernel.
FailureOr<WindowParams> windowInputs(Im &im, Node *n, ArrayRef<int64_t> kernel,
                                     bool hasDilation) {
  int64_t nd = kernel.size();
  FailureOr<SmallVector<int64_t>> stride = perDim(im, n, 2, nd, 0);
  FailureOr<SmallVector<int64_t>> pad = perDim(im, n, 3, nd, 0);
  FailureOr<SmallVector<int64_t>> dil =
      hasDilation ? perDim(im, n, 4, nd, 1)
                  : FailureOr<SmallVector<int64_t>>(SmallVector<int64_t>());
  if (failed(stride) || failed(pad) || failed(dil))
    return failure();
  for (int64_t d = 0; d < nd; ++d)
    if ((*stride)[d] == 0)
      (*stride)[d] = kernel[d];
  WindowParams params;
  params.strides = *stride;
  params.padsBegin = *pad;
  params.padsEnd = *pad;
  params.dilations = *dil;
  return params;
}

/// max_poolNd(input, kernel, stride, padding, dilation, ceil_mode) and
/// max_poolNd_with_indices (same arguments; indices within each plane).
LogicalResult maxPool(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<int64_t>> kernel = im.intListInput(n, 1);
  if (failed(x) || failed(kernel))
    return failure();
  FailureOr<WindowParams> params = windowInputs(im, n, *kernel, true);
  FailureOr<bool> ceil = im.boolInput(n, 5);
  if (failed(params) || failed(ceil))
    return failure();
  bool withIndices = n->outputs().size() == 2;
  Location l = im.loc(n);
  return withBatch(im, n, *x, kernel->size(), [&](Value in) -> PoolResults {
    if (!withIndices) {
      FailureOr<Value> r = buildMaxPool(im.b, l, in, *kernel, *params, *ceil);
      if (failed(r))
        return failure();
      return SmallVector<Value>{*r};
    }
    auto r = buildMaxPoolWithIndices(im.b, l, in, *kernel, *params, *ceil,
                                     /*spatialColumnMajor=*/false,
                                     /*isUnsigned=*/false,
                                     /*planeIndices=*/true);
    if (failed(r))
      return failure();
    return SmallVector<Value>{r->first, r->second};
  });
}

/// avg_poolNd(input, kernel, stride, padding, ceil_mode, count_include_pad,
/// [divisor_override]).
LogicalResult avgPool(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<int64_t>> kernel = im.intListInput(n, 1);
  if (failed(x) || failed(kernel))
    return failure();
  FailureOr<WindowParams> params = windowInputs(im, n, *kernel, false);
  FailureOr<bool> ceil = im.boolInput(n, 4);
  FailureOr<bool> countPad = im.boolInput(n, 5);
  if (failed(params) || failed(ceil) || failed(countPad))
    return failure();
  int64_t divisor = 0;
  if (n->inputs().size() > 6 && !im.isNoneInput(n, 6)) {
    FailureOr<int64_t> d = im.intInput(n, 6);
    if (failed(d))
      return failure();
    if (*d == 0)
      return emitError(im.loc(n)) << "avg_pool: divisor must not be zero";
    divisor = *d;
  }
  Location l = im.loc(n);
  return withBatch(im, n, *x, kernel->size(), [&](Value in) -> PoolResults {
    FailureOr<Value> r = buildAveragePool(im.b, l, in, *kernel, *params, *ceil,
                                          *countPad, divisor);
    if (failed(r))
      return failure();
    return SmallVector<Value>{*r};
  });
}

/// adaptive_avg_poolNd(input, output_size) and adaptive_max_poolNd(input,
/// output_size) -> (values, indices within each plane).
LogicalResult adaptivePool(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  // Sizes a trace computed from the input's shape are run-time ints.
  FailureOr<SmallVector<OpFoldResult>> out = sizesInput(im, n, 1);
  if (failed(x) || failed(out))
    return failure();
  bool isMax =
      std::string(n->kind().toUnqualString()).find("max") != std::string::npos;
  Location l = im.loc(n);
  return withBatch(im, n, *x, out->size(), [&](Value in) -> PoolResults {
    if (!isMax) {
      FailureOr<Value> r = buildAdaptiveAveragePool(im.b, l, in, *out);
      if (failed(r))
        return failure();
      return SmallVector<Value>{*r};
    }
    auto r = buildAdaptiveMaxPool(im.b, l, in, *out);
    if (failed(r))
      return failure();
    return SmallVector<Value>{r->first, r->second};
  });
}

/// max_unpool2d(input, indices, output_size) and max_unpool3d(input,
/// indices, output_size, stride, padding); F.max_unpool1d calls
/// max_unpool2d with a unit last dim. Indices address each plane of the
/// output.
LogicalResult maxUnpool(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0), indices = im.tensorInput(n, 1);
  FailureOr<SmallVector<int64_t>> out = im.intListInput(n, 2);
  if (failed(x) || failed(indices) || failed(out))
    return failure();
  if (rankOf(*indices) != rankOf(*x))
    return emitError(im.loc(n))
           << "max_unpool: input " << x->getType() << " and indices "
           << indices->getType() << " differ in rank";
  Location l = im.loc(n);
  FailureOr<Value> idx = *indices;
  if (rankOf(*x) == int64_t(out->size()) + 1)
    idx = buildUnsqueeze(im.b, l, *indices, 0);
  if (failed(idx))
    return failure();
  return withBatch(im, n, *x, out->size(), [&](Value in) -> PoolResults {
    FailureOr<Value> r = buildMaxUnpoolPlanes(im.b, l, in, *idx, *out);
    if (failed(r))
      return failure();
    return SmallVector<Value>{*r};
  });
}

/// embedding_bag(weight, indices, offsets, scale_grad_by_freq, mode, sparse,
/// per_sample_weights, include_last_offset, [padding_idx]) -> (output,
/// offset2bag, bag_size, max_indices): the output (the other results, aten's
/// bookkeeping for the gradient, are unsupported where used).
/// scale_grad_by_freq and sparse only concern the gradient.
LogicalResult embeddingBag(Im &im, Node *n) {
  Location l = im.loc(n);
  for (unsigned i = 1; i < n->outputs().size(); ++i)
    if (!n->output(i)->uses().empty())
      return im.unsupported(n, "embedding_bag result " + std::to_string(i) +
                                   " (only the bags are computed)");
  FailureOr<Value> w = im.tensorInput(n, 0), idx = im.tensorInput(n, 1),
                   offsets = im.tensorInput(n, 2);
  FailureOr<int64_t> mode = im.intInput(n, 4);
  FailureOr<bool> includeLast = im.boolInput(n, 7);
  if (failed(w) || failed(idx) || failed(offsets) || failed(mode) ||
      failed(includeLast))
    return failure();
  if (*mode < 0 || *mode > 2)
    return emitError(l) << "embedding_bag: unknown mode " << *mode;
  Value psw;
  if (!im.isNoneInput(n, 6)) {
    FailureOr<Value> p = im.tensorInput(n, 6);
    if (failed(p))
      return failure();
    psw = *p;
  }
  std::optional<int64_t> paddingIdx;
  if (n->inputs().size() > 8 && !im.isNoneInput(n, 8)) {
    FailureOr<int64_t> p = im.intInput(n, 8);
    if (failed(p))
      return failure();
    paddingIdx = *p;
  }
  if (rankOf(*idx) != 1)
    return im.unsupported(n, "embedding_bag of " +
                                 std::to_string(rankOf(*idx)) +
                                 "-D indices (F.embedding_bag flattens them)");
  static const EmbeddingBagMode modes[] = {
      EmbeddingBagMode::Sum, EmbeddingBagMode::Mean, EmbeddingBagMode::Max};
  FailureOr<Value> out = buildEmbeddingBag(
      im.b, l, *w, *idx, *offsets, modes[*mode], psw, *includeLast, paddingIdx);
  if (failed(out) || failed(im.setTensor(n, 0, out)))
    return failure();
  // Unused placeholders for aten's bookkeeping results.
  for (unsigned i = 1; i < n->outputs().size(); ++i)
    if (failed(im.setTensor(
            n, i,
            Value(tensor::EmptyOp::create(im.b, l, ArrayRef<int64_t>{0},
                                          im.b.getI64Type())))))
      return failure();
  return success();
}

} // namespace

void mlprog::torchscript::registerPoolOps(OpTable &table) {
  table.add({
      {"aten::max_pool1d", maxPool},
      {"aten::max_pool2d", maxPool},
      {"aten::max_pool3d", maxPool},
      {"aten::avg_pool1d", avgPool},
      {"aten::avg_pool2d", avgPool},
      {"aten::avg_pool3d", avgPool},
      {"aten::max_pool1d_with_indices", maxPool},
      {"aten::max_pool2d_with_indices", maxPool},
      {"aten::max_pool3d_with_indices", maxPool},
      {"aten::adaptive_avg_pool1d", adaptivePool},
      {"aten::adaptive_avg_pool2d", adaptivePool},
      {"aten::adaptive_avg_pool3d", adaptivePool},
      {"aten::adaptive_max_pool1d", adaptivePool},
      {"aten::adaptive_max_pool2d", adaptivePool},
      {"aten::adaptive_max_pool3d", adaptivePool},
      {"aten::max_unpool2d", maxUnpool},
      {"aten::max_unpool3d", maxUnpool},
      {"aten::embedding_bag", embeddingBag},
  });
}
