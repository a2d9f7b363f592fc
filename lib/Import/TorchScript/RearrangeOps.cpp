//===- RearrangeOps.cpp - aten ops that rearrange elements ----------------===//
//
// Ops that move or replicate elements without arithmetic: tril/triu,
// fliplr/flipud/rot90/roll, repeat/tile, meshgrid/cartesian_prod, kron,
// block_diag, pixel/channel shuffle, unfold/im2col, and the diagonal family
// (diagonal, diagonal_scatter, diag_embed, diag, diagflat).
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

/// fft_fftshift/fft_ifftshift(self, dim=None): a roll by extent / 2 (by
/// -(extent / 2) for ifftshift) along each dim (every dim when None).
LogicalResult fftShift(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  bool inverse = std::string(n->kind().toUnqualString()) == "fft_ifftshift";
  SmallVector<int64_t> dims;
  if (im.isNoneInput(n, 1)) {
    dims = llvm::to_vector(llvm::seq<int64_t>(0, rankOf(*x)));
  } else {
    FailureOr<SmallVector<int64_t>> ds = im.intListInput(n, 1);
    if (failed(ds))
      return failure();
    dims = *ds;
  }
  Value v = *x;
  for (int64_t d : dims) {
    FailureOr<int64_t> dim = normDim(im, n, d, rankOf(v));
    if (failed(dim))
      return failure();
    if (rankOf(v) == 0)
      continue;
    int64_t e = shapeOf(v)[*dim];
    if (ShapedType::isDynamic(e))
      return im.unsupported(n, "fftshift along a dynamic extent");
    FailureOr<Value> r =
        buildRoll(im.b, l, v, *dim, inverse ? -(e / 2) : e / 2);
    if (failed(r))
      return failure();
    v = *r;
  }
  return im.setTensor(n, 0, v);
}

} // namespace

void mlprog::torchscript::registerRearrangeOps(OpTable &table) {
  table.add({
      {"aten::fft_fftshift", fftShift},
      {"aten::fft_ifftshift", fftShift},
      {"aten::tril", tril},
      {"aten::triu", triu},
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
