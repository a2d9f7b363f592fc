//===- Rearrange.cpp - Block moves, masks and shape-tensor ops ------------===//

#include "mlprog/Import/Common/Rearrange.h"
#include "Utils.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

static Value toIndex(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isIndex())
    return v;
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

static Value yieldCopy(OpBuilder &b, Location loc, Value x,
                       ArrayRef<Value> at) {
  return tensor::ExtractOp::create(b, loc, x, at).getResult();
}

FailureOr<Value> mlprog::buildDepthToSpace(OpBuilder &b, Location loc, Value x,
                                           int64_t bs, bool crd) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "depth_to_space");
  if (failed(type))
    return failure();
  ArrayRef<int64_t> s = type->getShape();
  if (s.size() != 4 || bs < 1 || llvm::any_of(s.drop_front(), [](int64_t d) {
        return ShapedType::isDynamic(d);
      }))
    return emitError(loc) << "depth_to_space needs [N, C, H, W] with static "
                             "C, H, W, got "
                          << *type;
  if (s[1] % (bs * bs))
    return emitError(loc) << "depth_to_space: channels " << s[1]
                          << " not divisible by blocksize^2";
  int64_t c = s[1] / (bs * bs), n = s[0];
  SmallVector<int64_t> split =
      crd ? SmallVector<int64_t>{n, c, bs, bs, s[2], s[3]}
          : SmallVector<int64_t>{n, bs, bs, c, s[2], s[3]};
  SmallVector<int64_t> perm = crd ? SmallVector<int64_t>{0, 1, 4, 2, 5, 3}
                                  : SmallVector<int64_t>{0, 3, 4, 1, 5, 2};
  FailureOr<Value> r = buildReshape(b, loc, x, split);
  if (succeeded(r))
    r = buildTranspose(b, loc, *r, perm);
  if (succeeded(r))
    r = buildReshape(b, loc, *r, {n, c, s[2] * bs, s[3] * bs});
  return r;
}

FailureOr<Value> mlprog::buildSpaceToDepth(OpBuilder &b, Location loc, Value x,
                                           int64_t bs) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "space_to_depth");
  if (failed(type))
    return failure();
  ArrayRef<int64_t> s = type->getShape();
  if (s.size() != 4 || bs < 1 || llvm::any_of(s.drop_front(), [](int64_t d) {
        return ShapedType::isDynamic(d);
      }))
    return emitError(loc) << "space_to_depth needs [N, C, H, W] with static "
                             "C, H, W, got "
                          << *type;
  if (s[2] % bs || s[3] % bs)
    return emitError(loc) << "space_to_depth: spatial extents not divisible "
                             "by the blocksize";
  int64_t n = s[0], c = s[1], h = s[2] / bs, w = s[3] / bs;
  FailureOr<Value> r = buildReshape(b, loc, x, {n, c, h, bs, w, bs});
  if (succeeded(r))
    r = buildTranspose(b, loc, *r, {0, 3, 5, 1, 2, 4});
  if (succeeded(r))
    r = buildReshape(b, loc, *r, {n, c * bs * bs, h, w});
  return r;
}

FailureOr<Value> mlprog::buildBandPart(OpBuilder &b, Location loc, Value x,
                                       OpFoldResult minDiagonal,
                                       OpFoldResult maxDiagonal) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "band part");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  Type et = type->getElementType();
  if (rank < 2 || !et.isIntOrFloat())
    return emitError(loc) << "band part needs a numeric tensor of rank >= 2, "
                             "got "
                          << *type;
  Value lo = minDiagonal ? getValueOrCreateConstantIndexOp(b, loc, minDiagonal)
                         : Value();
  Value hi = maxDiagonal ? getValueOrCreateConstantIndexOp(b, loc, maxDiagonal)
                         : Value();
  Value init = createEmpty(b, loc, tensor::getMixedSizes(b, loc, x), et);
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  return linalg::GenericOp::create(
             b, loc, init.getType(), x, init, SmallVector<AffineMap>{id, id},
             parallelIterators(rank),
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value i = linalg::IndexOp::create(nb, nl, rank - 2);
               Value j = linalg::IndexOp::create(nb, nl, rank - 1);
               Value diff = arith::SubIOp::create(nb, nl, j, i);
               Value keep;
               auto require = [&](arith::CmpIPredicate p, Value bound) {
                 Value c = arith::CmpIOp::create(nb, nl, p, diff, bound);
                 keep = keep ? arith::AndIOp::create(nb, nl, keep, c) : c;
               };
               if (lo)
                 require(arith::CmpIPredicate::sge, lo);
               if (hi)
                 require(arith::CmpIPredicate::sle, hi);
               Value r = args[0];
               if (keep)
                 r = arith::SelectOp::create(nb, nl, keep, args[0],
                                             createScalar(nb, nl, et, 0.0));
               linalg::YieldOp::create(nb, nl, r);
             })
      .getResult(0);
}

FailureOr<Value> mlprog::buildReverseSequence(OpBuilder &b, Location loc,
                                              Value x, Value lengths,
                                              int64_t batchAxis,
                                              int64_t timeAxis) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "reverse_sequence");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  auto lt = dyn_cast<RankedTensorType>(lengths.getType());
  if (rank < 2 || batchAxis == timeAxis || batchAxis < 0 || timeAxis < 0 ||
      batchAxis >= rank || timeAxis >= rank || !lt || lt.getRank() != 1 ||
      !lt.getElementType().isSignlessInteger())
    return emitError(loc) << "reverse_sequence: invalid operands or axes";
  Value init = createEmpty(b, loc, tensor::getMixedSizes(b, loc, x),
                           type->getElementType());
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange(), init,
             SmallVector<AffineMap>{id}, parallelIterators(rank),
             [&](OpBuilder &nb, Location nl, ValueRange) {
               SmallVector<Value> at;
               for (int64_t d = 0; d < rank; ++d)
                 at.push_back(linalg::IndexOp::create(nb, nl, d));
               Value len =
                   toIndex(nb, nl,
                           tensor::ExtractOp::create(
                               nb, nl, lengths, ValueRange{at[batchAxis]}));
               Value t = at[timeAxis];
               Value inside = arith::CmpIOp::create(
                   nb, nl, arith::CmpIPredicate::slt, t, len);
               Value rev = arith::SubIOp::create(
                   nb, nl, arith::SubIOp::create(nb, nl, len, t),
                   arith::ConstantIndexOp::create(nb, nl, 1));
               at[timeAxis] = arith::SelectOp::create(nb, nl, inside, rev, t);
               linalg::YieldOp::create(nb, nl, yieldCopy(nb, nl, x, at));
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

/// `idx` (index) wrapped if negative and clamped into [0, n).
static Value wrapClamp(OpBuilder &b, Location loc, Value idx, Value n) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value neg =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, idx, zero);
  idx = arith::SelectOp::create(b, loc, neg,
                                arith::AddIOp::create(b, loc, idx, n), idx);
  idx = arith::MinSIOp::create(b, loc, idx,
                               arith::SubIOp::create(b, loc, n, one));
  return arith::MaxSIOp::create(b, loc, idx, zero);
}

FailureOr<Value> mlprog::buildGatherND(OpBuilder &b, Location loc, Value data,
                                       Value indices, int64_t batchDims) {
  FailureOr<RankedTensorType> dt = getRankedType(loc, data, "gather_nd");
  auto it = dyn_cast<RankedTensorType>(indices.getType());
  if (failed(dt))
    return failure();
  if (!it || !it.getElementType().isSignlessInteger() || it.getRank() < 1)
    return emitError(loc) << "gather_nd indices must be an integer tensor of "
                             "rank >= 1";
  int64_t r = dt->getRank(), ri = it.getRank();
  int64_t q = it.getDimSize(ri - 1);
  if (ShapedType::isDynamic(q) || batchDims < 0 || batchDims >= ri ||
      batchDims + q > r)
    return emitError(loc) << "gather_nd: indices " << it << " do not fit "
                          << *dt << " with batch_dims " << batchDims;
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < ri - 1; ++d)
    sizes.push_back(tensor::getMixedSize(b, loc, indices, d));
  for (int64_t d = batchDims + q; d < r; ++d)
    sizes.push_back(tensor::getMixedSize(b, loc, data, d));
  int64_t outRank = sizes.size();
  Value init = createEmpty(b, loc, sizes, dt->getElementType());
  SmallVector<Value> extents;
  for (int64_t d = 0; d < r; ++d)
    extents.push_back(tensor::DimOp::create(b, loc, data, d));
  AffineMap id = AffineMap::getMultiDimIdentityMap(outRank, b.getContext());
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange(), init,
             SmallVector<AffineMap>{id}, parallelIterators(outRank),
             [&](OpBuilder &nb, Location nl, ValueRange) {
               SmallVector<Value> o;
               for (int64_t d = 0; d < outRank; ++d)
                 o.push_back(linalg::IndexOp::create(nb, nl, d));
               SmallVector<Value> at(o.begin(), o.begin() + batchDims);
               for (int64_t k = 0; k < q; ++k) {
                 SmallVector<Value> ip(o.begin(), o.begin() + ri - 1);
                 ip.push_back(arith::ConstantIndexOp::create(nb, nl, k));
                 Value v = toIndex(
                     nb, nl, tensor::ExtractOp::create(nb, nl, indices, ip));
                 at.push_back(wrapClamp(nb, nl, v, extents[batchDims + k]));
               }
               at.append(o.begin() + ri - 1, o.end());
               linalg::YieldOp::create(nb, nl, yieldCopy(nb, nl, data, at));
             })
      .getResult(0);
}

FailureOr<std::pair<Value, Value>> mlprog::buildTopK(OpBuilder &b, Location loc,
                                                     Value x, int64_t k,
                                                     int64_t axis,
                                                     bool largest) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "topk");
  if (failed(type))
    return failure();
  if (axis < 0 || axis >= type->getRank())
    return emitError(loc) << "topk: invalid axis or element type";
  int64_t n = type->getDimSize(axis);
  if (ShapedType::isDynamic(n) || k < 0 || k > n)
    return emitError(loc) << "topk: k " << k << " does not fit extent " << n;
  return buildTopKDynamic(b, loc, x, b.getIndexAttr(k), axis, largest);
}

FailureOr<std::pair<Value, Value>>
mlprog::buildTopKDynamic(OpBuilder &b, Location loc, Value x, OpFoldResult k,
                         int64_t axis, bool largest) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "topk");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  Type et = type->getElementType();
  if (axis < 0 || axis >= rank || !et.isIntOrFloat())
    return emitError(loc) << "topk: invalid axis or element type";
  MLIRContext *ctx = b.getContext();
  bool isFloat = isa<FloatType>(et);
  // rank[.., j, ..] = #{m : x[m] before x[j]} in the sorted order.
  SmallVector<AffineExpr> mExprs, idExprs;
  for (int64_t d = 0; d < rank; ++d) {
    idExprs.push_back(getAffineDimExpr(d, ctx));
    mExprs.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
  }
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  Value zeros = createFilled(b, loc, sizes, b.getI64IntegerAttr(0));
  SmallVector<utils::IteratorType> iters = parallelIterators(rank);
  iters.push_back(utils::IteratorType::reduction);
  SmallVector<AffineMap> maps = {AffineMap::get(rank + 1, 0, idExprs, ctx),
                                 AffineMap::get(rank + 1, 0, mExprs, ctx),
                                 AffineMap::get(rank + 1, 0, idExprs, ctx)};
  Value ranks =
      linalg::GenericOp::create(
          b, loc, zeros.getType(), ValueRange{x, x}, zeros, maps, iters,
          [&](OpBuilder &nb, Location nl, ValueRange args) {
            Value xj = args[0], xm = args[1];
            Value j = linalg::IndexOp::create(nb, nl, axis);
            Value m = linalg::IndexOp::create(nb, nl, rank);
            Value better, equal;
            if (isFloat) {
              better =
                  arith::CmpFOp::create(nb, nl,
                                        largest ? arith::CmpFPredicate::OGT
                                                : arith::CmpFPredicate::OLT,
                                        xm, xj);
              equal = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ,
                                            xm, xj);
            } else {
              better =
                  arith::CmpIOp::create(nb, nl,
                                        largest ? arith::CmpIPredicate::sgt
                                                : arith::CmpIPredicate::slt,
                                        xm, xj);
              equal = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq,
                                            xm, xj);
            }
            Value earlier =
                arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ult, m, j);
            Value before = arith::OrIOp::create(
                nb, nl, better, arith::AndIOp::create(nb, nl, equal, earlier));
            Value inc = arith::ExtUIOp::create(nb, nl, nb.getI64Type(), before);
            linalg::YieldOp::create(
                nb, nl,
                arith::AddIOp::create(nb, nl, args[2], inc).getResult());
          })
          .getResult(0);
  // values[.., q, ..] = x[.., j, ..] where rank[j] == q.
  sizes[axis] = k;
  Value vInit = createFilled(b, loc, sizes, b.getZeroAttr(et));
  Value iInit = createFilled(b, loc, sizes, b.getI64IntegerAttr(0));
  maps = {AffineMap::get(rank + 1, 0, mExprs, ctx),
          AffineMap::get(rank + 1, 0, mExprs, ctx),
          AffineMap::get(rank + 1, 0, idExprs, ctx),
          AffineMap::get(rank + 1, 0, idExprs, ctx)};
  auto select = linalg::GenericOp::create(
      b, loc, TypeRange{vInit.getType(), iInit.getType()}, ValueRange{x, ranks},
      ValueRange{vInit, iInit}, maps, iters,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value q = arith::IndexCastOp::create(
            nb, nl, nb.getI64Type(), linalg::IndexOp::create(nb, nl, axis));
        Value j = arith::IndexCastOp::create(
            nb, nl, nb.getI64Type(), linalg::IndexOp::create(nb, nl, rank));
        Value hit =
            arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, args[1], q);
        linalg::YieldOp::create(
            nb, nl,
            ValueRange{arith::SelectOp::create(nb, nl, hit, args[0], args[2]),
                       arith::SelectOp::create(nb, nl, hit, j, args[3])});
      });
  return std::make_pair(select.getResult(0), select.getResult(1));
}

SmallVector<OpFoldResult> mlprog::extractShapeSizes(OpBuilder &b, Location loc,
                                                    Value shape) {
  auto st = cast<RankedTensorType>(shape.getType());
  SmallVector<OpFoldResult> sizes;
  for (int64_t i = 0; i < st.getDimSize(0); ++i) {
    Value idx = arith::ConstantIndexOp::create(b, loc, i);
    Value v = tensor::ExtractOp::create(b, loc, shape, ValueRange{idx});
    sizes.push_back(getAsOpFoldResult(toIndex(b, loc, v)));
  }
  return sizes;
}

FailureOr<Value> mlprog::buildReshapeToShapeTensor(OpBuilder &b, Location loc,
                                                   Value x, Value shape,
                                                   bool allowZero,
                                                   ArrayRef<int64_t> hint) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "reshape");
  auto st = dyn_cast<RankedTensorType>(shape.getType());
  if (failed(type))
    return failure();
  if (!st || st.getRank() != 1 || st.isDynamicDim(0) ||
      !st.getElementType().isSignlessInteger())
    return emitError(loc) << "reshape: the shape must be a 1-D integer tensor "
                             "of static length, got "
                          << shape.getType();
  int64_t r = st.getDimSize(0);
  if (!hint.empty() && int64_t(hint.size()) != r)
    return emitError(loc) << "reshape: shape hint does not match";
  SmallVector<OpFoldResult> raw = extractShapeSizes(b, loc, shape);
  SmallVector<Value> sizes;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value minusOne = arith::ConstantIndexOp::create(b, loc, -1);
  Value total = one;
  for (int64_t d = 0; d < type->getRank(); ++d)
    total = arith::MulIOp::create(b, loc, total,
                                  tensor::DimOp::create(b, loc, x, d));
  Value known = one;
  for (int64_t i = 0; i < r; ++i) {
    Value s = getValueOrCreateConstantIndexOp(b, loc, raw[i]);
    if (!allowZero && i < type->getRank()) {
      Value isZero =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, s, zero);
      s = arith::SelectOp::create(b, loc, isZero,
                                  tensor::DimOp::create(b, loc, x, i), s);
    }
    sizes.push_back(s);
    Value isInferred =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, s, minusOne);
    known = arith::MulIOp::create(
        b, loc, known, arith::SelectOp::create(b, loc, isInferred, one, s));
  }
  // Guard the division for empty tensors (0 elements, a known extent 0).
  Value safeKnown = arith::MaxSIOp::create(b, loc, known, one);
  Value inferred = arith::DivSIOp::create(b, loc, total, safeKnown);
  SmallVector<Value> elems;
  for (Value &s : sizes) {
    Value isInferred =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, s, minusOne);
    s = arith::SelectOp::create(b, loc, isInferred, inferred, s);
    elems.push_back(s);
  }
  Value shapeIdx = tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({r}, b.getIndexType()), elems);
  SmallVector<int64_t> dyn(r, ShapedType::kDynamic);
  Value result = tensor::ReshapeOp::create(
      b, loc, RankedTensorType::get(dyn, type->getElementType()), x, shapeIdx);
  if (!hint.empty() &&
      llvm::any_of(hint, [](int64_t d) { return !ShapedType::isDynamic(d); }))
    result = tensor::CastOp::create(
        b, loc, RankedTensorType::get(hint, type->getElementType()), result);
  return result;
}

FailureOr<Value> mlprog::buildExpandToSizes(OpBuilder &b, Location loc, Value x,
                                            ArrayRef<OpFoldResult> sizes) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "expand");
  if (failed(type))
    return failure();
  int64_t rank = std::max<int64_t>(sizes.size(), type->getRank());
  int64_t xr = type->getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<OpFoldResult> out;
  SmallVector<AffineExpr> exprs;
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t xd = d - (rank - xr);
    int64_t sd = d - (rank - int64_t(sizes.size()));
    OpFoldResult xs =
        xd >= 0 ? tensor::getMixedSize(b, loc, x, xd) : b.getIndexAttr(1);
    if (sd < 0) {
      out.push_back(xs);
    } else {
      std::optional<int64_t> cs = getConstantIntValue(sizes[sd]);
      if (cs && *cs == 1) {
        out.push_back(xs);
      } else if (xd >= 0 && type->getDimSize(xd) != 1) {
        // A non-unit input extent is kept (shape entries are 1 or equal).
        out.push_back(xs);
      } else if (cs) {
        out.push_back(sizes[sd]);
      } else {
        Value s = getValueOrCreateConstantIndexOp(b, loc, sizes[sd]);
        Value isOne =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, s, one);
        Value xv = getValueOrCreateConstantIndexOp(b, loc, xs);
        out.push_back(
            arith::SelectOp::create(b, loc, isOne, xv, s).getResult());
      }
    }
    if (xd >= 0)
      exprs.push_back(type->getDimSize(xd) == 1 ? getAffineConstantExpr(0, ctx)
                                                : getAffineDimExpr(d, ctx));
  }
  Value init = createEmpty(b, loc, out, type->getElementType());
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, exprs, ctx),
                                 AffineMap::getMultiDimIdentityMap(rank, ctx)};
  return linalg::GenericOp::create(
             b, loc, init.getType(), x, init, maps, parallelIterators(rank),
             [&](OpBuilder &nb, Location nl, ValueRange a) {
               linalg::YieldOp::create(nb, nl, a[0]);
             })
      .getResult(0);
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
