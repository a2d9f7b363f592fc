//===- NGramFeatures.cpp - Bag-of-n-grams features ------------------------===//
//
// buildNGramFeatures: n-gram counts of integer token rows against a
// vocabulary known at import time. For one n-gram length n and one skip s,
// the counts of every vocabulary n-gram in every row are one
// linalg.generic over [rows, n-grams, starts] that reads n shifted slices
// of the rows (x[:, k (s + 1) : k (s + 1) + L]) and compares them with the
// vocabulary's k-th tokens; a constant one-hot matrix then sums the n-gram
// counts into their features.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/LinearAlgebra.h"
#include "mlprog/Import/Common/Statistics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <map>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

/// The [B, P] f32 counts of the P n-grams `grams` (all of length n) with
/// skip s in the [B, C] rows `x`.
static Value countGrams(OpBuilder &b, Location loc, Value x,
                        ArrayRef<SmallVector<int64_t>> grams, int64_t n,
                        int64_t s) {
  auto xt = cast<RankedTensorType>(x.getType());
  int64_t rows = xt.getDimSize(0), c = xt.getDimSize(1);
  int64_t p = grams.size(), step = s + 1;
  int64_t starts = c - (n - 1) * step;
  Type f32 = b.getF32Type();
  Value zero = createFilled(b, loc, {b.getIndexAttr(rows), b.getIndexAttr(p)},
                            b.getZeroAttr(f32));
  if (starts <= 0)
    return zero;
  MLIRContext *ctx = b.getContext();
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx),
             d2 = getAffineDimExpr(2, ctx);
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  Type et = xt.getElementType();
  for (int64_t k = 0; k < n; ++k) {
    SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0),
                                         b.getIndexAttr(k * step)};
    SmallVector<OpFoldResult> sizes = {b.getIndexAttr(rows),
                                       b.getIndexAttr(starts)};
    SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
    inputs.push_back(
        tensor::ExtractSliceOp::create(b, loc, x, offsets, sizes, strides));
    maps.push_back(AffineMap::get(3, 0, {d0, d2}, ctx));
  }
  for (int64_t k = 0; k < n; ++k) {
    SmallVector<Attribute> tokens;
    for (const SmallVector<int64_t> &g : grams)
      tokens.push_back(b.getIntegerAttr(et, g[k]));
    auto t = RankedTensorType::get({p}, et);
    inputs.push_back(
        arith::ConstantOp::create(b, loc, DenseElementsAttr::get(t, tokens)));
    maps.push_back(AffineMap::get(3, 0, {d1}, ctx));
  }
  maps.push_back(AffineMap::get(3, 0, {d0, d1}, ctx));
  SmallVector<utils::IteratorType> iterators = {utils::IteratorType::parallel,
                                                utils::IteratorType::parallel,
                                                utils::IteratorType::reduction};
  return linalg::GenericOp::create(
             b, loc, zero.getType(), inputs, ValueRange{zero}, maps, iterators,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               Value all;
               for (int64_t k = 0; k < n; ++k) {
                 Value eq = arith::CmpIOp::create(
                     nb, nl, arith::CmpIPredicate::eq, args[k], args[n + k]);
                 all = all ? arith::AndIOp::create(nb, nl, all, eq).getResult()
                           : eq;
               }
               Value one = arith::ConstantOp::create(
                   nb, nl, nb.getFloatAttr(nb.getF32Type(), 1.0));
               Value zf = arith::ConstantOp::create(
                   nb, nl, nb.getFloatAttr(nb.getF32Type(), 0.0));
               Value add = arith::SelectOp::create(nb, nl, all, one, zf);
               linalg::YieldOp::create(
                   nb, nl,
                   ValueRange{arith::AddFOp::create(nb, nl, args.back(), add)});
             })
      .getResult(0);
}

FailureOr<Value> mlprog::buildNGramFeatures(OpBuilder &b, Location loc, Value x,
                                            const NGramVocabulary &vocabulary,
                                            NGramWeighting weighting) {
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  if (!xt || !xt.getElementType().isSignlessInteger() || xt.getRank() < 1 ||
      xt.getRank() > 2)
    return emitError(loc) << "n-gram features: expected integer tokens of "
                             "rank 1 or 2, got "
                          << x.getType();
  if (ShapedType::isDynamic(xt.getShape().back()))
    return emitError(loc)
           << "unsupported n-gram features of rows of dynamic length";
  if (vocabulary.grams.size() != vocabulary.featureIndices.size())
    return emitError(loc) << "n-gram features: " << vocabulary.grams.size()
                          << " n-grams but " << vocabulary.featureIndices.size()
                          << " feature indices";
  int64_t features = 0;
  for (int64_t f : vocabulary.featureIndices) {
    if (f < 0)
      return emitError(loc) << "n-gram features: negative feature index " << f;
    features = std::max(features, f + 1);
  }
  if (!vocabulary.weights.empty() &&
      int64_t(vocabulary.weights.size()) != features)
    return emitError(loc) << "n-gram features: " << vocabulary.weights.size()
                          << " weights for " << features << " features";
  bool batched = xt.getRank() == 2;
  Value rowsX = batched ? x : insertUnitDim(b, loc, x, 0);
  if (ShapedType::isDynamic(
          cast<RankedTensorType>(rowsX.getType()).getDimSize(0)))
    return emitError(loc) << "unsupported n-gram features of a dynamic batch";
  int64_t rows = cast<RankedTensorType>(rowsX.getType()).getDimSize(0);

  // The distinct n-grams per length (a repeated one keeps its last index).
  std::map<int64_t, std::map<SmallVector<int64_t>, int64_t>> byLength;
  for (auto [g, f] : llvm::zip(vocabulary.grams, vocabulary.featureIndices)) {
    int64_t n = g.size();
    if (n >= vocabulary.minLength && n <= vocabulary.maxLength && n > 0)
      byLength[n][g] = f;
  }
  Type f32 = b.getF32Type();
  Value counts =
      createFilled(b, loc, {b.getIndexAttr(rows), b.getIndexAttr(features)},
                   b.getZeroAttr(f32));
  for (auto &[n, grams] : byLength) {
    SmallVector<SmallVector<int64_t>> list;
    SmallVector<Attribute> oneHot;
    for (auto &[g, f] : grams) {
      list.push_back(g);
      for (int64_t j = 0; j < features; ++j)
        oneHot.push_back(b.getFloatAttr(f32, j == f ? 1.0 : 0.0));
    }
    int64_t maxSkip = n == 1 ? 0 : vocabulary.maxSkip;
    Value perGram;
    for (int64_t s = 0; s <= maxSkip; ++s) {
      Value c = countGrams(b, loc, rowsX, list, n, s);
      perGram =
          perGram ? binaryOrNull(b, loc, BinaryOpKind::Add, perGram, c) : c;
      if (!perGram)
        return failure();
    }
    auto mt = RankedTensorType::get({int64_t(list.size()), features}, f32);
    Value m =
        arith::ConstantOp::create(b, loc, DenseElementsAttr::get(mt, oneHot));
    FailureOr<Value> mapped = buildMatMul(b, loc, perGram, m);
    if (failed(mapped))
      return failure();
    counts = binaryOrNull(b, loc, BinaryOpKind::Add, counts, *mapped);
    if (!counts)
      return failure();
  }

  if (weighting != NGramWeighting::TF &&
      (weighting == NGramWeighting::IDF || !vocabulary.weights.empty())) {
    SmallVector<Attribute> w;
    for (int64_t j = 0; j < features; ++j)
      w.push_back(b.getFloatAttr(
          f32, vocabulary.weights.empty() ? 1.0 : vocabulary.weights[j]));
    auto wt = RankedTensorType::get({1, features}, f32);
    Value weights =
        arith::ConstantOp::create(b, loc, DenseElementsAttr::get(wt, w));
    FailureOr<Value> weighted = buildBroadcastedGeneric(
        b, loc, ValueRange{counts, weights}, f32,
        [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
          if (weighting == NGramWeighting::TFIDF)
            return arith::MulFOp::create(nb, nl, a[0], a[1]);
          Value zero =
              arith::ConstantOp::create(nb, nl, nb.getFloatAttr(f32, 0.0));
          Value present = arith::CmpFOp::create(
              nb, nl, arith::CmpFPredicate::OGT, a[0], zero);
          return arith::SelectOp::create(nb, nl, present, a[1], zero);
        });
    if (failed(weighted))
      return failure();
    counts = *weighted;
  }
  return batched ? counts : dropUnitDim(b, loc, counts, 0);
}
