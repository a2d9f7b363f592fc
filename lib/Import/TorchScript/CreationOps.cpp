//===- CreationOps.cpp - aten tensor creation -----------------------------===//
//
// `zeros`, `ones`, `full`, `empty` (and their `_like` forms), `arange`,
// `tensor`, and the values of the in-place `zero_` and `fill_`.
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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

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

/// fill_.Scalar / fill_.Tensor(self, value) as a value: a tensor shaped and
/// typed like `self` holding `value` (a number or a 0-d tensor).
LogicalResult fillLike(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  Type et = elemOf(*x);
  const TSValue &v = im.get(n->input(1));
  Value s;
  if (v.isTensor()) {
    FailureOr<Value> t = im.tensorOf(v, et, l);
    if (failed(t))
      return failure();
    if (rankOf(*t) != 0)
      return emitError(l) << "fill_ expects a 0-d tensor value, got "
                          << t->getType();
    s = tensor::ExtractOp::create(im.b, l, *t, ValueRange{});
  } else if (v.isScalar()) {
    s = im.scalarAs(v, et, l);
  } else {
    return emitError(l) << "fill_ expects a number or a 0-d tensor value";
  }
  return im.setTensor(
      n, 0, buildFull(im.b, l, tensor::getMixedSizes(im.b, l, *x), et, s));
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

} // namespace

void mlprog::torchscript::registerCreationOps(OpTable &table) {
  table.add({
      {"aten::zeros", zeros},
      {"aten::ones", ones},
      {"aten::empty", zeros},
      {"aten::full", full},
      {"aten::zeros_like", zerosLike},
      {"aten::ones_like", onesLike},
      {"aten::empty_like", zerosLike},
      {"aten::full_like", fullLike},
      {"aten::zero", zerosLike},
      {"aten::fill", fillLike},
      {"aten::arange", arange},
      {"aten::tensor", tensorOp},
  });
}
