//===- ClassicalML.cpp - Ops of classical machine learning ----------------===//

#include "mlprog/Import/Common/ClassicalML.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

FailureOr<Value> mlprog::buildBinarizer(OpBuilder &b, Location loc, Value x,
                                        double threshold) {
  Type type = elementTypeOf(x);
  if (!type || !(isa<FloatType>(type) || type.isSignlessInteger()) ||
      type.isInteger(1))
    return emitError(loc) << "Binarizer: expected a float or integer tensor, "
                          << "got " << x.getType();
  return buildBroadcastedGeneric(
      b, loc, x, type, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value t = createScalar(nb, l, type, threshold);
        Value above = isa<FloatType>(type)
                          ? Value(arith::CmpFOp::create(
                                nb, l, arith::CmpFPredicate::OGT, a[0], t))
                          : Value(arith::CmpIOp::create(
                                nb, l, arith::CmpIPredicate::sgt, a[0], t));
        return arith::SelectOp::create(nb, l, above,
                                       createScalar(nb, l, type, 1.0),
                                       createScalar(nb, l, type, 0.0));
      });
}

FailureOr<Value> mlprog::buildArrayFeatureExtractor(OpBuilder &b, Location loc,
                                                    Value x, Value indices) {
  auto xType = dyn_cast<RankedTensorType>(x.getType());
  auto iType = dyn_cast<RankedTensorType>(indices.getType());
  if (!xType || xType.getRank() == 0)
    return emitError(loc) << "ArrayFeatureExtractor: X must have rank >= 1";
  if (!iType || !iType.getElementType().isSignlessInteger())
    return emitError(loc) << "ArrayFeatureExtractor: Y must be an integer "
                             "tensor";
  Value flat = indices;
  if (iType.getRank() != 1) {
    int64_t count =
        iType.hasStaticShape() ? iType.getNumElements() : ShapedType::kDynamic;
    FailureOr<Value> reshaped = buildReshape(b, loc, indices, {count});
    if (failed(reshaped))
      return failure();
    flat = *reshaped;
  }
  FailureOr<Value> gathered = buildGather(b, loc, x, flat, xType.getRank() - 1);
  if (failed(gathered) || xType.getRank() != 1)
    return gathered;
  return buildReshape(
      b, loc, *gathered,
      {1, cast<RankedTensorType>(gathered->getType()).getDimSize(0)});
}
