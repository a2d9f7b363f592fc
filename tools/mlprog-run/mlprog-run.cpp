//===- mlprog-run.cpp - JIT-run an mlprog module on .npy inputs -----------===//
//
// Compiles an import-contract (or already lowered) module for the host CPU
// and runs it; see mlprog/Runtime/RunnerMain.h for the command line.
//
//===----------------------------------------------------------------------===//

#include "mlprog/InitAll.h"
#include "mlprog/Runtime/RunnerMain.h"

#include "mlir/IR/DialectRegistry.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlprog::registerMLProgDialects(registry);
  return mlprog::mlprogRunMain(argc, argv, registry);
}
