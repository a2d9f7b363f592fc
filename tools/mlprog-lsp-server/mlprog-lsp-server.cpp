//===- mlprog-lsp-server.cpp - Language server for mlprog IR --------------===//
//
// MLIR's language server (diagnostics, hover, go-to-definition, symbols,
// completion) for .mlir files that use the ml_program dialect and the
// dialects of the import contract and the CPU pipeline. It registers exactly
// mlprog::registerMLProgDialects, so editors see the same ops as mlprog-opt.
// See docs/getting-started.md#editor-support for the editor setup.
//
//===----------------------------------------------------------------------===//

#include "mlprog/InitAll.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Support/LogicalResult.h"
#include "mlir/Tools/mlir-lsp-server/MlirLspServerMain.h"

#include <cstdlib>

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlprog::registerMLProgDialects(registry);
  return mlir::succeeded(mlir::MlirLspServerMain(argc, argv, registry))
             ? EXIT_SUCCESS
             : EXIT_FAILURE;
}
