//===- HandlerUtils.cpp - Helpers shared by the MIL op handlers -----------===//
//
// Tensor types, axes and window parameters for the MIL op handlers.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace mlprog::mil_import {

int64_t rankOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank();
}

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

FailureOr<int64_t> normalizeAxis(OpContext &ctx, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return emitError(ctx.loc)
           << "axis " << axis << " out of range for rank " << rank;
  return axis < 0 ? axis + rank : axis;
}

FailureOr<Type> parseDType(OpContext &ctx, StringRef dtype, StringRef op) {
  Builder &b = ctx.b;
  Type type = llvm::StringSwitch<Type>(dtype)
                  .Case("bool", b.getI1Type())
                  .Cases({"int8", "uint8"}, b.getIntegerType(8))
                  .Cases({"int16", "uint16"}, b.getIntegerType(16))
                  .Cases({"int32", "uint32"}, b.getIntegerType(32))
                  .Cases({"int64", "uint64"}, b.getIntegerType(64))
                  .Case("fp16", b.getF16Type())
                  .Case("fp32", b.getF32Type())
                  .Case("fp64", b.getF64Type())
                  .Case("bf16", b.getBF16Type())
                  .Default(Type());
  if (!type)
    return emitError(ctx.loc)
           << "unsupported " << op << " dtype '" << dtype << "'";
  return type;
}

FailureOr<WindowParams> getWindowParams(OpContext &ctx, Value x,
                                        ArrayRef<int64_t> kernel,
                                        bool hasDilations) {
  size_t n = kernel.size();
  WindowParams params;
  FailureOr<SmallVector<int64_t>> strides =
      ctx.getInts("strides", SmallVector<int64_t>(n, 1));
  FailureOr<SmallVector<int64_t>> dilations =
      hasDilations
          ? ctx.getInts("dilations", SmallVector<int64_t>(n, 1))
          : FailureOr<SmallVector<int64_t>>(SmallVector<int64_t>(n, 1));
  FailureOr<std::string> padType =
      ctx.getString("pad_type", std::string("valid"));
  if (failed(strides) || failed(dilations) || failed(padType))
    return failure();
  if (strides->size() != n || dilations->size() != n)
    return emitError(ctx.loc) << "strides/dilations need " << n << " values";
  params.strides = *strides;
  params.dilations = *dilations;
  if (*padType == "valid")
    return params;
  if (*padType == "custom") {
    FailureOr<SmallVector<int64_t>> pad =
        ctx.getInts("pad", SmallVector<int64_t>(2 * n, 0));
    if (failed(pad))
      return failure();
    if (pad->size() != 2 * n)
      return emitError(ctx.loc)
             << "expected " << 2 * n << " pad values, got " << pad->size();
    for (size_t i = 0; i < n; ++i) {
      params.padsBegin.push_back((*pad)[2 * i]);
      params.padsEnd.push_back((*pad)[2 * i + 1]);
    }
    return params;
  }
  if (*padType != "same" && *padType != "same_lower")
    return emitError(ctx.loc) << "invalid pad_type '" << *padType << "'";
  ArrayRef<int64_t> shape = typeOf(x).getShape();
  if (shape.size() != n + 2)
    return emitError(ctx.loc) << "pad_type " << *padType << " needs " << n + 2
                              << "-D input, got " << x.getType();
  // With stride 1 the padding does not depend on the extent.
  for (size_t i = 0; i < n; ++i)
    if (ShapedType::isDynamic(shape[2 + i]) && params.strides[i] != 1)
      return emitError(ctx.loc) << "unsupported pad_type " << *padType
                                << " with a dynamic spatial extent and stride "
                                << params.strides[i];
  computeSamePadding(shape.drop_front(2), kernel, *padType == "same_lower",
                     params);
  return params;
}

std::optional<SmallVector<int64_t>> foldedInts(OpContext &ctx, StringRef name) {
  auto it = ctx.op.inputs().find(name.str());
  if (it == ctx.op.inputs().end() || it->second.arguments_size() != 1)
    return std::nullopt;
  const mil::Argument::Binding &binding = it->second.arguments(0);
  const mil::Value *constant = nullptr;
  Value value;
  if (binding.has_value()) {
    constant = &binding.value();
  } else {
    const NamedValue *named = ctx.importer.lookup(binding.name());
    if (!named)
      return std::nullopt;
    constant = named->constant;
    value = named->value;
  }
  if (constant) {
    FailureOr<SmallVector<int64_t>> ints = readInts(ctx.loc, *constant, name);
    if (failed(ints))
      return std::nullopt;
    return *ints;
  }
  DenseIntElementsAttr attr;
  if (!value || !matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  SmallVector<int64_t> ints;
  for (const APInt &v : attr.getValues<APInt>())
    ints.push_back(v.getSExtValue());
  return ints;
}

RankedTensorType declaredType(OpContext &ctx, unsigned i) {
  if (int(i) >= ctx.op.outputs_size() || !ctx.op.outputs(i).has_type())
    return {};
  const mil::ValueType &type = ctx.op.outputs(i).type();
  if (!type.has_tensortype())
    return {};
  // An invalid declared type fails the output's bind with the same error.
  FailureOr<RankedTensorType> t =
      convertValueType(ctx.loc, ctx.importer.ctx, type, "output");
  return succeeded(t) ? *t : RankedTensorType();
}

FailureOr<SmallVector<int64_t>> getTupleInts(OpContext &ctx, StringRef name) {
  auto it = ctx.op.inputs().find(name.str());
  if (it == ctx.op.inputs().end() || it->second.arguments_size() <= 1)
    return ctx.getInts(name);
  SmallVector<int64_t> out;
  for (const mil::Argument::Binding &binding : it->second.arguments()) {
    const mil::Value *constant = nullptr;
    if (binding.has_value()) {
      constant = &binding.value();
    } else if (const NamedValue *named = ctx.importer.lookup(binding.name())) {
      constant = named->constant;
    } else {
      return emitError(ctx.loc)
             << "parameter '" << name << "' refers to undefined name '"
             << binding.name() << "'";
    }
    if (!constant)
      return emitError(ctx.loc)
             << "parameter '" << name
             << "' must be a compile-time constant, but '" << binding.name()
             << "' is computed at run "
                "time";
    FailureOr<SmallVector<int64_t>> v = readInts(ctx.loc, *constant, name);
    if (failed(v))
      return failure();
    out.append(v->begin(), v->end());
  }
  return out;
}

} // namespace mlprog::mil_import
