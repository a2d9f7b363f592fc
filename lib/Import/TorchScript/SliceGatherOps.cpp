//===- SliceGatherOps.cpp - aten slicing, splitting, gathering ------------===//
//
// chunk, split, unbind, tensor_split, slice, narrow, select,
// index_select, gather, embedding, index_copy, select/slice_scatter.
//
// One handler per aten op (overloads told apart by the node's schema): it
// reads the arguments at the schema's positions, applies torch's type
// promotion, and calls the shared builders in mlprog/Import/Common.
// Semantics belong in the builders, not here.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "HandlerUtils.h"

#include "mlprog/Import/Common/Logic.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <climits>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// Python slice `x[..., start:end:step, ...]` along `dim` in [-rank, rank);
/// an `end` of INT64_MAX (None) slices to the end.
FailureOr<Value> sliceAlong(Im &im, Node *n, Value x, int64_t dim,
                            int64_t start, int64_t end, int64_t step) {
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  if (dim < -rank || dim >= rank)
    return emitError(im.loc(n))
           << "slice: dim " << dim << " out of range for rank " << rank;
  SmallVector<SliceDim> dims(rank);
  dims[dim < 0 ? dim + rank : dim] = {
      start, end == INT64_MAX ? std::nullopt : std::optional(end), step};
  return buildSlice(im.b, im.loc(n), x, dims);
}

/// Splits `x` along `dim` into pieces of `sizes`, as a list value.
LogicalResult splitInto(Im &im, Node *n, Value x, int64_t dim, int64_t extent,
                        ArrayRef<int64_t> sizes) {
  // As aten's split_with_sizes: sizes are non-negative and sum to the
  // extent (checked before any offset can overflow).
  int64_t total = 0;
  for (int64_t s : sizes) {
    if (s < 0 || s > extent - total)
      return emitError(im.loc(n))
             << "split sizes must be non-negative and sum to the extent "
             << extent << " of dim " << dim;
    total += s;
  }
  if (total != extent)
    return emitError(im.loc(n))
           << "split sizes sum to " << total << ", not to the extent " << extent
           << " of dim " << dim;
  std::vector<TSValue> parts;
  int64_t offset = 0;
  for (int64_t s : sizes) {
    FailureOr<Value> p = sliceAlong(im, n, x, dim, offset, offset + s, 1);
    if (failed(p))
      return failure();
    parts.push_back(TSValue::tensor(*p));
    offset += s;
  }
  if (n->outputs().size() == 1 &&
      n->output()->type()->kind() == c10::TypeKind::ListType)
    return im.set(n, 0, TSValue::list(std::move(parts)));
  if (parts.size() != n->outputs().size())
    return emitError(im.loc(n))
           << "split produced " << parts.size() << " parts for "
           << n->outputs().size() << " outputs";
  for (auto [i, p] : llvm::enumerate(parts))
    im.set(n, i, p);
  return success();
}

/// Static extent of dim `dim` (normalized in place) or an error.
FailureOr<int64_t> staticExtent(Im &im, Node *n, Value x, int64_t &dim) {
  FailureOr<int64_t> d = normDim(im, n, dim, rankOf(x));
  if (failed(d))
    return failure();
  dim = *d;
  int64_t e = cast<RankedTensorType>(x.getType()).getDimSize(dim);
  if (ShapedType::isDynamic(e))
    return emitError(im.loc(n)) << "unsupported split of a dynamic extent";
  return e;
}

LogicalResult chunk(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> chunks = im.intInput(n, 1), d = im.intInput(n, 2);
  if (failed(x) || failed(chunks) || failed(d))
    return failure();
  int64_t dim = *d;
  FailureOr<int64_t> e = staticExtent(im, n, *x, dim);
  if (failed(e))
    return failure();
  if (*chunks <= 0)
    return emitError(im.loc(n))
           << "chunk expects 'chunks' to be greater than 0, got " << *chunks;
  int64_t size = *e / *chunks + (*e % *chunks != 0);
  SmallVector<int64_t> sizes;
  for (int64_t off = 0; off < *e; off += size)
    sizes.push_back(std::min(size, *e - off));
  return splitInto(im, n, *x, dim, *e, sizes);
}

/// split.Tensor(self, split_size, dim), split.sizes / split_with_sizes
/// (self, split_sizes, dim).
LogicalResult split(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> d = im.intInput(n, 2);
  if (failed(x) || failed(d))
    return failure();
  int64_t dim = *d;
  FailureOr<int64_t> e = staticExtent(im, n, *x, dim);
  if (failed(e))
    return failure();
  const TSValue &s = im.get(n->input(1));
  SmallVector<int64_t> sizes;
  if (s.elems) {
    FailureOr<SmallVector<int64_t>> l = im.intListInput(n, 1);
    if (failed(l))
      return failure();
    sizes = *l;
  } else {
    FailureOr<int64_t> size = im.intInput(n, 1);
    if (failed(size))
      return failure();
    if (*size < 0 || (*size == 0 && *e != 0))
      return emitError(im.loc(n))
             << "split_size must be positive (0 only for an empty dim), got "
             << *size;
    for (int64_t off = 0; off < *e; off += std::min(*size, *e - off))
      sizes.push_back(std::min(*size, *e - off));
  }
  return splitInto(im, n, *x, dim, *e, sizes);
}

LogicalResult unbind(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> d = im.intInput(n, 1);
  if (failed(x) || failed(d))
    return failure();
  int64_t dim = *d;
  FailureOr<int64_t> e = staticExtent(im, n, *x, dim);
  if (failed(e))
    return failure();
  std::vector<TSValue> parts;
  for (int64_t i = 0; i < *e; ++i) {
    FailureOr<Value> p =
        buildSelectIndex(im.b, im.loc(n), *x, dim, im.b.getIndexAttr(i));
    if (failed(p))
      return failure();
    parts.push_back(TSValue::tensor(*p));
  }
  return im.set(n, 0, TSValue::list(std::move(parts)));
}

/// slice.Tensor with a bound known only at run time (`x[:, n // 4:n - k]`):
/// a run-time gather (buildSliceDynamic); None bounds are 0 / INT64_MAX / 1.
FailureOr<Value> sliceDynamic(Im &im, Node *n, Value x, int64_t dim) {
  Location l = im.loc(n);
  int64_t rank = rankOf(x);
  FailureOr<int64_t> d = normDim(im, n, dim, rank);
  if (failed(d))
    return failure();
  auto bound = [&](unsigned i, int64_t def) -> FailureOr<Value> {
    if (im.isNoneInput(n, i))
      return arith::ConstantOp::create(im.b, l, im.b.getI64IntegerAttr(def))
          .getResult();
    return intValueInput(im, n, i);
  };
  FailureOr<Value> start = bound(2, 0), end = bound(3, INT64_MAX),
                   step = bound(4, 1);
  if (failed(start) || failed(end) || failed(step))
    return failure();
  SmallVector<DynamicSliceDim> dims(rank);
  dims[*d] = {*start, *end, *step};
  return buildSliceDynamic(im.b, l, x, dims);
}

/// slice.Tensor(self, dim, start, end, step).
LogicalResult slice(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> d = im.intInput(n, 1);
  if (failed(x) || failed(d))
    return failure();
  for (unsigned i = 2; i < 5; ++i)
    if (!im.isNoneInput(n, i) && !im.get(n->input(i)).isConstScalar())
      return im.setTensor(n, 0, sliceDynamic(im, n, *x, *d));
  int64_t start = 0, end = INT64_MAX, step = 1;
  if (!im.isNoneInput(n, 2)) {
    FailureOr<int64_t> v = im.intInput(n, 2);
    if (failed(v))
      return failure();
    start = *v;
  }
  if (!im.isNoneInput(n, 3)) {
    FailureOr<int64_t> v = im.intInput(n, 3);
    if (failed(v))
      return failure();
    end = *v;
  }
  if (!im.isNoneInput(n, 4)) {
    FailureOr<int64_t> v = im.intInput(n, 4);
    if (failed(v))
      return failure();
    step = *v;
  }
  // `x[:]` along a dim (as in `cache[:, p] = k`) is `x` itself, which keeps
  // writes through the view a plain insert into `x`.
  auto type = cast<RankedTensorType>(x->getType());
  int64_t dim = *d < 0 ? *d + type.getRank() : *d;
  if (dim >= 0 && dim < type.getRank() && start == 0 && step == 1 &&
      !type.isDynamicDim(dim) && end >= type.getDimSize(dim))
    return im.set(n, 0, TSValue::tensor(*x));
  return im.setTensor(n, 0, sliceAlong(im, n, *x, *d, start, end, step));
}

/// narrow(self, dim, start, length) = self[..., start:start + length] with
/// a negative start counting from the end; start (also as a 0-d tensor,
/// narrow.Tensor) and length may be run-time ints.
LogicalResult narrow(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> d = im.intInput(n, 1);
  if (failed(x) || failed(d))
    return failure();
  int64_t rank = rankOf(*x);
  FailureOr<int64_t> dim = normDim(im, n, *d, rank);
  if (failed(dim))
    return failure();
  TSValue startV = im.get(n->input(2));
  const TSValue &lenV = im.get(n->input(3));
  int64_t extent = cast<RankedTensorType>(x->getType()).getDimSize(*dim);
  if (startV.intConst && lenV.intConst && !ShapedType::isDynamic(extent)) {
    int64_t start =
        *startV.intConst < 0 ? *startV.intConst + extent : *startV.intConst;
    if (start < 0 || *lenV.intConst < 0 || start + *lenV.intConst > extent)
      return emitError(l) << "narrow: start " << *startV.intConst
                          << " and length " << *lenV.intConst
                          << " out of range for extent " << extent;
    return im.setTensor(
        n, 0, sliceAlong(im, n, *x, *dim, start, start + *lenV.intConst, 1));
  }
  Value start;
  if (startV.isTensor()) {
    FailureOr<Value> t = im.tensorOf(startV, im.b.getI64Type(), l);
    if (failed(t))
      return failure();
    if (rankOf(*t) != 0)
      return emitError(l) << "narrow: start must be a 0-d tensor";
    start = tensor::ExtractOp::create(im.b, l, *t, ValueRange{});
  } else {
    FailureOr<Value> v = intValueInput(im, n, 2);
    if (failed(v))
      return failure();
    start = *v;
  }
  FailureOr<Value> len = intValueInput(im, n, 3);
  if (failed(len))
    return failure();
  Value n64 = arith::IndexCastOp::create(
      im.b, l, im.b.getI64Type(), tensor::DimOp::create(im.b, l, *x, *dim));
  Value zero = arith::ConstantOp::create(im.b, l, im.b.getI64IntegerAttr(0));
  Value isNeg =
      arith::CmpIOp::create(im.b, l, arith::CmpIPredicate::slt, start, zero);
  start = arith::SelectOp::create(
      im.b, l, isNeg, arith::AddIOp::create(im.b, l, start, n64), start);
  SmallVector<DynamicSliceDim> dims(rank);
  dims[*dim] = {start, arith::AddIOp::create(im.b, l, start, *len),
                arith::ConstantOp::create(im.b, l, im.b.getI64IntegerAttr(1))};
  SmallVector<int64_t> hint(cast<RankedTensorType>(x->getType()).getShape());
  hint[*dim] = lenV.intConst ? *lenV.intConst : ShapedType::kDynamic;
  return im.setTensor(n, 0, buildSliceDynamic(im.b, l, *x, dims, hint));
}

/// select.int(self, dim, index): the index may be a run-time int (a loop
/// counter, `x[:, n - 1]`; negative counts from the end).
LogicalResult select(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> d = im.intInput(n, 1);
  if (failed(x) || failed(d))
    return failure();
  FailureOr<OpFoldResult> index = indexInput(im, n, 2);
  if (failed(index))
    return failure();
  return im.setTensor(n, 0, buildSelectIndex(im.b, l, *x, *d, *index));
}

/// Index input `i` of `n`: uint8 indices (kept as signless i8) widened to
/// int64 unsigned, so that 200 does not read as -56 (from the end).
FailureOr<Value> indexTensorInput(Im &im, Node *n, unsigned i) {
  FailureOr<Value> idx = im.tensorInput(n, i);
  if (failed(idx) || !im.isUint8(n->input(i)))
    return idx;
  return buildConvertElementType(im.b, im.loc(n), *idx, im.b.getI64Type(),
                                 /*srcUnsigned=*/true);
}

LogicalResult indexSelect(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0), idx = indexTensorInput(im, n, 2);
  FailureOr<int64_t> d = im.intInput(n, 1);
  if (failed(x) || failed(idx) || failed(d))
    return failure();
  Location l = im.loc(n);
  if (rankOf(*idx) > 1)
    return emitError(l) << "index_select needs 0-d or 1-D integer indices, "
                           "got "
                        << idx->getType();
  // torch reads a 0-d self or index as one element along dim 0; a 0-d self
  // gives a 0-d result.
  if (rankOf(*idx) == 0)
    idx = buildReshape(im.b, l, *idx, {1});
  if (failed(idx))
    return failure();
  if (rankOf(*x) != 0)
    return im.setTensor(n, 0, buildGather(im.b, l, *x, *idx, *d));
  if (failed(normDim(im, n, *d, 0)))
    return failure();
  FailureOr<Value> one = buildReshape(im.b, l, *x, {1});
  if (failed(one))
    return failure();
  FailureOr<Value> g = buildGather(im.b, l, *one, *idx, 0);
  if (failed(g))
    return failure();
  return im.setTensor(n, 0, buildReshape(im.b, l, *g, {}));
}

LogicalResult gather(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0), idx = indexTensorInput(im, n, 2);
  FailureOr<int64_t> d = im.intInput(n, 1);
  if (failed(x) || failed(idx) || failed(d))
    return failure();
  Location l = im.loc(n);
  // torch checks nothing of an empty index: the result is empty too.
  auto it = cast<RankedTensorType>(idx->getType());
  if (it.hasStaticShape() && it.getNumElements() == 0) {
    if (failed(normDim(im, n, *d, std::max<int64_t>(rankOf(*x), 1))))
      return failure();
    SmallVector<OpFoldResult> sizes;
    for (int64_t e : it.getShape())
      sizes.push_back(im.b.getIndexAttr(e));
    return im.setTensor(
        n, 0, Value(tensor::EmptyOp::create(im.b, l, sizes, elemOf(*x))));
  }
  if (rankOf(*x) != 0)
    return im.setTensor(n, 0, buildGatherAlongAxis(im.b, l, *x, *idx, *d));
  // A 0-d self is read as [1]; the result has the shape of the index.
  if (failed(normDim(im, n, *d, 0)))
    return failure();
  SmallVector<int64_t> shape(cast<RankedTensorType>(idx->getType()).getShape());
  if (rankOf(*idx) > 1)
    return emitError(l) << "gather: index " << idx->getType()
                        << " does not fit a 0-d tensor";
  FailureOr<Value> one = buildReshape(im.b, l, *x, {1});
  FailureOr<Value> idx1 = buildReshape(im.b, l, *idx, {1});
  if (failed(one) || failed(idx1))
    return failure();
  FailureOr<Value> g = buildGatherAlongAxis(im.b, l, *one, *idx1, 0);
  if (failed(g))
    return failure();
  return im.setTensor(n, 0, buildReshape(im.b, l, *g, shape));
}

/// index_copy(self, dim, index, source): `self` with the slices at
/// `index[i]` along `dim` replaced by the slices `i` of `source`. The 1-D
/// index is broadcast to `source`'s shape along `dim`, which makes the op a
/// scatter along an axis (the shared ScatterElements builder).
LogicalResult indexCopy(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0), idx = im.tensorInput(n, 2);
  FailureOr<int64_t> d = im.intInput(n, 1);
  if (failed(x) || failed(idx) || failed(d))
    return failure();
  FailureOr<Value> src = im.tensorOf(im.get(n->input(3)), elemOf(*x), l);
  if (failed(src))
    return failure();
  int64_t rank = rankOf(*x);
  FailureOr<int64_t> dim = normDim(im, n, *d, rank);
  if (failed(dim))
    return failure();
  // A 0-d self (and source) is read as [1].
  bool scalar = rank == 0;
  if (scalar) {
    x = buildReshape(im.b, l, *x, {1});
    src = buildReshape(im.b, l, *src, {1});
    if (failed(x) || failed(src))
      return failure();
    rank = 1;
  }
  auto it = cast<RankedTensorType>(idx->getType());
  auto st = cast<RankedTensorType>(src->getType());
  if (it.getRank() > 1 || st.getRank() != rank)
    return emitError(l) << "index_copy needs a 0-d or 1-D index and a source "
                           "of the rank of self, got "
                        << it << " and " << st;
  SmallVector<int64_t> shape(rank, 1);
  shape[*dim] = it.getRank() ? it.getDimSize(0) : 1;
  FailureOr<Value> column = buildReshape(im.b, l, *idx, shape);
  if (failed(column))
    return failure();
  FailureOr<Value> indices = buildExpand(im.b, l, *column, st.getShape());
  if (failed(indices))
    return failure();
  FailureOr<Value> r = buildScatterElements(im.b, l, *x, *indices, *src, *dim,
                                            ScatterReduction::None);
  if (failed(r) || !scalar)
    return im.setTensor(n, 0, r);
  return im.setTensor(n, 0, buildReshape(im.b, l, *r, {}));
}

LogicalResult embedding(Im &im, Node *n) {
  FailureOr<Value> w = im.tensorInput(n, 0), idx = im.tensorInput(n, 1);
  if (failed(w) || failed(idx))
    return failure();
  return im.setTensor(n, 0, buildGather(im.b, im.loc(n), *w, *idx, 0));
}

/// The pieces of `x` along `dim` (normalized) between the split points
/// `points` (Python slice bounds: negative count from the end, clamped), as
/// tensor_split with indices: x[:p0], x[p0:p1], ..., x[pk:].
LogicalResult splitAtPoints(Im &im, Node *n, Value x, int64_t dim,
                            ArrayRef<int64_t> points) {
  std::vector<TSValue> parts;
  int64_t rank = rankOf(x);
  for (size_t i = 0; i <= points.size(); ++i) {
    SmallVector<SliceDim> dims(rank);
    dims[dim].start = i == 0 ? 0 : points[i - 1];
    if (i < points.size())
      dims[dim].stop = points[i];
    FailureOr<Value> p = buildSlice(im.b, im.loc(n), x, dims);
    if (failed(p))
      return failure();
    parts.push_back(TSValue::tensor(*p));
  }
  return im.set(n, 0, TSValue::list(std::move(parts)));
}

/// tensor_split.tensor_indices_or_sections with a 1-D int tensor of split
/// points read at run time: x[:p0], x[p0:p1], ..., x[pk:], each a Python
/// slice (negative points count from the end, clamped), so the piece
/// extents are dynamic.
LogicalResult splitAtTensorPoints(Im &im, Node *n, Value x, int64_t dim,
                                  const TSValue &arg) {
  Location l = im.loc(n);
  FailureOr<Value> pts = im.tensorOf(arg, im.b.getI64Type(), l);
  if (failed(pts))
    return failure();
  auto pt = cast<RankedTensorType>(pts->getType());
  if (pt.getRank() != 1 || pt.isDynamicDim(0))
    return im.unsupported(n, "tensor_split with split points of a dynamic "
                             "count");
  int64_t k = pt.getDimSize(0);
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(im.b, l, im.b.getI64IntegerAttr(v));
  };
  SmallVector<Value> points;
  for (int64_t i = 0; i < k; ++i)
    points.push_back(tensor::ExtractOp::create(
        im.b, l, *pts,
        ValueRange{arith::ConstantIndexOp::create(im.b, l, i).getResult()}));
  std::vector<TSValue> parts;
  for (int64_t i = 0; i <= k; ++i) {
    SmallVector<DynamicSliceDim> dims(rankOf(x));
    dims[dim] = {i == 0 ? c(0) : points[i - 1],
                 i < k ? points[i] : c(INT64_MAX), c(1)};
    FailureOr<Value> p = buildSliceDynamic(im.b, l, x, dims);
    if (failed(p))
      return failure();
    parts.push_back(TSValue::tensor(*p));
  }
  return im.set(n, 0, TSValue::list(std::move(parts)));
}

/// tensor_split(self, sections | indices, dim): `sections` pieces (the
/// first extent % sections one longer), or pieces between the indices.
/// hsplit/vsplit/dsplit(self, sections | indices) split dim 1 (0 for 1-D),
/// 0 and 2; their sections must divide the extent.
LogicalResult tensorSplit(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  std::string name = n->kind().toUnqualString();
  int64_t rank = rankOf(*x);
  int64_t d = 0;
  if (name == "tensor_split") {
    FailureOr<int64_t> di = im.intInput(n, 2);
    if (failed(di))
      return failure();
    d = *di;
  } else {
    int64_t minRank = name == "dsplit" ? 3 : name == "vsplit" ? 2 : 1;
    if (rank < minRank)
      return emitError(l) << name
                          << ": expected a tensor of rank >= " << minRank
                          << ", got " << x->getType();
    d = name == "dsplit" ? 2 : name == "vsplit" ? 0 : rank >= 2 ? 1 : 0;
  }
  int64_t dim = d;
  FailureOr<int64_t> e = staticExtent(im, n, *x, dim);
  if (failed(e))
    return failure();
  const TSValue &arg = im.get(n->input(1));
  FailureOr<int64_t> sections = failure();
  if (arg.isTensor() && rankOf(arg.value) == 0) {
    // A section count in a 0-d tensor is a run-time value, but it is also
    // the number of pieces: a graph that unpacks the list states it.
    torch::jit::Value *out = n->output(0);
    if (out->uses().size() != 1 ||
        out->uses()[0].user->kind() != c10::prim::ListUnpack)
      return im.unsupported(n, "tensor_split with a section count in a "
                               "tensor whose pieces are not unpacked");
    sections = int64_t(out->uses()[0].user->outputs().size());
  } else if (arg.isTensor()) {
    return splitAtTensorPoints(im, n, *x, dim, arg);
  } else if (arg.elems) {
    FailureOr<SmallVector<int64_t>> points = im.intListInput(n, 1);
    if (failed(points))
      return failure();
    return splitAtPoints(im, n, *x, dim, *points);
  } else {
    sections = im.intInput(n, 1);
  }
  if (failed(sections))
    return failure();
  if (*sections < 1 || (name != "tensor_split" && *e % *sections))
    return emitError(l) << name << ": " << *sections
                        << " sections do not split extent " << *e;
  SmallVector<int64_t> points;
  int64_t at = 0;
  for (int64_t i = 0; i + 1 < *sections; ++i) {
    at += *e / *sections + (i < *e % *sections ? 1 : 0);
    points.push_back(at);
  }
  return splitAtPoints(im, n, *x, dim, points);
}

/// select_scatter(self, src, dim, index): `self` with x[.., index, ..]
/// along `dim` replaced by `src`.
LogicalResult selectScatter(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> d = im.intInput(n, 2), i = im.intInput(n, 3);
  if (failed(x) || failed(d) || failed(i))
    return failure();
  FailureOr<Value> src = im.tensorOf(im.get(n->input(1)), elemOf(*x), l);
  if (failed(src))
    return failure();
  int64_t dim = *d;
  FailureOr<int64_t> e = staticExtent(im, n, *x, dim);
  if (failed(e))
    return failure();
  int64_t index = *i < 0 ? *i + *e : *i;
  if (index < 0 || index >= *e)
    return emitError(l) << "select_scatter: index " << *i
                        << " out of range for extent " << *e;
  SmallVector<SliceDim> dims(rankOf(*x));
  dims[dim] = {index, index + 1, 1};
  return im.setTensor(n, 0, buildSliceUpdate(im.b, l, *x, *src, dims, {dim}));
}

/// slice_scatter(self, src, dim, start, end, step): `self` with the slice
/// x[.., start:end:step, ..] along `dim` replaced by `src`.
LogicalResult sliceScatter(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> d = im.intInput(n, 2), step = im.intInput(n, 5);
  if (failed(x) || failed(d) || failed(step))
    return failure();
  FailureOr<Value> src = im.tensorOf(im.get(n->input(1)), elemOf(*x), l);
  if (failed(src))
    return failure();
  int64_t rank = rankOf(*x);
  FailureOr<int64_t> dim = normDim(im, n, *d, rank);
  if (failed(dim))
    return failure();
  SmallVector<SliceDim> dims(rank);
  dims[*dim].step = *step;
  for (unsigned i : {3u, 4u}) {
    if (im.isNoneInput(n, i))
      continue;
    FailureOr<int64_t> v = im.intInput(n, i);
    if (failed(v))
      return failure();
    (i == 3 ? dims[*dim].start : dims[*dim].stop) = *v;
  }
  return im.setTensor(n, 0, buildSliceUpdate(im.b, l, *x, *src, dims));
}

} // namespace

void mlprog::torchscript::registerSliceGatherOps(OpTable &table) {
  table.add({
      {"aten::chunk", chunk},
      {"aten::split", split},
      {"aten::split_with_sizes", split},
      {"aten::unbind", unbind},
      {"aten::slice", slice},
      {"aten::select", select},
      {"aten::narrow", narrow},
      {"aten::index_select", indexSelect},
      {"aten::gather", gather},
      {"aten::embedding", embedding},
      {"aten::index_copy", indexCopy},
      {"aten::unsafe_chunk", chunk},
      {"aten::unsafe_split", split},
      {"aten::split_with_sizes_copy", split},
      {"aten::unbind_copy", unbind},
      {"aten::narrow_copy", narrow},
      {"aten::tensor_split", tensorSplit},
      {"aten::hsplit", tensorSplit},
      {"aten::vsplit", tensorSplit},
      {"aten::dsplit", tensorSplit},
      {"aten::select_scatter", selectScatter},
      {"aten::slice_scatter", sliceScatter},
  });
}
