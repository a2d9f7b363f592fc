//===- BatchStatNorm.cpp - Batch statistics normalization builders --------===//

#include "mlprog/Import/Common/BatchStatNorm.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Reduction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

FailureOr<BatchNormTrainingResult>
mlprog::buildBatchNormTraining(OpBuilder &b, Location loc, Value x,
                               Value weight, Value bias, double epsilon) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || type.getRank() < 2 || !isa<FloatType>(type.getElementType()))
    return emitError(loc) << "batch norm needs a float tensor of rank >= 2, "
                             "got "
                          << x.getType();
  SmallVector<int64_t> axes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d != 1)
      axes.push_back(d);
  BatchNormTrainingResult r;
  FailureOr<Value> mean = buildReduce(b, loc, ReduceKind::Mean, x, axes,
                                      /*keepDims=*/false);
  FailureOr<Value> var = buildVariance(b, loc, x, axes, false, 0);
  FailureOr<Value> uvar = buildVariance(b, loc, x, axes, false, 1);
  if (failed(mean) || failed(var) || failed(uvar))
    return failure();
  r.mean = *mean;
  r.biasedVar = *var;
  r.unbiasedVar = *uvar;
  Type et = type.getElementType();
  SmallVector<OpFoldResult> c = {tensor::getMixedSize(b, loc, x, 1)};
  if (!weight)
    weight = createFilled(b, loc, c, b.getFloatAttr(et, 1.0));
  if (!bias)
    bias = createFilled(b, loc, c, b.getFloatAttr(et, 0.0));
  FailureOr<Value> y = buildBatchNormInference(b, loc, x, weight, bias, r.mean,
                                               r.biasedVar, epsilon);
  if (failed(y))
    return failure();
  r.output = *y;
  return r;
}

FailureOr<Value> mlprog::buildRunningAverage(OpBuilder &b, Location loc,
                                             Value running, Value batch,
                                             double keep) {
  Type et = getElementTypeOrSelf(running.getType());
  if (!isa<FloatType>(et) || getElementTypeOrSelf(batch.getType()) != et)
    return emitError(loc) << "running average needs float tensors of one "
                             "element type, got "
                          << running.getType() << " and " << batch.getType();
  return buildBroadcastedGeneric(
      b, loc, {running, batch}, et,
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value r =
            arith::MulFOp::create(nb, nl, a[0], createScalar(nb, nl, et, keep));
        Value t = arith::MulFOp::create(nb, nl, a[1],
                                        createScalar(nb, nl, et, 1.0 - keep));
        return arith::AddFOp::create(nb, nl, r, t);
      });
}
