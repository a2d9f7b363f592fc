//===- LinearAlgebra.cpp - Matrix products, einsum, determinants ----------===//

#include "mlprog/Import/Common/LinearAlgebra.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <map>
#include <set>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

/// Zero-filled accumulator of `sizes`.
static Value zeroAccumulator(OpBuilder &b, Location loc,
                             ArrayRef<OpFoldResult> sizes, Type elementType) {
  return createFilled(b, loc, sizes, b.getZeroAttr(elementType));
}

/// [M, K] x [K, N] with linalg.matmul.
static Value matmul2D(OpBuilder &b, Location loc, Value a, Value bm) {
  Type et = cast<RankedTensorType>(a.getType()).getElementType();
  Value acc = zeroAccumulator(
      b, loc,
      {tensor::getMixedSize(b, loc, a, 0), tensor::getMixedSize(b, loc, bm, 1)},
      et);
  return linalg::MatmulOp::create(b, loc, ValueRange{a, bm}, ValueRange{acc})
      .getResult(0);
}

/// [B..., M, K] x [B..., K, N] with equal batch dims: collapse the batch dims
/// into one and use linalg.batch_matmul.
static Value batchMatmulSameBatch(OpBuilder &b, Location loc, Value a,
                                  Value bm) {
  auto at = cast<RankedTensorType>(a.getType());
  int64_t rank = at.getRank();
  SmallVector<ReassociationIndices> groups(1);
  for (int64_t i = 0; i < rank - 2; ++i)
    groups[0].push_back(i);
  groups.push_back({rank - 2});
  groups.push_back({rank - 1});
  Value a3 = rank == 3 ? a : tensor::CollapseShapeOp::create(b, loc, a, groups);
  Value b3 =
      rank == 3 ? bm : tensor::CollapseShapeOp::create(b, loc, bm, groups);
  Value acc = zeroAccumulator(b, loc,
                              {tensor::getMixedSize(b, loc, a3, 0),
                               tensor::getMixedSize(b, loc, a3, 1),
                               tensor::getMixedSize(b, loc, b3, 2)},
                              at.getElementType());
  Value r =
      linalg::BatchMatmulOp::create(b, loc, ValueRange{a3, b3}, ValueRange{acc})
          .getResult(0);
  if (rank == 3)
    return r;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, a);
  sizes.back() = tensor::getMixedSize(b, loc, bm, rank - 1);
  SmallVector<int64_t> shape(at.getShape());
  shape.back() = cast<RankedTensorType>(bm.getType()).getDimSize(rank - 1);
  return tensor::ExpandShapeOp::create(b, loc, at.clone(shape), r, groups,
                                       sizes);
}

/// Batch dims that broadcast: one linalg.generic contraction whose batch
/// indexing maps read stretched dims at 0.
static FailureOr<Value> batchMatmulBroadcast(OpBuilder &b, Location loc,
                                             Value a, Value bm) {
  auto at = cast<RankedTensorType>(a.getType());
  auto bt = cast<RankedTensorType>(bm.getType());
  ArrayRef<int64_t> aBatch = at.getShape().drop_back(2);
  ArrayRef<int64_t> bBatch = bt.getShape().drop_back(2);
  FailureOr<BroadcastPlan> plan = planBroadcast(loc, {aBatch, bBatch});
  if (failed(plan))
    return failure();
  proveBroadcastExtents(*plan, {a, bm});
  unsigned nb = plan->shape.size();
  MLIRContext *ctx = b.getContext();
  AffineExpr m = getAffineDimExpr(nb, ctx), n = getAffineDimExpr(nb + 1, ctx),
             k = getAffineDimExpr(nb + 2, ctx);
  SmallVector<AffineMap> maps = {
      broadcastMap(ctx, nb + 3, 0, nb, plan->stretched[0], {m, k}),
      broadcastMap(ctx, nb + 3, 0, nb, plan->stretched[1], {k, n}),
      broadcastMap(ctx, nb + 3, 0, nb, SmallVector<bool>(nb, false), {m, n})};
  SmallVector<OpFoldResult> sizes = broadcastSizes(b, loc, *plan, {a, bm});
  SmallVector<Value> stretched =
      materializeRuntimeBroadcasts(b, loc, *plan, {a, bm}, sizes, 2);
  a = stretched[0];
  bm = stretched[1];
  sizes.push_back(tensor::getMixedSize(b, loc, a, at.getRank() - 2));
  sizes.push_back(tensor::getMixedSize(b, loc, bm, bt.getRank() - 1));
  Value acc = zeroAccumulator(b, loc, sizes, at.getElementType());
  SmallVector<utils::IteratorType> iterators = parallelIterators(nb + 2);
  iterators.push_back(utils::IteratorType::reduction);
  bool isFloat = isa<FloatType>(at.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, acc.getType(), ValueRange{a, bm}, acc, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value prod, sum;
        if (isFloat) {
          prod = arith::MulFOp::create(nb, nl, args[0], args[1]);
          sum = arith::AddFOp::create(nb, nl, args[2], prod);
        } else {
          prod = arith::MulIOp::create(nb, nl, args[0], args[1]);
          sum = arith::AddIOp::create(nb, nl, args[2], prod);
        }
        linalg::YieldOp::create(nb, nl, sum);
      });
  return generic.getResult(0);
}

FailureOr<Value> mlprog::buildMatMul(OpBuilder &b, Location loc, Value a,
                                     Value bm) {
  auto at = dyn_cast<RankedTensorType>(a.getType());
  auto bt = dyn_cast<RankedTensorType>(bm.getType());
  if (!at || !bt || at.getRank() < 1 || bt.getRank() < 1 ||
      at.getElementType() != bt.getElementType() ||
      !at.getElementType().isIntOrFloat())
    return emitError(loc) << "matmul needs ranked tensors of rank >= 1 and "
                             "one element type, got "
                          << a.getType() << " and " << bm.getType();
  if (at.getElementType().isF16() || at.getElementType().isBF16())
    return accumulateInF32(b, loc, {a, bm}, [&](ArrayRef<Value> wide) {
      return buildMatMul(b, loc, wide[0], wide[1]);
    });
  bool aVector = at.getRank() == 1, bVector = bt.getRank() == 1;
  if (aVector)
    a = insertUnitDim(b, loc, a, 0);
  if (bVector)
    bm = insertUnitDim(b, loc, bm, 1);
  at = cast<RankedTensorType>(a.getType());
  bt = cast<RankedTensorType>(bm.getType());
  int64_t ka = at.getShape().end()[-1], kb = bt.getShape().end()[-2];
  if (!ShapedType::isDynamic(ka) && !ShapedType::isDynamic(kb) && ka != kb)
    return emitError(loc) << "matmul contraction extents differ: " << ka
                          << " vs " << kb;
  Value result;
  if (at.getRank() == 2 && bt.getRank() == 2) {
    result = matmul2D(b, loc, a, bm);
  } else if (at.getRank() == bt.getRank() &&
             at.getShape().drop_back(2) == bt.getShape().drop_back(2) &&
             llvm::none_of(at.getShape().drop_back(2), ShapedType::isDynamic)) {
    result = batchMatmulSameBatch(b, loc, a, bm);
  } else {
    FailureOr<Value> r = batchMatmulBroadcast(b, loc, a, bm);
    if (failed(r))
      return failure();
    result = *r;
  }
  int64_t rank = cast<RankedTensorType>(result.getType()).getRank();
  if (bVector)
    result = dropUnitDim(b, loc, result, rank - 1);
  if (aVector)
    result = dropUnitDim(b, loc, result, rank - 2);
  return result;
}

FailureOr<Value> mlprog::buildGemm(OpBuilder &b, Location loc, Value a,
                                   Value bm, Value c, double alpha, double beta,
                                   bool transA, bool transB) {
  auto at = dyn_cast<RankedTensorType>(a.getType());
  auto bt = dyn_cast<RankedTensorType>(bm.getType());
  if (!at || !bt || at.getRank() != 2 || bt.getRank() != 2)
    return emitError(loc) << "gemm needs 2-D operands, got " << a.getType()
                          << " and " << bm.getType();
  Type et = at.getElementType();
  if (!isa<FloatType>(et) && (alpha != 1.0 || beta != 1.0))
    return emitError(loc) << "integer gemm needs alpha = beta = 1";
  if (transA) {
    FailureOr<Value> t = buildTranspose(b, loc, a, {1, 0});
    if (failed(t))
      return failure();
    a = *t;
  }
  if (transB) {
    FailureOr<Value> t = buildTranspose(b, loc, bm, {1, 0});
    if (failed(t))
      return failure();
    bm = *t;
  }
  FailureOr<Value> ab = buildMatMul(b, loc, a, bm);
  if (failed(ab))
    return failure();
  if (!c && alpha == 1.0)
    return ab;
  SmallVector<Value> operands = {*ab};
  if (c) {
    auto ct = dyn_cast<RankedTensorType>(c.getType());
    if (!ct || ct.getElementType() != et || ct.getRank() > 2)
      return emitError(loc) << "gemm C of type " << c.getType()
                            << " does not broadcast to the result";
    operands.push_back(c);
  }
  bool isFloat = isa<FloatType>(et);
  return buildBroadcastedGeneric(
      b, loc, operands, et, [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value r = args[0];
        if (alpha != 1.0)
          r = arith::MulFOp::create(nb, nl, r, createScalar(nb, nl, et, alpha));
        if (args.size() < 2)
          return r;
        Value cv = args[1];
        if (beta != 1.0)
          cv =
              arith::MulFOp::create(nb, nl, cv, createScalar(nb, nl, et, beta));
        return isFloat ? arith::AddFOp::create(nb, nl, r, cv).getResult()
                       : arith::AddIOp::create(nb, nl, r, cv).getResult();
      });
}

static int64_t rankOfValue(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank();
}

//===--- Einsum -----------------------------------------------------------===//

namespace {
/// An einsum term as loop labels: letters are 0..127 (their code), the
/// ellipsis dims 1000 + k (k counts from the outermost ellipsis dim).
using Term = SmallVector<int>;
} // namespace

/// Parses one term; `ellipsisRank` is the rank the "..." stands for, or -1 to
/// take it from `rank` (an operand's rank).
static FailureOr<Term> parseTerm(Location loc, StringRef s, int64_t rank,
                                 int64_t maxEllipsis) {
  Term term;
  size_t dots = s.find("...");
  StringRef before = s.substr(0, dots);
  StringRef after = dots == StringRef::npos ? "" : s.substr(dots + 3);
  auto letters = [&](StringRef part) -> LogicalResult {
    for (char c : part) {
      if (!llvm::isAlpha(c))
        return emitError(loc)
               << "einsum: invalid character '" << c << "' in equation";
      term.push_back(int(c));
    }
    return success();
  };
  if (failed(letters(before)))
    return failure();
  if (dots != StringRef::npos) {
    if (after.contains('.'))
      return emitError(loc) << "einsum: more than one ellipsis in a term";
    int64_t n =
        rank >= 0 ? rank - int64_t(before.size() + after.size()) : maxEllipsis;
    if (n < 0 || n > maxEllipsis)
      return emitError(loc) << "einsum: ellipsis does not match the rank";
    for (int64_t k = maxEllipsis - n; k < maxEllipsis; ++k)
      term.push_back(1000 + int(k));
  }
  if (failed(letters(after)))
    return failure();
  if (rank >= 0 && int64_t(term.size()) != rank)
    return emitError(loc) << "einsum: term '" << s << "' does not match rank "
                          << rank;
  return term;
}

/// `x` transposed so that its dims follow `to` (labels of `from`, x's own
/// order), or `x` when the order is already that.
static FailureOr<Value> permuteLabels(OpBuilder &b, Location loc, Value x,
                                      const Term &from, const Term &to) {
  SmallVector<int64_t> perm;
  for (int label : to)
    perm.push_back(llvm::find(from, label) - from.begin());
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return x;
  return buildTranspose(b, loc, x, perm);
}

/// An einsum of two operands that is a batched matrix product, as one
/// linalg.batch_matmul over the collapsed batch dims (linalg.matmul without
/// them; the CPU pipeline blocks and packs both) between transposes:
/// every label is a batch label (in both inputs and the output), the one row
/// label of each input (in it and the output), or the one summed label (in
/// both inputs only); no label repeats within a term, the static batch
/// extents agree, the element type is not 16-bit (buildMatMul accumulates
/// those in f32). MaxViT's attention ("BGHID,BGHJD->BGHIJ") is one. A null
/// Value when the equation is not of this form.
static FailureOr<Value> einsumAsMatMul(OpBuilder &b, Location loc,
                                       ArrayRef<Term> terms, const Term &out,
                                       ValueRange operands) {
  if (terms.size() != 2)
    return Value();
  Type et = elementTypeOf(operands[0]);
  if (et.isF16() || et.isBF16())
    return Value();
  auto distinct = [](const Term &t) {
    std::set<int> seen(t.begin(), t.end());
    return seen.size() == t.size();
  };
  if (!distinct(terms[0]) || !distinct(terms[1]) || !distinct(out))
    return Value();
  const Term &ta = terms[0], &tb = terms[1];
  Term batch, rowsA, colsB, summed;
  for (int label : out) {
    bool inA = llvm::is_contained(ta, label),
         inB = llvm::is_contained(tb, label);
    if (inA && inB)
      batch.push_back(label);
    else if (inA)
      rowsA.push_back(label);
    else
      colsB.push_back(label);
  }
  for (int label : ta)
    if (!llvm::is_contained(out, label)) {
      if (!llvm::is_contained(tb, label))
        return Value();
      summed.push_back(label);
    }
  for (int label : tb)
    if (!llvm::is_contained(out, label) && !llvm::is_contained(ta, label))
      return Value();
  if (rowsA.size() != 1 || colsB.size() != 1 || summed.size() != 1)
    return Value();
  auto extentOf = [&](unsigned i, int label) {
    const Term &t = terms[i];
    return cast<RankedTensorType>(operands[i].getType())
        .getDimSize(llvm::find(t, label) - t.begin());
  };
  // Einsum does not broadcast: a label has one extent, so the batch dims
  // collapse into one batch_matmul even where they are dynamic (buildMatMul
  // must allow numpy broadcasting there, and builds a generic contraction
  // that the CPU pipeline does not lower beyond two batch dims).
  for (int label : batch) {
    int64_t ea = extentOf(0, label), eb = extentOf(1, label);
    if (!ShapedType::isDynamic(ea) && !ShapedType::isDynamic(eb) && ea != eb)
      return Value();
  }
  Term orderA(batch), orderB(batch), product(batch);
  orderA.append({rowsA[0], summed[0]});
  orderB.append({summed[0], colsB[0]});
  product.append({rowsA[0], colsB[0]});
  FailureOr<Value> a = permuteLabels(b, loc, operands[0], ta, orderA);
  FailureOr<Value> bm = permuteLabels(b, loc, operands[1], tb, orderB);
  if (failed(a) || failed(bm))
    return failure();
  FailureOr<Value> c =
      batch.empty() ? buildMatMul(b, loc, *a, *bm)
                    : FailureOr<Value>(batchMatmulSameBatch(b, loc, *a, *bm));
  if (failed(c))
    return failure();
  return permuteLabels(b, loc, *c, product, out);
}

FailureOr<Value> mlprog::buildEinsum(OpBuilder &b, Location loc,
                                     StringRef equation, ValueRange operands) {
  std::string eq;
  for (char c : equation)
    if (c != ' ')
      eq.push_back(c);
  StringRef eqRef(eq);
  auto [lhs, rhs] = eqRef.split("->");
  bool explicitOutput = eqRef.contains("->");
  SmallVector<StringRef> inputs;
  lhs.split(inputs, ',');
  if (inputs.size() != operands.size() || operands.empty())
    return emitError(loc) << "einsum: equation '" << equation << "' has "
                          << inputs.size() << " inputs, got " << operands.size()
                          << " operands";
  Type et;
  for (Value v : operands) {
    Type t = elementTypeOf(v);
    if (!t || !t.isIntOrFloat() || (et && t != et))
      return emitError(loc) << "einsum needs ranked numeric tensors of one "
                               "element type";
    et = t;
  }
  // The ellipsis covers the largest number of dims any operand gives it.
  int64_t maxEllipsis = 0;
  for (auto [s, v] : llvm::zip(inputs, operands)) {
    size_t dots = s.find("...");
    if (dots == StringRef::npos)
      continue;
    int64_t letters = int64_t(s.size()) - 3;
    maxEllipsis = std::max(maxEllipsis, rankOfValue(v) - letters);
  }
  SmallVector<Term> terms;
  std::map<int, std::pair<unsigned, unsigned>>
      source; // label -> (operand, dim)
  std::map<int, int> count;
  for (auto [i, s] : llvm::enumerate(inputs)) {
    FailureOr<Term> t =
        parseTerm(loc, s, rankOfValue(operands[i]), maxEllipsis);
    if (failed(t))
      return failure();
    for (auto [d, label] : llvm::enumerate(*t)) {
      source.try_emplace(label, unsigned(i), unsigned(d));
      ++count[label];
    }
    terms.push_back(*t);
  }
  // Every label must have one static extent (no broadcasting).
  std::map<int, int64_t> extent;
  for (auto [t, v] : llvm::zip(terms, operands))
    for (auto [label, dim] :
         llvm::zip(t, cast<RankedTensorType>(v.getType()).getShape())) {
      if (ShapedType::isDynamic(dim))
        continue;
      auto [it, inserted] = extent.try_emplace(label, dim);
      if (!inserted && it->second != dim)
        return emitError(loc) << "einsum: mismatched extents " << it->second
                              << " and " << dim << " for one label";
    }
  Term out;
  if (explicitOutput) {
    FailureOr<Term> t = parseTerm(loc, rhs, -1, maxEllipsis);
    if (failed(t))
      return failure();
    out = *t;
    for (int label : out)
      if (!source.count(label))
        return emitError(loc) << "einsum: output label '" << char(label)
                              << "' is not in any input";
  } else {
    for (int64_t k = 0; k < maxEllipsis; ++k)
      out.push_back(1000 + int(k));
    for (auto [label, n] : count)
      if (label < 1000 && n == 1)
        out.push_back(label);
  }
  FailureOr<Value> product = einsumAsMatMul(b, loc, terms, out, operands);
  if (failed(product) || *product)
    return product;
  // Loop order: output labels, then the summed ones.
  SmallVector<int> loops(out.begin(), out.end());
  for (auto &entry : source)
    if (!llvm::is_contained(loops, entry.first))
      loops.push_back(entry.first);
  MLIRContext *ctx = b.getContext();
  auto mapOf = [&](const Term &t) {
    SmallVector<AffineExpr> exprs;
    for (int label : t)
      exprs.push_back(getAffineDimExpr(
          unsigned(llvm::find(loops, label) - loops.begin()), ctx));
    return AffineMap::get(loops.size(), 0, exprs, ctx);
  };
  SmallVector<AffineMap> maps;
  for (const Term &t : terms)
    maps.push_back(mapOf(t));
  maps.push_back(mapOf(out));
  SmallVector<OpFoldResult> sizes;
  for (int label : out) {
    auto [i, d] = source[label];
    sizes.push_back(tensor::getMixedSizes(b, loc, operands[i])[d]);
  }
  SmallVector<utils::IteratorType> iterators(loops.size(),
                                             utils::IteratorType::reduction);
  for (size_t k = 0; k < out.size(); ++k)
    iterators[k] = utils::IteratorType::parallel;
  Value init = createFilled(b, loc, sizes, b.getZeroAttr(et));
  bool isFloat = isa<FloatType>(et);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), operands, init, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value p = a[0];
        for (Value v : a.drop_front().drop_back())
          p = isFloat ? arith::MulFOp::create(nb, nl, p, v).getResult()
                      : arith::MulIOp::create(nb, nl, p, v).getResult();
        Value acc = a.back();
        Value r = isFloat ? arith::AddFOp::create(nb, nl, acc, p).getResult()
                          : arith::AddIOp::create(nb, nl, acc, p).getResult();
        linalg::YieldOp::create(nb, nl, r);
      });
  return generic.getResult(0);
}

//===--- Cross product ----------------------------------------------------===//

FailureOr<Value> mlprog::buildCross(OpBuilder &b, Location loc, Value a,
                                    Value bm, int64_t axis) {
  auto at = dyn_cast<RankedTensorType>(a.getType());
  auto bt = dyn_cast<RankedTensorType>(bm.getType());
  if (!at || !bt || at.getElementType() != bt.getElementType() ||
      !at.getElementType().isIntOrFloat())
    return emitError(loc) << "cross needs numeric tensors of one element "
                             "type, got "
                          << a.getType() << " and " << bm.getType();
  int64_t rank = std::max(at.getRank(), bt.getRank());
  if (axis < -rank || axis >= rank)
    return emitError(loc) << "cross: dim " << axis << " out of range for rank "
                          << rank;
  if (axis < 0)
    axis += rank;
  // Equal ranks (leading unit dims), then the three components of each.
  SmallVector<Value> comps[2];
  for (auto [k, v] : llvm::enumerate(SmallVector<Value>{a, bm})) {
    while (rankOfValue(v) < rank)
      v = insertUnitDim(b, loc, v, 0);
    int64_t extent = cast<RankedTensorType>(v.getType()).getDimSize(axis);
    if (extent != 3)
      return emitError(loc) << "cross: dim " << axis
                            << " must have extent 3, got " << v.getType();
    for (int64_t i = 0; i < 3; ++i) {
      SmallVector<SliceDim> dims(rank);
      dims[axis].start = i;
      dims[axis].stop = i + 1;
      FailureOr<Value> c = buildSlice(b, loc, v, dims);
      if (failed(c))
        return failure();
      comps[k].push_back(*c);
    }
  }
  SmallVector<Value> r;
  for (int64_t i = 0; i < 3; ++i) {
    int64_t j = (i + 1) % 3, k = (i + 2) % 3;
    FailureOr<Value> p = buildElementwiseBinary(b, loc, BinaryOpKind::Mul,
                                                comps[0][j], comps[1][k]);
    FailureOr<Value> q = buildElementwiseBinary(b, loc, BinaryOpKind::Mul,
                                                comps[0][k], comps[1][j]);
    if (failed(p) || failed(q))
      return failure();
    FailureOr<Value> d =
        buildElementwiseBinary(b, loc, BinaryOpKind::Sub, *p, *q);
    if (failed(d))
      return failure();
    r.push_back(*d);
  }
  return buildConcat(b, loc, r, axis);
}

/// Determinant of the square matrix `a` [M, M] by Gaussian elimination
/// with partial pivoting, carried out on a copy threaded through the loops.
static Value luDeterminant(OpBuilder &b, Location loc, Value a, Value m) {
  Type et = cast<RankedTensorType>(a.getType()).getElementType();
  Value one = cIndex(b, loc, 1);
  Value zeroF = createScalar(b, loc, et, 0.0);
  auto at = [](OpBuilder &nb, Location nl, Value t, Value i, Value j) {
    return tensor::ExtractOp::create(nb, nl, t, ValueRange{i, j}).getResult();
  };
  return loop(
      b, loc, cIndex(b, loc, 0), m,
      ValueRange{a, createScalar(b, loc, et, 1.0)},
      [&](OpBuilder &nb, Location nl, Value k,
          ValueRange st) -> SmallVector<Value> {
        Value mat = st[0], det = st[1];
        // Pivot: the row p >= k with the largest |a[p, k]| (first on ties).
        Value p = loop(
            nb, nl, k, m, ValueRange{createScalar(nb, nl, et, -1.0), k},
            [&](OpBuilder &lb, Location ll, Value i,
                ValueRange bs) -> SmallVector<Value> {
              Value v = math::AbsFOp::create(lb, ll, at(lb, ll, mat, i, k));
              Value gt = arith::CmpFOp::create(
                  lb, ll, arith::CmpFPredicate::OGT, v, bs[0]);
              return {
                  arith::SelectOp::create(lb, ll, gt, v, bs[0]).getResult(),
                  arith::SelectOp::create(lb, ll, gt, i, bs[1]).getResult()};
            })[1];
        Value swap =
            arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ne, p, k);
        SmallVector<Value> swapped = ifElse(
            nb, nl, swap,
            [&](OpBuilder &sb, Location sl) -> SmallVector<Value> {
              Value t = loop(sb, sl, cIndex(sb, sl, 0), m, mat,
                             [&](OpBuilder &cb, Location cl, Value j,
                                 ValueRange cs) -> SmallVector<Value> {
                               Value rowK = at(cb, cl, cs[0], k, j);
                               Value rowP = at(cb, cl, cs[0], p, j);
                               Value t1 = tensor::InsertOp::create(
                                   cb, cl, rowP, cs[0], ValueRange{k, j});
                               return {tensor::InsertOp::create(
                                           cb, cl, rowK, t1, ValueRange{p, j})
                                           .getResult()};
                             })[0];
              return {t, arith::NegFOp::create(sb, sl, det).getResult()};
            },
            [&](OpBuilder &, Location) -> SmallVector<Value> {
              return {mat, det};
            });
        mat = swapped[0];
        Value pivot = at(nb, nl, mat, k, k);
        det = arith::MulFOp::create(nb, nl, swapped[1], pivot);
        // Eliminate below the pivot unless the column is all zero (then
        // det is already 0 and the division would make NaNs).
        Value nonZero = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::UNE,
                                              pivot, zeroF);
        Value next = arith::AddIOp::create(nb, nl, k, one);
        Value reduced = ifElse(
            nb, nl, nonZero,
            [&](OpBuilder &eb, Location el) -> SmallVector<Value> {
              return loop(
                  eb, el, next, m, mat,
                  [&](OpBuilder &rb, Location rl, Value i,
                      ValueRange rs) -> SmallVector<Value> {
                    Value f = arith::DivFOp::create(
                        rb, rl, at(rb, rl, rs[0], i, k), pivot);
                    return loop(
                        rb, rl, next, m, rs[0],
                        [&](OpBuilder &cb, Location cl, Value j,
                            ValueRange cs) -> SmallVector<Value> {
                          Value v = arith::SubFOp::create(
                              cb, cl, at(cb, cl, cs[0], i, j),
                              arith::MulFOp::create(cb, cl, f,
                                                    at(cb, cl, cs[0], k, j)));
                          return {tensor::InsertOp::create(cb, cl, v, cs[0],
                                                           ValueRange{i, j})
                                      .getResult()};
                        });
                  });
            },
            [&](OpBuilder &, Location) -> SmallVector<Value> {
              return {mat};
            })[0];
        return {reduced, det};
      })[1];
}

FailureOr<Value> mlprog::buildDeterminant(OpBuilder &b, Location loc, Value x) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "det");
  if (failed(type))
    return failure();
  int64_t rank = type->getRank();
  Type et = type->getElementType();
  if (rank < 2 || !isa<FloatType>(et))
    return emitError(loc) << "det: expected a float tensor of rank >= 2, got "
                          << *type;
  int64_t m = type->getDimSize(rank - 1), m2 = type->getDimSize(rank - 2);
  if (!ShapedType::isDynamic(m) && !ShapedType::isDynamic(m2) && m != m2)
    return emitError(loc) << "det: matrices of " << *type << " are not square";
  int64_t batch = rank - 2;
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  // The determinant of a 0 x 0 matrix is 1 (and there is nothing to slice).
  if (m == 0 || m2 == 0)
    return createFilled(b, loc, ArrayRef(sizes).take_front(batch),
                        b.getFloatAttr(et, 1.0));
  Value init = createEmpty(b, loc, ArrayRef(sizes).take_front(batch), et);
  OpFoldResult mSize = sizes[rank - 1];
  Value mv = getValueOrCreateConstantIndexOp(b, loc, mSize);
  auto matType = RankedTensorType::get({m, m}, et);
  SmallVector<Value> ubs = getValueOrCreateConstantIndexOp(
      b, loc, ArrayRef(sizes).take_front(batch));
  Value zero = cIndex(b, loc, 0), one = cIndex(b, loc, 1);
  SmallVector<Value> lbs(batch, zero), steps(batch, one);
  scf::LoopNest nest = scf::buildLoopNest(
      b, loc, lbs, ubs, steps, init,
      [&](OpBuilder &nb, Location nl, ValueRange ivs,
          ValueRange args) -> scf::ValueVector {
        SmallVector<OpFoldResult> offsets(getAsOpFoldResult(ivs));
        offsets.append(2, nb.getIndexAttr(0));
        SmallVector<OpFoldResult> slab(batch, nb.getIndexAttr(1));
        slab.push_back(mSize);
        slab.push_back(mSize);
        SmallVector<OpFoldResult> strides(rank, nb.getIndexAttr(1));
        Value mat = tensor::ExtractSliceOp::create(nb, nl, matType, x, offsets,
                                                   slab, strides);
        Value det = luDeterminant(nb, nl, mat, mv);
        return {
            tensor::InsertOp::create(nb, nl, det, args[0], ivs).getResult()};
      });
  return nest.results[0];
}

FailureOr<Value> mlprog::buildVander(OpBuilder &b, Location loc, Value x,
                                     std::optional<int64_t> cols) {
  auto t = dyn_cast<RankedTensorType>(x.getType());
  if (t && t.getRank() == 0) {
    FailureOr<Value> one = buildReshape(b, loc, x, {1});
    if (failed(one))
      return failure();
    return buildVander(b, loc, *one, cols);
  }
  if (!t || t.isDynamicDim(t.getRank() - 1) || (cols && *cols < 0))
    return emitError(loc) << "vander: expected a tensor with a static last "
                             "extent and N >= 0, got "
                          << x.getType();
  int64_t rank = t.getRank();
  int64_t n = cols.value_or(t.getShape().back());
  FailureOr<Value> col = buildUnsqueeze(b, loc, x, rank);
  if (failed(col))
    return failure();
  SmallVector<int64_t> shape(t.getShape());
  shape.push_back(n);
  SmallVector<int64_t> target(rank, -1);
  target.push_back(n);
  FailureOr<Value> wide = buildExpand(b, loc, *col, target);
  if (failed(wide))
    return failure();
  // The exclusive cumulative product along the new dim: 1, x, x*x, ...
  return buildCumSum(b, loc, *wide, rank, /*exclusive=*/true,
                     /*reverse=*/false, ReduceKind::Prod);
}
