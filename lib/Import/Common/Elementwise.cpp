//===- Elementwise.cpp - Broadcasting elementwise tensor ops --------------===//

#include "mlprog/Import/Common/Elementwise.h"
#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

FailureOr<Value> mlprog::buildBroadcastedGeneric(OpBuilder &b, Location loc,
                                                 ValueRange operands,
                                                 Type resultElementType,
                                                 ScalarBodyFn body) {
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value v : operands) {
    FailureOr<RankedTensorType> type = getRankedType(loc, v, "elementwise op");
    if (failed(type))
      return failure();
    shapes.push_back(type->getShape());
  }
  FailureOr<BroadcastPlan> plan = planBroadcast(loc, shapes);
  if (failed(plan))
    return failure();
  unsigned rank = plan->shape.size();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (ArrayRef<bool> stretched : plan->stretched)
    maps.push_back(broadcastMap(ctx, rank, 0, rank, stretched));
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  Value init = createEmpty(b, loc, broadcastSizes(b, loc, *plan, operands),
                           resultElementType);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), operands, init, maps, parallelIterators(rank),
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value result = body(nb, nl, args.drop_back());
        linalg::YieldOp::create(nb, nl, result);
      });
  return generic.getResult(0);
}

/// Emits the scalar op of `kind`; null if the element type has none.
static Value buildBinaryScalar(OpBuilder &b, Location loc, BinaryOpKind kind,
                               Value l, Value r, bool isUnsigned) {
  bool isFloat = isa<FloatType>(l.getType());
  switch (kind) {
  case BinaryOpKind::Add:
    return isFloat ? arith::AddFOp::create(b, loc, l, r).getResult()
                   : arith::AddIOp::create(b, loc, l, r).getResult();
  case BinaryOpKind::Sub:
    return isFloat ? arith::SubFOp::create(b, loc, l, r).getResult()
                   : arith::SubIOp::create(b, loc, l, r).getResult();
  case BinaryOpKind::Mul:
    return isFloat ? arith::MulFOp::create(b, loc, l, r).getResult()
                   : arith::MulIOp::create(b, loc, l, r).getResult();
  case BinaryOpKind::Div:
    if (isFloat)
      return arith::DivFOp::create(b, loc, l, r);
    return isUnsigned ? arith::DivUIOp::create(b, loc, l, r).getResult()
                      : arith::DivSIOp::create(b, loc, l, r).getResult();
  case BinaryOpKind::Max:
    if (isFloat)
      return arith::MaximumFOp::create(b, loc, l, r);
    return isUnsigned ? arith::MaxUIOp::create(b, loc, l, r).getResult()
                      : arith::MaxSIOp::create(b, loc, l, r).getResult();
  case BinaryOpKind::Min:
    if (isFloat)
      return arith::MinimumFOp::create(b, loc, l, r);
    return isUnsigned ? arith::MinUIOp::create(b, loc, l, r).getResult()
                      : arith::MinSIOp::create(b, loc, l, r).getResult();
  case BinaryOpKind::Pow:
    return isFloat ? math::PowFOp::create(b, loc, l, r).getResult() : Value();
  }
  return Value();
}

FailureOr<Value> mlprog::buildElementwiseBinary(OpBuilder &b, Location loc,
                                                BinaryOpKind kind, Value lhs,
                                                Value rhs, bool isUnsigned) {
  auto lt = dyn_cast<RankedTensorType>(lhs.getType());
  auto rt = dyn_cast<RankedTensorType>(rhs.getType());
  if (!lt || !rt || lt.getElementType() != rt.getElementType())
    return emitError(loc) << "binary op needs ranked tensors of one element "
                             "type, got "
                          << lhs.getType() << " and " << rhs.getType();
  Type elementType = lt.getElementType();
  if (!elementType.isIntOrFloat() ||
      (kind == BinaryOpKind::Pow && !isa<FloatType>(elementType)))
    return emitError(loc) << "unsupported element type " << elementType
                          << " for binary op";
  return buildBroadcastedGeneric(
      b, loc, {lhs, rhs}, elementType,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        return buildBinaryScalar(nb, nl, kind, args[0], args[1], isUnsigned);
      });
}

/// Emits the scalar op of `kind` on `x`.
static Value buildUnaryScalar(OpBuilder &b, Location loc, UnaryOpKind kind,
                              Value x) {
  Type type = x.getType();
  bool isFloat = isa<FloatType>(type);
  switch (kind) {
  case UnaryOpKind::Relu: {
    Value zero = createScalar(b, loc, type, 0.0);
    if (isFloat)
      return arith::MaximumFOp::create(b, loc, x, zero);
    return arith::MaxSIOp::create(b, loc, x, zero);
  }
  case UnaryOpKind::Sigmoid: {
    // 1 / (1 + exp(-x)); math.exp lowers to libm expf.
    Value one = createScalar(b, loc, type, 1.0);
    Value negX = arith::NegFOp::create(b, loc, x);
    Value e = math::ExpOp::create(b, loc, negX);
    Value denom = arith::AddFOp::create(b, loc, one, e);
    return arith::DivFOp::create(b, loc, one, denom);
  }
  case UnaryOpKind::Tanh:
    return math::TanhOp::create(b, loc, x);
  case UnaryOpKind::Exp:
    return math::ExpOp::create(b, loc, x);
  case UnaryOpKind::Log:
    return math::LogOp::create(b, loc, x);
  case UnaryOpKind::Sqrt:
    return math::SqrtOp::create(b, loc, x);
  case UnaryOpKind::Erf:
    return math::ErfOp::create(b, loc, x);
  case UnaryOpKind::Neg:
    if (isFloat)
      return arith::NegFOp::create(b, loc, x);
    return arith::SubIOp::create(b, loc, createScalar(b, loc, type, 0.0), x);
  case UnaryOpKind::Abs:
    if (isFloat)
      return math::AbsFOp::create(b, loc, x);
    return math::AbsIOp::create(b, loc, x);
  }
  return Value();
}

FailureOr<Value> mlprog::buildElementwiseUnary(OpBuilder &b, Location loc,
                                               UnaryOpKind kind, Value x) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "unary op");
  if (failed(type))
    return failure();
  Type elementType = type->getElementType();
  bool intOk = kind == UnaryOpKind::Relu || kind == UnaryOpKind::Neg ||
               kind == UnaryOpKind::Abs;
  if (!isa<FloatType>(elementType) &&
      !(intOk && elementType.isSignlessInteger()))
    return emitError(loc) << "unsupported element type " << elementType
                          << " for unary op";
  return buildBroadcastedGeneric(
      b, loc, x, elementType, [&](OpBuilder &nb, Location nl, ValueRange args) {
        return buildUnaryScalar(nb, nl, kind, args[0]);
      });
}

FailureOr<Value> mlprog::buildBatchNormInference(OpBuilder &b, Location loc,
                                                 Value x, Value scale,
                                                 Value bias, Value mean,
                                                 Value var, double epsilon) {
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  if (!xt || xt.getRank() < 2 || !isa<FloatType>(xt.getElementType()))
    return emitError(loc) << "batch norm needs a float tensor of rank >= 2, "
                             "got "
                          << x.getType();
  int64_t channels = xt.getDimSize(1);
  for (Value p : {scale, bias, mean, var}) {
    auto pt = dyn_cast<RankedTensorType>(p.getType());
    if (!pt || pt.getRank() != 1 ||
        pt.getElementType() != xt.getElementType() ||
        (!pt.isDynamicDim(0) && !ShapedType::isDynamic(channels) &&
         pt.getDimSize(0) != channels))
      return emitError(loc) << "batch norm parameter of type " << p.getType()
                            << " does not match " << x.getType();
  }
  unsigned rank = xt.getRank();
  MLIRContext *ctx = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap channel = AffineMap::get(rank, 0, getAffineDimExpr(1, ctx));
  SmallVector<AffineMap> maps = {identity, channel, channel,
                                 channel,  channel, identity};
  Value init = createEmpty(b, loc, tensor::getMixedSizes(b, loc, x),
                           xt.getElementType());
  Type et = xt.getElementType();
  auto generic = linalg::GenericOp::create(
      b, loc, xt, ValueRange{x, scale, bias, mean, var}, init, maps,
      parallelIterators(rank), [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value eps = createScalar(nb, nl, et, epsilon);
        Value centered = arith::SubFOp::create(nb, nl, a[0], a[3]);
        Value stddev = math::SqrtOp::create(
            nb, nl, arith::AddFOp::create(nb, nl, a[4], eps));
        Value normed = arith::DivFOp::create(nb, nl, centered, stddev);
        Value scaled = arith::MulFOp::create(nb, nl, normed, a[1]);
        linalg::YieldOp::create(
            nb, nl, ValueRange{arith::AddFOp::create(nb, nl, scaled, a[2])});
      });
  return generic.getResult(0);
}

Value mlprog::buildConstant(OpBuilder &b, Location loc,
                            DenseElementsAttr value) {
  return arith::ConstantOp::create(b, loc, value);
}
