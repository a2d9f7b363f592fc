//===- MatrixLoops.cpp - Per-matrix loops of the factorizations -----------===//

#include "MatrixLoops.h"
#include "Utils.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

/// "[2, 3]" for a diagnostic.
std::string mlprog::detail::shapeText(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(shape, os);
  return s + "]";
}

/// `v` as a float tensor of rank >= `minRank` with static extents, or a
/// located error naming `op` and `what`.
FailureOr<RankedTensorType> mlprog::detail::staticFloat(Location loc, Value v,
                                                        StringRef op,
                                                        StringRef what,
                                                        int64_t minRank) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  if (!t || t.getRank() < minRank || !isa<FloatType>(t.getElementType()))
    return emitError(loc) << op << ": " << what
                          << " must be a float tensor of rank >= " << minRank
                          << ", got " << v.getType();
  if (!t.hasStaticShape())
    return emitError(loc) << op << ": unsupported dynamic extents in " << what
                          << " " << t;
  return t;
}

/// Swaps the last two dims of `v` (rank >= 2).
FailureOr<Value> mlprog::detail::transposeMatrices(OpBuilder &b, Location loc,
                                                   Value v) {
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  auto perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[rank - 1], perm[rank - 2]);
  return buildTranspose(b, loc, v, perm);
}

/// Runs `body` once per element of the static batch shape `batch` on the
/// matching slabs of `operands` ([batch, ...] each: the dims after the
/// batch ones form the slab); `results` are the per-matrix result types,
/// and the returned values are [batch, ...] stacks of them.
SmallVector<Value> mlprog::detail::forEachMatrix(
    OpBuilder &b, Location loc, ArrayRef<int64_t> batch, ValueRange operands,
    ArrayRef<RankedTensorType> results, MatrixBody body) {
  int64_t nb = batch.size();
  SmallVector<Value> inits;
  for (RankedTensorType t : results) {
    SmallVector<int64_t> shape(batch);
    llvm::append_range(shape, t.getShape());
    inits.push_back(tensor::EmptyOp::create(b, loc, shape, t.getElementType()));
  }
  SmallVector<Value> lbs(nb, cIndex(b, loc, 0)), steps(nb, cIndex(b, loc, 1));
  SmallVector<Value> ubs;
  for (int64_t e : batch)
    ubs.push_back(cIndex(b, loc, e));
  auto slab = [&](OpBuilder &nb_, ValueRange ivs, RankedTensorType full,
                  SmallVectorImpl<OpFoldResult> &offsets,
                  SmallVectorImpl<OpFoldResult> &sizes,
                  SmallVectorImpl<OpFoldResult> &strides) {
    offsets.assign(getAsOpFoldResult(ivs));
    sizes.assign(nb, nb_.getIndexAttr(1));
    for (int64_t e : full.getShape().drop_front(nb)) {
      offsets.push_back(nb_.getIndexAttr(0));
      sizes.push_back(nb_.getIndexAttr(e));
    }
    strides.assign(full.getRank(), nb_.getIndexAttr(1));
  };
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, inits,
      [&](OpBuilder &nb_, Location nl, ValueRange ivs,
          ValueRange args) -> scf::ValueVector {
        SmallVector<Value> mats;
        for (Value v : operands) {
          auto full = cast<RankedTensorType>(v.getType());
          SmallVector<OpFoldResult> offsets, sizes, strides;
          slab(nb_, ivs, full, offsets, sizes, strides);
          auto type = RankedTensorType::get(full.getShape().drop_front(nb),
                                            full.getElementType());
          // An empty slab has nothing to read (and a slice at offset 0 of
          // an extent 0 does not verify).
          if (type.getNumElements() == 0)
            mats.push_back(tensor::EmptyOp::create(nb_, nl, type.getShape(),
                                                   type.getElementType()));
          else
            mats.push_back(tensor::ExtractSliceOp::create(
                nb_, nl, type, v, offsets, sizes, strides));
        }
        SmallVector<Value> res = body(nb_, nl, mats);
        scf::ValueVector out;
        for (auto [r, acc] : llvm::zip(res, args)) {
          if (cast<RankedTensorType>(r.getType()).getNumElements() == 0) {
            out.push_back(acc);
            continue;
          }
          SmallVector<OpFoldResult> offsets, sizes, strides;
          slab(nb_, ivs, cast<RankedTensorType>(acc.getType()), offsets, sizes,
               strides);
          out.push_back(tensor::InsertSliceOp::create(nb_, nl, r, acc, offsets,
                                                      sizes, strides));
        }
        return out;
      });
  return SmallVector<Value>(nest.results);
}

Value mlprog::detail::at(OpBuilder &b, Location loc, Value t, ValueRange idx) {
  return tensor::ExtractOp::create(b, loc, t, idx);
}

Value mlprog::detail::put(OpBuilder &b, Location loc, Value v, Value t,
                          ValueRange idx) {
  return tensor::InsertOp::create(b, loc, v, t, idx);
}

Value mlprog::detail::addI(OpBuilder &b, Location loc, Value x, int64_t c) {
  return arith::AddIOp::create(b, loc, x, cIndex(b, loc, c));
}

/// A rank-0 tensor holding the scalar `v`.
Value mlprog::detail::scalarTensor(OpBuilder &b, Location loc, Value v) {
  return tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({}, v.getType()), ValueRange{v});
}

/// Checks a square [*, N, N] operand.
FailureOr<RankedTensorType> mlprog::detail::squareMatrices(Location loc,
                                                           Value v,
                                                           StringRef op,
                                                           StringRef what) {
  FailureOr<RankedTensorType> t = staticFloat(loc, v, op, what);
  if (failed(t))
    return failure();
  int64_t rank = t->getRank();
  if (t->getDimSize(rank - 1) != t->getDimSize(rank - 2))
    return emitError(loc) << op << ": " << what << " " << *t
                          << " is not a batch of square matrices";
  return t;
}

/// The per-matrix result type [shape] of `et`.
RankedTensorType mlprog::detail::typeOf(ArrayRef<int64_t> shape, Type et) {
  return RankedTensorType::get(shape, et);
}

/// The [N, N] identity of `et` (broadcast against the batch by the solves).
Value mlprog::detail::identity(OpBuilder &b, Location loc, int64_t n, Type et) {
  Value eye = createFilled(b, loc, {b.getIndexAttr(n), b.getIndexAttr(n)},
                           b.getZeroAttr(et));
  return loop(
      b, loc, cIndex(b, loc, 0), cIndex(b, loc, n), eye,
      [&](OpBuilder &nb, Location nl, Value i,
          ValueRange s) -> SmallVector<Value> {
        return {put(nb, nl, createScalar(nb, nl, et, 1.0), s[0], {i, i})};
      })[0];
}
