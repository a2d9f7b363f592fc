//===- QuantizationOps.cpp - ONNX quantization ops ------------------------===//
//
// Handlers for ONNX quantize, dequantize, integer matmul/conv.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"

using namespace mlir;

namespace mlprog::onnx_import {

void registerQuantizationOpHandlers(OpHandlerTable &table) {
  // No op of this family is supported yet.
  (void)table;
}

} // namespace mlprog::onnx_import
