//===- Creation.cpp - Constants, filled tensors, ranges, one-hot ----------===//

#include "mlprog/Import/Common/Creation.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Strings.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include <cmath>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

Value mlprog::buildConstant(OpBuilder &b, Location loc,
                            DenseElementsAttr value) {
  if (auto strings = dyn_cast<DenseStringElementsAttr>(value)) {
    SmallVector<std::string> texts;
    for (StringRef text : strings.getValues<StringRef>())
      texts.push_back(text.str());
    FailureOr<Value> tensor =
        buildStringTensor(b, loc, strings.getType().getShape(), texts);
    if (succeeded(tensor))
      return *tensor;
  }
  return arith::ConstantOp::create(b, loc, value);
}

FailureOr<Value> mlprog::buildFull(OpBuilder &b, Location loc,
                                   ArrayRef<OpFoldResult> sizes,
                                   Type elementType, Value value) {
  Value scalar = buildConvertScalar(b, loc, value, elementType);
  if (!scalar)
    return emitError(loc) << "full: cannot fill " << elementType
                          << " with a value of type " << value.getType();
  Value empty = createEmpty(b, loc, sizes, elementType);
  return linalg::FillOp::create(b, loc, ValueRange{scalar}, ValueRange{empty})
      .getResult(0);
}

FailureOr<Value> mlprog::buildArange(OpBuilder &b, Location loc, double start,
                                     double end, double step,
                                     Type elementType) {
  if (step == 0)
    return emitError(loc) << "arange: step must be nonzero";
  if (!elementType.isIntOrFloat())
    return emitError(loc) << "arange: unsupported element type " << elementType;
  int64_t n = std::max<int64_t>(0, int64_t(std::ceil((end - start) / step)));
  Value init = createEmpty(b, loc, {b.getIndexAttr(n)}, elementType);
  MLIRContext *ctx = b.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
  bool isFloat = isa<FloatType>(elementType);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{}, init,
             SmallVector<AffineMap>{id}, parallelIterators(1),
             [&](OpBuilder &nb, Location nl, ValueRange) {
               Value i = linalg::IndexOp::create(nb, nl, 0);
               Value i64 =
                   arith::IndexCastOp::create(nb, nl, nb.getI64Type(), i);
               Value v;
               if (isFloat) {
                 Value f =
                     arith::SIToFPOp::create(nb, nl, nb.getF64Type(), i64);
                 v = arith::AddFOp::create(
                     nb, nl, createScalar(nb, nl, nb.getF64Type(), start),
                     arith::MulFOp::create(
                         nb, nl, f,
                         createScalar(nb, nl, nb.getF64Type(), step)));
               } else {
                 v = arith::AddIOp::create(
                     nb, nl, createScalar(nb, nl, nb.getI64Type(), start),
                     arith::MulIOp::create(
                         nb, nl, i64,
                         createScalar(nb, nl, nb.getI64Type(), step)));
               }
               linalg::YieldOp::create(
                   nb, nl, buildConvertScalar(nb, nl, v, elementType));
             })
      .getResult(0);
}

FailureOr<DenseElementsAttr> mlprog::buildRangeAttr(Location loc,
                                                    Type elementType,
                                                    double start, double end,
                                                    double step) {
  if (step == 0)
    return emitError(loc) << "range: step must not be 0";
  double count = std::ceil((end - start) / step);
  if (!(count < double(1 << 30)))
    return emitError(loc) << "range: too many elements";
  int64_t n = std::max<int64_t>(0, int64_t(count));
  auto type = RankedTensorType::get({n}, elementType);
  if (auto ft = dyn_cast<FloatType>(elementType)) {
    SmallVector<APFloat> values;
    for (int64_t i = 0; i < n; ++i) {
      APFloat v(start + double(i) * step);
      bool lost;
      v.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      values.push_back(v);
    }
    return DenseElementsAttr::get(type, values);
  }
  if (!elementType.isSignlessInteger())
    return emitError(loc) << "range: unsupported element type " << elementType;
  SmallVector<APInt> values;
  for (int64_t i = 0; i < n; ++i)
    values.push_back(APInt(elementType.getIntOrFloatBitWidth(),
                           int64_t(start) + i * int64_t(step),
                           /*isSigned=*/true));
  return DenseElementsAttr::get(type, values);
}

FailureOr<Value> mlprog::buildRangeDynamic(OpBuilder &b, Location loc,
                                           Value start, Value limit,
                                           Value delta) {
  auto t = dyn_cast<RankedTensorType>(start.getType());
  if (!t || t.getRank() != 0 || limit.getType() != t || delta.getType() != t ||
      !t.getElementType().isIntOrFloat())
    return emitError(loc) << "range: start, limit and delta must be numeric "
                             "scalars of one type";
  Type et = t.getElementType();
  bool isFloat = isa<FloatType>(et);
  Value s = tensor::ExtractOp::create(b, loc, start, ValueRange{});
  Value l = tensor::ExtractOp::create(b, loc, limit, ValueRange{});
  Value d = tensor::ExtractOp::create(b, loc, delta, ValueRange{});
  Type f64 = b.getF64Type();
  auto toF64 = [&](Value v) -> Value {
    if (isFloat)
      return v.getType() == f64 ? v : arith::ExtFOp::create(b, loc, f64, v);
    return arith::SIToFPOp::create(b, loc, f64, v);
  };
  Value count = math::CeilOp::create(
      b, loc,
      arith::DivFOp::create(
          b, loc, arith::SubFOp::create(b, loc, toF64(l), toF64(s)), toF64(d)));
  count =
      arith::MaximumFOp::create(b, loc, count, createScalar(b, loc, f64, 0.0));
  Value n = arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      arith::FPToSIOp::create(b, loc, b.getI64Type(), count));
  Value init = createEmpty(b, loc, {OpFoldResult(n)}, et);
  AffineMap id = AffineMap::getMultiDimIdentityMap(1, b.getContext());
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange(), init,
             SmallVector<AffineMap>{id}, parallelIterators(1),
             [&](OpBuilder &nb, Location nl, ValueRange) {
               Value i = arith::IndexCastOp::create(
                   nb, nl, nb.getI64Type(), linalg::IndexOp::create(nb, nl, 0));
               Value v;
               if (isFloat) {
                 Value fi = arith::SIToFPOp::create(nb, nl, et, i);
                 v = arith::AddFOp::create(
                     nb, nl, s, arith::MulFOp::create(nb, nl, fi, d));
               } else {
                 Value ii =
                     et.getIntOrFloatBitWidth() == 64
                         ? i
                         : arith::TruncIOp::create(nb, nl, et, i).getResult();
                 v = arith::AddIOp::create(
                     nb, nl, s, arith::MulIOp::create(nb, nl, ii, d));
               }
               linalg::YieldOp::create(nb, nl, v);
             })
      .getResult(0);
}
FailureOr<Value> mlprog::buildOneHot(OpBuilder &b, Location loc, Value indices,
                                     int64_t depth, int64_t axis,
                                     Value offValue, Value onValue) {
  if (depth < 0)
    return emitError(loc) << "one_hot: invalid depth " << depth;
  return buildOneHotDynamic(b, loc, indices, b.getIndexAttr(depth), axis,
                            offValue, onValue);
}

FailureOr<Value> mlprog::buildOneHotDynamic(OpBuilder &b, Location loc,
                                            Value indices, OpFoldResult depth,
                                            int64_t axis, Value offValue,
                                            Value onValue) {
  auto it = dyn_cast<RankedTensorType>(indices.getType());
  if (!it || !it.getElementType().isSignlessInteger())
    return emitError(loc) << "one_hot indices must be an integer tensor";
  int64_t rank = it.getRank() + 1;
  if (axis < 0 || axis >= rank)
    return emitError(loc) << "one_hot: invalid axis " << axis;
  if (offValue.getType() != onValue.getType())
    return emitError(loc) << "one_hot: on/off values differ in type";
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, indices);
  sizes.insert(sizes.begin() + axis, depth);
  Value init = createEmpty(b, loc, sizes, onValue.getType());
  Value depthIdx = getValueOrCreateConstantIndexOp(b, loc, depth);
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> exprs;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      exprs.push_back(getAffineDimExpr(d, ctx));
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, ctx),
                                 AffineMap::getMultiDimIdentityMap(rank, ctx)};
  return linalg::GenericOp::create(
             b, loc, init.getType(), indices, init, maps,
             parallelIterators(rank),
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value idx = toIndex(nb, nl, args[0]);
               Value zero = arith::ConstantIndexOp::create(nb, nl, 0);
               Value neg = arith::CmpIOp::create(
                   nb, nl, arith::CmpIPredicate::slt, idx, zero);
               idx = arith::SelectOp::create(
                   nb, nl, neg, arith::AddIOp::create(nb, nl, idx, depthIdx),
                   idx);
               Value j = linalg::IndexOp::create(nb, nl, axis);
               Value hit = arith::CmpIOp::create(
                   nb, nl, arith::CmpIPredicate::eq, idx, j);
               linalg::YieldOp::create(
                   nb, nl,
                   arith::SelectOp::create(nb, nl, hit, onValue, offValue)
                       .getResult());
             })
      .getResult(0);
}

FailureOr<Value> mlprog::buildLinspace(OpBuilder &b, Location loc, Value start,
                                       Value end, int64_t steps,
                                       Type elementType,
                                       std::optional<double> base) {
  if (steps < 0 || !elementType.isIntOrFloat() || elementType.isInteger(1))
    return emitError(loc) << "linspace: unsupported steps " << steps
                          << " or element type " << elementType;
  Value s = buildConvertScalar(b, loc, start, elementType);
  Value e = buildConvertScalar(b, loc, end, elementType);
  if (!s || !e)
    return emitError(loc) << "linspace: bounds of types " << start.getType()
                          << " and " << end.getType() << " do not convert to "
                          << elementType;
  bool isFloat = isa<FloatType>(elementType);
  // The type the values are computed in.
  Type ct = isFloat ? elementType
            : base  ? Type(b.getF32Type())
                    : Type(b.getF64Type());
  Value cs = buildConvertScalar(b, loc, s, ct);
  Value ce = buildConvertScalar(b, loc, e, ct);
  // step: for integer logspace the difference is taken in the integers.
  Value diff =
      !isFloat && base
          ? buildConvertScalar(b, loc, arith::SubIOp::create(b, loc, e, s), ct)
          : arith::SubFOp::create(b, loc, ce, cs).getResult();
  Value step = arith::DivFOp::create(
      b, loc, diff, createScalar(b, loc, ct, double(steps - 1)));
  Value init = createEmpty(b, loc, {b.getIndexAttr(steps)}, elementType);
  AffineMap id = b.getMultiDimIdentityMap(1);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{}, init,
             SmallVector<AffineMap>{id}, parallelIterators(1),
             [&](OpBuilder &nb, Location nl, ValueRange) {
               Value i = arith::IndexCastOp::create(
                   nb, nl, nb.getI64Type(), linalg::IndexOp::create(nb, nl, 0));
               Value back = arith::SubIOp::create(
                   nb, nl,
                   arith::ConstantOp::create(nb, nl,
                                             nb.getI64IntegerAttr(steps - 1)),
                   i);
               Value lower = arith::CmpIOp::create(
                   nb, nl, arith::CmpIPredicate::slt, i,
                   arith::ConstantOp::create(nb, nl,
                                             nb.getI64IntegerAttr(steps / 2)));
               Value fromStart = arith::AddFOp::create(
                   nb, nl, cs,
                   arith::MulFOp::create(nb, nl, step,
                                         buildConvertScalar(nb, nl, i, ct)));
               Value fromEnd = arith::SubFOp::create(
                   nb, nl, ce,
                   arith::MulFOp::create(nb, nl, step,
                                         buildConvertScalar(nb, nl, back, ct)));
               Value v =
                   arith::SelectOp::create(nb, nl, lower, fromStart, fromEnd);
               // steps == 1 has no step (0 / 0): the start itself.
               if (steps == 1)
                 v = cs;
               if (base) {
                 Type pt = isFloat ? Type(nb.getF64Type()) : ct;
                 v = math::PowFOp::create(nb, nl,
                                          createScalar(nb, nl, pt, *base),
                                          buildConvertScalar(nb, nl, v, pt));
               }
               linalg::YieldOp::create(
                   nb, nl, buildConvertScalar(nb, nl, v, elementType));
             })
      .getResult(0);
}
