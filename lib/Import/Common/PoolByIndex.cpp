//===- PoolByIndex.cpp - Unpooling and embedding bags ---------------------===//
//
// The pooling builders driven by index tensors rather than windows:
// max-unpooling from plane indices and embedding bags (sum/mean/max of the
// rows an index list selects).
//
//===----------------------------------------------------------------------===//

#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Pool.h"
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

//===--- Unpooling with plane indices -------------------------------------===//

FailureOr<Value> mlprog::buildMaxUnpoolPlanes(OpBuilder &b, Location loc,
                                              Value x, Value indices,
                                              ArrayRef<int64_t> outputSize) {
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  auto it = dyn_cast<RankedTensorType>(indices.getType());
  if (!xt || !it || xt.getRank() < 3 || xt.getShape() != it.getShape() ||
      !it.getElementType().isSignlessInteger())
    return emitError(loc) << "max_unpool needs an [N, C, D1, ..., Dn] input "
                             "and integer indices of its shape, got "
                          << x.getType() << " and " << indices.getType();
  if (!xt.hasStaticShape())
    return emitError(loc) << "unsupported max_unpool with dynamic extents";
  if (int64_t(outputSize.size()) != xt.getRank() - 2 ||
      llvm::any_of(outputSize, [](int64_t o) { return o < 0; }))
    return emitError(loc) << "max_unpool: need " << xt.getRank() - 2
                          << " non-negative output sizes, got "
                          << outputSize.size();
  int64_t numN = xt.getDimSize(0), numC = xt.getDimSize(1), planeIn = 1,
          planeOut = 1;
  for (int64_t d : xt.getShape().drop_front(2))
    planeIn *= d;
  for (int64_t o : outputSize)
    planeOut *= o;
  FailureOr<Value> x3 = buildReshape(b, loc, x, {numN, numC, planeIn});
  FailureOr<Value> i3 = buildReshape(b, loc, indices, {numN, numC, planeIn});
  if (failed(x3) || failed(i3))
    return failure();
  Type et = xt.getElementType();
  Value init = createFilled(
      b, loc,
      {b.getIndexAttr(numN), b.getIndexAttr(numC), b.getIndexAttr(planeOut)},
      cast<TypedAttr>(b.getZeroAttr(et)));
  IndexMath m{b, loc};
  Value zero = m.c(0);
  Value planes = loop(
      b, loc, zero, m.c(numN), init,
      [&](OpBuilder &b1, Location l1, Value iN, ValueRange a1) {
        return loop(
            b1, l1, zero, cIndex(b1, l1, numC), a1,
            [&](OpBuilder &b2, Location l2, Value iC, ValueRange a2) {
              return loop(
                  b2, l2, zero, cIndex(b2, l2, planeIn), a2,
                  [&](OpBuilder &b3, Location l3, Value iP,
                      ValueRange a3) -> SmallVector<Value> {
                    IndexMath im{b3, l3};
                    Value at = im.index(tensor::ExtractOp::create(
                        b3, l3, *i3, ValueRange{iN, iC, iP}));
                    Value valid = arith::AndIOp::create(
                        b3, l3, im.cmp(arith::CmpIPredicate::sge, at, im.c(0)),
                        im.lt(at, im.c(planeOut)));
                    return ifElse(
                        b3, l3, valid,
                        [&](OpBuilder &tb, Location tl) -> SmallVector<Value> {
                          Value v = tensor::ExtractOp::create(
                              tb, tl, *x3, ValueRange{iN, iC, iP});
                          return {tensor::InsertOp::create(
                                      tb, tl, v, a3[0], ValueRange{iN, iC, at})
                                      .getResult()};
                        },
                        [&](OpBuilder &, Location) -> SmallVector<Value> {
                          return {a3[0]};
                        });
                  });
            });
      })[0];
  SmallVector<int64_t> shape = {numN, numC};
  llvm::append_range(shape, outputSize);
  return buildReshape(b, loc, planes, shape);
}

//===--- Embedding bags ---------------------------------------------------===//

FailureOr<Value> mlprog::buildEmbeddingBag(OpBuilder &b, Location loc,
                                           Value weight, Value indices,
                                           Value offsets, EmbeddingBagMode mode,
                                           Value perSampleWeights,
                                           bool includeLastOffset,
                                           std::optional<int64_t> paddingIdx) {
  auto wt = dyn_cast<RankedTensorType>(weight.getType());
  auto it = dyn_cast<RankedTensorType>(indices.getType());
  auto ot = dyn_cast<RankedTensorType>(offsets.getType());
  if (!wt || wt.getRank() != 2 || !isa<FloatType>(wt.getElementType()) || !it ||
      it.getRank() != 1 || !it.getElementType().isSignlessInteger() || !ot ||
      ot.getRank() != 1 || !ot.getElementType().isSignlessInteger())
    return emitError(loc) << "embedding_bag needs a float [V, D] weight and "
                             "1-D integer indices and offsets, got "
                          << weight.getType() << ", " << indices.getType()
                          << ", " << offsets.getType();
  Type et = wt.getElementType();
  if (perSampleWeights) {
    auto pt = dyn_cast<RankedTensorType>(perSampleWeights.getType());
    if (mode != EmbeddingBagMode::Sum)
      return emitError(loc) << "embedding_bag: per_sample_weights need mode "
                               "'sum'";
    if (!pt || pt.getRank() != 1 || pt.getElementType() != et)
      return emitError(loc) << "embedding_bag: per_sample_weights must be 1-D "
                               "of the weight's type, got "
                            << perSampleWeights.getType();
  }
  IndexMath m{b, loc};
  Value numIndices = tensor::DimOp::create(b, loc, indices, 0);
  Value numOffsets = tensor::DimOp::create(b, loc, offsets, 0);
  Value numRows = tensor::DimOp::create(b, loc, weight, 0);
  Value numBags =
      includeLastOffset ? m.max(m.sub(numOffsets, m.c(1)), m.c(0)) : numOffsets;
  SmallVector<OpFoldResult> sizes = {getAsOpFoldResult(numBags),
                                     tensor::getMixedSize(b, loc, weight, 1)};
  if (!includeLastOffset && !ot.isDynamicDim(0))
    sizes[0] = b.getIndexAttr(ot.getDimSize(0));
  Value init = createEmpty(b, loc, sizes, et);
  AffineMap id = AffineMap::getMultiDimIdentityMap(2, b.getContext());
  bool isMax = mode == EmbeddingBagMode::Max;
  auto body = [&](OpBuilder &nb, Location nl, ValueRange) {
    IndexMath t{nb, nl};
    Value bag = linalg::IndexOp::create(nb, nl, 0);
    Value d = linalg::IndexOp::create(nb, nl, 1);
    auto offsetAt = [&](Value i) {
      return t.index(tensor::ExtractOp::create(nb, nl, offsets, i));
    };
    Value next = t.add(bag, t.c(1));
    Value start = t.clamp(offsetAt(bag), t.c(0), numIndices);
    Value end = includeLastOffset
                    ? offsetAt(next)
                    : t.select(t.lt(next, numOffsets),
                               offsetAt(t.min(next, t.sub(numOffsets, t.c(1)))),
                               numIndices);
    end = t.clamp(end, start, numIndices);
    Value acc0 = arith::ConstantOp::create(
        nb, nl, isMax ? getLowestAttr(et) : nb.getZeroAttr(et));
    SmallVector<Value> r = loop(
        nb, nl, start, end, ValueRange{acc0, t.c(0)},
        [&](OpBuilder &lb, Location ll, Value j,
            ValueRange st) -> SmallVector<Value> {
          IndexMath u{lb, ll};
          Value row = u.index(tensor::ExtractOp::create(lb, ll, indices, j));
          Value keep = arith::ConstantOp::create(lb, ll, lb.getBoolAttr(true));
          if (paddingIdx) {
            Value pad = *paddingIdx < 0 ? u.add(numRows, u.c(*paddingIdx))
                                        : u.c(*paddingIdx);
            keep = u.cmp(arith::CmpIPredicate::ne, row, pad);
          }
          row = u.clamp(row, u.c(0), u.sub(numRows, u.c(1)));
          Value v =
              tensor::ExtractOp::create(lb, ll, weight, ValueRange{row, d});
          if (perSampleWeights)
            v = arith::MulFOp::create(
                lb, ll, v,
                tensor::ExtractOp::create(lb, ll, perSampleWeights, j));
          Value acc =
              isMax ? arith::MaximumFOp::create(lb, ll, st[0], v).getResult()
                    : arith::AddFOp::create(lb, ll, st[0], v).getResult();
          return {u.select(keep, acc, st[0]),
                  u.select(keep, u.add(st[1], u.c(1)), st[1])};
        });
    Value result = r[0];
    Value empty = t.eq(r[1], t.c(0));
    if (mode == EmbeddingBagMode::Mean) {
      Value count = arith::IndexCastOp::create(nb, nl, nb.getI64Type(), r[1]);
      result = arith::DivFOp::create(
          nb, nl, result, arith::SIToFPOp::create(nb, nl, et, count));
    }
    Value zero = arith::ConstantOp::create(nb, nl, nb.getZeroAttr(et));
    linalg::YieldOp::create(nb, nl, t.select(empty, zero, result));
  };
  return linalg::GenericOp::create(b, loc, init.getType(), ValueRange(), init,
                                   SmallVector<AffineMap>{id},
                                   parallelIterators(2), body)
      .getResult(0);
}
