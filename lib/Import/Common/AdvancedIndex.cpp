//===- AdvancedIndex.cpp - numpy advanced indexing and its assignment -----===//
//
// x[i0, :, i2] and x[i0, :, i2] = v with integer index tensors (broadcast
// among themselves) and boolean masks, as numpy and torch define them. Both
// reduce to the N-D gather and scatter builders: the indexed dims are
// permuted to the front, the broadcast index tensors stacked into one
// [B..., k] tensor of coordinates, and the result permuted into numpy's
// layout (the broadcast dims replace the indexed ones when those are
// adjacent, else they come first). Masks become coordinates with nonzero;
// a mask assignment whose value is the same for every selected element is
// an elementwise select instead, which keeps static shapes.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"

#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Logic.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

namespace {

/// Advanced indexing resolved against `x`: the integer index tensors (i64,
/// broadcast to one shape B) of the indexed dims `dims` (ascending), and
/// the permutations between x and the gather/scatter layout.
struct IndexPlan {
  SmallVector<int64_t> dims;
  Value coords;                    ///< [B..., k] i64
  SmallVector<OpFoldResult> batch; ///< the sizes of B
  /// x permuted so that `dims` come first, in order.
  SmallVector<int64_t> toFront;
  /// From the gather layout [B, other dims] to numpy's result layout.
  SmallVector<int64_t> toResult;
};

bool isIdentity(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (int64_t(i) != p)
      return false;
  return true;
}

FailureOr<Value> permute(OpBuilder &b, Location loc, Value x,
                         ArrayRef<int64_t> perm) {
  if (isIdentity(perm))
    return x;
  return buildTranspose(b, loc, x, perm);
}

SmallVector<int64_t> inverse(ArrayRef<int64_t> perm) {
  SmallVector<int64_t> inv(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inv[p] = i;
  return inv;
}

/// Replaces each boolean mask in `indices` (covering as many dims as its
/// rank) by one i64 coordinate tensor [n] per covered dim (nonzero), and
/// pads the list with nulls to the rank of `x`.
FailureOr<SmallVector<Value>>
expandMasks(OpBuilder &b, Location loc, int64_t rank, ArrayRef<Value> indices) {
  SmallVector<Value> out;
  for (Value idx : indices) {
    if (!idx) {
      out.push_back(Value());
      continue;
    }
    auto t = dyn_cast<RankedTensorType>(idx.getType());
    if (!t || !t.getElementType().isSignlessInteger())
      return emitError(loc) << "index: indices must be integer or boolean "
                               "tensors, got "
                            << idx.getType();
    if (!t.getElementType().isInteger(1)) {
      out.push_back(idx);
      continue;
    }
    // A 0-d mask adds a unit dim in numpy (x[True]); not supported here.
    if (t.getRank() == 0)
      return emitError(loc) << "index: 0-d boolean masks are not supported";
    FailureOr<Value> nz = buildNonZero(b, loc, idx);
    if (failed(nz))
      return failure();
    for (int64_t d = 0; d < t.getRank(); ++d) {
      FailureOr<Value> row =
          buildSelectIndex(b, loc, *nz, 0, b.getIndexAttr(d));
      if (failed(row))
        return failure();
      out.push_back(*row);
    }
  }
  if (int64_t(out.size()) > rank)
    return emitError(loc) << "index: " << out.size()
                          << " indices for a tensor of rank " << rank;
  out.resize(rank);
  return out;
}

FailureOr<IndexPlan> planIndex(OpBuilder &b, Location loc, Value x,
                               ArrayRef<Value> rawIndices) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  FailureOr<SmallVector<Value>> indices = expandMasks(b, loc, rank, rawIndices);
  if (failed(indices))
    return failure();
  IndexPlan plan;
  SmallVector<Value> idx;
  SmallVector<ArrayRef<int64_t>> shapes;
  for (auto [d, v] : llvm::enumerate(*indices)) {
    if (!v)
      continue;
    plan.dims.push_back(d);
    FailureOr<Value> i64 = buildConvertElementType(b, loc, v, b.getI64Type());
    if (failed(i64))
      return failure();
    idx.push_back(*i64);
  }
  if (idx.empty())
    return emitError(loc) << "index: no index tensor";
  for (Value v : idx)
    shapes.push_back(cast<RankedTensorType>(v.getType()).getShape());
  FailureOr<BroadcastPlan> bp = planBroadcast(loc, shapes);
  if (failed(bp))
    return failure();
  plan.batch = broadcastSizes(b, loc, *bp, idx);
  SmallVector<Value> expanded;
  for (Value v : idx) {
    if (idx.size() == 1) { // nothing to broadcast against
      expanded.push_back(v);
      continue;
    }
    FailureOr<Value> e = buildExpandToSizes(b, loc, v, plan.batch);
    if (failed(e))
      return failure();
    expanded.push_back(*e);
  }
  FailureOr<Value> coords =
      buildStack(b, loc, expanded, int64_t(plan.batch.size()));
  if (failed(coords))
    return failure();
  plan.coords = *coords;
  plan.toFront = plan.dims;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(plan.dims, d))
      plan.toFront.push_back(d);
  // numpy: adjacent indexed dims keep their place (the dims before them
  // move ahead of B); separated ones put B first.
  int64_t nb = plan.batch.size(), first = plan.dims.front();
  bool adjacent = plan.dims.back() - first + 1 == int64_t(plan.dims.size());
  int64_t before = adjacent ? first : 0;
  int64_t outRank = nb + rank - int64_t(plan.dims.size());
  for (int64_t i = 0; i < before; ++i)
    plan.toResult.push_back(nb + i);
  for (int64_t i = 0; i < nb; ++i)
    plan.toResult.push_back(i);
  for (int64_t i = nb + before; i < outRank; ++i)
    plan.toResult.push_back(i);
  return plan;
}

} // namespace

FailureOr<Value> mlprog::buildAdvancedIndex(OpBuilder &b, Location loc, Value x,
                                            ArrayRef<Value> indices) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "index");
  if (failed(type))
    return failure();
  FailureOr<IndexPlan> plan = planIndex(b, loc, x, indices);
  if (failed(plan))
    return failure();
  FailureOr<Value> front = permute(b, loc, x, plan->toFront);
  if (failed(front))
    return failure();
  FailureOr<Value> g = buildGatherND(b, loc, *front, plan->coords, 0);
  if (failed(g))
    return failure();
  return permute(b, loc, *g, plan->toResult);
}

/// x[mask] = v (or += v) when `v` is the same for every selected element
/// (it broadcasts against the dims after the mask): select(mask, v, x).
static FailureOr<Value> maskedAssign(OpBuilder &b, Location loc, Value x,
                                     int64_t at, Value mask, Value values,
                                     bool accumulate) {
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t mr = cast<RankedTensorType>(mask.getType()).getRank();
  Value m = mask;
  for (int64_t i = 0; i < at; ++i)
    m = insertUnitDim(b, loc, m, 0);
  for (int64_t i = at + mr; i < xt.getRank(); ++i)
    m = insertUnitDim(b, loc, m, cast<RankedTensorType>(m.getType()).getRank());
  Value v = values;
  if (accumulate) {
    FailureOr<Value> sum =
        buildElementwiseBinary(b, loc, BinaryOpKind::Add, x, values);
    if (failed(sum))
      return failure();
    v = *sum;
  }
  FailureOr<Value> r = buildSelect(b, loc, m, v, x);
  if (failed(r))
    return failure();
  return refineToShape(b, loc, *r, xt.getShape());
}

FailureOr<Value> mlprog::buildAdvancedIndexPut(OpBuilder &b, Location loc,
                                               Value x, ArrayRef<Value> indices,
                                               Value values, bool accumulate) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "index_put");
  FailureOr<RankedTensorType> vt = getRankedType(loc, values, "index_put");
  if (failed(type) || failed(vt))
    return failure();
  if (vt->getElementType() != type->getElementType())
    return emitError(loc) << "index_put: values " << *vt
                          << " do not have the element type of " << *type;
  // One mask (other entries None) and a value shared by every selected
  // element: an elementwise select.
  SmallVector<int64_t> given;
  for (auto [i, v] : llvm::enumerate(indices))
    if (v)
      given.push_back(i);
  if (given.size() == 1) {
    Value mask = indices[given[0]];
    auto mt = cast<RankedTensorType>(mask.getType());
    if (mt.getElementType().isInteger(1) && mt.getRank() >= 1 &&
        vt->getRank() <= type->getRank() - int64_t(given[0]) - mt.getRank())
      return maskedAssign(b, loc, x, given[0], mask, values, accumulate);
  }
  FailureOr<IndexPlan> plan = planIndex(b, loc, x, indices);
  if (failed(plan))
    return failure();
  // The values broadcast to the shape of x[indices], then permuted to the
  // scatter layout [B, other dims].
  SmallVector<OpFoldResult> resultSizes;
  SmallVector<int64_t> inv = inverse(plan->toResult);
  SmallVector<OpFoldResult> scatterSizes(plan->batch);
  for (int64_t d : ArrayRef(plan->toFront).drop_front(plan->dims.size()))
    scatterSizes.push_back(tensor::getMixedSize(b, loc, x, d));
  for (int64_t p : plan->toResult)
    resultSizes.push_back(scatterSizes[p]);
  if (vt->getRank() > int64_t(resultSizes.size()))
    return emitError(loc) << "index_put: values " << *vt
                          << " do not broadcast to the indexed shape";
  FailureOr<Value> v = buildExpandToSizes(b, loc, values, resultSizes);
  if (failed(v))
    return failure();
  FailureOr<Value> updates = permute(b, loc, *v, inv);
  FailureOr<Value> front = permute(b, loc, x, plan->toFront);
  if (failed(updates) || failed(front))
    return failure();
  FailureOr<Value> s = buildScatterND(b, loc, *front, plan->coords, *updates,
                                      accumulate ? ScatterReduction::Add
                                                 : ScatterReduction::None);
  if (failed(s))
    return failure();
  FailureOr<Value> r = permute(b, loc, *s, inverse(plan->toFront));
  if (failed(r))
    return failure();
  return refineToShape(b, loc, *r, type->getShape());
}
