//===- Convert.cpp - Element type conversion builders ---------------------===//

#include "mlprog/Import/Common/Convert.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

Value mlprog::buildConvertScalar(OpBuilder &b, Location loc, Value x, Type to,
                                 bool srcUnsigned, bool dstUnsigned) {
  Type from = x.getType();
  if (from == to)
    return x;
  auto fromF = dyn_cast<FloatType>(from), toF = dyn_cast<FloatType>(to);
  auto fromI = dyn_cast<IntegerType>(from), toI = dyn_cast<IntegerType>(to);
  if ((!fromF && !fromI) || (!toF && !toI))
    return Value();
  if (toI && toI.getWidth() == 1) {
    Value zero = createScalar(b, loc, from, 0.0);
    if (fromF)
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, x, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero);
  }
  bool isUnsigned = srcUnsigned || (fromI && fromI.getWidth() == 1);
  if (fromF && toF) {
    if (fromF.getWidth() < toF.getWidth())
      return arith::ExtFOp::create(b, loc, to, x);
    if (fromF.getWidth() > toF.getWidth())
      return arith::TruncFOp::create(b, loc, to, x);
    // Same width (f16 <-> bf16): through f32.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
    return arith::TruncFOp::create(b, loc, to, wide);
  }
  if (fromI && toF)
    return isUnsigned ? arith::UIToFPOp::create(b, loc, to, x).getResult()
                      : arith::SIToFPOp::create(b, loc, to, x).getResult();
  if (fromF && toI)
    return dstUnsigned ? arith::FPToUIOp::create(b, loc, to, x).getResult()
                       : arith::FPToSIOp::create(b, loc, to, x).getResult();
  if (fromI.getWidth() < toI.getWidth())
    return isUnsigned ? arith::ExtUIOp::create(b, loc, to, x).getResult()
                      : arith::ExtSIOp::create(b, loc, to, x).getResult();
  return arith::TruncIOp::create(b, loc, to, x);
}

FailureOr<Value> mlprog::buildConvertElementType(OpBuilder &b, Location loc,
                                                 Value x, Type elementType,
                                                 bool srcUnsigned,
                                                 bool dstUnsigned) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "cast");
  if (failed(type))
    return failure();
  Type from = type->getElementType();
  auto isNumber = [](Type t) {
    return isa<FloatType>(t) || t.isSignlessInteger();
  };
  if (!isNumber(from) || !isNumber(elementType))
    return emitError(loc) << "unsupported cast from " << from << " to "
                          << elementType;
  if (from == elementType)
    return x;
  return buildBroadcastedGeneric(
      b, loc, x, elementType, [&](OpBuilder &nb, Location nl, ValueRange a) {
        return buildConvertScalar(nb, nl, a[0], elementType, srcUnsigned,
                                  dstUnsigned);
      });
}

FailureOr<Value> mlprog::buildTruncateToBF16(OpBuilder &b, Location loc,
                                             Value x) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "cast");
  if (failed(type))
    return failure();
  auto from = dyn_cast<FloatType>(type->getElementType());
  if (!from)
    return emitError(loc) << "unsupported truncation of " << x.getType()
                          << " to bf16 (float tensors only)";
  Type bf16 = b.getBF16Type();
  if (from == bf16)
    return x;
  return buildBroadcastedGeneric(
      b, loc, x, bf16, [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value f = a[0];
        if (!f.getType().isF32())
          f = buildConvertScalar(nb, nl, f, nb.getF32Type());
        Value bits = arith::BitcastOp::create(nb, nl, nb.getI32Type(), f);
        Value high = arith::ShRUIOp::create(
            nb, nl, bits,
            arith::ConstantOp::create(nb, nl, nb.getI32IntegerAttr(16)));
        Value half = arith::TruncIOp::create(nb, nl, nb.getI16Type(), high);
        // Dropping the low bits of a NaN may leave an infinity: keep the
        // quiet bit set.
        Value quiet = arith::OrIOp::create(
            nb, nl, half,
            arith::ConstantOp::create(nb, nl, nb.getI16IntegerAttr(0x40)));
        Value isNaN =
            arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::UNO, f, f);
        Value r = arith::SelectOp::create(nb, nl, isNaN, quiet, half);
        return arith::BitcastOp::create(nb, nl, nb.getBF16Type(), r);
      });
}
