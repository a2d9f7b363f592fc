//===- AxisOps.cpp - Norm reductions, scans, hardmax, LRN, einsum ---------===//

#include "mlprog/Import/Common/AxisOps.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Pointwise.h"
#include "mlprog/Import/Common/Reduction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <map>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

static Type elementTypeOf(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t ? t.getElementType() : Type();
}

static int64_t rankOfValue(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank();
}

static Value binary(OpBuilder &b, Location loc, BinaryOpKind kind, Value l,
                    Value r) {
  FailureOr<Value> v = buildElementwiseBinary(b, loc, kind, l, r);
  return succeeded(v) ? *v : Value();
}

static Value unary(OpBuilder &b, Location loc, UnaryOpKind kind, Value x) {
  FailureOr<Value> v = buildElementwiseUnary(b, loc, kind, x);
  return succeeded(v) ? *v : Value();
}

FailureOr<Value> mlprog::buildNormReduce(OpBuilder &b, Location loc,
                                         NormReduceKind kind, Value x,
                                         ArrayRef<int64_t> axes,
                                         bool keepDims) {
  Type et = elementTypeOf(x);
  bool needsFloat =
      kind != NormReduceKind::L1 && kind != NormReduceKind::SumSquare;
  if (!et || !et.isIntOrFloat() || (needsFloat && !isa<FloatType>(et)))
    return emitError(loc) << "norm reduction needs a ranked "
                          << (needsFloat ? "float" : "numeric")
                          << " tensor, got " << x.getType();
  switch (kind) {
  case NormReduceKind::L1: {
    Value a = unary(b, loc, UnaryOpKind::Abs, x);
    if (!a)
      return failure();
    return buildReduce(b, loc, ReduceKind::Sum, a, axes, keepDims);
  }
  case NormReduceKind::L2:
  case NormReduceKind::SumSquare: {
    Value sq = binary(b, loc, BinaryOpKind::Mul, x, x);
    FailureOr<Value> s =
        buildReduce(b, loc, ReduceKind::Sum, sq, axes, keepDims);
    if (failed(s) || kind == NormReduceKind::SumSquare)
      return s;
    return buildElementwiseUnary(b, loc, UnaryOpKind::Sqrt, *s);
  }
  case NormReduceKind::LogSum: {
    FailureOr<Value> s =
        buildReduce(b, loc, ReduceKind::Sum, x, axes, keepDims);
    if (failed(s))
      return failure();
    return buildElementwiseUnary(b, loc, UnaryOpKind::Log, *s);
  }
  case NormReduceKind::LogSumExp: {
    FailureOr<Value> mKeep =
        buildReduce(b, loc, ReduceKind::Max, x, axes, /*keepDims=*/true);
    if (failed(mKeep))
      return failure();
    Value shifted = binary(b, loc, BinaryOpKind::Sub, x, *mKeep);
    Value e = unary(b, loc, UnaryOpKind::Exp, shifted);
    FailureOr<Value> s =
        buildReduce(b, loc, ReduceKind::Sum, e, axes, keepDims);
    FailureOr<Value> m =
        buildReduce(b, loc, ReduceKind::Max, x, axes, keepDims);
    if (failed(s) || failed(m))
      return failure();
    return buildElementwiseBinary(b, loc, BinaryOpKind::Add, *m,
                                  unary(b, loc, UnaryOpKind::Log, *s));
  }
  }
  return failure();
}

/// Hardmax along the single dim `axis` (normalized).
static FailureOr<Value> hardmaxOneAxis(OpBuilder &b, Location loc, Value x,
                                       int64_t axis) {
  FailureOr<Value> idx = buildArgReduce(b, loc, x, axis, /*keepDims=*/true,
                                        /*isMax=*/true);
  if (failed(idx))
    return failure();
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> idxExprs;
  for (int64_t d = 0; d < rank; ++d)
    idxExprs.push_back(d == axis ? getAffineConstantExpr(0, ctx)
                                 : getAffineDimExpr(d, ctx));
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, idxExprs, ctx), id};
  Value init = createEmpty(b, loc, tensor::getMixedSizes(b, loc, x),
                           type.getElementType());
  Type et = type.getElementType();
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{*idx}, init, maps,
      parallelIterators(rank), [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value i = linalg::IndexOp::create(nb, nl, axis);
        Value i64 = arith::IndexCastOp::create(nb, nl, nb.getI64Type(), i);
        Value hit =
            arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, i64, a[0]);
        Value r =
            arith::SelectOp::create(nb, nl, hit, createScalar(nb, nl, et, 1.0),
                                    createScalar(nb, nl, et, 0.0));
        linalg::YieldOp::create(nb, nl, r);
      });
  return generic.getResult(0);
}

FailureOr<Value> mlprog::buildHardmax(OpBuilder &b, Location loc, Value x,
                                      int64_t axis, bool coerce) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || type.getRank() == 0 || !type.getElementType().isIntOrFloat())
    return emitError(loc) << "hardmax needs a ranked numeric tensor of rank "
                             ">= 1, got "
                          << x.getType();
  int64_t rank = type.getRank();
  if (axis < -rank || axis >= rank)
    return emitError(loc) << "hardmax: axis " << axis
                          << " out of range for rank " << rank;
  axis = (axis + rank) % rank;
  if (!coerce || axis == rank - 1)
    return hardmaxOneAxis(b, loc, x, axis);
  // Collapse [axis, rank) into one dim, take the hardmax there, expand back.
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d < axis; ++d)
    groups.push_back({d});
  ReassociationIndices tail;
  for (int64_t d = axis; d < rank; ++d)
    tail.push_back(d);
  groups.push_back(tail);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  Value flat = tensor::CollapseShapeOp::create(b, loc, x, groups);
  FailureOr<Value> h = hardmaxOneAxis(b, loc, flat, axis);
  if (failed(h))
    return failure();
  return tensor::ExpandShapeOp::create(b, loc, type, *h, groups, sizes)
      .getResult();
}

FailureOr<Value> mlprog::buildCumSum(OpBuilder &b, Location loc, Value x,
                                     int64_t axis, bool exclusive,
                                     bool reverse) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || type.getRank() == 0 || !type.getElementType().isIntOrFloat() ||
      type.getElementType().isInteger(1))
    return emitError(loc) << "cumsum needs a ranked numeric tensor of rank "
                             ">= 1, got "
                          << x.getType();
  int64_t rank = type.getRank();
  if (axis < -rank || axis >= rank)
    return emitError(loc) << "cumsum: axis " << axis
                          << " out of range for rank " << rank;
  axis = (axis + rank) % rank;
  Type et = type.getElementType();
  bool isFloat = isa<FloatType>(et);
  MLIRContext *ctx = b.getContext();
  // Loops: the result dims, then j (the summed position along `axis`).
  SmallVector<AffineExpr> inExprs;
  for (int64_t d = 0; d < rank; ++d)
    inExprs.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
  SmallVector<AffineExpr> outExprs;
  for (int64_t d = 0; d < rank; ++d)
    outExprs.push_back(getAffineDimExpr(d, ctx));
  SmallVector<AffineMap> maps = {AffineMap::get(rank + 1, 0, inExprs, ctx),
                                 AffineMap::get(rank + 1, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iterators = parallelIterators(rank);
  iterators.push_back(utils::IteratorType::reduction);
  Value init =
      createFilled(b, loc, tensor::getMixedSizes(b, loc, x), b.getZeroAttr(et));
  arith::CmpIPredicate pred =
      reverse
          ? (exclusive ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::sge)
          : (exclusive ? arith::CmpIPredicate::slt : arith::CmpIPredicate::sle);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{x}, init, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value i = linalg::IndexOp::create(nb, nl, axis);
        Value j = linalg::IndexOp::create(nb, nl, rank);
        Value take = arith::CmpIOp::create(nb, nl, pred, j, i);
        Value v = arith::SelectOp::create(nb, nl, take, a[0],
                                          createScalar(nb, nl, et, 0.0));
        Value r = isFloat ? arith::AddFOp::create(nb, nl, a[1], v).getResult()
                          : arith::AddIOp::create(nb, nl, a[1], v).getResult();
        linalg::YieldOp::create(nb, nl, r);
      });
  return generic.getResult(0);
}

FailureOr<Value>
mlprog::buildMeanVarianceNormalization(OpBuilder &b, Location loc, Value x,
                                       ArrayRef<int64_t> axes) {
  if (!isa_and_nonnull<FloatType>(elementTypeOf(x)))
    return emitError(loc) << "mean-variance normalization needs a float "
                             "tensor, got "
                          << x.getType();
  FailureOr<Value> mean = buildReduce(b, loc, ReduceKind::Mean, x, axes, true);
  if (failed(mean))
    return failure();
  Value x2 = binary(b, loc, BinaryOpKind::Mul, x, x);
  FailureOr<Value> meanSq =
      buildReduce(b, loc, ReduceKind::Mean, x2, axes, true);
  if (failed(meanSq))
    return failure();
  Value var = binary(b, loc, BinaryOpKind::Sub, *meanSq,
                     binary(b, loc, BinaryOpKind::Mul, *mean, *mean));
  Value stddev = unary(b, loc, UnaryOpKind::Sqrt, var);
  FailureOr<Value> denom = buildAddScalar(b, loc, stddev, 1e-9);
  if (failed(denom))
    return failure();
  return buildElementwiseBinary(b, loc, BinaryOpKind::Div,
                                binary(b, loc, BinaryOpKind::Sub, x, *mean),
                                *denom);
}

FailureOr<Value> mlprog::buildLRN(OpBuilder &b, Location loc, Value x,
                                  int64_t size, double alpha, double beta,
                                  double bias) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || type.getRank() < 3 || !isa<FloatType>(type.getElementType()))
    return emitError(loc) << "LRN needs a float tensor of rank >= 3, got "
                          << x.getType();
  if (size < 1)
    return emitError(loc) << "LRN size must be positive, got " << size;
  Type et = type.getElementType();
  int64_t rank = type.getRank();
  Value sq = binary(b, loc, BinaryOpKind::Mul, x, x);
  SmallVector<int64_t> low(rank, 0), high(rank, 0);
  low[1] = (size - 1) / 2;
  high[1] = size - 1 - low[1];
  Value padded = padStatic(b, loc, sq, low, high, b.getZeroAttr(et));
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> inExprs, outExprs;
  for (int64_t d = 0; d < rank; ++d) {
    outExprs.push_back(getAffineDimExpr(d, ctx));
    inExprs.push_back(d == 1 ? getAffineDimExpr(1, ctx) +
                                   getAffineDimExpr(rank, ctx)
                             : getAffineDimExpr(d, ctx));
  }
  // A [size] operand only gives the window loop its extent.
  Value window = createEmpty(b, loc, {b.getIndexAttr(size)}, et);
  SmallVector<AffineMap> maps = {
      AffineMap::get(rank + 1, 0, inExprs, ctx),
      AffineMap::get(rank + 1, 0, {getAffineDimExpr(rank, ctx)}, ctx),
      AffineMap::get(rank + 1, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iterators = parallelIterators(rank);
  iterators.push_back(utils::IteratorType::reduction);
  Value init =
      createFilled(b, loc, tensor::getMixedSizes(b, loc, x), b.getZeroAttr(et));
  Value sum =
      linalg::GenericOp::create(
          b, loc, init.getType(), ValueRange{padded, window}, init, maps,
          iterators,
          [&](OpBuilder &nb, Location nl, ValueRange a) {
            linalg::YieldOp::create(
                nb, nl, arith::AddFOp::create(nb, nl, a[0], a[2]).getResult());
          })
          .getResult(0);
  return buildBroadcastedGeneric(
      b, loc, {x, sum}, et, [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value scaled = arith::MulFOp::create(
            nb, nl, a[1], createScalar(nb, nl, et, alpha / double(size)));
        Value base = arith::AddFOp::create(nb, nl, scaled,
                                           createScalar(nb, nl, et, bias));
        Value p =
            math::PowFOp::create(nb, nl, base, createScalar(nb, nl, et, beta));
        return arith::DivFOp::create(nb, nl, a[0], p).getResult();
      });
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
