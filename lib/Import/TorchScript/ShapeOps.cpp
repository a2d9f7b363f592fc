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

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// view/reshape(self, shape): entries unknown at import time count as -1.
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
    } else {
      shape.push_back(-1);
      ++unknown;
    }
  }
  if (unknown + llvm::count(shape, -1) - unknown > 1 && unknown > 0)
    return im.unsupported(n, "reshape with several extents unknown at "
                             "import time");
  auto type = cast<RankedTensorType>(x->getType());
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
    return im.unsupported(n, "flatten with several dynamic extents");
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

LogicalResult expand(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<int64_t>> shape = im.intListInput(n, 1);
  if (failed(x) || failed(shape))
    return failure();
  return im.setTensor(n, 0, buildExpand(im.b, im.loc(n), *x, *shape));
}

LogicalResult expandAs(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0), y = im.tensorInput(n, 1);
  if (failed(x) || failed(y))
    return failure();
  auto yt = cast<RankedTensorType>(y->getType());
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
  return im.setTensor(n, 0, buildExpand(im.b, l, *src, type.getShape()));
}

/// pad(self, pad, mode='constant', value=None), constant_pad_nd(self, pad,
/// value=0) and reflection_pad{1,2,3}d / replication_pad{1,2,3}d(self,
/// pad). `pad` lists (before, after) widths from the last dim backwards;
/// modes constant, reflect, replicate and circular. Negative widths (crops)
/// are unsupported.
LogicalResult pad(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<int64_t>> widths = im.intListInput(n, 1);
  if (failed(x) || failed(widths))
    return failure();
  int64_t r = rankOf(*x);
  int64_t pairs = int64_t(widths->size()) / 2;
  if (widths->size() % 2 || pairs > r)
    return emitError(l) << "pad: " << widths->size() << " widths for a rank-"
                        << r << " tensor (need an even number, at most "
                        << 2 * r << ")";
  StringRef name = n->kind().toUnqualString();
  PadMode mode = PadMode::Constant;
  double value = 0.0;
  std::optional<unsigned> valueArg;
  if (name.starts_with("reflection")) {
    mode = PadMode::Reflect;
  } else if (name.starts_with("replication")) {
    mode = PadMode::Replicate;
  } else if (name == "constant_pad_nd") {
    valueArg = 2;
  } else {
    const std::string &m = im.get(n->input(2)).str;
    if (m == "reflect")
      mode = PadMode::Reflect;
    else if (m == "replicate")
      mode = PadMode::Replicate;
    else if (m == "circular")
      mode = PadMode::Wrap;
    else if (m == "constant")
      valueArg = 3;
    else
      return im.unsupported(n, "pad mode '" + m + "'");
  }
  if (valueArg && *valueArg < n->inputs().size() &&
      !im.isNoneInput(n, *valueArg)) {
    FailureOr<double> v = im.numberInput(n, *valueArg);
    if (failed(v))
      return failure();
    value = *v;
  }
  SmallVector<int64_t> low(r, 0), high(r, 0);
  for (int64_t i = 0; i < pairs; ++i) {
    low[r - 1 - i] = (*widths)[2 * i];
    high[r - 1 - i] = (*widths)[2 * i + 1];
    if (low[r - 1 - i] < 0 || high[r - 1 - i] < 0)
      return im.unsupported(n, "negative pad widths (cropping)");
  }
  return im.setTensor(n, 0, buildPad(im.b, l, *x, low, high, mode, value));
}

} // namespace

void mlprog::torchscript::registerShapeOps(OpTable &table) {
  table.add({
      {"aten::view", reshape},
      {"aten::reshape", reshape},
      {"aten::flatten", flatten},
      {"aten::permute", permute},
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
