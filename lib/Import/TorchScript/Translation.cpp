//===- Translation.cpp - --import-torchscript registration ----------------===//
//
// The mlir-translate entry point and its options. Kept free of libtorch
// headers so that it compiles without RTTI like the rest of LLVM/MLIR (it
// defines cl::opts, which subclass LLVM's polymorphic classes).
//
//===----------------------------------------------------------------------===//

#include "mlprog/Import/TorchScript/ImportTorchScript.h"
#include "mlprog/InitAll.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace mlprog;

std::optional<std::vector<std::vector<int64_t>>>
mlprog::parseTorchScriptInputShapes(StringRef text) {
  std::vector<std::vector<int64_t>> shapes;
  if (text.trim().empty())
    return shapes;
  SmallVector<StringRef> items;
  text.split(items, ',');
  for (StringRef item : items) {
    item = item.trim();
    std::vector<int64_t> shape;
    if (item.empty() || item == "scalar") {
      shapes.push_back(shape);
      continue;
    }
    SmallVector<StringRef> dims;
    item.split(dims, 'x');
    for (StringRef d : dims) {
      d = d.trim();
      int64_t v;
      if (d == "?")
        shape.push_back(ShapedType::kDynamic);
      else if (!d.getAsInteger(10, v) && v >= 0)
        shape.push_back(v);
      else
        return std::nullopt;
    }
    shapes.push_back(shape);
  }
  return shapes;
}

std::optional<std::vector<std::pair<std::string, std::string>>>
mlprog::parseTorchScriptInputConstants(StringRef text) {
  std::vector<std::pair<std::string, std::string>> constants;
  if (text.trim().empty())
    return constants;
  SmallVector<StringRef> pairs;
  text.split(pairs, ',');
  for (StringRef pair : pairs) {
    auto [name, value] = pair.split('=');
    name = name.trim();
    value = value.trim();
    if (name.empty() || value.empty() || !pair.contains('='))
      return std::nullopt;
    constants.emplace_back(name.str(), value.str());
  }
  return constants;
}

void mlprog::registerImportTorchScriptTranslation() {
  static llvm::cl::OptionCategory category("TorchScript import options");
  static llvm::cl::opt<std::string> method(
      "method",
      llvm::cl::desc("TorchScript methods to import, separated by ',' "
                     "(--import-torchscript; default: forward and the "
                     "@torch.jit.export methods; '*': every method)"),
      llvm::cl::init(""), llvm::cl::cat(category));
  static llvm::cl::opt<std::string> inputShapes(
      "input-shapes",
      llvm::cl::desc("Shapes of the method's tensor inputs for "
                     "--import-torchscript, e.g. '1x3x224x224,?x10' ('?' "
                     "unknown extent, 'scalar' rank 0)"),
      llvm::cl::init(""), llvm::cl::cat(category));
  static llvm::cl::opt<std::string> inputDtypes(
      "input-dtypes",
      llvm::cl::desc("Element types of the method's inputs for "
                     "--import-torchscript, e.g. 'float32,int64' (default: "
                     "the IR annotation, else float32)"),
      llvm::cl::init(""), llvm::cl::cat(category));
  static llvm::cl::opt<std::string> inputConstants(
      "input-constants",
      llvm::cl::desc("Number parameters of the methods bound at import time "
                     "for --import-torchscript, e.g. 'sr=16000' (the "
                     "function is specialized and has no argument for them)"),
      llvm::cl::init(""), llvm::cl::cat(category));
  static TranslateToMLIRRegistration registration(
      "import-torchscript",
      "Import a TorchScript archive (.pt) or graph IR text into ml_program",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *ctx) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        TorchScriptImportOptions options;
        options.method = method;
        auto shapes = parseTorchScriptInputShapes(inputShapes);
        if (!shapes) {
          emitError(
              FileLineColLoc::get(ctx, buffer->getBufferIdentifier(), 0, 0))
              << "malformed --input-shapes '" << inputShapes
              << "': expected shapes like 2x3,?x4 separated by ','";
          return nullptr;
        }
        options.inputShapes = *shapes;
        auto constants = parseTorchScriptInputConstants(inputConstants);
        if (!constants) {
          emitError(
              FileLineColLoc::get(ctx, buffer->getBufferIdentifier(), 0, 0))
              << "malformed --input-constants '" << inputConstants
              << "': expected name=value pairs separated by ','";
          return nullptr;
        }
        options.constantInputs = *constants;
        if (!StringRef(inputDtypes).trim().empty()) {
          SmallVector<StringRef> dtypes;
          StringRef(inputDtypes).split(dtypes, ',');
          for (StringRef d : dtypes)
            options.inputDtypes.push_back(d.trim().str());
        }
        return OwningOpRef<Operation *>(
            importTorchScript(*buffer, ctx, options).release());
      },
      [](DialectRegistry &registry) { registerMLProgDialects(registry); });
}
