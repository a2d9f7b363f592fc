//===- RecurrentOps.cpp - ONNX RNN, GRU, LSTM -----------------------------===//
//
// Handlers for ONNX RNN, GRU, LSTM.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"

using namespace mlir;

namespace mlprog::onnx_import {

void registerRecurrentOpHandlers(OpHandlerTable &table) {
  // No op of this family is supported yet.
  (void)table;
}

} // namespace mlprog::onnx_import
