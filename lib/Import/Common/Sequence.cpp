//===- Sequence.cpp - Tensor sequences (lists, tensor arrays) -------------===//
//
// A sequence is one tensor [n, element dims]; see Sequence.h.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Import/Common/Sequence.h"

#include "Utils.h"
#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

RankedTensorType mlprog::getSequenceType(RankedTensorType element,
                                         int64_t length) {
  SmallVector<int64_t> shape{length};
  llvm::append_range(shape, element.getShape());
  return RankedTensorType::get(shape, element.getElementType());
}

/// The type of `seq`, which must be a ranked tensor of rank >= 1.
static FailureOr<RankedTensorType> getSeqType(Location loc, Value seq) {
  auto t = dyn_cast<RankedTensorType>(seq.getType());
  if (!t || t.getRank() < 1)
    return emitError(loc) << "expected a sequence (a tensor [n, element "
                             "dims...]), got "
                          << seq.getType();
  return t;
}

/// The element type of a sequence of type `t`.
static RankedTensorType elementOf(RankedTensorType t) {
  return RankedTensorType::get(t.getShape().drop_front(), t.getElementType());
}

/// `t` with a dynamic extent 0.
static RankedTensorType withDynamicLength(RankedTensorType t) {
  return getSequenceType(elementOf(t), ShapedType::kDynamic);
}

/// The extents of the elements of `seq`.
static SmallVector<OpFoldResult> elementSizes(OpBuilder &b, Location loc,
                                              Value seq) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, seq);
  sizes.erase(sizes.begin());
  return sizes;
}

/// `v` cast to `t` when the types differ.
static Value castTo(OpBuilder &b, Location loc, Value v, Type t) {
  return v.getType() == t ? v : tensor::CastOp::create(b, loc, t, v);
}

/// `element` written into `seq` at `index` (in range).
static Value insertElement(OpBuilder &b, Location loc, Value seq,
                           OpFoldResult index, Value element) {
  auto et = cast<RankedTensorType>(element.getType());
  SmallVector<OpFoldResult> offsets(et.getRank() + 1, b.getIndexAttr(0));
  offsets[0] = index;
  SmallVector<OpFoldResult> sizes{b.getIndexAttr(1)};
  llvm::append_range(sizes, tensor::getMixedSizes(b, loc, element));
  SmallVector<OpFoldResult> strides(et.getRank() + 1, b.getIndexAttr(1));
  return tensor::InsertSliceOp::create(b, loc, element, seq, offsets, sizes,
                                       strides);
}

/// A zero sequence of `length` elements whose first elements are `seq`'s
/// (length >= seq's length).
static Value extendTo(OpBuilder &b, Location loc, Value seq,
                      OpFoldResult length) {
  auto t = cast<RankedTensorType>(seq.getType());
  SmallVector<OpFoldResult> sizes{length};
  llvm::append_range(sizes, elementSizes(b, loc, seq));
  Value grown = createFilled(b, loc, sizes, b.getZeroAttr(t.getElementType()));
  SmallVector<OpFoldResult> offsets(t.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(t.getRank(), b.getIndexAttr(1));
  return tensor::InsertSliceOp::create(
      b, loc, seq, grown, offsets, tensor::getMixedSizes(b, loc, seq), strides);
}

/// `seq` extended (with zeros) to `needed` elements when it is shorter. The
/// result's extent 0 is static when both lengths are.
static Value growTo(OpBuilder &b, Location loc, Value seq,
                    OpFoldResult needed) {
  auto t = cast<RankedTensorType>(seq.getType());
  OpFoldResult length = tensor::getMixedSize(b, loc, seq, 0);
  std::optional<int64_t> n = getConstantIntValue(length);
  std::optional<int64_t> m = getConstantIntValue(needed);
  if (n && m)
    return *m <= *n ? seq : extendTo(b, loc, seq, b.getIndexAttr(*m));
  RankedTensorType dyn = withDynamicLength(t);
  Value neededV = getValueOrCreateConstantIndexOp(b, loc, needed);
  Value lengthV = getValueOrCreateConstantIndexOp(b, loc, length);
  Value longer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                       neededV, lengthV);
  return ifElse(
      b, loc, longer,
      [&](OpBuilder &nb, Location nl) -> SmallVector<Value> {
        return {castTo(nb, nl, extendTo(nb, nl, seq, neededV), dyn)};
      },
      [&](OpBuilder &nb, Location nl) -> SmallVector<Value> {
        return {castTo(nb, nl, seq, dyn)};
      })[0];
}

/// Whether tensor types `a` and `b` have the same rank and element type and
/// no two static extents that differ.
static bool compatibleShapes(RankedTensorType a, RankedTensorType b) {
  if (a.getRank() != b.getRank() || a.getElementType() != b.getElementType())
    return false;
  for (auto [x, y] : llvm::zip(a.getShape(), b.getShape()))
    if (!ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y)
      return false;
  return true;
}

FailureOr<Value>
mlprog::buildSequenceEmpty(OpBuilder &b, Location loc, RankedTensorType element,
                           OpFoldResult length,
                           ArrayRef<OpFoldResult> elementSizes) {
  std::optional<int64_t> n = getConstantIntValue(length);
  if (n && *n < 0)
    return emitError(loc) << "negative sequence length " << *n;
  SmallVector<OpFoldResult> sizes{length};
  if (elementSizes.empty()) {
    if (!element.hasStaticShape())
      return emitError(loc)
             << "sequence element type " << element << " has dynamic extents";
    for (int64_t d : element.getShape())
      sizes.push_back(b.getIndexAttr(d));
  } else {
    if (int64_t(elementSizes.size()) != element.getRank())
      return emitError(loc) << "expected " << element.getRank()
                            << " element extents, got " << elementSizes.size();
    llvm::append_range(sizes, elementSizes);
  }
  return createFilled(b, loc, sizes, b.getZeroAttr(element.getElementType()));
}

Value mlprog::buildSequenceLength(OpBuilder &b, Location loc, Value seq) {
  return getValueOrCreateConstantIndexOp(b, loc,
                                         tensor::getMixedSize(b, loc, seq, 0));
}

FailureOr<Value> mlprog::buildSequenceAt(OpBuilder &b, Location loc, Value seq,
                                         OpFoldResult index) {
  FailureOr<RankedTensorType> t = getSeqType(loc, seq);
  if (failed(t))
    return failure();
  int64_t n = t->getDimSize(0);
  std::optional<int64_t> c = getConstantIntValue(index);
  OpFoldResult offset;
  if (c && !ShapedType::isDynamic(n)) {
    if (*c < -n || *c >= n)
      return emitError(loc)
             << "index " << *c << " is out of range for a sequence of " << n
             << " elements";
    offset = b.getIndexAttr(*c < 0 ? *c + n : *c);
  } else if (c && *c >= 0) {
    // The length is known only at run time; clamp as for run-time indices.
    Value last = arith::SubIOp::create(b, loc, buildSequenceLength(b, loc, seq),
                                       cIndex(b, loc, 1));
    offset =
        arith::MinSIOp::create(b, loc, cIndex(b, loc, *c), last).getResult();
  } else {
    Value i = getValueOrCreateConstantIndexOp(b, loc, index);
    Value len = buildSequenceLength(b, loc, seq);
    Value zero = cIndex(b, loc, 0);
    Value negative =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
    i = arith::SelectOp::create(b, loc, negative,
                                arith::AddIOp::create(b, loc, i, len), i);
    Value last = arith::SubIOp::create(b, loc, len, cIndex(b, loc, 1));
    i = arith::MinSIOp::create(b, loc, i, last);
    offset = arith::MaxSIOp::create(b, loc, i, zero).getResult();
  }
  SmallVector<OpFoldResult> offsets(t->getRank(), b.getIndexAttr(0));
  offsets[0] = offset;
  SmallVector<OpFoldResult> sizes{b.getIndexAttr(1)};
  SmallVector<OpFoldResult> elemSizes = elementSizes(b, loc, seq);
  llvm::append_range(sizes, elemSizes);
  SmallVector<OpFoldResult> strides(t->getRank(), b.getIndexAttr(1));
  auto read = [&](OpBuilder &nb, Location nl) -> SmallVector<Value> {
    return {tensor::ExtractSliceOp::create(nb, nl, elementOf(*t), seq, offsets,
                                           sizes, strides)
                .getResult()};
  };
  if (!ShapedType::isDynamic(n))
    return read(b, loc)[0];
  // A sequence that may be empty at run time reads as zeros then, never
  // outside its buffer.
  Value nonEmpty = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                         buildSequenceLength(b, loc, seq),
                                         cIndex(b, loc, 0));
  return ifElse(b, loc, nonEmpty, read,
                [&](OpBuilder &nb, Location nl) -> SmallVector<Value> {
                  return {createFilled(nb, nl, elemSizes,
                                       nb.getZeroAttr(t->getElementType()))};
                })[0];
}

FailureOr<Value> mlprog::buildSequenceSet(OpBuilder &b, Location loc, Value seq,
                                          OpFoldResult index, Value element,
                                          bool growable) {
  FailureOr<RankedTensorType> t = getSeqType(loc, seq);
  if (failed(t))
    return failure();
  auto et = dyn_cast<RankedTensorType>(element.getType());
  if (!et || !compatibleShapes(et, elementOf(*t)))
    return emitError(loc) << "element of type " << element.getType()
                          << " does not match the sequence's element type "
                          << elementOf(*t);
  int64_t n = t->getDimSize(0);
  std::optional<int64_t> c = getConstantIntValue(index);
  if (c && *c < 0)
    return emitError(loc) << "negative index " << *c << " into a sequence";
  if (c && !ShapedType::isDynamic(n)) {
    if (*c >= n && !growable)
      return emitError(loc) << "index " << *c
                            << " is past the end of a fixed-length sequence "
                               "of "
                            << n << " elements";
    Value dest = growTo(b, loc, seq, b.getIndexAttr(*c + 1));
    return insertElement(b, loc, dest, b.getIndexAttr(*c), element);
  }
  // Run-time index or length: guard the write.
  Value i = getValueOrCreateConstantIndexOp(b, loc, index);
  Value zero = cIndex(b, loc, 0);
  Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, i, zero);
  if (!growable) {
    Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i,
                                        buildSequenceLength(b, loc, seq));
    ok = arith::AndIOp::create(b, loc, ok, below);
  }
  Type resultType = growable ? withDynamicLength(*t) : *t;
  return ifElse(
      b, loc, ok,
      [&](OpBuilder &nb, Location nl) -> SmallVector<Value> {
        Value dest = seq;
        if (growable)
          dest = growTo(
              nb, nl, seq,
              arith::AddIOp::create(nb, nl, i, cIndex(nb, nl, 1)).getResult());
        return {castTo(nb, nl, insertElement(nb, nl, dest, i, element),
                       resultType)};
      },
      [&](OpBuilder &nb, Location nl) -> SmallVector<Value> {
        return {castTo(nb, nl, seq, resultType)};
      })[0];
}

FailureOr<Value> mlprog::buildSequenceGather(OpBuilder &b, Location loc,
                                             Value seq, Value indices) {
  if (failed(getSeqType(loc, seq)))
    return failure();
  auto it = dyn_cast<RankedTensorType>(indices.getType());
  if (!it || it.getRank() != 1 || !isa<IntegerType>(it.getElementType()))
    return emitError(loc) << "sequence gather indices must be a 1-D integer "
                             "tensor, got "
                          << indices.getType();
  return buildGather(b, loc, seq, indices, 0);
}

FailureOr<Value> mlprog::buildSequenceScatter(OpBuilder &b, Location loc,
                                              Value seq, Value indices,
                                              Value elements, bool growable) {
  FailureOr<RankedTensorType> t = getSeqType(loc, seq);
  if (failed(t))
    return failure();
  auto it = dyn_cast<RankedTensorType>(indices.getType());
  if (!it || it.getRank() != 1 || !isa<IntegerType>(it.getElementType()) ||
      it.getElementType().isInteger(1))
    return emitError(loc) << "sequence scatter indices must be a 1-D integer "
                             "tensor, got "
                          << indices.getType();
  auto vt = dyn_cast<RankedTensorType>(elements.getType());
  RankedTensorType expected = getSequenceType(elementOf(*t), it.getDimSize(0));
  if (!vt || !compatibleShapes(vt, expected))
    return emitError(loc) << "scattered elements of type " << elements.getType()
                          << " do not match " << it.getDimSize(0)
                          << " elements of the sequence's element type "
                          << elementOf(*t);
  Value dest = seq;
  if (growable) {
    DenseIntElementsAttr constant;
    if (matchPattern(indices, m_Constant(&constant))) {
      int64_t needed = 0;
      for (const APInt &v : constant.getValues<APInt>())
        needed = std::max(needed, v.getSExtValue() + 1);
      dest = growTo(b, loc, seq, b.getIndexAttr(needed));
    } else if (it.getDimSize(0) != 0) {
      FailureOr<Value> maxIndex =
          buildReduce(b, loc, ReduceKind::Max, indices, {0}, false);
      if (failed(maxIndex))
        return failure();
      Value m = tensor::ExtractOp::create(b, loc, *maxIndex, ValueRange{});
      m = arith::IndexCastOp::create(b, loc, b.getIndexType(), m);
      Value needed = arith::AddIOp::create(b, loc, m, cIndex(b, loc, 1));
      // An empty run-time index list reduces to the lowest integer.
      needed = arith::MaxSIOp::create(b, loc, needed, cIndex(b, loc, 0));
      dest = growTo(b, loc, seq, needed);
    }
  }
  // Constant ascending consecutive indices in range: one insert_slice.
  DenseIntElementsAttr constant;
  auto destType = cast<RankedTensorType>(dest.getType());
  if (matchPattern(indices, m_Constant(&constant)) &&
      constant.getNumElements() > 0 && !destType.isDynamicDim(0)) {
    SmallVector<int64_t> values;
    for (const APInt &v : constant.getValues<APInt>())
      values.push_back(v.getSExtValue());
    bool consecutive =
        values.front() >= 0 && values.back() < destType.getDimSize(0);
    for (size_t k = 1; k < values.size() && consecutive; ++k)
      consecutive = values[k] == values[k - 1] + 1;
    if (consecutive) {
      SmallVector<OpFoldResult> offsets(destType.getRank(), b.getIndexAttr(0));
      offsets[0] = b.getIndexAttr(values.front());
      SmallVector<OpFoldResult> strides(destType.getRank(), b.getIndexAttr(1));
      return tensor::InsertSliceOp::create(
                 b, loc, elements, dest, offsets,
                 tensor::getMixedSizes(b, loc, elements), strides)
          .getResult();
    }
  }
  Value positions = insertUnitDim(b, loc, indices, 1);
  return buildScatterND(b, loc, dest, positions, elements,
                        ScatterReduction::None);
}

//===--- Insert, erase, construct, concat, split --------------------------===//

/// The element type both `a` and `b` cast to without losing a static
/// extent: same rank and element type, each extent static where either is.
static FailureOr<RankedTensorType>
joinElementTypes(Location loc, RankedTensorType a, RankedTensorType b) {
  if (a.getElementType() != b.getElementType())
    return emitError(loc) << "sequence element type " << a.getElementType()
                          << " does not match " << b.getElementType();
  auto differ = [&] {
    return emitError(loc) << "unsupported sequence whose elements differ in "
                             "shape ("
                          << a << " and " << b << ")";
  };
  if (a.getRank() != b.getRank())
    return differ();
  SmallVector<int64_t> shape;
  for (auto [x, y] : llvm::zip(a.getShape(), b.getShape())) {
    if (!ShapedType::isDynamic(x) && !ShapedType::isDynamic(y) && x != y)
      return differ();
    shape.push_back(ShapedType::isDynamic(x) ? y : x);
  }
  return RankedTensorType::get(shape, a.getElementType());
}

/// x + y on index values, folded when both are constants.
static OpFoldResult addIndex(OpBuilder &b, Location loc, OpFoldResult x,
                             OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x),
                         cy = getConstantIntValue(y);
  if (cx && cy)
    return b.getIndexAttr(*cx + *cy);
  return arith::AddIOp::create(b, loc,
                               getValueOrCreateConstantIndexOp(b, loc, x),
                               getValueOrCreateConstantIndexOp(b, loc, y))
      .getResult();
}

/// x - y on index values, folded when both are constants.
static OpFoldResult subIndex(OpBuilder &b, Location loc, OpFoldResult x,
                             OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x),
                         cy = getConstantIntValue(y);
  if (cx && cy)
    return b.getIndexAttr(*cx - *cy);
  return arith::SubIOp::create(b, loc,
                               getValueOrCreateConstantIndexOp(b, loc, x),
                               getValueOrCreateConstantIndexOp(b, loc, y))
      .getResult();
}

/// `index` (possibly negative, counting from the end of a sequence of
/// `length` elements) wrapped once and clamped into [0, `last`], at run
/// time.
static Value wrapAndClamp(OpBuilder &b, Location loc, OpFoldResult index,
                          Value length, Value last) {
  Value i = getValueOrCreateConstantIndexOp(b, loc, index);
  Value zero = cIndex(b, loc, 0);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, i, zero);
  i = arith::SelectOp::create(b, loc, negative,
                              arith::AddIOp::create(b, loc, i, length), i);
  i = arith::MinSIOp::create(b, loc, i, last);
  return arith::MaxSIOp::create(b, loc, i, zero);
}

/// Elements [offset, offset + count) of `seq`.
static Value sliceElements(OpBuilder &b, Location loc, Value seq,
                           OpFoldResult offset, OpFoldResult count) {
  auto t = cast<RankedTensorType>(seq.getType());
  int64_t rank = t.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, seq);
  sizes[0] = count;
  // No elements: an empty tensor (the verifier refuses offset n, even 0 of
  // an empty sequence).
  std::optional<int64_t> c = getConstantIntValue(count);
  if (c && *c == 0)
    return createEmpty(b, loc, sizes, t.getElementType());
  offsets[0] = offset;
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, seq, offsets, sizes, strides);
}

/// The elements of sequence `src` written into `dest` from element `offset`.
static Value insertElements(OpBuilder &b, Location loc, Value src, Value dest,
                            OpFoldResult offset) {
  auto srcType = cast<RankedTensorType>(src.getType());
  if (srcType.getDimSize(0) == 0)
    return dest;
  int64_t rank = srcType.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  offsets[0] = offset;
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  return tensor::InsertSliceOp::create(
      b, loc, src, dest, offsets, tensor::getMixedSizes(b, loc, src), strides);
}

FailureOr<Value> mlprog::buildSequenceConstruct(OpBuilder &b, Location loc,
                                                ValueRange elements) {
  if (elements.empty())
    return emitError(loc) << "a sequence needs at least one element";
  auto first = dyn_cast<RankedTensorType>(elements[0].getType());
  if (!first)
    return emitError(loc) << "sequence element of type "
                          << elements[0].getType() << " is not a tensor";
  RankedTensorType joined = first;
  for (Value e : elements.drop_front()) {
    auto et = dyn_cast<RankedTensorType>(e.getType());
    if (!et)
      return emitError(loc)
             << "sequence element of type " << e.getType() << " is not a "
             << "tensor";
    FailureOr<RankedTensorType> j = joinElementTypes(loc, joined, et);
    if (failed(j))
      return failure();
    joined = *j;
  }
  SmallVector<OpFoldResult> sizes{b.getIndexAttr(elements.size())};
  llvm::append_range(sizes, tensor::getMixedSizes(
                                b, loc, castTo(b, loc, elements[0], joined)));
  Value seq = createEmpty(b, loc, sizes, joined.getElementType());
  for (auto [k, e] : llvm::enumerate(elements))
    seq = insertElement(b, loc, seq, b.getIndexAttr(k),
                        castTo(b, loc, e, joined));
  return seq;
}

FailureOr<Value> mlprog::buildSequenceInsert(OpBuilder &b, Location loc,
                                             Value seq, Value element,
                                             OpFoldResult position) {
  FailureOr<RankedTensorType> t = getSeqType(loc, seq);
  if (failed(t))
    return failure();
  auto et = dyn_cast<RankedTensorType>(element.getType());
  if (!et)
    return emitError(loc) << "sequence element of type " << element.getType()
                          << " is not a tensor";
  FailureOr<RankedTensorType> joined = joinElementTypes(loc, elementOf(*t), et);
  if (failed(joined))
    return failure();
  int64_t n = t->getDimSize(0);
  seq = castTo(b, loc, seq, getSequenceType(*joined, n));
  element = castTo(b, loc, element, *joined);
  OpFoldResult length = tensor::getMixedSize(b, loc, seq, 0);
  OpFoldResult pos = length;
  std::optional<int64_t> c =
      position ? getConstantIntValue(position) : std::nullopt;
  if (position && c && !ShapedType::isDynamic(n)) {
    if (*c < -n || *c > n)
      return emitError(loc)
             << "insert position " << *c
             << " is out of range for a sequence of " << n << " elements";
    pos = b.getIndexAttr(*c < 0 ? *c + n : *c);
  } else if (position) {
    Value len = getValueOrCreateConstantIndexOp(b, loc, length);
    pos = wrapAndClamp(b, loc, position, len, len);
  }
  SmallVector<OpFoldResult> sizes{addIndex(b, loc, length, b.getIndexAttr(1))};
  llvm::append_range(sizes, tensor::getMixedSizes(b, loc, element));
  Value dest = createEmpty(b, loc, sizes, joined->getElementType());
  dest =
      insertElements(b, loc, sliceElements(b, loc, seq, b.getIndexAttr(0), pos),
                     dest, b.getIndexAttr(0));
  dest = insertElement(b, loc, dest, pos, element);
  return insertElements(
      b, loc, sliceElements(b, loc, seq, pos, subIndex(b, loc, length, pos)),
      dest, addIndex(b, loc, pos, b.getIndexAttr(1)));
}

FailureOr<Value> mlprog::buildSequenceErase(OpBuilder &b, Location loc,
                                            Value seq, OpFoldResult position) {
  FailureOr<RankedTensorType> t = getSeqType(loc, seq);
  if (failed(t))
    return failure();
  int64_t n = t->getDimSize(0);
  OpFoldResult length = tensor::getMixedSize(b, loc, seq, 0);
  OpFoldResult pos, newLength;
  if (!ShapedType::isDynamic(n)) {
    int64_t p = n - 1;
    if (position) {
      std::optional<int64_t> c = getConstantIntValue(position);
      p = c ? *c : 0;
    }
    if (n == 0 || p < -n || p >= n)
      return emitError(loc)
             << "erase position " << (position ? "" : "(the last) ") << p
             << " is out of range for a sequence of " << n << " elements";
    newLength = b.getIndexAttr(n - 1);
    if (!position || getConstantIntValue(position))
      pos = b.getIndexAttr(p < 0 ? p + n : p);
  } else {
    Value len = getValueOrCreateConstantIndexOp(b, loc, length);
    newLength =
        arith::MaxSIOp::create(
            b, loc, arith::SubIOp::create(b, loc, len, cIndex(b, loc, 1)),
            cIndex(b, loc, 0))
            .getResult();
  }
  if (!pos) {
    Value len = getValueOrCreateConstantIndexOp(b, loc, length);
    Value last = getValueOrCreateConstantIndexOp(b, loc, newLength);
    pos = position ? OpFoldResult(wrapAndClamp(b, loc, position, len, last))
                   : OpFoldResult(last);
  }
  SmallVector<OpFoldResult> sizes{newLength};
  llvm::append_range(sizes, elementSizes(b, loc, seq));
  Value dest = createEmpty(b, loc, sizes, t->getElementType());
  dest =
      insertElements(b, loc, sliceElements(b, loc, seq, b.getIndexAttr(0), pos),
                     dest, b.getIndexAttr(0));
  // The offset of the rest stays within the sequence even when it is empty
  // at run time.
  OpFoldResult restStart = addIndex(b, loc, pos, b.getIndexAttr(1));
  if (ShapedType::isDynamic(n))
    restStart = arith::MinSIOp::create(
                    b, loc, getValueOrCreateConstantIndexOp(b, loc, restStart),
                    getValueOrCreateConstantIndexOp(b, loc, length))
                    .getResult();
  return insertElements(
      b, loc,
      sliceElements(b, loc, seq, restStart, subIndex(b, loc, newLength, pos)),
      dest, pos);
}

/// The permutation of a rank-`rank` tensor that moves dim `from` to `to`.
static SmallVector<int64_t> moveDim(int64_t rank, int64_t from, int64_t to) {
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < rank; ++i)
    if (i != from)
      perm.push_back(i);
  perm.insert(perm.begin() + to, from);
  return perm;
}

FailureOr<Value> mlprog::buildConcatFromSequence(OpBuilder &b, Location loc,
                                                 Value seq, int64_t axis,
                                                 bool newAxis) {
  FailureOr<RankedTensorType> t = getSeqType(loc, seq);
  if (failed(t))
    return failure();
  int64_t r = t->getRank() - 1;
  int64_t lo = newAxis ? -(r + 1) : -r, hi = newAxis ? r : r - 1;
  if (axis < lo || axis > hi)
    return emitError(loc) << "ConcatFromSequence axis " << axis
                          << " is out of range for elements of rank " << r
                          << (newAxis ? " with new_axis" : "");
  int64_t a = axis < 0 ? axis - lo : axis;
  FailureOr<Value> moved = buildTranspose(b, loc, seq, moveDim(r + 1, 0, a));
  if (failed(moved) || newAxis)
    return moved;
  return mergeDims(b, loc, *moved, a);
}

FailureOr<Value> mlprog::buildSplitToSequence(OpBuilder &b, Location loc,
                                              Value x, int64_t axis,
                                              std::optional<int64_t> chunk,
                                              bool keepDims) {
  auto xt = dyn_cast<RankedTensorType>(x.getType());
  if (!xt || xt.getRank() < 1)
    return emitError(loc) << "SplitToSequence needs a tensor of rank >= 1, "
                             "got "
                          << x.getType();
  int64_t rank = xt.getRank();
  if (axis < -rank || axis >= rank)
    return emitError(loc) << "split axis " << axis
                          << " is out of range for rank " << rank;
  int64_t a = axis < 0 ? axis + rank : axis;
  if (chunk && *chunk <= 0)
    return emitError(loc) << "split length " << *chunk << " must be positive";
  if (!chunk || *chunk == 1) {
    Value v = (chunk || keepDims) ? insertUnitDim(b, loc, x, a + 1) : x;
    int64_t vRank = cast<RankedTensorType>(v.getType()).getRank();
    return buildTranspose(b, loc, v, moveDim(vRank, a, 0));
  }
  int64_t d = xt.getDimSize(a);
  if (ShapedType::isDynamic(d) || d % *chunk != 0)
    return emitError(loc) << "unsupported sequence whose elements differ in "
                             "shape (split of extent "
                          << (ShapedType::isDynamic(d) ? std::string("?")
                                                       : std::to_string(d))
                          << " into pieces of " << *chunk << ")";
  if (d == 0) {
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
    sizes[a] = b.getIndexAttr(*chunk);
    sizes.insert(sizes.begin(), b.getIndexAttr(0));
    return createEmpty(b, loc, sizes, xt.getElementType());
  }
  Value v = splitDim(b, loc, x, a, d / *chunk);
  return buildTranspose(b, loc, v, moveDim(rank + 1, a, 0));
}
