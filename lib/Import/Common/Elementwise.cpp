//===- Elementwise.cpp - Broadcasting arithmetic and casts ----------------===//

#include "mlprog/Import/Common/Elementwise.h"
#include "Utils.h"
#include "mlprog/Import/Common/Strings.h"

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
  proveBroadcastExtents(*plan, operands);
  unsigned rank = plan->shape.size();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  for (ArrayRef<bool> stretched : plan->stretched)
    maps.push_back(broadcastMap(ctx, rank, 0, rank, stretched));
  maps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
  SmallVector<OpFoldResult> sizes = broadcastSizes(b, loc, *plan, operands);
  SmallVector<Value> inputs =
      materializeRuntimeBroadcasts(b, loc, *plan, operands, sizes);
  Value init = createEmpty(b, loc, sizes, resultElementType);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), inputs, init, maps, parallelIterators(rank),
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
  // Booleans add and take maxima as `or`, minima as `and` (torch, numpy):
  // i1 addition would wrap and signed i1 order would read true as -1.
  if (l.getType().isInteger(1)) {
    if (kind == BinaryOpKind::Add || kind == BinaryOpKind::Max)
      return arith::OrIOp::create(b, loc, l, r);
    if (kind == BinaryOpKind::Min)
      return arith::AndIOp::create(b, loc, l, r);
  }
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
  case BinaryOpKind::Atan2:
    return isFloat ? math::Atan2Op::create(b, loc, l, r).getResult() : Value();
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
      ((kind == BinaryOpKind::Pow || kind == BinaryOpKind::Atan2) &&
       !isa<FloatType>(elementType)))
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
    {
      // A compare and select rather than math.absi, which the CPU and GPU
      // lowerings have no pattern for (the minimum integer stays itself).
      Value zero = createScalar(b, loc, type, 0.0);
      Value negative =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
      return arith::SelectOp::create(b, loc, negative,
                                     arith::SubIOp::create(b, loc, zero, x), x);
    }
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

/// Whether `t` is a float LLVM cannot compute in (8 bits or fewer).
static bool isNarrowFloat(Type t) {
  auto f = dyn_cast<FloatType>(t);
  return f && f.getWidth() <= 8;
}

/// The f32 `x` (`from`: the float it came from) converted to the narrow
/// float `to` with ONNX Cast's saturation and rounding: a clamp to +-max
/// before a round-to-nearest-even truncf (f8E8M0FNU: an exponent rounding,
/// see NarrowFloatCast).
static Value truncateToNarrowFloat(OpBuilder &b, Location loc, Value x,
                                   FloatType to,
                                   const NarrowFloatCast &narrow) {
  auto f32 = b.getF32Type();
  auto rounding = arith::RoundingModeAttr::get(
      b.getContext(), isa<Float8E8M0FNUType>(to)
                          ? narrow.e8m0Rounding
                          : arith::RoundingMode::to_nearest_even);
  if (narrow.saturate && to.getWidth() == 8) {
    APFloat largest = APFloat::getLargest(to.getFloatSemantics());
    bool losesInfo;
    largest.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                    &losesInfo);
    Value hi = arith::ConstantOp::create(b, loc, FloatAttr::get(f32, largest));
    if (isa<Float8E8M0FNUType>(to)) {
      // No sign: clamp the magnitude, but let infinities become NaN.
      Value mag = math::AbsFOp::create(b, loc, x);
      Value inf = createScalar(b, loc, f32, INFINITY);
      Value isInf =
          arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, mag, inf);
      x = arith::SelectOp::create(b, loc, isInf, mag,
                                  arith::MinimumFOp::create(b, loc, mag, hi));
    } else {
      Value lo = arith::NegFOp::create(b, loc, hi);
      x = arith::MinimumFOp::create(
          b, loc, arith::MaximumFOp::create(b, loc, x, lo), hi);
    }
  }
  return arith::TruncFOp::create(b, loc, to, x, rounding,
                                 arith::FastMathFlagsAttr());
}

Value mlprog::buildConvertScalar(OpBuilder &b, Location loc, Value x, Type to,
                                 bool srcUnsigned, bool dstUnsigned,
                                 const NarrowFloatCast &narrow) {
  Type from = x.getType();
  if (from == to)
    return x;
  auto fromF = dyn_cast<FloatType>(from), toF = dyn_cast<FloatType>(to);
  auto fromI = dyn_cast<IntegerType>(from), toI = dyn_cast<IntegerType>(to);
  if ((!fromF && !fromI) || (!toF && !toI))
    return Value();
  // 8- and 4-bit floats: every conversion goes through f32.
  if (isNarrowFloat(from) || isNarrowFloat(to)) {
    Type f32 = b.getF32Type();
    Value wide = isNarrowFloat(from)
                     ? arith::ExtFOp::create(b, loc, f32, x).getResult()
                     : buildConvertScalar(b, loc, x, f32, srcUnsigned);
    if (!isNarrowFloat(to))
      return buildConvertScalar(b, loc, wide, to, false, dstUnsigned);
    return truncateToNarrowFloat(b, loc, wide, cast<FloatType>(to), narrow);
  }
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
  if (fromF && toI && toI.getWidth() < 8) {
    // int4/uint4/int2/uint2 wrap (ml_dtypes' astype): through i32.
    Value wide = arith::FPToSIOp::create(b, loc, b.getI32Type(), x);
    return arith::TruncIOp::create(b, loc, to, wide);
  }
  if (fromF && toI)
    return dstUnsigned ? arith::FPToUIOp::create(b, loc, to, x).getResult()
                       : arith::FPToSIOp::create(b, loc, to, x).getResult();
  if (fromI.getWidth() < toI.getWidth())
    return isUnsigned ? arith::ExtUIOp::create(b, loc, to, x).getResult()
                      : arith::ExtSIOp::create(b, loc, to, x).getResult();
  return arith::TruncIOp::create(b, loc, to, x);
}

FailureOr<Value> mlprog::buildConvertElementType(
    OpBuilder &b, Location loc, Value x, Type elementType, bool srcUnsigned,
    bool dstUnsigned, const NarrowFloatCast &narrow) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "cast");
  if (failed(type))
    return failure();
  Type from = type->getElementType();
  if (isStringType(from) || isStringType(elementType))
    return buildStringCast(b, loc, x, elementType, srcUnsigned, dstUnsigned);
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
                                  dstUnsigned, narrow);
      });
}

FailureOr<Value> mlprog::buildBitcast(OpBuilder &b, Location loc, Value x,
                                      Type elementType) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "bitcast");
  if (failed(type))
    return failure();
  Type from = type->getElementType();
  if (!from.isIntOrFloat() || !elementType.isIntOrFloat())
    return emitError(loc) << "bitcast: unsupported element types " << from
                          << " and " << elementType;
  if (from == elementType)
    return x;
  // bool is one byte wide in the formats.
  auto width = [](Type t) {
    return t.isInteger(1) ? 8u : t.getIntOrFloatBitWidth();
  };
  if (width(from) != width(elementType))
    return emitError(loc) << "bitcast: " << from << " and " << elementType
                          << " differ in width";
  return buildBroadcastedGeneric(
      b, loc, x, elementType,
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        if (from.isInteger(1)) {
          Value byte = arith::ExtUIOp::create(nb, nl, nb.getI8Type(), a[0]);
          return elementType.isInteger(8)
                     ? byte
                     : arith::BitcastOp::create(nb, nl, elementType, byte)
                           .getResult();
        }
        if (elementType.isInteger(1)) {
          Value byte =
              from.isInteger(8)
                  ? a[0]
                  : arith::BitcastOp::create(nb, nl, nb.getI8Type(), a[0])
                        .getResult();
          Value zero = arith::ConstantIntOp::create(nb, nl, nb.getI8Type(), 0);
          return arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ne, byte,
                                       zero);
        }
        return arith::BitcastOp::create(nb, nl, elementType, a[0]);
      });
}
