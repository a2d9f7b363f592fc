//===- OpContext.cpp - What a MIL op handler reads and binds --------------===//
//
// The OpContext of Importer.h: an op's named arguments (tensors, tuples,
// lists), its compile-time parameters with the MIL spec's defaults, and the
// binding of its outputs to their declared types (ProgramImporter is in
// ImportMIL.cpp).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::mil_import;

//===----------------------------------------------------------------------===//
// OpContext
//===----------------------------------------------------------------------===//

const mil::Argument::Binding *OpContext::single(StringRef name) {
  auto it = op.inputs().find(std::string(name));
  if (it == op.inputs().end()) {
    emitError(loc) << "missing required parameter '" << name << "'";
    return nullptr;
  }
  if (it->second.arguments_size() != 1) {
    emitError(loc) << "parameter '" << name << "' takes one value, got "
                   << it->second.arguments_size();
    return nullptr;
  }
  return &it->second.arguments(0);
}

FailureOr<Value> OpContext::resolve(const mil::Argument::Binding &binding,
                                    StringRef param) {
  if (binding.has_value())
    return importer.materialize(binding.value(), loc, param);
  if (!binding.has_name())
    return emitError(loc) << "parameter '" << param << "' has an empty binding";
  const NamedValue *value = importer.lookup(binding.name());
  if (!value)
    return emitError(loc) << "parameter '" << param << "' refers to undefined "
                          << "name '" << binding.name() << "'";
  if (!value->value || value->list)
    return emitError(loc) << "parameter '" << param << "' refers to '"
                          << binding.name() << "', which is not a tensor"
                          << (value->list ? " but a list" : "");
  return value->value;
}

FailureOr<NamedValue>
OpContext::resolveNamed(const mil::Argument::Binding &binding,
                        StringRef param) {
  if (binding.has_name())
    if (const NamedValue *value = importer.lookup(binding.name());
        value && value->list)
      return *value;
  FailureOr<Value> v = resolve(binding, param);
  if (failed(v))
    return failure();
  return NamedValue{*v};
}

FailureOr<NamedValue> OpContext::namedInput(StringRef name) {
  const mil::Argument::Binding *binding = single(name);
  if (!binding)
    return failure();
  return resolveNamed(*binding, name);
}

FailureOr<SmallVector<NamedValue>> OpContext::namedInputs(StringRef name) {
  auto it = op.inputs().find(std::string(name));
  if (it == op.inputs().end())
    return emitError(loc) << "missing required parameter '" << name << "'";
  SmallVector<NamedValue> values;
  for (const mil::Argument::Binding &binding : it->second.arguments()) {
    FailureOr<NamedValue> v = resolveNamed(binding, name);
    if (failed(v))
      return failure();
    values.push_back(*v);
  }
  return values;
}

const mil::Value *OpContext::peekConstant(StringRef name) const {
  auto it = op.inputs().find(std::string(name));
  if (it == op.inputs().end() || it->second.arguments_size() != 1)
    return nullptr;
  const mil::Argument::Binding &binding = it->second.arguments(0);
  if (binding.has_value())
    return &binding.value();
  const NamedValue *value = importer.lookup(binding.name());
  return value ? value->constant : nullptr;
}

FailureOr<Value> OpContext::input(StringRef name) {
  const mil::Argument::Binding *binding = single(name);
  if (!binding)
    return failure();
  return resolve(*binding, name);
}

bool OpContext::isUnsignedInput(StringRef name) {
  auto it = op.inputs().find(std::string(name));
  if (it == op.inputs().end() || it->second.arguments_size() != 1)
    return false;
  const mil::Argument::Binding &binding = it->second.arguments(0);
  if (binding.has_value())
    return binding.value().type().has_tensortype() &&
           isUnsignedDataType(binding.value().type().tensortype().datatype());
  const NamedValue *value = importer.lookup(binding.name());
  return value && value->isUnsigned;
}

FailureOr<Value> OpContext::optionalInput(StringRef name) {
  if (!has(name))
    return Value();
  return input(name);
}

FailureOr<SmallVector<Value>> OpContext::inputs(StringRef name) {
  auto it = op.inputs().find(std::string(name));
  if (it == op.inputs().end())
    return emitError(loc) << "missing required parameter '" << name << "'";
  SmallVector<Value> values;
  for (const mil::Argument::Binding &binding : it->second.arguments()) {
    FailureOr<Value> v = resolve(binding, name);
    if (failed(v))
      return failure();
    values.push_back(*v);
  }
  return values;
}

const mil::Value *OpContext::getConstant(StringRef name) {
  const mil::Argument::Binding *binding = single(name);
  if (!binding)
    return nullptr;
  if (binding->has_value())
    return &binding->value();
  const NamedValue *value = importer.lookup(binding->name());
  if (!value) {
    emitError(loc) << "parameter '" << name << "' refers to undefined name '"
                   << binding->name() << "'";
    return nullptr;
  }
  if (!value->constant)
    emitError(loc) << "unsupported run-time value of parameter '" << name
                   << "': '" << binding->name()
                   << "' is computed at run time (the importer needs a "
                      "compile-time constant here)";
  return value->constant;
}

FailureOr<SmallVector<int64_t>>
OpContext::getInts(StringRef name, std::optional<SmallVector<int64_t>> dflt) {
  if (!has(name) && dflt)
    return *dflt;
  const mil::Value *value = getConstant(name);
  if (!value)
    return failure();
  return readInts(loc, *value, name);
}

FailureOr<int64_t> OpContext::getInt(StringRef name,
                                     std::optional<int64_t> dflt) {
  if (!has(name) && dflt)
    return *dflt;
  FailureOr<SmallVector<int64_t>> values = getInts(name);
  if (failed(values))
    return failure();
  if (values->size() != 1)
    return emitError(loc) << "parameter '" << name << "' must be a scalar";
  return values->front();
}

FailureOr<double> OpContext::getFloat(StringRef name,
                                      std::optional<double> dflt) {
  if (!has(name) && dflt)
    return *dflt;
  const mil::Value *value = getConstant(name);
  if (!value)
    return failure();
  FailureOr<SmallVector<double>> values = readFloats(loc, *value, name);
  if (failed(values))
    return failure();
  if (values->size() != 1)
    return emitError(loc) << "parameter '" << name << "' must be a scalar";
  return values->front();
}

FailureOr<bool> OpContext::getBool(StringRef name, std::optional<bool> dflt) {
  if (!has(name) && dflt)
    return *dflt;
  FailureOr<int64_t> value = getInt(name);
  if (failed(value))
    return failure();
  return *value != 0;
}

FailureOr<std::string> OpContext::getString(StringRef name,
                                            std::optional<std::string> dflt) {
  if (!has(name) && dflt)
    return *dflt;
  const mil::Value *value = getConstant(name);
  if (!value)
    return failure();
  return readString(loc, *value, name);
}

LogicalResult OpContext::setResult(unsigned i, FailureOr<Value> value) {
  if (failed(value))
    return failure();
  return bind(i, *value, nullptr);
}

LogicalResult OpContext::bind(unsigned i, Value value,
                              const mil::Value *constant) {
  if (int(i) >= op.outputs_size())
    return emitError(loc) << "MIL op '" << op.type() << "' declares "
                          << op.outputs_size() << " outputs, needs " << i + 1;
  const mil::NamedValueType &output = op.outputs(i);
  Location outLoc = importer.locFor(output.name());
  Value v = value;
  // Reconcile with the declared type where the shapes are compatible.
  if (output.has_type()) {
    FailureOr<RankedTensorType> declared = convertValueType(
        outLoc, importer.ctx, output.type(), "output '" + output.name() + "'");
    if (failed(declared))
      return failure();
    if (v.getType() != *declared) {
      if (!tensor::CastOp::areCastCompatible(v.getType(), *declared))
        return emitError(outLoc)
               << "output '" << output.name() << "' is declared " << *declared
               << " but computed as " << v.getType();
      v = tensor::CastOp::create(b, outLoc, *declared, v);
    }
  }
  NamedValue named{v, constant};
  named.isUnsigned = output.has_type() && output.type().has_tensortype() &&
                     isUnsignedDataType(output.type().tensortype().datatype());
  return importer.define(outLoc, output.name(), named);
}

LogicalResult OpContext::setNamedResult(unsigned i, const NamedValue &value) {
  if (!value.list)
    return bind(i, value.value, value.constant);
  if (int(i) >= op.outputs_size())
    return emitError(loc) << "MIL op '" << op.type() << "' declares "
                          << op.outputs_size() << " outputs, needs " << i + 1;
  const mil::NamedValueType &output = op.outputs(i);
  Location outLoc = importer.locFor(output.name());
  if (output.has_type() && !output.type().has_listtype())
    return emitError(outLoc) << "output '" << output.name()
                             << "' is a list but is not declared as one";
  // The declared element type must admit the computed one.
  if (output.has_type() && value.value) {
    FailureOr<RankedTensorType> declared = convertListElementType(
        outLoc, importer.ctx, output.type(), "output '" + output.name() + "'");
    if (failed(declared))
      return failure();
    auto seq = cast<RankedTensorType>(value.value.getType());
    auto element = RankedTensorType::get(seq.getShape().drop_front(),
                                         seq.getElementType());
    if (failed(verifyCompatibleShape(*declared, element)) ||
        declared->getElementType() != element.getElementType())
      return emitError(outLoc)
             << "output '" << output.name() << "' is declared as a list of "
             << *declared << " but computed as a list of " << element;
  }
  return importer.define(outLoc, output.name(), value);
}

LogicalResult OpContext::setConstantResult(unsigned i, Value value,
                                           const mil::Value *constant) {
  return bind(i, value, constant);
}
