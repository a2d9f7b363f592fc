//===- OpHandlers.cpp - aten op -> tensor op builder table ----------------===//
//
// One handler per aten op (overloads told apart by the node's schema): it
// reads the arguments at the schema's positions, applies torch's type
// promotion, and calls the shared builders in mlprog/Import/Common.
// Semantics belong in the builders, not here.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"

#include "mlprog/Import/Common/Conv.h"
#include "mlprog/Import/Common/Creation.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/LinearAlgebra.h"
#include "mlprog/Import/Common/Logic.h"
#include "mlprog/Import/Common/Normalization.h"
#include "mlprog/Import/Common/Pool.h"
#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"

#include <climits>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

int64_t rankOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank();
}
Type elemOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// Normalizes `dim` against `rank` (+1 when `inclusive`).
FailureOr<int64_t> normDim(Im &im, Node *n, int64_t dim, int64_t rank,
                           bool inclusive = false) {
  int64_t r = inclusive ? rank + 1 : rank;
  if (r == 0 && (dim == 0 || dim == -1))
    return 0;
  if (dim < -r || dim >= r)
    return emitError(im.loc(n))
           << "dim " << dim << " out of range for rank " << rank;
  return dim < 0 ? dim + r : dim;
}

/// The number argument `i` (scalar TSValue) or `def` when None/absent.
FailureOr<double> numberOr(Im &im, Node *n, unsigned i, double def) {
  if (im.isNoneInput(n, i))
    return def;
  return im.numberInput(n, i);
}

//===--- Elementwise ------------------------------------------------------===//

/// add/sub (with alpha), mul, div, maximum, minimum, pow, with torch type
/// promotion; `reverse` swaps operands (rsub).
LogicalResult binary(Im &im, Node *n, BinaryOpKind kind, bool hasAlpha,
                     bool reverse = false) {
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

template <BinaryOpKind K, bool Alpha = false>
LogicalResult binaryH(Im &im, Node *n) {
  return binary(im, n, K, Alpha);
}

LogicalResult rsub(Im &im, Node *n) {
  return binary(im, n, BinaryOpKind::Sub, true, /*reverse=*/true);
}

LogicalResult divMode(Im &im, Node *n) {
  // aten::div.Tensor_mode / Scalar_mode: rounding_mode None/'trunc'/'floor'.
  Location l = im.loc(n);
  const TSValue &mode = im.get(n->input(2));
  if (mode.isNone())
    return binary(im, n, BinaryOpKind::Div, false);
  const TSValue &a = im.get(n->input(0)), &c = im.get(n->input(1));
  Type et = im.promote({&a, &c});
  FailureOr<Value> x = im.tensorOf(a, et, l), y = im.tensorOf(c, et, l);
  if (failed(x) || failed(y))
    return failure();
  DivisionKind k = mode.str == "floor" ? DivisionKind::FloorDivide
                                       : DivisionKind::TruncDivide;
  return im.setTensor(n, 0, buildDivision(im.b, l, k, *x, *y));
}

template <DivisionKind K> LogicalResult division(Im &im, Node *n) {
  Location l = im.loc(n);
  const TSValue &a = im.get(n->input(0)), &c = im.get(n->input(1));
  Type et = im.promote({&a, &c});
  FailureOr<Value> x = im.tensorOf(a, et, l), y = im.tensorOf(c, et, l);
  if (failed(x) || failed(y))
    return failure();
  return im.setTensor(n, 0, buildDivision(im.b, l, K, *x, *y));
}

template <CompareKind K> LogicalResult compare(Im &im, Node *n) {
  Location l = im.loc(n);
  const TSValue &a = im.get(n->input(0)), &c = im.get(n->input(1));
  Type et = im.promote({&a, &c});
  FailureOr<Value> x = im.tensorOf(a, et, l), y = im.tensorOf(c, et, l);
  if (failed(x) || failed(y))
    return failure();
  return im.setTensor(n, 0, buildCompare(im.b, l, K, *x, *y));
}

template <LogicalKind K> LogicalResult logical(Im &im, Node *n) {
  Location l = im.loc(n);
  Type i1 = im.b.getI1Type();
  FailureOr<Value> x = im.tensorOf(im.get(n->input(0)), i1, l);
  FailureOr<Value> y = im.tensorOf(im.get(n->input(1)), i1, l);
  if (failed(x) || failed(y))
    return failure();
  return im.setTensor(n, 0, buildLogical(im.b, l, K, *x, *y));
}

LogicalResult logicalNot(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorOf(im.get(n->input(0)), im.b.getI1Type(), l);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, buildLogicalNot(im.b, l, *x));
}

/// Float-only unary ops promote integer inputs to float32 (torch's
/// "int to float" unary rule).
FailureOr<Value> floatInput(Im &im, Node *n, unsigned i) {
  FailureOr<Value> x = im.tensorInput(n, i);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(elemOf(*x)))
    return buildConvertElementType(im.b, im.loc(n), *x, im.b.getF32Type());
  return x;
}

template <UnaryOpKind K> LogicalResult unary(Im &im, Node *n) {
  bool intOk =
      K == UnaryOpKind::Relu || K == UnaryOpKind::Neg || K == UnaryOpKind::Abs;
  FailureOr<Value> x = intOk ? im.tensorInput(n, 0) : floatInput(im, n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, buildElementwiseUnary(im.b, im.loc(n), K, *x));
}

template <PointwiseKind K> LogicalResult pointwise(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, buildPointwise(im.b, im.loc(n), K, *x));
}

LogicalResult gelu(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  if (failed(x))
    return failure();
  bool tanh = n->inputs().size() > 1 && im.get(n->input(1)).str == "tanh";
  return im.setTensor(
      n, 0,
      buildPointwise(im.b, im.loc(n),
                     tanh ? PointwiseKind::GeluTanh : PointwiseKind::Gelu, *x));
}

LogicalResult roundOrIdentity(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  if (!isa<FloatType>(elemOf(*x)))
    return im.setTensor(n, 0, *x);
  StringRef name = n->kind().toUnqualString();
  PointwiseKind k = name.starts_with("floor")  ? PointwiseKind::Floor
                    : name.starts_with("ceil") ? PointwiseKind::Ceil
                                               : PointwiseKind::Round;
  return im.setTensor(n, 0, buildPointwise(im.b, im.loc(n), k, *x));
}

LogicalResult clamp(Im &im, Node *n, std::optional<unsigned> loArg,
                    std::optional<unsigned> hiArg) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  std::optional<double> lo, hi;
  if (loArg && !im.isNoneInput(n, *loArg)) {
    FailureOr<double> v = im.numberInput(n, *loArg);
    if (failed(v))
      return failure();
    lo = *v;
  }
  if (hiArg && !im.isNoneInput(n, *hiArg)) {
    FailureOr<double> v = im.numberInput(n, *hiArg);
    if (failed(v))
      return failure();
    hi = *v;
  }
  return im.setTensor(n, 0, buildClamp(im.b, im.loc(n), *x, lo, hi));
}
LogicalResult clampH(Im &im, Node *n) { return clamp(im, n, 1, 2); }
LogicalResult clampMin(Im &im, Node *n) {
  return clamp(im, n, 1, std::nullopt);
}
LogicalResult clampMax(Im &im, Node *n) {
  return clamp(im, n, std::nullopt, 1);
}
LogicalResult hardtanh(Im &im, Node *n) { return clamp(im, n, 1, 2); }
LogicalResult relu6(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, buildClamp(im.b, im.loc(n), *x, 0.0, 6.0));
}

LogicalResult leakyRelu(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  FailureOr<double> slope = numberOr(im, n, 1, 0.01);
  if (failed(x) || failed(slope))
    return failure();
  return im.setTensor(n, 0, buildLeakyRelu(im.b, im.loc(n), *x, *slope));
}

LogicalResult elu(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  FailureOr<double> alpha = numberOr(im, n, 1, 1.0);
  FailureOr<double> scale = numberOr(im, n, 2, 1.0);
  FailureOr<double> inScale = numberOr(im, n, 3, 1.0);
  if (failed(x) || failed(alpha) || failed(scale) || failed(inScale))
    return failure();
  return im.setTensor(n, 0,
                      buildElu(im.b, im.loc(n), *x, *alpha, *scale, *inScale));
}

LogicalResult selu(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(
      n, 0,
      buildElu(im.b, im.loc(n), *x, 1.6732632423543772, 1.0507009873554805));
}

LogicalResult softplus(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  FailureOr<double> beta = numberOr(im, n, 1, 1.0);
  FailureOr<double> threshold = numberOr(im, n, 2, 20.0);
  if (failed(x) || failed(beta) || failed(threshold))
    return failure();
  return im.setTensor(n, 0,
                      buildSoftplus(im.b, im.loc(n), *x, *beta, *threshold));
}

LogicalResult where(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> c = im.tensorOf(im.get(n->input(0)), im.b.getI1Type(), l);
  const TSValue &a = im.get(n->input(1)), &bv = im.get(n->input(2));
  Type et = im.promote({&a, &bv});
  FailureOr<Value> x = im.tensorOf(a, et, l), y = im.tensorOf(bv, et, l);
  if (failed(c) || failed(x) || failed(y))
    return failure();
  return im.setTensor(n, 0, buildSelect(im.b, l, *c, *x, *y));
}

LogicalResult maskedFill(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<Value> m = im.tensorOf(im.get(n->input(1)), im.b.getI1Type(), l);
  if (failed(x) || failed(m))
    return failure();
  FailureOr<Value> v = im.tensorOf(im.get(n->input(2)), elemOf(*x), l);
  if (failed(v))
    return failure();
  return im.setTensor(n, 0, buildSelect(im.b, l, *m, *v, *x));
}

//===--- Casts and creation -----------------------------------------------===//

/// aten::to.dtype(self, dtype, ...), to.dtype_layout(self, dtype, layout,
/// device, ...), to.device(self, device, dtype, ...), to.other(self, other).
LogicalResult to(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  const c10::FunctionSchema &schema = n->schema();
  Type et;
  if (schema.overload_name() == "other") {
    FailureOr<Value> other = im.tensorInput(n, 1);
    if (failed(other))
      return failure();
    et = elemOf(*other);
  } else {
    auto dtypeArg = schema.argumentIndexWithName("dtype");
    if (dtypeArg) {
      FailureOr<Type> t = im.dtypeInput(n, *dtypeArg);
      if (failed(t))
        return failure();
      et = *t;
    }
  }
  if (!et)
    return im.setTensor(n, 0, *x);
  return im.setTensor(n, 0, buildConvertElementType(im.b, l, *x, et));
}

LogicalResult typeAs(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0), y = im.tensorInput(n, 1);
  if (failed(x) || failed(y))
    return failure();
  return im.setTensor(n, 0,
                      buildConvertElementType(im.b, im.loc(n), *x, elemOf(*y)));
}

template <int Dtype> LogicalResult castTo(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  Type et = convertScalarType(im.ctx, c10::ScalarType(Dtype));
  return im.setTensor(n, 0, buildConvertElementType(im.b, im.loc(n), *x, et));
}

/// Sizes from an int list argument whose entries may be run-time ints.
FailureOr<SmallVector<OpFoldResult>> sizesInput(Im &im, Node *n, unsigned i) {
  Location l = im.loc(n);
  const TSValue &v = im.get(n->input(i));
  SmallVector<OpFoldResult> sizes;
  auto add = [&](const TSValue &e) -> LogicalResult {
    if (e.intConst) {
      sizes.push_back(im.b.getIndexAttr(*e.intConst));
      return success();
    }
    if (e.kind != TSValue::Kind::Int)
      return emitError(l) << "expected an int size";
    sizes.push_back(arith::IndexCastOp::create(im.b, l, im.b.getIndexType(),
                                               im.scalarValue(e, l))
                        .getResult());
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

/// zeros/ones/full/empty(size, [fill], dtype, ...) and the *_like forms.
LogicalResult fill(Im &im, Node *n, std::optional<double> value, bool like) {
  Location l = im.loc(n);
  const c10::FunctionSchema &schema = n->schema();
  SmallVector<OpFoldResult> sizes;
  Type et;
  if (like) {
    FailureOr<Value> x = im.tensorInput(n, 0);
    if (failed(x))
      return failure();
    sizes = tensor::getMixedSizes(im.b, l, *x);
    et = elemOf(*x);
  } else {
    FailureOr<SmallVector<OpFoldResult>> s = sizesInput(im, n, 0);
    if (failed(s))
      return failure();
    sizes = *s;
  }
  TSValue fillValue = value ? TSValue::ofFloat(*value) : TSValue();
  if (!value) {
    auto fi = schema.argumentIndexWithName("fill_value");
    if (!fi)
      return im.unsupported(n, "fill without a value");
    fillValue = im.get(n->input(*fi));
  }
  if (auto di = schema.argumentIndexWithName("dtype")) {
    FailureOr<Type> t = im.dtypeInput(n, *di);
    if (failed(t))
      return failure();
    if (*t)
      et = *t;
  }
  if (!et)
    et = fillValue.kind == TSValue::Kind::Int && !value
             ? Type(im.b.getI64Type())
         : fillValue.kind == TSValue::Kind::Bool && !value
             ? Type(im.b.getI1Type())
             : Type(im.b.getF32Type());
  Value s = im.scalarValue(fillValue, l);
  return im.setTensor(n, 0, buildFull(im.b, l, sizes, et, s));
}
LogicalResult zeros(Im &im, Node *n) { return fill(im, n, 0.0, false); }
LogicalResult ones(Im &im, Node *n) { return fill(im, n, 1.0, false); }
LogicalResult full(Im &im, Node *n) { return fill(im, n, std::nullopt, false); }
LogicalResult zerosLike(Im &im, Node *n) { return fill(im, n, 0.0, true); }
LogicalResult onesLike(Im &im, Node *n) { return fill(im, n, 1.0, true); }
LogicalResult fullLike(Im &im, Node *n) {
  return fill(im, n, std::nullopt, true);
}

/// arange(end, ...), arange.start(start, end, ...),
/// arange.start_step(start, end, step, ...).
LogicalResult arange(Im &im, Node *n) {
  const c10::FunctionSchema &schema = n->schema();
  std::string ov = schema.overload_name();
  double start = 0, step = 1, end;
  bool anyFloat = false;
  auto num = [&](unsigned i, double &out) -> LogicalResult {
    FailureOr<double> v = im.numberInput(n, i);
    if (failed(v))
      return failure();
    anyFloat |= im.get(n->input(i)).kind == TSValue::Kind::Float;
    out = *v;
    return success();
  };
  if (ov.empty() || ov == "out") {
    if (failed(num(0, end)))
      return failure();
  } else {
    if (failed(num(0, start)) || failed(num(1, end)))
      return failure();
    if (ov == "start_step" && failed(num(2, step)))
      return failure();
  }
  Type et = anyFloat ? Type(im.b.getF32Type()) : Type(im.b.getI64Type());
  if (auto di = schema.argumentIndexWithName("dtype")) {
    FailureOr<Type> t = im.dtypeInput(n, *di);
    if (failed(t))
      return failure();
    if (*t)
      et = *t;
  }
  return im.setTensor(n, 0, buildArange(im.b, im.loc(n), start, end, step, et));
}

/// aten::tensor(data, dtype, device, requires_grad) of numbers.
LogicalResult tensorOp(Im &im, Node *n) {
  Location l = im.loc(n);
  const TSValue &data = im.get(n->input(0));
  std::vector<TSValue> flat;
  SmallVector<int64_t> shape;
  if (data.elems) {
    shape.push_back(data.elems->size());
    for (const TSValue &e : *data.elems) {
      if (!e.isScalar())
        return im.unsupported(n, "aten::tensor of nested lists");
      flat.push_back(e);
    }
  } else if (data.isScalar()) {
    flat.push_back(data);
  } else {
    return im.unsupported(n, "aten::tensor argument");
  }
  bool anyFloat = llvm::any_of(
      flat, [](const TSValue &v) { return v.kind == TSValue::Kind::Float; });
  bool allBool = !flat.empty() && llvm::all_of(flat, [](const TSValue &v) {
    return v.kind == TSValue::Kind::Bool;
  });
  Type et = anyFloat  ? Type(im.b.getF32Type())
            : allBool ? Type(im.b.getI1Type())
                      : Type(im.b.getI64Type());
  FailureOr<Type> t = im.dtypeInput(n, 1);
  if (failed(t))
    return failure();
  if (*t)
    et = *t;
  SmallVector<Value> elems;
  for (const TSValue &v : flat)
    elems.push_back(im.scalarAs(v, et, l));
  return im.setTensor(n, 0,
                      tensor::FromElementsOp::create(
                          im.b, l, RankedTensorType::get(shape, et), elems)
                          .getResult());
}

//===--- Contractions -----------------------------------------------------===//

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

//===--- Convolution and pooling ------------------------------------------===//

/// Expands a per-dimension int list (a single entry applies to all).
FailureOr<SmallVector<int64_t>> perDim(Im &im, Node *n, unsigned i, int64_t nd,
                                       int64_t def) {
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

/// conv1d/2d/3d(input, weight, bias, stride, padding, dilation, groups),
/// with `padding` a list or 'same'/'valid'; convolution/_convolution(input,
/// weight, bias, stride, padding, dilation, transposed, output_padding,
/// groups, ...).
LogicalResult conv(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0), w = im.tensorInput(n, 1);
  if (failed(x) || failed(w))
    return failure();
  int64_t nd = rankOf(*w) - 2;
  Value bias;
  if (!im.isNoneInput(n, 2)) {
    FailureOr<Value> bv = im.tensorInput(n, 2);
    if (failed(bv))
      return failure();
    bias = *bv;
  }
  std::string kind = n->kind().toUnqualString();
  bool general = kind == "convolution" || kind == "_convolution";
  int64_t groups;
  if (general) {
    FailureOr<bool> transposed = im.boolInput(n, 6);
    if (failed(transposed))
      return failure();
    if (*transposed)
      return im.unsupported(n, "transposed convolution");
    FailureOr<int64_t> g = im.intInput(n, 8);
    if (failed(g))
      return failure();
    groups = *g;
  } else {
    FailureOr<int64_t> g =
        n->inputs().size() > 6 ? im.intInput(n, 6) : FailureOr<int64_t>(1);
    if (failed(g))
      return failure();
    groups = *g;
  }
  WindowParams params;
  FailureOr<SmallVector<int64_t>> stride = perDim(im, n, 3, nd, 1);
  FailureOr<SmallVector<int64_t>> dilation = perDim(im, n, 5, nd, 1);
  if (failed(stride) || failed(dilation))
    return failure();
  params.strides = *stride;
  params.dilations = *dilation;
  const TSValue &pad = im.get(n->input(4));
  if (pad.kind == TSValue::Kind::Str) {
    if (pad.str == "valid") {
      params.padsBegin.assign(nd, 0);
      params.padsEnd.assign(nd, 0);
    } else {
      auto xt = cast<RankedTensorType>(x->getType());
      auto wt = cast<RankedTensorType>(w->getType());
      // torch 'same': total = dilation * (k - 1), extra at the end.
      for (int64_t d = 0; d < nd; ++d) {
        int64_t total = params.dilations[d] * (wt.getDimSize(d + 2) - 1);
        params.padsBegin.push_back(total / 2);
        params.padsEnd.push_back(total - total / 2);
      }
      (void)xt;
    }
  } else {
    FailureOr<SmallVector<int64_t>> p = perDim(im, n, 4, nd, 0);
    if (failed(p))
      return failure();
    params.padsBegin = *p;
    params.padsEnd = *p;
  }
  return im.setTensor(n, 0, buildConv(im.b, l, *x, *w, bias, params, groups));
}

/// max_poolNd(input, kernel, stride, padding, dilation, ceil_mode).
LogicalResult maxPool(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<int64_t>> kernel = im.intListInput(n, 1);
  if (failed(x) || failed(kernel))
    return failure();
  int64_t nd = kernel->size();
  WindowParams params;
  FailureOr<SmallVector<int64_t>> stride = perDim(im, n, 2, nd, 0);
  FailureOr<SmallVector<int64_t>> pad = perDim(im, n, 3, nd, 0);
  FailureOr<SmallVector<int64_t>> dil = perDim(im, n, 4, nd, 1);
  FailureOr<bool> ceil = im.boolInput(n, 5);
  if (failed(stride) || failed(pad) || failed(dil) || failed(ceil))
    return failure();
  for (int64_t d = 0; d < nd; ++d)
    if ((*stride)[d] == 0)
      (*stride)[d] = (*kernel)[d];
  params.strides = *stride;
  params.padsBegin = *pad;
  params.padsEnd = *pad;
  params.dilations = *dil;
  return im.setTensor(
      n, 0, buildMaxPool(im.b, im.loc(n), *x, *kernel, params, *ceil));
}

/// avg_poolNd(input, kernel, stride, padding, ceil_mode, count_include_pad,
/// [divisor_override]).
LogicalResult avgPool(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<int64_t>> kernel = im.intListInput(n, 1);
  if (failed(x) || failed(kernel))
    return failure();
  int64_t nd = kernel->size();
  WindowParams params;
  FailureOr<SmallVector<int64_t>> stride = perDim(im, n, 2, nd, 0);
  FailureOr<SmallVector<int64_t>> pad = perDim(im, n, 3, nd, 0);
  FailureOr<bool> ceil = im.boolInput(n, 4);
  FailureOr<bool> countPad = im.boolInput(n, 5);
  if (failed(stride) || failed(pad) || failed(ceil) || failed(countPad))
    return failure();
  if (n->inputs().size() > 6 && !im.isNoneInput(n, 6))
    return im.unsupported(n, "avg_pool divisor_override");
  for (int64_t d = 0; d < nd; ++d)
    if ((*stride)[d] == 0)
      (*stride)[d] = (*kernel)[d];
  params.strides = *stride;
  params.padsBegin = *pad;
  params.padsEnd = *pad;
  return im.setTensor(
      n, 0,
      buildAveragePool(im.b, im.loc(n), *x, *kernel, params, *ceil, *countPad));
}

/// adaptive_avg_poolNd(input, output_size): global pooling for all-1
/// outputs, a uniform window when the input extent divides evenly.
LogicalResult adaptiveAvgPool(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<int64_t>> out = im.intListInput(n, 1);
  if (failed(x) || failed(out))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t nd = out->size();
  if (type.getRank() != nd + 2)
    return im.unsupported(n, "adaptive pooling of unbatched input");
  if (llvm::all_of(*out, [](int64_t o) { return o == 1; }))
    return im.setTensor(n, 0, buildGlobalAveragePool(im.b, l, *x));
  SmallVector<int64_t> kernel;
  WindowParams params;
  for (int64_t d = 0; d < nd; ++d) {
    int64_t in = type.getDimSize(d + 2), o = (*out)[d];
    if (ShapedType::isDynamic(in) || o <= 0 || in % o != 0)
      return im.unsupported(n, "adaptive average pooling to " +
                                   std::to_string(o) + " from extent " +
                                   std::to_string(in) +
                                   " (only divisible extents)");
    kernel.push_back(in / o);
    params.strides.push_back(in / o);
  }
  params.padsBegin.assign(nd, 0);
  params.padsEnd.assign(nd, 0);
  return im.setTensor(
      n, 0, buildAveragePool(im.b, l, *x, kernel, params, false, true));
}

//===--- Normalization ----------------------------------------------------===//

/// batch_norm(input, weight, bias, running_mean, running_var, training,
/// momentum, eps, cudnn_enabled). In training mode the running statistics
/// are updated (written back to their module buffers).
LogicalResult batchNorm(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  Value w, bias, mean, var;
  auto opt = [&](unsigned i, Value &out) -> LogicalResult {
    if (im.isNoneInput(n, i))
      return success();
    FailureOr<Value> v = im.tensorInput(n, i);
    if (failed(v))
      return failure();
    out = *v;
    return success();
  };
  if (failed(opt(1, w)) || failed(opt(2, bias)) || failed(opt(3, mean)) ||
      failed(opt(4, var)))
    return failure();
  FailureOr<bool> training = im.boolInput(n, 5);
  FailureOr<double> momentum = numberOr(im, n, 6, 0.1);
  FailureOr<double> eps = im.numberInput(n, 7);
  if (failed(training) || failed(momentum) || failed(eps))
    return failure();
  Type et = elemOf(*x);
  SmallVector<OpFoldResult> c = {tensor::getMixedSize(im.b, l, *x, 1)};
  auto filled = [&](double v) {
    return *buildFull(im.b, l, c, et, im.scalarAs(TSValue::ofFloat(v), et, l));
  };
  if (!*training) {
    if (!mean || !var)
      return im.unsupported(n, "batch_norm in eval mode without running "
                               "statistics");
    return im.setTensor(
        n, 0,
        buildBatchNormInference(im.b, l, *x, w ? w : filled(1.0),
                                bias ? bias : filled(0.0), mean, var, *eps));
  }
  FailureOr<BatchNormTrainingResult> r =
      buildBatchNormTraining(im.b, l, *x, w, bias, *eps);
  if (failed(r))
    return failure();
  // running = (1 - momentum) * running + momentum * batch (unbiased var).
  auto update = [&](Value running, Value batch,
                    torch::jit::Value *tv) -> LogicalResult {
    if (!running)
      return success();
    Value keep = filled(1.0 - *momentum), take = filled(*momentum);
    FailureOr<Value> a =
        buildElementwiseBinary(im.b, l, BinaryOpKind::Mul, running, keep);
    FailureOr<Value> bb =
        buildElementwiseBinary(im.b, l, BinaryOpKind::Mul, batch, take);
    if (failed(a) || failed(bb))
      return failure();
    FailureOr<Value> s =
        buildElementwiseBinary(im.b, l, BinaryOpKind::Add, *a, *bb);
    if (failed(s))
      return failure();
    if (!im.isAttributeRead(tv))
      return emitError(l) << "unsupported batch_norm in training mode whose "
                             "running statistics are not module buffers";
    im.get(tv) = TSValue::tensor(*s);
    return im.writeBack(tv, *s, l);
  };
  if (failed(update(mean, r->mean, n->input(3))) ||
      failed(update(var, r->unbiasedVar, n->input(4))))
    return failure();
  return im.setTensor(n, 0, r->output);
}

/// layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable).
LogicalResult layerNorm(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<SmallVector<int64_t>> shape = im.intListInput(n, 1);
  FailureOr<double> eps = numberOr(im, n, 4, 1e-5);
  if (failed(x) || failed(shape) || failed(eps))
    return failure();
  Value w, bias;
  if (!im.isNoneInput(n, 2))
    w = *im.tensorInput(n, 2);
  if (!im.isNoneInput(n, 3))
    bias = *im.tensorInput(n, 3);
  FailureOr<LayerNormResult> r = buildLayerNorm(
      im.b, im.loc(n), *x,
      llvm::to_vector(llvm::seq<int64_t>(-int64_t(shape->size()), 0)), w, bias,
      *eps);
  if (failed(r))
    return failure();
  return im.setTensor(n, 0, r->y);
}

//===--- Reductions -------------------------------------------------------===//

/// Reduces with optional dim list at `dimArg`, keepdim at `dimArg + 1` and
/// a dtype at `dtypeArg`.
LogicalResult reduceOp(Im &im, Node *n, ReduceKind kind,
                       std::optional<unsigned> dimArg,
                       std::optional<unsigned> dtypeArg) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  SmallVector<int64_t> dims;
  bool keep = false;
  if (dimArg && !im.isNoneInput(n, *dimArg)) {
    FailureOr<SmallVector<int64_t>> d = im.intListInput(n, *dimArg);
    FailureOr<bool> k = im.boolInput(n, *dimArg + 1);
    if (failed(d) || failed(k))
      return failure();
    dims = *d;
    keep = *k;
  }
  Type et = elemOf(*x);
  if (dtypeArg) {
    FailureOr<Type> t = im.dtypeInput(n, *dtypeArg);
    if (failed(t))
      return failure();
    if (*t)
      et = *t;
    else if ((kind == ReduceKind::Sum || kind == ReduceKind::Prod) &&
             !isa<FloatType>(et))
      et = im.b.getI64Type(); // integer sums accumulate in int64
  }
  FailureOr<Value> xc = buildConvertElementType(im.b, l, *x, et);
  if (failed(xc))
    return failure();
  return im.setTensor(n, 0, buildReduce(im.b, l, kind, *xc, dims, keep));
}

LogicalResult sum(Im &im, Node *n) {
  std::string ov = n->schema().overload_name();
  if (ov.empty())
    return reduceOp(im, n, ReduceKind::Sum, std::nullopt, 1);
  return reduceOp(im, n, ReduceKind::Sum, 1, 3);
}
LogicalResult mean(Im &im, Node *n) {
  std::string ov = n->schema().overload_name();
  if (ov.empty())
    return reduceOp(im, n, ReduceKind::Mean, std::nullopt, 1);
  return reduceOp(im, n, ReduceKind::Mean, 1, 3);
}
LogicalResult prod(Im &im, Node *n) {
  std::string ov = n->schema().overload_name();
  if (ov.empty())
    return reduceOp(im, n, ReduceKind::Prod, std::nullopt, 1);
  return reduceOp(im, n, ReduceKind::Prod, 1, 3);
}
LogicalResult amax(Im &im, Node *n) {
  return reduceOp(im, n, ReduceKind::Max, 1, std::nullopt);
}
LogicalResult amin(Im &im, Node *n) {
  return reduceOp(im, n, ReduceKind::Min, 1, std::nullopt);
}

/// max/min: (self) all-reduce, .dim(self, dim, keepdim) -> (values,
/// indices), .other(self, other) elementwise.
LogicalResult maxMin(Im &im, Node *n, bool isMax) {
  Location l = im.loc(n);
  std::string ov = n->schema().overload_name();
  if (ov == "other")
    return binary(im, n, isMax ? BinaryOpKind::Max : BinaryOpKind::Min, false);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  ReduceKind k = isMax ? ReduceKind::Max : ReduceKind::Min;
  if (ov.empty())
    return im.setTensor(n, 0, buildReduce(im.b, l, k, *x, {}, false));
  if (ov != "dim")
    return im.unsupported(n, "overload " + ov);
  FailureOr<int64_t> d = im.intInput(n, 1);
  FailureOr<bool> keep = im.boolInput(n, 2);
  if (failed(d) || failed(keep))
    return failure();
  if (failed(im.setTensor(n, 0, buildReduce(im.b, l, k, *x, {*d}, *keep))))
    return failure();
  return im.setTensor(n, 1, buildArgReduce(im.b, l, *x, *d, *keep, isMax));
}
LogicalResult maxH(Im &im, Node *n) { return maxMin(im, n, true); }
LogicalResult minH(Im &im, Node *n) { return maxMin(im, n, false); }

LogicalResult argReduce(Im &im, Node *n, bool isMax) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<bool> keep = im.boolInput(n, 2);
  if (failed(x) || failed(keep))
    return failure();
  if (im.isNoneInput(n, 1)) {
    auto type = cast<RankedTensorType>(x->getType());
    if (!type.hasStaticShape())
      return im.unsupported(n, "argmax over all dims of a dynamic shape");
    FailureOr<Value> flat = buildReshape(im.b, l, *x, {type.getNumElements()});
    if (failed(flat))
      return failure();
    return im.setTensor(n, 0, buildArgReduce(im.b, l, *flat, 0, false, isMax));
  }
  FailureOr<int64_t> d = im.intInput(n, 1);
  if (failed(d))
    return failure();
  return im.setTensor(n, 0, buildArgReduce(im.b, l, *x, *d, *keep, isMax));
}
LogicalResult argmax(Im &im, Node *n) { return argReduce(im, n, true); }
LogicalResult argmin(Im &im, Node *n) { return argReduce(im, n, false); }

/// var/std(self, dim, unbiased, keepdim) and .correction(self, dim,
/// correction, keepdim); var(self, unbiased).
LogicalResult varStd(Im &im, Node *n, bool isStd) {
  Location l = im.loc(n);
  FailureOr<Value> x = floatInput(im, n, 0);
  if (failed(x))
    return failure();
  std::string ov = n->schema().overload_name();
  SmallVector<int64_t> dims;
  int64_t correction = 1;
  bool keep = false;
  if (ov.empty()) {
    FailureOr<bool> unbiased = im.boolInput(n, 1);
    if (failed(unbiased))
      return failure();
    correction = *unbiased;
  } else {
    if (!im.isNoneInput(n, 1)) {
      FailureOr<SmallVector<int64_t>> d = im.intListInput(n, 1);
      if (failed(d))
        return failure();
      dims = *d;
    }
    if (ov == "correction") {
      if (!im.isNoneInput(n, 2)) {
        FailureOr<int64_t> c = im.intInput(n, 2);
        if (failed(c))
          return failure();
        correction = *c;
      }
    } else {
      FailureOr<bool> unbiased = im.boolInput(n, 2);
      if (failed(unbiased))
        return failure();
      correction = *unbiased;
    }
    FailureOr<bool> k = im.boolInput(n, 3);
    if (failed(k))
      return failure();
    keep = *k;
  }
  FailureOr<Value> v = buildVariance(im.b, l, *x, dims, keep, correction);
  if (failed(v))
    return failure();
  if (isStd)
    v = buildElementwiseUnary(im.b, l, UnaryOpKind::Sqrt, *v);
  return im.setTensor(n, 0, v);
}
LogicalResult var(Im &im, Node *n) { return varStd(im, n, false); }
LogicalResult stdDev(Im &im, Node *n) { return varStd(im, n, true); }

/// softmax/log_softmax(self, dim, dtype).
template <bool Log> LogicalResult softmax(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = floatInput(im, n, 0);
  FailureOr<int64_t> d = im.intInput(n, 1);
  if (failed(x) || failed(d))
    return failure();
  if (n->inputs().size() > 2) {
    FailureOr<Type> t = im.dtypeInput(n, 2);
    if (failed(t))
      return failure();
    if (*t)
      x = buildConvertElementType(im.b, l, *x, *t);
  }
  if (Log)
    return im.setTensor(n, 0, buildLogSoftmax(im.b, l, *x, {*d}));
  return im.setTensor(n, 0, buildSoftmax(im.b, l, *x, {*d}));
}

//===--- Shapes -----------------------------------------------------------===//

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
  SmallVector<Value> expanded;
  for (Value x : *xs) {
    FailureOr<Value> u = buildUnsqueeze(im.b, l, x, *dim);
    if (failed(u))
      return failure();
    expanded.push_back(*u);
  }
  return im.setTensor(n, 0, buildConcat(im.b, l, expanded, *dim));
}

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
LogicalResult splitInto(Im &im, Node *n, Value x, int64_t dim,
                        ArrayRef<int64_t> sizes) {
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
  int64_t size = (*e + *chunks - 1) / *chunks;
  SmallVector<int64_t> sizes;
  for (int64_t off = 0; off < *e; off += size)
    sizes.push_back(std::min(size, *e - off));
  return splitInto(im, n, *x, dim, sizes);
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
    for (int64_t off = 0; off < *e; off += *size)
      sizes.push_back(std::min(*size, *e - off));
  }
  return splitInto(im, n, *x, dim, sizes);
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

/// slice.Tensor(self, dim, start, end, step).
LogicalResult slice(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> d = im.intInput(n, 1);
  if (failed(x) || failed(d))
    return failure();
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
  return im.setTensor(n, 0, sliceAlong(im, n, *x, *d, start, end, step));
}

/// select.int(self, dim, index): the index may be a run-time int (a loop
/// counter).
LogicalResult select(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<int64_t> d = im.intInput(n, 1);
  if (failed(x) || failed(d))
    return failure();
  const TSValue &idx = im.get(n->input(2));
  OpFoldResult index;
  if (idx.intConst)
    index = im.b.getIndexAttr(*idx.intConst);
  else if (idx.kind == TSValue::Kind::Int)
    index = arith::IndexCastOp::create(im.b, l, im.b.getIndexType(),
                                       im.scalarValue(idx, l))
                .getResult();
  else
    return emitError(l) << "expected an int index";
  return im.setTensor(n, 0, buildSelectIndex(im.b, l, *x, *d, index));
}

LogicalResult indexSelect(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0), idx = im.tensorInput(n, 2);
  FailureOr<int64_t> d = im.intInput(n, 1);
  if (failed(x) || failed(idx) || failed(d))
    return failure();
  if (cast<RankedTensorType>(idx->getType()).getRank() != 1)
    return emitError(im.loc(n)) << "index_select needs 1-D integer indices, "
                                   "got "
                                << idx->getType();
  return im.setTensor(n, 0, buildGather(im.b, im.loc(n), *x, *idx, *d));
}

LogicalResult gather(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0), idx = im.tensorInput(n, 2);
  FailureOr<int64_t> d = im.intInput(n, 1);
  if (failed(x) || failed(idx) || failed(d))
    return failure();
  return im.setTensor(n, 0,
                      buildGatherAlongAxis(im.b, im.loc(n), *x, *idx, *d));
}

LogicalResult embedding(Im &im, Node *n) {
  FailureOr<Value> w = im.tensorInput(n, 0), idx = im.tensorInput(n, 1);
  if (failed(w) || failed(idx))
    return failure();
  return im.setTensor(n, 0, buildGather(im.b, im.loc(n), *w, *idx, 0));
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

LogicalResult identity(Im &im, Node *n) {
  return im.set(n, 0, im.get(n->input(0)));
}

} // namespace

const llvm::StringMap<OpHandler> &mlprog::torchscript::getOpHandlers() {
  static const llvm::StringMap<OpHandler> table = {
      // Arithmetic (Tensor and Scalar overloads share a handler).
      {"aten::add", binaryH<BinaryOpKind::Add, true>},
      {"aten::sub", binaryH<BinaryOpKind::Sub, true>},
      {"aten::mul", binaryH<BinaryOpKind::Mul>},
      {"aten::div", binaryH<BinaryOpKind::Div>},
      {"aten::div.Tensor_mode", divMode},
      {"aten::div.Scalar_mode", divMode},
      {"aten::true_divide", binaryH<BinaryOpKind::Div>},
      {"aten::rsub", rsub},
      {"aten::pow", binaryH<BinaryOpKind::Pow>},
      {"aten::maximum", binaryH<BinaryOpKind::Max>},
      {"aten::minimum", binaryH<BinaryOpKind::Min>},
      {"aten::floor_divide", division<DivisionKind::FloorDivide>},
      {"aten::remainder", division<DivisionKind::Remainder>},
      {"aten::fmod", division<DivisionKind::TruncDivide>},
      // Comparisons and logic.
      {"aten::eq", compare<CompareKind::Equal>},
      {"aten::ne", compare<CompareKind::NotEqual>},
      {"aten::lt", compare<CompareKind::Less>},
      {"aten::le", compare<CompareKind::LessEqual>},
      {"aten::gt", compare<CompareKind::Greater>},
      {"aten::ge", compare<CompareKind::GreaterEqual>},
      {"aten::logical_and", logical<LogicalKind::And>},
      {"aten::logical_or", logical<LogicalKind::Or>},
      {"aten::logical_xor", logical<LogicalKind::Xor>},
      {"aten::logical_not", logicalNot},
      {"aten::__and__", logical<LogicalKind::And>},
      {"aten::__or__", logical<LogicalKind::Or>},
      {"aten::bitwise_and", logical<LogicalKind::And>},
      {"aten::bitwise_or", logical<LogicalKind::Or>},
      {"aten::bitwise_not", logicalNot},
      {"aten::where.self", where},
      {"aten::where.ScalarSelf", where},
      {"aten::where.ScalarOther", where},
      {"aten::where.Scalar", where},
      {"aten::masked_fill", maskedFill},
      // Unary and activations.
      {"aten::relu", unary<UnaryOpKind::Relu>},
      {"aten::sigmoid", unary<UnaryOpKind::Sigmoid>},
      {"aten::tanh", unary<UnaryOpKind::Tanh>},
      {"aten::exp", unary<UnaryOpKind::Exp>},
      {"aten::log", unary<UnaryOpKind::Log>},
      {"aten::neg", unary<UnaryOpKind::Neg>},
      {"aten::abs", unary<UnaryOpKind::Abs>},
      {"aten::sqrt", unary<UnaryOpKind::Sqrt>},
      {"aten::erf", unary<UnaryOpKind::Erf>},
      {"aten::rsqrt", pointwise<PointwiseKind::Rsqrt>},
      {"aten::reciprocal", pointwise<PointwiseKind::Reciprocal>},
      {"aten::floor", roundOrIdentity},
      {"aten::ceil", roundOrIdentity},
      {"aten::round", roundOrIdentity},
      {"aten::sin", pointwise<PointwiseKind::Sin>},
      {"aten::cos", pointwise<PointwiseKind::Cos>},
      {"aten::sign", pointwise<PointwiseKind::Sign>},
      {"aten::log1p", pointwise<PointwiseKind::Log1p>},
      {"aten::expm1", pointwise<PointwiseKind::Expm1>},
      {"aten::log2", pointwise<PointwiseKind::Log2>},
      {"aten::log10", pointwise<PointwiseKind::Log10>},
      {"aten::gelu", gelu},
      {"aten::silu", pointwise<PointwiseKind::Silu>},
      {"aten::hardswish", pointwise<PointwiseKind::Hardswish>},
      {"aten::hardsigmoid", pointwise<PointwiseKind::Hardsigmoid>},
      {"aten::mish", pointwise<PointwiseKind::Mish>},
      {"aten::softsign", pointwise<PointwiseKind::Softsign>},
      {"aten::hardtanh", hardtanh},
      {"aten::relu6", relu6},
      {"aten::clamp", clampH},
      {"aten::clip", clampH},
      {"aten::clamp_min", clampMin},
      {"aten::clamp_max", clampMax},
      {"aten::leaky_relu", leakyRelu},
      {"aten::elu", elu},
      {"aten::selu", selu},
      {"aten::softplus", softplus},
      // Casts and creation.
      {"aten::to", to},
      {"aten::type_as", typeAs},
      {"aten::float", castTo<int(c10::ScalarType::Float)>},
      {"aten::double", castTo<int(c10::ScalarType::Double)>},
      {"aten::long", castTo<int(c10::ScalarType::Long)>},
      {"aten::int", castTo<int(c10::ScalarType::Int)>},
      {"aten::bool", castTo<int(c10::ScalarType::Bool)>},
      {"aten::zeros", zeros},
      {"aten::ones", ones},
      {"aten::empty", zeros},
      {"aten::full", full},
      {"aten::zeros_like", zerosLike},
      {"aten::ones_like", onesLike},
      {"aten::empty_like", zerosLike},
      {"aten::full_like", fullLike},
      {"aten::arange", arange},
      {"aten::tensor", tensorOp},
      // Contractions.
      {"aten::matmul", matmul},
      {"aten::mm", matmul},
      {"aten::bmm", matmul},
      {"aten::linear", linear},
      {"aten::addmm", addmm},
      {"aten::t", transposeT},
      // Convolution, pooling, normalization.
      {"aten::conv1d", conv},
      {"aten::conv2d", conv},
      {"aten::conv3d", conv},
      {"aten::convolution", conv},
      {"aten::_convolution", conv},
      {"aten::max_pool1d", maxPool},
      {"aten::max_pool2d", maxPool},
      {"aten::max_pool3d", maxPool},
      {"aten::avg_pool1d", avgPool},
      {"aten::avg_pool2d", avgPool},
      {"aten::avg_pool3d", avgPool},
      {"aten::adaptive_avg_pool1d", adaptiveAvgPool},
      {"aten::adaptive_avg_pool2d", adaptiveAvgPool},
      {"aten::adaptive_avg_pool3d", adaptiveAvgPool},
      {"aten::batch_norm", batchNorm},
      {"aten::layer_norm", layerNorm},
      // Reductions.
      {"aten::sum", sum},
      {"aten::mean", mean},
      {"aten::prod", prod},
      {"aten::amax", amax},
      {"aten::amin", amin},
      {"aten::max", maxH},
      {"aten::min", minH},
      {"aten::argmax", argmax},
      {"aten::argmin", argmin},
      {"aten::var", var},
      {"aten::std", stdDev},
      {"aten::softmax", softmax<false>},
      {"aten::log_softmax", softmax<true>},
      // Shapes and indexing.
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
      {"aten::chunk", chunk},
      {"aten::split", split},
      {"aten::split_with_sizes", split},
      {"aten::unbind", unbind},
      {"aten::slice", slice},
      {"aten::select", select},
      {"aten::index_select", indexSelect},
      {"aten::gather", gather},
      {"aten::embedding", embedding},
      {"aten::expand", expand},
      {"aten::expand_as", expandAs},
      {"aten::view_as", identity},
  };
  return table;
}
