//===- OpTable.cpp - The MIL op type -> handler table ---------------------===//
//
// One handler per MIL op type, in one source file per op family (the same
// families as the builders of mlprog/Import/Common).
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

namespace mlprog::mil_import {

const OpTable &getOpTable() {
  static const OpTable table = [] {
    OpTable t;
    registerElementwiseOps(t);
    registerLogicOps(t);
    registerReductionOps(t);
    registerNormalizationOps(t);
    registerContractionOps(t);
    registerConvOps(t);
    registerRecurrentOps(t);
    registerPoolOps(t);
    registerResampleOps(t);
    registerShapeOps(t);
    registerSliceGatherOps(t);
    registerCreationOps(t);
    registerControlFlowOps(t);
    registerCompressionOps(t);
    registerListOps(t);
    registerStateOps(t);
    return t;
  }();
  return table;
}

} // namespace mlprog::mil_import
