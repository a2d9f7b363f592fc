//===- SequenceRagged.cpp - Sequences of elements of differing shape ------===//
//
// A ragged sequence is a padded stack plus a table of extents; see
// Sequence.h. Every builder here applies the uniform builders of
// Sequence.cpp to both tensors with the same positions.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Import/Common/Sequence.h"

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

/// The element type of a sequence of type `t`.
static RankedTensorType elementOf(RankedTensorType t) {
  return RankedTensorType::get(t.getShape().drop_front(), t.getElementType());
}

/// The type of the shapes table of elements of rank `rank`.
static RankedTensorType shapesType(MLIRContext *ctx, int64_t rank) {
  return RankedTensorType::get({ShapedType::kDynamic, rank},
                               IntegerType::get(ctx, 64));
}

/// `v` cast to `t` when the types differ.
static Value castTo(OpBuilder &b, Location loc, Value v, Type t) {
  return v.getType() == t ? v : tensor::CastOp::create(b, loc, t, v);
}

/// The shapes table with a dynamic length (the one type every builder
/// returns, so that values of one sequence join in loops and branches).
static Value dynamicShapes(OpBuilder &b, Location loc, Value shapes) {
  auto t = cast<RankedTensorType>(shapes.getType());
  return castTo(b, loc, shapes, shapesType(b.getContext(), t.getDimSize(1)));
}

/// An index value as an i64.
static Value toI64(OpBuilder &b, Location loc, OpFoldResult v) {
  return arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                    getValueOrCreateConstantIndexOp(b, loc, v));
}

Value mlprog::buildShapeRow(OpBuilder &b, Location loc, Value element) {
  SmallVector<Value> extents;
  for (OpFoldResult s : tensor::getMixedSizes(b, loc, element))
    extents.push_back(toI64(b, loc, s));
  auto t = RankedTensorType::get({int64_t(extents.size())}, b.getI64Type());
  if (extents.empty())
    return tensor::EmptyOp::create(b, loc, t.getShape(), b.getI64Type());
  return tensor::FromElementsOp::create(b, loc, t, extents);
}

/// A [n, rank] i64 table whose every row is `row` ([rank] i64).
static Value repeatRow(OpBuilder &b, Location loc, OpFoldResult n, Value row) {
  int64_t rank = cast<RankedTensorType>(row.getType()).getDimSize(0);
  SmallVector<OpFoldResult> sizes{n, b.getIndexAttr(rank)};
  if (rank == 0)
    return createEmpty(b, loc, sizes, b.getI64Type());
  SmallVector<Value> dynamic;
  if (auto v = dyn_cast<Value>(n))
    dynamic.push_back(v);
  std::optional<int64_t> c = getConstantIntValue(n);
  auto type = RankedTensorType::get({c ? *c : ShapedType::kDynamic, rank},
                                    b.getI64Type());
  return tensor::GenerateOp::create(
      b, loc, type, dynamic, [&](OpBuilder &nb, Location nl, ValueRange ivs) {
        Value v = tensor::ExtractOp::create(nb, nl, row, ivs[1]);
        tensor::YieldOp::create(nb, nl, v);
      });
}

FailureOr<RaggedSequence>
mlprog::buildRaggedFromUniform(OpBuilder &b, Location loc, Value seq) {
  auto t = dyn_cast<RankedTensorType>(seq.getType());
  if (!t || t.getRank() < 1)
    return emitError(loc) << "expected a sequence (a tensor [n, element "
                             "dims...]), got "
                          << seq.getType();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, seq);
  SmallVector<Value> extents;
  for (OpFoldResult s : ArrayRef(sizes).drop_front())
    extents.push_back(toI64(b, loc, s));
  Value row = extents.empty()
                  ? Value(tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{0},
                                                  b.getI64Type()))
                  : Value(tensor::FromElementsOp::create(
                        b, loc,
                        RankedTensorType::get({int64_t(extents.size())},
                                              b.getI64Type()),
                        extents));
  return RaggedSequence{
      seq, dynamicShapes(b, loc, repeatRow(b, loc, sizes[0], row))};
}

RaggedSequence mlprog::buildRaggedEmpty(OpBuilder &b, Location loc,
                                        RankedTensorType element) {
  int64_t rank = element.getRank();
  Type elementType = element.getElementType();
  // An empty tensor may take any extents: the static ones are the
  // element's, so that the data's type can say them.
  SmallVector<OpFoldResult> sizes{b.getIndexAttr(0)};
  for (int64_t extent : element.getShape())
    sizes.push_back(b.getIndexAttr(ShapedType::isDynamic(extent) ? 0 : extent));
  Value data = createEmpty(b, loc, sizes, elementType);
  data = castTo(b, loc, data, getSequenceType(element, ShapedType::kDynamic));
  Value shapes = createEmpty(b, loc, {b.getIndexAttr(0), b.getIndexAttr(rank)},
                             b.getI64Type());
  return {data, dynamicShapes(b, loc, shapes)};
}

Value mlprog::buildUniformFromRagged(OpBuilder &b, Location loc,
                                     const RaggedSequence &seq,
                                     RankedTensorType element) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, seq.data);
  for (auto [d, extent] : llvm::enumerate(element.getShape()))
    if (!ShapedType::isDynamic(extent))
      sizes[d + 1] = b.getIndexAttr(extent);
  int64_t rank = sizes.size();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, seq.data, offsets, sizes,
                                        strides);
}

/// Entry `d` of the i64 row `row`, as an index.
static Value rowEntry(OpBuilder &b, Location loc, Value row, int64_t d) {
  Value v =
      tensor::ExtractOp::create(b, loc, row, ValueRange{cIndex(b, loc, d)});
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

/// `padded` (an element cut from the data) cut to the extents in `row`,
/// except where `element` (the sequence's element type) is static.
static Value cutToRow(OpBuilder &b, Location loc, Value padded, Value row,
                      RankedTensorType element) {
  int64_t rank = element.getRank();
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank; ++d)
    sizes.push_back(element.isDynamicDim(d)
                        ? OpFoldResult(rowEntry(b, loc, row, d))
                        : OpFoldResult(b.getIndexAttr(element.getDimSize(d))));
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, padded, offsets, sizes,
                                        strides);
}

FailureOr<Value> mlprog::buildRaggedAt(OpBuilder &b, Location loc,
                                       const RaggedSequence &seq,
                                       OpFoldResult index) {
  FailureOr<Value> padded = buildSequenceAt(b, loc, seq.data, index);
  if (failed(padded))
    return failure();
  FailureOr<Value> row = buildSequenceAt(b, loc, seq.shapes, index);
  if (failed(row))
    return failure();
  return cutToRow(b, loc, *padded, *row,
                  elementOf(cast<RankedTensorType>(seq.data.getType())));
}

/// `x` (a tensor of `sizes.size()` dims, each extent at most `sizes`')
/// zero padded at the end to `sizes`; `x` itself when already that shape
/// statically.
static Value padTo(OpBuilder &b, Location loc, Value x,
                   ArrayRef<OpFoldResult> sizes) {
  auto t = cast<RankedTensorType>(x.getType());
  bool same = true;
  for (auto [d, s] : llvm::enumerate(sizes)) {
    std::optional<int64_t> c = getConstantIntValue(s);
    same &= c && !t.isDynamicDim(d) && *c == t.getDimSize(d);
  }
  if (same)
    return x;
  Value dest = createFilled(b, loc, sizes, b.getZeroAttr(t.getElementType()));
  SmallVector<OpFoldResult> offsets(t.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(t.getRank(), b.getIndexAttr(1));
  return tensor::InsertSliceOp::create(
      b, loc, x, dest, offsets, tensor::getMixedSizes(b, loc, x), strides);
}

/// The larger of extents `x` and `y`, static when both are.
static OpFoldResult maxIndex(OpBuilder &b, Location loc, OpFoldResult x,
                             OpFoldResult y) {
  std::optional<int64_t> cx = getConstantIntValue(x),
                         cy = getConstantIntValue(y);
  if (cx && cy)
    return b.getIndexAttr(std::max(*cx, *cy));
  return arith::MaxSIOp::create(b, loc,
                                getValueOrCreateConstantIndexOp(b, loc, x),
                                getValueOrCreateConstantIndexOp(b, loc, y))
      .getResult();
}

/// The extents every one of `elements` pads to: per dim, the largest
/// (static when every element's is).
static SmallVector<OpFoldResult> maxExtents(OpBuilder &b, Location loc,
                                            ValueRange elements) {
  SmallVector<OpFoldResult> result = tensor::getMixedSizes(b, loc, elements[0]);
  for (Value e : elements.drop_front())
    for (auto [r, s] : llvm::zip(result, tensor::getMixedSizes(b, loc, e)))
      r = maxIndex(b, loc, r, s);
  return result;
}

/// The element type of a ragged sequence holding elements of `types`: an
/// extent is static only where every element has that same static extent
/// (the padded extent says nothing of each element's).
static RankedTensorType sharedType(ArrayRef<RankedTensorType> types) {
  SmallVector<int64_t> shape(types[0].getShape());
  for (RankedTensorType t : types.drop_front())
    for (auto [s, d] : llvm::zip(shape, t.getShape()))
      if (s != d)
        s = ShapedType::kDynamic;
  return RankedTensorType::get(shape, types[0].getElementType());
}

/// The checks shared by insert and construct: `element` is a tensor of
/// `elementType` elements and rank `rank`.
static LogicalResult checkElement(Location loc, Value element, Type elementType,
                                  int64_t rank) {
  auto et = dyn_cast<RankedTensorType>(element.getType());
  if (!et)
    return emitError(loc) << "sequence element of type " << element.getType()
                          << " is not a tensor";
  if (et.getElementType() != elementType)
    return emitError(loc) << "sequence element type " << et.getElementType()
                          << " does not match " << elementType;
  if (et.getRank() != rank)
    return emitError(loc) << "unsupported sequence whose elements differ in "
                             "rank ("
                          << rank << " and " << et.getRank() << ")";
  return success();
}

FailureOr<RaggedSequence> mlprog::buildRaggedInsert(OpBuilder &b, Location loc,
                                                    const RaggedSequence &seq,
                                                    Value element,
                                                    OpFoldResult position) {
  auto t = cast<RankedTensorType>(seq.data.getType());
  if (failed(checkElement(loc, element, t.getElementType(), t.getRank() - 1)))
    return failure();
  // The padded extents: the larger of the data's and the element's (a
  // statically empty data takes the element's).
  SmallVector<OpFoldResult> extents = tensor::getMixedSizes(b, loc, element);
  if (t.getDimSize(0) != 0) {
    SmallVector<OpFoldResult> held = tensor::getMixedSizes(b, loc, seq.data);
    for (auto [e, h] : llvm::zip(extents, ArrayRef(held).drop_front()))
      e = maxIndex(b, loc, e, h);
  }
  SmallVector<OpFoldResult> dataSizes{
      tensor::getMixedSize(b, loc, seq.data, 0)};
  llvm::append_range(dataSizes, extents);
  Value data = padTo(b, loc, seq.data, dataSizes);
  Value padded = padTo(b, loc, element, extents);
  // Static extents in the type only where the held elements (whose shared
  // extents the data type says) and the new one agree.
  auto et = cast<RankedTensorType>(element.getType());
  RankedTensorType shared =
      t.getDimSize(0) == 0 ? et : sharedType({elementOf(t), et});
  padded = castTo(b, loc, padded, shared);
  data = castTo(b, loc, data, getSequenceType(shared, t.getDimSize(0)));
  FailureOr<Value> newData =
      buildSequenceInsert(b, loc, data, padded, position);
  if (failed(newData))
    return failure();
  FailureOr<Value> newShapes = buildSequenceInsert(
      b, loc, seq.shapes, buildShapeRow(b, loc, element), position);
  if (failed(newShapes))
    return failure();
  return RaggedSequence{*newData, dynamicShapes(b, loc, *newShapes)};
}

FailureOr<RaggedSequence> mlprog::buildRaggedErase(OpBuilder &b, Location loc,
                                                   const RaggedSequence &seq,
                                                   OpFoldResult position) {
  FailureOr<Value> data = buildSequenceErase(b, loc, seq.data, position);
  if (failed(data))
    return failure();
  FailureOr<Value> shapes = buildSequenceErase(b, loc, seq.shapes, position);
  if (failed(shapes))
    return failure();
  return RaggedSequence{*data, dynamicShapes(b, loc, *shapes)};
}

FailureOr<RaggedSequence>
mlprog::buildRaggedConstruct(OpBuilder &b, Location loc, ValueRange elements) {
  if (elements.empty())
    return emitError(loc) << "a sequence needs at least one element";
  auto first = dyn_cast<RankedTensorType>(elements[0].getType());
  if (!first)
    return emitError(loc) << "sequence element of type "
                          << elements[0].getType() << " is not a tensor";
  for (Value e : elements.drop_front())
    if (failed(checkElement(loc, e, first.getElementType(), first.getRank())))
      return failure();
  SmallVector<OpFoldResult> extents = maxExtents(b, loc, elements);
  SmallVector<Value> padded, rows;
  for (Value e : elements) {
    padded.push_back(padTo(b, loc, e, extents));
    rows.push_back(buildShapeRow(b, loc, e));
  }
  // Static extents in the type only where all elements share them.
  SmallVector<RankedTensorType> types;
  for (Value e : elements)
    types.push_back(cast<RankedTensorType>(e.getType()));
  RankedTensorType shared = sharedType(types);
  for (Value &p : padded)
    p = castTo(b, loc, p, shared);
  FailureOr<Value> data = buildSequenceConstruct(b, loc, padded);
  if (failed(data))
    return failure();
  FailureOr<Value> shapes = buildSequenceConstruct(b, loc, rows);
  if (failed(shapes))
    return failure();
  return RaggedSequence{*data, dynamicShapes(b, loc, *shapes)};
}

FailureOr<Value>
mlprog::buildRaggedConcatFromSequence(OpBuilder &b, Location loc,
                                      const RaggedSequence &seq, int64_t axis,
                                      bool newAxis) {
  auto t = cast<RankedTensorType>(seq.data.getType());
  int64_t r = t.getRank() - 1;
  int64_t lo = newAxis ? -(r + 1) : -r, hi = newAxis ? r : r - 1;
  if (axis < lo || axis > hi)
    return emitError(loc) << "ConcatFromSequence axis " << axis
                          << " is out of range for elements of rank " << r
                          << (newAxis ? " with new_axis" : "");
  int64_t a = axis < 0 ? axis - lo : axis;
  // Element 0's extents (zeros when the sequence is empty).
  FailureOr<Value> row0 =
      buildSequenceAt(b, loc, seq.shapes, b.getIndexAttr(0));
  if (failed(row0))
    return failure();
  RankedTensorType element = elementOf(t);
  if (newAxis) {
    // The elements share element 0's extents: cut them out of the padding.
    SmallVector<OpFoldResult> sizes{tensor::getMixedSize(b, loc, seq.data, 0)};
    for (int64_t d = 0; d < r; ++d)
      sizes.push_back(
          element.isDynamicDim(d)
              ? OpFoldResult(rowEntry(b, loc, *row0, d))
              : OpFoldResult(b.getIndexAttr(element.getDimSize(d))));
    SmallVector<OpFoldResult> offsets(r + 1, b.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(r + 1, b.getIndexAttr(1));
    Value uniform = tensor::ExtractSliceOp::create(b, loc, seq.data, offsets,
                                                   sizes, strides);
    return buildConcatFromSequence(b, loc, uniform, axis, true);
  }
  // Concatenation: the extent along the axis is the sum of the elements'.
  Value n = buildSequenceLength(b, loc, seq.data);
  Value zero = cIndex(b, loc, 0);
  Value total =
      loop(b, loc, zero, n, {zero},
           [&](OpBuilder &nb, Location nl, Value j,
               ValueRange acc) -> SmallVector<Value> {
             Value e = tensor::ExtractOp::create(
                 nb, nl, seq.shapes, ValueRange{j, cIndex(nb, nl, a)});
             e = arith::IndexCastOp::create(nb, nl, nb.getIndexType(), e);
             return {arith::AddIOp::create(nb, nl, acc[0], e)};
           })[0];
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < r; ++d)
    sizes.push_back(d == a ? OpFoldResult(total)
                    : element.isDynamicDim(d)
                        ? OpFoldResult(rowEntry(b, loc, *row0, d))
                        : OpFoldResult(b.getIndexAttr(element.getDimSize(d))));
  Value out = createFilled(b, loc, sizes, b.getZeroAttr(t.getElementType()));
  Value result =
      loop(b, loc, zero, n, {out, zero},
           [&](OpBuilder &nb, Location nl, Value j,
               ValueRange acc) -> SmallVector<Value> {
             FailureOr<Value> e = buildRaggedAt(nb, nl, seq, j);
             Value piece = *e; // a run-time index never fails
             SmallVector<OpFoldResult> offsets(r, nb.getIndexAttr(0));
             offsets[a] = acc[1];
             SmallVector<OpFoldResult> strides(r, nb.getIndexAttr(1));
             Value dest = tensor::InsertSliceOp::create(
                 nb, nl, piece, acc[0], offsets,
                 tensor::getMixedSizes(nb, nl, piece), strides);
             Value next = arith::AddIOp::create(
                 nb, nl, acc[1], tensor::DimOp::create(nb, nl, piece, a));
             return {dest, next};
           })[0];
  return result;
}

FailureOr<RaggedSequence>
mlprog::buildRaggedSplitToSequence(OpBuilder &b, Location loc, Value x,
                                   int64_t axis, Value split) {
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
  auto st = dyn_cast<RankedTensorType>(split.getType());
  if (!st || st.getRank() > 1 || !isa<IntegerType>(st.getElementType()))
    return emitError(loc) << "SplitToSequence split must be a 0-D or 1-D "
                             "integer tensor, got "
                          << split.getType();
  Value zero = cIndex(b, loc, 0), one = cIndex(b, loc, 1);
  Value extent = tensor::DimOp::create(b, loc, x, a);
  // n pieces, and piece j's length before clamping to what is left.
  Value n, chunk;
  if (st.getRank() == 1) {
    n = tensor::DimOp::create(b, loc, split, 0);
  } else {
    chunk = toIndex(b, loc, tensor::ExtractOp::create(b, loc, split));
    chunk = arith::MaxSIOp::create(b, loc, chunk, one);
    n = arith::CeilDivSIOp::create(b, loc, extent, chunk);
  }
  auto lengthOf = [&](OpBuilder &nb, Location nl, Value j) -> Value {
    if (chunk)
      return chunk;
    Value v = toIndex(nb, nl, tensor::ExtractOp::create(nb, nl, split, j));
    return arith::MaxSIOp::create(nb, nl, v, cIndex(nb, nl, 0));
  };
  // The largest piece (after clamping), then the pieces themselves.
  Value largest =
      loop(b, loc, zero, n, {zero, zero},
           [&](OpBuilder &nb, Location nl, Value j,
               ValueRange acc) -> SmallVector<Value> {
             Value left = arith::SubIOp::create(nb, nl, extent, acc[1]);
             Value len =
                 arith::MinSIOp::create(nb, nl, lengthOf(nb, nl, j), left);
             return {arith::MaxSIOp::create(nb, nl, acc[0], len),
                     arith::AddIOp::create(nb, nl, acc[1], len)};
           })[0];
  SmallVector<OpFoldResult> xSizes = tensor::getMixedSizes(b, loc, x);
  SmallVector<OpFoldResult> dataSizes{n};
  llvm::append_range(dataSizes, xSizes);
  dataSizes[a + 1] = largest;
  Value data =
      createFilled(b, loc, dataSizes, b.getZeroAttr(xt.getElementType()));
  Value shapes = repeatRow(b, loc, n, buildShapeRow(b, loc, x));
  SmallVector<Value> pieces = loop(
      b, loc, zero, n, {data, shapes, zero},
      [&](OpBuilder &nb, Location nl, Value j,
          ValueRange acc) -> SmallVector<Value> {
        Value left = arith::SubIOp::create(nb, nl, extent, acc[2]);
        Value len = arith::MinSIOp::create(nb, nl, lengthOf(nb, nl, j), left);
        SmallVector<OpFoldResult> offsets(rank, nb.getIndexAttr(0));
        offsets[a] = acc[2];
        SmallVector<OpFoldResult> sizes(xSizes);
        sizes[a] = len;
        SmallVector<OpFoldResult> strides(rank, nb.getIndexAttr(1));
        Value piece =
            tensor::ExtractSliceOp::create(nb, nl, x, offsets, sizes, strides);
        SmallVector<OpFoldResult> dOffsets(rank + 1, nb.getIndexAttr(0));
        dOffsets[0] = j;
        SmallVector<OpFoldResult> dSizes{nb.getIndexAttr(1)};
        llvm::append_range(dSizes, sizes);
        SmallVector<OpFoldResult> dStrides(rank + 1, nb.getIndexAttr(1));
        Value dest = tensor::InsertSliceOp::create(nb, nl, piece, acc[0],
                                                   dOffsets, dSizes, dStrides);
        Value lenI64 = arith::IndexCastOp::create(nb, nl, nb.getI64Type(), len);
        Value table = tensor::InsertOp::create(
            nb, nl, lenI64, acc[1], ValueRange{j, cIndex(nb, nl, a)});
        return {dest, table, arith::AddIOp::create(nb, nl, acc[2], len)};
      });
  return RaggedSequence{pieces[0], dynamicShapes(b, loc, pieces[1])};
}
