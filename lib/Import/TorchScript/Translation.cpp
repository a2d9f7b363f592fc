//===- Translation.cpp - --import-torchscript registration ----------------===//
//
// The mlir-translate entry point and its options. Kept free of libtorch
// headers so that it compiles without RTTI like the rest of LLVM/MLIR (it
// defines cl::opts, which subclass LLVM's polymorphic classes).
//
//===----------------------------------------------------------------------===//

#include "mlprog/Import/Common/InputShapes.h"
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
  // --input-shapes is shared with --import-onnx.
  (void)importInputShapesOption();
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
        const std::string &inputShapes = importInputShapesOption();
        auto shapes = parseInputShapes(inputShapes);
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
