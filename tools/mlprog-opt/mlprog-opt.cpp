//===- mlprog-opt.cpp - mlprog optimizer driver ---------------------------===//
//
// mlir-opt with the ml_program dialect, the dialects it lowers through, and
// the mlprog passes and pipelines (e.g. --mlprog-lower-to-cpu).
//
//===----------------------------------------------------------------------===//

#include "mlprog/InitAll.h"
#include "mlprog/Pipelines/GPUPipeline.h"
#include "mlprog/Support/AtomicOutput.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlprog::registerMLProgDialects(registry);
  mlprog::registerMLProgPasses();
  mlprog::registerGPUDialects(registry);
  mlprog::registerGPUPipelines();
  // -o FILE is written to a temporary file and renamed on success.
  return mlprog::runWithAtomicOutput(argc, argv, [&](int argc, char **argv) {
    return mlir::asMainReturnCode(
        mlir::MlirOptMain(argc, argv, "mlprog optimizer driver\n", registry));
  });
}
