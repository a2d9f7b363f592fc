//===- Predicate.cpp - Comparison, logical and select builders ------------===//

#include "mlprog/Import/Common/Predicate.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

Value mlprog::buildScalarComparison(OpBuilder &b, Location loc,
                                    ComparisonKind kind, Value l, Value r,
                                    bool isUnsigned) {
  if (isa<FloatType>(l.getType())) {
    arith::CmpFPredicate p;
    switch (kind) {
    case ComparisonKind::Eq:
      p = arith::CmpFPredicate::OEQ;
      break;
    case ComparisonKind::Ne:
      p = arith::CmpFPredicate::UNE;
      break;
    case ComparisonKind::Lt:
      p = arith::CmpFPredicate::OLT;
      break;
    case ComparisonKind::Le:
      p = arith::CmpFPredicate::OLE;
      break;
    case ComparisonKind::Gt:
      p = arith::CmpFPredicate::OGT;
      break;
    case ComparisonKind::Ge:
      p = arith::CmpFPredicate::OGE;
      break;
    }
    return arith::CmpFOp::create(b, loc, p, l, r);
  }
  bool u = isUnsigned || l.getType().isInteger(1);
  arith::CmpIPredicate p;
  switch (kind) {
  case ComparisonKind::Eq:
    p = arith::CmpIPredicate::eq;
    break;
  case ComparisonKind::Ne:
    p = arith::CmpIPredicate::ne;
    break;
  case ComparisonKind::Lt:
    p = u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
    break;
  case ComparisonKind::Le:
    p = u ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle;
    break;
  case ComparisonKind::Gt:
    p = u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt;
    break;
  case ComparisonKind::Ge:
    p = u ? arith::CmpIPredicate::uge : arith::CmpIPredicate::sge;
    break;
  }
  return arith::CmpIOp::create(b, loc, p, l, r);
}

/// Checks that `a` and `b` are ranked tensors of one int or float element
/// type.
static LogicalResult checkSameElementType(Location loc, Value a, Value b,
                                          StringRef what) {
  auto at = dyn_cast<RankedTensorType>(a.getType());
  auto bt = dyn_cast<RankedTensorType>(b.getType());
  if (!at || !bt || at.getElementType() != bt.getElementType() ||
      !at.getElementType().isIntOrFloat())
    return emitError(loc) << what << " needs ranked tensors of one element "
                          << "type, got " << a.getType() << " and "
                          << b.getType();
  return success();
}

FailureOr<Value> mlprog::buildComparison(OpBuilder &b, Location loc,
                                         ComparisonKind kind, Value lhs,
                                         Value rhs, bool isUnsigned) {
  if (failed(checkSameElementType(loc, lhs, rhs, "comparison")))
    return failure();
  return buildBroadcastedGeneric(b, loc, {lhs, rhs}, b.getI1Type(),
                                 [&](OpBuilder &nb, Location nl, ValueRange a) {
                                   return buildScalarComparison(
                                       nb, nl, kind, a[0], a[1], isUnsigned);
                                 });
}

FailureOr<Value> mlprog::buildBoolOp(OpBuilder &b, Location loc,
                                     BoolOpKind kind, Value lhs, Value rhs) {
  if (failed(checkSameElementType(loc, lhs, rhs, "logical op")))
    return failure();
  if (!getElementTypeOrSelf(lhs.getType()).isInteger(1))
    return emitError(loc) << "logical op needs i1 tensors, got "
                          << lhs.getType();
  return buildBroadcastedGeneric(
      b, loc, {lhs, rhs}, b.getI1Type(),
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        switch (kind) {
        case BoolOpKind::And:
          return arith::AndIOp::create(nb, nl, a[0], a[1]);
        case BoolOpKind::Or:
          return arith::OrIOp::create(nb, nl, a[0], a[1]);
        case BoolOpKind::Xor:
          return arith::XOrIOp::create(nb, nl, a[0], a[1]);
        }
        return Value();
      });
}

FailureOr<Value> mlprog::buildBoolNot(OpBuilder &b, Location loc, Value x) {
  auto t = dyn_cast<RankedTensorType>(x.getType());
  if (!t || !t.getElementType().isInteger(1))
    return emitError(loc) << "logical not needs an i1 tensor, got "
                          << x.getType();
  return buildBroadcastedGeneric(
      b, loc, x, b.getI1Type(), [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value one = arith::ConstantOp::create(nb, nl, nb.getBoolAttr(true));
        return arith::XOrIOp::create(nb, nl, a[0], one).getResult();
      });
}

FailureOr<Value> mlprog::buildWhere(OpBuilder &b, Location loc, Value cond,
                                    Value a, Value bv) {
  auto ct = dyn_cast<RankedTensorType>(cond.getType());
  if (!ct || !ct.getElementType().isInteger(1))
    return emitError(loc) << "where needs an i1 condition, got "
                          << cond.getType();
  if (failed(checkSameElementType(loc, a, bv, "where")))
    return failure();
  return buildBroadcastedGeneric(
      b, loc, {cond, a, bv}, getElementTypeOrSelf(a.getType()),
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        return arith::SelectOp::create(nb, nl, args[0], args[1], args[2])
            .getResult();
      });
}
