//===- mlprog-opt.cpp - mlprog optimizer driver ---------------------------===//
//
// mlir-opt with the ml_program dialect, the dialects it lowers through, and
// the mlprog passes and pipelines (e.g. --mlprog-lower-to-cpu). Before MLIR
// parses the input, its bracket nesting is checked (Support/ParseLimits.h).
//
//===----------------------------------------------------------------------===//

#include "mlprog/InitAll.h"
#include "mlprog/Pipelines/GPUPipeline.h"
#include "mlprog/Support/AtomicOutput.h"
#include "mlprog/Support/ParseLimits.h"
#include "mlprog/Support/ResourceLimits.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

/// MlirOptMain(argc, argv, toolName, registry) with the nesting check
/// between reading the input and parsing it.
static LogicalResult optMain(int argc, char **argv, DialectRegistry &registry) {
  auto [inputFilename, outputFilename] = registerAndParseCLIOptions(
      argc, argv, "mlprog optimizer driver\n", registry);
  llvm::InitLLVM initLLVM(argc, argv);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return failure();
  }
  if (mlprog::findExcessiveNesting(file->getBuffer())) {
    MLIRContext context;
    llvm::SourceMgr sourceMgr;
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
    return mlprog::checkNestingDepth(sourceMgr, &context);
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return failure();
  }
  if (failed(MlirOptMain(output->os(), std::move(file), registry, config)))
    return failure();
  output->keep();
  return success();
}

int main(int argc, char **argv) {
  mlprog::registerResourceLimitOptions();
  mlir::DialectRegistry registry;
  mlprog::registerMLProgDialects(registry);
  mlprog::registerMLProgPasses();
  mlprog::registerGPUDialects(registry);
  mlprog::registerGPUPipelines();
  // -o FILE is written to a temporary file and renamed on success.
  return mlprog::runWithAtomicOutput(argc, argv, [&](int argc, char **argv) {
    return asMainReturnCode(optMain(argc, argv, registry));
  });
}
