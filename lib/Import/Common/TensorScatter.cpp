//===- TensorScatter.cpp - Key/value cache updates ------------------------===//
//
// buildTensorScatter: writes a block of new sequence positions into a
// cache at per-batch offsets (linear or circular), as one linalg.generic
// over the cache that selects, per position, the update or the old value.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"
#include "mlprog/Import/Common/Attention.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

FailureOr<Value> mlprog::buildTensorScatter(OpBuilder &b, Location loc,
                                            Value cache, Value update,
                                            Value writeIndices, int64_t axis,
                                            bool circular) {
  auto ct = dyn_cast<RankedTensorType>(cache.getType());
  auto ut = dyn_cast<RankedTensorType>(update.getType());
  if (!ct || !ut || ct.getRank() != ut.getRank() ||
      ct.getElementType() != ut.getElementType() || ct.getRank() < 1)
    return emitError(loc) << "tensor scatter: cache " << cache.getType()
                          << " and update " << update.getType()
                          << " must have one rank and element type";
  int64_t rank = ct.getRank();
  if (axis < -rank || axis >= rank)
    return emitError(loc) << "tensor scatter: axis " << axis
                          << " out of range for rank " << rank;
  axis = (axis + rank) % rank;
  for (int64_t d = 0; d < rank; ++d) {
    int64_t c = ct.getDimSize(d), u = ut.getDimSize(d);
    if (ShapedType::isDynamic(c) || ShapedType::isDynamic(u))
      continue;
    if (d == axis ? u > c : u != c)
      return emitError(loc) << "tensor scatter: update " << ut
                            << " does not fit the cache " << ct;
  }
  if (writeIndices) {
    auto wt = dyn_cast<RankedTensorType>(writeIndices.getType());
    if (!wt || wt.getRank() != 1 || !wt.getElementType().isSignlessInteger())
      return emitError(loc) << "tensor scatter: write indices must be a 1-D "
                               "integer tensor, got "
                            << writeIndices.getType();
  }
  Value init = createEmpty(b, loc, tensor::getMixedSizes(b, loc, cache),
                           ct.getElementType());
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{cache}, ValueRange{init},
             SmallVector<AffineMap>{id, id}, parallelIterators(rank),
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               IndexMath m{nb, nl};
               SmallVector<Value> at;
               for (int64_t d = 0; d < rank; ++d)
                 at.push_back(linalg::IndexOp::create(nb, nl, d));
               // At least 1: an empty cache is never read (no iterations),
               // and the remainder below must not divide by zero.
               Value maxLen =
                   m.max(tensor::DimOp::create(nb, nl, cache, axis), m.c(1));
               Value len = tensor::DimOp::create(nb, nl, update, axis);
               Value start = m.c(0);
               if (writeIndices)
                 start = m.index(
                     tensor::ExtractOp::create(nb, nl, writeIndices, at[0]));
               Value rel = m.sub(at[axis], start);
               if (circular) {
                 // rel mod M in [0, M), then the last s = rel + k M < S.
                 Value r = arith::RemSIOp::create(nb, nl, rel, maxLen);
                 rel = m.select(m.lt(r, m.c(0)), m.add(r, maxLen), r);
                 Value spare = m.sub(m.sub(len, m.c(1)), rel);
                 Value laps =
                     m.select(m.lt(spare, m.c(0)), m.c(0),
                              arith::DivSIOp::create(nb, nl, spare, maxLen));
                 rel = m.add(rel, m.mul(laps, maxLen));
               }
               Value inside = arith::AndIOp::create(
                   nb, nl, m.cmp(arith::CmpIPredicate::sge, rel, m.c(0)),
                   m.lt(rel, len));
               SmallVector<Value> src = at;
               src[axis] = m.clamp(rel, m.c(0), m.sub(len, m.c(1)));
               // An empty update writes nothing (and must not be read).
               Value fromUpdate = ifElse(
                   nb, nl, inside,
                   [&](OpBuilder &tb, Location tl) -> SmallVector<Value> {
                     return {tensor::ExtractOp::create(tb, tl, update, src)
                                 .getResult()};
                   },
                   [&](OpBuilder &, Location) -> SmallVector<Value> {
                     return {args[0]};
                   })[0];
               linalg::YieldOp::create(nb, nl, fromUpdate);
             })
      .getResult(0);
}
