//===- ImportONNX.cpp - ONNX model importer -------------------------------===//
//
// Maps an ONNX graph to ml_program: initializers to immutable globals, graph
// inputs/outputs to the signature of `@main`, and each node, through the
// handler table of OpHandlers.cpp, to the shared tensor op builders.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Import/ONNX/ImportONNX.h"
#include "NodeContext.h"
#include "TensorConversion.h"

#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/InitAll.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include "onnx/checker.h"
#include "onnx/shape_inference/implementation.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::onnx_import;

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

/// Parses, checks and shape-infers the model; ONNX reports problems by
/// throwing, which we turn into diagnostics at `fileLoc`.
LogicalResult loadModel(const llvm::MemoryBuffer &buffer, Location fileLoc,
                        onnx::ModelProto &model) {
  if (buffer.getBufferSize() > size_t(INT_MAX) ||
      !model.ParseFromArray(buffer.getBufferStart(),
                            int(buffer.getBufferSize())))
    return emitError(fileLoc) << "failed to parse ONNX model: not a valid "
                                 "ModelProto";
  // The checker would look for external files relative to the working
  // directory; report what we do not support before it does.
  for (const onnx::TensorProto &init : model.graph().initializer())
    if (init.data_location() == onnx::TensorProto::EXTERNAL)
      return emitError(fileLoc)
             << "unsupported external data in tensor '" << init.name() << "'";
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception &e) {
    return emitError(fileLoc) << "ONNX model check failed: " << e.what();
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
  return success();
}

/// Builds the module for one checked model.
class ModelImporter {
public:
  ModelImporter(MLIRContext *ctx, StringRef file, const onnx::ModelProto &model)
      : ctx(ctx), file(file), model(model), graph(model.graph()), builder(ctx),
        state(builder), fileLoc(FileLineColLoc::get(ctx, file, 0, 0)) {}

  OwningOpRef<ModuleOp> run();

private:
  /// `NameLoc(name, file:0:0)`.
  Location locFor(StringRef name) {
    return NameLoc::get(StringAttr::get(ctx, name), fileLoc);
  }
  LogicalResult readOpset();
  LogicalResult importInitializers(ModuleOp module);
  FailureOr<FunctionType> getSignature();
  LogicalResult importNode(const onnx::NodeProto &node, unsigned index);
  LogicalResult importOutputs(FunctionType type);
  std::string uniqueSymbol(StringRef name);

  MLIRContext *ctx;
  StringRef file;
  const onnx::ModelProto &model;
  const onnx::GraphProto &graph;
  OpBuilder builder;
  GraphState state;
  Location fileLoc;
  int64_t opset = 0;
  llvm::StringSet<> symbols;
};

} // namespace

LogicalResult ModelImporter::readOpset() {
  for (const onnx::OperatorSetIdProto &id : model.opset_import())
    if (id.domain().empty() || id.domain() == "ai.onnx")
      opset = id.version();
  if (opset != 0)
    return success();
  // A model of another domain only (e.g. the training operators of
  // ai.onnx.preview.training) is valid ONNX we do not implement.
  if (!model.opset_import().empty())
    return emitError(fileLoc)
           << "unsupported ONNX domain '" << model.opset_import(0).domain()
           << "': the model imports no opset of the default ONNX domain";
  return emitError(fileLoc) << "model imports no opset of the default "
                               "ONNX domain";
}

/// Symbol names keep [A-Za-z0-9_$.] (MLIR bare identifiers), other
/// characters become '_', and clashes get a numeric suffix.
std::string ModelImporter::uniqueSymbol(StringRef name) {
  std::string base;
  for (char c : name)
    base += llvm::isAlnum(c) || c == '_' || c == '$' || c == '.' ? c : '_';
  if (base.empty() || llvm::isDigit(base[0]) || base[0] == '$' ||
      base[0] == '.')
    base = "_" + base;
  std::string symbol = base;
  for (unsigned i = 1; !symbols.insert(symbol).second; ++i)
    symbol = base + "_" + std::to_string(i);
  return symbol;
}

LogicalResult ModelImporter::importInitializers(ModuleOp module) {
  builder.setInsertionPointToEnd(module.getBody());
  for (const onnx::TensorProto &init : graph.initializer()) {
    Location loc = locFor(init.name());
    FailureOr<DenseElementsAttr> value = convertTensor(loc, init);
    if (failed(value))
      return failure();
    std::string symbol = uniqueSymbol(init.name());
    GlobalOp::create(builder, loc, symbol, value->getType(),
                     /*is_mutable=*/false, *value,
                     builder.getStringAttr("private"));
    state.addInitializer(init.name(), *value, symbol);
    state.recordDataType(init.name(), init.data_type());
  }
  return success();
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
    FailureOr<RankedTensorType> type =
        convertTensorType(locFor(info.name()), info.name(), info.type());
    if (failed(type))
      return failure();
    inputs.push_back(*type);
  }
  for (const onnx::ValueInfoProto &info : graph.output()) {
    record(info);
    FailureOr<RankedTensorType> type =
        convertTensorType(locFor(info.name()), info.name(), info.type());
    if (failed(type))
      return failure();
    results.push_back(*type);
  }
  return builder.getFunctionType(inputs, results);
}

LogicalResult ModelImporter::importNode(const onnx::NodeProto &node,
                                        unsigned index) {
  std::string name = node.name().empty()
                         ? node.op_type() + "#" + std::to_string(index)
                         : node.name();
  Location loc = locFor(name);
  // Every error raised while importing this node names it.
  ScopedDiagnosticHandler nameNode(ctx, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      diag << " in node '" << name << "'";
    return failure();
  });
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return emitError(loc) << "unsupported ONNX op '" << node.domain()
                          << "::" << node.op_type() << "'";
  const llvm::StringMap<OpHandler> &handlers = getOpHandlers();
  auto handler = handlers.find(node.op_type());
  if (handler == handlers.end())
    return emitError(loc) << "unsupported ONNX op '" << node.op_type() << "'";
  NodeContext nodeCtx(state, node, builder, loc, opset);
  if (failed(handler->second(nodeCtx)))
    return failure();
  for (int i = 0; i < node.output_size(); ++i)
    if (nodeCtx.hasOutput(i) && !state.lookup(node.output(i), loc))
      return emitError(loc) << "unsupported output " << i << " of ONNX op '"
                            << node.op_type() << "'";
  return success();
}

LogicalResult ModelImporter::importOutputs(FunctionType type) {
  SmallVector<Value> results;
  for (auto [info, expected] : llvm::zip(graph.output(), type.getResults())) {
    Location loc = locFor(info.name());
    Value value = state.lookup(info.name(), loc);
    if (!value)
      return emitError(loc) << "graph output '" << info.name()
                            << "' is not produced by any node";
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
  }
  ReturnOp::create(builder, fileLoc, results);
  return success();
}

OwningOpRef<ModuleOp> ModelImporter::run() {
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  if (failed(readOpset()) || failed(importInitializers(*module)))
    return nullptr;
  FailureOr<FunctionType> type = getSignature();
  if (failed(type))
    return nullptr;
  builder.setInsertionPointToEnd(module->getBody());
  auto func = FuncOp::create(
      builder, locFor(graph.name().empty() ? "main" : graph.name()), "main",
      *type, /*arg_attrs=*/nullptr,
      /*res_attrs=*/nullptr,
      /*sym_visibility=*/nullptr);
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  unsigned argIndex = 0;
  for (const onnx::ValueInfoProto &info : graph.input())
    if (!state.isInitializer(info.name()))
      state.define(info.name(), entry->getArgument(argIndex++));
  for (auto [index, node] : llvm::enumerate(graph.node()))
    if (failed(importNode(node, index)))
      return nullptr;
  if (failed(importOutputs(*type)) || failed(verify(*module)))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp> mlprog::importONNX(const llvm::MemoryBuffer &buffer,
                                         MLIRContext *ctx) {
  ctx->loadDialect<MLProgramDialect, arith::ArithDialect, linalg::LinalgDialect,
                   math::MathDialect, tensor::TensorDialect>();
  StringRef file = buffer.getBufferIdentifier();
  onnx::ModelProto model;
  if (failed(loadModel(buffer, FileLineColLoc::get(ctx, file, 0, 0), model)))
    return nullptr;
  return ModelImporter(ctx, file, model).run();
}

OwningOpRef<ModuleOp> mlprog::importONNX(StringRef path, MLIRContext *ctx) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/false);
  if (!buffer) {
    emitError(FileLineColLoc::get(ctx, path, 0, 0))
        << "cannot read ONNX model: " << buffer.getError().message();
    return nullptr;
  }
  return importONNX(**buffer, ctx);
}

void mlprog::registerImportONNXTranslation() {
  static TranslateToMLIRRegistration registration(
      "import-onnx", "Import an ONNX model (ModelProto) into ml_program",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *ctx) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        return OwningOpRef<Operation *>(importONNX(*buffer, ctx).release());
      },
      [](DialectRegistry &registry) { registerMLProgDialects(registry); });
}
