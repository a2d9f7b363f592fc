//===- NormalizationOps.cpp - aten batch_norm, layer_norm -----------------===//
//
// `batch_norm` (eval mode, and training mode updating the running
// statistics) and `layer_norm`.
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
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Normalization.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// batch_norm(input, weight, bias, running_mean, running_var, training,
/// momentum, eps, cudnn_enabled). In training mode the running statistics
/// are updated (written back to their module buffers).
LogicalResult batchNorm(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  Value w, bias, mean, var;
  auto opt = [&](unsigned i, Value &out) -> LogicalResult {
    if (im.isNoneInput(n, i))
      return success();
    FailureOr<Value> v = im.tensorInput(n, i);
    if (failed(v))
      return failure();
    out = *v;
    return success();
  };
  if (failed(opt(1, w)) || failed(opt(2, bias)) || failed(opt(3, mean)) ||
      failed(opt(4, var)))
    return failure();
  FailureOr<bool> training = im.boolInput(n, 5);
  FailureOr<double> momentum = numberOr(im, n, 6, 0.1);
  FailureOr<double> eps = im.numberInput(n, 7);
  if (failed(training) || failed(momentum) || failed(eps))
    return failure();
  Type et = elemOf(*x);
  SmallVector<OpFoldResult> c = {tensor::getMixedSize(im.b, l, *x, 1)};
  auto filled = [&](double v) {
    return *buildFull(im.b, l, c, et, im.scalarAs(TSValue::ofFloat(v), et, l));
  };
  if (!*training) {
    if (!mean || !var)
      return im.unsupported(n, "batch_norm in eval mode without running "
                               "statistics");
    return im.setTensor(
        n, 0,
        buildBatchNormInference(im.b, l, *x, w ? w : filled(1.0),
                                bias ? bias : filled(0.0), mean, var, *eps));
  }
  FailureOr<BatchNormTrainingResult> r =
      buildBatchNormTraining(im.b, l, *x, w, bias, *eps);
  if (failed(r))
    return failure();
  // running = (1 - momentum) * running + momentum * batch (unbiased var).
  auto update = [&](Value running, Value batch,
                    torch::jit::Value *tv) -> LogicalResult {
    if (!running)
      return success();
    Value keep = filled(1.0 - *momentum), take = filled(*momentum);
    FailureOr<Value> a =
        buildElementwiseBinary(im.b, l, BinaryOpKind::Mul, running, keep);
    FailureOr<Value> bb =
        buildElementwiseBinary(im.b, l, BinaryOpKind::Mul, batch, take);
    if (failed(a) || failed(bb))
      return failure();
    FailureOr<Value> s =
        buildElementwiseBinary(im.b, l, BinaryOpKind::Add, *a, *bb);
    if (failed(s))
      return failure();
    if (!im.isAttributeRead(tv))
      return emitError(l) << "unsupported batch_norm in training mode whose "
                             "running statistics are not module buffers";
    im.get(tv) = TSValue::tensor(*s);
    return im.writeBack(tv, *s, l);
  };
  if (failed(update(mean, r->mean, n->input(3))) ||
      failed(update(var, r->unbiasedVar, n->input(4))))
    return failure();
  return im.setTensor(n, 0, r->output);
}

/// layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable).
LogicalResult layerNorm(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<int64_t>> shape = im.intListInput(n, 1);
  FailureOr<double> eps = numberOr(im, n, 4, 1e-5);
  if (failed(x) || failed(shape) || failed(eps))
    return failure();
  Value w, bias;
  if (!im.isNoneInput(n, 2))
    w = *im.tensorInput(n, 2);
  if (!im.isNoneInput(n, 3))
    bias = *im.tensorInput(n, 3);
  FailureOr<LayerNormResult> r = buildLayerNorm(
      im.b, im.loc(n), *x,
      llvm::to_vector(llvm::seq<int64_t>(-int64_t(shape->size()), 0)), w, bias,
      *eps);
  if (failed(r))
    return failure();
  return im.setTensor(n, 0, r->y);
}

} // namespace

void mlprog::torchscript::registerNormalizationOps(OpTable &table) {
  table.add({
      {"aten::batch_norm", batchNorm},
      {"aten::layer_norm", layerNorm},
  });
}
