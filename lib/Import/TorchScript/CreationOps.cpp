//===- CreationOps.cpp - aten tensor creation -----------------------------===//
//
// `zeros`, `ones`, `full`, `empty` (their `_like` and `new_` forms, sizes
// known at import time or not), `arange`,
// `linspace`, `logspace`, `tensor`, and the values of the in-place `zero_`
// and `fill_`.
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

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// Where a creation op takes its shape and default dtype from: a size list
/// (zeros), another tensor (zeros_like), or a size list with the dtype of
/// `self` (self.new_zeros).
enum class ShapeFrom { Sizes, Like, New };

/// zeros/ones/full/empty(size, [fill], dtype, ...), the *_like forms and the
/// new_* methods. Sizes may be run-time ints (`x.size(0)`).
LogicalResult fill(Im &im, Node *n, std::optional<double> value,
                   ShapeFrom from) {
  Location l = im.loc(n);
  const c10::FunctionSchema &schema = n->schema();
  SmallVector<OpFoldResult> sizes;
  Type et;
  if (from != ShapeFrom::Sizes) {
    FailureOr<Value> x = im.tensorInput(n, 0);
    if (failed(x))
      return failure();
    if (from == ShapeFrom::Like)
      sizes = tensor::getMixedSizes(im.b, l, *x);
    et = elemOf(*x);
  }
  if (from != ShapeFrom::Like) {
    FailureOr<SmallVector<OpFoldResult>> s =
        sizesInput(im, n, from == ShapeFrom::New ? 1 : 0);
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

/// The value a creation op fills with: 0, 1, or its `fill_value` argument.
enum class FillWith { Zero, One, Argument };

template <FillWith V, ShapeFrom F> LogicalResult fillH(Im &im, Node *n) {
  std::optional<double> value;
  if (V != FillWith::Argument)
    value = V == FillWith::One ? 1.0 : 0.0;
  return fill(im, n, value, F);
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
/// arange.start_step(start, end, step, ...). Bounds known only at run time
/// (`torch.arange(x.size(1))`, BERT/GPT position ids) give a 1-D tensor of
/// dynamic extent.
LogicalResult arange(Im &im, Node *n) {
  Location l = im.loc(n);
  const c10::FunctionSchema &schema = n->schema();
  std::string ov = schema.overload_name();
  SmallVector<unsigned> args; // start, end, step positions (end only: one)
  if (ov.empty() || ov == "out")
    args = {0};
  else if (ov == "start_step")
    args = {0, 1, 2};
  else
    args = {0, 1};
  bool anyFloat = false, allConst = true;
  for (unsigned i : args) {
    const TSValue &v = im.get(n->input(i));
    if (!v.isScalar())
      return emitError(l) << "expected a number for argument " << i << " of "
                          << n->kind().toQualString();
    anyFloat |= v.kind == TSValue::Kind::Float;
    allConst &= v.isConstScalar();
  }
  Type et = anyFloat ? Type(im.b.getF32Type()) : Type(im.b.getI64Type());
  if (auto di = schema.argumentIndexWithName("dtype")) {
    FailureOr<Type> t = im.dtypeInput(n, *di);
    if (failed(t))
      return failure();
    if (*t)
      et = *t;
  }
  TSValue start = TSValue::ofInt(0), step = TSValue::ofInt(1);
  TSValue end = im.get(n->input(args.size() == 1 ? 0 : 1));
  if (args.size() > 1)
    start = im.get(n->input(0));
  if (args.size() > 2)
    step = im.get(n->input(2));
  if (allConst)
    return im.setTensor(n, 0,
                        buildArange(im.b, l, *start.asDouble(), *end.asDouble(),
                                    *step.asDouble(), et));
  // Run-time bounds: computed in the widest type of their kind (as torch
  // does), then converted to the result dtype.
  Type ct = anyFloat ? Type(im.b.getF64Type()) : Type(im.b.getI64Type());
  FailureOr<Value> s = im.tensorOf(start, ct, l), e = im.tensorOf(end, ct, l),
                   d = im.tensorOf(step, ct, l);
  if (failed(s) || failed(e) || failed(d))
    return failure();
  FailureOr<Value> range = buildRangeDynamic(im.b, l, *s, *e, *d);
  if (failed(range))
    return failure();
  return im.setTensor(n, 0, buildConvertElementType(im.b, l, *range, et));
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

/// Argument `i` (a number or a 0-d tensor, read at run time) as a scalar.
FailureOr<Value> scalarOrItem(Im &im, Node *n, unsigned i) {
  Location l = im.loc(n);
  const TSValue &v = im.get(n->input(i));
  if (v.isScalar())
    return im.scalarValue(v, l);
  FailureOr<Value> t = im.tensorInput(n, i);
  if (failed(t))
    return failure();
  if (rankOf(*t) != 0)
    return emitError(l) << n->kind().toQualString()
                        << ": expected a number or a 0-d tensor, got "
                        << t->getType();
  return tensor::ExtractOp::create(im.b, l, *t, ValueRange{}).getResult();
}

/// linspace(start, end, steps, dtype, ...) and logspace(start, end, steps,
/// base, dtype, ...); start and end may be 0-d tensors (the default dtype
/// is float32 either way).
LogicalResult linspace(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> start = scalarOrItem(im, n, 0), end = scalarOrItem(im, n, 1);
  FailureOr<int64_t> steps = im.intInput(n, 2);
  if (failed(start) || failed(end) || failed(steps))
    return failure();
  std::optional<double> base;
  if (std::string(n->kind().toUnqualString()) == "logspace") {
    FailureOr<double> bv = im.numberInput(n, 3);
    if (failed(bv))
      return failure();
    base = *bv;
  }
  Type et = im.b.getF32Type();
  if (auto di = n->schema().argumentIndexWithName("dtype")) {
    FailureOr<Type> t = im.dtypeInput(n, *di);
    if (failed(t))
      return failure();
    if (*t)
      et = *t;
  }
  return im.setTensor(n, 0,
                      buildLinspace(im.b, l, *start, *end, *steps, et, base));
}

} // namespace

void mlprog::torchscript::registerCreationOps(OpTable &table) {
  table.add({
      {"aten::linspace", linspace},
      {"aten::logspace", linspace},
      {"aten::zeros", fillH<FillWith::Zero, ShapeFrom::Sizes>},
      {"aten::ones", fillH<FillWith::One, ShapeFrom::Sizes>},
      {"aten::empty", fillH<FillWith::Zero, ShapeFrom::Sizes>},
      {"aten::full", fillH<FillWith::Argument, ShapeFrom::Sizes>},
      {"aten::zeros_like", fillH<FillWith::Zero, ShapeFrom::Like>},
      {"aten::ones_like", fillH<FillWith::One, ShapeFrom::Like>},
      {"aten::empty_like", fillH<FillWith::Zero, ShapeFrom::Like>},
      {"aten::full_like", fillH<FillWith::Argument, ShapeFrom::Like>},
      {"aten::new_zeros", fillH<FillWith::Zero, ShapeFrom::New>},
      {"aten::new_ones", fillH<FillWith::One, ShapeFrom::New>},
      {"aten::new_empty", fillH<FillWith::Zero, ShapeFrom::New>},
      {"aten::new_full", fillH<FillWith::Argument, ShapeFrom::New>},
      {"aten::zero", fillH<FillWith::Zero, ShapeFrom::Like>},
      {"aten::fill", fillLike},
      {"aten::arange", arange},
      {"aten::tensor", tensorOp},
  });
}
