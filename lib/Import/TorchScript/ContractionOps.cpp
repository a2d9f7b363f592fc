//===- ContractionOps.cpp - aten matmul, linear, addmm --------------------===//
//
// Matrix products: `matmul`/`mm`/`bmm`, `linear`, `addmm`, and `t`.
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
#include "mlprog/Import/Common/LinearAlgebra.h"
#include "mlprog/Import/Common/Shape.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

LogicalResult matmul(Im &im, Node *n) {
  FailureOr<Value> a = im.tensorInput(n, 0), c = im.tensorInput(n, 1);
  if (failed(a) || failed(c))
    return failure();
  return im.setTensor(n, 0, buildMatMul(im.b, im.loc(n), *a, *c));
}

LogicalResult transposeLast2(Im &im, Node *n, Value x, FailureOr<Value> &out) {
  int64_t r = rankOf(x);
  if (r < 2) {
    out = x;
    return success();
  }
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < r; ++i)
    perm.push_back(i);
  std::swap(perm[r - 1], perm[r - 2]);
  out = buildTranspose(im.b, im.loc(n), x, perm);
  return failure(failed(out));
}

LogicalResult linear(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0), w = im.tensorInput(n, 1);
  if (failed(x) || failed(w))
    return failure();
  FailureOr<Value> wt;
  if (failed(transposeLast2(im, n, *w, wt)))
    return failure();
  FailureOr<Value> y = buildMatMul(im.b, l, *x, *wt);
  if (failed(y))
    return failure();
  if (!im.isNoneInput(n, 2)) {
    FailureOr<Value> bias = im.tensorInput(n, 2);
    if (failed(bias))
      return failure();
    y = buildElementwiseBinary(im.b, l, BinaryOpKind::Add, *y, *bias);
  }
  return im.setTensor(n, 0, y);
}

LogicalResult addmm(Im &im, Node *n) {
  FailureOr<Value> c = im.tensorInput(n, 0), a = im.tensorInput(n, 1),
                   m = im.tensorInput(n, 2);
  FailureOr<double> beta = numberOr(im, n, 3, 1.0),
                    alpha = numberOr(im, n, 4, 1.0);
  if (failed(c) || failed(a) || failed(m) || failed(beta) || failed(alpha))
    return failure();
  return im.setTensor(
      n, 0,
      buildGemm(im.b, im.loc(n), *a, *m, *c, *alpha, *beta, false, false));
}

LogicalResult transposeT(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  FailureOr<Value> out;
  if (failed(transposeLast2(im, n, *x, out)))
    return failure();
  return im.setTensor(n, 0, out);
}

} // namespace

void mlprog::torchscript::registerContractionOps(OpTable &table) {
  table.add({
      {"aten::matmul", matmul},
      {"aten::mm", matmul},
      {"aten::bmm", matmul},
      {"aten::linear", linear},
      {"aten::addmm", addmm},
      {"aten::t", transposeT},
  });
}
