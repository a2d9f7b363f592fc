//===- mlprog-translate.cpp - mlprog translation driver -------------------===//
//
// mlir-translate with the mlprog importers, e.g.
//   mlprog-translate --import-onnx model.onnx -o model.mlir
//
//===----------------------------------------------------------------------===//

#ifdef MLPROG_HAVE_ONNX
#include "mlprog/Import/ONNX/ImportONNX.h"
#endif
#ifdef MLPROG_HAVE_TORCHSCRIPT
#include "mlprog/Import/TorchScript/ImportTorchScript.h"
#endif
#ifdef MLPROG_HAVE_MIL
#include "mlprog/Import/MIL/ImportMIL.h"
#endif

#include "mlprog/Support/AtomicOutput.h"
#include "mlprog/Support/ResourceLimits.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <string>
#include <vector>

int main(int argc, char **argv) {
  mlprog::registerResourceLimitOptions();
#ifdef MLPROG_HAVE_ONNX
  mlprog::registerImportONNXTranslation();
#endif
#ifdef MLPROG_HAVE_TORCHSCRIPT
  mlprog::registerImportTorchScriptTranslation();
#endif
#ifdef MLPROG_HAVE_MIL
  mlprog::registerImportMILTranslation();
#endif
  // An .mlpackage is a directory; the translation reads its Manifest.json.
  std::vector<std::string> storage(argv, argv + argc);
  std::vector<char *> args;
  for (std::string &arg : storage) {
    if (!arg.empty() && arg[0] != '-' && llvm::sys::fs::is_directory(arg) &&
        llvm::sys::fs::exists(arg + "/Manifest.json"))
      arg += "/Manifest.json";
    args.push_back(arg.data());
  }
  // -o FILE is written to a temporary file and renamed on success.
  return mlprog::runWithAtomicOutput(
      int(args.size()), args.data(), [](int argc, char **argv) {
        return mlir::failed(mlir::mlirTranslateMain(
            argc, argv,
            "mlprog translation driver\n\n"
            "Imports a model into the ml_program dialect (an import-contract "
            "module:\n"
            "ml_program.func @main, initializers as ml_program.global, ops as\n"
            "linalg/tensor/arith/math on tensors). Errors name the file and "
            "node\n"
            "and exit with status 1 without writing the output.\n\n"
            "Examples:\n"
            "  mlprog-translate --import-onnx model.onnx -o model.mlir\n"
            "  mlprog-translate --import-torchscript model.pt --input-shapes "
            "1x3x224x224\n"
            "  mlprog-translate --import-mil model.mlpackage -o model.mlir\n"));
      });
}
