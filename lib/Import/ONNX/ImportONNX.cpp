//===- ImportONNX.cpp - ONNX model importer -------------------------------===//
//
// Maps an ONNX graph to ml_program: initializers to immutable globals, graph
// inputs/outputs to the signature of `@main` (or, under `--state`, to mutable
// globals, StateBindings.cpp), and each node, through the handler table of
// OpTable.cpp, to the shared tensor op builders.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Import/ONNX/ImportONNX.h"
#include "ModelLoader.h"
#include "NodeContext.h"
#include "StateBindings.h"
#include "TensorConversion.h"
#include "mlprog/Import/Common/ConstantEvaluation.h"
#include "mlprog/Import/Common/Creation.h"
#include "mlprog/Import/Common/InputShapes.h"
#include "mlprog/Import/Common/WeightsBundle.h"
#include "mlprog/Support/ModelPath.h"

#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/InitAll.h"

#include "mlprog/Import/Common/Creation.h"
#include "mlprog/Import/Common/ProgramBuilder.h"
#include "mlprog/Import/Common/Sequence.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include "onnx/defs/schema.h"

#include <functional>
#include <optional>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::onnx_import;

namespace {

/// Builds the module for one checked model.
class ModelImporter {
public:
  ModelImporter(MLIRContext *ctx, StringRef file, StringRef modelDir,
                const onnx::ModelProto &model, const ONNXImportOptions &options)
      : ctx(ctx), file(file), modelDir(modelDir), model(model),
        graph(model.graph()), options(options), builder(ctx), state(builder),
        fileLoc(FileLineColLoc::get(ctx, file, 0, 0)) {}

  OwningOpRef<ModuleOp> run();

private:
  /// `NameLoc(name, file:0:0)`.
  Location locFor(StringRef name) {
    return NameLoc::get(StringAttr::get(ctx, name), fileLoc);
  }
  LogicalResult readOpset();
  LogicalResult importInitializers(ModuleOp module);
  /// An initializer stored in an external file: an `#ml_program.extern`
  /// global with `ml_program.external_storage` (absolute file, offset,
  /// length) that the runner memory-maps; its bytes are not read here.
  LogicalResult importExternalInitializer(const onnx::TensorProto &init);
  /// The graph's signature (without the inputs and outputs bound to
  /// state); records which inputs and outputs the model declares unsigned
  /// in `unsignedInputs`/`unsignedOutputs`.
  FailureOr<FunctionType> getSignature();
  /// Imports `node` of a graph (or function body) whose default-domain
  /// opset is `nodeOpset`; `name` labels its location. `depth` counts the
  /// enclosing function expansions and subgraphs.
  LogicalResult importNode(const onnx::NodeProto &node, StringRef name,
                           int64_t nodeOpset, unsigned depth);
  /// Expands a call of an ONNX function (model-local, or the body the op's
  /// schema defines) inline; null if `node` names no function.
  std::optional<LogicalResult> expandFunction(const onnx::NodeProto &node,
                                              StringRef name, int64_t nodeOpset,
                                              unsigned depth);
  /// For a node whose inputs are all constants, records as constants the
  /// outputs its handler built as code (evaluated by
  /// evaluateConstantTensor), so that sizes computed from constants (a
  /// ReduceMax, Div, Ceil and Cast over image sizes) stay static downstream.
  /// The handler's ops are left for the pipeline's dead-code removal.
  void foldConstantOutputs(const onnx::NodeProto &node, Location loc);
  FailureOr<SmallVector<Value>>
  importSubgraph(const onnx::GraphProto &subgraph, ValueRange inputs,
                 StringRef parentName, int64_t nodeOpset, unsigned depth);
  LogicalResult importOutputs(FuncOp func);

  MLIRContext *ctx;
  StringRef file;
  StringRef modelDir;
  const onnx::ModelProto &model;
  const onnx::GraphProto &graph;
  const ONNXImportOptions &options;
  OpBuilder builder;
  GraphState state;
  Location fileLoc;
  int64_t opset = 0;
  /// Symbols of the initializer globals.
  ProgramBuilder programBuilder;
  /// Numbers function expansions, so their internal names stay unique.
  unsigned expansions = 0;
  /// Per graph input/output: declared unsigned (see getSignature).
  SmallVector<bool> unsignedInputs, unsignedOutputs;
  /// Graph inputs kept in mutable globals, and their input and output names.
  SmallVector<StateBinding> stateBindings;
  llvm::StringMap<const StateBinding *> stateInputs, stateOutputs;
  /// Graph inputs of optional type (each passed as its element and a
  /// presence flag), and how each (unbound) graph output is returned.
  llvm::StringSet<> optionalInputs;
  /// Graph inputs that are ragged sequences (passed as data and shapes).
  llvm::StringSet<> raggedInputs;
  SmallVector<BoundaryType> outputTypes;
};

/// Nesting limit for function expansions and subgraphs (a recursive
/// model-local function would otherwise never end).
constexpr unsigned kMaxDepth = 32;

/// ONNX TensorProto::DataType of an MLIR element type (integers as signed),
/// 0 if there is none.
int32_t getONNXDataType(Type type) {
  if (type.isF32())
    return onnx::TensorProto::FLOAT;
  if (type.isF64())
    return onnx::TensorProto::DOUBLE;
  if (type.isF16())
    return onnx::TensorProto::FLOAT16;
  if (type.isBF16())
    return onnx::TensorProto::BFLOAT16;
  if (type.isInteger(1))
    return onnx::TensorProto::BOOL;
  if (type.isInteger(8))
    return onnx::TensorProto::INT8;
  if (type.isInteger(16))
    return onnx::TensorProto::INT16;
  if (type.isInteger(32))
    return onnx::TensorProto::INT32;
  if (type.isInteger(64))
    return onnx::TensorProto::INT64;
  return 0;
}

/// Instantiates a FunctionProto at one call site, following the ONNX
/// function semantics (IR spec, "Functions"): formal inputs and outputs
/// become the caller's actual names (an omitted input ""), every other name
/// gets a unique prefix, and attribute references (`ref_attr_name`) take the
/// caller's attribute, or the schema's default, or are dropped.
class FunctionInstantiation {
public:
  FunctionInstantiation(const onnx::NodeProto &call,
                        const onnx::FunctionProto &function,
                        const onnx::OpSchema *schema, std::string prefix)
      : call(call), schema(schema), prefix(std::move(prefix)) {
    for (int i = 0; i < function.input_size(); ++i)
      names[function.input(i)] = i < call.input_size() ? call.input(i) : "";
    for (int i = 0; i < function.output_size(); ++i)
      if (i < call.output_size() && !call.output(i).empty())
        names[function.output(i)] = call.output(i);
  }

  std::string rename(const std::string &name) const {
    if (name.empty())
      return name;
    auto it = names.find(name);
    return it != names.end() ? it->second : prefix + name;
  }

  void instantiate(onnx::NodeProto &node) const {
    for (std::string &name : *node.mutable_input())
      name = rename(name);
    for (std::string &name : *node.mutable_output())
      name = rename(name);
    google::protobuf::RepeatedPtrField<onnx::AttributeProto> attributes;
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.ref_attr_name().empty()) {
        onnx::AttributeProto *copy = attributes.Add();
        *copy = attr;
        if (copy->has_g())
          instantiate(*copy->mutable_g());
        for (onnx::GraphProto &g : *copy->mutable_graphs())
          instantiate(g);
        continue;
      }
      if (const onnx::AttributeProto *actual =
              findAttribute(attr.ref_attr_name())) {
        onnx::AttributeProto *copy = attributes.Add();
        *copy = *actual;
        copy->set_name(attr.name());
      }
    }
    node.mutable_attribute()->Swap(&attributes);
  }

  void instantiate(onnx::GraphProto &graph) const {
    for (onnx::ValueInfoProto &info : *graph.mutable_input())
      info.set_name(rename(info.name()));
    for (onnx::ValueInfoProto &info : *graph.mutable_output())
      info.set_name(rename(info.name()));
    for (onnx::ValueInfoProto &info : *graph.mutable_value_info())
      info.set_name(rename(info.name()));
    for (onnx::TensorProto &init : *graph.mutable_initializer())
      init.set_name(rename(init.name()));
    for (onnx::NodeProto &node : *graph.mutable_node())
      instantiate(node);
  }

private:
  /// The caller's attribute `name`, else the schema's default, else null.
  const onnx::AttributeProto *findAttribute(const std::string &name) const {
    for (const onnx::AttributeProto &attr : call.attribute())
      if (attr.name() == name)
        return &attr;
    if (!schema)
      return nullptr;
    auto it = schema->attributes().find(name);
    if (it == schema->attributes().end() ||
        it->second.default_value.type() == onnx::AttributeProto::UNDEFINED)
      return nullptr;
    return &it->second.default_value;
  }

  const onnx::NodeProto &call;
  const onnx::OpSchema *schema;
  std::string prefix;
  std::map<std::string, std::string> names;
};

} // namespace

LogicalResult ModelImporter::readOpset() {
  for (const onnx::OperatorSetIdProto &id : model.opset_import())
    if (id.domain().empty() || id.domain() == "ai.onnx")
      opset = id.version();
  // A model of other domains only (ai.onnx.preview.training) has no
  // default-domain nodes, whose handlers are all the opset selects; loadModel
  // refused such a model unless every node has a handler.
  if (opset == 0)
    opset = 1;
  return success();
}

LogicalResult ModelImporter::importInitializers(ModuleOp module) {
  builder.setInsertionPointToEnd(module.getBody());
  for (const onnx::TensorProto &init : graph.initializer()) {
    Location loc = locFor(init.name());
    if (init.data_location() == onnx::TensorProto::EXTERNAL) {
      if (failed(importExternalInitializer(init)))
        return failure();
      continue;
    }
    FailureOr<DenseElementsAttr> value = convertTensor(loc, init);
    if (failed(value))
      return failure();
    if (isa<DenseStringElementsAttr>(*value)) {
      // Built where it is used (GraphState::lookup): no global holds strings.
      state.addInitializer(init.name(), *value, "");
      state.recordDataType(init.name(), init.data_type());
      continue;
    }
    GlobalOp global = programBuilder.createGlobal(builder, loc, init.name(),
                                                  value->getType(), *value);
    state.addInitializer(init.name(), *value, global.getSymName());
    state.recordDataType(init.name(), init.data_type());
  }
  return success();
}

LogicalResult
ModelImporter::importExternalInitializer(const onnx::TensorProto &init) {
  Location loc = locFor(init.name());
  FailureOr<ExternalData> data = getExternalData(fileLoc, modelDir, init);
  if (failed(data))
    return failure();
  FailureOr<Type> elementType = convertElementType(loc, init.data_type());
  if (failed(elementType))
    return failure();
  if (!elementType->isIntOrFloat() || elementType->isInteger(1) ||
      elementType->getIntOrFloatBitWidth() % 8 != 0)
    return emitError(loc) << "unsupported external data of element type "
                          << *elementType << " in tensor '" << init.name()
                          << "'";
  SmallVector<int64_t> shape(init.dims().begin(), init.dims().end());
  auto type = RankedTensorType::get(shape, *elementType);
  uint64_t bytes =
      type.getNumElements() * (elementType->getIntOrFloatBitWidth() / 8);
  if (data->length && *data->length != bytes)
    return emitError(loc) << "external data of tensor '" << init.name()
                          << "' has length " << *data->length << " but " << type
                          << " needs " << bytes << " bytes";
  uint64_t size = 0;
  if (llvm::sys::fs::file_size(data->path, size) || data->offset + bytes > size)
    return emitError(loc) << "external data file '" << data->path
                          << "' is too short for tensor '" << init.name()
                          << "' (" << bytes << " bytes at offset "
                          << data->offset << ")";
  GlobalOp global = programBuilder.createGlobal(builder, loc, init.name(), type,
                                                ExternAttr::get(ctx, type));
  global->setAttr(ExternalStorageAttr::getAttrName(),
                  ExternalStorageAttr::get(ctx,
                                           builder.getStringAttr(data->path),
                                           StringAttr(), data->offset, bytes));
  state.addExternalInitializer(init.name(), type, global.getSymName());
  state.recordDataType(init.name(), init.data_type());
  return success();
}

/// The declared type of value `name` in `graph` (an input, output or
/// value_info entry, or an initializer's tensor type), or null.
static const onnx::TypeProto *declaredTypeIn(const onnx::GraphProto &graph,
                                             StringRef name,
                                             onnx::TypeProto &scratch) {
  for (const auto *infos :
       {&graph.input(), &graph.value_info(), &graph.output()})
    for (const onnx::ValueInfoProto &info : *infos)
      if (info.name() == name && info.has_type())
        return &info.type();
  for (const onnx::TensorProto &init : graph.initializer())
    if (init.name() == name) {
      scratch.Clear();
      onnx::TypeProto::Tensor *t = scratch.mutable_tensor_type();
      t->set_elem_type(init.data_type());
      onnx::TensorShapeProto *shape = t->mutable_shape();
      for (int64_t d : init.dims())
        shape->add_dim()->set_dim_value(d);
      return &scratch;
    }
  return nullptr;
}

/// The element tensor type of the graph input sequence `input`, whose
/// element shape the model does not declare, as its use says: the declared
/// type of the first tensor a SequenceInsert adds to it (or to a sequence
/// derived from it by Identity, SequenceErase or SequenceInsert, in the
/// graph or its subgraphs). Null if no use says (or that tensor's rank is
/// not declared either). docs/importers/onnx.md, "Sequences and optionals".
static const onnx::TypeProto *
inferSequenceElementType(const onnx::GraphProto &graph, StringRef input,
                         onnx::TypeProto &scratch) {
  llvm::StringSet<> aliases;
  aliases.insert(input);
  const onnx::TypeProto *found = nullptr;
  std::function<void(const onnx::GraphProto &)> walk =
      [&](const onnx::GraphProto &g) {
        for (const onnx::NodeProto &node : g.node()) {
          if (found)
            return;
          bool fromAlias =
              node.input_size() > 0 && aliases.contains(node.input(0));
          StringRef op = node.op_type();
          if (fromAlias && op == "SequenceInsert" && node.input_size() > 1) {
            const onnx::TypeProto *t =
                declaredTypeIn(g, node.input(1), scratch);
            if (!t && &g != &graph)
              t = declaredTypeIn(graph, node.input(1), scratch);
            if (t && t->has_tensor_type() && t->tensor_type().has_shape()) {
              found = t;
              return;
            }
          }
          if (fromAlias && node.output_size() > 0 &&
              (op == "Identity" || op == "SequenceErase" ||
               op == "SequenceInsert"))
            aliases.insert(node.output(0));
          for (const onnx::AttributeProto &attr : node.attribute()) {
            if (attr.has_g())
              walk(attr.g());
            for (const onnx::GraphProto &sub : attr.graphs())
              walk(sub);
          }
        }
      };
  walk(graph);
  return found;
}

/// `type` (a sequence, or an optional sequence, of tensors of undeclared
/// shape) with the element shape of `element`, or null where the element
/// data types disagree.
static std::optional<onnx::TypeProto>
withSequenceElement(const onnx::TypeProto &type,
                    const onnx::TypeProto &element) {
  onnx::TypeProto result = type;
  onnx::TypeProto *t = &result;
  if (t->has_optional_type())
    t = t->mutable_optional_type()->mutable_elem_type();
  onnx::TypeProto::Tensor *tensor =
      t->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type();
  int32_t declared = tensor->elem_type();
  int32_t inserted = element.tensor_type().elem_type();
  if (declared != inserted && declared != onnx::TensorProto::UNDEFINED)
    return std::nullopt;
  tensor->set_elem_type(inserted);
  *tensor->mutable_shape() = element.tensor_type().shape();
  return result;
}

/// Whether `type` is a sequence (or an optional sequence) of tensors whose
/// shape it does not declare.
static bool isSequenceOfUnknownElementRank(const onnx::TypeProto &type) {
  const onnx::TypeProto *t = &type;
  if (t->has_optional_type())
    t = &t->optional_type().elem_type();
  return t->has_sequence_type() &&
         t->sequence_type().elem_type().has_tensor_type() &&
         !t->sequence_type().elem_type().tensor_type().has_shape();
}

FailureOr<FunctionType> ModelImporter::getSignature() {
  SmallVector<Type> inputs, results;
  auto record = [&](const onnx::ValueInfoProto &info) {
    state.recordValueInfo(info);
  };
  for (const onnx::ValueInfoProto &info : graph.value_info())
    record(info);
  for (const onnx::ValueInfoProto &info : graph.input()) {
    if (state.isInitializer(info.name()))
      continue;
    record(info);
    if (stateInputs.count(info.name()))
      continue;
    // A sequence of undeclared element shape takes the shape of the
    // tensors inserted into it.
    const onnx::TypeProto *declared = &info.type();
    std::optional<onnx::TypeProto> inferred;
    onnx::TypeProto scratch;
    if (isSequenceOfUnknownElementRank(info.type()))
      if (const onnx::TypeProto *element =
              inferSequenceElementType(graph, info.name(), scratch)) {
        inferred = withSequenceElement(info.type(), *element);
        if (!inferred)
          return emitError(locFor(info.name()))
                 << "sequence input '" << info.name()
                 << "' is declared with another element data type than the "
                    "tensors a SequenceInsert adds to it (data type "
                 << element->tensor_type().elem_type() << ")";
        declared = &*inferred;
      }
    FailureOr<BoundaryType> type = convertBoundaryType(
        locFor(info.name()), info.name(), *declared, /*isOutput=*/false);
    if (failed(type))
      return failure();
    // A sequence of undeclared or run-time element extents is ragged: its
    // padded data, then its shapes table.
    bool ragged = type->sequence && (type->ragged || inferred);
    RankedTensorType data = type->type;
    if (ragged && inferred) {
      SmallVector<int64_t> shape(data.getRank(), ShapedType::kDynamic);
      data = RankedTensorType::get(shape, data.getElementType());
    }
    inputs.push_back(data);
    unsignedInputs.push_back(isUnsignedDataType(type->dataType));
    if (ragged) {
      raggedInputs.insert(info.name());
      inputs.push_back(RankedTensorType::get(
          {ShapedType::kDynamic, data.getRank() - 1}, builder.getI64Type()));
      unsignedInputs.push_back(false);
    }
    // An optional input is its element followed by its presence flag.
    if (type->optional) {
      optionalInputs.insert(info.name());
      inputs.push_back(RankedTensorType::get({}, builder.getI1Type()));
      unsignedInputs.push_back(false);
    }
  }
  for (const onnx::ValueInfoProto &info : graph.output()) {
    record(info);
    if (stateOutputs.count(info.name()))
      continue;
    FailureOr<BoundaryType> type = convertBoundaryType(
        locFor(info.name()), info.name(), info.type(), /*isOutput=*/true);
    if (failed(type))
      return failure();
    // A sequence of undeclared element rank is typed once imported.
    results.push_back(type->type ? Type(type->type) : builder.getNoneType());
    unsignedOutputs.push_back(isUnsignedDataType(type->dataType));
    outputTypes.push_back(*type);
    // A ragged sequence output also returns its shapes table.
    if (type->sequence && type->ragged) {
      results.push_back(builder.getNoneType());
      unsignedOutputs.push_back(false);
    }
  }
  return builder.getFunctionType(inputs, results);
}

LogicalResult ModelImporter::importNode(const onnx::NodeProto &node,
                                        StringRef name, int64_t nodeOpset,
                                        unsigned depth) {
  Location loc = locFor(name);
  // Every error raised while importing this node names it.
  ScopedDiagnosticHandler nameNode(ctx, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      diag << " in node '" << name << "'";
    return failure();
  });
  if (depth > kMaxDepth)
    return emitError(loc) << "unsupported nesting of functions and "
                             "subgraphs deeper than "
                          << kMaxDepth;
  bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
  // Ops of other domains are registered as "domain::op_type".
  OpHandler handler = getOpTable().lookup(
      defaultDomain ? node.op_type() : node.domain() + "::" + node.op_type());
  if (!handler) {
    if (std::optional<LogicalResult> expanded =
            expandFunction(node, name, nodeOpset, depth))
      return *expanded;
    if (!defaultDomain)
      return emitError(loc) << "unsupported ONNX op '" << node.domain()
                            << "::" << node.op_type() << "'";
    return emitError(loc) << "unsupported ONNX op '" << node.op_type()
                          << "' (opset " << nodeOpset << ")";
  }
  NodeContext nodeCtx(state, node, builder, loc, nodeOpset);
  auto subgraphs = [&](const onnx::GraphProto &subgraph, ValueRange inputs) {
    return importSubgraph(subgraph, inputs, name, nodeOpset, depth + 1);
  };
  nodeCtx.importSubgraph = SubgraphImporter(subgraphs);
  if (failed(handler(nodeCtx)))
    return failure();
  for (int i = 0; i < node.output_size(); ++i)
    if (nodeCtx.hasOutput(i) && !state.lookup(node.output(i), loc))
      return emitError(loc) << "unsupported output " << i << " of ONNX op '"
                            << node.op_type() << "'";
  foldConstantOutputs(node, loc);
  propagateKnownElements(state, builder, node, loc);
  return success();
}

/// The largest tensor foldConstantOutputs evaluates: shape arithmetic and
/// small tables, not weights (which stay globals, for the weights bundle).
static constexpr int64_t kMaxEvaluatedElements = 4096;

void ModelImporter::foldConstantOutputs(const onnx::NodeProto &node,
                                        Location loc) {
  // Nodes without inputs (Constant, the random generators) and nodes with
  // subgraphs are their handlers' business.
  if (node.input_size() == 0)
    return;
  // A dequantized 8-bit weight stays a DequantizeLinear of its bytes: the
  // CPU code generation computes a QDQ convolution or Gemm from the bytes
  // (--mlprog-quantized-convolutions).
  if (node.op_type() == "DequantizeLinear")
    if (auto bytes = state.lookupConstant(node.input(0));
        bytes && bytes.getElementType().isInteger(8))
      return;
  for (const std::string &input : node.input())
    if (!input.empty() && !state.lookupConstant(input))
      return;
  for (const onnx::AttributeProto &attr : node.attribute())
    if (attr.has_g() || attr.graphs_size())
      return;
  for (const std::string &output : node.output()) {
    if (output.empty() || state.lookupConstant(output))
      continue;
    Value value = state.lookup(output, loc);
    if (!value)
      continue;
    DenseElementsAttr constant =
        evaluateConstantTensor(value, kMaxEvaluatedElements);
    if (!constant)
      continue;
    state.define(output, buildConstant(builder, loc, constant));
    state.defineConstant(output, constant);
  }
}

std::optional<LogicalResult>
ModelImporter::expandFunction(const onnx::NodeProto &node, StringRef name,
                              int64_t nodeOpset, unsigned depth) {
  Location loc = locFor(name);
  bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
  const onnx::FunctionProto *function = nullptr;
  const onnx::OpSchema *schema = nullptr;
  onnx::FunctionProto built;
  // Model-local functions (ModelProto.functions) first.
  for (const onnx::FunctionProto &local : model.functions())
    if (local.name() == node.op_type() &&
        (local.domain() == node.domain() ||
         (defaultDomain &&
          (local.domain().empty() || local.domain() == "ai.onnx"))))
      function = &local;
  // libonnx 1.12's schema of an op that changed after opset 17 would give
  // the old function body (unless the change only added element types).
  if (!function && defaultDomain &&
      hasLibONNXMeaning(node.op_type(), nodeOpset)) {
    schema = onnx::OpSchemaRegistry::Schema(node.op_type(), int(nodeOpset), "");
    if (!schema)
      return std::nullopt;
    if (schema->HasFunction()) {
      function = schema->GetFunction();
    } else if (schema->HasContextDependentFunction()) {
      // Context-dependent bodies (e.g. NegativeLogLikelihoodLoss) depend on
      // which inputs are present and on their types.
      std::vector<onnx::TypeProto> inputTypes;
      for (const std::string &input : node.input()) {
        onnx::TypeProto type;
        Value value = input.empty() ? Value() : state.lookup(input, loc);
        // Sequences and optionals (e.g. SequenceMap's inputs) keep the
        // type the model declares for them.
        if (const onnx::TypeProto *declared =
                input.empty() ? nullptr : state.declaredType(input);
            declared && !declared->has_tensor_type()) {
          type = *declared;
        } else if (auto tensor = dyn_cast_or_null<RankedTensorType>(
                       value ? value.getType() : Type())) {
          int32_t dataType = state.dataType(input);
          onnx::TypeProto_Tensor *t = type.mutable_tensor_type();
          t->set_elem_type(dataType ? dataType
                                    : getONNXDataType(tensor.getElementType()));
          onnx::TensorShapeProto *shape = t->mutable_shape();
          for (int64_t dim : tensor.getShape())
            if (ShapedType::isDynamic(dim))
              shape->add_dim();
            else
              shape->add_dim()->set_dim_value(dim);
        }
        inputTypes.push_back(std::move(type));
      }
      try {
        onnx::FunctionBodyBuildContextImpl buildCtx(node, inputTypes);
        if (!schema->BuildContextDependentFunction(buildCtx, built))
          return LogicalResult(emitError(loc)
                               << "unsupported ONNX op '" << node.op_type()
                               << "': its function body cannot be built "
                                  "for these inputs");
      } catch (const std::exception &e) {
        return LogicalResult(emitError(loc)
                             << "unsupported ONNX op '" << node.op_type()
                             << "': building its function body failed: "
                             << e.what());
      }
      function = &built;
    }
  }
  if (!function)
    return std::nullopt;

  int64_t bodyOpset = nodeOpset;
  for (const onnx::OperatorSetIdProto &id : function->opset_import())
    if (id.domain().empty() || id.domain() == "ai.onnx")
      bodyOpset = id.version();
  std::string prefix =
      (name + "/" + node.op_type() + "#" + std::to_string(expansions++) + "/")
          .str();
  FunctionInstantiation instance(node, *function, schema, prefix);
  for (auto [index, bodyNode] : llvm::enumerate(function->node())) {
    onnx::NodeProto expanded = bodyNode;
    instance.instantiate(expanded);
    std::string bodyName = (name + "/").str() +
                           (bodyNode.name().empty() ? bodyNode.op_type() + "#" +
                                                          std::to_string(index)
                                                    : bodyNode.name());
    if (failed(importNode(expanded, bodyName, bodyOpset, depth + 1)))
      return LogicalResult(failure());
  }
  for (int i = 0; i < node.output_size(); ++i)
    if (!node.output(i).empty() && !state.lookup(node.output(i), loc))
      return LogicalResult(emitError(loc)
                           << "output " << i << " of function '"
                           << node.op_type() << "' is not computed");
  return LogicalResult(success());
}

FailureOr<SmallVector<Value>>
ModelImporter::importSubgraph(const onnx::GraphProto &subgraph,
                              ValueRange inputs, StringRef parentName,
                              int64_t nodeOpset, unsigned depth) {
  Location loc = locFor(parentName);
  if (subgraph.input_size() != int(inputs.size()))
    return emitError(loc) << "subgraph '" << subgraph.name() << "' has "
                          << subgraph.input_size() << " inputs, expected "
                          << inputs.size();
  for (const onnx::ValueInfoProto &info : subgraph.value_info())
    state.recordValueInfo(info);
  for (const onnx::ValueInfoProto &info : subgraph.output())
    state.recordValueInfo(info);
  for (auto [info, value] : llvm::zip(subgraph.input(), inputs)) {
    state.recordValueInfo(info);
    state.define(info.name(), value);
  }
  for (const onnx::TensorProto &init : subgraph.initializer()) {
    FailureOr<DenseElementsAttr> value =
        convertTensor(locFor(init.name()), init);
    if (failed(value))
      return failure();
    state.define(init.name(), buildConstant(builder, loc, *value));
    state.defineConstant(init.name(), *value);
    state.recordDataType(init.name(), init.data_type());
  }
  std::string prefix =
      (parentName + "/" +
       (subgraph.name().empty() ? std::string("body") : subgraph.name()) + "/")
          .str();
  for (auto [index, node] : llvm::enumerate(subgraph.node())) {
    std::string name = node.name().empty() ? prefix + node.op_type() + "#" +
                                                 std::to_string(index)
                                           : node.name();
    if (failed(importNode(node, name, nodeOpset, depth)))
      return failure();
  }
  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &info : subgraph.output()) {
    Value value = state.lookup(info.name(), loc);
    if (!value)
      return emitError(loc)
             << "output '" << info.name() << "' of subgraph '"
             << subgraph.name() << "' is not produced by any node";
    results.push_back(value);
  }
  return results;
}

/// The sequence `seq` when `present`, else its first 0 elements: an empty
/// optional sequence is returned as an empty sequence.
static Value sequenceIfPresent(OpBuilder &b, Location loc, Value seq,
                               Value present) {
  auto t = cast<RankedTensorType>(seq.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, seq);
  Value length = getValueOrCreateConstantIndexOp(b, loc, sizes[0]);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  sizes[0] = arith::SelectOp::create(b, loc, present, length, zero).getResult();
  SmallVector<OpFoldResult> offsets(t.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(t.getRank(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, seq, offsets, sizes, strides);
}

LogicalResult ModelImporter::importOutputs(FuncOp func) {
  SmallVector<Value> results;
  TypeRange resultTypes = func.getFunctionType().getResults();
  unsigned outputIndex = 0;
  for (const onnx::ValueInfoProto &info : graph.output()) {
    Location loc = locFor(info.name());
    Value value = state.lookup(info.name(), loc);
    if (!value)
      return emitError(loc) << "graph output '" << info.name()
                            << "' is not produced by any node";
    if (stateOutputs.count(info.name()))
      continue;
    const BoundaryType &boundary = outputTypes[outputIndex++];
    Value present = state.presence(info.name());
    Value shapes = boundary.sequence ? state.raggedShapes(value) : Value();
    Value shapesResult;
    if (boundary.sequence && boundary.ragged) {
      if (!shapes) {
        FailureOr<RaggedSequence> ragged =
            buildRaggedFromUniform(builder, loc, value);
        if (failed(ragged))
          return failure();
        shapes = ragged->shapes;
      }
      shapesResult = shapes;
      if (boundary.optional && present)
        shapesResult = sequenceIfPresent(builder, loc, shapes, present);
    } else if (shapes) {
      // Declared with a static element shape: every element has it.
      value = buildUniformFromRagged(
          builder, loc, RaggedSequence{value, shapes},
          RankedTensorType::get(boundary.type.getShape().drop_front(),
                                boundary.type.getElementType()));
    }
    if (boundary.optional && boundary.sequence && present)
      value = sequenceIfPresent(builder, loc, value, present);
    Type expected = resultTypes[results.size()];
    if (isa<NoneType>(expected))
      expected = value.getType();
    // Shape inference may know more (or less) than the builders; reconcile
    // with a cast where the shapes are compatible.
    if (value.getType() != expected) {
      if (!tensor::CastOp::areCastCompatible(value.getType(), expected))
        return emitError(loc)
               << "graph output '" << info.name() << "' is declared "
               << expected << " but computed as " << value.getType();
      value = tensor::CastOp::create(builder, loc, expected, value);
    }
    results.push_back(value);
    if (shapesResult) {
      int64_t rank =
          cast<RankedTensorType>(shapesResult.getType()).getDimSize(1);
      Type t = RankedTensorType::get({ShapedType::kDynamic, rank},
                                     builder.getI64Type());
      results.push_back(
          shapesResult.getType() == t
              ? shapesResult
              : tensor::CastOp::create(builder, loc, t, shapesResult));
    }
  }
  // The new state is written after everything else (in binding order).
  for (const StateBinding &binding : stateBindings) {
    Location loc = locFor(binding.output);
    if (failed(storeState(builder, loc, binding,
                          state.lookup(binding.output, loc))))
      return failure();
  }
  ReturnOp::create(builder, fileLoc, results);
  ProgramBuilder::setResultTypes(func, TypeRange(ValueRange(results)));
  return success();
}

OwningOpRef<ModuleOp> ModelImporter::run() {
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  bool hasState = options.autoState || !options.state.empty();
  if (hasState) {
    programBuilder.reserveSymbol("main");
    programBuilder.reserveSymbol(kResetFunctionName);
  }
  if (failed(readOpset()) || failed(importInitializers(*module)))
    return nullptr;
  if (hasState) {
    FailureOr<SmallVector<StateBinding>> bindings =
        resolveStateBindings(fileLoc, graph, options, [&](StringRef name) {
          return state.isInitializer(name);
        });
    if (failed(bindings))
      return nullptr;
    stateBindings = std::move(*bindings);
    builder.setInsertionPointToEnd(module->getBody());
    createStateGlobals(builder, fileLoc, programBuilder, stateBindings);
    for (const StateBinding &binding : stateBindings) {
      stateInputs[binding.input] = &binding;
      stateOutputs[binding.output] = &binding;
    }
  }
  FailureOr<FunctionType> type = getSignature();
  if (failed(type))
    return nullptr;
  builder.setInsertionPointToEnd(module->getBody());
  FuncOp func = ProgramBuilder::createFunc(
      builder, locFor(graph.name().empty() ? "main" : graph.name()), "main",
      *type);
  ProgramBuilder::markUnsigned(func, unsignedInputs, unsignedOutputs);
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  state.setEntryBlock(entry);
  unsigned argIndex = 0;
  for (const onnx::ValueInfoProto &info : graph.input()) {
    if (state.isInitializer(info.name()))
      continue;
    if (const StateBinding *binding = stateInputs.lookup(info.name()))
      state.define(
          info.name(),
          GlobalLoadOp::create(builder, locFor(info.name()), binding->type,
                               FlatSymbolRefAttr::get(ctx, binding->symbol)));
    else
      state.define(info.name(), entry->getArgument(argIndex++));
    if (raggedInputs.contains(info.name())) {
      Value data = entry->getArgument(argIndex - 1);
      state.setRaggedShapes(data, entry->getArgument(argIndex++));
    }
    if (optionalInputs.contains(info.name()))
      state.setPresence(
          info.name(), tensor::ExtractOp::create(builder, locFor(info.name()),
                                                 entry->getArgument(argIndex++),
                                                 ValueRange{}));
  }
  for (auto [index, node] : llvm::enumerate(graph.node()))
    if (failed(importNode(node,
                          node.name().empty()
                              ? node.op_type() + "#" + std::to_string(index)
                              : node.name(),
                          opset, /*depth=*/0)))
      return nullptr;
  if (failed(importOutputs(func)))
    return nullptr;
  if (!stateBindings.empty()) {
    builder.setInsertionPointToEnd(module->getBody());
    createResetFunction(builder, fileLoc, stateBindings);
  }
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp> mlprog::importONNX(const llvm::MemoryBuffer &buffer,
                                         MLIRContext *ctx,
                                         const ONNXImportOptions &options) {
  ctx->loadDialect<MLProgramDialect, arith::ArithDialect, linalg::LinalgDialect,
                   math::MathDialect, scf::SCFDialect, tensor::TensorDialect>();
  StringRef file = buffer.getBufferIdentifier();
  // External data is relative to --weights-dir, else to the model's
  // directory (the working directory for stdin or an in-memory model).
  std::string modelDir = options.weightsDir;
  if (modelDir.empty() && file != "<stdin>" && llvm::sys::fs::exists(file))
    modelDir = llvm::sys::path::parent_path(file).str();
  if (modelDir.empty())
    modelDir = ".";
  onnx::ModelProto model;
  if (failed(loadModel(buffer, FileLineColLoc::get(ctx, file, 0, 0), modelDir,
                       options.inputShapes, options.constantInputs, model)))
    return nullptr;
  return ModelImporter(ctx, file, modelDir, model, options).run();
}

OwningOpRef<ModuleOp> mlprog::importONNX(StringRef path, MLIRContext *ctx,
                                         const ONNXImportOptions &options) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/false);
  if (!buffer) {
    emitError(FileLineColLoc::get(ctx, path, 0, 0))
        << "cannot read ONNX model: " << buffer.getError().message();
    return nullptr;
  }
  return importONNX(**buffer, ctx, options);
}

void mlprog::registerImportONNXTranslation() {
  static llvm::cl::OptionCategory category("ONNX import options");
  // Registers --weights-dir and --input-shapes before the command line is
  // parsed.
  (void)importWeightsDirOption();
  (void)importInputShapesOption();
  (void)importInputConstantsOption();
  registerImportWeightsOptions();
  static llvm::cl::opt<std::string> stateOption(
      "state", llvm::cl::value_desc("IN:OUT,...|auto"),
      llvm::cl::desc(
          "Keep graph inputs in mutable globals (--import-onnx): IN is read "
          "from a global instead of being an argument, graph output OUT is "
          "stored into it instead of being a result, and @reset restores "
          "the initial value (zeros; unknown extents 0, or IN:OUT=SHAPE, "
          "e.g. =1x4x0x16). 'auto' binds every past_key_values.* input to "
          "its present.* output (see docs/state.md)"),
      llvm::cl::init(""), llvm::cl::cat(category));
  static TranslateToMLIRRegistration registration(
      "import-onnx", "Import an ONNX model (ModelProto) into ml_program",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *ctx) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        Location fileLoc =
            FileLineColLoc::get(ctx, buffer->getBufferIdentifier(), 0, 0);
        auto malformed = [&](const llvm::cl::opt<std::string> &option,
                             StringRef expected) {
          emitError(fileLoc) << "malformed --" << option.ArgStr << " '"
                             << option.getValue() << "': expected " << expected;
          return nullptr;
        };
        ONNXImportOptions options;
        options.weightsDir = importWeightsDirOption();
        auto shapes = parseInputShapes(importInputShapesOption());
        if (!shapes)
          return malformed(importInputShapesOption(),
                           "shapes like 2x3,?x4 separated by ','");
        options.inputShapes = std::move(*shapes);
        auto constants = parseInputConstants(importInputConstantsOption());
        if (!constants)
          return malformed(importInputConstantsOption(),
                           "name=value pairs separated by ','");
        options.constantInputs = std::move(*constants);
        if (llvm::Error error = parseONNXStateOption(stateOption, options)) {
          emitError(fileLoc) << llvm::toString(std::move(error));
          return nullptr;
        }
        return writeTranslatedWeights(OwningOpRef<Operation *>(
            importONNX(*buffer, ctx, options).release()));
      },
      [](DialectRegistry &registry) { registerMLProgDialects(registry); });
}
