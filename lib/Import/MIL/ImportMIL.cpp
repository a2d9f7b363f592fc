//===- ImportMIL.cpp - Core ML ML Program (MIL) importer ------------------===//
//
// Finds the Program (bare, inside a Core ML Model, or inside an .mlpackage),
// then maps each function to an ml_program.func: function inputs become
// arguments, the chosen block specialization's operations are imported in
// order through the handler table of OpTable.cpp, and its outputs are
// returned. Blocks nest lexical scopes (cond/while_loop bodies see the
// enclosing names).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/Import/Common/Compression.h"
#include "mlprog/Import/Common/WeightsBundle.h"
#include "mlprog/InitAll.h"
#include "mlprog/Support/ModelPath.h"
#include "mlprog/Support/ResourceLimits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <set>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::mil_import;

//===----------------------------------------------------------------------===//
// ProgramImporter
//===----------------------------------------------------------------------===//

ProgramImporter::ProgramImporter(MLIRContext *ctx, StringRef file,
                                 StringRef modelDir,
                                 const MILImportOptions &options)
    : ctx(ctx), builder(ctx), file(file), modelDir(modelDir.str()),
      options(options), fileLoc(FileLineColLoc::get(ctx, file, 0, 0)),
      globalBuilder(ctx) {}

Location ProgramImporter::locFor(StringRef name) {
  return NameLoc::get(StringAttr::get(ctx, name), fileLoc);
}

const NamedValue *ProgramImporter::lookup(StringRef name) const {
  for (const llvm::StringMap<NamedValue> &scope : llvm::reverse(scopes)) {
    auto it = scope.find(name);
    if (it != scope.end())
      return &it->second;
  }
  return nullptr;
}

LogicalResult ProgramImporter::define(Location loc, StringRef name,
                                      NamedValue value) {
  if (!scopes.back().try_emplace(name, value).second)
    return emitError(loc) << "name '" << name
                          << "' is defined more than once in one block";
  return success();
}

Value ProgramImporter::loadGlobal(Location loc, StringRef name,
                                  RankedTensorType type, Attribute value,
                                  NamedAttribute *storage) {
  GlobalOp global =
      programBuilder.createGlobal(globalBuilder, loc, name, type, value);
  if (storage)
    global->setAttr(storage->getName(), storage->getValue());
  return ProgramBuilder::loadConstGlobal(builder, loc, type,
                                         global.getSymName());
}

FailureOr<Value> ProgramImporter::materialize(const mil::Value &value,
                                              Location loc, StringRef name) {
  FailureOr<RankedTensorType> type =
      convertValueType(loc, ctx, value.type(), "value '" + name.str() + "'");
  if (failed(type))
    return failure();
  // Refuse overflowing or oversized tensors before anything is allocated.
  if (type->hasStaticShape() && type->getElementType().isIntOrFloat())
    if (llvm::Expected<uint64_t> bytes = checkTensorByteSize(
            type->getShape(), type->getElementType().getIntOrFloatBitWidth(),
            "value '" + name + "'");
        !bytes)
      return emitError(loc) << llvm::toString(bytes.takeError());
  if (value.has_blobfilevalue())
    return materializeBlob(value, *type, loc, name);
  if (!value.has_immediatevalue())
    return emitError(loc) << "value '" << name << "' has no contents";
  if (!value.immediatevalue().has_tensor())
    return emitError(loc) << "unsupported non-tensor immediate value '" << name
                          << "' (tuple, list or dictionary)";
  FailureOr<DenseElementsAttr> attr =
      convertTensorValue(loc, value.immediatevalue().tensor(), *type,
                         value.type().tensortype().datatype());
  if (failed(attr))
    return failure();
  if (attr->getNumElements() > options.maxConstantElements)
    return loadGlobal(loc, name, *type, *attr, nullptr);
  return arith::ConstantOp::create(builder, loc, *attr).getResult();
}

FailureOr<const mil::BlobFile *>
ProgramImporter::openBlobFile(Location loc, StringRef fileName,
                              StringRef valueName) {
  // coremltools writes "@model_path/weights/weight.bin"; "@model_path" is
  // the folder of the model file (or --weights-dir). Any other name is
  // relative to it too.
  StringRef name = fileName;
  name.consume_front("@model_path/");
  StringRef folder =
      options.weightsDir.empty() ? StringRef(modelDir) : options.weightsDir;
  FailureOr<ModelFile> file = resolveModelPath(
      loc, folder, name, "weight blob file of value '" + valueName + "'");
  if (failed(file))
    return failure();
  StringRef path = file->path;
  auto it = blobFiles.find(std::string(path));
  if (it != blobFiles.end())
    return it->second.get();
  llvm::Expected<mil::BlobFile> blobs = mil::BlobFile::open(path);
  if (!blobs)
    return emitError(loc) << llvm::toString(blobs.takeError());
  auto owned = std::make_unique<mil::BlobFile>(std::move(*blobs));
  const mil::BlobFile *result = owned.get();
  blobFiles.emplace(std::string(path), std::move(owned));
  return result;
}

FailureOr<Value> ProgramImporter::materializeBlob(const mil::Value &value,
                                                  RankedTensorType type,
                                                  Location loc,
                                                  StringRef name) {
  const mil::Value::BlobFileValue &blob = value.blobfilevalue();
  mil::DataType dataType = value.type().tensortype().datatype();
  std::optional<mil::BlobDataType> blobType = getBlobDataType(dataType);
  if (!blobType)
    return emitError(loc) << "unsupported element type "
                          << type.getElementType() << " for a blob value";
  if (!type.hasStaticShape())
    return emitError(loc) << "blob value '" << name << "' has dynamic type "
                          << type;
  FailureOr<const mil::BlobFile *> blobs =
      openBlobFile(loc, blob.filename(), name);
  if (failed(blobs))
    return failure();
  llvm::Expected<mil::BlobRecord> record = (*blobs)->getRecord(blob.offset());
  if (!record)
    return emitError(loc) << "invalid blob for value '" << name << "' in '"
                          << (*blobs)->getIdentifier()
                          << "': " << llvm::toString(record.takeError());
  if (llvm::Error err =
          mil::BlobFile::checkTensor(*record, *blobType, type.getNumElements()))
    return emitError(loc) << "invalid blob for value '" << name << "' of type "
                          << type << " in '" << (*blobs)->getIdentifier()
                          << "': " << llvm::toString(std::move(err));
  auto storage = ExternalStorageAttr::get(
      ctx, StringAttr::get(ctx, (*blobs)->getIdentifier()), StringAttr(),
      record->dataOffset, record->sizeInBytes);
  NamedAttribute attr(StringAttr::get(ctx, ExternalStorageAttr::getAttrName()),
                      storage);
  unsigned bits = mil::getBlobDataTypeBitWidth(uint32_t(*blobType));
  if (bits % 8 == 0)
    return loadGlobal(loc, name, type, ExternAttr::get(ctx, type), &attr);
  // Sub-byte elements stay packed in their global (one byte in memory holds
  // 8 / bits of them) and are unpacked by the program.
  auto packedType = RankedTensorType::get({int64_t(record->sizeInBytes)},
                                          builder.getI8Type());
  Value packed = loadGlobal(loc, name, packedType,
                            ExternAttr::get(ctx, packedType), &attr);
  return buildUnpackBits(builder, loc, packed, bits, type.getShape());
}

FailureOr<ArrayRef<char>>
ProgramImporter::getConstantBytes(const mil::Value &value, Location loc,
                                  StringRef name) {
  if (value.has_immediatevalue() && value.immediatevalue().has_tensor() &&
      value.immediatevalue().tensor().has_bytes()) {
    const std::string &raw = value.immediatevalue().tensor().bytes().values();
    return ArrayRef<char>(raw.data(), raw.size());
  }
  if (!value.has_blobfilevalue())
    return failure();
  FailureOr<const mil::BlobFile *> blobs =
      openBlobFile(loc, value.blobfilevalue().filename(), name);
  if (failed(blobs))
    return failure();
  llvm::Expected<mil::BlobRecord> record =
      (*blobs)->getRecord(value.blobfilevalue().offset());
  if (!record)
    return emitError(loc) << "invalid blob for value '" << name << "' in '"
                          << (*blobs)->getIdentifier()
                          << "': " << llvm::toString(record.takeError());
  return (*blobs)->getData(*record);
}

FailureOr<SmallVector<NamedValue>>
ProgramImporter::importBlock(const mil::Block &block,
                             ArrayRef<NamedValue> inputs, Location loc) {
  if (block.inputs_size() != int(inputs.size()))
    return emitError(loc) << "block declares " << block.inputs_size()
                          << " inputs but receives " << inputs.size();
  scopes.emplace_back();
  llvm::scope_exit popScope([&] { scopes.pop_back(); });
  for (auto [input, value] : llvm::zip(block.inputs(), inputs))
    if (failed(define(locFor(input.name()), input.name(), value)))
      return failure();
  for (auto [index, op] : llvm::enumerate(block.operations()))
    if (failed(importOperation(op, index)))
      return failure();
  SmallVector<NamedValue> outputs;
  for (const std::string &name : block.outputs()) {
    const NamedValue *value = lookup(name);
    if (!value)
      return emitError(locFor(name))
             << "block output '" << name << "' is not defined";
    outputs.push_back(*value);
  }
  return outputs;
}

LogicalResult ProgramImporter::importOperation(const mil::Operation &op,
                                               unsigned index) {
  std::string name = op.outputs_size()
                         ? op.outputs(0).name()
                         : op.type() + "#" + std::to_string(index);
  Location loc = locFor(name);
  // Every error raised while importing this operation names it.
  ScopedDiagnosticHandler nameOp(ctx, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error)
      diag << " (in MIL op '" << op.type() << "' producing '" << name << "')";
    return failure();
  });
  OpHandler handler = getOpTable().lookup(op.type());
  if (!handler)
    return emitError(loc) << "unsupported MIL op '" << op.type() << "'";
  OpContext opCtx(*this, op, loc);
  if (failed(handler(opCtx)))
    return failure();
  for (const mil::NamedValueType &output : op.outputs())
    if (!scopes.back().count(output.name()))
      return emitError(loc) << "unsupported output '" << output.name()
                            << "' of MIL op '" << op.type() << "'";
  return success();
}

LogicalResult ProgramImporter::importFunction(StringRef name,
                                              const mil::Function &function) {
  Location loc = locFor(name);
  std::string opset = options.opset.empty() ? function.opset() : options.opset;
  auto block = function.block_specializations().find(opset);
  if (block == function.block_specializations().end()) {
    InFlightDiagnostic diag = emitError(loc)
                              << "function '" << name
                              << "' has no block specialization for opset '"
                              << opset << "'; it has:";
    std::set<std::string> names;
    for (const auto &entry : function.block_specializations())
      names.insert(entry.first);
    for (const std::string &available : names)
      diag << " '" << available << "'";
    return diag;
  }
  SmallVector<Type> argTypes;
  for (const mil::NamedValueType &input : function.inputs()) {
    if (input.type().has_statetype()) // A global, not an argument.
      continue;
    FailureOr<RankedTensorType> type =
        convertValueType(locFor(input.name()), ctx, input.type(),
                         "function input '" + input.name() + "'");
    if (failed(type))
      return failure();
    argTypes.push_back(*type);
  }
  builder.setInsertionPointToEnd(module.getBody());
  FuncOp func = ProgramBuilder::createFunc(
      builder, loc, name, builder.getFunctionType(argTypes, {}));
  // Globals go before the first function, in the order they are created.
  if (globalBuilder.getInsertionPoint() == module.getBody()->end())
    globalBuilder.setInsertionPoint(func);
  Block *entry = func.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  // Function inputs are the outermost scope of the block.
  scopes.emplace_back();
  llvm::scope_exit popScope([&] { scopes.pop_back(); });
  auto arg = entry->args_begin();
  for (const mil::NamedValueType &input : function.inputs())
    if (input.type().has_statetype()
            ? failed(declareState(input))
            : failed(define(locFor(input.name()), input.name(),
                            {*arg++, nullptr, std::nullopt,
                             input.type().has_tensortype() &&
                                 isUnsignedDataType(
                                     input.type().tensortype().datatype())})))
      return failure();
  FailureOr<SmallVector<NamedValue>> outputs =
      importBlock(block->second, {}, loc);
  if (failed(outputs))
    return failure();
  SmallVector<Value> results;
  for (auto [output, value] : llvm::zip(block->second.outputs(), *outputs)) {
    if (value.list)
      return emitError(locFor(output)) << "unsupported list output '" << output
                                       << "' of function '" << name << "'";
    results.push_back(value.value);
  }
  ReturnOp::create(builder, loc, results);
  ProgramBuilder::setResultTypes(func, ValueRange(results).getTypes());
  markUnsignedBoundary(func, function, block->second);
  return success();
}

/// Whether a value of `type` is an unsigned integer tensor the runners can
/// return as such (uint1 is a bool, i1, and stays unmarked).
static bool isUnsignedBoundaryType(const mil::ValueType &type) {
  if (!type.has_tensortype())
    return false;
  mil::DataType dataType = type.tensortype().datatype();
  return isUnsignedDataType(dataType) && dataType != mil::UINT1;
}

void ProgramImporter::markUnsignedBoundary(FuncOp func,
                                           const mil::Function &function,
                                           const mil::Block &block) {
  // Outputs have the types their producing ops (or the inputs) declare.
  llvm::StringMap<const mil::ValueType *> declared;
  SmallVector<bool> inputs, outputs;
  for (const mil::NamedValueType &input : function.inputs()) {
    declared[input.name()] = &input.type();
    if (!input.type().has_statetype())
      inputs.push_back(isUnsignedBoundaryType(input.type()));
  }
  for (const mil::Operation &op : block.operations())
    for (const mil::NamedValueType &output : op.outputs())
      declared[output.name()] = &output.type();
  for (const std::string &name : block.outputs()) {
    const mil::ValueType *type = declared.lookup(name);
    outputs.push_back(type && isUnsignedBoundaryType(*type));
  }
  ProgramBuilder::markUnsigned(func, inputs, outputs);
}

OwningOpRef<ModuleOp> ProgramImporter::run(const mil::Program &program) {
  OwningOpRef<ModuleOp> owned = ModuleOp::create(fileLoc);
  module = *owned;
  globalBuilder.setInsertionPointToEnd(module.getBody());
  if (program.functions().empty()) {
    emitError(fileLoc) << "MIL program has no functions";
    return nullptr;
  }
  // Functions in name order, so the output does not depend on map order.
  std::map<std::string, const mil::Function *> functions;
  for (const auto &entry : program.functions())
    functions[entry.first] = &entry.second;
  for (const auto &[name, function] : functions) {
    programBuilder.reserveSymbol(name);
  }
  for (const auto &[name, function] : functions)
    if (failed(importFunction(name, *function)))
      return nullptr;
  // Drop constants only used as compile-time parameters.
  SmallVector<Operation *> dead;
  module.walk([&](Operation *op) {
    if (isa<arith::ConstantOp>(op) && op->use_empty())
      dead.push_back(op);
  });
  for (Operation *op : dead)
    op->erase();
  if (failed(verify(module)))
    return nullptr;
  return owned;
}

//===----------------------------------------------------------------------===//
// Loading files
//===----------------------------------------------------------------------===//

namespace {
/// What a file holds.
struct LoadedProgram {
  mil::Program program;
  /// Directory of the model file: the base of blob paths.
  std::string modelDir;
  /// File used in locations.
  std::string file;
};
} // namespace

static std::string parentDir(StringRef path) {
  SmallString<256> dir(path);
  llvm::sys::fs::make_absolute(dir);
  llvm::sys::path::remove_filename(dir);
  return std::string(dir);
}

/// The name Core ML's Model.proto gives the model type in field `number`
/// of `Model` (its `Type` oneof), or "" for a number it does not use.
static StringRef getModelTypeName(int number) {
  static const std::pair<int, StringRef> names[] = {
      {200, "pipelineClassifier"},
      {201, "pipelineRegressor"},
      {202, "pipeline"},
      {300, "glmRegressor"},
      {301, "supportVectorRegressor"},
      {302, "treeEnsembleRegressor"},
      {303, "neuralNetworkRegressor"},
      {304, "bayesianProbitRegressor"},
      {400, "glmClassifier"},
      {401, "supportVectorClassifier"},
      {402, "treeEnsembleClassifier"},
      {403, "neuralNetworkClassifier"},
      {404, "kNearestNeighborsClassifier"},
      {500, "neuralNetwork"},
      {501, "itemSimilarityRecommender"},
      {502, "mlProgram"},
      {555, "customModel"},
      {556, "linkedModel"},
      {560, "classConfidenceThresholding"},
      {600, "oneHotEncoder"},
      {601, "imputer"},
      {602, "featureVectorizer"},
      {603, "dictVectorizer"},
      {604, "scaler"},
      {606, "categoricalMapping"},
      {607, "normalizer"},
      {609, "arrayFeatureExtractor"},
      {610, "nonMaximumSuppression"},
      {900, "identity"},
      {2000, "textClassifier"},
      {2001, "wordTagger"},
      {2002, "visionFeaturePrint"},
      {2003, "soundAnalysisPreprocessing"},
      {2004, "gazetteer"},
      {2005, "wordEmbedding"},
      {2006, "audioFeaturePrint"},
      {3000, "serializedModel"}};
  for (const auto &[n, name] : names)
    if (n == number)
      return name;
  return "";
}

/// The type of a pipeline member, for notes: a field the schema knows, else
/// the first unknown field whose number names a Core ML model type.
static std::string describeModelType(const mil::Model &model) {
  if (model.has_mlprogram())
    return "mlProgram";
  if (model.has_pipeline() || model.has_pipelineclassifier() ||
      model.has_pipelineregressor())
    return "pipeline";
  const google::protobuf::UnknownFieldSet &unknown =
      model.GetReflection()->GetUnknownFields(model);
  for (int i = 0; i < unknown.field_count(); ++i)
    if (StringRef name = getModelTypeName(unknown.field(i).number());
        !name.empty())
      return name.str();
  return "unknown model type";
}

/// The pipeline `model` is, if it is one (plain, classifier or regressor).
static const mil::Pipeline *getPipeline(const mil::Model &model) {
  if (model.has_pipeline())
    return &model.pipeline();
  if (model.has_pipelineclassifier())
    return &model.pipelineclassifier().pipeline();
  if (model.has_pipelineregressor())
    return &model.pipelineregressor().pipeline();
  return nullptr;
}

/// The models of `model` in the order they run: `model` itself, or the
/// members of a pipeline (nested pipelines flattened), each with its path of
/// pipeline member names ("0", "detector/1", ...).
static void
collectModels(mil::Model &model, const std::string &path,
              SmallVectorImpl<std::pair<std::string, mil::Model *>> &models) {
  const mil::Pipeline *pipeline = getPipeline(model);
  if (!pipeline) {
    models.push_back({path, &model});
    return;
  }
  auto &members = *const_cast<mil::Pipeline *>(pipeline)->mutable_models();
  for (int i = 0; i < members.size(); ++i) {
    std::string name =
        i < pipeline->names_size() ? pipeline->names(i) : std::to_string(i);
    collectModels(members[i], path.empty() ? name : path + "/" + name, models);
  }
}

/// Parses `bytes` as a Model holding a Program (field 502), or a pipeline
/// with one among its members, or, failing that and unless the file must be
/// a model, as a bare Program.
static LogicalResult parseProgram(StringRef bytes, StringRef path, Location loc,
                                  LoadedProgram &out) {
  if (bytes.size() > size_t(INT_MAX))
    return emitError(loc) << "file too large for protobuf";
  mil::Model model;
  if (model.ParseFromArray(bytes.data(), int(bytes.size()))) {
    if (model.has_mlprogram()) {
      out.program = std::move(*model.mutable_mlprogram());
      return success();
    }
    if (getPipeline(model)) {
      // A pipeline: its first ML Program is imported; every other member
      // is named in a warning (a trailing nonMaximumSuppression, say).
      SmallVector<std::pair<std::string, mil::Model *>> models;
      collectModels(model, "", models);
      auto *program = llvm::find_if(
          models, [](const auto &m) { return m.second->has_mlprogram(); });
      if (program == models.end())
        return emitError(loc) << "unsupported Core ML pipeline: none of its "
                                 "models is an ML Program";
      for (const auto &[name, member] : models)
        if (member != program->second)
          emitWarning(loc) << "pipeline member '" << name << "' ("
                           << describeModelType(*member)
                           << ") is not imported: only the pipeline's first "
                              "ML Program ('"
                           << program->first << "') is";
      out.program = std::move(*program->second->mutable_mlprogram());
      return success();
    }
  }
  if (path.ends_with(".mlmodel"))
    return emitError(loc) << "failed to parse Core ML model: not a valid Model "
                             "message holding an ML Program (field 502)";
  if (!out.program.ParseFromArray(bytes.data(), int(bytes.size())))
    return emitError(loc) << "failed to parse MIL program: not a valid "
                             "Program or Core ML Model message";
  if (out.program.functions().empty())
    return emitError(loc) << "failed to parse MIL program: no functions "
                             "(not a Program or Core ML Model message?)";
  return success();
}

/// Reads an .mlpackage manifest and the root model it names.
static LogicalResult loadPackage(StringRef manifestText, StringRef manifestPath,
                                 Location loc, LoadedProgram &out) {
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(manifestText);
  if (!json)
    return emitError(loc) << "invalid .mlpackage Manifest.json: "
                          << llvm::toString(json.takeError());
  const llvm::json::Object *root = json->getAsObject();
  std::optional<StringRef> rootId =
      root ? root->getString("rootModelIdentifier") : std::nullopt;
  const llvm::json::Object *entries =
      root ? root->getObject("itemInfoEntries") : nullptr;
  if (!rootId || !entries)
    return emitError(loc) << "invalid .mlpackage Manifest.json: needs "
                             "'rootModelIdentifier' and 'itemInfoEntries'";
  const llvm::json::Object *entry = entries->getObject(*rootId);
  std::optional<StringRef> relPath =
      entry ? entry->getString("path") : std::nullopt;
  if (!relPath)
    return emitError(loc) << "invalid .mlpackage Manifest.json: no item '"
                          << *rootId << "' with a 'path'";
  // The root model lies inside the package's Data folder.
  SmallString<256> dataDir(parentDir(manifestPath));
  llvm::sys::path::append(dataDir, "Data");
  FailureOr<ModelFile> file = resolveModelPath(
      loc, dataDir, *relPath,
      "invalid .mlpackage Manifest.json: item '" + *rootId + "'");
  if (failed(file))
    return failure();
  StringRef modelPath = file->path;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(modelPath, /*IsText=*/false);
  if (!buffer)
    return emitError(loc) << "cannot read the package's root model '"
                          << modelPath << "': " << buffer.getError().message();
  Location modelLoc = FileLineColLoc::get(loc.getContext(), modelPath, 0, 0);
  out.modelDir = parentDir(modelPath);
  out.file = std::string(modelPath);
  return parseProgram((*buffer)->getBuffer(), modelPath, modelLoc, out);
}

static void loadDialects(MLIRContext *ctx) {
  ctx->loadDialect<MLProgramDialect, arith::ArithDialect, linalg::LinalgDialect,
                   math::MathDialect, scf::SCFDialect, tensor::TensorDialect>();
}

OwningOpRef<ModuleOp> mlprog::importMIL(const llvm::MemoryBuffer &buffer,
                                        MLIRContext *ctx,
                                        const MILImportOptions &options) {
  loadDialects(ctx);
  StringRef path = buffer.getBufferIdentifier();
  Location loc = FileLineColLoc::get(ctx, path, 0, 0);
  StringRef bytes = buffer.getBuffer();
  LoadedProgram loaded;
  loaded.modelDir = parentDir(path);
  loaded.file = std::string(path);
  if (bytes.ltrim().starts_with("{")) {
    if (failed(loadPackage(bytes, path, loc, loaded)))
      return nullptr;
  } else if (failed(parseProgram(bytes, path, loc, loaded))) {
    return nullptr;
  }
  return ProgramImporter(ctx, loaded.file, loaded.modelDir, options)
      .run(loaded.program);
}

OwningOpRef<ModuleOp> mlprog::importMIL(StringRef path, MLIRContext *ctx,
                                        const MILImportOptions &options) {
  SmallString<256> file(path);
  if (llvm::sys::fs::is_directory(path))
    llvm::sys::path::append(file, "Manifest.json");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFileOrSTDIN(file, /*IsText=*/false);
  if (!buffer) {
    emitError(FileLineColLoc::get(ctx, file, 0, 0))
        << "cannot read MIL program: " << buffer.getError().message();
    return nullptr;
  }
  return importMIL(**buffer, ctx, options);
}

void mlprog::registerImportMILTranslation() {
  static llvm::cl::opt<std::string> opset(
      "mil-opset",
      llvm::cl::desc("--import-mil: the block specialization (opset) to "
                     "import for every function (default: each function's "
                     "own opset)"),
      llvm::cl::init(""));
  // Registers --weights-dir before the command line is parsed.
  (void)importWeightsDirOption();
  registerImportWeightsOptions();
  static TranslateToMLIRRegistration registration(
      "import-mil",
      "Import a Core ML ML Program (MIL Program, .mlmodel or .mlpackage) "
      "into ml_program",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *ctx) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        MILImportOptions options;
        options.opset = opset;
        options.weightsDir = importWeightsDirOption();
        return writeTranslatedWeights(OwningOpRef<Operation *>(
            importMIL(*buffer, ctx, options).release()));
      },
      [](DialectRegistry &registry) { registerMLProgDialects(registry); });
}
