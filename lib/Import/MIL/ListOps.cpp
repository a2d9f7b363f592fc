//===- ListOps.cpp - MIL lists: make_list, list_read, list_write ... ------===//
//
// MIL lists (coremltools ops/defs/iOS15/control_flow.py; no later opset
// changes them) hold tensors of one element type and shape. A list is one
// sequence tensor [length, element dims] (mlprog/Import/Common/Sequence.h)
// bound to the list's name with a ListInfo: while_loop and cond carry it like
// any tensor (ControlFlowOps.cpp), so a list written in a loop body is a
// loop-carried tensor updated in place, as a TensorArray is.
//
// A list made with a symbolic elem_shape has no tensor until the first
// list_write/list_scatter gives its element shape (or a while_loop/cond
// declares it); reading it before is a located error.
//
// Handlers read the op's named arguments and compile-time parameters
// (supplying the MIL spec defaults) and call the shared builders in
// mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"

#include "mlprog/Import/Common/Sequence.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace mlprog::mil_import {

FailureOr<RankedTensorType> convertListElementType(Location loc,
                                                   MLIRContext *ctx,
                                                   const mil::ValueType &type,
                                                   StringRef what) {
  if (!type.has_listtype())
    return emitError(loc) << what << " is not declared as a list";
  return convertValueType(loc, ctx, type.listtype().type(),
                          "the elements of " + what.str());
}

FailureOr<NamedValue> materializeList(OpContext &ctx, const NamedValue &list,
                                      const mil::ValueType *declared,
                                      StringRef what,
                                      RankedTensorType inferred) {
  if (!list.list || list.value)
    return list;
  RankedTensorType element;
  if (declared && declared->has_listtype()) {
    FailureOr<RankedTensorType> t =
        convertListElementType(ctx.loc, ctx.b.getContext(), *declared, what);
    if (failed(t))
      return failure();
    element = *t;
  }
  if ((!element || !element.hasStaticShape()) && inferred)
    element = inferred;
  if (!element || !element.hasStaticShape() ||
      element.getElementType() != list.list->elementType)
    return emitError(ctx.loc)
           << "unsupported " << what
           << ": a list whose element shape is unknown (symbolic elem_shape, "
              "no element written yet)";
  FailureOr<Value> seq =
      buildSequenceEmpty(ctx.b, ctx.loc, element, list.list->pendingLength);
  if (failed(seq))
    return failure();
  return NamedValue{*seq, nullptr, ListInfo{list.list->dynamicLength}};
}

namespace {

/// The list bound to `param`; a located error for a tensor.
FailureOr<NamedValue> getList(OpContext &ctx, StringRef param) {
  FailureOr<NamedValue> v = ctx.namedInput(param);
  if (failed(v))
    return failure();
  if (!v->list)
    return emitError(ctx.loc)
           << "parameter '" << param
           << "' must be a list, got a tensor of type " << v->value.getType();
  return v;
}

/// The list bound to `param` with its tensor made; a located error when its
/// element shape is still unknown (`op` reads it).
FailureOr<NamedValue> getWrittenList(OpContext &ctx, StringRef param) {
  FailureOr<NamedValue> list = getList(ctx, param);
  if (failed(list))
    return failure();
  if (!list->value)
    return emitError(ctx.loc)
           << "unsupported read of a list whose element shape is unknown "
              "(symbolic elem_shape, no element written yet)";
  return list;
}

/// The int32 scalar bound to `param` as an index: an attribute when it is
/// a compile-time value, else an index Value read from the tensor.
FailureOr<OpFoldResult> getIndex(OpContext &ctx, StringRef param) {
  if (const mil::Value *c = ctx.peekConstant(param)) {
    FailureOr<SmallVector<int64_t>> v = readInts(ctx.loc, *c, param);
    if (failed(v))
      return failure();
    if (v->size() != 1)
      return emitError(ctx.loc)
             << "parameter '" << param << "' must be a scalar";
    return OpFoldResult(ctx.b.getIndexAttr(v->front()));
  }
  FailureOr<Value> t = ctx.input(param);
  if (failed(t))
    return failure();
  auto type = cast<RankedTensorType>(t->getType());
  if (!type.hasStaticShape() || type.getNumElements() != 1 ||
      !isa<IntegerType>(type.getElementType()) ||
      type.getElementType().isInteger(1))
    return emitError(ctx.loc) << "parameter '" << param
                              << "' must be an integer scalar, got " << type;
  SmallVector<Value> zeros(type.getRank(),
                           arith::ConstantIndexOp::create(ctx.b, ctx.loc, 0));
  Value scalar = tensor::ExtractOp::create(ctx.b, ctx.loc, *t, zeros);
  return OpFoldResult(
      arith::IndexCastOp::create(ctx.b, ctx.loc, ctx.b.getIndexType(), scalar)
          .getResult());
}

/// The static length of a list, if known.
std::optional<int64_t> staticLength(const NamedValue &list) {
  if (!list.value)
    return std::nullopt;
  int64_t n = cast<RankedTensorType>(list.value.getType()).getDimSize(0);
  return ShapedType::isDynamic(n) ? std::nullopt : std::optional<int64_t>(n);
}

/// Refuses a compile-time index outside [0, n) of a list of static length
/// n (`growable`: only negative indices).
LogicalResult checkIndex(OpContext &ctx, const NamedValue &list, int64_t index,
                         bool growable, StringRef what) {
  std::optional<int64_t> n = staticLength(list);
  if (index < 0)
    return emitError(ctx.loc) << what << " index " << index << " is negative";
  if (n && index >= *n && !growable)
    return emitError(ctx.loc)
           << what << " index " << index << " is past the end of a "
           << (list.list->dynamicLength ? "list" : "fixed-length list")
           << " of length " << *n;
  return success();
}

/// A list whose element shape was unknown gets zero elements of type
/// `element` (from its first write).
FailureOr<NamedValue> makeFromWrite(OpContext &ctx, const NamedValue &list,
                                    RankedTensorType element,
                                    ArrayRef<OpFoldResult> elementSizes) {
  if (list.value)
    return list;
  if (element.getElementType() != list.list->elementType)
    return emitError(ctx.loc)
           << "element type " << element.getElementType()
           << " does not match the list's dtype " << list.list->elementType;
  FailureOr<Value> seq = buildSequenceEmpty(
      ctx.b, ctx.loc, element, list.list->pendingLength, elementSizes);
  if (failed(seq))
    return failure();
  return NamedValue{*seq, nullptr, ListInfo{list.list->dynamicLength}};
}

/// The compile-time ints bound to each argument of the variadic parameter
/// `param` (each a scalar or a 1-D tensor; strings become -1, a dynamic
/// extent).
FailureOr<SmallVector<int64_t>> getShapeTuple(OpContext &ctx, StringRef param) {
  auto it = ctx.op.inputs().find(std::string(param));
  if (it == ctx.op.inputs().end())
    return emitError(ctx.loc) << "missing required parameter '" << param << "'";
  SmallVector<int64_t> shape;
  for (const mil::Argument::Binding &binding : it->second.arguments()) {
    const mil::Value *value = nullptr;
    if (binding.has_value()) {
      value = &binding.value();
    } else if (const NamedValue *named = ctx.importer.lookup(binding.name())) {
      value = named->constant;
    }
    if (!value)
      return emitError(ctx.loc) << "parameter '" << param
                                << "' must be a tuple of compile-time values";
    if (value->type().has_tensortype() &&
        value->type().tensortype().datatype() == mil::STRING) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    FailureOr<SmallVector<int64_t>> ints = readInts(ctx.loc, *value, param);
    if (failed(ints))
      return failure();
    for (int64_t d : *ints) {
      if (d < 0)
        return emitError(ctx.loc)
               << "negative extent " << d << " in '" << param << "'";
      shape.push_back(d);
    }
  }
  return shape;
}

/// make_list(init_length = 1, dynamic_length = true, elem_shape, dtype =
/// "fp32"): `init_length` zero elements. elem_shape entries that are strings
/// (symbols) take the extent the declared output type gives, if any; a list
/// with extents still unknown waits for its first write.
LogicalResult importMakeList(OpContext &ctx) {
  FailureOr<bool> dynamicLength = ctx.getBool("dynamic_length", true);
  FailureOr<std::string> dtype = ctx.getString("dtype", std::string("fp32"));
  FailureOr<SmallVector<int64_t>> shape = getShapeTuple(ctx, "elem_shape");
  if (failed(dynamicLength) || failed(dtype) || failed(shape))
    return failure();
  FailureOr<Type> elementType = parseDType(ctx, *dtype, "make_list");
  if (failed(elementType))
    return failure();
  OpFoldResult length = ctx.b.getIndexAttr(1);
  if (ctx.has("init_length") && ctx.peekConstant("init_length")) {
    FailureOr<int64_t> n = ctx.getInt("init_length");
    if (failed(n))
      return failure();
    if (*n < 0)
      return emitError(ctx.loc) << "negative make_list init_length " << *n;
    length = ctx.b.getIndexAttr(*n);
  } else if (ctx.has("init_length")) {
    FailureOr<OpFoldResult> n = getIndex(ctx, "init_length");
    if (failed(n))
      return failure();
    length = *n;
  }
  // Symbolic extents the declared type knows.
  if (ctx.numOutputs() > 0 && ctx.op.outputs(0).type().has_listtype()) {
    FailureOr<RankedTensorType> declared = convertListElementType(
        ctx.loc, ctx.b.getContext(), ctx.op.outputs(0).type(), "make_list");
    if (failed(declared))
      return failure();
    if (declared->getRank() != int64_t(shape->size()))
      return emitError(ctx.loc)
             << "make_list elem_shape has " << shape->size()
             << " extents but its output is declared with elements of type "
             << *declared;
    for (auto [d, decl] : llvm::zip(*shape, declared->getShape()))
      if (ShapedType::isDynamic(d))
        d = decl;
  }
  auto element = RankedTensorType::get(*shape, *elementType);
  ListInfo info{*dynamicLength};
  if (!element.hasStaticShape()) {
    info.pendingLength =
        getValueOrCreateConstantIndexOp(ctx.b, ctx.loc, length);
    info.elementType = *elementType;
    return ctx.setNamedResult(0, NamedValue{Value(), nullptr, info});
  }
  FailureOr<Value> seq = buildSequenceEmpty(ctx.b, ctx.loc, element, length);
  if (failed(seq))
    return failure();
  return ctx.setNamedResult(0, NamedValue{*seq, nullptr, info});
}

/// list_length(ls): the current length, an int32 scalar.
LogicalResult importListLength(OpContext &ctx) {
  FailureOr<NamedValue> list = getList(ctx, "ls");
  if (failed(list))
    return failure();
  Value n = list->value ? buildSequenceLength(ctx.b, ctx.loc, list->value)
                        : list->list->pendingLength;
  Value i32 = arith::IndexCastOp::create(ctx.b, ctx.loc, ctx.b.getI32Type(), n);
  return ctx.setResult(
      0, tensor::FromElementsOp::create(
             ctx.b, ctx.loc, RankedTensorType::get({}, ctx.b.getI32Type()), i32)
             .getResult());
}

/// list_read(ls, index): element `index` (in [0, length)).
LogicalResult importListRead(OpContext &ctx) {
  FailureOr<NamedValue> list = getWrittenList(ctx, "ls");
  FailureOr<OpFoldResult> index = getIndex(ctx, "index");
  if (failed(list) || failed(index))
    return failure();
  if (std::optional<int64_t> c = getConstantIntValue(*index))
    if (failed(checkIndex(ctx, *list, *c, false, "list_read")))
      return failure();
  return ctx.setResult(0, buildSequenceAt(ctx.b, ctx.loc, list->value, *index));
}

/// list_write(ls, index, value): `ls` with element `index` set to `value`
/// (a dynamic-length list grows to index + 1 elements when needed).
LogicalResult importListWrite(OpContext &ctx) {
  FailureOr<NamedValue> list = getList(ctx, "ls");
  FailureOr<OpFoldResult> index = getIndex(ctx, "index");
  FailureOr<Value> value = ctx.input("value");
  if (failed(list) || failed(index) || failed(value))
    return failure();
  bool growable = list->list->dynamicLength;
  if (std::optional<int64_t> c = getConstantIntValue(*index))
    if (failed(checkIndex(ctx, *list, *c, growable, "list_write")))
      return failure();
  FailureOr<NamedValue> made =
      makeFromWrite(ctx, *list, typeOf(*value),
                    tensor::getMixedSizes(ctx.b, ctx.loc, *value));
  if (failed(made))
    return failure();
  FailureOr<Value> seq =
      buildSequenceSet(ctx.b, ctx.loc, made->value, *index, *value, growable);
  if (failed(seq))
    return failure();
  return ctx.setNamedResult(0, NamedValue{*seq, nullptr, made->list});
}

/// Refuses compile-time `indices` outside a list of static length.
LogicalResult checkIndices(OpContext &ctx, const NamedValue &list,
                           bool growable, StringRef what) {
  const mil::Value *c = ctx.peekConstant("indices");
  if (!c)
    return success();
  FailureOr<SmallVector<int64_t>> values = readInts(ctx.loc, *c, "indices");
  if (failed(values))
    return failure();
  for (int64_t v : *values)
    if (failed(checkIndex(ctx, list, v, growable, what)))
      return failure();
  return success();
}

/// list_gather(ls, indices): the elements at `indices` stacked, [K, elem...].
LogicalResult importListGather(OpContext &ctx) {
  FailureOr<NamedValue> list = getWrittenList(ctx, "ls");
  FailureOr<Value> indices = ctx.input("indices");
  if (failed(list) || failed(indices))
    return failure();
  if (failed(checkIndices(ctx, *list, false, "list_gather")))
    return failure();
  return ctx.setResult(
      0, buildSequenceGather(ctx.b, ctx.loc, list->value, *indices));
}

/// list_scatter(ls, indices, value): `ls` with element indices[k] set to
/// value[k] (a dynamic-length list grows to max(indices) + 1 elements).
LogicalResult importListScatter(OpContext &ctx) {
  FailureOr<NamedValue> list = getList(ctx, "ls");
  FailureOr<Value> indices = ctx.input("indices");
  FailureOr<Value> value = ctx.input("value");
  if (failed(list) || failed(indices) || failed(value))
    return failure();
  bool growable = list->list->dynamicLength;
  if (failed(checkIndices(ctx, *list, growable, "list_scatter")))
    return failure();
  RankedTensorType vt = typeOf(*value);
  if (vt.getRank() < 1)
    return emitError(ctx.loc) << "list_scatter value must have a leading "
                                 "dimension of updates, got "
                              << vt;
  SmallVector<OpFoldResult> sizes =
      tensor::getMixedSizes(ctx.b, ctx.loc, *value);
  sizes.erase(sizes.begin());
  FailureOr<NamedValue> made = makeFromWrite(
      ctx, *list,
      RankedTensorType::get(vt.getShape().drop_front(), vt.getElementType()),
      sizes);
  if (failed(made))
    return failure();
  FailureOr<Value> seq = buildSequenceScatter(ctx.b, ctx.loc, made->value,
                                              *indices, *value, growable);
  if (failed(seq))
    return failure();
  return ctx.setNamedResult(0, NamedValue{*seq, nullptr, made->list});
}

} // namespace

void registerListOps(OpTable &table) {
  table.add({
      {"make_list", importMakeList},
      {"list_length", importListLength},
      {"list_read", importListRead},
      {"list_write", importListWrite},
      {"list_gather", importListGather},
      {"list_scatter", importListScatter},
  });
}

} // namespace mlprog::mil_import
