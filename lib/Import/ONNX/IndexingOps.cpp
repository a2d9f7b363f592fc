//===- IndexingOps.cpp - ONNX scatter, non-zero, compress, unpool ---------===//
//
// Handlers for ONNX scatter, non-zero, compress, unpool.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"

using namespace mlir;

namespace mlprog::onnx_import {

void registerIndexingOpHandlers(OpHandlerTable &table) {
  // No op of this family is supported yet.
  (void)table;
}

} // namespace mlprog::onnx_import
