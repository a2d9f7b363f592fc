//===- StateBindings.cpp - Graph inputs kept in mutable globals -----------===//
//
// `--state=IN:OUT,...`: a graph input the caller would feed back from a
// graph output becomes a mutable global read at the start of `@main` and
// written at its end (docs/state.md, "From ONNX").
//
//===----------------------------------------------------------------------===//

#include "StateBindings.h"
#include "TensorConversion.h"

#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::onnx_import;

/// Prefixes of the names `--state=auto` pairs: transformers/optimum decoder
/// exports feed `past_key_values.<layer>.key|value` and return
/// `present.<layer>.key|value`.
static constexpr llvm::StringLiteral kAutoInputPrefix = "past_key_values.";
static constexpr llvm::StringLiteral kAutoOutputPrefix = "present.";

/// Parses `1x4x0x16` (static extents separated by 'x').
static std::optional<std::vector<int64_t>> parseShape(StringRef text) {
  std::vector<int64_t> shape;
  SmallVector<StringRef> extents;
  text.split(extents, 'x');
  for (StringRef extent : extents) {
    int64_t value;
    if (extent.trim().getAsInteger(10, value) || value < 0)
      return std::nullopt;
    shape.push_back(value);
  }
  return shape;
}

llvm::Error mlprog::parseONNXStateOption(StringRef text,
                                         ONNXImportOptions &options) {
  if (text.trim().empty())
    return llvm::Error::success();
  SmallVector<StringRef> items;
  text.split(items, ',');
  for (StringRef item : items) {
    item = item.trim();
    auto [binding, shapeText] = item.split('=');
    std::optional<std::vector<int64_t>> shape;
    if (item.contains('=')) {
      shape = parseShape(shapeText);
      if (!shape)
        return llvm::createStringError(
            "malformed initial shape '" + shapeText + "' in --state item '" +
            item + "': expected static extents like 1x4x0x16");
    }
    if (binding == "auto") {
      options.autoState = true;
      options.autoInitialShape = shape;
      continue;
    }
    auto [input, output] = binding.split(':');
    if (input.empty() || output.empty() || output.contains(':'))
      return llvm::createStringError(
          "malformed --state item '" + item +
          "': expected IN:OUT (a graph input and the graph output fed back "
          "into it), IN:OUT=SHAPE or auto");
    options.state.push_back({input.str(), output.str(), shape});
  }
  return llvm::Error::success();
}

namespace {

/// Checks one binding and builds its type and initial value.
class BindingChecker {
public:
  BindingChecker(Location fileLoc, const onnx::GraphProto &graph,
                 llvm::function_ref<bool(StringRef)> isInitializer)
      : fileLoc(fileLoc), isInitializer(isInitializer) {
    for (const onnx::ValueInfoProto &info : graph.input())
      inputs.try_emplace(info.name(), &info);
    for (const onnx::ValueInfoProto &info : graph.output())
      outputs.try_emplace(info.name(), &info);
  }

  Location locFor(StringRef name) const {
    return NameLoc::get(StringAttr::get(fileLoc.getContext(), name), fileLoc);
  }

  FailureOr<StateBinding> check(StringRef input, StringRef output,
                                const std::optional<std::vector<int64_t>> &);

private:
  Location fileLoc;
  llvm::function_ref<bool(StringRef)> isInitializer;
  llvm::StringMap<const onnx::ValueInfoProto *> inputs, outputs;
  llvm::StringSet<> boundInputs, boundOutputs;
};

} // namespace

FailureOr<StateBinding>
BindingChecker::check(StringRef input, StringRef output,
                      const std::optional<std::vector<int64_t>> &shape) {
  Location loc = locFor(input);
  const onnx::ValueInfoProto *in = inputs.lookup(input);
  if (!in)
    return emitError(loc) << "--state: '" << input
                          << "' is not an input of the graph";
  if (isInitializer(input))
    return emitError(loc) << "--state: graph input '" << input
                          << "' is an initializer, not an input the caller "
                             "feeds";
  const onnx::ValueInfoProto *out = outputs.lookup(output);
  if (!out)
    return emitError(locFor(output))
           << "--state: '" << output << "' is not an output of the graph";
  if (!boundInputs.insert(input).second)
    return emitError(loc) << "--state: graph input '" << input
                          << "' is bound twice";
  if (!boundOutputs.insert(output).second)
    return emitError(locFor(output))
           << "--state: graph output '" << output << "' is bound twice";
  FailureOr<RankedTensorType> inType =
      convertTensorType(loc, input, in->type());
  if (failed(inType))
    return failure();
  FailureOr<RankedTensorType> outType =
      convertTensorType(locFor(output), output, out->type());
  if (failed(outType))
    return failure();
  int32_t inData = in->type().tensor_type().elem_type();
  int32_t outData = out->type().tensor_type().elem_type();
  if (inData != outData)
    return emitError(loc) << "--state: graph input '" << input
                          << "' has element type " << getDataTypeName(inData)
                          << " but graph output '" << output << "' has "
                          << getDataTypeName(outData);
  if (inType->getRank() != outType->getRank())
    return emitError(loc) << "--state: graph input '" << input << "' ("
                          << *inType << ") and graph output '" << output
                          << "' (" << *outType << ") differ in rank";
  for (auto [d, pair] :
       llvm::enumerate(llvm::zip(inType->getShape(), outType->getShape()))) {
    auto [a, b] = pair;
    if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b)
      return emitError(loc) << "--state: graph input '" << input << "' ("
                            << *inType << ") and graph output '" << output
                            << "' (" << *outType << ") differ in extent " << d;
  }
  SmallVector<int64_t> initial(inType->getShape());
  if (shape) {
    if (int64_t(shape->size()) != inType->getRank())
      return emitError(loc) << "--state: initial shape of '" << input
                            << "' has " << shape->size() << " extents, but "
                            << *inType << " has rank " << inType->getRank();
    for (size_t d = 0; d < initial.size(); ++d) {
      if (!ShapedType::isDynamic(initial[d]) && (*shape)[d] != initial[d])
        return emitError(loc)
               << "--state: initial shape of '" << input << "' has extent "
               << (*shape)[d] << " at dim " << d << ", but " << *inType
               << " has " << initial[d];
      initial[d] = (*shape)[d];
    }
  } else {
    for (int64_t &extent : initial)
      if (ShapedType::isDynamic(extent))
        extent = 0;
  }
  auto valueType = RankedTensorType::get(initial, inType->getElementType());
  Attribute zero =
      Builder(loc.getContext()).getZeroAttr(valueType.getElementType());
  DenseElementsAttr value =
      valueType.getNumElements() == 0
          ? DenseElementsAttr::get(valueType, ArrayRef<Attribute>())
          : DenseElementsAttr::get(valueType, zero);
  return StateBinding{input.str(), output.str(), *inType, value, ""};
}

FailureOr<SmallVector<StateBinding>> mlprog::onnx_import::resolveStateBindings(
    Location fileLoc, const onnx::GraphProto &graph,
    const ONNXImportOptions &options,
    llvm::function_ref<bool(StringRef)> isInitializer) {
  BindingChecker checker(fileLoc, graph, isInitializer);
  SmallVector<StateBinding> bindings;
  for (const ONNXStateBinding &binding : options.state) {
    FailureOr<StateBinding> checked =
        checker.check(binding.input, binding.output, binding.initialShape);
    if (failed(checked))
      return failure();
    bindings.push_back(std::move(*checked));
  }
  if (!options.autoState)
    return bindings;
  bool found = false;
  for (const onnx::ValueInfoProto &info : graph.input()) {
    StringRef name = info.name();
    if (!name.starts_with(kAutoInputPrefix) || isInitializer(name))
      continue;
    found = true;
    // Inputs bound explicitly keep their binding.
    if (llvm::any_of(options.state, [&](const ONNXStateBinding &b) {
          return b.input == name;
        }))
      continue;
    std::string output =
        (kAutoOutputPrefix + name.drop_front(kAutoInputPrefix.size())).str();
    if (llvm::none_of(graph.output(), [&](const onnx::ValueInfoProto &out) {
          return out.name() == output;
        }))
      return emitError(checker.locFor(name))
             << "--state=auto: graph input '" << name
             << "' has no graph output '" << output << "' to feed it back";
    FailureOr<StateBinding> checked =
        checker.check(name, output, options.autoInitialShape);
    if (failed(checked))
      return failure();
    bindings.push_back(std::move(*checked));
  }
  if (!found)
    return emitError(fileLoc) << "--state=auto: the graph has no input named "
                              << kAutoInputPrefix << "*";
  return bindings;
}

void mlprog::onnx_import::createStateGlobals(
    OpBuilder &b, Location fileLoc, ProgramBuilder &symbols,
    MutableArrayRef<StateBinding> bindings) {
  for (StateBinding &binding : bindings) {
    Location loc =
        NameLoc::get(StringAttr::get(b.getContext(), binding.input), fileLoc);
    GlobalOp global =
        symbols.createGlobal(b, loc, binding.input, binding.type,
                             binding.initialValue, /*isMutable=*/true);
    binding.symbol = global.getSymName().str();
  }
}

LogicalResult mlprog::onnx_import::storeState(OpBuilder &b, Location loc,
                                              const StateBinding &binding,
                                              Value value) {
  if (value.getType() != binding.type) {
    if (!tensor::CastOp::areCastCompatible(value.getType(), binding.type))
      return emitError(loc) << "--state: graph output '" << binding.output
                            << "' is computed as " << value.getType()
                            << ", which cannot be stored into '"
                            << binding.input << "' (" << binding.type << ")";
    value = tensor::CastOp::create(b, loc, binding.type, value);
  }
  GlobalStoreOp::create(
      b, loc, FlatSymbolRefAttr::get(b.getContext(), binding.symbol), value);
  return success();
}

void mlprog::onnx_import::createResetFunction(OpBuilder &b, Location loc,
                                              ArrayRef<StateBinding> bindings) {
  FuncOp reset = ProgramBuilder::createFunc(b, loc, kResetFunctionName,
                                            b.getFunctionType({}, {}));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(reset.addEntryBlock());
  for (const StateBinding &binding : bindings) {
    Value initial = arith::ConstantOp::create(b, loc, binding.initialValue);
    // The initial value has the global's element type and a shape that
    // agrees with its static extents, so it always stores.
    (void)storeState(b, loc, binding, initial);
  }
  ReturnOp::create(b, loc, ValueRange());
}
