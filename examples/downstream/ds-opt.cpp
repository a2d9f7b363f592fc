//===- ds-opt.cpp - mlir-opt for the downstream compiler ------------------===//
//
// Registers mlprog's dialects (ml_program and the dialects its pipelines use),
// passes and pipelines, plus this project's `ds` dialect.
//
//===----------------------------------------------------------------------===//

#include "DownstreamDialect.h"

#include "mlprog/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlprog::registerMLProgDialects(registry);
  registry.insert<downstream::DownstreamDialect>();
  mlprog::registerMLProgPasses();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "downstream optimizer (ds + mlprog)\n", registry));
}
