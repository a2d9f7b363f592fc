//===- Logic.cpp - Comparisons, boolean logic and select ------------------===//

#include "mlprog/Import/Common/Logic.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Strings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

Value mlprog::buildScalarCompare(OpBuilder &b, Location loc, CompareKind kind,
                                 Value lhs, Value rhs, bool isUnsigned) {
  using FP = arith::CmpFPredicate;
  using IP = arith::CmpIPredicate;
  // Booleans order false < true: signed i1 would read true as -1.
  bool u = isUnsigned || lhs.getType().isInteger(1);
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
    fp = FP::OLT, ip = u ? IP::ult : IP::slt;
    break;
  case CompareKind::LessEqual:
    fp = FP::OLE, ip = u ? IP::ule : IP::sle;
    break;
  case CompareKind::Greater:
    fp = FP::OGT, ip = u ? IP::ugt : IP::sgt;
    break;
  case CompareKind::GreaterEqual:
    fp = FP::OGE, ip = u ? IP::uge : IP::sge;
    break;
  }
  if (isa<FloatType>(lhs.getType()))
    return arith::CmpFOp::create(b, loc, fp, lhs, rhs);
  return arith::CmpIOp::create(b, loc, ip, lhs, rhs);
}

FailureOr<Value> mlprog::buildCompare(OpBuilder &b, Location loc,
                                      CompareKind kind, Value lhs, Value rhs,
                                      bool isUnsigned) {
  auto lt = dyn_cast<RankedTensorType>(lhs.getType());
  auto rt = dyn_cast<RankedTensorType>(rhs.getType());
  if (lt && rt && isStringType(lt) && isStringType(rt) &&
      (kind == CompareKind::Equal || kind == CompareKind::NotEqual))
    return buildStringEqual(b, loc, lhs, rhs, kind == CompareKind::NotEqual);
  if (!lt || !rt || lt.getElementType() != rt.getElementType() ||
      !lt.getElementType().isIntOrFloat())
    return emitError(loc) << "comparison needs ranked numeric tensors of one "
                             "element type, got "
                          << lhs.getType() << " and " << rhs.getType();
  return buildBroadcastedGeneric(b, loc, {lhs, rhs}, b.getI1Type(),
                                 [&](OpBuilder &nb, Location nl, ValueRange a) {
                                   return buildScalarCompare(nb, nl, kind, a[0],
                                                             a[1], isUnsigned);
                                 });
}

static bool isBoolTensor(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getElementType().isInteger(1);
}

/// `lhs <kind> rhs` elementwise with broadcasting, on operands of element
/// type `et` (i1: logical, wider integers: bitwise).
static FailureOr<Value> logicGeneric(OpBuilder &b, Location loc,
                                     LogicalKind kind, Value lhs, Value rhs,
                                     Type et) {
  return buildBroadcastedGeneric(
      b, loc, {lhs, rhs}, et,
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

/// `x` xor all-ones (logical or bitwise not).
static FailureOr<Value> notGeneric(OpBuilder &b, Location loc, Value x,
                                   Type et) {
  return buildBroadcastedGeneric(
      b, loc, x, et, [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value ones = arith::ConstantOp::create(
            nb, nl,
            nb.getIntegerAttr(et,
                              APInt::getAllOnes(et.getIntOrFloatBitWidth())));
        return arith::XOrIOp::create(nb, nl, a[0], ones);
      });
}

FailureOr<Value> mlprog::buildLogical(OpBuilder &b, Location loc,
                                      LogicalKind kind, Value lhs, Value rhs) {
  if (!isBoolTensor(lhs) || !isBoolTensor(rhs))
    return emitError(loc) << "logical op needs ranked i1 tensors, got "
                          << lhs.getType() << " and " << rhs.getType();
  return logicGeneric(b, loc, kind, lhs, rhs, b.getI1Type());
}

FailureOr<Value> mlprog::buildLogicalNot(OpBuilder &b, Location loc, Value x) {
  if (!isBoolTensor(x))
    return emitError(loc) << "logical not needs a ranked i1 tensor, got "
                          << x.getType();
  return notGeneric(b, loc, x, b.getI1Type());
}

/// The element type of a ranked signless-integer tensor, or null.
static Type integerElementType(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getElementType().isSignlessInteger() ? t.getElementType()
                                                     : Type();
}

FailureOr<Value> mlprog::buildBitwise(OpBuilder &b, Location loc,
                                      LogicalKind kind, Value lhs, Value rhs) {
  Type et = integerElementType(lhs);
  if (!et || et != integerElementType(rhs))
    return emitError(loc) << "bitwise op needs integer tensors of one element "
                             "type, got "
                          << lhs.getType() << " and " << rhs.getType();
  return logicGeneric(b, loc, kind, lhs, rhs, et);
}

FailureOr<Value> mlprog::buildBitwiseNot(OpBuilder &b, Location loc, Value x) {
  Type et = integerElementType(x);
  if (!et)
    return emitError(loc) << "bitwise not needs an integer tensor, got "
                          << x.getType();
  return notGeneric(b, loc, x, et);
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
