//===- HoistVectorTransfers.cpp - Loop-invariant vector transfers ---------===//
//
// --mlprog-hoist-vector-transfers: after bufferization, the accumulator of a
// register block (a transfer_read/transfer_write pair of the same indices
// in the K loop) moves out of the loop and becomes a loop-carried vector.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"

namespace mlprog {
#define GEN_PASS_DEF_HOISTVECTORTRANSFERSPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;

namespace {
/// Moves loop-invariant vector transfers (the accumulator of a register
/// block) out of the loops around them, on buffers.
struct HoistVectorTransfersPass
    : public mlprog::impl::HoistVectorTransfersPassBase<
          HoistVectorTransfersPass> {
  using Base::Base;
  void runOnOperation() override {
    linalg::hoistRedundantVectorTransfers(getOperation(),
                                          /*verifyNonZeroTrip=*/true);
  }
};
} // namespace
