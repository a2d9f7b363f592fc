//===- Quantization.cpp - Linear quantization builders --------------------===//

#include "mlprog/Import/Common/Quantization.h"
#include "Utils.h"
#include "mlprog/Import/Common/Conv.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/LinearAlgebra.h"
#include "mlprog/Import/Common/Rearrange.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

#include <numeric>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

/// The float type quantization arithmetic runs in: f64 for f64 scales, f32
/// otherwise (f16/bf16 scales are widened, as onnxruntime does).
static FloatType computeType(OpBuilder &b, Type scaleElement) {
  return scaleElement.isF64() ? FloatType(b.getF64Type())
                              : FloatType(b.getF32Type());
}

/// Converts the scalar `v` (float or integer; `isUnsigned` for integers) to
/// the float type `to`.
static Value toFloat(OpBuilder &b, Location loc, Value v, FloatType to,
                     bool isUnsigned) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (auto ff = dyn_cast<FloatType>(from))
    return ff.getWidth() < to.getWidth()
               ? arith::ExtFOp::create(b, loc, to, v).getResult()
               : arith::TruncFOp::create(b, loc, to, v).getResult();
  return isUnsigned ? arith::UIToFPOp::create(b, loc, to, v).getResult()
                    : arith::SIToFPOp::create(b, loc, to, v).getResult();
}

/// Rounds the float `v` half to even, adds the integer zero point `zp` (may
/// be null) and converts to `r` with saturation (NaN goes to the minimum).
static Value saturate(OpBuilder &b, Location loc, Value v, Value zp,
                      QuantizedType r) {
  auto ft = cast<FloatType>(v.getType());
  v = math::RoundEvenOp::create(b, loc, v);
  if (zp)
    v = arith::AddFOp::create(b, loc, v, toFloat(b, loc, zp, ft, r.isUnsigned));
  unsigned w = r.type.getWidth();
  double lo = r.isUnsigned ? 0.0 : -std::ldexp(1.0, w - 1);
  double hi =
      r.isUnsigned ? std::ldexp(1.0, w) - 1 : std::ldexp(1.0, w - 1) - 1;
  v = arith::MaxNumFOp::create(b, loc, v, createScalar(b, loc, ft, lo));
  v = arith::MinNumFOp::create(b, loc, v, createScalar(b, loc, ft, hi));
  return r.isUnsigned ? arith::FPToUIOp::create(b, loc, r.type, v).getResult()
                      : arith::FPToSIOp::create(b, loc, r.type, v).getResult();
}

/// Checks the quantized result type (its range must be exact in f32).
static LogicalResult checkQuantizedType(Location loc, QuantizedType r,
                                        Value zeroPoint, StringRef what) {
  if (!r.type || r.type.getWidth() < 2 || r.type.getWidth() > 16)
    return emitError(loc) << "unsupported " << what << " result type "
                          << Type(r.type) << " (8- and 16-bit integers)";
  if (zeroPoint && getElementTypeOrSelf(zeroPoint.getType()) != r.type)
    return emitError(loc) << what << ": zero point " << zeroPoint.getType()
                          << " does not have element type " << Type(r.type);
  return success();
}

/// The float element type of `scale`, or an error naming `what`.
static FailureOr<FloatType> scaleElementType(Location loc, Value scale,
                                             StringRef what) {
  FailureOr<RankedTensorType> t = getRankedType(loc, scale, what);
  if (failed(t))
    return failure();
  auto ft = dyn_cast<FloatType>(t->getElementType());
  if (!ft)
    return emitError(loc) << what << ": scale must be a float tensor, got "
                          << scale.getType();
  return ft;
}

FailureOr<Value> mlprog::alignAxisParam(OpBuilder &b, Location loc, Value param,
                                        int64_t rank,
                                        std::optional<int64_t> axis,
                                        int64_t axisExtent, StringRef what) {
  FailureOr<RankedTensorType> t = getRankedType(loc, param, what);
  if (failed(t))
    return failure();
  if (t->getRank() == 0)
    return param;
  if (t->getRank() > 1)
    return emitError(loc) << "unsupported " << what << " of type "
                          << param.getType()
                          << " (per-tensor or 1-D per-axis expected)";
  int64_t len = t->getDimSize(0);
  if (len == 1)
    return dropUnitDim(b, loc, param, 0);
  if (!axis || *axis < 0 || *axis >= rank)
    return emitError(loc) << what << " of type " << param.getType()
                          << " is per-axis, but the operation has no "
                             "quantization axis (per-tensor expected)";
  if (!ShapedType::isDynamic(len) && !ShapedType::isDynamic(axisExtent) &&
      len != axisExtent)
    return emitError(loc) << what << " has " << len
                          << " elements but the input has extent " << axisExtent
                          << " along axis " << *axis;
  Value v = param;
  for (int64_t i = *axis + 1; i < rank; ++i)
    v = insertUnitDim(b, loc, v, cast<RankedTensorType>(v.getType()).getRank());
  return v;
}

Value mlprog::alignPerRowParam(OpBuilder &b, Location loc, Value param,
                               int64_t operandRank) {
  auto t = dyn_cast<RankedTensorType>(param.getType());
  if (!t || t.getRank() != 1 || operandRank < 2 || t.getDimSize(0) == 1)
    return param;
  return insertUnitDim(b, loc, param, 1);
}

/// Aligns a scale and an optional zero point of `x` for broadcasting.
static FailureOr<std::pair<Value, Value>>
alignParams(OpBuilder &b, Location loc, RankedTensorType xt, Value scale,
            Value zeroPoint, std::optional<int64_t> axis, StringRef what) {
  int64_t rank = xt.getRank();
  int64_t extent = axis && *axis >= 0 && *axis < rank ? xt.getDimSize(*axis)
                                                      : ShapedType::kDynamic;
  FailureOr<Value> s = alignAxisParam(b, loc, scale, rank, axis, extent,
                                      (what + " scale").str());
  if (failed(s))
    return failure();
  Value zp;
  if (zeroPoint) {
    FailureOr<Value> z = alignAxisParam(b, loc, zeroPoint, rank, axis, extent,
                                        (what + " zero point").str());
    if (failed(z))
      return failure();
    zp = *z;
  }
  return std::make_pair(*s, zp);
}

/// saturate(x / scale + zero point) of the scalars `a` = (x, scale[, zero
/// point]), the division in `ct`.
static Value quantizeScalar(OpBuilder &b, Location loc, ValueRange a,
                            FloatType ct, QuantizedType result) {
  Value xv = toFloat(b, loc, a[0], ct, /*isUnsigned=*/false);
  Value sv = toFloat(b, loc, a[1], ct, false);
  Value q = arith::DivFOp::create(b, loc, xv, sv);
  return saturate(b, loc, q, a.size() > 2 ? a[2] : Value(), result);
}

FailureOr<Value> mlprog::buildQuantizeLinear(OpBuilder &b, Location loc,
                                             Value x, Value scale,
                                             Value zeroPoint,
                                             std::optional<int64_t> axis,
                                             QuantizedType result) {
  StringRef what = "quantize";
  FailureOr<RankedTensorType> xt = getRankedType(loc, x, what);
  FailureOr<FloatType> st = scaleElementType(loc, scale, what);
  if (failed(xt) || failed(st) ||
      failed(checkQuantizedType(loc, result, zeroPoint, what)))
    return failure();
  if (!xt->getElementType().isIntOrFloat() || xt->getElementType().isInteger(1))
    return emitError(loc) << "unsupported quantize input " << x.getType();
  FailureOr<std::pair<Value, Value>> p =
      alignParams(b, loc, *xt, scale, zeroPoint, axis, what);
  if (failed(p))
    return failure();
  FloatType ct = computeType(b, *st);
  SmallVector<Value> operands = {x, p->first};
  if (p->second)
    operands.push_back(p->second);
  return buildBroadcastedGeneric(
      b, loc, operands, result.type,
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        return quantizeScalar(nb, nl, a, ct, result);
      });
}

FailureOr<Value> mlprog::buildQuantizeLinearToFloat(
    OpBuilder &b, Location loc, Value x, Value scale, Value zeroPoint,
    std::optional<int64_t> axis, FloatType result, bool saturate) {
  StringRef what = "quantize";
  FailureOr<RankedTensorType> xt = getRankedType(loc, x, what);
  FailureOr<FloatType> st = scaleElementType(loc, scale, what);
  if (failed(xt) || failed(st))
    return failure();
  if (!isa<FloatType>(xt->getElementType()) || result.getWidth() > 8 ||
      isa<Float8E8M0FNUType>(result))
    return emitError(loc) << "unsupported quantize from " << x.getType()
                          << " to " << Type(result);
  if (zeroPoint && getElementTypeOrSelf(zeroPoint.getType()) != result)
    return emitError(loc) << what << ": zero point " << zeroPoint.getType()
                          << " does not have element type " << Type(result);
  FailureOr<std::pair<Value, Value>> p =
      alignParams(b, loc, *xt, scale, zeroPoint, axis, what);
  if (failed(p))
    return failure();
  FloatType ct = computeType(b, *st);
  // The zero point of a float8 result must be 0 and is not added (it would
  // turn -0 into +0); float4's is added, as the reference does.
  bool addZeroPoint = p->second && isa<Float4E2M1FNType>(result);
  SmallVector<Value> operands = {x, p->first};
  if (addZeroPoint)
    operands.push_back(p->second);
  NarrowFloatCast narrow;
  narrow.saturate = saturate;
  return buildBroadcastedGeneric(
      b, loc, operands, result,
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value q =
            arith::DivFOp::create(nb, nl, toFloat(nb, nl, a[0], ct, false),
                                  toFloat(nb, nl, a[1], ct, false));
        if (a.size() > 2)
          q = arith::AddFOp::create(nb, nl, q,
                                    buildConvertScalar(nb, nl, a[2], ct));
        return buildConvertScalar(nb, nl, q, result, false, false, narrow);
      });
}

/// Widens the integer scalar `v` to `to` (sign or zero extension).
static Value widen(OpBuilder &b, Location loc, Value v, Type to,
                   bool isUnsigned) {
  if (v.getType() == to)
    return v;
  return isUnsigned ? arith::ExtUIOp::create(b, loc, to, v).getResult()
                    : arith::ExtSIOp::create(b, loc, to, v).getResult();
}

/// `(x - zp) * scale` for one element, computed in `ct` and converted to
/// `resultType`: integer x and zp (`xUnsigned`) are subtracted exactly in a
/// type twice as wide; a float x or zp is converted to `ct` first. `zp` may
/// be null.
static Value dequantizeScalar(OpBuilder &b, Location loc, Value x, Value scale,
                              Value zp, FloatType ct, FloatType resultType,
                              bool xUnsigned) {
  Value d;
  auto xi = dyn_cast<IntegerType>(x.getType());
  if (xi && (!zp || zp.getType() == x.getType())) {
    Type wide = b.getIntegerType(xi.getWidth() <= 16 ? 32 : 64);
    d = widen(b, loc, x, wide, xUnsigned);
    if (zp)
      d = arith::SubIOp::create(b, loc, d, widen(b, loc, zp, wide, xUnsigned));
    d = arith::SIToFPOp::create(b, loc, ct, d);
  } else {
    d = toFloat(b, loc, x, ct, xUnsigned);
    if (zp)
      d = arith::SubFOp::create(b, loc, d, toFloat(b, loc, zp, ct, xUnsigned));
  }
  Value y = arith::MulFOp::create(b, loc, d, toFloat(b, loc, scale, ct, false));
  return toFloat(b, loc, y, resultType, false);
}

FailureOr<Value> mlprog::buildDequantizeLinear(OpBuilder &b, Location loc,
                                               Value x, Value scale,
                                               Value zeroPoint,
                                               std::optional<int64_t> axis,
                                               bool xUnsigned) {
  StringRef what = "dequantize";
  FailureOr<RankedTensorType> xt = getRankedType(loc, x, what);
  FailureOr<FloatType> st = scaleElementType(loc, scale, what);
  if (failed(xt) || failed(st))
    return failure();
  FloatType resultType = *st;
  if (auto xf = dyn_cast<FloatType>(xt->getElementType());
      xf && xf.getWidth() <= 8) {
    // float8/float4: y = float(x) * scale; the zero point must be 0 and is
    // ignored, as the reference does.
    FailureOr<std::pair<Value, Value>> p =
        alignParams(b, loc, *xt, scale, Value(), axis, what);
    if (failed(p))
      return failure();
    FloatType ct = computeType(b, *st);
    return buildBroadcastedGeneric(
        b, loc, {x, p->first}, resultType,
        [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
          Value y = arith::MulFOp::create(nb, nl,
                                          buildConvertScalar(nb, nl, a[0], ct),
                                          toFloat(nb, nl, a[1], ct, false));
          return toFloat(nb, nl, y, resultType, false);
        });
  }
  auto it = dyn_cast<IntegerType>(xt->getElementType());
  if (!it || it.getWidth() < 2 || it.getWidth() > 32)
    return emitError(loc) << "unsupported dequantize input " << x.getType()
                          << " (2- to 32-bit integers, 8- and 4-bit floats)";
  if (zeroPoint && getElementTypeOrSelf(zeroPoint.getType()) != it)
    return emitError(loc) << "dequantize: zero point " << zeroPoint.getType()
                          << " does not have the element type of "
                          << x.getType();
  FailureOr<std::pair<Value, Value>> p =
      alignParams(b, loc, *xt, scale, zeroPoint, axis, what);
  if (failed(p))
    return failure();
  FloatType ct = computeType(b, *st);
  SmallVector<Value> operands = {x, p->first};
  if (p->second)
    operands.push_back(p->second);
  return buildBroadcastedGeneric(
      b, loc, operands, resultType,
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        return dequantizeScalar(nb, nl, a[0], a[1],
                                a.size() > 2 ? a[2] : Value(), ct, resultType,
                                xUnsigned);
      });
}

namespace {
/// A blockwise-quantized operand and its parameters reshaped so that numpy
/// broadcasting repeats each parameter over its block.
struct BlockedOperands {
  Value x, scale, zeroPoint;
  /// Whether x was reshaped (the result must be reshaped back).
  bool reshaped = false;
};
} // namespace

/// Checks the blockwise parameters of `x` and splits every blocked dim D (S
/// parameters, S > 1, D / S > 1) into [S, D / S], giving the parameters a
/// unit dim there.
static FailureOr<BlockedOperands>
splitBlocks(OpBuilder &b, Location loc, RankedTensorType xt, Value x,
            Value scale, Value zeroPoint, Type zeroPointType, StringRef what) {
  auto sType = cast<RankedTensorType>(scale.getType());
  if (!xt.hasStaticShape() || !sType.hasStaticShape() ||
      sType.getRank() != xt.getRank())
    return emitError(loc) << what << ": scale " << scale.getType()
                          << " must have the rank of the input " << x.getType()
                          << " (static shapes)";
  if (zeroPoint) {
    auto zType = dyn_cast<RankedTensorType>(zeroPoint.getType());
    Type ze = zType ? zType.getElementType() : Type();
    if (!zType || !zType.hasStaticShape() || zType.getRank() != xt.getRank() ||
        (ze != zeroPointType && !isa<FloatType>(ze)))
      return emitError(loc)
             << what << ": zero point " << zeroPoint.getType()
             << " must have the rank of the scale " << scale.getType()
             << " and the element type " << zeroPointType << " or a float";
    // Parameters of different block sizes (e.g. a per-axis scale with a
    // per-tensor zero point): repeat each up to the finer blocks.
    if (zType.getShape() != sType.getShape()) {
      for (int64_t i = 0; i < xt.getRank(); ++i) {
        int64_t sd = sType.getDimSize(i), zd = zType.getDimSize(i);
        int64_t common = sd > 0 && zd > 0 ? std::lcm(sd, zd) : 0;
        if (common <= 0 || xt.getDimSize(i) % common != 0)
          return emitError(loc)
                 << what << ": scale " << scale.getType() << " and zero point "
                 << zeroPoint.getType() << " do not divide the input "
                 << x.getType() << " into blocks";
        for (Value *param : {&scale, &zeroPoint}) {
          int64_t extent =
              cast<RankedTensorType>(param->getType()).getDimSize(i);
          if (extent == common)
            continue;
          FailureOr<Value> repeated = buildRepeatInterleave(
              b, loc, *param, Value(), common / extent, i, common);
          if (failed(repeated))
            return failure();
          *param = *repeated;
        }
      }
      sType = cast<RankedTensorType>(scale.getType());
    }
  }
  SmallVector<int64_t> xShape, pShape;
  for (auto [d, s] : llvm::zip(xt.getShape(), sType.getShape())) {
    if (s <= 0 || d % s != 0)
      return emitError(loc)
             << what << ": scale " << scale.getType()
             << " does not divide the input " << x.getType() << " into blocks";
    if (s > 1 && d / s > 1) {
      xShape.append({s, d / s});
      pShape.append({s, 1});
    } else {
      xShape.push_back(d);
      pShape.push_back(s);
    }
  }
  BlockedOperands r{x, scale, zeroPoint};
  if (xShape.size() == size_t(xt.getRank()))
    return r;
  FailureOr<Value> rx = buildReshape(b, loc, x, xShape);
  FailureOr<Value> rs = buildReshape(b, loc, scale, pShape);
  FailureOr<Value> rz =
      zeroPoint ? buildReshape(b, loc, zeroPoint, pShape) : Value();
  if (failed(rx) || failed(rs) || failed(rz))
    return failure();
  return BlockedOperands{*rx, *rs, *rz, /*reshaped=*/true};
}

/// `fn` elementwise over the blocked operands (x, scale[, zero point]),
/// giving `resultType` elements in x's original shape.
static FailureOr<Value>
mapBlocked(OpBuilder &b, Location loc, RankedTensorType xt,
           const BlockedOperands &ops, Type resultType,
           function_ref<Value(OpBuilder &, Location, ValueRange)> fn) {
  SmallVector<Value> operands = {ops.x, ops.scale};
  if (ops.zeroPoint)
    operands.push_back(ops.zeroPoint);
  FailureOr<Value> y =
      buildBroadcastedGeneric(b, loc, operands, resultType, fn);
  if (failed(y) || !ops.reshaped)
    return y;
  return buildReshape(b, loc, *y, xt.getShape());
}

FailureOr<Value> mlprog::buildBlockwiseDequantizeLinear(OpBuilder &b,
                                                        Location loc, Value x,
                                                        Value scale,
                                                        Value zeroPoint,
                                                        bool xUnsigned) {
  StringRef what = "blockwise dequantize";
  FailureOr<RankedTensorType> xt = getRankedType(loc, x, what);
  FailureOr<FloatType> st = scaleElementType(loc, scale, what);
  if (failed(xt) || failed(st))
    return failure();
  Type xe = xt->getElementType();
  auto xi = dyn_cast<IntegerType>(xe);
  if (!(xi && xi.getWidth() >= 2 && xi.getWidth() <= 32) && !isa<FloatType>(xe))
    return emitError(loc) << "unsupported " << what << " input " << x.getType()
                          << " (2- to 32-bit integers or floats)";
  FailureOr<BlockedOperands> ops =
      splitBlocks(b, loc, *xt, x, scale, zeroPoint, xe, what);
  if (failed(ops))
    return failure();
  FloatType ct = computeType(b, *st);
  return mapBlocked(b, loc, *xt, *ops, *st,
                    [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                      return dequantizeScalar(nb, nl, a[0], a[1],
                                              a.size() > 2 ? a[2] : Value(), ct,
                                              *st, xUnsigned);
                    });
}

FailureOr<Value> mlprog::buildBlockwiseQuantizeLinear(OpBuilder &b,
                                                      Location loc, Value x,
                                                      Value scale,
                                                      Value zeroPoint,
                                                      QuantizedType result) {
  StringRef what = "blockwise quantize";
  FailureOr<RankedTensorType> xt = getRankedType(loc, x, what);
  FailureOr<FloatType> st = scaleElementType(loc, scale, what);
  if (failed(xt) || failed(st) ||
      failed(checkQuantizedType(loc, result, zeroPoint, what)))
    return failure();
  if (!isa<FloatType>(xt->getElementType()))
    return emitError(loc) << "unsupported " << what << " input " << x.getType();
  FailureOr<BlockedOperands> ops =
      splitBlocks(b, loc, *xt, x, scale, zeroPoint, result.type, what);
  if (failed(ops))
    return failure();
  FloatType ct = computeType(b, *st);
  return mapBlocked(b, loc, *xt, *ops, result.type,
                    [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
                      return quantizeScalar(nb, nl, a, ct, result);
                    });
}

/// `v - zeroPoint` widened to i32 (zeroPoint may be null).
static FailureOr<Value> shiftToI32(OpBuilder &b, Location loc, Value v,
                                   Value zeroPoint, bool isUnsigned,
                                   StringRef what) {
  FailureOr<RankedTensorType> t = getRankedType(loc, v, what);
  if (failed(t))
    return failure();
  auto it = dyn_cast<IntegerType>(t->getElementType());
  if (!it || it.getWidth() < 2 || it.getWidth() > 32)
    return emitError(loc) << what << ": expected an integer tensor of at "
                          << "most 32 bits, got " << v.getType();
  if (zeroPoint && getElementTypeOrSelf(zeroPoint.getType()) != it)
    return emitError(loc) << what << ": zero point " << zeroPoint.getType()
                          << " does not have the element type of "
                          << v.getType();
  Type i32 = b.getI32Type();
  SmallVector<Value> operands = {v};
  if (zeroPoint)
    operands.push_back(zeroPoint);
  if (!zeroPoint && it == i32)
    return v;
  return buildBroadcastedGeneric(
      b, loc, operands, i32,
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value r = widen(nb, nl, a[0], i32, isUnsigned);
        if (a.size() > 1)
          r = arith::SubIOp::create(nb, nl, r,
                                    widen(nb, nl, a[1], i32, isUnsigned));
        return r;
      });
}

FailureOr<Value> mlprog::buildMatMulInteger(OpBuilder &b, Location loc, Value a,
                                            Value bm, Value aZeroPoint,
                                            Value bZeroPoint, bool aUnsigned,
                                            bool bUnsigned) {
  FailureOr<RankedTensorType> at = getRankedType(loc, a, "integer matmul");
  if (failed(at))
    return failure();
  if (aZeroPoint)
    aZeroPoint = alignPerRowParam(b, loc, aZeroPoint, at->getRank());
  FailureOr<Value> lhs =
      shiftToI32(b, loc, a, aZeroPoint, aUnsigned, "integer matmul");
  FailureOr<Value> rhs = failed(lhs) ? FailureOr<Value>(failure())
                                     : shiftToI32(b, loc, bm, bZeroPoint,
                                                  bUnsigned, "integer matmul");
  if (failed(rhs))
    return failure();
  // The zero-point subtraction must not change the operand shapes.
  if (lhs->getType() != cast<RankedTensorType>(at->clone(b.getI32Type())) ||
      cast<RankedTensorType>(rhs->getType()).getShape() !=
          cast<RankedTensorType>(bm.getType()).getShape())
    return emitError(loc) << "integer matmul: zero points of types "
                          << (aZeroPoint ? aZeroPoint.getType() : Type())
                          << " and "
                          << (bZeroPoint ? bZeroPoint.getType() : Type())
                          << " do not fit operands " << a.getType() << " and "
                          << bm.getType();
  return buildMatMul(b, loc, *lhs, *rhs);
}

FailureOr<Value>
mlprog::buildConvInteger(OpBuilder &b, Location loc, Value input, Value filter,
                         Value inputZeroPoint, Value filterZeroPoint,
                         Value bias, const WindowParams &params, int64_t groups,
                         bool inputUnsigned, bool filterUnsigned) {
  FailureOr<RankedTensorType> ft = getRankedType(loc, filter, "integer conv");
  if (failed(ft))
    return failure();
  if (inputZeroPoint) {
    FailureOr<Value> z =
        alignAxisParam(b, loc, inputZeroPoint, 0, std::nullopt,
                       ShapedType::kDynamic, "conv input zero point");
    if (failed(z))
      return failure();
    inputZeroPoint = *z;
  }
  if (filterZeroPoint) {
    FailureOr<Value> z = alignAxisParam(
        b, loc, filterZeroPoint, ft->getRank(), 0,
        ft->getRank() ? ft->getDimSize(0) : 1, "conv filter zero point");
    if (failed(z))
      return failure();
    filterZeroPoint = *z;
  }
  FailureOr<Value> x =
      shiftToI32(b, loc, input, inputZeroPoint, inputUnsigned, "integer conv");
  FailureOr<Value> w = failed(x) ? FailureOr<Value>(failure())
                                 : shiftToI32(b, loc, filter, filterZeroPoint,
                                              filterUnsigned, "integer conv");
  if (failed(w))
    return failure();
  if (bias && getElementTypeOrSelf(bias.getType()) != b.getI32Type())
    return emitError(loc) << "integer conv: bias must be i32, got "
                          << bias.getType();
  return buildConv(b, loc, *x, *w, bias, params, groups);
}

FailureOr<Value> mlprog::buildRequantize(OpBuilder &b, Location loc, Value acc,
                                         Value scaleA, Value scaleB,
                                         Value yScale, Value yZeroPoint,
                                         QuantizedType result) {
  StringRef what = "requantize";
  FailureOr<RankedTensorType> accT = getRankedType(loc, acc, what);
  FailureOr<FloatType> sa = scaleElementType(loc, scaleA, what);
  FailureOr<FloatType> sb = scaleElementType(loc, scaleB, what);
  FailureOr<FloatType> sy = scaleElementType(loc, yScale, what);
  if (failed(accT) || failed(sa) || failed(sb) || failed(sy) ||
      failed(checkQuantizedType(loc, result, yZeroPoint, what)))
    return failure();
  if (!accT->getElementType().isSignlessInteger())
    return emitError(loc) << what << ": accumulator must be an integer "
                          << "tensor, got " << acc.getType();
  FailureOr<std::pair<Value, Value>> y =
      alignParams(b, loc, *accT, yScale, yZeroPoint, std::nullopt, "output");
  if (failed(y))
    return failure();
  FloatType ct = computeType(b, *sy);
  SmallVector<Value> operands = {acc, scaleA, scaleB, y->first};
  if (y->second)
    operands.push_back(y->second);
  FailureOr<Value> r = buildBroadcastedGeneric(
      b, loc, operands, result.type,
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value c = toFloat(nb, nl, a[0], ct, false);
        Value m =
            arith::MulFOp::create(nb, nl, toFloat(nb, nl, a[1], ct, false),
                                  toFloat(nb, nl, a[2], ct, false));
        m = arith::DivFOp::create(nb, nl, m, toFloat(nb, nl, a[3], ct, false));
        Value v = arith::MulFOp::create(nb, nl, c, m);
        return saturate(nb, nl, v, a.size() > 4 ? a[4] : Value(), result);
      });
  if (failed(r))
    return failure();
  // Scales must not change the accumulator's shape.
  if (cast<RankedTensorType>(r->getType()).getShape() != accT->getShape())
    return emitError(loc) << what << ": scales " << scaleA.getType() << " and "
                          << scaleB.getType() << " do not fit "
                          << acc.getType();
  return r;
}
