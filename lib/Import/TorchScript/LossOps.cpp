//===- LossOps.cpp - aten loss functions ----------------------------------===//
//
// Regression, classification, ranking and embedding losses, and
// broadcast_tensors (which torch.nn.functional calls before the
// regression losses).
//
// One handler per aten op: it reads the arguments at the schema's
// positions, applies torch's type promotion, and calls the shared builders
// in mlprog/Import/Common/Loss.h. Semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "HandlerUtils.h"

#include "mlprog/Import/Common/Loss.h"
#include "mlprog/Import/Common/Shape.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// The float dtype the tensor inputs `idx` (None skipped) promote to
/// (integers promote to float32, as in torch's float-only losses).
Type floatPromoted(Im &im, Node *n, ArrayRef<unsigned> idx) {
  SmallVector<const TSValue *> ops;
  for (unsigned i : idx)
    if (!im.isNoneInput(n, i))
      ops.push_back(&im.get(n->input(i)));
  Type et = im.promote(ops);
  if (!et || !isa<FloatType>(et))
    et = im.b.getF32Type();
  return et;
}

/// Input `i` as a tensor of `et`, null when None.
FailureOr<Value> optTensorOf(Im &im, Node *n, unsigned i, Type et) {
  if (im.isNoneInput(n, i))
    return Value();
  return im.tensorOf(im.get(n->input(i)), et, im.loc(n));
}

/// The inputs `idx` as tensors of their promoted float dtype (null where
/// None).
FailureOr<SmallVector<Value>> floatInputs(Im &im, Node *n,
                                          ArrayRef<unsigned> idx) {
  Type et = floatPromoted(im, n, idx);
  SmallVector<Value> out;
  for (unsigned i : idx) {
    FailureOr<Value> v = optTensorOf(im, n, i, et);
    if (failed(v))
      return failure();
    out.push_back(*v);
  }
  return out;
}

/// The int reduction argument `i` (0 none, 1 mean, 2 sum).
FailureOr<LossReduction> reductionInput(Im &im, Node *n, unsigned i) {
  FailureOr<int64_t> r = im.intInput(n, i);
  if (failed(r))
    return failure();
  if (*r < 0 || *r > 2)
    return emitError(im.loc(n)) << "invalid loss reduction " << *r;
  return LossReduction(*r);
}

/// broadcast_tensors(Tensor[] tensors) -> Tensor[].
LogicalResult broadcastTensors(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<std::vector<TSValue>> list = im.listInput(n, 0);
  if (failed(list))
    return failure();
  SmallVector<Value> ts;
  for (const TSValue &v : *list) {
    FailureOr<Value> t = im.asTensor(v, l);
    if (failed(t))
      return failure();
    ts.push_back(*t);
  }
  FailureOr<SmallVector<Value>> r = buildBroadcastTensors(im.b, l, ts);
  if (failed(r))
    return failure();
  std::vector<TSValue> out;
  for (Value v : *r)
    out.push_back(TSValue::tensor(v));
  return im.set(n, 0, TSValue::list(std::move(out)));
}

/// mse_loss/l1_loss(self, target, reduction), huber_loss(self, target,
/// reduction, delta), smooth_l1_loss(self, target, reduction, beta).
template <RegressionLossKind K> LogicalResult regressionLoss(Im &im, Node *n) {
  FailureOr<SmallVector<Value>> in = floatInputs(im, n, {0, 1});
  FailureOr<LossReduction> red = reductionInput(im, n, 2);
  if (failed(in) || failed(red))
    return failure();
  double param = 0;
  if (K == RegressionLossKind::Huber || K == RegressionLossKind::SmoothL1) {
    FailureOr<double> p = numberOr(im, n, 3, 1.0);
    if (failed(p))
      return failure();
    param = *p;
  }
  return im.setTensor(
      n, 0,
      buildRegressionLoss(im.b, im.loc(n), K, (*in)[0], (*in)[1], param, *red));
}

/// kl_div(self, target, reduction, *, log_target).
LogicalResult klDiv(Im &im, Node *n) {
  FailureOr<SmallVector<Value>> in = floatInputs(im, n, {0, 1});
  FailureOr<LossReduction> red = reductionInput(im, n, 2);
  FailureOr<bool> logTarget = im.boolInput(n, 3);
  if (failed(in) || failed(red) || failed(logTarget))
    return failure();
  return im.setTensor(
      n, 0,
      buildKLDivLoss(im.b, im.loc(n), (*in)[0], (*in)[1], *logTarget, *red));
}

/// binary_cross_entropy(self, target, weight, reduction).
LogicalResult binaryCrossEntropy(Im &im, Node *n) {
  FailureOr<SmallVector<Value>> in = floatInputs(im, n, {0, 1, 2});
  FailureOr<LossReduction> red = reductionInput(im, n, 3);
  if (failed(in) || failed(red))
    return failure();
  return im.setTensor(n, 0,
                      buildBinaryCrossEntropy(im.b, im.loc(n), (*in)[0],
                                              (*in)[1], (*in)[2], *red));
}

/// binary_cross_entropy_with_logits(self, target, weight, pos_weight,
/// reduction).
LogicalResult binaryCrossEntropyWithLogits(Im &im, Node *n) {
  FailureOr<SmallVector<Value>> in = floatInputs(im, n, {0, 1, 2, 3});
  FailureOr<LossReduction> red = reductionInput(im, n, 4);
  if (failed(in) || failed(red))
    return failure();
  return im.setTensor(
      n, 0,
      buildBinaryCrossEntropyWithLogits(im.b, im.loc(n), (*in)[0], (*in)[1],
                                        (*in)[2], (*in)[3], *red));
}

/// nll_loss_nd / nll_loss / nll_loss2d(self, target, weight, reduction,
/// ignore_index).
LogicalResult nllLoss(Im &im, Node *n) {
  FailureOr<SmallVector<Value>> in = floatInputs(im, n, {0, 2});
  FailureOr<Value> target = im.tensorInput(n, 1);
  FailureOr<LossReduction> red = reductionInput(im, n, 3);
  FailureOr<int64_t> ignore = im.intInput(n, 4);
  if (failed(in) || failed(target) || failed(red) || failed(ignore))
    return failure();
  return im.setTensor(n, 0,
                      buildNLLLoss(im.b, im.loc(n), (*in)[0], *target, (*in)[1],
                                   *red, *ignore));
}

/// cross_entropy_loss(self, target, weight, reduction, ignore_index,
/// label_smoothing): an integer target holds class indices, a float one
/// class probabilities (promoted with the input).
LogicalResult crossEntropyLoss(Im &im, Node *n) {
  FailureOr<Value> target = im.tensorInput(n, 1);
  if (failed(target))
    return failure();
  bool probabilities = isa<FloatType>(elemOf(*target));
  FailureOr<SmallVector<Value>> in = probabilities
                                         ? floatInputs(im, n, {0, 2, 1})
                                         : floatInputs(im, n, {0, 2});
  FailureOr<LossReduction> red = reductionInput(im, n, 3);
  FailureOr<int64_t> ignore = im.intInput(n, 4);
  FailureOr<double> smoothing = numberOr(im, n, 5, 0.0);
  if (failed(in) || failed(red) || failed(ignore) || failed(smoothing))
    return failure();
  return im.setTensor(n, 0,
                      buildCrossEntropyLoss(im.b, im.loc(n), (*in)[0],
                                            probabilities ? (*in)[2] : *target,
                                            (*in)[1], *red, *ignore,
                                            *smoothing));
}

/// hinge_embedding_loss(self, target, margin, reduction).
LogicalResult hingeEmbeddingLoss(Im &im, Node *n) {
  FailureOr<SmallVector<Value>> in = floatInputs(im, n, {0, 1});
  FailureOr<double> margin = im.numberInput(n, 2);
  FailureOr<LossReduction> red = reductionInput(im, n, 3);
  if (failed(in) || failed(margin) || failed(red))
    return failure();
  return im.setTensor(n, 0,
                      buildHingeEmbeddingLoss(im.b, im.loc(n), (*in)[0],
                                              (*in)[1], *margin, *red));
}

/// margin_ranking_loss(input1, input2, target, margin, reduction).
LogicalResult marginRankingLoss(Im &im, Node *n) {
  FailureOr<SmallVector<Value>> in = floatInputs(im, n, {0, 1, 2});
  FailureOr<double> margin = im.numberInput(n, 3);
  FailureOr<LossReduction> red = reductionInput(im, n, 4);
  if (failed(in) || failed(margin) || failed(red))
    return failure();
  return im.setTensor(n, 0,
                      buildMarginRankingLoss(im.b, im.loc(n), (*in)[0],
                                             (*in)[1], (*in)[2], *margin,
                                             *red));
}

/// soft_margin_loss(self, target, reduction).
LogicalResult softMarginLoss(Im &im, Node *n) {
  FailureOr<SmallVector<Value>> in = floatInputs(im, n, {0, 1});
  FailureOr<LossReduction> red = reductionInput(im, n, 2);
  if (failed(in) || failed(red))
    return failure();
  return im.setTensor(
      n, 0, buildSoftMarginLoss(im.b, im.loc(n), (*in)[0], (*in)[1], *red));
}

/// cosine_embedding_loss(input1, input2, target, margin, reduction).
LogicalResult cosineEmbeddingLoss(Im &im, Node *n) {
  FailureOr<SmallVector<Value>> in = floatInputs(im, n, {0, 1, 2});
  FailureOr<double> margin = im.numberInput(n, 3);
  FailureOr<LossReduction> red = reductionInput(im, n, 4);
  if (failed(in) || failed(margin) || failed(red))
    return failure();
  return im.setTensor(n, 0,
                      buildCosineEmbeddingLoss(im.b, im.loc(n), (*in)[0],
                                               (*in)[1], (*in)[2], *margin,
                                               *red));
}

/// poisson_nll_loss(input, target, log_input, full, eps, reduction).
LogicalResult poissonNLLLoss(Im &im, Node *n) {
  FailureOr<SmallVector<Value>> in = floatInputs(im, n, {0, 1});
  FailureOr<bool> logInput = im.boolInput(n, 2);
  FailureOr<bool> full = im.boolInput(n, 3);
  FailureOr<double> eps = im.numberInput(n, 4);
  FailureOr<LossReduction> red = reductionInput(im, n, 5);
  if (failed(in) || failed(logInput) || failed(full) || failed(eps) ||
      failed(red))
    return failure();
  return im.setTensor(n, 0,
                      buildPoissonNLLLoss(im.b, im.loc(n), (*in)[0], (*in)[1],
                                          *logInput, *full, *eps, *red));
}

/// triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
/// reduction).
LogicalResult tripletMarginLoss(Im &im, Node *n) {
  FailureOr<SmallVector<Value>> in = floatInputs(im, n, {0, 1, 2});
  FailureOr<double> margin = im.numberInput(n, 3);
  FailureOr<double> p = im.numberInput(n, 4);
  FailureOr<double> eps = im.numberInput(n, 5);
  FailureOr<bool> swap = im.boolInput(n, 6);
  FailureOr<LossReduction> red = reductionInput(im, n, 7);
  if (failed(in) || failed(margin) || failed(p) || failed(eps) ||
      failed(swap) || failed(red))
    return failure();
  return im.setTensor(n, 0,
                      buildTripletMarginLoss(im.b, im.loc(n), (*in)[0],
                                             (*in)[1], (*in)[2], *margin, *p,
                                             *eps, *swap, *red));
}

/// multi_margin_loss(self, target, p, margin, weight, reduction).
LogicalResult multiMarginLoss(Im &im, Node *n) {
  FailureOr<SmallVector<Value>> in = floatInputs(im, n, {0, 4});
  FailureOr<Value> target = im.tensorInput(n, 1);
  FailureOr<int64_t> p = im.intInput(n, 2);
  FailureOr<double> margin = im.numberInput(n, 3);
  FailureOr<LossReduction> red = reductionInput(im, n, 5);
  if (failed(in) || failed(target) || failed(p) || failed(margin) ||
      failed(red))
    return failure();
  return im.setTensor(n, 0,
                      buildMultiMarginLoss(im.b, im.loc(n), (*in)[0], *target,
                                           *p, *margin, (*in)[1], *red));
}

/// multilabel_margin_loss(self, target, reduction).
LogicalResult multilabelMarginLoss(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0), t = im.tensorInput(n, 1);
  FailureOr<LossReduction> red = reductionInput(im, n, 2);
  if (failed(x) || failed(t) || failed(red))
    return failure();
  return im.setTensor(n, 0,
                      buildMultiLabelMarginLoss(im.b, im.loc(n), *x, *t, *red));
}

} // namespace

void mlprog::torchscript::registerLossOps(OpTable &table) {
  table.add({
      {"aten::multilabel_margin_loss", multilabelMarginLoss},
      {"aten::broadcast_tensors", broadcastTensors},
      {"aten::mse_loss", regressionLoss<RegressionLossKind::MSE>},
      {"aten::l1_loss", regressionLoss<RegressionLossKind::L1>},
      {"aten::huber_loss", regressionLoss<RegressionLossKind::Huber>},
      {"aten::smooth_l1_loss", regressionLoss<RegressionLossKind::SmoothL1>},
      {"aten::kl_div", klDiv},
      {"aten::binary_cross_entropy", binaryCrossEntropy},
      {"aten::binary_cross_entropy_with_logits", binaryCrossEntropyWithLogits},
      {"aten::nll_loss_nd", nllLoss},
      {"aten::nll_loss", nllLoss},
      {"aten::nll_loss2d", nllLoss},
      {"aten::cross_entropy_loss", crossEntropyLoss},
      {"aten::hinge_embedding_loss", hingeEmbeddingLoss},
      {"aten::margin_ranking_loss", marginRankingLoss},
      {"aten::soft_margin_loss", softMarginLoss},
      {"aten::cosine_embedding_loss", cosineEmbeddingLoss},
      {"aten::poisson_nll_loss", poissonNLLLoss},
      {"aten::triplet_margin_loss", tripletMarginLoss},
      {"aten::multi_margin_loss", multiMarginLoss},
  });
}
