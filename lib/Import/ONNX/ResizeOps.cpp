//===- ResizeOps.cpp - ONNX Resize, Upsample, GridSample, RoiAlign --------===//
//
// Handlers for ONNX Resize, Upsample, GridSample, RoiAlign.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"

using namespace mlir;

namespace mlprog::onnx_import {

void registerResizeOpHandlers(OpHandlerTable &table) {
  // No op of this family is supported yet.
  (void)table;
}

} // namespace mlprog::onnx_import
