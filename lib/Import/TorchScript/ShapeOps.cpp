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
  if (mode == PadMode::Wrap) {
    // torch crops by the negative widths first and wraps what is left
    // (_pad_circular), where ONNX's wrap reads the uncropped input.
    SmallVector<OpFoldResult> cropLow, cropHigh;
    bool crops = false;
    for (OpFoldResult &w : llvm::concat<OpFoldResult>(low, high)) {
      std::optional<int64_t> c = getConstantIntValue(w);
      if (!c)
        return im.unsupported(n, "circular pad of run-time widths");
      crops |= *c < 0;
    }
    if (crops) {
      auto part = [&](ArrayRef<OpFoldResult> ws, bool negative) {
        SmallVector<OpFoldResult> out;
        for (OpFoldResult w : ws) {
          int64_t c = *getConstantIntValue(w);
          out.push_back(im.b.getIndexAttr(negative ? std::min<int64_t>(c, 0)
                                                   : std::max<int64_t>(c, 0)));
        }
        return out;
      };
      FailureOr<Value> cropped =
          buildPadDynamic(im.b, l, *x, part(low, true), part(high, true),
                          PadMode::Constant, fill);
      if (failed(cropped))
        return failure();
      return im.setTensor(n, 0,
                          buildPadDynamic(im.b, l, *cropped, part(low, false),
                                          part(high, false), mode, fill));
    }
  }
  return im.setTensor(n, 0,
                      buildPadDynamic(im.b, l, *x, low, high, mode, fill));
}

/// The identity: alias_copy, resolve_conj/resolve_neg (real tensors).
LogicalResult identity(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, *x);
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
  });
}
