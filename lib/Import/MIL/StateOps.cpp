//===- StateOps.cpp - MIL states: read_state, coreml_update_state ---------===//
//
// Core ML states (iOS18, coremltools ops/defs/iOS18/states.py). A function
// input of StateType is no argument: it is a private mutable
// `ml_program.global` (zeros, as Core ML's make_state() gives), shared by
// the functions of the program (DESIGN.md rule 5, docs/state.md).
// `read_state` loads it with `global_load`; `coreml_update_state` stores
// its value with `global_store` and returns that value; `write_state`, the
// form coremltools saves it in (with a read_state after it), only stores.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace mlprog::mil_import {

LogicalResult ProgramImporter::declareState(const mil::NamedValueType &input) {
  Location loc = locFor(input.name());
  const mil::ValueType &wrapped = input.type().statetype().wrappedtype();
  if (!wrapped.has_tensortype())
    return emitError(loc) << "unsupported state '" << input.name()
                          << "': only tensor states are supported";
  FailureOr<RankedTensorType> type =
      convertValueType(loc, ctx, wrapped, "state '" + input.name() + "'");
  if (failed(type))
    return failure();
  if (!type->hasStaticShape())
    return emitError(loc) << "unsupported state '" << input.name()
                          << "' of dynamic shape " << *type;
  if (GlobalOp existing = states.lookup(input.name())) {
    if (existing.getType() != *type)
      return emitError(loc)
             << "state '" << input.name() << "' is " << *type << " here but "
             << existing.getType() << " in another function";
    return success();
  }
  Attribute zeros = DenseElementsAttr::get(
      *type, cast<TypedAttr>(builder.getZeroAttr(type->getElementType())));
  states[input.name()] = programBuilder.createGlobal(
      globalBuilder, loc, input.name(), *type, zeros, /*isMutable=*/true);
  return success();
}

namespace {

/// The global of the state bound to parameter `name`.
FailureOr<GlobalOp> stateParam(OpContext &ctx, StringRef name) {
  auto it = ctx.op.inputs().find(std::string(name));
  if (it == ctx.op.inputs().end() || it->second.arguments_size() != 1 ||
      !it->second.arguments(0).has_name())
    return emitError(ctx.loc)
           << "parameter '" << name << "' must name one state input";
  const std::string &state = it->second.arguments(0).name();
  GlobalOp global = ctx.importer.lookupState(state);
  if (!global)
    return emitError(ctx.loc) << "'" << state << "' is not a state input";
  return global;
}

/// read_state(input: state<tensor>) -> tensor.
LogicalResult importReadState(OpContext &ctx) {
  FailureOr<GlobalOp> global = stateParam(ctx, "input");
  if (failed(global))
    return failure();
  return ctx.setResult(
      0, GlobalLoadOp::create(ctx.b, ctx.loc, global->getType(),
                              FlatSymbolRefAttr::get(global->getSymNameAttr()))
             .getResult());
}

/// Stores parameter `valueName` into the state bound to parameter
/// `stateName`; returns the stored value.
FailureOr<Value> storeState(OpContext &ctx, StringRef stateName,
                            StringRef valueName) {
  FailureOr<GlobalOp> global = stateParam(ctx, stateName);
  FailureOr<Value> value = ctx.input(valueName);
  if (failed(global) || failed(value))
    return failure();
  Type type = global->getType();
  Value stored = *value;
  if (stored.getType() != type) {
    if (!tensor::CastOp::areCastCompatible(stored.getType(), type))
      return emitError(ctx.loc)
             << "value of type " << stored.getType() << " cannot update state '"
             << global->getSymName() << "' of type " << type;
    stored = tensor::CastOp::create(ctx.b, ctx.loc, type, stored);
  }
  GlobalStoreOp::create(
      ctx.b, ctx.loc, FlatSymbolRefAttr::get(global->getSymNameAttr()), stored);
  return *value;
}

/// coreml_update_state(state: state<tensor>, value: tensor) -> value: the
/// builder's form.
LogicalResult importUpdateState(OpContext &ctx) {
  FailureOr<Value> value = storeState(ctx, "state", "value");
  if (failed(value))
    return failure();
  return ctx.numOutputs() ? ctx.setResult(0, *value) : success();
}

/// write_state(input: state<tensor>, data: tensor): the form coremltools
/// saves coreml_update_state as (followed by a read_state where the value
/// is used).
LogicalResult importWriteState(OpContext &ctx) {
  return success(succeeded(storeState(ctx, "input", "data")));
}

} // namespace

void registerStateOps(OpTable &table) {
  table.add({
      {"coreml_update_state", importUpdateState},
      {"read_state", importReadState},
      {"write_state", importWriteState},
  });
}

} // namespace mlprog::mil_import
