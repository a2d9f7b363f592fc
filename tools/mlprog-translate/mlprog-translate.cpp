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

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
#ifdef MLPROG_HAVE_ONNX
  mlprog::registerImportONNXTranslation();
#endif
#ifdef MLPROG_HAVE_TORCHSCRIPT
  mlprog::registerImportTorchScriptTranslation();
#endif
  return mlir::failed(mlir::mlirTranslateMain(
      argc, argv,
      "mlprog translation driver\n\n"
      "Imports a model into the ml_program dialect (an import-contract "
      "module:\n"
      "ml_program.func @main, initializers as ml_program.global, ops as\n"
      "linalg/tensor/arith/math on tensors). Errors name the file and node\n"
      "and exit with status 1 without writing the output.\n\n"
      "Example:\n"
      "  mlprog-translate --import-onnx model.onnx -o model.mlir\n"
      "  mlprog-translate --import-torchscript model.pt --input-shapes "
      "1x3x224x224\n"));
}
