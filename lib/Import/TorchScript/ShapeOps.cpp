//===- ShapeOps.cpp - aten shape and layout ops ---------------------------===//
//
// Reshapes and views, flatten, permute/transpose, (un)squeeze, cat/stack,
// expand/broadcast_to, pad (constant, reflect, replicate, circular).
//
// One handler per aten op (overloads told apart by the node's schema): it
// reads the arguments at the schema's positions, applies torch's type
// promotion, and calls the shared builders in mlprog/Import/Common.
// Semantics belong in the builders, not here.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "HandlerUtils.h"

#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// view/reshape(self, shape). Entries may be run-time ints (`x.view(b, s,
/// h, d)` with `b = x.size(0)`): with one such entry and no -1 it is the
/// inferred extent; otherwise the shape is assembled at run time
/// (buildReshapeToShapeTensor), one -1 still taking the remaining count.
LogicalResult reshape(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  const TSValue &s = im.get(n->input(1));
  if (!s.elems)
    return emitError(l) << "expected a shape list";
  SmallVector<int64_t> shape;
  int unknown = 0;
  for (const TSValue &e : *s.elems) {
    if (e.intConst) {
      shape.push_back(*e.intConst);
    } else if (e.kind == TSValue::Kind::Int) {
      shape.push_back(-1);
      ++unknown;
    } else {
      return emitError(l) << "expected an int extent in the shape of "
                          << n->kind().toQualString();
    }
  }
  auto type = cast<RankedTensorType>(x->getType());
  if (unknown > 0 && llvm::count(shape, -1) > 1) {
    SmallVector<Value> extents;
    SmallVector<int64_t> hint;
    for (const TSValue &e : *s.elems) {
      extents.push_back(im.scalarAs(e, im.b.getI64Type(), l));
      hint.push_back(e.intConst && *e.intConst >= 0 ? *e.intConst
                                                    : ShapedType::kDynamic);
    }
    Value shapeTensor = tensor::FromElementsOp::create(
        im.b, l,
        RankedTensorType::get({int64_t(extents.size())}, im.b.getI64Type()),
        extents);
    return im.setTensor(n, 0,
                        buildReshapeToShapeTensor(im.b, l, *x, shapeTensor,
                                                  /*allowZero=*/true, hint));
  }
  FailureOr<SmallVector<int64_t>> resolved =
      resolveReshapeShape(l, type.getShape(), shape, /*allowZero=*/true);
  if (failed(resolved))
    return failure();
  return im.setTensor(n, 0, buildReshape(im.b, l, *x, *resolved));
}

LogicalResult flatten(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> s = im.intInput(n, 1), e = im.intInput(n, 2);
  if (failed(x) || failed(s) || failed(e))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t r = type.getRank();
  if (r == 0)
    return im.setTensor(n, 0, buildReshape(im.b, l, *x, {1}));
  FailureOr<int64_t> start = normDim(im, n, *s, r), end = normDim(im, n, *e, r);
  if (failed(start) || failed(end))
    return failure();
  SmallVector<int64_t> shape;
  int64_t prod = 1;
  bool dyn = false;
  for (int64_t d = 0; d < r; ++d) {
    int64_t ext = type.getDimSize(d);
    if (d < *start || d > *end) {
      shape.push_back(ext);
      continue;
    }
    if (ShapedType::isDynamic(ext))
      dyn = true;
    else
      prod *= ext;
    if (d == *end)
      shape.push_back(dyn ? ShapedType::kDynamic : prod);
  }
  if (llvm::count(shape, ShapedType::kDynamic) > 1)
    return im.setTensor(n, 0, buildCollapseDims(im.b, l, *x, *start, *end));
  return im.setTensor(n, 0, buildReshape(im.b, l, *x, shape));
}

LogicalResult permute(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<int64_t>> perm = im.intListInput(n, 1);
  if (failed(x) || failed(perm))
    return failure();
  for (int64_t &p : *perm)
    if (p < 0)
      p += rankOf(*x);
  return im.setTensor(n, 0, buildTranspose(im.b, im.loc(n), *x, *perm));
}

/// flip(self, dims): reverses `self` along each of `dims` (negative count
/// from the end).
LogicalResult flip(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<int64_t>> dims = im.intListInput(n, 1);
  if (failed(x) || failed(dims))
    return failure();
  int64_t rank = rankOf(*x);
  for (int64_t &d : *dims) {
    if (d < -rank || d >= std::max<int64_t>(rank, 1))
      return emitError(l) << "flip: dim " << d << " out of range for rank "
                          << rank;
    if (d < 0)
      d += rank;
  }
  if (rank == 0)
    return im.setTensor(n, 0, *x);
  return im.setTensor(n, 0, buildReverse(im.b, l, *x, *dims));
}

LogicalResult transpose(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> a = im.intInput(n, 1), c = im.intInput(n, 2);
  if (failed(x) || failed(a) || failed(c))
    return failure();
  int64_t r = rankOf(*x);
  if (r < 2)
    return im.setTensor(n, 0, *x);
  FailureOr<int64_t> d0 = normDim(im, n, *a, r), d1 = normDim(im, n, *c, r);
  if (failed(d0) || failed(d1))
    return failure();
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < r; ++i)
    perm.push_back(i);
  std::swap(perm[*d0], perm[*d1]);
  return im.setTensor(n, 0, buildTranspose(im.b, im.loc(n), *x, perm));
}

LogicalResult unsqueeze(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> d = im.intInput(n, 1);
  if (failed(x) || failed(d))
    return failure();
  FailureOr<int64_t> dim = normDim(im, n, *d, rankOf(*x), true);
  if (failed(dim))
    return failure();
  return im.setTensor(n, 0, buildUnsqueeze(im.b, im.loc(n), *x, *dim));
}

LogicalResult squeeze(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  SmallVector<int64_t> dims;
  if (n->inputs().size() > 1) {
    FailureOr<SmallVector<int64_t>> d = im.intListInput(n, 1);
    if (failed(d))
      return failure();
    for (int64_t v : *d) {
      FailureOr<int64_t> dim = normDim(im, n, v, rankOf(*x));
      if (failed(dim))
        return failure();
      dims.push_back(*dim);
    }
    if (dims.empty())
      return im.setTensor(n, 0, *x);
  }
  return im.setTensor(n, 0, buildSqueeze(im.b, im.loc(n), *x, dims));
}

/// The tensors of a list argument, promoted to one element type.
FailureOr<SmallVector<Value>> tensorList(Im &im, Node *n, unsigned i) {
  FailureOr<std::vector<TSValue>> list = im.listInput(n, i);
  if (failed(list))
    return failure();
  SmallVector<const TSValue *> ptrs;
  for (const TSValue &v : *list)
    ptrs.push_back(&v);
  Type et = im.promote(ptrs);
  SmallVector<Value> out;
  for (const TSValue &v : *list) {
    FailureOr<Value> t = im.tensorOf(v, et, im.loc(n));
    if (failed(t))
      return failure();
    out.push_back(*t);
  }
  return out;
}

LogicalResult cat(Im &im, Node *n) {
  FailureOr<SmallVector<Value>> xs = tensorList(im, n, 0);
  FailureOr<int64_t> d = im.intInput(n, 1);
  if (failed(xs) || failed(d))
    return failure();
  return im.setTensor(n, 0, buildConcat(im.b, im.loc(n), *xs, *d));
}

LogicalResult stack(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<SmallVector<Value>> xs = tensorList(im, n, 0);
  FailureOr<int64_t> d = im.intInput(n, 1);
  if (failed(xs) || failed(d) || xs->empty())
    return failure();
  FailureOr<int64_t> dim = normDim(im, n, *d, rankOf((*xs)[0]), true);
  if (failed(dim))
    return failure();
  return im.setTensor(n, 0, buildStack(im.b, l, *xs, *dim));
}

/// expand(self, size, implicit): -1 keeps the extent of `self`; sizes may be
/// run-time ints (`y.expand(x.size(0), -1)`).
LogicalResult expand(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<OpFoldResult>> sizes = sizesInput(im, n, 1);
  if (failed(x) || failed(sizes))
    return failure();
  SmallVector<int64_t> shape;
  for (OpFoldResult &s : *sizes) {
    std::optional<int64_t> c = getConstantIntValue(s);
    shape.push_back(c ? *c : ShapedType::kDynamic);
    // An extent of 1 keeps the input's in buildExpandToSizes.
    if (c && *c == -1)
      s = im.b.getIndexAttr(1);
  }
  if (!llvm::is_contained(shape, ShapedType::kDynamic))
    return im.setTensor(n, 0, buildExpand(im.b, im.loc(n), *x, shape));
  return im.setTensor(n, 0, buildExpandToSizes(im.b, im.loc(n), *x, *sizes));
}

LogicalResult expandAs(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0), y = im.tensorInput(n, 1);
  if (failed(x) || failed(y))
    return failure();
  auto yt = cast<RankedTensorType>(y->getType());
  if (!yt.hasStaticShape())
    return im.setTensor(
        n, 0,
        buildExpandToSizes(im.b, im.loc(n), *x,
                           tensor::getMixedSizes(im.b, im.loc(n), *y)));
  return im.setTensor(n, 0, buildExpand(im.b, im.loc(n), *x, yt.getShape()));
}

/// view_as/reshape_as(self, other): `self` reshaped to the shape of `other`.
LogicalResult viewAs(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0), y = im.tensorInput(n, 1);
  if (failed(x) || failed(y))
    return failure();
  auto yt = cast<RankedTensorType>(y->getType());
  if (!yt.hasStaticShape())
    return im.unsupported(n, "view_as to a shape with extents unknown at "
                             "import time");
  return im.setTensor(n, 0, buildReshape(im.b, im.loc(n), *x, yt.getShape()));
}

/// copy_(self, src, non_blocking) as a value: `src` converted to the dtype
/// of `self` and broadcast to its shape (the importer stores it back to
/// `self`, see Importer::importInPlace).
LogicalResult copy(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> self = im.tensorInput(n, 0);
  if (failed(self))
    return failure();
  auto type = cast<RankedTensorType>(self->getType());
  FailureOr<Value> src =
      im.tensorOf(im.get(n->input(1)), type.getElementType(), l);
  if (failed(src))
    return failure();
  if (src->getType() == type)
    return im.setTensor(n, 0, *src);
  if (!type.hasStaticShape())
    return im.setTensor(
        n, 0,
        buildExpandToSizes(im.b, l, *src,
                           tensor::getMixedSizes(im.b, l, *self)));
  return im.setTensor(n, 0, buildExpand(im.b, l, *src, type.getShape()));
}

/// pad(self, pad, mode="constant", value=None), constant_pad_nd(self, pad,
/// value), reflection_padNd / replication_padNd(self, padding): `pad` holds
/// (begin, end) pairs from the last dim backwards; negative widths crop.
/// Padded extents may be dynamic (buildPadDynamic).
LogicalResult pad(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<OpFoldResult>> widths = sizesInput(im, n, 1);
  if (failed(x) || failed(widths))
    return failure();
  int64_t rank = rankOf(*x);
  if (widths->size() % 2 || int64_t(widths->size()) > 2 * rank)
    return emitError(l) << "pad: " << widths->size()
                        << " widths for a tensor of rank " << rank;
  std::string name = n->kind().toUnqualString();
  PadMode mode = PadMode::Constant;
  std::string modeName = "constant";
  if (name.rfind("reflection_pad", 0) == 0)
    modeName = "reflect";
  else if (name.rfind("replication_pad", 0) == 0)
    modeName = "replicate";
  const c10::FunctionSchema &schema = n->schema();
  if (auto mi = schema.argumentIndexWithName("mode")) {
    const TSValue &m = im.get(n->input(*mi));
    if (m.kind != TSValue::Kind::Str)
      return emitError(l) << "pad: the mode must be a string constant";
    modeName = m.str;
  }
  if (modeName == "reflect")
    mode = PadMode::Reflect;
  else if (modeName == "replicate")
    mode = PadMode::Replicate;
  else if (modeName == "circular")
    mode = PadMode::Wrap;
  else if (modeName != "constant")
    return im.unsupported(n, "pad mode '" + modeName + "'");
  Value fill;
  if (auto vi = schema.argumentIndexWithName("value"))
    if (!im.isNoneInput(n, *vi))
      fill = im.scalarAs(im.get(n->input(*vi)), elemOf(*x), l);
  SmallVector<OpFoldResult> low(rank, im.b.getIndexAttr(0)),
      high(rank, im.b.getIndexAttr(0));
  for (size_t i = 0; i < widths->size() / 2; ++i) {
    low[rank - 1 - i] = (*widths)[2 * i];
    high[rank - 1 - i] = (*widths)[2 * i + 1];
  }
  return im.setTensor(n, 0,
                      buildPadDynamic(im.b, l, *x, low, high, mode, fill));
}

} // namespace

void mlprog::torchscript::registerShapeOps(OpTable &table) {
  table.add({
      {"aten::view", reshape},
      {"aten::reshape", reshape},
      {"aten::flatten", flatten},
      {"aten::permute", permute},
      {"aten::flip", flip},
      {"aten::transpose", transpose},
      {"aten::unsqueeze", unsqueeze},
      {"aten::squeeze", squeeze},
      {"aten::cat", cat},
      {"aten::concat", cat},
      {"aten::stack", stack},
      {"aten::expand", expand},
      {"aten::expand_as", expandAs},
      {"aten::broadcast_to", expand},
      {"aten::pad", pad},
      {"aten::constant_pad_nd", pad},
      {"aten::reflection_pad1d", pad},
      {"aten::reflection_pad2d", pad},
      {"aten::reflection_pad3d", pad},
      {"aten::replication_pad1d", pad},
      {"aten::replication_pad2d", pad},
      {"aten::replication_pad3d", pad},
      {"aten::view_as", viewAs},
      {"aten::reshape_as", viewAs},
      {"aten::copy", copy},
  });
}
