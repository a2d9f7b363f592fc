//===- OpTable.cpp - The ONNX op type -> handler table --------------------===//
//
// One handler per ONNX op type, in one source file per op family (the same
// families as the builders of mlprog/Import/Common). Handlers read the
// node's operands and attributes (supplying the defaults the ONNX operator
// spec gives for the model's opset) and call the shared builders; semantics
// belong in the builders, not here.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"

namespace mlprog::onnx_import {

const OpTable &getOpTable() {
  static const OpTable table = [] {
    OpTable t;
    registerElementwiseOps(t);
    registerLogicOps(t);
    registerReductionOps(t);
    registerNormalizationOps(t);
    registerContractionOps(t);
    registerAttentionOps(t);
    registerConvOps(t);
    registerPoolOps(t);
    registerShapeOps(t);
    registerSliceGatherOps(t);
    registerCreationOps(t);
    registerResampleOps(t);
    registerRecurrentOps(t);
    registerQuantizationOps(t);
    registerSignalOps(t);
    registerControlFlowOps(t);
    registerSequenceOps(t);
    registerTrainingOps(t);
    registerClassicalMLOps(t);
    registerStringOps(t);
    return t;
  }();
  return table;
}

} // namespace mlprog::onnx_import
