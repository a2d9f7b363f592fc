//===- DeformConv.cpp - Deformable convolution ----------------------------===//
//
// buildDeformConv2D: bilinear samples of the input at the offset taps of
// every output position (one linalg.generic over [N, C, kH, kW, oH, oW]
// whose body gathers with tensor.extract), contracted with the filter per
// channel group (einsum).
//
//===----------------------------------------------------------------------===//

#include "Utils.h"
#include "mlprog/Import/Common/Conv.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/LinearAlgebra.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

FailureOr<Value> mlprog::buildDeformConv2D(OpBuilder &b, Location loc,
                                           Value input, Value filter,
                                           Value offset, Value mask, Value bias,
                                           const WindowParams &params,
                                           int64_t groups,
                                           int64_t offsetGroups) {
  auto xt = dyn_cast<RankedTensorType>(input.getType());
  auto wt = dyn_cast<RankedTensorType>(filter.getType());
  auto ot = dyn_cast<RankedTensorType>(offset.getType());
  auto mt =
      mask ? dyn_cast<RankedTensorType>(mask.getType()) : RankedTensorType();
  if (!xt || !wt || !ot || (mask && !mt) || xt.getRank() != 4 ||
      wt.getRank() != 4 || ot.getRank() != 4 || (mt && mt.getRank() != 4))
    return emitError(loc) << "deform conv: expected 4-D input, filter, offset "
                             "and mask";
  if (!xt.hasStaticShape() || !wt.hasStaticShape() || !ot.hasStaticShape() ||
      (mt && !mt.hasStaticShape()))
    return emitError(loc) << "unsupported deform conv of dynamic shapes";
  Type et = xt.getElementType();
  if (!isa<FloatType>(et) || wt.getElementType() != et ||
      ot.getElementType() != et || (mt && mt.getElementType() != et))
    return emitError(loc) << "deform conv: operands must share one float type";
  int64_t n = xt.getDimSize(0), c = xt.getDimSize(1), h = xt.getDimSize(2),
          w = xt.getDimSize(3);
  int64_t f = wt.getDimSize(0), kh = wt.getDimSize(2), kw = wt.getDimSize(3);
  int64_t oh = ot.getDimSize(2), ow = ot.getDimSize(3);
  if (groups < 1 || offsetGroups < 1 || c % groups || f % groups ||
      c % offsetGroups || wt.getDimSize(1) * groups != c)
    return emitError(loc) << "deform conv: " << groups << " groups and "
                          << offsetGroups << " offset groups do not divide "
                          << c << " channels and " << f << " filters";
  if (ot.getDimSize(0) != n || ot.getDimSize(1) != offsetGroups * 2 * kh * kw)
    return emitError(loc) << "deform conv: offset " << ot << " does not match "
                          << offsetGroups << " offset groups of " << kh << "x"
                          << kw << " taps";
  if (mt &&
      (mt.getShape() != ArrayRef<int64_t>{n, offsetGroups * kh * kw, oh, ow}))
    return emitError(loc) << "deform conv: mask " << mt
                          << " does not match the offset " << ot;
  // Empty window parameters take their defaults (stride and dilation 1, no
  // padding); the output extents come from the offset.
  auto orDefault = [](ArrayRef<int64_t> v, int64_t d) {
    return v.empty() ? SmallVector<int64_t>(2, d) : SmallVector<int64_t>(v);
  };
  WindowParams p{orDefault(params.strides, 1), orDefault(params.dilations, 1),
                 orDefault(params.padsBegin, 0), orDefault(params.padsEnd, 0)};
  if (p.strides.size() != 2 || p.dilations.size() != 2 ||
      p.padsBegin.size() != 2)
    return emitError(loc) << "deform conv: expected 2-D window parameters";

  Type ct = et.isF16() || et.isBF16() ? Type(b.getF32Type()) : et;
  int64_t perOffsetGroup = c / offsetGroups;
  Value cols =
      createEmpty(b, loc,
                  {b.getIndexAttr(n), b.getIndexAttr(c), b.getIndexAttr(kh),
                   b.getIndexAttr(kw), b.getIndexAttr(oh), b.getIndexAttr(ow)},
                  ct);
  auto samples = linalg::GenericOp::create(
      b, loc, cols.getType(), ValueRange{}, ValueRange{cols},
      SmallVector<AffineMap>{
          AffineMap::getMultiDimIdentityMap(6, b.getContext())},
      parallelIterators(6), [&](OpBuilder &nb, Location nl, ValueRange) {
        IndexMath m{nb, nl};
        SmallVector<Value> iv;
        for (unsigned d = 0; d < 6; ++d)
          iv.push_back(linalg::IndexOp::create(nb, nl, d));
        Value bn = iv[0], ch = iv[1], i = iv[2], j = iv[3], y = iv[4],
              x = iv[5];
        Value g = arith::DivUIOp::create(nb, nl, ch, m.c(perOffsetGroup));
        Value tap = m.add(m.mul(i, m.c(kw)), j);
        // Offset channels g * 2 kH kW + 2 tap + {0, 1}; mask g * kH kW + tap.
        Value offBase = m.add(m.mul(g, m.c(2 * kh * kw)), m.mul(tap, m.c(2)));
        auto toCt = [&](Value v) -> Value {
          return ct == et ? v : arith::ExtFOp::create(nb, nl, ct, v);
        };
        Value dy = toCt(
            tensor::ExtractOp::create(nb, nl, offset, {bn, offBase, y, x}));
        Value dx = toCt(tensor::ExtractOp::create(
            nb, nl, offset, {bn, m.add(offBase, m.c(1)), y, x}));
        auto coord = [&](Value o, int64_t stride, int64_t pad, Value k,
                         int64_t dil) -> Value {
          Value base =
              m.add(m.sub(m.mul(o, m.c(stride)), m.c(pad)), m.mul(k, m.c(dil)));
          Value bi = arith::IndexCastOp::create(nb, nl, nb.getI64Type(), base);
          return arith::SIToFPOp::create(nb, nl, ct, bi);
        };
        Value py = arith::AddFOp::create(
            nb, nl, coord(y, p.strides[0], p.padsBegin[0], i, p.dilations[0]),
            dy);
        Value px = arith::AddFOp::create(
            nb, nl, coord(x, p.strides[1], p.padsBegin[1], j, p.dilations[1]),
            dx);
        Value fy = math::FloorOp::create(nb, nl, py);
        Value fx = math::FloorOp::create(nb, nl, px);
        Value ty = arith::SubFOp::create(nb, nl, py, fy);
        Value tx = arith::SubFOp::create(nb, nl, px, fx);
        Type i64 = nb.getI64Type();
        Value y0 = arith::FPToSIOp::create(nb, nl, i64, fy);
        Value x0 = arith::FPToSIOp::create(nb, nl, i64, fx);
        Value one = createScalar(nb, nl, ct, 1.0);
        Value zero = createScalar(nb, nl, ct, 0.0);
        Value acc = zero;
        for (int64_t a = 0; a < 2; ++a) {
          for (int64_t e = 0; e < 2; ++e) {
            Value yy = arith::AddIOp::create(
                nb, nl, y0, arith::ConstantIntOp::create(nb, nl, i64, a));
            Value xx = arith::AddIOp::create(
                nb, nl, x0, arith::ConstantIntOp::create(nb, nl, i64, e));
            auto inRange = [&](Value v, int64_t hi) -> Value {
              Value lo = arith::CmpIOp::create(
                  nb, nl, arith::CmpIPredicate::sge, v,
                  arith::ConstantIntOp::create(nb, nl, i64, 0));
              Value up = arith::CmpIOp::create(
                  nb, nl, arith::CmpIPredicate::slt, v,
                  arith::ConstantIntOp::create(nb, nl, i64, hi));
              return arith::AndIOp::create(nb, nl, lo, up);
            };
            Value inside =
                arith::AndIOp::create(nb, nl, inRange(yy, h), inRange(xx, w));
            auto clampIdx = [&](Value v, int64_t hi) -> Value {
              Value cl = arith::MaxSIOp::create(
                  nb, nl, v, arith::ConstantIntOp::create(nb, nl, i64, 0));
              cl = arith::MinSIOp::create(
                  nb, nl, cl,
                  arith::ConstantIntOp::create(nb, nl, i64, hi - 1));
              return arith::IndexCastOp::create(nb, nl, nb.getIndexType(), cl);
            };
            Value v = toCt(tensor::ExtractOp::create(
                nb, nl, input, {bn, ch, clampIdx(yy, h), clampIdx(xx, w)}));
            v = arith::SelectOp::create(nb, nl, inside, v, zero);
            Value wy = a ? ty : arith::SubFOp::create(nb, nl, one, ty);
            Value wx = e ? tx : arith::SubFOp::create(nb, nl, one, tx);
            Value wgt = arith::MulFOp::create(nb, nl, wy, wx);
            acc = arith::AddFOp::create(nb, nl, acc,
                                        arith::MulFOp::create(nb, nl, wgt, v));
          }
        }
        if (mask) {
          Value mi = m.add(m.mul(g, m.c(kh * kw)), tap);
          acc = arith::MulFOp::create(
              nb, nl, acc,
              toCt(tensor::ExtractOp::create(nb, nl, mask, {bn, mi, y, x})));
        }
        linalg::YieldOp::create(nb, nl, acc);
      });
  // [N, C, kH, kW, oH, oW] -> [N, groups, C / groups, kH, kW, oH, oW];
  // filter [F, C / groups, kH, kW] -> [groups, F / groups, C / groups, kH, kW].
  FailureOr<Value> s7 = buildReshape(b, loc, samples.getResult(0),
                                     {n, groups, c / groups, kh, kw, oh, ow});
  FailureOr<Value> filt = buildConvertElementType(b, loc, filter, ct);
  if (failed(filt))
    return failure();
  FailureOr<Value> w5 =
      buildReshape(b, loc, *filt, {groups, f / groups, c / groups, kh, kw});
  if (failed(s7) || failed(w5))
    return failure();
  FailureOr<Value> y = buildEinsum(b, loc, "ngcklxy,gockl->ngoxy", {*s7, *w5});
  if (failed(y))
    return failure();
  FailureOr<Value> y4 = buildReshape(b, loc, *y, {n, f, oh, ow});
  if (failed(y4))
    return failure();
  FailureOr<Value> converted = buildConvertElementType(b, loc, *y4, et);
  if (failed(converted))
    return failure();
  Value result = *converted;
  if (!bias)
    return result;
  FailureOr<Value> b4 = buildReshape(b, loc, bias, {1, f, 1, 1});
  if (failed(b4))
    return failure();
  return buildElementwiseBinary(b, loc, BinaryOpKind::Add, result, *b4);
}
