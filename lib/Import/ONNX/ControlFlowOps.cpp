//===- ControlFlowOps.cpp - ONNX If, Loop, Scan ---===//
//
// Handlers only read operands and attributes (with the ONNX operator spec's
// defaults for the model's opset) and call the shared builders in
// mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"

using namespace mlir;

namespace mlprog::onnx_import {

void registerControlFlowOpHandlers(OpHandlerTable &table) { (void)table; }

} // namespace mlprog::onnx_import
