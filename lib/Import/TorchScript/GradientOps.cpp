//===- GradientOps.cpp - aten ops of autograd formulas --------------------===//
//
// Ops that gradient formulas and attention kernels leave in traced
// programs: _softmax_backward_data, _safe_softmax, sum_to_size.
//
// One handler per aten op (overloads told apart by the node's schema): it
// reads the arguments at the schema's positions, applies torch's type
// promotion, and calls the shared builders in mlprog/Import/Common.
// Semantics belong in the builders, not here.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "HandlerUtils.h"

#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// `f(x)` along `dim` of float `x`, a 0-d `x` taken as [1].
FailureOr<Value> alongDim(Im &im, Node *n, Value x, int64_t d,
                          function_ref<FailureOr<Value>(Value, int64_t)> f) {
  Location l = im.loc(n);
  bool scalar = rankOf(x) == 0;
  if (scalar) {
    FailureOr<Value> one = buildReshape(im.b, l, x, {1});
    if (failed(one))
      return failure();
    x = *one;
  }
  FailureOr<int64_t> dim = normDim(im, n, d, rankOf(x));
  if (failed(dim))
    return failure();
  FailureOr<Value> r = f(x, *dim);
  if (failed(r) || !scalar)
    return r;
  return buildReshape(im.b, l, *r, {});
}

/// _safe_softmax(self, dim, dtype=None).
LogicalResult safeSoftmax(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = floatInput(im, n, 0);
  FailureOr<int64_t> d = im.intInput(n, 1);
  FailureOr<Type> t = im.dtypeInput(n, 2);
  if (failed(x) || failed(d) || failed(t))
    return failure();
  if (*t)
    x = buildConvertElementType(im.b, l, *x, *t);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, alongDim(im, n, *x, *d, [&](Value v, int64_t dim) {
                        return buildSafeSoftmax(im.b, l, v, dim);
                      }));
}

/// _softmax_backward_data(grad_output, output, dim, input_dtype): the
/// result has input_dtype.
LogicalResult softmaxBackward(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> grad = floatInput(im, n, 0);
  FailureOr<int64_t> d = im.intInput(n, 2);
  FailureOr<Type> t = im.dtypeInput(n, 3);
  if (failed(grad) || failed(d) || failed(t))
    return failure();
  FailureOr<Value> out = im.tensorOf(im.get(n->input(1)), elemOf(*grad), l);
  if (failed(out))
    return failure();
  FailureOr<Value> g = alongDim(im, n, *grad, *d, [&](Value v, int64_t dim) {
    FailureOr<Value> o = *out;
    if (rankOf(*out) == 0)
      o = buildReshape(im.b, l, *out, {1});
    if (failed(o))
      return o;
    return buildSoftmaxBackward(im.b, l, v, *o, dim);
  });
  if (succeeded(g) && *t && elemOf(*g) != *t)
    g = buildConvertElementType(im.b, l, *g, *t);
  return im.setTensor(n, 0, g);
}

/// sum_to_size(self, size).
LogicalResult sumToSize(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<int64_t>> size = im.intListInput(n, 1);
  if (failed(x) || failed(size))
    return failure();
  return im.setTensor(n, 0, buildSumToSize(im.b, im.loc(n), *x, *size));
}

} // namespace

void mlprog::torchscript::registerGradientOps(OpTable &table) {
  table.add({
      {"aten::_safe_softmax", safeSoftmax},
      {"aten::_softmax_backward_data", softmaxBackward},
      {"aten::sum_to_size", sumToSize},
  });
}
