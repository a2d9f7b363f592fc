//===- mlprog-run.cpp - JIT-run an mlprog module on .npy inputs -----------===//
//
// Compiles an import-contract (or already lowered) module for the host CPU
// and runs it; see mlprog/Runtime/RunnerMain.h for the command line.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Compiler/ModelLibrary.h"
#include "mlprog/InitAll.h"
#include "mlprog/Pipelines/GPUPipeline.h"
#include "mlprog/Runtime/RunnerMain.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/StringRef.h"

#include <vector>

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlprog::registerMLProgDialects(registry);
  // --library model.so and --target=cuda run compiled libraries.
  if (mlprog::isLibraryRunCommandLine(argc, argv)) {
    mlprog::registerGPUDialects(registry);
    return mlprog::mlprogRunLibraryMain(argc, argv, registry);
  }
  // --target=cpu is the JIT's default; drop it before the JIT parses argv.
  std::vector<char *> args;
  for (int i = 0; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "--target=cpu" || arg == "-target=cpu")
      continue;
    if ((arg == "--target" || arg == "-target") && i + 1 < argc &&
        llvm::StringRef(argv[i + 1]) == "cpu") {
      ++i;
      continue;
    }
    args.push_back(argv[i]);
  }
  argc = static_cast<int>(args.size());
  argv = args.data();
  return mlprog::mlprogRunMain(argc, argv, registry);
}
