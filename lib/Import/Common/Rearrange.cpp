//===- Rearrange.cpp - Elements moved to computed positions ---------------===//

#include "mlprog/Import/Common/Rearrange.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Loss.h"
#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

/// The static shape of `x`, or an error naming `what`.
static FailureOr<ArrayRef<int64_t>> staticShape(Location loc, Value x,
                                                StringRef what) {
  auto t = dyn_cast<RankedTensorType>(x.getType());
  if (!t || !t.hasStaticShape())
    return emitError(loc) << what << ": unsupported dynamic shape "
                          << x.getType();
  return t.getShape();
}

/// `x` (static shape) as a 1-D tensor of its elements in row-major order.
static FailureOr<Value> flat(OpBuilder &b, Location loc, Value x) {
  auto t = cast<RankedTensorType>(x.getType());
  return buildReshape(b, loc, x, {t.getNumElements()});
}

/// A linalg.generic over `sizes` (element type `et`) with the inputs `ins`
/// (identity maps) whose body yields `body(indices, input elements)`.
static Value
generate(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes, Type et,
         ValueRange ins,
         function_ref<Value(OpBuilder &, Location, ArrayRef<Value>, ValueRange)>
             body) {
  int64_t rank = sizes.size();
  Value init = createEmpty(b, loc, sizes, et);
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  SmallVector<AffineMap> maps(ins.size() + 1, id);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ins, init, maps, parallelIterators(rank),
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               SmallVector<Value> at;
               for (int64_t d = 0; d < rank; ++d)
                 at.push_back(linalg::IndexOp::create(nb, nl, d));
               linalg::YieldOp::create(nb, nl,
                                       body(nb, nl, at, args.drop_back()));
             })
      .getResult(0);
}

/// Checks a strided view against a storage of `numel` elements.
static LogicalResult checkView(Location loc, StringRef what,
                               ArrayRef<int64_t> sizes,
                               ArrayRef<int64_t> strides, int64_t offset,
                               int64_t numel) {
  if (sizes.size() != strides.size())
    return emitError(loc) << what << ": " << sizes.size() << " sizes for "
                          << strides.size() << " strides";
  if (offset < 0 || llvm::any_of(sizes, [](int64_t s) { return s < 0; }) ||
      llvm::any_of(strides, [](int64_t s) { return s < 0; }))
    return emitError(loc) << what << ": sizes, strides and offset must be >= 0";
  if (llvm::is_contained(sizes, 0))
    return success();
  int64_t last = offset;
  for (auto [s, st] : llvm::zip(sizes, strides))
    last += (s - 1) * st;
  if (last >= numel)
    return emitError(loc) << what << ": the view reaches element " << last
                          << " of a storage of " << numel;
  return success();
}

FailureOr<Value> mlprog::buildAsStrided(OpBuilder &b, Location loc, Value x,
                                        ArrayRef<int64_t> sizes,
                                        ArrayRef<int64_t> strides,
                                        int64_t offset) {
  FailureOr<ArrayRef<int64_t>> shape = staticShape(loc, x, "as_strided");
  if (failed(shape))
    return failure();
  int64_t numel = cast<RankedTensorType>(x.getType()).getNumElements();
  if (failed(checkView(loc, "as_strided", sizes, strides, offset, numel)))
    return failure();
  FailureOr<Value> storage = flat(b, loc, x);
  if (failed(storage))
    return failure();
  SmallVector<OpFoldResult> outSizes;
  for (int64_t s : sizes)
    outSizes.push_back(b.getIndexAttr(s));
  Type et = elementTypeOf(x);
  if (llvm::is_contained(sizes, 0) || numel == 0)
    return createEmpty(b, loc, outSizes, et);
  return generate(
      b, loc, outSizes, et, {},
      [&](OpBuilder &nb, Location nl, ArrayRef<Value> at, ValueRange) {
        IndexMath m{nb, nl};
        Value p = m.c(offset);
        for (auto [i, st] : llvm::zip(at, strides))
          p = m.add(p, m.mul(i, m.c(st)));
        return tensor::ExtractOp::create(nb, nl, *storage, p).getResult();
      });
}

FailureOr<Value> mlprog::buildAsStridedScatter(OpBuilder &b, Location loc,
                                               Value x, Value src,
                                               ArrayRef<int64_t> sizes,
                                               ArrayRef<int64_t> strides,
                                               int64_t offset) {
  FailureOr<ArrayRef<int64_t>> shape =
      staticShape(loc, x, "as_strided_scatter");
  if (failed(shape))
    return failure();
  auto st = dyn_cast<RankedTensorType>(src.getType());
  if (!st || st.getShape() != sizes || st.getElementType() != elementTypeOf(x))
    return emitError(loc) << "as_strided_scatter: expected a source of shape ["
                          << sizes << "] and element type " << elementTypeOf(x)
                          << ", got " << src.getType();
  int64_t numel = cast<RankedTensorType>(x.getType()).getNumElements();
  if (failed(
          checkView(loc, "as_strided_scatter", sizes, strides, offset, numel)))
    return failure();
  if (llvm::is_contained(sizes, 0) || numel == 0)
    return x;
  // map[p]: the row-major position in `src` written to storage element p,
  // or -1.
  SmallVector<int64_t> map(numel, -1);
  int64_t count = st.getNumElements();
  SmallVector<int64_t> idx(sizes.size(), 0);
  for (int64_t k = 0; k < count; ++k) {
    int64_t p = offset;
    for (auto [i, s] : llvm::zip(idx, strides))
      p += i * s;
    map[p] = k;
    for (int64_t d = int64_t(sizes.size()) - 1; d >= 0; --d) {
      if (++idx[d] < sizes[d])
        break;
      idx[d] = 0;
    }
  }
  auto mapType = RankedTensorType::get({numel}, b.getI64Type());
  Value mapTensor = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(mapType, ArrayRef<int64_t>(map)));
  FailureOr<Value> storage = flat(b, loc, x), source = flat(b, loc, src);
  if (failed(storage) || failed(source))
    return failure();
  Value out = generate(
      b, loc, {b.getIndexAttr(numel)}, elementTypeOf(x),
      ValueRange{*storage, mapTensor},
      [&](OpBuilder &nb, Location nl, ArrayRef<Value>, ValueRange args) {
        IndexMath m{nb, nl};
        Value k = m.index(args[1]);
        Value from =
            tensor::ExtractOp::create(nb, nl, *source, m.max(k, m.c(0)));
        return m.select(m.lt(k, m.c(0)), args[0], from);
      });
  return buildReshape(b, loc, out, *shape);
}

FailureOr<Value> mlprog::buildRepeatInterleave(OpBuilder &b, Location loc,
                                               Value x, Value repeats,
                                               int64_t count, int64_t axis,
                                               std::optional<int64_t> outSize) {
  IndexMath m{b, loc};
  if (x) {
    auto xt = dyn_cast<RankedTensorType>(x.getType());
    if (!xt || xt.getRank() == 0 || axis < 0 || axis >= xt.getRank())
      return emitError(loc) << "repeat_interleave: axis " << axis
                            << " out of range for " << x.getType();
  }
  if (!repeats) {
    if (!x || count < 0)
      return emitError(loc) << "repeat_interleave: negative count " << count;
    auto xt = cast<RankedTensorType>(x.getType());
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
    int64_t e = xt.getDimSize(axis);
    sizes[axis] = ShapedType::isDynamic(e)
                      ? OpFoldResult(m.mul(
                            m.c(count), tensor::DimOp::create(b, loc, x, axis)))
                      : OpFoldResult(b.getIndexAttr(e * count));
    if (count == 0)
      return createEmpty(b, loc, sizes, xt.getElementType());
    return generate(
        b, loc, sizes, xt.getElementType(), {},
        [&](OpBuilder &nb, Location nl, ArrayRef<Value> at, ValueRange) {
          SmallVector<Value> from(at);
          from[axis] = arith::DivUIOp::create(
              nb, nl, at[axis], arith::ConstantIndexOp::create(nb, nl, count));
          return tensor::ExtractOp::create(nb, nl, x, from).getResult();
        });
  }
  auto rt = dyn_cast<RankedTensorType>(repeats.getType());
  if (!rt || rt.getRank() != 1 || rt.isDynamicDim(0) ||
      !rt.getElementType().isSignlessInteger() ||
      rt.getElementType().isInteger(1))
    return emitError(loc) << "repeat_interleave: expected a 1-D integer "
                             "tensor of repeats with a static length, got "
                          << repeats.getType();
  int64_t n = rt.getDimSize(0);
  if (x) {
    int64_t e = cast<RankedTensorType>(x.getType()).getDimSize(axis);
    if (n != 1 && n != e)
      return emitError(loc)
             << "repeat_interleave: " << n << " repeats for extent " << e;
    if (n == 1 && e != 1) {
      if (ShapedType::isDynamic(e))
        return emitError(loc) << "repeat_interleave: unsupported dynamic "
                                 "extent with one run-time count";
      FailureOr<Value> wide = buildExpand(b, loc, repeats, {e});
      if (failed(wide))
        return failure();
      repeats = *wide;
      n = e;
    }
  }
  Type i64 = b.getI64Type();
  FailureOr<Value> counts = buildConvertElementType(b, loc, repeats, i64);
  if (failed(counts))
    return failure();
  FailureOr<Value> ends =
      buildCumSum(b, loc, *counts, 0, /*exclusive=*/false, /*reverse=*/false);
  if (failed(ends))
    return failure();
  Value total =
      n == 0 ? m.c(0)
             : m.index(tensor::ExtractOp::create(b, loc, *ends, m.c(n - 1)));
  OpFoldResult extent =
      outSize ? OpFoldResult(b.getIndexAttr(*outSize)) : OpFoldResult(total);
  // source[j] = #{k : ends[k] <= j}, a reduction over the n counts.
  MLIRContext *ctx = b.getContext();
  Value zeros = createFilled(b, loc, {extent}, b.getI64IntegerAttr(0));
  Value source =
      linalg::GenericOp::create(
          b, loc, zeros.getType(), *ends, zeros,
          SmallVector<AffineMap>{
              AffineMap::get(2, 0, getAffineDimExpr(1, ctx)),
              AffineMap::get(2, 0, getAffineDimExpr(0, ctx))},
          {utils::IteratorType::parallel, utils::IteratorType::reduction},
          [&](OpBuilder &nb, Location nl, ValueRange args) {
            Value j = arith::IndexCastOp::create(
                nb, nl, i64, linalg::IndexOp::create(nb, nl, 0));
            Value le = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sle,
                                             args[0], j);
            Value one = arith::ExtUIOp::create(nb, nl, i64, le);
            linalg::YieldOp::create(
                nb, nl,
                arith::AddIOp::create(nb, nl, args[1], one).getResult());
          })
          .getResult(0);
  if (!x)
    return source;
  auto xt = cast<RankedTensorType>(x.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  sizes[axis] = extent;
  return generate(
      b, loc, sizes, xt.getElementType(), {},
      [&](OpBuilder &nb, Location nl, ArrayRef<Value> at, ValueRange) {
        IndexMath k{nb, nl};
        SmallVector<Value> from(at);
        Value i = k.index(tensor::ExtractOp::create(nb, nl, source, at[axis]));
        from[axis] = k.min(i, k.c(std::max<int64_t>(n - 1, 0)));
        return tensor::ExtractOp::create(nb, nl, x, from).getResult();
      });
}

FailureOr<Value> mlprog::buildCombinations(OpBuilder &b, Location loc, Value x,
                                           int64_t r, bool withReplacement) {
  auto t = dyn_cast<RankedTensorType>(x.getType());
  if (!t || t.getRank() != 1 || t.isDynamicDim(0) || r < 0)
    return emitError(loc) << "combinations: expected a 1-D tensor of static "
                             "extent and r >= 0, got "
                          << x.getType() << " and r = " << r;
  int64_t n = t.getDimSize(0);
  Type et = t.getElementType();
  if (r == 0)
    return createEmpty(b, loc, {b.getIndexAttr(0)}, et);
  SmallVector<int64_t> flatIdx;
  SmallVector<int64_t> c(r, 0);
  int64_t rows = 0;
  // Odometer over non-decreasing (withReplacement) or increasing tuples.
  auto valid = [&]() {
    for (int64_t i = 1; i < r; ++i)
      if (withReplacement ? c[i] < c[i - 1] : c[i] <= c[i - 1])
        return false;
    return true;
  };
  if (n > 0) {
    constexpr int64_t kMaxRows = 1 << 20;
    while (true) {
      if (valid()) {
        flatIdx.append(c);
        if (++rows > kMaxRows)
          return emitError(loc) << "combinations: unsupported result of more "
                                   "than "
                                << kMaxRows << " rows";
      }
      int64_t d = r - 1;
      while (d >= 0 && ++c[d] == n)
        c[d--] = 0;
      if (d < 0)
        break;
    }
  }
  auto idxType = RankedTensorType::get({rows, r}, b.getI64Type());
  Value idx = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(idxType, ArrayRef<int64_t>(flatIdx)));
  if (rows == 0)
    return createEmpty(b, loc, {b.getIndexAttr(0), b.getIndexAttr(r)}, et);
  return buildGather(b, loc, x, idx, 0);
}

FailureOr<Value> mlprog::buildChunkCat(OpBuilder &b, Location loc,
                                       ArrayRef<Value> tensors, int64_t dim,
                                       int64_t numChunks) {
  if (tensors.empty() || numChunks < 1)
    return emitError(loc) << "_chunk_cat: expected tensors and num_chunks "
                             ">= 1";
  SmallVector<Value> views;
  SmallVector<int64_t> lead;
  for (auto [i, t] : llvm::enumerate(tensors)) {
    FailureOr<ArrayRef<int64_t>> s = staticShape(loc, t, "_chunk_cat");
    if (failed(s))
      return failure();
    int64_t rank = s->size();
    if (dim >= rank)
      return emitError(loc) << "_chunk_cat: dim " << dim << " out of range for "
                            << t.getType();
    if (i == 0)
      lead.assign(s->begin(), s->begin() + dim);
    else if (ArrayRef<int64_t>(*s).take_front(dim) != ArrayRef<int64_t>(lead))
      return emitError(loc) << "_chunk_cat: tensors differ before dim " << dim;
    int64_t e = (*s)[dim];
    int64_t padded = (e + numChunks - 1) / numChunks * numChunks;
    Value v = t;
    if (padded != e) {
      SmallVector<int64_t> low(rank, 0), high(rank, 0);
      high[dim] = padded - e;
      FailureOr<Value> p =
          buildPad(b, loc, v, low, high, PadMode::Constant, 0.0);
      if (failed(p))
        return failure();
      v = *p;
    }
    int64_t rest = padded / numChunks;
    for (int64_t d = dim + 1; d < rank; ++d)
      rest *= (*s)[d];
    SmallVector<int64_t> shape(lead);
    shape.append({numChunks, rest});
    FailureOr<Value> r = buildReshape(b, loc, v, shape);
    if (failed(r))
      return failure();
    views.push_back(*r);
  }
  return buildConcat(b, loc, views, dim + 1);
}

FailureOr<Value> mlprog::buildMaskedScatter(OpBuilder &b, Location loc,
                                            Value self, Value mask,
                                            Value source) {
  FailureOr<SmallVector<Value>> both =
      buildBroadcastTensors(b, loc, {self, mask});
  if (failed(both))
    return failure();
  Value s = (*both)[0], k = (*both)[1];
  FailureOr<ArrayRef<int64_t>> shape = staticShape(loc, s, "masked_scatter");
  if (failed(shape) || failed(staticShape(loc, source, "masked_scatter")))
    return failure();
  Type et = elementTypeOf(s);
  if (!elementTypeOf(k).isInteger(1) || elementTypeOf(source) != et)
    return emitError(loc) << "masked_scatter: expected an i1 mask and a "
                             "source of element type "
                          << et;
  int64_t numel = cast<RankedTensorType>(s.getType()).getNumElements();
  int64_t count = cast<RankedTensorType>(source.getType()).getNumElements();
  if (numel == 0 || count == 0)
    return s;
  FailureOr<Value> fs = flat(b, loc, s), fk = flat(b, loc, k),
                   fsrc = flat(b, loc, source);
  if (failed(fs) || failed(fk) || failed(fsrc))
    return failure();
  FailureOr<Value> ones = buildConvertElementType(b, loc, *fk, b.getI64Type());
  if (failed(ones))
    return failure();
  FailureOr<Value> before = buildCumSum(b, loc, *ones, 0, /*exclusive=*/true,
                                        /*reverse=*/false);
  if (failed(before))
    return failure();
  Value out = generate(
      b, loc, {b.getIndexAttr(numel)}, et, ValueRange{*fs, *fk, *before},
      [&](OpBuilder &nb, Location nl, ArrayRef<Value>, ValueRange args) {
        IndexMath m{nb, nl};
        Value at = m.min(m.index(args[2]), m.c(count - 1));
        Value from = tensor::ExtractOp::create(nb, nl, *fsrc, at);
        return m.select(args[1], from, args[0]);
      });
  return buildReshape(b, loc, out, *shape);
}
