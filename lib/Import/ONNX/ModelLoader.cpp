//===- ModelLoader.cpp - Parse, order, check and infer an ONNX model ------===//
//
// Everything the importer does to a ModelProto before it walks it: parsing,
// topological order, libonnx's checker and shape inference (through a view
// for models newer than libonnx 1.12), and the version converter for models
// older than opset 7.
//
//===----------------------------------------------------------------------===//

#include "ModelLoader.h"
#include "NodeContext.h"
#include "mlprog/Support/ModelPath.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"
#include "onnx/version_converter/convert.h"

#include <climits>
#include <functional>
#include <set>

using namespace mlir;
using namespace mlprog::onnx_import;

//===----------------------------------------------------------------------===//
// Opsets newer than libonnx
//===----------------------------------------------------------------------===//

namespace {

/// One schema change after opset 17 (NewerOpsets.inc).
struct NewerOpset {
  const char *opType;
  int64_t opset;
};

constexpr NewerOpset kNewerOpsets[] = {
#define NEWER_OPSET(op, version) {#op, version},
#define NEWEST_OPSET(version)
#include "NewerOpsets.inc"
#undef NEWER_OPSET
#undef NEWEST_OPSET
};

constexpr int64_t kNewestKnownOpset =
#define NEWER_OPSET(op, version)
#define NEWEST_OPSET(version) version
#include "NewerOpsets.inc"
#undef NEWER_OPSET
#undef NEWEST_OPSET
    ;

/// The domain that hides newer nodes from libonnx in the view: libonnx's
/// checker accepts, and its shape inference skips, ops of a domain it has no
/// schemas for.
constexpr const char *kHiddenDomain = "mlprog.newer-than-libonnx";

bool isDefaultDomain(const std::string &domain) {
  return domain.empty() || domain == "ai.onnx";
}

/// The default-domain opset of a model's or function's imports, or 0.
int64_t getDefaultOpset(
    const google::protobuf::RepeatedPtrField<onnx::OperatorSetIdProto> &ids) {
  for (const onnx::OperatorSetIdProto &id : ids)
    if (isDefaultDomain(id.domain()))
      return id.version();
  return 0;
}

} // namespace

int64_t mlprog::onnx_import::getNewestKnownOpset() { return kNewestKnownOpset; }

namespace {
/// Schema changes after opset 17 that only added element types: the op's
/// meaning, and so libonnx 1.12's function body for it, is unchanged. Each
/// entry was checked against onnx 1.23's schemas (doc, attributes, inputs
/// and outputs equal to the previous version's; only type constraints
/// widened).
constexpr NewerOpset kTypeOnlyChanges[] = {
    {"NegativeLogLikelihoodLoss", 22}, // adds bfloat16
};
} // namespace

bool mlprog::onnx_import::hasLibONNXMeaning(StringRef opType, int64_t opset) {
  return llvm::all_of(kNewerOpsets, [&](const NewerOpset &change) {
    return opType != change.opType || change.opset > opset ||
           llvm::any_of(kTypeOnlyChanges, [&](const NewerOpset &typeOnly) {
             return opType == typeOnly.opType && change.opset == typeOnly.opset;
           });
  });
}

bool mlprog::onnx_import::isNewerThanLibONNX(StringRef opType, int64_t opset) {
  if (opset <= kLibONNXMaxOpset)
    return false;
  return llvm::any_of(kNewerOpsets, [&](const NewerOpset &change) {
    return opType == change.opType && change.opset <= opset;
  });
}

namespace {

/// The input holding the weight W of a convolution whose libonnx 1.12
/// inference reads its kernel shape from W, or -1 for other ops.
int convWeightInput(StringRef opType) {
  if (opType == "Conv" || opType == "ConvInteger")
    return 1;
  return opType == "QLinearConv" ? 3 : -1;
}

bool hasAttribute(const onnx::NodeProto &node, StringRef name) {
  return llvm::any_of(node.attribute(), [&](const onnx::AttributeProto &a) {
    return a.name() == name;
  });
}

/// Nodes whose libonnx 1.12 shape inference crashes on malformed input
/// instead of throwing (both found by fuzz-onnx); the builders check these
/// ops themselves:
///  - STFT reads dims 1 and 2 of `signal` without checking its rank (a
///    rank-1 signal is a SEGV in TensorShapeProto_Dimension's copy);
///  - Conv, ConvInteger and QLinearConv without `kernel_shape` take it from
///    W and index the dilations, sized by X's rank, with it unchecked (X of
///    rank 2 and a 4-D W read an empty vector). addConvKernelShapes sets the
///    attribute where W's shape is known, which libonnx then checks.
bool hasUnsafeLibONNXInference(const onnx::NodeProto &node) {
  return node.op_type() == "STFT" || (convWeightInput(node.op_type()) >= 0 &&
                                      !hasAttribute(node, "kernel_shape"));
}

/// Whether libonnx must not see `node` at `opset`: newer than its schema,
/// or unsafe to infer.
bool hiddenFromLibONNX(const onnx::NodeProto &node, int64_t opset) {
  return mlprog::onnx_import::isNewerThanLibONNX(node.op_type(), opset) ||
         hasUnsafeLibONNXInference(node);
}

/// Gives every default-domain Conv, ConvInteger and QLinearConv of `graph`
/// (and its subgraphs) without `kernel_shape` the attribute from W's static
/// shape when W is an initializer or a declared value of the same graph
/// (ONNX: "If not present, should be inferred from input W"), so that
/// libonnx's inference checks it against X instead of crashing.
void addConvKernelShapes(onnx::GraphProto &graph) {
  llvm::StringMap<SmallVector<int64_t>> shapes;
  for (const onnx::TensorProto &init : graph.initializer())
    shapes[init.name()] =
        SmallVector<int64_t>(init.dims().begin(), init.dims().end());
  auto note = [&](const onnx::ValueInfoProto &v) {
    if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape())
      return;
    SmallVector<int64_t> dims;
    for (const auto &d : v.type().tensor_type().shape().dim()) {
      if (!d.has_dim_value())
        return;
      dims.push_back(d.dim_value());
    }
    shapes.try_emplace(v.name(), std::move(dims));
  };
  llvm::for_each(graph.input(), note);
  llvm::for_each(graph.value_info(), note);
  for (onnx::NodeProto &node : *graph.mutable_node()) {
    for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
      if (attr.has_g())
        addConvKernelShapes(*attr.mutable_g());
      for (onnx::GraphProto &sub : *attr.mutable_graphs())
        addConvKernelShapes(sub);
    }
    int w = convWeightInput(node.op_type());
    if (!isDefaultDomain(node.domain()) || w < 0 || node.input_size() <= w ||
        hasAttribute(node, "kernel_shape"))
      continue;
    auto it = shapes.find(node.input(w));
    if (it == shapes.end() || it->second.size() < 3)
      continue;
    onnx::AttributeProto *attr = node.add_attribute();
    attr->set_name("kernel_shape");
    attr->set_type(onnx::AttributeProto::INTS);
    for (int64_t d : ArrayRef(it->second).drop_front(2))
      attr->add_ints(d);
  }
}

/// Whether `graph` (or a subgraph) has a default-domain node of an op whose
/// libonnx inference is unsafe.
bool hasUnsafeInferenceNode(const onnx::GraphProto &graph) {
  for (const onnx::NodeProto &node : graph.node()) {
    if (isDefaultDomain(node.domain()) && hasUnsafeLibONNXInference(node))
      return true;
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.has_g() && hasUnsafeInferenceNode(attr.g()))
        return true;
      for (const onnx::GraphProto &sub : attr.graphs())
        if (hasUnsafeInferenceNode(sub))
          return true;
    }
  }
  return false;
}

/// Rewrites the nodes of `graph` (and its subgraphs) that libonnx 1.12 would
/// check against an outdated schema, or whose inference is unsafe, into
/// kHiddenDomain; returns whether any was. Their outputs stay uninferred,
/// which only costs inference detail.
bool hideNewerNodes(onnx::GraphProto &graph, int64_t opset) {
  bool hidden = false;
  for (onnx::NodeProto &node : *graph.mutable_node()) {
    if (isDefaultDomain(node.domain()) && hiddenFromLibONNX(node, opset)) {
      node.set_domain(kHiddenDomain);
      hidden = true;
    }
    for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
      if (attr.has_g())
        hidden |= hideNewerNodes(*attr.mutable_g(), opset);
      for (onnx::GraphProto &sub : *attr.mutable_graphs())
        hidden |= hideNewerNodes(sub, opset);
    }
  }
  return hidden;
}

/// Undoes hideNewerNodes (the hidden nodes were all of the default domain).
void unhideNewerNodes(onnx::GraphProto &graph) {
  for (onnx::NodeProto &node : *graph.mutable_node()) {
    if (node.domain() == kHiddenDomain)
      node.clear_domain();
    for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
      if (attr.has_g())
        unhideNewerNodes(*attr.mutable_g());
      for (onnx::GraphProto &sub : *attr.mutable_graphs())
        unhideNewerNodes(sub);
    }
  }
}

/// Clamps the default-domain opset in `ids` to kLibONNXMaxOpset and, if
/// `hidden`, imports kHiddenDomain; returns the original default opset.
int64_t
clampOpsets(google::protobuf::RepeatedPtrField<onnx::OperatorSetIdProto> &ids,
            bool hidden) {
  int64_t original = 0;
  for (onnx::OperatorSetIdProto &id : ids)
    if (isDefaultDomain(id.domain())) {
      original = id.version();
      id.set_version(std::min<int64_t>(id.version(), kLibONNXMaxOpset));
    }
  if (hidden) {
    onnx::OperatorSetIdProto *id = ids.Add();
    id->set_domain(kHiddenDomain);
    id->set_version(1);
  }
  return original;
}

/// True if `model` uses an IR version or opset libonnx 1.12 does not know,
/// or an op whose libonnx inference is unsafe.
bool needsLibONNXView(const onnx::ModelProto &model) {
  if (model.ir_version() > kLibONNXMaxIRVersion ||
      getDefaultOpset(model.opset_import()) > kLibONNXMaxOpset ||
      hasUnsafeInferenceNode(model.graph()))
    return true;
  return llvm::any_of(model.functions(), [](const onnx::FunctionProto &f) {
    return getDefaultOpset(f.opset_import()) > kLibONNXMaxOpset ||
           llvm::any_of(f.node(), [](const onnx::NodeProto &node) {
             return isDefaultDomain(node.domain()) &&
                    hasUnsafeLibONNXInference(node);
           });
  });
}

/// The model as libonnx 1.12 can check and infer it: IR version clamped to
/// 8, default opsets clamped to 17, and nodes whose schema changed after 17
/// (at the model's, or their function's, opset) moved into kHiddenDomain.
/// Everything else, names included, is unchanged, so the value_info that
/// inference adds to the view belongs to the model too.
onnx::ModelProto makeLibONNXView(const onnx::ModelProto &model) {
  onnx::ModelProto view = model;
  view.set_ir_version(
      std::min<int64_t>(view.ir_version(), kLibONNXMaxIRVersion));
  int64_t opset = getDefaultOpset(model.opset_import());
  bool hidden = hideNewerNodes(*view.mutable_graph(), opset);
  for (onnx::FunctionProto &function : *view.mutable_functions()) {
    int64_t functionOpset = getDefaultOpset(function.opset_import());
    bool hiddenHere = false;
    for (onnx::NodeProto &node : *function.mutable_node())
      if (isDefaultDomain(node.domain()) &&
          hiddenFromLibONNX(node, functionOpset)) {
        node.set_domain(kHiddenDomain);
        hiddenHere = true;
      }
    clampOpsets(*function.mutable_opset_import(), hiddenHere);
    hidden |= hiddenHere;
  }
  clampOpsets(*view.mutable_opset_import(), hidden);
  return view;
}

/// The model back from its (inferred) view: `view`'s graph, with the
/// original IR version, opsets, functions and node domains.
onnx::ModelProto restoreFromView(const onnx::ModelProto &model,
                                 onnx::ModelProto view) {
  onnx::ModelProto restored = model;
  unhideNewerNodes(*view.mutable_graph());
  restored.mutable_graph()->Swap(view.mutable_graph());
  return restored;
}

/// Finds the first node of `graph` (or its subgraphs) that is neither of the
/// default domain, nor a call of a model-local function, nor an op of
/// another domain the importer has a handler for.
const onnx::NodeProto *
findForeignNode(const onnx::GraphProto &graph,
                const llvm::StringSet<> &localFunctions) {
  for (const onnx::NodeProto &node : graph.node()) {
    std::string qualified = node.domain() + "::" + node.op_type();
    if (!isDefaultDomain(node.domain()) &&
        !localFunctions.contains(qualified) && !getOpTable().lookup(qualified))
      return &node;
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.has_g())
        if (const onnx::NodeProto *found =
                findForeignNode(attr.g(), localFunctions))
          return found;
      for (const onnx::GraphProto &sub : attr.graphs())
        if (const onnx::NodeProto *found = findForeignNode(sub, localFunctions))
          return found;
    }
  }
  return nullptr;
}

/// Reports a model that imports no default-domain opset, and an op of a
/// domain the importer has no handlers for (e.g.
/// `ai.onnx.ml`, `com.microsoft`) before libonnx's checker, which knows
/// some of those domains only up to 1.12's versions and would call a newer
/// model malformed.
LogicalResult checkDomains(Location fileLoc, const onnx::ModelProto &model) {
  llvm::StringSet<> localFunctions;
  for (const onnx::FunctionProto &function : model.functions())
    localFunctions.insert(function.domain() + "::" + function.name());
  const onnx::NodeProto *node = findForeignNode(model.graph(), localFunctions);
  // A model of other domains only (the training operators of
  // ai.onnx.preview.training) imports when every node has a handler. (One
  // that imports no opset at all is the checker's to report.)
  if (!node && getDefaultOpset(model.opset_import()) == 0 &&
      !model.opset_import().empty() &&
      llvm::any_of(model.graph().node(), [](const onnx::NodeProto &n) {
        return isDefaultDomain(n.domain());
      }))
    return emitError(fileLoc)
           << "unsupported ONNX model: it has nodes of the default domain but "
              "imports no opset of it";
  if (!node)
    return success();
  std::string name = node->name().empty() ? node->op_type() : node->name();
  return emitError(
             NameLoc::get(StringAttr::get(fileLoc.getContext(), name), fileLoc))
         << "unsupported ONNX op '" << node->domain() << "::" << node->op_type()
         << "' in node '" << name << "'";
}

} // namespace

//===----------------------------------------------------------------------===//
// Topological order
//===----------------------------------------------------------------------===//

LogicalResult mlprog::onnx_import::sortTopologically(Location fileLoc,
                                                     onnx::GraphProto &graph) {
  for (onnx::NodeProto &node : *graph.mutable_node())
    for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
      if (attr.has_g() && failed(sortTopologically(fileLoc, *attr.mutable_g())))
        return failure();
      for (onnx::GraphProto &sub : *attr.mutable_graphs())
        if (failed(sortTopologically(fileLoc, sub)))
          return failure();
    }
  int numNodes = graph.node_size();
  // Which node produces each name; names produced by no node are available.
  llvm::StringMap<int> producer;
  for (int i = 0; i < numNodes; ++i)
    for (const std::string &output : graph.node(i).output())
      if (!output.empty())
        producer.try_emplace(output, i);
  // Dependencies of each node, including names read inside its subgraphs
  // (a subgraph may read a value of this graph produced by a later node).
  std::vector<llvm::SmallVector<int>> users(numNodes);
  std::vector<int> pending(numNodes, 0);
  bool sorted = true;
  std::function<void(const onnx::GraphProto &, int)> collectSubgraphReads;
  auto addDependency = [&](const std::string &name, int node) {
    auto it = producer.find(name);
    if (name.empty() || it == producer.end() || it->second == node)
      return;
    users[it->second].push_back(node);
    ++pending[node];
    if (it->second > node)
      sorted = false;
  };
  collectSubgraphReads = [&](const onnx::GraphProto &sub, int node) {
    for (const onnx::NodeProto &inner : sub.node()) {
      for (const std::string &input : inner.input())
        addDependency(input, node);
      for (const onnx::AttributeProto &attr : inner.attribute()) {
        if (attr.has_g())
          collectSubgraphReads(attr.g(), node);
        for (const onnx::GraphProto &g : attr.graphs())
          collectSubgraphReads(g, node);
      }
    }
    for (const onnx::ValueInfoProto &output : sub.output())
      addDependency(output.name(), node);
  };
  for (int i = 0; i < numNodes; ++i) {
    const onnx::NodeProto &node = graph.node(i);
    for (const std::string &input : node.input())
      addDependency(input, i);
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.has_g())
        collectSubgraphReads(attr.g(), i);
      for (const onnx::GraphProto &sub : attr.graphs())
        collectSubgraphReads(sub, i);
    }
  }
  if (sorted)
    return success();
  // Kahn's algorithm, always taking the ready node that came first.
  std::set<int> ready;
  for (int i = 0; i < numNodes; ++i)
    if (pending[i] == 0)
      ready.insert(i);
  google::protobuf::RepeatedPtrField<onnx::NodeProto> order;
  std::vector<bool> placed(numNodes, false);
  while (!ready.empty()) {
    int next = *ready.begin();
    ready.erase(ready.begin());
    placed[next] = true;
    *order.Add() = graph.node(next);
    for (int user : users[next])
      if (--pending[user] == 0)
        ready.insert(user);
  }
  if (order.size() != numNodes) {
    int stuck = 0;
    while (placed[stuck])
      ++stuck;
    const onnx::NodeProto &node = graph.node(stuck);
    return emitError(fileLoc)
           << "invalid ONNX graph '" << graph.name()
           << "': it has a cycle through node '"
           << (node.name().empty()
                   ? node.op_type() + "#" + std::to_string(stuck)
                   : node.name())
           << "'";
  }
  graph.mutable_node()->Swap(&order);
  return success();
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

namespace {

/// Best-effort shape inference that skips the nodes ONNX cannot infer;
/// leaves `model` untouched if even that throws.
void inferLeniently(onnx::ModelProto &model) {
  try {
    onnx::ShapeInferenceOptions options(/*check_type_val=*/false,
                                        /*strict_mode_val=*/0);
    onnx::ModelProto inferred = model;
    onnx::shape_inference::InferShapes(
        inferred, onnx::OpSchemaRegistry::Instance(), options);
    model = std::move(inferred);
  } catch (const std::exception &) {
  }
}

/// The oldest default-domain opset the handlers implement; older models are
/// upgraded to it with libonnx's version converter.
constexpr int64_t kMinOpset = 7;

} // namespace

FailureOr<ExternalData>
mlprog::onnx_import::getExternalData(Location fileLoc, StringRef modelDir,
                                     const onnx::TensorProto &tensor) {
  ExternalData data;
  std::string location;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    uint64_t number = 0;
    if (entry.key() == "location") {
      location = entry.value();
    } else if (entry.key() == "offset" || entry.key() == "length") {
      if (StringRef(entry.value()).getAsInteger(10, number))
        return emitError(fileLoc)
               << "invalid external data " << entry.key() << " '"
               << entry.value() << "' of tensor '" << tensor.name() << "'";
      if (entry.key() == "offset")
        data.offset = number;
      else
        data.length = number;
    }
  }
  if (location.empty())
    return emitError(fileLoc) << "external data of tensor '" << tensor.name()
                              << "' has no location";
  // The one resolver for every file a model names: inside the model's
  // folder, a regular file, the range inside it (DESIGN.md rule 6).
  std::string subject = "external data of tensor '" + tensor.name() + "'";
  FailureOr<ModelFile> file =
      resolveModelPath(fileLoc, modelDir, location, subject);
  if (failed(file) ||
      failed(checkModelFileRange(fileLoc, *file, data.offset,
                                 data.length.value_or(0), subject)))
    return failure();
  data.path = std::move(file->path);
  return data;
}

namespace {

/// Whether libonnx's checker cannot check `init`: it is stored externally
/// (the checker would resolve it against the working directory), or its
/// data type is newer than libonnx 1.12 (float8, int4, ...: "Unrecognized
/// data_type"; convertTensor checks those).
bool isUncheckable(const onnx::TensorProto &init) {
  return init.data_location() == onnx::TensorProto::EXTERNAL ||
         !onnx::TensorProto::DataType_IsValid(init.data_type());
}

/// A copy of `model` for the ONNX checker in which the initializers it
/// cannot check (isUncheckable; external files were checked already) are
/// graph inputs of their type.
onnx::ModelProto withoutUncheckableInitializers(const onnx::ModelProto &model) {
  onnx::ModelProto copy = model;
  onnx::GraphProto *graph = copy.mutable_graph();
  llvm::StringSet<> inputs;
  for (const onnx::ValueInfoProto &input : graph->input())
    inputs.insert(input.name());
  google::protobuf::RepeatedPtrField<onnx::TensorProto> kept;
  for (const onnx::TensorProto &init : graph->initializer()) {
    if (!isUncheckable(init)) {
      *kept.Add() = init;
      continue;
    }
    if (inputs.contains(init.name()))
      continue;
    onnx::ValueInfoProto *input = graph->add_input();
    input->set_name(init.name());
    onnx::TypeProto_Tensor *type = input->mutable_type()->mutable_tensor_type();
    type->set_elem_type(init.data_type());
    onnx::TensorShapeProto *shape = type->mutable_shape();
    for (int64_t dim : init.dims())
      shape->add_dim()->set_dim_value(dim);
  }
  graph->mutable_initializer()->Swap(&kept);
  return copy;
}

/// The first output of `graph` or of a subgraph in it (If/Loop/Scan bodies)
/// that no node, input or initializer of that same graph defines, or "".
/// libonnx's version converter dereferences a null value for such an output
/// (a segfault in onnx::graphProtoToGraph, found by fuzz-onnx); the
/// importer reports it, or resolves a subgraph's outer-scope output, itself.
std::string findUnproducedOutput(const onnx::GraphProto &graph) {
  llvm::StringSet<> defined;
  for (const onnx::ValueInfoProto &input : graph.input())
    defined.insert(input.name());
  for (const onnx::TensorProto &init : graph.initializer())
    defined.insert(init.name());
  for (const onnx::NodeProto &node : graph.node()) {
    for (const std::string &output : node.output())
      defined.insert(output);
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.has_g())
        if (std::string name = findUnproducedOutput(attr.g()); !name.empty())
          return name;
      for (const onnx::GraphProto &sub : attr.graphs())
        if (std::string name = findUnproducedOutput(sub); !name.empty())
          return name;
    }
  }
  for (const onnx::ValueInfoProto &output : graph.output())
    if (!defined.contains(output.name()))
      return output.name().empty() ? std::string("<empty>") : output.name();
  return "";
}

/// The first Gemm of `graph` (not its subgraphs: the converter's Gemm 6 -> 7
/// adapter reads the top graph's shapes) whose A or B has a known rank other
/// than 2, or "". That adapter indexes both shapes at 0 and 1 unchecked (a
/// segfault in libonnx 1.12, found by fuzz-onnx).
std::string findMisrankedGemm(const onnx::GraphProto &graph) {
  llvm::StringMap<int> ranks;
  auto note = [&](const onnx::ValueInfoProto &v) {
    if (v.type().has_tensor_type() && v.type().tensor_type().has_shape())
      ranks[v.name()] = v.type().tensor_type().shape().dim_size();
  };
  llvm::for_each(graph.input(), note);
  llvm::for_each(graph.value_info(), note);
  llvm::for_each(graph.output(), note);
  for (const onnx::TensorProto &init : graph.initializer())
    ranks[init.name()] = init.dims_size();
  for (const onnx::NodeProto &node : graph.node()) {
    if (node.op_type() != "Gemm" || !node.domain().empty())
      continue;
    for (int i = 0; i < std::min(node.input_size(), 2); ++i) {
      auto it = ranks.find(node.input(i));
      if (it != ranks.end() && it->second != 2)
        return node.name().empty() ? std::string("Gemm") : node.name();
    }
  }
  return "";
}

/// Upgrades a model of a default-domain opset older than kMinOpset with
/// libonnx's version converter (ONNX's documented way to read old models).
/// The converter needs inferred shapes for some adapters (Gemm 6 -> 7); if
/// it still fails, the model is imported at its own opset, as the handlers
/// read attributes by the model's opset.
void upgradeOpset(Location fileLoc, onnx::ModelProto &model) {
  for (const onnx::OperatorSetIdProto &id : model.opset_import()) {
    if (!(id.domain().empty() || id.domain() == "ai.onnx") ||
        id.version() >= kMinOpset)
      continue;
    if (std::string output = findUnproducedOutput(model.graph());
        !output.empty()) {
      emitWarning(fileLoc) << "not upgrading opset " << id.version()
                           << " with the ONNX version converter: output '"
                           << output
                           << "' is not produced inside its graph; "
                              "importing at opset "
                           << id.version();
      return;
    }
    try {
      onnx::ModelProto inferred = model;
      inferLeniently(inferred);
      if (std::string gemm = findMisrankedGemm(inferred.graph());
          !gemm.empty()) {
        emitWarning(fileLoc)
            << "not upgrading opset " << id.version()
            << " with the ONNX version converter: node '" << gemm
            << "' has an operand A or B that is not 2-D; importing at opset "
            << id.version();
        return;
      }
      model = onnx::version_conversion::ConvertVersion(inferred, kMinOpset);
    } catch (const std::exception &e) {
      emitWarning(fileLoc) << "upgrading opset " << id.version() << " to opset "
                           << kMinOpset
                           << " with the ONNX version converter failed ("
                           << e.what() << "); importing at opset "
                           << id.version();
    }
    return;
  }
}

} // namespace

LogicalResult mlprog::onnx_import::loadModel(
    const llvm::MemoryBuffer &buffer, Location fileLoc, StringRef modelDir,
    ArrayRef<std::vector<int64_t>> inputShapes,
    ArrayRef<std::pair<std::string, std::string>> constantInputs,
    onnx::ModelProto &model) {
  if (buffer.getBufferSize() > size_t(INT_MAX) ||
      !model.ParseFromArray(buffer.getBufferStart(),
                            int(buffer.getBufferSize())))
    return emitError(fileLoc) << "failed to parse ONNX model: not a valid "
                                 "ModelProto";
  int64_t opset = getDefaultOpset(model.opset_import());
  if (opset > kNewestKnownOpset)
    emitWarning(fileLoc) << "ONNX opset " << opset
                         << " is newer than the newest this importer knows ("
                         << kNewestKnownOpset << "); ops are imported with "
                         << "their opset-" << kNewestKnownOpset << " semantics";
  if (failed(sortTopologically(fileLoc, *model.mutable_graph())))
    return failure();
  if (failed(checkDomains(fileLoc, model)))
    return failure();
  if (!inputShapes.empty() &&
      failed(applyInputShapes(fileLoc, *model.mutable_graph(), inputShapes)))
    return failure();
  if (failed(
          applyInputConstants(fileLoc, *model.mutable_graph(), constantInputs)))
    return failure();
  addConvKernelShapes(*model.mutable_graph());
  // The checker would look for external files relative to the working
  // directory, and refuses data types newer than libonnx 1.12: check them
  // ourselves (external files relative to the model, data in
  // convertTensor) and let the checker see a copy where they are graph
  // inputs instead.
  bool hasUncheckable = false;
  for (const onnx::TensorProto &init : model.graph().initializer()) {
    hasUncheckable |= isUncheckable(init);
    if (init.data_location() == onnx::TensorProto::EXTERNAL &&
        failed(getExternalData(fileLoc, modelDir, init)))
      return failure();
  }
  // libonnx 1.12 refuses IR versions above 8 and checks nodes of newer
  // opsets against outdated schemas: it sees a view of such models.
  bool newer = needsLibONNXView(model);
  try {
    onnx::ModelProto checked = newer ? makeLibONNXView(model) : model;
    onnx::checker::check_model(
        hasUncheckable ? withoutUncheckableInitializers(checked) : checked);
  } catch (const std::exception &e) {
    return emitError(fileLoc) << "ONNX model check failed: " << e.what();
  }
  upgradeOpset(fileLoc, model);
  // A sequence output is passed stacked or ragged as the model declares its
  // element shape (TensorConversion.h, BoundaryType), so inference must not
  // change that declaration.
  SmallVector<std::pair<int, onnx::TypeProto>> sequenceOutputs;
  for (int i = 0; i < model.graph().output_size(); ++i) {
    const onnx::TypeProto &t = model.graph().output(i).type();
    if (t.has_sequence_type() ||
        (t.has_optional_type() &&
         t.optional_type().elem_type().has_sequence_type()))
      sequenceOutputs.push_back({i, t});
  }
  auto keepSequenceOutputs = [&] {
    for (auto &[i, t] : sequenceOutputs)
      *model.mutable_graph()->mutable_output(i)->mutable_type() = t;
    return success();
  };
  if (newer) {
    // Nodes hidden from libonnx leave their outputs uninferred, which strict
    // inference reports as errors; the builders compute those types.
    onnx::ModelProto view = makeLibONNXView(model);
    inferLeniently(view);
    model = restoreFromView(model, std::move(view));
    return keepSequenceOutputs();
  }
  // Inference only refines the types the builders compute anyway, so a
  // model it rejects (e.g. ONNX 1.12 refusing int64 `Constant`s in old
  // opsets) is still importable: warn and keep whatever a lenient pass
  // infers. Truly malformed models were rejected by the checker above.
  try {
    onnx::ShapeInferenceOptions options(/*check_type_val=*/true,
                                        /*strict_mode_val=*/1);
    onnx::ModelProto inferred = model;
    onnx::shape_inference::InferShapes(
        inferred, onnx::OpSchemaRegistry::Instance(), options);
    model = std::move(inferred);
  } catch (const std::exception &e) {
    emitWarning(fileLoc) << "ONNX shape inference failed (" << e.what()
                         << "); importing with the shapes the builders "
                            "compute";
    inferLeniently(model);
  }
  return keepSequenceOutputs();
}
