//===- Scatter.cpp - Scatter and data-dependent indexing ------------------===//

#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

#include <limits>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

//===--- Loop helpers -----------------------------------------------------===//

namespace {
using LoopBody = function_ref<SmallVector<Value>(
    OpBuilder &, Location, ValueRange ivs, ValueRange args)>;
} // namespace

/// The extents of `t` as index values.
static SmallVector<Value> extents(OpBuilder &b, Location loc, Value t) {
  return getValueOrCreateConstantIndexOp(b, loc,
                                         tensor::getMixedSizes(b, loc, t));
}

/// A perfect scf.for nest over [0, ubs[d]) carrying `init`; with no bounds
/// the body runs once. Returns the values the nest yields.
static SmallVector<Value> loopNest(OpBuilder &b, Location loc, ValueRange ubs,
                                   ValueRange init, LoopBody body) {
  Value zero = cIndex(b, loc, 0), one = cIndex(b, loc, 1);
  SmallVector<Value> lbs(ubs.size(), zero), steps(ubs.size(), one);
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, init,
      [&](OpBuilder &nb, Location nl, ValueRange ivs, ValueRange args) {
        return scf::ValueVector(body(nb, nl, ivs, args));
      });
  return SmallVector<Value>(nest.results);
}

static Value andI(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AndIOp::create(b, loc, x, y);
}

static Value cmpIndex(OpBuilder &b, Location loc, arith::CmpIPredicate p,
                      Value x, Value y) {
  return arith::CmpIOp::create(b, loc, p, x, y);
}

//===--- Element helpers --------------------------------------------------===//

static bool isIndexElementType(Type t) {
  return t.isSignlessInteger() && t.getIntOrFloatBitWidth() > 1;
}

/// An integer index `raw` as an index value, negative ones counted from the
/// end of `n`, and whether it then lies in [0, n).
static std::pair<Value, Value> wrapIndex(OpBuilder &b, Location loc, Value raw,
                                         Value n) {
  Value i = arith::IndexCastOp::create(b, loc, b.getIndexType(), raw);
  Value zero = cIndex(b, loc, 0);
  Value neg = cmpIndex(b, loc, arith::CmpIPredicate::slt, i, zero);
  i = arith::SelectOp::create(b, loc, neg, arith::AddIOp::create(b, loc, i, n),
                              i);
  Value valid =
      andI(b, loc, cmpIndex(b, loc, arith::CmpIPredicate::sge, i, zero),
           cmpIndex(b, loc, arith::CmpIPredicate::slt, i, n));
  return {i, valid};
}

/// Whether scalar `v` is not zero (not false; NaN counts as non-zero).
static Value isNonZero(OpBuilder &b, Location loc, Value v) {
  Type t = v.getType();
  if (isa<FloatType>(t))
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v,
                                 createScalar(b, loc, t, 0.0));
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::ne, v,
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(t, 0)));
}

/// `old` combined with `update` by `reduction`.
static Value combine(OpBuilder &b, Location loc, ScatterReduction reduction,
                     Value old, Value update) {
  Type t = old.getType();
  bool isFloat = isa<FloatType>(t);
  bool isBool = t.isInteger(1);
  switch (reduction) {
  case ScatterReduction::None:
    return update;
  case ScatterReduction::Add:
    if (isFloat)
      return arith::AddFOp::create(b, loc, old, update);
    if (isBool)
      return arith::OrIOp::create(b, loc, old, update);
    return arith::AddIOp::create(b, loc, old, update);
  case ScatterReduction::Mul:
    if (isFloat)
      return arith::MulFOp::create(b, loc, old, update);
    if (isBool)
      return arith::AndIOp::create(b, loc, old, update);
    return arith::MulIOp::create(b, loc, old, update);
  case ScatterReduction::Max:
    if (isFloat)
      return arith::MaximumFOp::create(b, loc, old, update);
    if (isBool)
      return arith::OrIOp::create(b, loc, old, update);
    return arith::MaxSIOp::create(b, loc, old, update);
  case ScatterReduction::Sub:
    if (isFloat)
      return arith::SubFOp::create(b, loc, old, update);
    if (isBool)
      return arith::XOrIOp::create(b, loc, old, update);
    return arith::SubIOp::create(b, loc, old, update);
  case ScatterReduction::Div:
    if (isFloat)
      return arith::DivFOp::create(b, loc, old, update);
    if (isBool)
      return old;
    return arith::DivSIOp::create(b, loc, old, update);
  case ScatterReduction::Min:
    if (isFloat)
      return arith::MinimumFOp::create(b, loc, old, update);
    if (isBool)
      return arith::AndIOp::create(b, loc, old, update);
    return arith::MinSIOp::create(b, loc, old, update);
  }
  return update;
}

/// `acc` with element `pos` combined with `update` when `valid`, else `acc`.
static Value scatterOne(OpBuilder &b, Location loc, Value acc, ValueRange pos,
                        Value update, Value valid, ScatterReduction reduction) {
  return ifElse(
      b, loc, valid,
      [&](OpBuilder &nb, Location nl) -> SmallVector<Value> {
        Value v = update;
        if (reduction != ScatterReduction::None)
          v = combine(nb, nl, reduction,
                      tensor::ExtractOp::create(nb, nl, acc, pos), update);
        return {tensor::InsertOp::create(nb, nl, v, acc, pos).getResult()};
      },
      [&](OpBuilder &, Location) -> SmallVector<Value> { return {acc}; })[0];
}

/// Loop bound for a dim that two tensors must share: the static extent when
/// one is known (the callers check static extents agree), else the smaller
/// run-time extent, so neither tensor is read out of bounds.
static Value sharedBound(OpBuilder &b, Location loc, Value x, int64_t dx,
                         Value y, int64_t dy) {
  auto tx = cast<RankedTensorType>(x.getType());
  auto ty = cast<RankedTensorType>(y.getType());
  if (!tx.isDynamicDim(dx) && !ty.isDynamicDim(dy))
    return cIndex(b, loc, std::min(tx.getDimSize(dx), ty.getDimSize(dy)));
  return arith::MinSIOp::create(b, loc, tensor::DimOp::create(b, loc, x, dx),
                                tensor::DimOp::create(b, loc, y, dy));
}

/// Whether static extents `a` and `c` may be equal.
static bool compatible(int64_t a, int64_t c) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(c) || a == c;
}

//===--- Scatters ---------------------------------------------------------===//

FailureOr<Value> mlprog::buildScatterElements(OpBuilder &b, Location loc,
                                              Value data, Value indices,
                                              Value updates, int64_t axis,
                                              ScatterReduction reduction) {
  FailureOr<RankedTensorType> dt = getRankedType(loc, data, "scatter data");
  FailureOr<RankedTensorType> it =
      getRankedType(loc, indices, "scatter indices");
  FailureOr<RankedTensorType> ut =
      getRankedType(loc, updates, "scatter updates");
  if (failed(dt) || failed(it) || failed(ut))
    return failure();
  if (!isIndexElementType(it->getElementType()))
    return emitError(loc) << "scatter: indices must be an integer tensor, got "
                          << *it;
  if (ut->getElementType() != dt->getElementType())
    return emitError(loc) << "scatter: updates " << *ut
                          << " do not have the element type of data " << *dt;
  int64_t rank = dt->getRank();
  if (it->getRank() != rank || ut->getRank() != rank)
    return emitError(loc) << "scatter: data " << *dt << ", indices " << *it
                          << " and updates " << *ut
                          << " must have the same rank";
  if (rank == 0 || axis < -rank || axis >= rank)
    return emitError(loc) << "scatter: axis " << axis
                          << " out of range for rank " << rank;
  axis = (axis + rank) % rank;
  for (int64_t d = 0; d < rank; ++d) {
    if (!compatible(it->getDimSize(d), ut->getDimSize(d)))
      return emitError(loc) << "scatter: indices " << *it << " and updates "
                            << *ut << " differ in dim " << d;
    if (d != axis && !it->isDynamicDim(d) && !dt->isDynamicDim(d) &&
        it->getDimSize(d) > dt->getDimSize(d))
      return emitError(loc) << "scatter: indices " << *it << " exceed data "
                            << *dt << " in dim " << d;
  }
  SmallVector<Value> ubs;
  for (int64_t d = 0; d < rank; ++d)
    ubs.push_back(sharedBound(b, loc, indices, d, updates, d));
  SmallVector<Value> dataDims = extents(b, loc, data);
  return loopNest(
      b, loc, ubs, data,
      [&](OpBuilder &nb, Location nl, ValueRange ivs,
          ValueRange args) -> SmallVector<Value> {
        Value raw = tensor::ExtractOp::create(nb, nl, indices, ivs);
        auto [idx, valid] = wrapIndex(nb, nl, raw, dataDims[axis]);
        SmallVector<Value> pos(ivs);
        pos[axis] = idx;
        // Dims other than axis are in range unless their extents are only
        // known at run time.
        for (int64_t d = 0; d < rank; ++d)
          if (d != axis && (it->isDynamicDim(d) || dt->isDynamicDim(d)))
            valid = andI(nb, nl, valid,
                         cmpIndex(nb, nl, arith::CmpIPredicate::slt, ivs[d],
                                  dataDims[d]));
        Value update = tensor::ExtractOp::create(nb, nl, updates, ivs);
        return {scatterOne(nb, nl, args[0], pos, update, valid, reduction)};
      })[0];
}

FailureOr<Value> mlprog::buildScatterND(OpBuilder &b, Location loc, Value data,
                                        Value indices, Value updates,
                                        ScatterReduction reduction) {
  FailureOr<RankedTensorType> dt = getRankedType(loc, data, "scatter_nd data");
  FailureOr<RankedTensorType> it =
      getRankedType(loc, indices, "scatter_nd indices");
  FailureOr<RankedTensorType> ut =
      getRankedType(loc, updates, "scatter_nd updates");
  if (failed(dt) || failed(it) || failed(ut))
    return failure();
  if (!isIndexElementType(it->getElementType()))
    return emitError(loc)
           << "scatter_nd: indices must be an integer tensor, got " << *it;
  if (ut->getElementType() != dt->getElementType())
    return emitError(loc) << "scatter_nd: updates " << *ut
                          << " do not have the element type of data " << *dt;
  int64_t rank = dt->getRank(), ri = it->getRank();
  if (ri < 1 || it->isDynamicDim(ri - 1))
    return emitError(loc) << "scatter_nd: indices " << *it
                          << " need a static last dim";
  int64_t q = it->getDimSize(ri - 1);
  if (q < 1 || q > rank)
    return emitError(loc) << "scatter_nd: index length " << q
                          << " must be in [1, " << rank << "]";
  int64_t batch = ri - 1, ru = batch + rank - q;
  if (ut->getRank() != ru)
    return emitError(loc) << "scatter_nd: updates " << *ut << " must have rank "
                          << ru << " for indices " << *it << " and data "
                          << *dt;
  for (int64_t d = 0; d < ru; ++d) {
    int64_t want =
        d < batch ? it->getDimSize(d) : dt->getDimSize(d - batch + q);
    if (!compatible(want, ut->getDimSize(d)))
      return emitError(loc)
             << "scatter_nd: updates " << *ut << " do not match indices " << *it
             << " and data " << *dt << " in dim " << d;
  }
  SmallVector<Value> ubs;
  for (int64_t d = 0; d < ru; ++d)
    ubs.push_back(d < batch
                      ? sharedBound(b, loc, indices, d, updates, d)
                      : sharedBound(b, loc, data, d - batch + q, updates, d));
  SmallVector<Value> dataDims = extents(b, loc, data);
  return loopNest(
      b, loc, ubs, data,
      [&](OpBuilder &nb, Location nl, ValueRange ivs,
          ValueRange args) -> SmallVector<Value> {
        SmallVector<Value> at(ivs.take_front(batch)), pos;
        at.push_back(Value());
        Value valid = arith::ConstantOp::create(nb, nl, nb.getBoolAttr(true));
        for (int64_t k = 0; k < q; ++k) {
          at.back() = cIndex(nb, nl, k);
          Value raw = tensor::ExtractOp::create(nb, nl, indices, at);
          auto [idx, ok] = wrapIndex(nb, nl, raw, dataDims[k]);
          valid = andI(nb, nl, valid, ok);
          pos.push_back(idx);
        }
        llvm::append_range(pos, ivs.drop_front(batch));
        Value update = tensor::ExtractOp::create(nb, nl, updates, ivs);
        return {scatterOne(nb, nl, args[0], pos, update, valid, reduction)};
      })[0];
}

//===--- Data-dependent extents -------------------------------------------===//

/// Flattens `x` to 1-D (rank 0 becomes [1]).
static Value flatten(OpBuilder &b, Location loc, Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  if (type.getRank() == 1)
    return x;
  if (type.getRank() == 0)
    return insertUnitDim(b, loc, x, 0);
  ReassociationIndices all;
  for (int64_t d = 0; d < type.getRank(); ++d)
    all.push_back(d);
  return tensor::CollapseShapeOp::create(b, loc, x,
                                         ArrayRef<ReassociationIndices>{all});
}

/// The identity of a scatter_reduce `kind` in `et`: 0 (Sum, Mean), 1
/// (Prod), the lowest (Amax) or highest (Amin) value.
static TypedAttr scatterReduceIdentity(OpBuilder &b, ScatterReduceKind kind,
                                       Type et) {
  switch (kind) {
  case ScatterReduceKind::Sum:
  case ScatterReduceKind::Mean:
    return b.getZeroAttr(et);
  case ScatterReduceKind::Prod:
    return isa<FloatType>(et) ? TypedAttr(b.getFloatAttr(et, 1.0))
                              : TypedAttr(b.getIntegerAttr(et, 1));
  case ScatterReduceKind::Amax:
    if (et.isInteger(1))
      return b.getIntegerAttr(et, 0);
    return getLowestAttr(et);
  case ScatterReduceKind::Amin:
    if (auto ft = dyn_cast<FloatType>(et))
      return FloatAttr::get(ft, APFloat::getInf(ft.getFloatSemantics()));
    if (et.isInteger(1))
      return b.getIntegerAttr(et, 1);
    return IntegerAttr::get(
        et, APInt::getSignedMaxValue(et.getIntOrFloatBitWidth()));
  }
  return {};
}

FailureOr<Value> mlprog::buildScatterReduce(OpBuilder &b, Location loc,
                                            Value data, Value indices,
                                            Value updates, int64_t axis,
                                            ScatterReduceKind kind,
                                            bool includeSelf) {
  FailureOr<RankedTensorType> dt = getRankedType(loc, data, "scatter data");
  FailureOr<RankedTensorType> it =
      getRankedType(loc, indices, "scatter indices");
  if (failed(dt) || failed(it))
    return failure();
  Type et = dt->getElementType();
  if (!et.isIntOrFloat() ||
      (kind == ScatterReduceKind::Mean && et.isInteger(1)))
    return emitError(loc) << "scatter_reduce: unsupported element type in "
                          << *dt;
  ScatterReduction reduction =
      kind == ScatterReduceKind::Prod   ? ScatterReduction::Mul
      : kind == ScatterReduceKind::Amax ? ScatterReduction::Max
      : kind == ScatterReduceKind::Amin ? ScatterReduction::Min
                                        : ScatterReduction::Add;
  SmallVector<OpFoldResult> indexSizes = tensor::getMixedSizes(b, loc, indices);
  // Filled tensors of the shape of `indices` / `data`.
  auto filled = [&](ArrayRef<OpFoldResult> sizes, TypedAttr value) {
    return createFilled(b, loc, sizes, value);
  };
  Value base = data;
  if (!includeSelf) {
    FailureOr<Value> reset = buildScatterElements(
        b, loc, data, indices,
        filled(indexSizes, scatterReduceIdentity(b, kind, et)), axis,
        ScatterReduction::None);
    if (failed(reset))
      return failure();
    base = *reset;
  }
  FailureOr<Value> combined =
      buildScatterElements(b, loc, base, indices, updates, axis, reduction);
  if (failed(combined) || kind != ScatterReduceKind::Mean)
    return combined;
  // Mean: the sum over the number of values combined into each element.
  TypedAttr one = isa<FloatType>(et) ? TypedAttr(b.getFloatAttr(et, 1.0))
                                     : TypedAttr(b.getIntegerAttr(et, 1));
  Value counts = filled(tensor::getMixedSizes(b, loc, data), one);
  if (!includeSelf) {
    FailureOr<Value> reset = buildScatterElements(
        b, loc, counts, indices, filled(indexSizes, b.getZeroAttr(et)), axis,
        ScatterReduction::None);
    if (failed(reset))
      return failure();
    counts = *reset;
  }
  FailureOr<Value> total =
      buildScatterElements(b, loc, counts, indices, filled(indexSizes, one),
                           axis, ScatterReduction::Add);
  if (failed(total))
    return failure();
  if (isa<FloatType>(et))
    return buildElementwiseBinary(b, loc, BinaryOpKind::Div, *combined, *total);
  return buildDivision(b, loc, DivisionKind::FloorDivide, *combined, *total);
}

FailureOr<Value> mlprog::buildNonZero(OpBuilder &b, Location loc, Value x) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "nonzero");
  if (failed(type))
    return failure();
  if (!type->getElementType().isIntOrFloat())
    return emitError(loc) << "nonzero: unsupported element type in " << *type;
  if (type->getRank() == 0)
    x = insertUnitDim(b, loc, x, 0);
  int64_t rank = std::max<int64_t>(type->getRank(), 1);
  // An empty input has no non-zero element: a static [rank, 0] result keeps
  // the folded loops from leaving slices of a count folded to 0 behind.
  if (llvm::is_contained(type->getShape(), 0))
    return createEmpty(b, loc, {b.getIndexAttr(rank), b.getIndexAttr(0)},
                       b.getI64Type());
  SmallVector<Value> dims = extents(b, loc, x);
  Value zero = cIndex(b, loc, 0);
  Value count = loopNest(
      b, loc, dims, zero,
      [&](OpBuilder &nb, Location nl, ValueRange ivs,
          ValueRange args) -> SmallVector<Value> {
        Value nz = isNonZero(nb, nl, tensor::ExtractOp::create(nb, nl, x, ivs));
        Value next = arith::AddIOp::create(nb, nl, args[0], cIndex(nb, nl, 1));
        return {arith::SelectOp::create(nb, nl, nz, next, args[0]).getResult()};
      })[0];
  Type i64 = b.getI64Type();
  Value init = createEmpty(b, loc, {b.getIndexAttr(rank), count}, i64);
  return loopNest(
      b, loc, dims, ValueRange{init, zero},
      [&](OpBuilder &nb, Location nl, ValueRange ivs,
          ValueRange args) -> SmallVector<Value> {
        Value nz = isNonZero(nb, nl, tensor::ExtractOp::create(nb, nl, x, ivs));
        return ifElse(
            nb, nl, nz,
            [&](OpBuilder &tb, Location tl) -> SmallVector<Value> {
              Value acc = args[0];
              for (int64_t d = 0; d < rank; ++d) {
                Value coord = arith::IndexCastOp::create(tb, tl, i64, ivs[d]);
                acc = tensor::InsertOp::create(
                    tb, tl, coord, acc, ValueRange{cIndex(tb, tl, d), args[1]});
              }
              Value next =
                  arith::AddIOp::create(tb, tl, args[1], cIndex(tb, tl, 1));
              return {acc, next};
            },
            [&](OpBuilder &, Location) -> SmallVector<Value> {
              return {args[0], args[1]};
            });
      })[0];
}

FailureOr<Value> mlprog::buildCompress(OpBuilder &b, Location loc, Value x,
                                       Value condition,
                                       std::optional<int64_t> axis) {
  FailureOr<RankedTensorType> xt = getRankedType(loc, x, "compress input");
  FailureOr<RankedTensorType> ct =
      getRankedType(loc, condition, "compress condition");
  if (failed(xt) || failed(ct))
    return failure();
  if (ct->getRank() != 1 || !ct->getElementType().isIntOrFloat())
    return emitError(loc) << "compress: condition must be a 1-D tensor, got "
                          << *ct;
  int64_t ax = 0;
  if (!axis) {
    x = flatten(b, loc, x);
  } else {
    int64_t rank = xt->getRank();
    if (rank == 0 || *axis < -rank || *axis >= rank)
      return emitError(loc)
             << "compress: axis " << *axis << " out of range for rank " << rank;
    ax = (*axis + rank) % rank;
  }
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  Value n = sharedBound(b, loc, x, ax, condition, 0);
  Value zero = cIndex(b, loc, 0);
  auto selected = [&](OpBuilder &nb, Location nl, Value k) {
    return isNonZero(nb, nl, tensor::ExtractOp::create(nb, nl, condition, k));
  };
  Value count = loop(
      b, loc, zero, n, zero,
      [&](OpBuilder &nb, Location nl, Value k,
          ValueRange args) -> SmallVector<Value> {
        Value next = arith::AddIOp::create(nb, nl, args[0], cIndex(nb, nl, 1));
        return {
            arith::SelectOp::create(nb, nl, selected(nb, nl, k), next, args[0])
                .getResult()};
      })[0];
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  sizes[ax] = count;
  Value init = createEmpty(b, loc, sizes, type.getElementType());
  return loop(
      b, loc, zero, n, ValueRange{init, zero},
      [&](OpBuilder &nb, Location nl, Value k,
          ValueRange args) -> SmallVector<Value> {
        return ifElse(
            nb, nl, selected(nb, nl, k),
            [&](OpBuilder &tb, Location tl) -> SmallVector<Value> {
              SmallVector<OpFoldResult> offsets(rank, tb.getIndexAttr(0)),
                  strides(rank, tb.getIndexAttr(1)),
                  slab = tensor::getMixedSizes(tb, tl, x);
              slab[ax] = tb.getIndexAttr(1);
              offsets[ax] = k;
              Value piece = tensor::ExtractSliceOp::create(tb, tl, x, offsets,
                                                           slab, strides);
              offsets[ax] = args[1];
              Value acc = tensor::InsertSliceOp::create(tb, tl, piece, args[0],
                                                        offsets, slab, strides);
              Value next =
                  arith::AddIOp::create(tb, tl, args[1], cIndex(tb, tl, 1));
              return {acc, next};
            },
            [&](OpBuilder &, Location) -> SmallVector<Value> {
              return {args[0], args[1]};
            });
      })[0];
}

//===--- Unpooling --------------------------------------------------------===//

FailureOr<Value> mlprog::buildMaxUnpool(OpBuilder &b, Location loc, Value x,
                                        Value indices, ArrayRef<int64_t> kernel,
                                        ArrayRef<int64_t> strides,
                                        ArrayRef<int64_t> pads,
                                        ArrayRef<OpFoldResult> outputSizes) {
  FailureOr<RankedTensorType> xt = getRankedType(loc, x, "max_unpool input");
  FailureOr<RankedTensorType> it =
      getRankedType(loc, indices, "max_unpool indices");
  if (failed(xt) || failed(it))
    return failure();
  int64_t rank = xt->getRank(), n = rank - 2;
  if (rank < 3 || it->getRank() != rank)
    return emitError(loc) << "max_unpool: input " << *xt << " and indices "
                          << *it << " must have the same rank >= 3";
  if (!isIndexElementType(it->getElementType()))
    return emitError(loc)
           << "max_unpool: indices must be an integer tensor, got " << *it;
  for (int64_t d = 0; d < rank; ++d)
    if (!compatible(xt->getDimSize(d), it->getDimSize(d)))
      return emitError(loc) << "max_unpool: input " << *xt << " and indices "
                            << *it << " differ in dim " << d;
  if (int64_t(kernel.size()) != n || int64_t(strides.size()) != n ||
      int64_t(pads.size()) != 2 * n)
    return emitError(loc) << "max_unpool: need " << n << " kernel extents, "
                          << n << " strides and " << 2 * n << " pads";
  if (!outputSizes.empty() && int64_t(outputSizes.size()) != rank)
    return emitError(loc) << "max_unpool: output shape has "
                          << outputSizes.size() << " extents for rank " << rank;
  for (int64_t d = 0; d < n; ++d)
    if (kernel[d] < 1 || strides[d] < 1 || pads[d] < 0 || pads[n + d] < 0)
      return emitError(loc) << "max_unpool: kernel and strides must be "
                               "positive, pads non-negative";
  // Unpooled extents (what the indices address), as index values.
  SmallVector<Value> inDims = extents(b, loc, x), unpooled(inDims);
  for (int64_t d = 0; d < n; ++d) {
    int64_t extra = kernel[d] - pads[d] - pads[n + d] - strides[d];
    Value scaled = arith::MulIOp::create(b, loc, inDims[2 + d],
                                         cIndex(b, loc, strides[d]));
    unpooled[2 + d] =
        arith::AddIOp::create(b, loc, scaled, cIndex(b, loc, extra));
  }
  SmallVector<OpFoldResult> outSizes(outputSizes);
  if (outSizes.empty())
    outSizes = getAsOpFoldResult(unpooled);
  SmallVector<Value> outDims =
      getValueOrCreateConstantIndexOp(b, loc, outSizes);
  Value total = cIndex(b, loc, 1);
  for (Value v : unpooled)
    total = arith::MulIOp::create(b, loc, total, v);
  Value init = createFilled(
      b, loc, outSizes, cast<TypedAttr>(b.getZeroAttr(xt->getElementType())));
  SmallVector<Value> ubs;
  for (int64_t d = 0; d < rank; ++d)
    ubs.push_back(sharedBound(b, loc, x, d, indices, d));
  return loopNest(
      b, loc, ubs, init,
      [&](OpBuilder &nb, Location nl, ValueRange ivs,
          ValueRange args) -> SmallVector<Value> {
        Value flat = arith::IndexCastOp::create(
            nb, nl, nb.getIndexType(),
            tensor::ExtractOp::create(nb, nl, indices, ivs));
        Value valid =
            andI(nb, nl,
                 cmpIndex(nb, nl, arith::CmpIPredicate::sge, flat,
                          cIndex(nb, nl, 0)),
                 cmpIndex(nb, nl, arith::CmpIPredicate::slt, flat, total));
        // Row-major decomposition against the unpooled extents (a negative
        // flat index is invalid; the remainders are then unused).
        SmallVector<Value> pos(rank);
        Value rest = flat;
        for (int64_t d = rank - 1; d >= 0; --d) {
          pos[d] = arith::RemSIOp::create(nb, nl, rest, unpooled[d]);
          rest = arith::DivSIOp::create(nb, nl, rest, unpooled[d]);
          valid = andI(
              nb, nl, valid,
              cmpIndex(nb, nl, arith::CmpIPredicate::slt, pos[d], outDims[d]));
        }
        Value v = tensor::ExtractOp::create(nb, nl, x, ivs);
        return {
            scatterOne(nb, nl, args[0], pos, v, valid, ScatterReduction::None)};
      })[0];
}

//===--- Non-max suppression ----------------------------------------------===//

/// Element 0 of a one-element tensor (rank 0 or 1).
static FailureOr<Value> scalarOf(OpBuilder &b, Location loc, Value t,
                                 StringRef what) {
  auto type = dyn_cast<RankedTensorType>(t.getType());
  if (!type || type.getRank() > 1 ||
      (type.getRank() == 1 && type.getDimSize(0) != 1 && !type.isDynamicDim(0)))
    return emitError(loc) << "non_max_suppression: " << what
                          << " must be a one-element tensor, got "
                          << t.getType();
  SmallVector<Value> at(type.getRank(), cIndex(b, loc, 0));
  return tensor::ExtractOp::create(b, loc, t, at).getResult();
}

/// Converts float scalar `v` to float type `t`.
static Value toFloat(OpBuilder &b, Location loc, Value v, Type t) {
  unsigned have = v.getType().getIntOrFloatBitWidth();
  unsigned want = t.getIntOrFloatBitWidth();
  if (v.getType() == t)
    return v;
  if (have < want)
    return arith::ExtFOp::create(b, loc, t, v);
  return arith::TruncFOp::create(b, loc, t, v);
}

namespace {
/// A box as (ymin, xmin, ymax, xmax).
struct Corners {
  Value y1, x1, y2, x2;
};
} // namespace

/// Reads box `i` of batch `batch` and normalizes it to corners.
static Corners readBox(OpBuilder &b, Location loc, Value boxes, Value batch,
                       Value i, bool centerPointBox) {
  Value c[4];
  for (int k = 0; k < 4; ++k)
    c[k] = tensor::ExtractOp::create(b, loc, boxes,
                                     ValueRange{batch, i, cIndex(b, loc, k)});
  if (centerPointBox) {
    // [x_center, y_center, width, height].
    Value half = createScalar(b, loc, c[0].getType(), 0.5);
    Value hw = arith::MulFOp::create(b, loc, c[2], half);
    Value hh = arith::MulFOp::create(b, loc, c[3], half);
    return {arith::SubFOp::create(b, loc, c[1], hh),
            arith::SubFOp::create(b, loc, c[0], hw),
            arith::AddFOp::create(b, loc, c[1], hh),
            arith::AddFOp::create(b, loc, c[0], hw)};
  }
  return {arith::MinimumFOp::create(b, loc, c[0], c[2]),
          arith::MinimumFOp::create(b, loc, c[1], c[3]),
          arith::MaximumFOp::create(b, loc, c[0], c[2]),
          arith::MaximumFOp::create(b, loc, c[1], c[3])};
}

/// Whether IoU(p, q) > threshold; boxes without area or overlap never
/// suppress (onnxruntime's SuppressByIOU).
static Value suppresses(OpBuilder &b, Location loc, const Corners &p,
                        const Corners &q, Value threshold) {
  auto maxF = [&](Value x, Value y) {
    return arith::MaximumFOp::create(b, loc, x, y).getResult();
  };
  auto minF = [&](Value x, Value y) {
    return arith::MinimumFOp::create(b, loc, x, y).getResult();
  };
  auto sub = [&](Value x, Value y) {
    return arith::SubFOp::create(b, loc, x, y).getResult();
  };
  auto mul = [&](Value x, Value y) {
    return arith::MulFOp::create(b, loc, x, y).getResult();
  };
  auto gt = [&](Value x, Value y) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, y)
        .getResult();
  };
  Value zero = createScalar(b, loc, threshold.getType(), 0.0);
  Value iw = maxF(sub(minF(p.x2, q.x2), maxF(p.x1, q.x1)), zero);
  Value ih = maxF(sub(minF(p.y2, q.y2), maxF(p.y1, q.y1)), zero);
  Value inter = mul(iw, ih);
  Value areaP = mul(sub(p.x2, p.x1), sub(p.y2, p.y1));
  Value areaQ = mul(sub(q.x2, q.x1), sub(q.y2, q.y1));
  Value uni = sub(arith::AddFOp::create(b, loc, areaP, areaQ), inter);
  Value ok = andI(b, loc, andI(b, loc, gt(inter, zero), gt(areaP, zero)),
                  andI(b, loc, gt(areaQ, zero), gt(uni, zero)));
  // Guard the division: a non-positive union gives a harmless 0.
  Value safeUni = arith::SelectOp::create(
      b, loc, ok, uni, createScalar(b, loc, uni.getType(), 1.0));
  Value iou = arith::DivFOp::create(b, loc, inter, safeUni);
  return andI(b, loc, ok, gt(iou, threshold));
}

FailureOr<Value> mlprog::buildNonMaxSuppression(OpBuilder &b, Location loc,
                                                Value boxes, Value scores,
                                                Value maxOutputPerClass,
                                                Value iouThreshold,
                                                Value scoreThreshold,
                                                bool centerPointBox) {
  FailureOr<RankedTensorType> bt =
      getRankedType(loc, boxes, "non_max_suppression boxes");
  FailureOr<RankedTensorType> st =
      getRankedType(loc, scores, "non_max_suppression scores");
  if (failed(bt) || failed(st))
    return failure();
  Type ft = bt->getElementType();
  if (!isa<FloatType>(ft) || st->getElementType() != ft)
    return emitError(loc) << "non_max_suppression: boxes " << *bt
                          << " and scores " << *st
                          << " must have the same float element type";
  if (bt->getRank() != 3 || st->getRank() != 3 ||
      !compatible(bt->getDimSize(2), 4) ||
      !compatible(bt->getDimSize(0), st->getDimSize(0)) ||
      !compatible(bt->getDimSize(1), st->getDimSize(2)))
    return emitError(loc) << "non_max_suppression: boxes " << *bt
                          << " and scores " << *st
                          << " must be [B, N, 4] and [B, C, N]";
  // Scalars (defaults where absent).
  Value maxOut = cIndex(b, loc, 0);
  if (maxOutputPerClass) {
    FailureOr<Value> v =
        scalarOf(b, loc, maxOutputPerClass, "max_output_boxes_per_class");
    if (failed(v))
      return failure();
    if (!isIndexElementType(v->getType()))
      return emitError(loc) << "non_max_suppression: "
                               "max_output_boxes_per_class must be integer";
    maxOut = arith::IndexCastOp::create(b, loc, b.getIndexType(), *v);
  }
  Value iou = createScalar(b, loc, ft, 0.0);
  Value scoreMin;
  for (auto [t, out, what] : {std::tuple<Value, Value *, const char *>{
                                  iouThreshold, &iou, "iou_threshold"},
                              {scoreThreshold, &scoreMin, "score_threshold"}}) {
    if (!t)
      continue;
    FailureOr<Value> v = scalarOf(b, loc, t, what);
    if (failed(v))
      return failure();
    if (!isa<FloatType>(v->getType()))
      return emitError(loc)
             << "non_max_suppression: " << what << " must be a float";
    *out = toFloat(b, loc, *v, ft);
  }

  Value zero = cIndex(b, loc, 0), one = cIndex(b, loc, 1);
  Value batches = sharedBound(b, loc, boxes, 0, scores, 0);
  Value classes = tensor::DimOp::create(b, loc, scores, 1);
  Value numBoxes = sharedBound(b, loc, boxes, 1, scores, 2);
  Value capacity = arith::MulIOp::create(
      b, loc, arith::MulIOp::create(b, loc, batches, classes), numBoxes);
  Type i64 = b.getI64Type();
  Value rows = createEmpty(b, loc, {capacity, b.getIndexAttr(3)}, i64);
  Value falseV = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  Value trueV = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));

  auto perClass = [&](OpBuilder &nb, Location nl, ValueRange ivs,
                      ValueRange args) -> SmallVector<Value> {
    Value bi = ivs[0], ci = ivs[1];
    Value start = args[1];
    // Visit the boxes by decreasing score, ties by index (one stable sort,
    // not a search for the best remaining box per step: the final NMS of a
    // two-stage detector sees 1000 proposals x 90 classes).
    SmallVector<OpFoldResult> offs = {bi, ci, nb.getIndexAttr(0)};
    OpFoldResult len = getAsOpFoldResult(numBoxes);
    SmallVector<OpFoldResult> lens = {nb.getIndexAttr(1), nb.getIndexAttr(1),
                                      len};
    SmallVector<OpFoldResult> unit(3, nb.getIndexAttr(1));
    std::optional<int64_t> staticLen = getConstantIntValue(len);
    Value row = tensor::ExtractSliceOp::create(
        nb, nl,
        RankedTensorType::get({staticLen ? *staticLen : ShapedType::kDynamic},
                              ft),
        scores, offs, lens, unit);
    FailureOr<std::pair<Value, Value>> sorted =
        buildTopKDynamic(nb, nl, row, numBoxes, 0, /*largest=*/true);
    if (failed(sorted))
      return {args[0], args[1]};
    SmallVector<Value> r = loop(
        nb, nl, zero, numBoxes, ValueRange{args[0], args[1], falseV},
        [&](OpBuilder &sb, Location sl, Value p,
            ValueRange state) -> SmallVector<Value> {
          Value out = state[0], count = state[1], done = state[2];
          return ifElse(
              sb, sl, done,
              [&](OpBuilder &, Location) -> SmallVector<Value> {
                return {out, count, done};
              },
              [&](OpBuilder &eb, Location el) -> SmallVector<Value> {
                Value s = tensor::ExtractOp::create(eb, el, sorted->first, p);
                Value cand = arith::IndexCastOp::create(
                    eb, el, eb.getIndexType(),
                    tensor::ExtractOp::create(eb, el, sorted->second, p));
                Value selected = arith::SubIOp::create(eb, el, count, start);
                Value room = cmpIndex(eb, el, arith::CmpIPredicate::slt,
                                      selected, maxOut);
                Value ok = room;
                if (scoreMin)
                  ok =
                      andI(eb, el, ok,
                           arith::CmpFOp::create(
                               eb, el, arith::CmpFPredicate::OGT, s, scoreMin));
                // A full class is done; a box at or below the score
                // threshold is skipped.
                Value full = arith::XOrIOp::create(eb, el, room, trueV);
                return ifElse(
                    eb, el, ok,
                    [&](OpBuilder &gb, Location gl) -> SmallVector<Value> {
                      Corners cb =
                          readBox(gb, gl, boxes, bi, cand, centerPointBox);
                      Value hit =
                          loop(gb, gl, start, count, ValueRange{falseV},
                               [&](OpBuilder &kb, Location kl, Value j,
                                   ValueRange hs) -> SmallVector<Value> {
                                 Value sel = arith::IndexCastOp::create(
                                     kb, kl, kb.getIndexType(),
                                     tensor::ExtractOp::create(
                                         kb, kl, out,
                                         ValueRange{j, cIndex(kb, kl, 2)}));
                                 Corners sb2 = readBox(kb, kl, boxes, bi, sel,
                                                       centerPointBox);
                                 return {arith::OrIOp::create(
                                             kb, kl, hs[0],
                                             suppresses(kb, kl, sb2, cb, iou))
                                             .getResult()};
                               })[0];
                      return ifElse(
                          gb, gl, hit,
                          [&](OpBuilder &, Location) -> SmallVector<Value> {
                            return {out, count, falseV};
                          },
                          [&](OpBuilder &ab,
                              Location al) -> SmallVector<Value> {
                            Value row = out;
                            Value vals[3] = {bi, ci, cand};
                            for (int k = 0; k < 3; ++k)
                              row = tensor::InsertOp::create(
                                  ab, al,
                                  arith::IndexCastOp::create(ab, al, i64,
                                                             vals[k]),
                                  row, ValueRange{count, cIndex(ab, al, k)});
                            Value next =
                                arith::AddIOp::create(ab, al, count, one);
                            return {row, next, falseV};
                          });
                    },
                    [&](OpBuilder &, Location) -> SmallVector<Value> {
                      return {out, count, full};
                    });
              });
        });
    return {r[0], r[1]};
  };
  SmallVector<Value> r = loopNest(b, loc, ValueRange{batches, classes},
                                  ValueRange{rows, zero}, perClass);
  SmallVector<OpFoldResult> offsets(2, b.getIndexAttr(0)),
      strides(2, b.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes = {r[1], b.getIndexAttr(3)};
  return tensor::ExtractSliceOp::create(b, loc, r[0], offsets, sizes, strides)
      .getResult();
}
