//===- mlprog-translate.cpp - mlprog translation driver -------------------===//
//
// mlir-translate with the mlprog importers, e.g.
//   mlprog-translate --import-onnx model.onnx -o model.mlir
//
//===----------------------------------------------------------------------===//

#include "mlprog/Import/ONNX/ImportONNX.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlprog::registerImportONNXTranslation();
  return mlir::failed(
      mlir::mlirTranslateMain(argc, argv, "mlprog translation driver\n"));
}
