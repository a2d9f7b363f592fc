//===- NormalizationOps.cpp - aten batch, layer, group, instance norms ----===//
//
// `batch_norm` and its native forms (eval mode, and training mode updating
// the running statistics), `layer_norm`/`native_layer_norm`, `group_norm`,
// `instance_norm`, `rms_norm` and `renorm`.
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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// Input `i` as a tensor, null when None.
LogicalResult optTensor(Im &im, Node *n, unsigned i, Value &out) {
  if (im.isNoneInput(n, i))
    return success();
  FailureOr<Value> v = im.tensorInput(n, i);
  if (failed(v))
    return failure();
  out = *v;
  return success();
}

/// The results of a batch norm: the output, and the statistics of the
/// native forms (the batch mean and 1 / sqrt(biased var + eps) in training
/// mode, empty [0] tensors in eval mode).
struct BatchNormOutputs {
  Value y, saveMean, saveInvStd;
};

/// Batch norm of input 0 with weight, bias, running mean and var at inputs
/// 1-4 (`mean`/`var` null: no running statistics), in training mode updating
/// the running statistics: module buffers are written back; other tensors
/// (graph inputs) are rebound, so that later reads in the graph see the
/// update, but the caller's tensors are not written.
FailureOr<BatchNormOutputs> batchNormCore(Im &im, Node *n, bool training,
                                          double momentum, double eps,
                                          bool hasStats) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  Value w, bias, mean, var;
  if (failed(optTensor(im, n, 1, w)) || failed(optTensor(im, n, 2, bias)))
    return failure();
  if (hasStats &&
      (failed(optTensor(im, n, 3, mean)) || failed(optTensor(im, n, 4, var))))
    return failure();
  Type et = elemOf(*x);
  // An empty input (torch accepts a 1-D [0]) normalizes to itself.
  auto xt = cast<RankedTensorType>(x->getType());
  if (xt.hasStaticShape() && xt.getNumElements() == 0) {
    Value empty = *buildFull(im.b, l, {im.b.getIndexAttr(0)}, et,
                             im.scalarAs(TSValue::ofFloat(0), et, l));
    return BatchNormOutputs{*x, empty, empty};
  }
  auto filled = [&](OpFoldResult size, double v) {
    return *buildFull(im.b, l, {size}, et,
                      im.scalarAs(TSValue::ofFloat(v), et, l));
  };
  OpFoldResult c = rankOf(*x) >= 2 ? tensor::getMixedSize(im.b, l, *x, 1)
                                   : OpFoldResult(im.b.getIndexAttr(0));
  if (!training) {
    if (!mean || !var)
      return emitError(l) << "unsupported batch_norm in eval mode without "
                             "running statistics";
    FailureOr<Value> y =
        buildBatchNormInference(im.b, l, *x, w ? w : filled(c, 1.0),
                                bias ? bias : filled(c, 0.0), mean, var, eps);
    if (failed(y))
      return failure();
    OpFoldResult zero = im.b.getIndexAttr(0);
    return BatchNormOutputs{*y, filled(zero, 0.0), filled(zero, 0.0)};
  }
  FailureOr<BatchNormTrainingResult> r =
      buildBatchNormTraining(im.b, l, *x, w, bias, eps);
  if (failed(r))
    return failure();
  // running = (1 - momentum) * running + momentum * batch (unbiased var).
  auto update = [&](Value running, Value batch,
                    torch::jit::Value *tv) -> LogicalResult {
    if (!running)
      return success();
    FailureOr<Value> s =
        buildRunningAverage(im.b, l, running, batch, 1.0 - momentum);
    if (failed(s))
      return failure();
    im.get(tv) = TSValue::tensor(*s);
    return im.writeBack(tv, *s, l);
  };
  if (failed(update(mean, r->mean, n->input(3))) ||
      failed(update(var, r->unbiasedVar, n->input(4))))
    return failure();
  FailureOr<Value> shifted = buildAddScalar(im.b, l, r->biasedVar, eps);
  if (failed(shifted))
    return failure();
  FailureOr<Value> inv =
      buildPointwise(im.b, l, PointwiseKind::Rsqrt, *shifted);
  if (failed(inv))
    return failure();
  return BatchNormOutputs{r->output, r->mean, *inv};
}

/// batch_norm(input, weight, bias, running_mean, running_var, training,
/// momentum, eps, cudnn_enabled).
LogicalResult batchNorm(Im &im, Node *n) {
  FailureOr<bool> training = im.boolInput(n, 5);
  FailureOr<double> momentum = numberOr(im, n, 6, 0.1);
  FailureOr<double> eps = im.numberInput(n, 7);
  if (failed(training) || failed(momentum) || failed(eps))
    return failure();
  FailureOr<BatchNormOutputs> r =
      batchNormCore(im, n, *training, *momentum, *eps, true);
  if (failed(r))
    return failure();
  return im.setTensor(n, 0, r->y);
}

/// Sets the three results of a native batch norm.
LogicalResult setNative(Im &im, Node *n, FailureOr<BatchNormOutputs> r) {
  if (failed(r) || failed(im.setTensor(n, 0, r->y)) ||
      failed(im.setTensor(n, 1, r->saveMean)))
    return failure();
  return im.setTensor(n, 2, r->saveInvStd);
}

/// native_batch_norm / _native_batch_norm_legit(input, weight, bias,
/// running_mean, running_var, training, momentum, eps) and
/// _native_batch_norm_legit.no_stats(input, weight, bias, training,
/// momentum, eps) -> (output, save_mean, save_invstd).
LogicalResult nativeBatchNorm(Im &im, Node *n) {
  bool noStats = n->schema().overload_name() == "no_stats";
  unsigned t = noStats ? 3 : 5;
  FailureOr<bool> training = im.boolInput(n, t);
  FailureOr<double> momentum = numberOr(im, n, t + 1, 0.1);
  FailureOr<double> eps = im.numberInput(n, t + 2);
  if (failed(training) || failed(momentum) || failed(eps))
    return failure();
  return setNative(im, n,
                   batchNormCore(im, n, *training, *momentum, *eps, !noStats));
}

/// _batch_norm_with_update(input, weight, bias, running_mean, running_var,
/// momentum, eps) -> (output, save_mean, save_invstd, reserve): training
/// mode; `reserve` is an empty uint8 tensor (cuDNN's workspace on CPU), a
/// signless i8 [0] here.
LogicalResult batchNormWithUpdate(Im &im, Node *n) {
  FailureOr<double> momentum = numberOr(im, n, 5, 0.1);
  FailureOr<double> eps = im.numberInput(n, 6);
  if (failed(momentum) || failed(eps))
    return failure();
  if (failed(
          setNative(im, n, batchNormCore(im, n, true, *momentum, *eps, true))))
    return failure();
  Value zero =
      arith::ConstantOp::create(im.b, im.loc(n), im.b.getI8IntegerAttr(0));
  FailureOr<Value> reserve = buildFull(im.b, im.loc(n), {im.b.getIndexAttr(0)},
                                       im.b.getI8Type(), zero);
  if (succeeded(reserve))
    im.unsignedValues.insert(*reserve);
  return im.setTensor(n, 3, reserve);
}

/// instance_norm(input, weight, bias, running_mean, running_var,
/// use_input_stats, momentum, eps, cudnn_enabled): with use_input_stats
/// each instance is normalized by its own statistics (running statistics
/// are not updated: unsupported for module buffers), else by the running
/// ones.
LogicalResult instanceNorm(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<bool> useInput = im.boolInput(n, 5);
  FailureOr<double> eps = im.numberInput(n, 7);
  if (failed(x) || failed(useInput) || failed(eps))
    return failure();
  Value w, bias, mean, var;
  if (failed(optTensor(im, n, 1, w)) || failed(optTensor(im, n, 2, bias)) ||
      failed(optTensor(im, n, 3, mean)) || failed(optTensor(im, n, 4, var)))
    return failure();
  if (!*useInput) {
    FailureOr<BatchNormOutputs> r =
        batchNormCore(im, n, false, 0.0, *eps, true);
    if (failed(r))
      return failure();
    return im.setTensor(n, 0, r->y);
  }
  if ((mean && im.isAttributeRead(n->input(3))) ||
      (var && im.isAttributeRead(n->input(4))))
    return im.unsupported(n, "instance_norm updating running statistics "
                             "held in module buffers");
  return im.setTensor(n, 0, buildInstanceNorm(im.b, l, *x, w, bias, *eps));
}

/// group_norm(input, num_groups, weight, bias, eps, cudnn_enabled).
LogicalResult groupNorm(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> groups = im.intInput(n, 1);
  FailureOr<double> eps = numberOr(im, n, 4, 1e-5);
  if (failed(x) || failed(groups) || failed(eps))
    return failure();
  Value w, bias;
  if (failed(optTensor(im, n, 2, w)) || failed(optTensor(im, n, 3, bias)))
    return failure();
  return im.setTensor(
      n, 0, buildGroupNorm(im.b, im.loc(n), *x, *groups, w, bias, *eps));
}

/// The trailing axes a normalized_shape argument names.
SmallVector<int64_t> trailingAxes(size_t count) {
  return llvm::to_vector(llvm::seq<int64_t>(-int64_t(count), 0));
}

/// native_layer_norm(input, normalized_shape, weight, bias, eps) ->
/// (output, mean, rstd), the statistics with the normalized dims kept as 1.
LogicalResult nativeLayerNorm(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<int64_t>> shape = im.intListInput(n, 1);
  FailureOr<double> eps = im.numberInput(n, 4);
  if (failed(x) || failed(shape) || failed(eps))
    return failure();
  Value w, bias;
  if (failed(optTensor(im, n, 2, w)) || failed(optTensor(im, n, 3, bias)))
    return failure();
  FailureOr<LayerNormResult> r = buildLayerNorm(
      im.b, im.loc(n), *x, trailingAxes(shape->size()), w, bias, *eps);
  if (failed(r) || failed(im.setTensor(n, 0, r->y)) ||
      failed(im.setTensor(n, 1, r->mean)))
    return failure();
  return im.setTensor(n, 2, r->invStdDev);
}

/// rms_norm(input, normalized_shape, weight=None, eps=None): eps None is
/// the machine epsilon of the input's dtype.
LogicalResult rmsNorm(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<int64_t>> shape = im.intListInput(n, 1);
  if (failed(x) || failed(shape))
    return failure();
  Value w;
  if (failed(optTensor(im, n, 2, w)))
    return failure();
  auto ft = dyn_cast<FloatType>(elemOf(*x));
  if (!ft)
    return emitError(im.loc(n)) << "rms_norm needs a float input";
  double machineEps = std::ldexp(
      1.0, 1 - int(llvm::APFloat::semanticsPrecision(ft.getFloatSemantics())));
  FailureOr<double> eps = numberOr(im, n, 3, machineEps);
  if (failed(eps))
    return failure();
  return im.setTensor(
      n, 0,
      buildRMSNorm(im.b, im.loc(n), *x, trailingAxes(shape->size()), w, *eps));
}

/// renorm(self, p, dim, maxnorm).
LogicalResult renorm(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<double> p = im.numberInput(n, 1);
  FailureOr<int64_t> dim = im.intInput(n, 2);
  FailureOr<double> maxNorm = im.numberInput(n, 3);
  if (failed(x) || failed(p) || failed(dim) || failed(maxNorm))
    return failure();
  return im.setTensor(n, 0,
                      buildRenorm(im.b, im.loc(n), *x, *p, *dim, *maxNorm));
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

/// embedding_renorm_(self, indices, max_norm, norm_type) as a value (the
/// importer stores it back to `self`).
LogicalResult embeddingRenorm(Im &im, Node *n) {
  FailureOr<Value> w = im.tensorInput(n, 0), idx = im.tensorInput(n, 1);
  FailureOr<double> maxNorm = im.numberInput(n, 2), p = im.numberInput(n, 3);
  if (failed(w) || failed(idx) || failed(maxNorm) || failed(p))
    return failure();
  return im.setTensor(
      n, 0, buildEmbeddingRenorm(im.b, im.loc(n), *w, *idx, *maxNorm, *p));
}

} // namespace

void mlprog::torchscript::registerNormalizationOps(OpTable &table) {
  table.add({
      {"aten::embedding_renorm", embeddingRenorm},
      {"aten::batch_norm", batchNorm},
      {"aten::layer_norm", layerNorm},
      {"aten::native_batch_norm", nativeBatchNorm},
      {"aten::_native_batch_norm_legit", nativeBatchNorm},
      {"aten::_batch_norm_with_update", batchNormWithUpdate},
      {"aten::instance_norm", instanceNorm},
      {"aten::group_norm", groupNorm},
      {"aten::native_layer_norm", nativeLayerNorm},
      {"aten::rms_norm", rmsNorm},
      {"aten::renorm", renorm},
  });
}
