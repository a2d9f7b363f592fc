//===- Translation.cpp - --import-torchscript registration ----------------===//
//
// The mlir-translate entry point and its options. Kept free of libtorch
// headers so that it compiles without RTTI like the rest of LLVM/MLIR (it
// defines cl::opts, which subclass LLVM's polymorphic classes).
//
//===----------------------------------------------------------------------===//

#include "mlprog/Import/Common/InputShapes.h"
#include "mlprog/Import/Common/WeightsBundle.h"
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
  // --input-constants is shared with --import-onnx.
  (void)importInputConstantsOption();
  registerImportWeightsOptions();
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
        const std::string &inputConstants = importInputConstantsOption();
        auto constants = parseInputConstants(inputConstants);
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
        return writeTranslatedWeights(OwningOpRef<Operation *>(
            importTorchScript(*buffer, ctx, options).release()));
      },
      [](DialectRegistry &registry) { registerMLProgDialects(registry); });
}
