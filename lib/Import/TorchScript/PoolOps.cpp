//===- PoolOps.cpp - aten pooling ops -------------------------------------===//
//
// Max, average and adaptive average pooling in 1-D, 2-D and 3-D.
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

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// max_poolNd(input, kernel, stride, padding, dilation, ceil_mode).
LogicalResult maxPool(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<int64_t>> kernel = im.intListInput(n, 1);
  if (failed(x) || failed(kernel))
    return failure();
  int64_t nd = kernel->size();
  WindowParams params;
  FailureOr<SmallVector<int64_t>> stride = perDim(im, n, 2, nd, 0);
  FailureOr<SmallVector<int64_t>> pad = perDim(im, n, 3, nd, 0);
  FailureOr<SmallVector<int64_t>> dil = perDim(im, n, 4, nd, 1);
  FailureOr<bool> ceil = im.boolInput(n, 5);
  if (failed(stride) || failed(pad) || failed(dil) || failed(ceil))
    return failure();
  for (int64_t d = 0; d < nd; ++d)
    if ((*stride)[d] == 0)
      (*stride)[d] = (*kernel)[d];
  params.strides = *stride;
  params.padsBegin = *pad;
  params.padsEnd = *pad;
  params.dilations = *dil;
  return im.setTensor(
      n, 0, buildMaxPool(im.b, im.loc(n), *x, *kernel, params, *ceil));
}

/// avg_poolNd(input, kernel, stride, padding, ceil_mode, count_include_pad,
/// [divisor_override]).
LogicalResult avgPool(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<int64_t>> kernel = im.intListInput(n, 1);
  if (failed(x) || failed(kernel))
    return failure();
  int64_t nd = kernel->size();
  WindowParams params;
  FailureOr<SmallVector<int64_t>> stride = perDim(im, n, 2, nd, 0);
  FailureOr<SmallVector<int64_t>> pad = perDim(im, n, 3, nd, 0);
  FailureOr<bool> ceil = im.boolInput(n, 4);
  FailureOr<bool> countPad = im.boolInput(n, 5);
  if (failed(stride) || failed(pad) || failed(ceil) || failed(countPad))
    return failure();
  if (n->inputs().size() > 6 && !im.isNoneInput(n, 6))
    return im.unsupported(n, "avg_pool divisor_override");
  for (int64_t d = 0; d < nd; ++d)
    if ((*stride)[d] == 0)
      (*stride)[d] = (*kernel)[d];
  params.strides = *stride;
  params.padsBegin = *pad;
  params.padsEnd = *pad;
  return im.setTensor(
      n, 0,
      buildAveragePool(im.b, im.loc(n), *x, *kernel, params, *ceil, *countPad));
}

/// adaptive_avg_poolNd(input, output_size): global pooling for all-1
/// outputs, a uniform window when the input extent divides evenly.
LogicalResult adaptiveAvgPool(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<int64_t>> out = im.intListInput(n, 1);
  if (failed(x) || failed(out))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t nd = out->size();
  if (type.getRank() != nd + 2)
    return im.unsupported(n, "adaptive pooling of unbatched input");
  if (llvm::all_of(*out, [](int64_t o) { return o == 1; }))
    return im.setTensor(n, 0, buildGlobalAveragePool(im.b, l, *x));
  SmallVector<int64_t> kernel;
  WindowParams params;
  for (int64_t d = 0; d < nd; ++d) {
    int64_t in = type.getDimSize(d + 2), o = (*out)[d];
    if (ShapedType::isDynamic(in) || o <= 0 || in % o != 0)
      return im.unsupported(n, "adaptive average pooling to " +
                                   std::to_string(o) + " from extent " +
                                   std::to_string(in) +
                                   " (only divisible extents)");
    kernel.push_back(in / o);
    params.strides.push_back(in / o);
  }
  params.padsBegin.assign(nd, 0);
  params.padsEnd.assign(nd, 0);
  return im.setTensor(
      n, 0, buildAveragePool(im.b, l, *x, kernel, params, false, true));
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
      {"aten::adaptive_avg_pool1d", adaptiveAvgPool},
      {"aten::adaptive_avg_pool2d", adaptiveAvgPool},
      {"aten::adaptive_avg_pool3d", adaptiveAvgPool},
  });
}
