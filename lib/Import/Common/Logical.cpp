//===- Logical.cpp - Comparison, logical, select and cast builders --------===//

#include "mlprog/Import/Common/Logical.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

FailureOr<Value> mlprog::buildCompare(OpBuilder &b, Location loc,
                                      CompareKind kind, Value lhs, Value rhs,
                                      bool isUnsigned) {
  auto lt = dyn_cast<RankedTensorType>(lhs.getType());
  auto rt = dyn_cast<RankedTensorType>(rhs.getType());
  if (!lt || !rt || lt.getElementType() != rt.getElementType() ||
      !lt.getElementType().isIntOrFloat())
    return emitError(loc) << "comparison needs ranked numeric tensors of one "
                             "element type, got "
                          << lhs.getType() << " and " << rhs.getType();
  bool isFloat = isa<FloatType>(lt.getElementType());
  using FP = arith::CmpFPredicate;
  using IP = arith::CmpIPredicate;
  FP fp;
  IP ip;
  switch (kind) {
  case CompareKind::Equal:
    fp = FP::OEQ, ip = IP::eq;
    break;
  case CompareKind::NotEqual:
    fp = FP::UNE, ip = IP::ne;
    break;
  case CompareKind::Less:
    fp = FP::OLT, ip = isUnsigned ? IP::ult : IP::slt;
    break;
  case CompareKind::LessEqual:
    fp = FP::OLE, ip = isUnsigned ? IP::ule : IP::sle;
    break;
  case CompareKind::Greater:
    fp = FP::OGT, ip = isUnsigned ? IP::ugt : IP::sgt;
    break;
  case CompareKind::GreaterEqual:
    fp = FP::OGE, ip = isUnsigned ? IP::uge : IP::sge;
    break;
  }
  return buildBroadcastedGeneric(
      b, loc, {lhs, rhs}, b.getI1Type(),
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        if (isFloat)
          return arith::CmpFOp::create(nb, nl, fp, a[0], a[1]);
        return arith::CmpIOp::create(nb, nl, ip, a[0], a[1]);
      });
}

static bool isBoolTensor(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getElementType().isInteger(1);
}

FailureOr<Value> mlprog::buildLogical(OpBuilder &b, Location loc,
                                      LogicalKind kind, Value lhs, Value rhs) {
  if (!isBoolTensor(lhs) || !isBoolTensor(rhs))
    return emitError(loc) << "logical op needs ranked i1 tensors, got "
                          << lhs.getType() << " and " << rhs.getType();
  return buildBroadcastedGeneric(
      b, loc, {lhs, rhs}, b.getI1Type(),
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        switch (kind) {
        case LogicalKind::And:
          return arith::AndIOp::create(nb, nl, a[0], a[1]);
        case LogicalKind::Or:
          return arith::OrIOp::create(nb, nl, a[0], a[1]);
        case LogicalKind::Xor:
          return arith::XOrIOp::create(nb, nl, a[0], a[1]);
        }
        return Value();
      });
}

FailureOr<Value> mlprog::buildLogicalNot(OpBuilder &b, Location loc, Value x) {
  if (!isBoolTensor(x))
    return emitError(loc) << "logical not needs a ranked i1 tensor, got "
                          << x.getType();
  return buildBroadcastedGeneric(
      b, loc, x, b.getI1Type(),
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value one = arith::ConstantOp::create(nb, nl, nb.getBoolAttr(true));
        return arith::XOrIOp::create(nb, nl, a[0], one);
      });
}

FailureOr<Value> mlprog::buildSelect(OpBuilder &b, Location loc, Value cond,
                                     Value a, Value bv) {
  auto at = dyn_cast<RankedTensorType>(a.getType());
  auto bt = dyn_cast<RankedTensorType>(bv.getType());
  if (!isBoolTensor(cond) || !at || !bt ||
      at.getElementType() != bt.getElementType())
    return emitError(loc) << "select needs an i1 condition and two tensors of "
                             "one element type, got "
                          << cond.getType() << ", " << a.getType() << " and "
                          << bv.getType();
  return buildBroadcastedGeneric(
      b, loc, {cond, a, bv}, at.getElementType(),
      [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        return arith::SelectOp::create(nb, nl, args[0], args[1], args[2]);
      });
}

/// Converts scalar `v` to `to`.
static Value castScalar(OpBuilder &b, Location loc, Value v, Type to,
                        bool srcUnsigned, bool dstUnsigned) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (to.isInteger(1)) {
    if (isa<FloatType>(from))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v,
                                   createScalar(b, loc, from, 0.0));
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v,
                                 createScalar(b, loc, from, 0.0));
  }
  if (from.isInteger(1))
    srcUnsigned = true;
  bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  if (fromFloat && toFloat) {
    if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, loc, to, v);
    if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
      return arith::TruncFOp::create(b, loc, to, v);
    // Same width (f16 <-> bf16): through f32.
    Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
    return arith::TruncFOp::create(b, loc, to, wide);
  }
  if (fromFloat)
    return dstUnsigned ? arith::FPToUIOp::create(b, loc, to, v).getResult()
                       : arith::FPToSIOp::create(b, loc, to, v).getResult();
  if (toFloat)
    return srcUnsigned ? arith::UIToFPOp::create(b, loc, to, v).getResult()
                       : arith::SIToFPOp::create(b, loc, to, v).getResult();
  unsigned fw = from.getIntOrFloatBitWidth(), tw = to.getIntOrFloatBitWidth();
  if (fw < tw)
    return srcUnsigned ? arith::ExtUIOp::create(b, loc, to, v).getResult()
                       : arith::ExtSIOp::create(b, loc, to, v).getResult();
  return arith::TruncIOp::create(b, loc, to, v);
}

FailureOr<Value> mlprog::buildCast(OpBuilder &b, Location loc, Value x,
                                   Type elementType, bool srcUnsigned,
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
        return castScalar(nb, nl, a[0], elementType, srcUnsigned, dstUnsigned);
      });
}
