//===- mlprog-run.cpp - JIT-run an mlprog module on .npy inputs -----------===//
//
// Compiles an import-contract (or already lowered) module for the host CPU
// and runs it; see mlprog/Runtime/RunnerMain.h for the command line.
//
//===----------------------------------------------------------------------===//

#include "mlprog/InitAll.h"
#include "mlprog/Runtime/RunnerMain.h"
#include "mlprog/Pipelines/GPUPipeline.h"
#include "mlprog/Runtime/ModelLibrary.h"

#include "mlir/IR/DialectRegistry.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlprog::registerMLProgDialects(registry);
  // --library model.so and --target=cuda run compiled libraries.
  if (mlprog::isLibraryRunCommandLine(argc, argv)) {
    mlprog::registerGPUDialects(registry);
    return mlprog::mlprogRunLibraryMain(argc, argv, registry);
  }
  return mlprog::mlprogRunMain(argc, argv, registry);
}
