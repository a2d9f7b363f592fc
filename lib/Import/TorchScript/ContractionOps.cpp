//===- ContractionOps.cpp - aten matmul, linear, addmm --------------------===//
//
// Matrix products: `matmul`/`mm`/`bmm`, `linear`, `addmm`, `t`, the
// vector forms (dot, vdot, mv, outer, inner, vecdot), the scaled sums
// (addmv, addr, addbmm, baddbmm), tensordot, einsum, multi_dot,
// matrix_power, cross products and bilinear.
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
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/LinearAlgebra.h"
#include "mlprog/Import/Common/MatrixFactorization.h"
#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

LogicalResult matmul(Im &im, Node *n) {
  FailureOr<Value> a = im.tensorInput(n, 0), c = im.tensorInput(n, 1);
  if (failed(a) || failed(c))
    return failure();
  return im.setTensor(n, 0, buildMatMul(im.b, im.loc(n), *a, *c));
}

LogicalResult transposeLast2(Im &im, Node *n, Value x, FailureOr<Value> &out) {
  int64_t r = rankOf(x);
  if (r < 2) {
    out = x;
    return success();
  }
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < r; ++i)
    perm.push_back(i);
  std::swap(perm[r - 1], perm[r - 2]);
  out = buildTranspose(im.b, im.loc(n), x, perm);
  return failure(failed(out));
}

LogicalResult linear(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0), w = im.tensorInput(n, 1);
  if (failed(x) || failed(w))
    return failure();
  FailureOr<Value> wt;
  if (failed(transposeLast2(im, n, *w, wt)))
    return failure();
  FailureOr<Value> y = buildMatMul(im.b, l, *x, *wt);
  if (failed(y))
    return failure();
  if (!im.isNoneInput(n, 2)) {
    FailureOr<Value> bias = im.tensorInput(n, 2);
    if (failed(bias))
      return failure();
    y = buildElementwiseBinary(im.b, l, BinaryOpKind::Add, *y, *bias);
  }
  return im.setTensor(n, 0, y);
}

LogicalResult addmm(Im &im, Node *n) {
  FailureOr<Value> c = im.tensorInput(n, 0), a = im.tensorInput(n, 1),
                   m = im.tensorInput(n, 2);
  FailureOr<double> beta = numberOr(im, n, 3, 1.0),
                    alpha = numberOr(im, n, 4, 1.0);
  if (failed(c) || failed(a) || failed(m) || failed(beta) || failed(alpha))
    return failure();
  return im.setTensor(
      n, 0,
      buildGemm(im.b, im.loc(n), *a, *m, *c, *alpha, *beta, false, false));
}

LogicalResult transposeT(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  FailureOr<Value> out;
  if (failed(transposeLast2(im, n, *x, out)))
    return failure();
  return im.setTensor(n, 0, out);
}

/// `v` * `s` (a float or int constant of v's element type); `v` when s is 1.
FailureOr<Value> scaled(Im &im, Location l, Value v, double s) {
  if (s == 1)
    return v;
  Type et = elemOf(v);
  TSValue c =
      isa<FloatType>(et) ? TSValue::ofFloat(s) : TSValue::ofInt(int64_t(s));
  FailureOr<Value> ct = im.tensorOf(c, et, l);
  if (failed(ct))
    return failure();
  return buildElementwiseBinary(im.b, l, BinaryOpKind::Mul, v, *ct);
}

/// beta * self + alpha * product, the tail of addmv/addr/baddbmm/addbmm
/// (self, broadcastable to the product, is ignored when beta is 0, so that
/// NaN and inf there do not propagate).
FailureOr<Value> addScaled(Im &im, Location l, Value self, Value product,
                           double beta, double alpha) {
  FailureOr<Value> p = scaled(im, l, product, alpha);
  if (failed(p) || beta == 0)
    return p;
  FailureOr<Value> c = buildConvertElementType(im.b, l, self, elemOf(*p));
  if (failed(c))
    return failure();
  FailureOr<Value> s = scaled(im, l, *c, beta);
  if (failed(s))
    return failure();
  return buildElementwiseBinary(im.b, l, BinaryOpKind::Add, *s, *p);
}

/// dot(self, tensor), vdot (real: the same), mv(self, vec): matmul of 1-D
/// and 2-D operands.
LogicalResult matmulPair(Im &im, Node *n) {
  FailureOr<std::pair<Value, Value>> ab = promotedPair(im, n);
  if (failed(ab))
    return failure();
  return im.setTensor(n, 0,
                      buildMatMul(im.b, im.loc(n), ab->first, ab->second));
}

/// addmv(self, mat, vec, *, beta, alpha), baddbmm(self, batch1, batch2, *,
/// beta, alpha): beta * self + alpha * matmul(input 1, input 2).
LogicalResult addMatMul(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> c = im.tensorInput(n, 0), a = im.tensorInput(n, 1),
                   m = im.tensorInput(n, 2);
  FailureOr<double> beta = numberOr(im, n, 3, 1.0),
                    alpha = numberOr(im, n, 4, 1.0);
  if (failed(c) || failed(a) || failed(m) || failed(beta) || failed(alpha))
    return failure();
  FailureOr<Value> p = buildMatMul(im.b, l, *a, *m);
  if (failed(p))
    return failure();
  return im.setTensor(n, 0, addScaled(im, l, *c, *p, *beta, *alpha));
}

/// addbmm(self, batch1 [B, N, M], batch2 [B, M, P], *, beta, alpha):
/// beta * self + alpha * sum over b of batch1[b] @ batch2[b].
LogicalResult addbmm(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> c = im.tensorInput(n, 0), a = im.tensorInput(n, 1),
                   m = im.tensorInput(n, 2);
  FailureOr<double> beta = numberOr(im, n, 3, 1.0),
                    alpha = numberOr(im, n, 4, 1.0);
  if (failed(c) || failed(a) || failed(m) || failed(beta) || failed(alpha))
    return failure();
  FailureOr<Value> p = buildEinsum(im.b, l, "bij,bjk->ik", {*a, *m});
  if (failed(p))
    return failure();
  return im.setTensor(n, 0, addScaled(im, l, *c, *p, *beta, *alpha));
}

/// outer(self [N], vec2 [M]) -> [N, M].
FailureOr<Value> outerProduct(Im &im, Location l, Value a, Value v) {
  FailureOr<Value> col = buildUnsqueeze(im.b, l, a, 1);
  if (failed(col))
    return failure();
  return buildElementwiseBinary(im.b, l, BinaryOpKind::Mul, *col, v);
}

/// outer(self, vec2) (also ger).
LogicalResult outer(Im &im, Node *n) {
  FailureOr<std::pair<Value, Value>> ab = promotedPair(im, n);
  if (failed(ab))
    return failure();
  return im.setTensor(n, 0, outerProduct(im, im.loc(n), ab->first, ab->second));
}

/// addr(self, vec1, vec2, *, beta, alpha): beta * self + alpha * outer.
LogicalResult addr(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> c = im.tensorInput(n, 0), a = im.tensorInput(n, 1),
                   v = im.tensorInput(n, 2);
  FailureOr<double> beta = numberOr(im, n, 3, 1.0),
                    alpha = numberOr(im, n, 4, 1.0);
  if (failed(c) || failed(a) || failed(v) || failed(beta) || failed(alpha))
    return failure();
  if (elemOf(*c).isInteger(1))
    return im.unsupported(n, "addr of bool tensors");
  FailureOr<Value> p = outerProduct(im, l, *a, *v);
  if (failed(p))
    return failure();
  return im.setTensor(n, 0, addScaled(im, l, *c, *p, *beta, *alpha));
}

/// Einsum letters for generated equations.
char letter(int64_t i) { return i < 26 ? char('a' + i) : char('A' + i - 26); }

/// tensordot(self, other, dims_self, dims_other): contracts the listed dims
/// pairwise; the result has self's other dims, then other's.
FailureOr<Value> tensordotOf(Im &im, Location l, Value a, Value c,
                             ArrayRef<int64_t> dimsA, ArrayRef<int64_t> dimsC) {
  int64_t ra = rankOf(a), rc = rankOf(c);
  if (dimsA.size() != dimsC.size() || ra + rc > 52)
    return emitError(l) << "tensordot: " << dimsA.size() << " and "
                        << dimsC.size() << " contracted dims";
  std::string ta(ra, ' '), tc(rc, ' '), out;
  int64_t next = 0;
  for (auto [da, dc] : llvm::zip(dimsA, dimsC)) {
    int64_t ia = da < 0 ? da + ra : da, ic = dc < 0 ? dc + rc : dc;
    if (ia < 0 || ia >= ra || ic < 0 || ic >= rc || ta[ia] != ' ' ||
        tc[ic] != ' ')
      return emitError(l) << "tensordot: dims out of range or repeated";
    ta[ia] = tc[ic] = letter(next++);
  }
  // aten broadcasts a contracted extent of 1 against the other operand's.
  SmallVector<int64_t> shapeA(cast<RankedTensorType>(a.getType()).getShape()),
      shapeC(cast<RankedTensorType>(c.getType()).getShape());
  for (auto [da, dc] : llvm::zip(dimsA, dimsC)) {
    int64_t &ea = shapeA[da < 0 ? da + ra : da];
    int64_t &ec = shapeC[dc < 0 ? dc + rc : dc];
    if (ea == 1 && ec != 1)
      ea = ec;
    else if (ec == 1 && ea != 1)
      ec = ea;
  }
  for (auto [v, shape] : {std::pair(&a, &shapeA), std::pair(&c, &shapeC)}) {
    if (llvm::equal(*shape, cast<RankedTensorType>(v->getType()).getShape()))
      continue;
    for (int64_t &e : *shape)
      if (ShapedType::isDynamic(e))
        e = -1;
    FailureOr<Value> expanded = buildExpand(im.b, l, *v, *shape);
    if (failed(expanded))
      return failure();
    *v = *expanded;
  }
  for (char &ch : ta)
    if (ch == ' ')
      out.push_back(ch = letter(next++));
  for (char &ch : tc)
    if (ch == ' ')
      out.push_back(ch = letter(next++));
  return buildEinsum(im.b, l, ta + "," + tc + "->" + out, {a, c});
}

LogicalResult tensordot(Im &im, Node *n) {
  FailureOr<std::pair<Value, Value>> ab = promotedPair(im, n);
  FailureOr<SmallVector<int64_t>> da = im.intListInput(n, 2),
                                  dc = im.intListInput(n, 3);
  if (failed(ab) || failed(da) || failed(dc))
    return failure();
  return im.setTensor(
      n, 0, tensordotOf(im, im.loc(n), ab->first, ab->second, *da, *dc));
}

/// inner(self, other): contracts the last dims (a product with a 0-d
/// operand).
LogicalResult inner(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<std::pair<Value, Value>> ab = promotedPair(im, n);
  if (failed(ab))
    return failure();
  auto [a, c] = *ab;
  if (rankOf(a) == 0 || rankOf(c) == 0)
    return im.setTensor(
        n, 0, buildElementwiseBinary(im.b, l, BinaryOpKind::Mul, a, c));
  return im.setTensor(n, 0, tensordotOf(im, l, a, c, {-1}, {-1}));
}

/// linalg_vecdot(x, y, *, dim): sum over dim of x * y (broadcasting).
LogicalResult vecdot(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<std::pair<Value, Value>> ab = promotedPair(im, n);
  FailureOr<int64_t> dim = im.intInput(n, 2);
  if (failed(ab) || failed(dim))
    return failure();
  FailureOr<Value> p =
      buildElementwiseBinary(im.b, l, BinaryOpKind::Mul, ab->first, ab->second);
  if (failed(p))
    return failure();
  FailureOr<int64_t> d = normDim(im, n, *dim, rankOf(*p));
  if (failed(d))
    return failure();
  return im.setTensor(n, 0,
                      buildReduce(im.b, l, ReduceKind::Sum, *p, {*d}, false));
}

/// einsum(equation, tensors, *, path): the path only orders the products.
LogicalResult einsum(Im &im, Node *n) {
  Location l = im.loc(n);
  const TSValue &eq = im.get(n->input(0));
  if (eq.kind != TSValue::Kind::Str)
    return im.unsupported(n, "einsum equation unknown at import time");
  FailureOr<std::vector<TSValue>> list = im.listInput(n, 1);
  if (failed(list))
    return failure();
  SmallVector<const TSValue *> ptrs;
  for (const TSValue &v : *list)
    ptrs.push_back(&v);
  Type et = im.promote(ptrs);
  SmallVector<Value> operands;
  for (const TSValue &v : *list) {
    FailureOr<Value> t = im.tensorOf(v, et, l);
    if (failed(t))
      return failure();
    operands.push_back(*t);
  }
  return im.setTensor(n, 0, buildEinsum(im.b, l, eq.str, operands));
}

/// linalg_multi_dot(tensors): left to right matmuls (a 1-D first operand is
/// a row, a 1-D last one a column, as buildMatMul reads them).
LogicalResult multiDot(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<std::vector<TSValue>> list = im.listInput(n, 0);
  if (failed(list))
    return failure();
  if (list->size() < 2)
    return emitError(l) << "linalg_multi_dot needs at least 2 tensors";
  FailureOr<Value> acc = im.asTensor((*list)[0], l);
  for (size_t i = 1; i < list->size() && succeeded(acc); ++i) {
    FailureOr<Value> t = im.asTensor((*list)[i], l);
    if (failed(t))
      return failure();
    acc = buildMatMul(im.b, l, *acc, *t);
  }
  return im.setTensor(n, 0, acc);
}

/// linalg_matrix_power(self, n) (Common buildMatrixPower).
LogicalResult matrixPower(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> k = im.intInput(n, 1);
  if (failed(x) || failed(k))
    return failure();
  return im.setTensor(n, 0, buildMatrixPower(im.b, im.loc(n), *x, *k));
}

/// cross(self, other, dim=None) (None: the first dim of extent 3) and
/// linalg_cross(self, other, *, dim=-1).
LogicalResult cross(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<std::pair<Value, Value>> ab = promotedPair(im, n);
  if (failed(ab))
    return failure();
  int64_t dim = -1;
  if (!im.isNoneInput(n, 2)) {
    FailureOr<int64_t> d = im.intInput(n, 2);
    if (failed(d))
      return failure();
    dim = *d;
  } else {
    auto type = cast<RankedTensorType>(ab->first.getType());
    auto it = llvm::find(type.getShape(), 3);
    if (it == type.getShape().end())
      return emitError(l) << "cross: no dim of extent 3 in " << type;
    dim = it - type.getShape().begin();
    dim += std::max<int64_t>(0, rankOf(ab->second) - type.getRank());
  }
  return im.setTensor(n, 0, buildCross(im.b, l, ab->first, ab->second, dim));
}

/// bilinear(input1 [..., I], input2 [..., J], weight [O, I, J], bias [O]?):
/// y[..., o] = sum_ij input1[..., i] weight[o, i, j] input2[..., j] + bias.
LogicalResult bilinear(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> a = im.tensorInput(n, 0), c = im.tensorInput(n, 1),
                   w = im.tensorInput(n, 2);
  if (failed(a) || failed(c) || failed(w))
    return failure();
  FailureOr<Value> y =
      buildEinsum(im.b, l, "...i,oij,...j->...o", {*a, *w, *c});
  if (failed(y))
    return failure();
  if (!im.isNoneInput(n, 3)) {
    FailureOr<Value> bias = im.tensorInput(n, 3);
    if (failed(bias))
      return failure();
    y = buildElementwiseBinary(im.b, l, BinaryOpKind::Add, *y, *bias);
  }
  return im.setTensor(n, 0, y);
}

} // namespace

void mlprog::torchscript::registerContractionOps(OpTable &table) {
  table.add({
      {"aten::matmul", matmul},
      {"aten::mm", matmul},
      {"aten::bmm", matmul},
      {"aten::linear", linear},
      {"aten::addmm", addmm},
      {"aten::t", transposeT},
      {"aten::dot", matmulPair},
      {"aten::vdot", matmulPair},
      {"aten::mv", matmulPair},
      {"aten::addmv", addMatMul},
      {"aten::baddbmm", addMatMul},
      {"aten::addbmm", addbmm},
      {"aten::outer", outer},
      {"aten::ger", outer},
      {"aten::addr", addr},
      {"aten::inner", inner},
      {"aten::tensordot", tensordot},
      {"aten::linalg_vecdot", vecdot},
      {"aten::einsum", einsum},
      {"aten::linalg_multi_dot", multiDot},
      {"aten::linalg_matrix_power", matrixPower},
      {"aten::cross", cross},
      {"aten::linalg_cross", cross},
      {"aten::bilinear", bilinear},
  });
}
