//===- Loss.cpp - Loss functions ------------------------------------------===//

#include "mlprog/Import/Common/Loss.h"
#include "Utils.h"
#include "mlprog/Import/Common/Creation.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Logic.h"
#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

namespace {

/// Elementwise formula steps on tensors of float type `et`: each returns
/// null once an operand is null or a builder failed (the builder emitted
/// the error), so a formula is checked once at its end.
struct Formula {
  OpBuilder &b;
  Location loc;
  Type et;

  Value c(double v) { return createFilled(b, loc, {}, b.getFloatAttr(et, v)); }
  Value bin(BinaryOpKind k, Value x, Value y) {
    return x && y ? binaryOrNull(b, loc, k, x, y) : Value();
  }
  Value add(Value x, Value y) { return bin(BinaryOpKind::Add, x, y); }
  Value sub(Value x, Value y) { return bin(BinaryOpKind::Sub, x, y); }
  Value mul(Value x, Value y) { return bin(BinaryOpKind::Mul, x, y); }
  Value div(Value x, Value y) { return bin(BinaryOpKind::Div, x, y); }
  Value max(Value x, Value y) { return bin(BinaryOpKind::Max, x, y); }
  Value min(Value x, Value y) { return bin(BinaryOpKind::Min, x, y); }
  Value un(UnaryOpKind k, Value x) {
    return x ? unaryOrNull(b, loc, k, x) : Value();
  }
  Value pw(PointwiseKind k, Value x) {
    if (!x)
      return {};
    FailureOr<Value> r = buildPointwise(b, loc, k, x);
    return failed(r) ? Value() : *r;
  }
  Value cmp(CompareKind k, Value x, Value y) {
    if (!x || !y)
      return {};
    FailureOr<Value> r = buildCompare(b, loc, k, x, y);
    return failed(r) ? Value() : *r;
  }
  Value select(Value cond, Value x, Value y) {
    if (!cond || !x || !y)
      return {};
    FailureOr<Value> r = buildSelect(b, loc, cond, x, y);
    return failed(r) ? Value() : *r;
  }
  Value sum(Value x, ArrayRef<int64_t> axes, bool keepDims = false) {
    if (!x)
      return {};
    FailureOr<Value> r =
        buildReduce(b, loc, ReduceKind::Sum, x, axes, keepDims);
    return failed(r) ? Value() : *r;
  }
  FailureOr<Value> done(Value v) {
    if (!v)
      return failure();
    return v;
  }
};

/// The float element type shared by `values` (null entries skipped), or an
/// error naming `what`.
FailureOr<Type> lossElementType(Location loc, ValueRange values,
                                StringRef what) {
  Type et;
  for (Value v : values) {
    if (!v)
      continue;
    Type t = elementTypeOf(v);
    if (!t || !isa<FloatType>(t) || (et && t != et))
      return emitError(loc)
             << what << " needs float tensors of one element type, got "
             << v.getType();
    et = t;
  }
  return et;
}

/// The loss reduced, or failure when `loss` is null.
FailureOr<Value> reduced(OpBuilder &b, Location loc, Value loss,
                         LossReduction reduction) {
  if (!loss)
    return failure();
  return buildLossReduction(b, loc, loss, reduction);
}

} // namespace

FailureOr<Value> mlprog::buildLossReduction(OpBuilder &b, Location loc,
                                            Value loss,
                                            LossReduction reduction) {
  if (failed(lossElementType(loc, loss, "loss reduction")))
    return failure();
  switch (reduction) {
  case LossReduction::None:
    return loss;
  case LossReduction::Mean:
    return buildReduce(b, loc, ReduceKind::Mean, loss, {}, false);
  case LossReduction::Sum:
    return buildReduce(b, loc, ReduceKind::Sum, loss, {}, false);
  }
  return emitError(loc) << "unknown loss reduction";
}

FailureOr<Value> mlprog::buildRegressionLoss(OpBuilder &b, Location loc,
                                             RegressionLossKind kind,
                                             Value input, Value target,
                                             double param,
                                             LossReduction reduction) {
  FailureOr<Type> et = lossElementType(loc, {input, target}, "regression loss");
  if (failed(et))
    return failure();
  Formula f{b, loc, *et};
  Value d = f.sub(input, target);
  Value a = f.un(UnaryOpKind::Abs, d);
  Value loss;
  switch (kind) {
  case RegressionLossKind::MSE:
    loss = f.mul(d, d);
    break;
  case RegressionLossKind::L1:
    loss = a;
    break;
  case RegressionLossKind::Huber:
    loss = f.select(f.cmp(CompareKind::Less, a, f.c(param)),
                    f.mul(f.mul(d, d), f.c(0.5)),
                    f.mul(f.c(param), f.sub(a, f.c(0.5 * param))));
    break;
  case RegressionLossKind::SmoothL1:
    loss = param == 0.0
               ? a
               : f.select(f.cmp(CompareKind::Less, a, f.c(param)),
                          f.div(f.mul(f.mul(d, d), f.c(0.5)), f.c(param)),
                          f.sub(a, f.c(0.5 * param)));
    break;
  }
  return reduced(b, loc, loss, reduction);
}

FailureOr<Value> mlprog::buildKLDivLoss(OpBuilder &b, Location loc, Value input,
                                        Value target, bool logTarget,
                                        LossReduction reduction) {
  FailureOr<Type> et = lossElementType(loc, {input, target}, "kl_div");
  if (failed(et))
    return failure();
  Formula f{b, loc, *et};
  Value loss;
  if (logTarget) {
    loss = f.mul(f.un(UnaryOpKind::Exp, target), f.sub(target, input));
  } else {
    Value xlogx =
        f.select(f.cmp(CompareKind::Equal, target, f.c(0.0)), f.c(0.0),
                 f.mul(target, f.un(UnaryOpKind::Log, target)));
    loss = f.sub(xlogx, f.mul(target, input));
  }
  return reduced(b, loc, loss, reduction);
}

FailureOr<Value> mlprog::buildBinaryCrossEntropy(OpBuilder &b, Location loc,
                                                 Value input, Value target,
                                                 Value weight,
                                                 LossReduction reduction) {
  FailureOr<Type> et =
      lossElementType(loc, {input, target, weight}, "binary_cross_entropy");
  if (failed(et))
    return failure();
  Formula f{b, loc, *et};
  Value low = f.c(-100.0);
  Value logNot =
      f.max(f.pw(PointwiseKind::Log1p, f.un(UnaryOpKind::Neg, input)), low);
  Value logIn = f.max(f.un(UnaryOpKind::Log, input), low);
  Value loss =
      f.sub(f.mul(f.sub(target, f.c(1.0)), logNot), f.mul(target, logIn));
  if (weight)
    loss = f.mul(loss, weight);
  return reduced(b, loc, loss, reduction);
}

FailureOr<Value> mlprog::buildBinaryCrossEntropyWithLogits(
    OpBuilder &b, Location loc, Value input, Value target, Value weight,
    Value posWeight, LossReduction reduction) {
  FailureOr<Type> et = lossElementType(loc, {input, target, weight, posWeight},
                                       "binary_cross_entropy_with_logits");
  if (failed(et))
    return failure();
  Formula f{b, loc, *et};
  Value logSigmoid =
      f.sub(f.min(input, f.c(0.0)),
            f.pw(PointwiseKind::Log1p,
                 f.un(UnaryOpKind::Exp,
                      f.un(UnaryOpKind::Neg, f.un(UnaryOpKind::Abs, input)))));
  if (posWeight)
    logSigmoid = f.mul(
        logSigmoid, f.add(f.mul(f.sub(posWeight, f.c(1.0)), target), f.c(1.0)));
  Value loss = f.sub(f.mul(f.sub(f.c(1.0), target), input), logSigmoid);
  if (weight)
    loss = f.mul(loss, weight);
  return reduced(b, loc, loss, reduction);
}

namespace {
/// Per-element NLL terms: -weight[t] * input[t] and weight[t] (0 where the
/// target is ignored), over input's dims but the class dim 1.
struct NLLTerms {
  Value loss, weight;
};
} // namespace

/// The NLL terms of `input` [N, C, D...] and `target` [N, D...] (i64).
static FailureOr<NLLTerms> nllTerms(OpBuilder &b, Location loc, Value input,
                                    Value target, Value weight,
                                    int64_t ignoreIndex) {
  auto type = cast<RankedTensorType>(input.getType());
  Type et = type.getElementType();
  int64_t rank = type.getRank();
  if (cast<RankedTensorType>(target.getType()).getRank() != rank - 1)
    return emitError(loc) << "nll_loss: target " << target.getType()
                          << " does not match input " << input.getType();
  SmallVector<OpFoldResult> inSizes = tensor::getMixedSizes(b, loc, input);
  if (!weight)
    weight = createFilled(b, loc, {inSizes[1]}, b.getFloatAttr(et, 1.0));
  SmallVector<OpFoldResult> outSizes(inSizes);
  outSizes.erase(outSizes.begin() + 1);
  Value zeros = createFilled(b, loc, outSizes, b.getZeroAttr(et));
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> kept;
  for (int64_t d = 0; d < rank; ++d)
    if (d != 1)
      kept.push_back(getAffineDimExpr(d, ctx));
  AffineMap keptMap = AffineMap::get(rank, 0, kept, ctx);
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(rank, ctx), keptMap,
      AffineMap::get(rank, 0, {getAffineDimExpr(1, ctx)}, ctx), keptMap,
      keptMap};
  SmallVector<utils::IteratorType> iters = parallelIterators(rank);
  iters[1] = utils::IteratorType::reduction;
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{zeros.getType(), zeros.getType()},
      ValueRange{input, target, weight}, ValueRange{zeros, zeros}, maps, iters,
      [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value c = arith::IndexCastOp::create(
            nb, nl, nb.getI64Type(), linalg::IndexOp::create(nb, nl, 1));
        Value t = a[1];
        Value hit = arith::AndIOp::create(
            nb, nl,
            arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, t, c),
            arith::CmpIOp::create(
                nb, nl, arith::CmpIPredicate::ne, t,
                arith::ConstantOp::create(nb, nl,
                                          nb.getI64IntegerAttr(ignoreIndex))));
        Value zero = arith::ConstantOp::create(nb, nl, nb.getZeroAttr(et));
        Value term = arith::NegFOp::create(
            nb, nl, arith::MulFOp::create(nb, nl, a[2], a[0]));
        Value l = arith::AddFOp::create(
            nb, nl, a[3], arith::SelectOp::create(nb, nl, hit, term, zero));
        Value w = arith::AddFOp::create(
            nb, nl, a[4], arith::SelectOp::create(nb, nl, hit, a[2], zero));
        linalg::YieldOp::create(nb, nl, ValueRange{l, w});
      });
  return NLLTerms{generic.getResult(0), generic.getResult(1)};
}

/// Checks and reshapes the NLL operands: a 1-D input [C] becomes [1, C]
/// and its 0-d target [1]; the target becomes i64. `unbatched` is set.
static LogicalResult nllOperands(OpBuilder &b, Location loc, Value &input,
                                 Value &target, Value weight, bool &unbatched) {
  auto it = dyn_cast<RankedTensorType>(input.getType());
  auto tt = dyn_cast<RankedTensorType>(target.getType());
  if (!it || !isa<FloatType>(it.getElementType()) || it.getRank() < 1 || !tt ||
      !isa<IntegerType>(tt.getElementType()) ||
      tt.getElementType().isInteger(1))
    return emitError(loc) << "nll_loss needs a float input and integer "
                             "targets, got "
                          << input.getType() << " and " << target.getType();
  if (weight && elementTypeOf(weight) != it.getElementType())
    return emitError(loc) << "nll_loss: weight " << weight.getType()
                          << " does not match input " << input.getType();
  FailureOr<Value> t64 =
      buildConvertElementType(b, loc, target, b.getI64Type());
  if (failed(t64))
    return failure();
  target = *t64;
  unbatched = it.getRank() == 1;
  if (unbatched) {
    // One sample: the target holds one class index ([] or [1]).
    FailureOr<Value> t1 = buildReshape(b, loc, target, {1});
    if (failed(t1))
      return failure();
    input = insertUnitDim(b, loc, input, 0);
    target = *t1;
  }
  return success();
}

/// Reduces NLL-style terms: None keeps the per-element losses (dropping
/// the batch dim of an unbatched input), Sum sums them, Mean divides the
/// sum by the summed weights.
static FailureOr<Value> reduceByWeight(OpBuilder &b, Location loc, Value loss,
                                       Value weights, LossReduction reduction,
                                       bool unbatched) {
  Formula f{b, loc, elementTypeOf(loss)};
  switch (reduction) {
  case LossReduction::None:
    return unbatched ? dropUnitDim(b, loc, loss, 0) : loss;
  case LossReduction::Sum:
    return f.done(f.sum(loss, {}));
  case LossReduction::Mean:
    return f.done(f.div(f.sum(loss, {}), f.sum(weights, {})));
  }
  return failure();
}

FailureOr<Value> mlprog::buildNLLLoss(OpBuilder &b, Location loc, Value input,
                                      Value target, Value weight,
                                      LossReduction reduction,
                                      int64_t ignoreIndex) {
  bool unbatched = false;
  if (failed(nllOperands(b, loc, input, target, weight, unbatched)))
    return failure();
  FailureOr<NLLTerms> t = nllTerms(b, loc, input, target, weight, ignoreIndex);
  if (failed(t))
    return failure();
  return reduceByWeight(b, loc, t->loss, t->weight, reduction, unbatched);
}

/// `weight` [C] reshaped to broadcast along dim 1 of a rank-`rank` tensor.
static Value classWeight(OpBuilder &b, Location loc, Value weight,
                         int64_t rank) {
  Value w = weight;
  for (int64_t d = 2; d < rank; ++d)
    w = insertUnitDim(b, loc, w, cast<RankedTensorType>(w.getType()).getRank());
  return w;
}

FailureOr<Value> mlprog::buildCrossEntropyLoss(
    OpBuilder &b, Location loc, Value input, Value target, Value weight,
    LossReduction reduction, int64_t ignoreIndex, double labelSmoothing) {
  FailureOr<Type> et = lossElementType(loc, {input, weight}, "cross_entropy");
  if (failed(et))
    return failure();
  auto it = cast<RankedTensorType>(input.getType());
  if (it.getRank() < 1)
    return emitError(loc) << "cross_entropy needs an input of rank >= 1";
  int64_t classDim = it.getRank() == 1 ? 0 : 1;
  int64_t numClasses = it.getDimSize(classDim);
  if (ShapedType::isDynamic(numClasses) && labelSmoothing != 0.0)
    return emitError(loc) << "unsupported cross_entropy label smoothing with "
                             "a dynamic class count";
  FailureOr<Value> logp = buildLogSoftmax(b, loc, input, {classDim});
  if (failed(logp))
    return failure();
  Formula f{b, loc, *et};
  double s = labelSmoothing, perClass = s / double(numClasses);
  if (isa<FloatType>(elementTypeOf(target))) {
    // Class probabilities.
    Value t = target;
    if (s > 0)
      t = f.add(f.mul(t, f.c(1.0 - s)), f.c(perClass));
    Value prod = f.mul(*logp, t);
    if (weight)
      prod = f.mul(prod, classWeight(b, loc, weight, it.getRank()));
    Value neg = f.un(UnaryOpKind::Neg, prod);
    switch (reduction) {
    case LossReduction::None:
      return f.done(f.sum(neg, {classDim}));
    case LossReduction::Sum:
      return f.done(f.sum(neg, {}));
    case LossReduction::Mean: {
      Value total = f.sum(neg, {});
      if (!it.hasStaticShape())
        return emitError(loc) << "unsupported cross_entropy mean over "
                                 "probabilities of a dynamic shape";
      return f.done(
          f.div(total, f.c(double(it.getNumElements()) / double(numClasses))));
    }
    }
    return failure();
  }
  Value x = *logp, t = target;
  bool unbatched = false;
  if (failed(nllOperands(b, loc, x, t, weight, unbatched)))
    return failure();
  FailureOr<NLLTerms> terms = nllTerms(b, loc, x, t, weight, ignoreIndex);
  if (failed(terms))
    return failure();
  FailureOr<Value> nll =
      reduceByWeight(b, loc, terms->loss, terms->weight, reduction, unbatched);
  if (failed(nll) || s == 0.0)
    return nll;
  // Smoothing: -sum over the classes of log p (weighted), 0 where ignored.
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  Value weighted = weight ? f.mul(x, classWeight(b, loc, weight, rank)) : x;
  Value smooth = f.un(UnaryOpKind::Neg, f.sum(weighted, {1}));
  FailureOr<Value> ignored =
      buildCompare(b, loc, CompareKind::Equal, t,
                   createFilled(b, loc, {}, b.getI64IntegerAttr(ignoreIndex)));
  if (failed(ignored))
    return failure();
  smooth = f.select(*ignored, f.c(0.0), smooth);
  if (!smooth)
    return failure();
  FailureOr<Value> sm =
      reduceByWeight(b, loc, smooth, terms->weight, reduction, unbatched);
  if (failed(sm))
    return failure();
  return f.done(f.add(f.mul(*nll, f.c(1.0 - s)), f.mul(*sm, f.c(perClass))));
}

FailureOr<Value> mlprog::buildHingeEmbeddingLoss(OpBuilder &b, Location loc,
                                                 Value input, Value target,
                                                 double margin,
                                                 LossReduction reduction) {
  FailureOr<Type> et =
      lossElementType(loc, {input, target}, "hinge_embedding_loss");
  if (failed(et))
    return failure();
  Formula f{b, loc, *et};
  Value zero = f.c(0.0);
  Value clamped = f.max(f.sub(f.c(margin), input), zero);
  Value loss = f.add(
      f.select(f.cmp(CompareKind::NotEqual, target, f.c(1.0)), clamped, zero),
      f.select(f.cmp(CompareKind::NotEqual, target, f.c(-1.0)), input, zero));
  return reduced(b, loc, loss, reduction);
}

FailureOr<Value> mlprog::buildMarginRankingLoss(OpBuilder &b, Location loc,
                                                Value input1, Value input2,
                                                Value target, double margin,
                                                LossReduction reduction) {
  FailureOr<Type> et =
      lossElementType(loc, {input1, input2, target}, "margin_ranking_loss");
  if (failed(et))
    return failure();
  Formula f{b, loc, *et};
  Value loss =
      f.max(f.add(f.mul(f.un(UnaryOpKind::Neg, target), f.sub(input1, input2)),
                  f.c(margin)),
            f.c(0.0));
  return reduced(b, loc, loss, reduction);
}

FailureOr<Value> mlprog::buildSoftMarginLoss(OpBuilder &b, Location loc,
                                             Value input, Value target,
                                             LossReduction reduction) {
  FailureOr<Type> et =
      lossElementType(loc, {input, target}, "soft_margin_loss");
  if (failed(et))
    return failure();
  Formula f{b, loc, *et};
  Value loss = f.pw(
      PointwiseKind::Log1p,
      f.un(UnaryOpKind::Exp, f.mul(f.un(UnaryOpKind::Neg, input), target)));
  return reduced(b, loc, loss, reduction);
}

FailureOr<Value> mlprog::buildCosineEmbeddingLoss(OpBuilder &b, Location loc,
                                                  Value input1, Value input2,
                                                  Value target, double margin,
                                                  LossReduction reduction) {
  FailureOr<Type> et =
      lossElementType(loc, {input1, input2, target}, "cosine_embedding_loss");
  if (failed(et))
    return failure();
  Formula f{b, loc, *et};
  Value prod = f.sum(f.mul(input1, input2), {-1});
  Value m1 = f.add(f.sum(f.mul(input1, input1), {-1}), f.c(1e-12));
  Value m2 = f.add(f.sum(f.mul(input2, input2), {-1}), f.c(1e-12));
  Value cos = f.div(prod, f.un(UnaryOpKind::Sqrt, f.mul(m1, m2)));
  Value zero = f.c(0.0);
  Value loss = f.add(f.select(f.cmp(CompareKind::Equal, target, f.c(1.0)),
                              f.sub(f.c(1.0), cos), zero),
                     f.select(f.cmp(CompareKind::Equal, target, f.c(-1.0)),
                              f.max(f.sub(cos, f.c(margin)), zero), zero));
  return reduced(b, loc, loss, reduction);
}

FailureOr<Value> mlprog::buildPoissonNLLLoss(OpBuilder &b, Location loc,
                                             Value input, Value target,
                                             bool logInput, bool full,
                                             double eps,
                                             LossReduction reduction) {
  FailureOr<Type> et =
      lossElementType(loc, {input, target}, "poisson_nll_loss");
  if (failed(et))
    return failure();
  Formula f{b, loc, *et};
  Value loss = logInput
                   ? f.sub(f.un(UnaryOpKind::Exp, input), f.mul(target, input))
                   : f.sub(input, f.mul(target, f.un(UnaryOpKind::Log,
                                                     f.add(input, f.c(eps)))));
  if (full) {
    Value stirling =
        f.add(f.sub(f.mul(target, f.un(UnaryOpKind::Log, target)), target),
              f.mul(f.c(0.5),
                    f.un(UnaryOpKind::Log, f.mul(f.c(2.0 * M_PI), target))));
    loss = f.add(loss, f.select(f.cmp(CompareKind::LessEqual, target, f.c(1.0)),
                                f.c(0.0), stirling));
  }
  return reduced(b, loc, loss, reduction);
}

FailureOr<Value> mlprog::buildTripletMarginLoss(OpBuilder &b, Location loc,
                                                Value anchor, Value positive,
                                                Value negative, double margin,
                                                double p, double eps, bool swap,
                                                LossReduction reduction) {
  FailureOr<Type> et =
      lossElementType(loc, {anchor, positive, negative}, "triplet_margin_loss");
  if (failed(et))
    return failure();
  Formula f{b, loc, *et};
  auto dist = [&](Value x, Value y) -> Value {
    FailureOr<Value> d =
        buildPairwiseDistance(b, loc, x, y, p, eps, /*keepDims=*/false);
    return failed(d) ? Value() : *d;
  };
  Value dPos = dist(anchor, positive), dNeg = dist(anchor, negative);
  if (swap)
    dNeg = f.min(dNeg, dist(positive, negative));
  Value loss = f.max(f.sub(f.add(f.c(margin), dPos), dNeg), f.c(0.0));
  return reduced(b, loc, loss, reduction);
}

FailureOr<Value> mlprog::buildMultiMarginLoss(OpBuilder &b, Location loc,
                                              Value input, Value target,
                                              int64_t p, double margin,
                                              Value weight,
                                              LossReduction reduction) {
  FailureOr<Type> et =
      lossElementType(loc, {input, weight}, "multi_margin_loss");
  if (failed(et))
    return failure();
  if (p != 1 && p != 2)
    return emitError(loc) << "multi_margin_loss: p must be 1 or 2, got " << p;
  // A 0-d input is one sample of one class.
  if (cast<RankedTensorType>(input.getType()).getRank() == 0)
    input = insertUnitDim(b, loc, input, 0);
  bool unbatched = false;
  if (failed(nllOperands(b, loc, input, target, weight, unbatched)))
    return failure();
  auto it = cast<RankedTensorType>(input.getType());
  if (it.getRank() != 2 || it.isDynamicDim(1))
    return emitError(loc) << "multi_margin_loss needs an input [N, C] or [C] "
                             "with a static C, got "
                          << it;
  int64_t numClasses = it.getDimSize(1);
  Formula f{b, loc, *et};
  Value t2 = insertUnitDim(b, loc, target, 1); // [N, 1]
  FailureOr<Value> picked = buildGatherAlongAxis(b, loc, input, t2, 1);
  FailureOr<Value> classes =
      buildArange(b, loc, 0, double(numClasses), 1, b.getI64Type());
  if (failed(picked) || failed(classes))
    return failure();
  Value z = f.max(f.add(f.sub(f.c(margin), *picked), input), f.c(0.0));
  if (p == 2)
    z = f.mul(z, z);
  if (weight) {
    FailureOr<Value> w = buildGather(b, loc, weight, t2, 0); // [N, 1]
    if (failed(w))
      return failure();
    z = f.mul(z, *w);
  }
  z = f.select(f.cmp(CompareKind::Equal, *classes, t2), f.c(0.0), z);
  Value loss = f.div(f.sum(z, {1}), f.c(double(numClasses)));
  if (!loss)
    return failure();
  if (unbatched && reduction == LossReduction::None)
    loss = dropUnitDim(b, loc, loss, 0);
  return reduced(b, loc, loss, reduction);
}

FailureOr<Value> mlprog::buildMultiLabelMarginLoss(OpBuilder &b, Location loc,
                                                   Value x, Value target,
                                                   LossReduction reduction) {
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  auto tt = dyn_cast<RankedTensorType>(target.getType());
  if (!xt || !tt || !isa<FloatType>(xt.getElementType()) ||
      xt.getShape() != tt.getShape() || xt.getRank() > 2 ||
      !xt.hasStaticShape() || !tt.getElementType().isSignlessInteger())
    return emitError(loc) << "multilabel_margin_loss: expected a float input "
                             "of rank <= 2 and an integer target of its "
                             "static shape, got "
                          << x.getType() << " and " << target.getType();
  int64_t rank = xt.getRank();
  int64_t c = rank ? xt.getShape().back() : 1;
  int64_t rows = rank == 2 ? xt.getDimSize(0) : 1;
  FailureOr<Value> x2 = buildReshape(b, loc, x, {rows, c});
  FailureOr<Value> t64 =
      buildConvertElementType(b, loc, target, b.getI64Type());
  if (failed(x2) || failed(t64))
    return failure();
  FailureOr<Value> t2 = buildReshape(b, loc, *t64, {rows, c});
  if (failed(t2))
    return failure();
  Type et = xt.getElementType();
  MLIRContext *ctx = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  auto iters = [](ArrayRef<bool> red) {
    SmallVector<utils::IteratorType> it;
    for (bool r : red)
      it.push_back(r ? utils::IteratorType::reduction
                     : utils::IteratorType::parallel);
    return it;
  };
  // count[n]: the listed targets, up to the first negative entry.
  Value counts =
      createFilled(b, loc, {b.getIndexAttr(rows)}, b.getI64IntegerAttr(c));
  counts =
      linalg::GenericOp::create(
          b, loc, counts.getType(), *t2, counts,
          SmallVector<AffineMap>{AffineMap::get(2, 0, {d(0), d(1)}, ctx),
                                 AffineMap::get(2, 0, {d(0)}, ctx)},
          iters({false, true}),
          [&](OpBuilder &nb, Location nl, ValueRange a) {
            Value k = arith::IndexCastOp::create(
                nb, nl, nb.getI64Type(), linalg::IndexOp::create(nb, nl, 1));
            Value neg = arith::CmpIOp::create(
                nb, nl, arith::CmpIPredicate::slt, a[0],
                arith::ConstantOp::create(nb, nl, nb.getI64IntegerAttr(0)));
            Value here = arith::SelectOp::create(
                nb, nl, neg, k,
                arith::ConstantOp::create(nb, nl, nb.getI64IntegerAttr(c)));
            linalg::YieldOp::create(
                nb, nl, arith::MinSIOp::create(nb, nl, a[1], here).getResult());
          })
          .getResult(0);
  // listed[n, i]: class i is among the listed targets of row n.
  Value listed = createFilled(b, loc, {b.getIndexAttr(rows), b.getIndexAttr(c)},
                              b.getBoolAttr(false));
  listed =
      linalg::GenericOp::create(
          b, loc, listed.getType(), ValueRange{*t2, counts}, listed,
          SmallVector<AffineMap>{AffineMap::get(3, 0, {d(0), d(2)}, ctx),
                                 AffineMap::get(3, 0, {d(0)}, ctx),
                                 AffineMap::get(3, 0, {d(0), d(1)}, ctx)},
          iters({false, false, true}),
          [&](OpBuilder &nb, Location nl, ValueRange a) {
            Value i = arith::IndexCastOp::create(
                nb, nl, nb.getI64Type(), linalg::IndexOp::create(nb, nl, 1));
            Value k = arith::IndexCastOp::create(
                nb, nl, nb.getI64Type(), linalg::IndexOp::create(nb, nl, 2));
            Value valid = arith::CmpIOp::create(
                nb, nl, arith::CmpIPredicate::slt, k, a[1]);
            Value eq = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq,
                                             a[0], i);
            linalg::YieldOp::create(
                nb, nl,
                arith::OrIOp::create(nb, nl, a[2],
                                     arith::AndIOp::create(nb, nl, valid, eq))
                    .getResult());
          })
          .getResult(0);
  // loss[n] = sum_{k < count, i unlisted} max(0, 1 - x[t[k]] + x[i]) / C.
  Value zeros =
      createFilled(b, loc, {b.getIndexAttr(rows)}, b.getFloatAttr(et, 0));
  Value loss =
      linalg::GenericOp::create(
          b, loc, zeros.getType(), ValueRange{*t2, counts, listed, *x2}, zeros,
          SmallVector<AffineMap>{AffineMap::get(3, 0, {d(0), d(1)}, ctx),
                                 AffineMap::get(3, 0, {d(0)}, ctx),
                                 AffineMap::get(3, 0, {d(0), d(2)}, ctx),
                                 AffineMap::get(3, 0, {d(0), d(2)}, ctx),
                                 AffineMap::get(3, 0, {d(0)}, ctx)},
          iters({false, true, true}),
          [&](OpBuilder &nb, Location nl, ValueRange a) {
            IndexMath m{nb, nl};
            Value k = arith::IndexCastOp::create(
                nb, nl, nb.getI64Type(), linalg::IndexOp::create(nb, nl, 1));
            Value valid = arith::CmpIOp::create(
                nb, nl, arith::CmpIPredicate::slt, k, a[1]);
            Value j = m.clamp(m.index(a[0]), m.c(0), m.c(c - 1));
            Value xj = tensor::ExtractOp::create(
                nb, nl, *x2, ValueRange{linalg::IndexOp::create(nb, nl, 0), j});
            Value z = arith::AddFOp::create(
                nb, nl,
                arith::SubFOp::create(nb, nl, createScalar(nb, nl, et, 1), xj),
                a[3]);
            Value use = arith::AndIOp::create(
                nb, nl, valid,
                arith::XOrIOp::create(
                    nb, nl, a[2],
                    arith::ConstantOp::create(nb, nl, nb.getBoolAttr(true))));
            Value pos = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OGT,
                                              z, createScalar(nb, nl, et, 0));
            use = arith::AndIOp::create(nb, nl, use, pos);
            Value add = arith::SelectOp::create(nb, nl, use, z,
                                                createScalar(nb, nl, et, 0));
            linalg::YieldOp::create(
                nb, nl, arith::AddFOp::create(nb, nl, a[4], add).getResult());
          })
          .getResult(0);
  Value cDiv = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(RankedTensorType::get({}, et),
                             b.getFloatAttr(et, double(c))));
  Value per = binaryOrNull(b, loc, BinaryOpKind::Div, loss, cDiv);
  if (!per)
    return failure();
  if (rank < 2) {
    FailureOr<Value> s = buildReshape(b, loc, per, {});
    if (failed(s))
      return failure();
    per = *s;
  }
  return buildLossReduction(b, loc, per, reduction);
}
