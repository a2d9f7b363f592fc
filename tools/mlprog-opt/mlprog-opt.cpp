//===- mlprog-opt.cpp - mlprog optimizer driver ---------------------------===//
//
// mlir-opt with the ml_program dialect, the dialects it lowers through, and
// the mlprog passes and pipelines (e.g. --mlprog-lower-to-cpu).
//
//===----------------------------------------------------------------------===//

#include "mlprog/InitAll.h"
#include "mlprog/Pipelines/GPUPipeline.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlprog::registerMLProgDialects(registry);
  mlprog::registerMLProgPasses();
  mlprog::registerGPUDialects(registry);
  mlprog::registerGPUPipelines();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "mlprog optimizer driver\n", registry));
}
