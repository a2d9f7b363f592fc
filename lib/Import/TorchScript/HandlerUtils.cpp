//===- HandlerUtils.cpp - Argument helpers shared by aten handlers --------===//
//
// Dims, number and per-dimension list arguments, and the promoted binary op
// of the aten handler families.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"

#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using torch::jit::Node;

namespace mlprog::torchscript {

int64_t rankOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank();
}

Type elemOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

FailureOr<int64_t> normDim(Importer &im, Node *n, int64_t dim, int64_t rank,
                           bool inclusive) {
  int64_t r = inclusive ? rank + 1 : rank;
  if (r == 0 && (dim == 0 || dim == -1))
    return 0;
  if (dim < -r || dim >= r)
    return emitError(im.loc(n))
           << "dim " << dim << " out of range for rank " << rank;
  return dim < 0 ? dim + r : dim;
}

FailureOr<double> numberOr(Importer &im, Node *n, unsigned i, double def) {
  if (im.isNoneInput(n, i))
    return def;
  return im.numberInput(n, i);
}

FailureOr<std::pair<Value, Value>> promotedPair(Importer &im, Node *n) {
  Location l = im.loc(n);
  const TSValue &a = im.get(n->input(0)), &c = im.get(n->input(1));
  Type et = im.promote({&a, &c});
  FailureOr<Value> x = im.tensorOf(a, et, l), y = im.tensorOf(c, et, l);
  if (failed(x) || failed(y))
    return failure();
  return std::make_pair(*x, *y);
}

LogicalResult binary(Importer &im, Node *n, BinaryOpKind kind, bool hasAlpha,
                     bool reverse) {
  Location l = im.loc(n);
  const TSValue &a = im.get(n->input(0)), &c = im.get(n->input(1));
  Type et = im.promote({&a, &c});
  if (kind == BinaryOpKind::Div && !isa<FloatType>(et))
    et = im.b.getF32Type();
  FailureOr<Value> x = im.tensorOf(a, et, l), y = im.tensorOf(c, et, l);
  if (failed(x) || failed(y))
    return failure();
  if (hasAlpha && n->inputs().size() > 2) {
    FailureOr<double> alpha = im.numberInput(n, 2);
    if (failed(alpha))
      return failure();
    if (*alpha != 1) {
      TSValue av = TSValue::ofFloat(*alpha);
      FailureOr<Value> at = im.tensorOf(av, et, l);
      y = buildElementwiseBinary(im.b, l, BinaryOpKind::Mul, *y, *at);
      if (failed(y))
        return failure();
    }
  }
  if (reverse)
    std::swap(x, y);
  return im.setTensor(n, 0, buildElementwiseBinary(im.b, l, kind, *x, *y));
}

FailureOr<Value> floatInput(Importer &im, Node *n, unsigned i) {
  FailureOr<Value> x = im.tensorInput(n, i);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(elemOf(*x)))
    return buildConvertElementType(im.b, im.loc(n), *x, im.b.getF32Type());
  return x;
}

FailureOr<SmallVector<int64_t>> perDim(Importer &im, Node *n, unsigned i,
                                       int64_t nd, int64_t def) {
  if (nd < 0)
    return emitError(im.loc(n)) << "argument " << i << ": no spatial dims";
  if (im.isNoneInput(n, i))
    return SmallVector<int64_t>(nd, def);
  FailureOr<SmallVector<int64_t>> v = im.intListInput(n, i);
  if (failed(v))
    return failure();
  if (v->empty())
    return SmallVector<int64_t>(nd, def);
  if (v->size() == 1)
    return SmallVector<int64_t>(nd, (*v)[0]);
  if (int64_t(v->size()) != nd)
    return emitError(im.loc(n)) << "expected " << nd << " values for "
                                << "argument " << i << ", got " << v->size();
  return v;
}

/// An int TSValue as an index attribute or Value (null when not an int).
static OpFoldResult asIndex(Importer &im, const TSValue &v, Location l) {
  if (v.intConst)
    return im.b.getIndexAttr(*v.intConst);
  if (v.boolConst)
    return im.b.getIndexAttr(*v.boolConst);
  if (v.kind != TSValue::Kind::Int || !v.value)
    return OpFoldResult();
  return arith::IndexCastOp::create(im.b, l, im.b.getIndexType(),
                                    im.scalarValue(v, l))
      .getResult();
}

FailureOr<Value> intValueInput(Importer &im, Node *n, unsigned i) {
  Location l = im.loc(n);
  const TSValue &v = im.get(n->input(i));
  if (v.kind != TSValue::Kind::Int && v.kind != TSValue::Kind::Bool)
    return emitError(l) << "expected an int for argument " << i << " of "
                        << n->kind().toQualString();
  return im.scalarAs(v, im.b.getI64Type(), l);
}

FailureOr<OpFoldResult> indexInput(Importer &im, Node *n, unsigned i) {
  Location l = im.loc(n);
  OpFoldResult r = asIndex(im, im.get(n->input(i)), l);
  if (!r)
    return emitError(l) << "expected an int for argument " << i << " of "
                        << n->kind().toQualString();
  return r;
}

FailureOr<SmallVector<OpFoldResult>> sizesInput(Importer &im, Node *n,
                                                unsigned i) {
  Location l = im.loc(n);
  const TSValue &v = im.get(n->input(i));
  SmallVector<OpFoldResult> sizes;
  auto add = [&](const TSValue &e) -> LogicalResult {
    OpFoldResult r = asIndex(im, e, l);
    if (!r)
      return emitError(l) << "expected an int size in argument " << i << " of "
                          << n->kind().toQualString();
    sizes.push_back(r);
    return success();
  };
  if (v.elems) {
    for (const TSValue &e : *v.elems)
      if (failed(add(e)))
        return failure();
  } else if (failed(add(v))) {
    return failure();
  }
  return sizes;
}

/// The tensors of a list argument, promoted to one element type.
FailureOr<SmallVector<Value>> tensorList(Importer &im, Node *n, unsigned i) {
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

/// The shape of ranked `v`.
SmallVector<int64_t> shapeOf(Value v) {
  return SmallVector<int64_t>(cast<RankedTensorType>(v.getType()).getShape());
}

/// `x` with dims `d0` and `d1` swapped.
FailureOr<Value> swapDims(Importer &im, Location l, Value x, int64_t d0,
                          int64_t d1) {
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rankOf(x)));
  std::swap(perm[d0], perm[d1]);
  return buildTranspose(im.b, l, x, perm);
}

/// `x` as a 1-D tensor (row-major).
FailureOr<Value> ravelValue(Importer &im, Location l, Value x) {
  int64_t r = rankOf(x);
  if (r == 0)
    return buildReshape(im.b, l, x, {1});
  if (r == 1)
    return x;
  return buildCollapseDims(im.b, l, x, 0, r - 1);
}

} // namespace mlprog::torchscript
