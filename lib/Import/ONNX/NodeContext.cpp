//===- NodeContext.cpp - What an ONNX op handler sees ---------------------===//

#include "NodeContext.h"
#include "TensorConversion.h"

#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/Import/Common/Creation.h"

#include "mlir/IR/Diagnostics.h"

using namespace mlir;

namespace mlprog::onnx_import {

Value GraphState::lookup(StringRef name, Location loc) {
  if (Value v = values.lookup(name))
    return v;
  auto symbol = initializerSymbols.find(name);
  if (symbol == initializerSymbols.end())
    return Value();
  DenseElementsAttr value = constants.lookup(name);
  Type type = value ? value.getType() : externalTypes.lookup(name);
  OpBuilder::InsertionGuard guard(builder);
  Block *block = builder.getInsertionBlock();
  if (entryBlock && block && block != entryBlock)
    if (Operation *parent = block->getParentOp())
      if (Operation *ancestor = entryBlock->findAncestorOpInBlock(*parent))
        builder.setInsertionPoint(ancestor);
  // A string initializer has no global (a global's value is a dense
  // attribute, and strings are pointers at run time): it is built in place.
  if (isa_and_nonnull<DenseStringElementsAttr>(value)) {
    Value built = buildConstant(builder, loc, value);
    values[name] = built;
    return built;
  }
  Value loaded = GlobalLoadConstOp::create(
      builder, loc, type,
      FlatSymbolRefAttr::get(builder.getContext(), symbol->second));
  values[name] = loaded;
  return loaded;
}

void GraphState::recordValueInfo(const onnx::ValueInfoProto &info) {
  if (info.type().value_case() == onnx::TypeProto::VALUE_NOT_SET)
    return;
  declaredTypes[info.name()] = &info.type();
  if (info.type().has_tensor_type())
    dataTypes[info.name()] = info.type().tensor_type().elem_type();
}

std::optional<SmallVector<int64_t>>
GraphState::staticShape(StringRef name) const {
  const onnx::TypeProto *type = declaredTypes.lookup(name);
  if (!type || !type->has_tensor_type() || !type->tensor_type().has_shape())
    return std::nullopt;
  SmallVector<int64_t> shape;
  for (const auto &dim : type->tensor_type().shape().dim()) {
    if (!dim.has_dim_value())
      return std::nullopt;
    shape.push_back(dim.dim_value());
  }
  return shape;
}

/// The largest constant knownElements reads: shapes, not data.
static constexpr int64_t kMaxKnownElements = 64;

std::optional<SmallVector<int64_t>>
GraphState::knownElements(StringRef name) const {
  if (DenseElementsAttr c = constants.lookup(name)) {
    auto type = cast<ShapedType>(c.getType());
    if (!type.getElementType().isInteger() ||
        type.getElementType().getIntOrFloatBitWidth() == 1 ||
        type.getRank() > 1 || type.getNumElements() > kMaxKnownElements)
      return std::nullopt;
    SmallVector<int64_t> elements;
    for (const APInt &v : c.getValues<APInt>())
      elements.push_back(v.getSExtValue());
    return elements;
  }
  auto it = knownShapeElements.find(name);
  if (it == knownShapeElements.end())
    return std::nullopt;
  return it->second;
}

FailureOr<Value> NodeContext::input(unsigned i) {
  if (!hasInput(i))
    return emitError(loc) << "missing input " << i;
  if (Value v = graph.lookup(node.input(i), loc))
    return v;
  return emitError(loc) << "input '" << node.input(i) << "' is undefined";
}

Value NodeContext::optionalInput(unsigned i) {
  return hasInput(i) ? graph.lookup(node.input(i), loc) : Value();
}

FailureOr<DenseElementsAttr> NodeContext::constantInput(unsigned i) {
  if (!hasInput(i))
    return emitError(loc) << "missing input " << i;
  if (DenseElementsAttr c = graph.lookupConstant(node.input(i)))
    return c;
  return emitError(loc) << "input '" << node.input(i)
                        << "' must be a constant or initializer";
}

bool NodeContext::isUnsignedInput(unsigned i) const {
  return hasInput(i) && isUnsignedDataType(graph.dataType(node.input(i)));
}

const onnx::AttributeProto *NodeContext::attribute(StringRef name) const {
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

int64_t NodeContext::getInt(StringRef name, int64_t dflt) const {
  const onnx::AttributeProto *attr = attribute(name);
  return attr && attr->has_i() ? attr->i() : dflt;
}

double NodeContext::getFloat(StringRef name, double dflt) const {
  const onnx::AttributeProto *attr = attribute(name);
  return attr && attr->has_f() ? attr->f() : dflt;
}

std::string NodeContext::getString(StringRef name, StringRef dflt) const {
  const onnx::AttributeProto *attr = attribute(name);
  return attr && attr->has_s() ? attr->s() : dflt.str();
}

SmallVector<int64_t> NodeContext::getInts(StringRef name) const {
  const onnx::AttributeProto *attr = attribute(name);
  if (!attr)
    return {};
  return SmallVector<int64_t>(attr->ints().begin(), attr->ints().end());
}

LogicalResult NodeContext::setResult(unsigned i, FailureOr<Value> value) {
  if (failed(value))
    return failure();
  if (hasOutput(i))
    graph.define(node.output(i), *value);
  return success();
}

void NodeContext::setConstantResult(unsigned i, Value value,
                                    DenseElementsAttr constant) {
  if (!hasOutput(i))
    return;
  graph.define(node.output(i), value);
  graph.defineConstant(node.output(i), constant);
}

FailureOr<int64_t> normalizeAxis(NodeContext &ctx, int64_t axis, int64_t rank,
                                 bool inclusiveEnd) {
  int64_t hi = inclusiveEnd ? rank : rank - 1;
  if (axis < -rank || axis > hi)
    return emitError(ctx.loc)
           << "axis " << axis << " out of range for rank " << rank;
  return axis < 0 ? axis + rank : axis;
}

FailureOr<SmallVector<int64_t>>
normalizeDistinctAxes(NodeContext &ctx, ArrayRef<int64_t> axes, int64_t rank) {
  SmallVector<int64_t> result;
  for (int64_t a : axes) {
    FailureOr<int64_t> n = normalizeAxis(ctx, a, rank);
    if (failed(n))
      return failure();
    if (llvm::is_contained(result, *n))
      return emitError(ctx.loc)
             << ctx.node.op_type() << ": repeated axis " << a;
    result.push_back(*n);
  }
  return result;
}

int64_t rankOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank();
}

} // namespace mlprog::onnx_import
