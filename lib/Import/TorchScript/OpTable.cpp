//===- OpTable.cpp - The aten op -> handler table -------------------------===//
//
// One handler per aten op, in one source file per op family (the same
// families as the builders of mlprog/Import/Common). The prim ops and the
// scalar (int/float/bool) arithmetic of TorchScript programs are not in this
// table: PrimOps.cpp handles them before the table is consulted.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"

const mlprog::torchscript::OpTable &mlprog::torchscript::getOpTable() {
  static const OpTable table = [] {
    OpTable t;
    registerElementwiseOps(t);
    registerMathOps(t);
    registerSpecialOps(t);
    registerLogicOps(t);
    registerReductionOps(t);
    registerNormalizationOps(t);
    registerContractionOps(t);
    registerConvOps(t);
    registerPoolOps(t);
    registerShapeOps(t);
    registerRearrangeOps(t);
    registerStridedOps(t);
    registerStatisticsOps(t);
    registerGradientOps(t);
    registerSliceGatherOps(t);
    registerIndexingOps(t);
    registerScatterOps(t);
    registerSortOps(t);
    registerCreationOps(t);
    registerResampleOps(t);
    registerRecurrentOps(t);
    registerAttentionOps(t);
    registerLinalgOps(t);
    registerIntegrationOps(t);
    registerLossOps(t);
    return t;
  }();
  return table;
}
