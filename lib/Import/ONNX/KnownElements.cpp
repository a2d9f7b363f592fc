//===- KnownElements.cpp - Partly known shape values at import ------------===//
//
// Exporters compute shapes with ops: torch.onnx writes a Linear over
// [batch, seq, hidden] as Reshape(x, Concat([-1], Unsqueeze(Gather(Shape(
// ids), 1)), Unsqueeze(Squeeze(Slice(Shape(h), -1))))). The shape is a
// run-time tensor, yet its last element is h's static extent. This file
// tracks such partly known elements (GraphState::knownElements) through the
// ops shape arithmetic uses, so that Reshape keeps the static extents (a
// contraction over a static K is blocked and packed; one over a dynamic K
// is tiled and cannot use pre-packed weights).
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"

#include "mlprog/Import/Common/Creation.h"

#include "mlir/IR/BuiltinTypes.h"

#include <limits>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::onnx_import;

static constexpr int64_t kUnknown = ShapedType::kDynamic;

/// The integer attribute `name` of `node`, or `dflt`.
static int64_t intAttribute(const onnx::NodeProto &node, StringRef name,
                            int64_t dflt) {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return attr.i();
  return dflt;
}

/// `elements[start:stop:step]` with Python's clamping (ONNX Slice).
static SmallVector<int64_t> sliceElements(ArrayRef<int64_t> elements,
                                          int64_t start, int64_t stop,
                                          int64_t step) {
  int64_t n = elements.size();
  auto wrap = [&](int64_t v, int64_t lo, int64_t hi) {
    if (v < 0)
      v += n;
    return std::min(std::max(v, lo), hi);
  };
  SmallVector<int64_t> out;
  if (step > 0) {
    for (int64_t i = wrap(start, 0, n), e = wrap(stop, 0, n); i < e; i += step)
      out.push_back(elements[i]);
  } else if (step < 0) {
    for (int64_t i = wrap(start, 0, n - 1), e = wrap(stop, -1, n - 1); i > e;
         i += step)
      out.push_back(elements[i]);
  }
  return out;
}

/// Elementwise integer arithmetic of partly known values (one-element
/// operands broadcast); unknown where either side is.
static std::optional<SmallVector<int64_t>>
combine(StringRef op, ArrayRef<int64_t> x, ArrayRef<int64_t> y) {
  if (x.size() != y.size() && x.size() != 1 && y.size() != 1)
    return std::nullopt;
  SmallVector<int64_t> out;
  for (size_t i = 0, e = std::max(x.size(), y.size()); i < e; ++i) {
    int64_t a = x[x.size() == 1 ? 0 : i], b = y[y.size() == 1 ? 0 : i];
    if (a == kUnknown || b == kUnknown) {
      out.push_back(kUnknown);
      continue;
    }
    int64_t r;
    if (op == "Add")
      r = a + b;
    else if (op == "Sub")
      r = a - b;
    else if (op == "Mul")
      r = a * b;
    else if (b != 0 && !(a == std::numeric_limits<int64_t>::min() && b == -1))
      r = a / b; // truncated, as onnxruntime and the Div builder (arith.divsi)
    else
      r = kUnknown;
    out.push_back(r);
  }
  return out;
}

/// Replaces `name`, whose every element is known, by a constant: later
/// nodes that need constant operands (Slice bounds, a ConstantOfShape's
/// shape, Reshape targets) then fold. Only integer tensors of rank 0 or 1
/// whose static type holds exactly `elements` are replaced.
static void defineKnownConstant(GraphState &state, OpBuilder &builder,
                                StringRef name, ArrayRef<int64_t> elements,
                                Location loc) {
  if (llvm::is_contained(elements, kUnknown))
    return;
  Value value = state.lookup(name, loc);
  auto type = value ? dyn_cast<RankedTensorType>(value.getType()) : nullptr;
  if (!type || !type.hasStaticShape() || type.getRank() > 1 ||
      type.getNumElements() != int64_t(elements.size()))
    return;
  auto elementType = dyn_cast<IntegerType>(type.getElementType());
  if (!elementType || elementType.getWidth() < 2)
    return;
  SmallVector<APInt> values;
  for (int64_t e : elements)
    values.push_back(APInt(elementType.getWidth(), e, /*isSigned=*/true,
                           /*implicitTrunc=*/true));
  auto constant = DenseElementsAttr::get(type, values);
  state.define(name, buildConstant(builder, loc, constant));
  state.defineConstant(name, constant);
}

void mlprog::onnx_import::propagateKnownElements(GraphState &state,
                                                 OpBuilder &builder,
                                                 const onnx::NodeProto &node,
                                                 Location loc) {
  if (node.output_size() != 1 || node.output(0).empty() ||
      !node.domain().empty() || state.lookupConstant(node.output(0)))
    return;
  StringRef op = node.op_type();
  auto known = [&](int i) -> std::optional<SmallVector<int64_t>> {
    if (i >= node.input_size() || node.input(i).empty())
      return std::nullopt;
    return state.knownElements(node.input(i));
  };
  std::optional<SmallVector<int64_t>> result;
  if (op == "Shape") {
    Value x = node.input_size() ? state.lookup(node.input(0), loc) : Value();
    auto type = x ? dyn_cast<RankedTensorType>(x.getType()) : nullptr;
    if (!type)
      return;
    int64_t rank = type.getRank();
    result = sliceElements(type.getShape(), intAttribute(node, "start", 0),
                           intAttribute(node, "end", rank), 1);
  } else if (op == "Gather") {
    std::optional<SmallVector<int64_t>> data = known(0), indices = known(1);
    if (!data || !indices || intAttribute(node, "axis", 0) != 0)
      return;
    result.emplace();
    int64_t n = data->size();
    for (int64_t i : *indices) {
      if (i < -n || i >= n)
        return;
      result->push_back((*data)[i < 0 ? i + n : i]);
    }
  } else if (op == "Slice") {
    std::optional<SmallVector<int64_t>> data = known(0), starts = known(1),
                                        ends = known(2), axes = known(3),
                                        steps = known(4);
    if (!data || !starts || !ends || starts->size() != 1 || ends->size() != 1 ||
        (axes && (axes->size() != 1 || (*axes)[0] != 0 && (*axes)[0] != -1)))
      return;
    int64_t step = steps && steps->size() == 1 ? (*steps)[0] : 1;
    if ((*starts)[0] == kUnknown || (*ends)[0] == kUnknown ||
        step == kUnknown || step == 0)
      return;
    result = sliceElements(*data, (*starts)[0], (*ends)[0], step);
  } else if (op == "Squeeze" || op == "Unsqueeze" || op == "Identity") {
    result = known(0);
  } else if (op == "Cast") {
    int64_t to = intAttribute(node, "to", 0);
    if (to == onnx::TensorProto::INT64 || to == onnx::TensorProto::INT32)
      result = known(0);
  } else if (op == "Concat") {
    result.emplace();
    for (int i = 0; i < node.input_size(); ++i) {
      std::optional<SmallVector<int64_t>> part = known(i);
      if (!part)
        return;
      llvm::append_range(*result, *part);
    }
  } else if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    std::optional<SmallVector<int64_t>> x = known(0), y = known(1);
    if (x && y)
      result = combine(op, *x, *y);
  }
  // All-unknown results are recorded too: their length places the known
  // elements a Concat appends after them.
  if (!result)
    return;
  defineKnownConstant(state, builder, node.output(0), *result, loc);
  state.recordKnownElements(node.output(0), std::move(*result));
}
