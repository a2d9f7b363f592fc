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

#include "mlprog/Import/Common/Creation.h"
#include "mlprog/Import/Common/Logic.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

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
  // A 0-d tensor squeezes to itself (torch accepts dim 0 and -1).
  if (rankOf(*x) == 0)
    return im.setTensor(n, 0, *x);
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
  // torch skips 1-D tensors of extent 0 beside tensors of another rank
  // (legacy empty tensors).
  int64_t rank = 1;
  for (Value x : *xs)
    rank = std::max(rank, rankOf(x));
  if (rank > 1)
    llvm::erase_if(*xs, [](Value x) {
      return rankOf(x) == 1 &&
             cast<RankedTensorType>(x.getType()).getDimSize(0) == 0;
    });
  if (xs->size() == 1)
    return im.setTensor(n, 0, (*xs)[0]);
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

/// The shape of ranked `v`.
SmallVector<int64_t> shapeOf(Value v) {
  return SmallVector<int64_t>(cast<RankedTensorType>(v.getType()).getShape());
}

/// The identity: alias_copy, resolve_conj/resolve_neg (real tensors).
LogicalResult identity(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, *x);
}

/// tril/triu(self, diagonal): the band j - i <= k (tril) or >= k (triu).
LogicalResult trilu(Im &im, Node *n, bool upper) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> k = im.intInput(n, 1);
  if (failed(x) || failed(k))
    return failure();
  OpFoldResult bound = im.b.getIndexAttr(*k);
  return im.setTensor(n, 0,
                      buildBandPart(im.b, im.loc(n), *x,
                                    upper ? bound : OpFoldResult(),
                                    upper ? OpFoldResult() : bound));
}
LogicalResult tril(Im &im, Node *n) { return trilu(im, n, false); }
LogicalResult triu(Im &im, Node *n) { return trilu(im, n, true); }

/// `x` with dims `d0` and `d1` swapped.
FailureOr<Value> swapDims(Im &im, Location l, Value x, int64_t d0, int64_t d1) {
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rankOf(x)));
  std::swap(perm[d0], perm[d1]);
  return buildTranspose(im.b, l, x, perm);
}

/// mT/mH/adjoint (rank >= 2), matrix_H (rank 2), t_copy (rank <= 2; t of a
/// 0-d or 1-D tensor is itself): the last two dims swapped. Tensors are real
/// here, so the conjugate is the identity.
LogicalResult matrixTranspose(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  int64_t r = rankOf(*x);
  std::string name = n->kind().toUnqualString();
  if (name == "t_copy") {
    if (r > 2)
      return emitError(l) << "t_copy: expected a tensor of rank <= 2, got "
                          << r;
    if (r < 2)
      return im.setTensor(n, 0, *x);
  } else if (name == "matrix_H" ? r != 2 : r < 2) {
    return emitError(l) << name << ": unexpected rank " << r;
  }
  return im.setTensor(n, 0, swapDims(im, l, *x, r - 2, r - 1));
}

/// numpy_T: every dim reversed.
LogicalResult numpyT(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  SmallVector<int64_t> perm =
      llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, rankOf(*x))));
  return im.setTensor(n, 0, buildTranspose(im.b, im.loc(n), *x, perm));
}

/// movedim/moveaxis(self, source, destination) (int or int lists): the
/// source dims land at the destinations, the others keep their order.
LogicalResult movedim(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<int64_t>> src = im.intListInput(n, 1),
                                  dst = im.intListInput(n, 2);
  if (failed(x) || failed(src) || failed(dst))
    return failure();
  int64_t r = rankOf(*x);
  if (src->size() != dst->size())
    return emitError(l) << "movedim: " << src->size() << " sources for "
                        << dst->size() << " destinations";
  SmallVector<int64_t> perm(r, -1);
  SmallVector<bool> used(r, false);
  for (auto [s, d] : llvm::zip(*src, *dst)) {
    FailureOr<int64_t> ns = normDim(im, n, s, r), nd = normDim(im, n, d, r);
    if (failed(ns) || failed(nd))
      return failure();
    if (r == 0)
      return im.setTensor(n, 0, *x);
    if (perm[*nd] != -1 || used[*ns])
      return emitError(l) << "movedim: repeated dim";
    perm[*nd] = *ns;
    used[*ns] = true;
  }
  int64_t next = 0;
  for (int64_t &p : perm) {
    if (p != -1)
      continue;
    while (used[next])
      ++next;
    p = next++;
  }
  return im.setTensor(n, 0, buildTranspose(im.b, l, *x, perm));
}

/// swapaxes/swapdims(self, dim0, dim1).
LogicalResult swapaxes(Im &im, Node *n) { return transpose(im, n); }

/// `x` as a 1-D tensor (row-major).
FailureOr<Value> ravelValue(Im &im, Location l, Value x) {
  int64_t r = rankOf(x);
  if (r == 0)
    return buildReshape(im.b, l, x, {1});
  if (r == 1)
    return x;
  return buildCollapseDims(im.b, l, x, 0, r - 1);
}

LogicalResult ravel(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, ravelValue(im, im.loc(n), *x));
}

/// unflatten(self, dim, sizes): dim `dim` split into `sizes` (one -1 is
/// inferred).
LogicalResult unflatten(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> d = im.intInput(n, 1);
  FailureOr<SmallVector<int64_t>> sizes = im.intListInput(n, 2);
  if (failed(x) || failed(d) || failed(sizes))
    return failure();
  SmallVector<int64_t> in = shapeOf(*x);
  if (in.empty())
    return emitError(l) << "unflatten: the input must have at least one dim";
  FailureOr<int64_t> dim = normDim(im, n, *d, in.size());
  if (failed(dim))
    return failure();
  FailureOr<SmallVector<int64_t>> part =
      resolveReshapeShape(l, {in[*dim]}, *sizes, /*allowZero=*/true);
  if (failed(part))
    return failure();
  SmallVector<int64_t> shape(in.begin(), in.begin() + *dim);
  shape.append(*part);
  shape.append(in.begin() + *dim + 1, in.end());
  if (llvm::count(shape, ShapedType::kDynamic) > 1)
    return im.unsupported(n, "unflatten with several dynamic extents");
  return im.setTensor(n, 0, buildReshape(im.b, l, *x, shape));
}

/// `x` with unit dims added up to rank `r` as atleast_{1,2,3}d does: a 0-d
/// tensor becomes [1]*r, a 1-D [N] becomes [1, N] (and [1, N, 1] for 3-D),
/// a 2-D [M, N] becomes [M, N, 1].
FailureOr<Value> atLeast(Im &im, Location l, Value x, int64_t r) {
  SmallVector<int64_t> s = shapeOf(x);
  if (int64_t(s.size()) >= r)
    return x;
  SmallVector<int64_t> shape;
  if (s.empty())
    shape.assign(r, 1);
  else if (s.size() == 1)
    shape = r == 2 ? SmallVector<int64_t>{1, s[0]}
                   : SmallVector<int64_t>{1, s[0], 1};
  else
    shape = {s[0], s[1], 1};
  if (llvm::count(shape, ShapedType::kDynamic) > 1)
    return emitError(l) << "unsupported atleast_" << r << "d of "
                        << x.getType();
  return buildReshape(im.b, l, x, shape);
}

/// atleast_{1,2,3}d(self) and their .Sequence forms (a list of tensors).
LogicalResult atLeastNd(Im &im, Node *n, int64_t r) {
  Location l = im.loc(n);
  const TSValue &in = im.get(n->input(0));
  if (!in.elems) {
    FailureOr<Value> x = im.tensorInput(n, 0);
    if (failed(x))
      return failure();
    return im.setTensor(n, 0, atLeast(im, l, *x, r));
  }
  std::vector<TSValue> out;
  for (const TSValue &e : *in.elems) {
    FailureOr<Value> x = im.asTensor(e, l);
    if (failed(x))
      return failure();
    FailureOr<Value> y = atLeast(im, l, *x, r);
    if (failed(y))
      return failure();
    out.push_back(TSValue::tensor(*y));
  }
  return im.set(n, 0, TSValue::list(std::move(out)));
}
LogicalResult atleast1d(Im &im, Node *n) { return atLeastNd(im, n, 1); }
LogicalResult atleast2d(Im &im, Node *n) { return atLeastNd(im, n, 2); }
LogicalResult atleast3d(Im &im, Node *n) { return atLeastNd(im, n, 3); }

/// hstack/vstack/dstack/column_stack(tensors): the tensors (promoted) made
/// at least 1-/2-/3-D (column_stack: 0-d and 1-D ones become columns [N, 1])
/// and concatenated along dim 1 (0 for 1-D hstack), 0 or 2.
LogicalResult stackFamily(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<SmallVector<Value>> xs = tensorList(im, n, 0);
  if (failed(xs))
    return failure();
  if (xs->empty())
    return emitError(l) << "expected a non-empty list of tensors";
  std::string name = n->kind().toUnqualString();
  int64_t minRank = name == "hstack" ? 1 : name == "dstack" ? 3 : 2;
  for (Value &x : *xs) {
    FailureOr<Value> y;
    if (name == "column_stack" && rankOf(x) <= 1) {
      SmallVector<int64_t> s = shapeOf(x);
      y = buildReshape(im.b, l, x, {s.empty() ? 1 : s[0], 1});
    } else {
      y = atLeast(im, l, x, minRank);
    }
    if (failed(y))
      return failure();
    x = *y;
  }
  int64_t axis = name == "vstack" ? 0 : name == "dstack" ? 2 : 1;
  if (name == "hstack" && rankOf((*xs)[0]) == 1)
    axis = 0;
  return im.setTensor(n, 0, buildConcat(im.b, l, *xs, axis));
}

/// fliplr (dim 1 of a tensor of rank >= 2), flipud (dim 0, rank >= 1).
LogicalResult flipLrUd(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  bool lr = std::string(n->kind().toUnqualString()) == "fliplr";
  if (rankOf(*x) < (lr ? 2 : 1))
    return emitError(l) << n->kind().toUnqualString()
                        << ": input of too low rank " << rankOf(*x);
  return im.setTensor(n, 0, buildReverse(im.b, l, *x, {lr ? 1 : 0}));
}

/// rot90(self, k, dims): k quarter turns from dims[0] towards dims[1].
LogicalResult rot90(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> k = im.intInput(n, 1);
  FailureOr<SmallVector<int64_t>> dims = im.intListInput(n, 2);
  if (failed(x) || failed(k) || failed(dims))
    return failure();
  int64_t r = rankOf(*x);
  if (dims->size() != 2 || r < 2)
    return emitError(l) << "rot90: expected 2 dims and a tensor of rank >= 2";
  FailureOr<int64_t> d0 = normDim(im, n, (*dims)[0], r),
                     d1 = normDim(im, n, (*dims)[1], r);
  if (failed(d0) || failed(d1))
    return failure();
  if (*d0 == *d1)
    return emitError(l) << "rot90: the dims must differ";
  int64_t turns = ((*k % 4) + 4) % 4;
  if (turns == 0)
    return im.setTensor(n, 0, *x);
  if (turns == 2)
    return im.setTensor(n, 0, buildReverse(im.b, l, *x, {*d0, *d1}));
  FailureOr<Value> f = buildReverse(im.b, l, *x, {turns == 1 ? *d1 : *d0});
  if (failed(f))
    return failure();
  return im.setTensor(n, 0, swapDims(im, l, *f, *d0, *d1));
}

/// roll(self, shifts, dims): without dims, the flattened tensor is rolled.
LogicalResult roll(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<int64_t>> shifts = im.intListInput(n, 1),
                                  dims = im.intListInput(n, 2);
  if (failed(x) || failed(shifts) || failed(dims))
    return failure();
  if (dims->empty()) {
    if (shifts->size() != 1)
      return emitError(l) << "roll: expected one shift without dims";
    SmallVector<int64_t> shape = shapeOf(*x);
    FailureOr<Value> flat = ravelValue(im, l, *x);
    if (failed(flat))
      return failure();
    FailureOr<Value> r = buildRoll(im.b, l, *flat, 0, (*shifts)[0]);
    if (failed(r))
      return failure();
    return im.setTensor(n, 0, buildReshape(im.b, l, *r, shape));
  }
  if (shifts->size() != dims->size())
    return emitError(l) << "roll: " << shifts->size() << " shifts for "
                        << dims->size() << " dims";
  Value v = *x;
  for (auto [s, d] : llvm::zip(*shifts, *dims)) {
    FailureOr<int64_t> dim = normDim(im, n, d, rankOf(v));
    if (failed(dim))
      return failure();
    if (rankOf(v) == 0)
      continue;
    FailureOr<Value> r = buildRoll(im.b, l, v, *dim, s);
    if (failed(r))
      return failure();
    v = *r;
  }
  return im.setTensor(n, 0, v);
}

/// `x` repeated `reps[d]` times along each dim (reps.size() >= rank; the
/// leading extra entries repeat new unit dims), as aten::repeat. A 0 count
/// gives an empty tensor.
FailureOr<Value> repeatValue(Im &im, Location l, Value x,
                             ArrayRef<int64_t> reps) {
  SmallVector<int64_t> s = shapeOf(x);
  if (reps.size() < s.size())
    return emitError(l) << "repeat: " << reps.size()
                        << " repeats for a tensor of rank " << s.size();
  SmallVector<int64_t> shape(reps.size() - s.size(), 1);
  shape.append(s);
  if (llvm::any_of(reps, [](int64_t r) { return r < 0; }))
    return emitError(l) << "repeat: negative repeat count";
  if (llvm::is_contained(reps, 0)) {
    SmallVector<OpFoldResult> sizes;
    for (auto [e, r] : llvm::zip(shape, reps)) {
      if (ShapedType::isDynamic(e))
        return emitError(l) << "unsupported repeat of a dynamic extent";
      sizes.push_back(im.b.getIndexAttr(e * r));
    }
    Type et = elemOf(x);
    Value zero = arith::ConstantOp::create(im.b, l, im.b.getZeroAttr(et));
    return buildFull(im.b, l, sizes, et, zero);
  }
  FailureOr<Value> y = x;
  if (shape.size() != s.size())
    y = buildReshape(im.b, l, x, shape);
  if (failed(y))
    return failure();
  return buildTile(im.b, l, *y, reps);
}

/// repeat(self, repeats); tile(self, dims) (fewer dims than the rank are
/// padded with leading 1s).
LogicalResult repeat(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<int64_t>> reps = im.intListInput(n, 1);
  if (failed(x) || failed(reps))
    return failure();
  if (std::string(n->kind().toUnqualString()) == "tile" &&
      int64_t(reps->size()) < rankOf(*x))
    reps->insert(reps->begin(), rankOf(*x) - reps->size(), 1);
  return im.setTensor(n, 0, repeatValue(im, im.loc(n), *x, *reps));
}

/// The tensors of meshgrid (0-d or 1-D each) broadcast to the grid
/// [n0, n1, ...] ('ij'), or [n1, n0, ...] ('xy').
FailureOr<SmallVector<Value>> meshgridValues(Im &im, Location l,
                                             ArrayRef<Value> xs, bool xy) {
  SmallVector<int64_t> grid;
  for (Value x : xs) {
    if (rankOf(x) > 1)
      return emitError(l) << "meshgrid: expected 0-d or 1-D tensors, got "
                          << x.getType();
    int64_t e = rankOf(x) ? shapeOf(x)[0] : 1;
    if (ShapedType::isDynamic(e))
      return emitError(l) << "unsupported meshgrid of a dynamic extent";
    grid.push_back(e);
  }
  bool swap = xy && grid.size() >= 2;
  if (swap)
    std::swap(grid[0], grid[1]);
  SmallVector<Value> out;
  for (auto [i, x] : llvm::enumerate(xs)) {
    size_t at = swap && i < 2 ? 1 - i : i;
    SmallVector<int64_t> shape(grid.size(), 1);
    shape[at] = grid[at];
    FailureOr<Value> r = buildReshape(im.b, l, x, shape);
    if (failed(r))
      return failure();
    FailureOr<Value> e = buildExpand(im.b, l, *r, grid);
    if (failed(e))
      return failure();
    out.push_back(*e);
  }
  return out;
}

/// meshgrid(tensors, indexing='ij').
LogicalResult meshgrid(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<SmallVector<Value>> xs = tensorList(im, n, 0);
  if (failed(xs))
    return failure();
  bool xy = false;
  if (n->inputs().size() > 1) {
    const TSValue &m = im.get(n->input(1));
    if (m.kind != TSValue::Kind::Str || (m.str != "ij" && m.str != "xy"))
      return emitError(l) << "meshgrid: indexing must be 'ij' or 'xy'";
    xy = m.str == "xy";
  }
  FailureOr<SmallVector<Value>> grids = meshgridValues(im, l, *xs, xy);
  if (failed(grids))
    return failure();
  std::vector<TSValue> out;
  for (Value g : *grids)
    out.push_back(TSValue::tensor(g));
  return im.set(n, 0, TSValue::list(std::move(out)));
}

/// cartesian_prod(tensors): the 1-D tensors' meshgrid ('ij'), flattened and
/// stacked as columns [N, k] (a single tensor is returned as is).
LogicalResult cartesianProd(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<SmallVector<Value>> xs = tensorList(im, n, 0);
  if (failed(xs))
    return failure();
  if (xs->size() == 1)
    return im.setTensor(n, 0, (*xs)[0]);
  FailureOr<SmallVector<Value>> grids = meshgridValues(im, l, *xs, false);
  if (failed(grids))
    return failure();
  for (Value &g : *grids) {
    FailureOr<Value> f = ravelValue(im, l, g);
    if (failed(f))
      return failure();
    g = *f;
  }
  return im.setTensor(n, 0, buildStack(im.b, l, *grids, 1));
}

/// kron(self, other): the Kronecker product; both shapes are padded with
/// leading 1s to one rank, a [A0, B0, A1, B1, ..] outer product is merged
/// into [A0*B0, A1*B1, ..].
LogicalResult kron(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<std::pair<Value, Value>> xy = promotedPair(im, n);
  if (failed(xy))
    return failure();
  SmallVector<int64_t> a = shapeOf(xy->first), c = shapeOf(xy->second);
  size_t r = std::max(a.size(), c.size());
  a.insert(a.begin(), r - a.size(), 1);
  c.insert(c.begin(), r - c.size(), 1);
  SmallVector<int64_t> as, cs, out;
  for (size_t i = 0; i < r; ++i) {
    if (ShapedType::isDynamic(a[i]) || ShapedType::isDynamic(c[i]))
      return im.unsupported(n, "kron of dynamic extents");
    as.append({a[i], 1});
    cs.append({1, c[i]});
    out.push_back(a[i] * c[i]);
  }
  FailureOr<Value> ar = buildReshape(im.b, l, xy->first, as);
  FailureOr<Value> cr = buildReshape(im.b, l, xy->second, cs);
  if (failed(ar) || failed(cr))
    return failure();
  Type et = elemOf(*ar);
  FailureOr<Value> prod =
      et.isInteger(1)
          ? buildLogical(im.b, l, LogicalKind::And, *ar, *cr)
          : buildElementwiseBinary(im.b, l, BinaryOpKind::Mul, *ar, *cr);
  if (failed(prod))
    return failure();
  return im.setTensor(n, 0, buildReshape(im.b, l, *prod, out));
}

/// block_diag(tensors): the (promoted) 0-d, 1-D ([1, N]) and 2-D blocks
/// along the diagonal of a zero matrix.
LogicalResult blockDiag(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<SmallVector<Value>> xs = tensorList(im, n, 0);
  if (failed(xs))
    return failure();
  int64_t cols = 0;
  for (Value &x : *xs) {
    SmallVector<int64_t> s = shapeOf(x);
    if (s.size() > 2)
      return emitError(l) << "block_diag: expected tensors of rank <= 2, got "
                          << x.getType();
    if (s.size() < 2) {
      FailureOr<Value> r = buildReshape(im.b, l, x, {1, s.empty() ? 1 : s[0]});
      if (failed(r))
        return failure();
      x = *r;
    }
    SmallVector<int64_t> s2 = shapeOf(x);
    if (ShapedType::isDynamic(s2[0]) || ShapedType::isDynamic(s2[1]))
      return im.unsupported(n, "block_diag of dynamic extents");
    cols += s2[1];
  }
  if (xs->empty())
    return emitError(l) << "unsupported block_diag of no tensors";
  SmallVector<Value> rows;
  int64_t at = 0;
  for (Value x : *xs) {
    int64_t w = shapeOf(x)[1];
    FailureOr<Value> p = buildPad(im.b, l, x, {0, at}, {0, cols - at - w},
                                  PadMode::Constant, 0.0);
    if (failed(p))
      return failure();
    rows.push_back(*p);
    at += w;
  }
  return im.setTensor(n, 0, buildConcat(im.b, l, rows, 0));
}

/// pixel_shuffle / pixel_unshuffle(self, factor) on [*, C, H, W]: the
/// leading dims are merged into one batch dim around the depth-to-space
/// (space-to-depth) move in CRD order.
LogicalResult pixelShuffle(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> f = im.intInput(n, 1);
  if (failed(x) || failed(f))
    return failure();
  bool up = std::string(n->kind().toUnqualString()) == "pixel_shuffle";
  SmallVector<int64_t> s = shapeOf(*x);
  if (s.size() < 3 || !cast<RankedTensorType>(x->getType()).hasStaticShape())
    return emitError(l) << n->kind().toUnqualString()
                        << ": expected a static tensor of rank >= 3, got "
                        << x->getType();
  int64_t batch = 1;
  for (size_t i = 0; i + 3 < s.size(); ++i)
    batch *= s[i];
  int64_t c = s[s.size() - 3], h = s[s.size() - 2], w = s[s.size() - 1];
  FailureOr<Value> r = buildReshape(im.b, l, *x, {batch, c, h, w});
  if (failed(r))
    return failure();
  r = up ? buildDepthToSpace(im.b, l, *r, *f, /*crd=*/true)
         : buildSpaceToDepth(im.b, l, *r, *f, /*crd=*/true);
  if (failed(r))
    return failure();
  SmallVector<int64_t> out(s.begin(), s.end() - 3), moved = shapeOf(*r);
  out.append(moved.begin() + 1, moved.end());
  return im.setTensor(n, 0, buildReshape(im.b, l, *r, out));
}

/// channel_shuffle(self, groups) on [N, C, *]: [N, g, C/g, *] with the
/// group dims swapped.
LogicalResult channelShuffle(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> g = im.intInput(n, 1);
  if (failed(x) || failed(g))
    return failure();
  SmallVector<int64_t> s = shapeOf(*x);
  if (s.size() < 3 || !cast<RankedTensorType>(x->getType()).hasStaticShape() ||
      *g < 1 || s[1] % *g)
    return emitError(l) << "channel_shuffle: " << *g
                        << " groups do not divide the channels of "
                        << x->getType();
  SmallVector<int64_t> split = {s[0], *g, s[1] / *g};
  split.append(s.begin() + 2, s.end());
  FailureOr<Value> r = buildReshape(im.b, l, *x, split);
  if (failed(r))
    return failure();
  r = swapDims(im, l, *r, 1, 2);
  if (failed(r))
    return failure();
  return im.setTensor(n, 0, buildReshape(im.b, l, *r, s));
}

/// unfold(self, dimension, size, step) (Tensor.unfold): the windows along
/// `dimension` replace it, each window's elements in a new last dim. A 0-d
/// tensor is read as [1].
LogicalResult unfold(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> d = im.intInput(n, 1), size = im.intInput(n, 2),
                     step = im.intInput(n, 3);
  if (failed(x) || failed(d) || failed(size) || failed(step))
    return failure();
  int64_t r = rankOf(*x);
  FailureOr<int64_t> dim = normDim(im, n, *d, r);
  if (failed(dim))
    return failure();
  Value v = *x;
  if (r == 0) {
    FailureOr<Value> one = buildReshape(im.b, l, v, {1});
    if (failed(one))
      return failure();
    v = *one;
  }
  FailureOr<Value> w = buildSlidingWindows(im.b, l, v, *dim, *size, *step);
  if (failed(w))
    return failure();
  if (r == 0)
    return im.setTensor(n, 0, buildReshape(im.b, l, *w, {*size}));
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i <= r; ++i)
    if (i != *dim + 1)
      perm.push_back(i);
  perm.push_back(*dim + 1);
  return im.setTensor(n, 0, buildTranspose(im.b, l, *w, perm));
}

/// diagonal/diagonal_copy(self, offset, dim1, dim2), linalg_diagonal(A, *,
/// offset, dim1, dim2).
LogicalResult diagonal(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> off = im.intInput(n, 1), d1 = im.intInput(n, 2),
                     d2 = im.intInput(n, 3);
  if (failed(x) || failed(off) || failed(d1) || failed(d2))
    return failure();
  int64_t r = rankOf(*x);
  FailureOr<int64_t> dim1 = normDim(im, n, *d1, r),
                     dim2 = normDim(im, n, *d2, r);
  if (failed(dim1) || failed(dim2))
    return failure();
  return im.setTensor(n, 0,
                      buildDiagonal(im.b, im.loc(n), *x, *off, *dim1, *dim2));
}

/// diagonal_scatter(self, src, offset, dim1, dim2).
LogicalResult diagonalScatter(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> off = im.intInput(n, 2), d1 = im.intInput(n, 3),
                     d2 = im.intInput(n, 4);
  if (failed(x) || failed(off) || failed(d1) || failed(d2))
    return failure();
  FailureOr<Value> src = im.tensorOf(im.get(n->input(1)), elemOf(*x), l);
  if (failed(src))
    return failure();
  int64_t r = rankOf(*x);
  FailureOr<int64_t> dim1 = normDim(im, n, *d1, r),
                     dim2 = normDim(im, n, *d2, r);
  if (failed(dim1) || failed(dim2))
    return failure();
  return im.setTensor(
      n, 0, buildDiagonalScatter(im.b, l, *x, *src, *off, *dim1, *dim2));
}

/// `x` (rank r >= 1) placed on the diagonal at `offset` of the dims `dim1`,
/// `dim2` (in [0, r + 1)) of a zero tensor of rank r + 1, as diag_embed.
FailureOr<Value> diagEmbedValue(Im &im, Location l, Value x, int64_t offset,
                                int64_t dim1, int64_t dim2) {
  SmallVector<int64_t> s = shapeOf(x);
  if (s.empty() || ShapedType::isDynamic(s.back()))
    return emitError(l) << "diag_embed: expected a tensor of rank >= 1 with a "
                           "static last extent, got "
                        << x.getType();
  if (dim1 == dim2)
    return emitError(l) << "diag_embed: dims must differ";
  int64_t m = s.back() + std::abs(offset);
  int64_t outRank = s.size() + 1;
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0, src = 0; d < outRank; ++d)
    sizes.push_back(d == dim1 || d == dim2
                        ? OpFoldResult(im.b.getIndexAttr(m))
                        : tensor::getMixedSize(im.b, l, x, src++));
  Type et = elemOf(x);
  Value zero = arith::ConstantOp::create(im.b, l, im.b.getZeroAttr(et));
  FailureOr<Value> zeros = buildFull(im.b, l, sizes, et, zero);
  if (failed(zeros))
    return failure();
  return buildDiagonalScatter(im.b, l, *zeros, x, offset, dim1, dim2);
}

/// diag_embed(self, offset, dim1, dim2).
LogicalResult diagEmbed(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> off = im.intInput(n, 1), d1 = im.intInput(n, 2),
                     d2 = im.intInput(n, 3);
  if (failed(x) || failed(off) || failed(d1) || failed(d2))
    return failure();
  int64_t r = rankOf(*x) + 1;
  FailureOr<int64_t> dim1 = normDim(im, n, *d1, r),
                     dim2 = normDim(im, n, *d2, r);
  if (failed(dim1) || failed(dim2))
    return failure();
  return im.setTensor(n, 0,
                      diagEmbedValue(im, im.loc(n), *x, *off, *dim1, *dim2));
}

/// diag(self, diagonal): a 1-D tensor becomes the diagonal of a square
/// matrix, a 2-D one gives its diagonal. diagflat(self, offset): the
/// flattened tensor on the diagonal.
LogicalResult diag(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> off = im.intInput(n, 1);
  if (failed(x) || failed(off))
    return failure();
  if (std::string(n->kind().toUnqualString()) == "diagflat") {
    FailureOr<Value> flat = ravelValue(im, l, *x);
    if (failed(flat))
      return failure();
    return im.setTensor(n, 0, diagEmbedValue(im, l, *flat, *off, 0, 1));
  }
  if (rankOf(*x) == 1)
    return im.setTensor(n, 0, diagEmbedValue(im, l, *x, *off, 0, 1));
  if (rankOf(*x) != 2)
    return emitError(l) << "diag: expected a 1-D or 2-D tensor, got "
                        << x->getType();
  return im.setTensor(n, 0, buildDiagonal(im.b, l, *x, *off, 0, 1));
}

/// im2col(self, kernel_size, dilation, padding, stride) on [N, C, H, W] or
/// [C, H, W] (torch.nn.functional.unfold).
LogicalResult im2col(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  SmallVector<SmallVector<int64_t>> pairs;
  for (unsigned i = 1; i <= 4; ++i) {
    FailureOr<SmallVector<int64_t>> p = perDim(im, n, i, 2, 0);
    if (failed(p))
      return failure();
    pairs.push_back(*p);
  }
  bool batched = rankOf(*x) == 4;
  if (!batched && rankOf(*x) != 3)
    return emitError(l) << "im2col: expected a 3-D or 4-D tensor, got "
                        << x->getType();
  Value v = *x;
  if (!batched) {
    FailureOr<Value> u = buildUnsqueeze(im.b, l, v, 0);
    if (failed(u))
      return failure();
    v = *u;
  }
  FailureOr<Value> cols =
      buildIm2Col(im.b, l, v, pairs[0], pairs[1], pairs[2], pairs[3]);
  if (failed(cols) || batched)
    return im.setTensor(n, 0, cols);
  return im.setTensor(n, 0, buildSqueeze(im.b, l, *cols, {0}));
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
      {"aten::view_copy", reshape},
      {"aten::permute_copy", permute},
      {"aten::transpose_copy", transpose},
      {"aten::swapaxes", swapaxes},
      {"aten::swapdims", swapaxes},
      {"aten::expand_copy", expand},
      {"aten::squeeze_copy", squeeze},
      {"aten::unsqueeze_copy", unsqueeze},
      {"aten::alias_copy", identity},
      {"aten::resolve_conj", identity},
      {"aten::resolve_neg", identity},
      {"aten::tril", tril},
      {"aten::triu", triu},
      {"aten::t_copy", matrixTranspose},
      {"aten::mT", matrixTranspose},
      {"aten::mH", matrixTranspose},
      {"aten::adjoint", matrixTranspose},
      {"aten::matrix_H", matrixTranspose},
      {"aten::numpy_T", numpyT},
      {"aten::movedim", movedim},
      {"aten::moveaxis", movedim},
      {"aten::ravel", ravel},
      {"aten::unflatten", unflatten},
      {"aten::atleast_1d", atleast1d},
      {"aten::atleast_2d", atleast2d},
      {"aten::atleast_3d", atleast3d},
      {"aten::hstack", stackFamily},
      {"aten::vstack", stackFamily},
      {"aten::dstack", stackFamily},
      {"aten::column_stack", stackFamily},
      {"aten::fliplr", flipLrUd},
      {"aten::flipud", flipLrUd},
      {"aten::rot90", rot90},
      {"aten::roll", roll},
      {"aten::repeat", repeat},
      {"aten::tile", repeat},
      {"aten::meshgrid", meshgrid},
      {"aten::cartesian_prod", cartesianProd},
      {"aten::kron", kron},
      {"aten::block_diag", blockDiag},
      {"aten::pixel_shuffle", pixelShuffle},
      {"aten::pixel_unshuffle", pixelShuffle},
      {"aten::channel_shuffle", channelShuffle},
      {"aten::unfold", unfold},
      {"aten::unfold_copy", unfold},
      {"aten::im2col", im2col},
      {"aten::diagonal", diagonal},
      {"aten::diagonal_copy", diagonal},
      {"aten::linalg_diagonal", diagonal},
      {"aten::diagonal_scatter", diagonalScatter},
      {"aten::diag_embed", diagEmbed},
      {"aten::diag", diag},
      {"aten::diagflat", diag},
  });
}
