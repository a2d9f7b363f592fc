//===- ParallelizeTransposes.cpp - Share large transposes among threads --===//
//
// --mlprog-parallelize-transposes: a `linalg.transpose` on buffers is
// lowered to one serial loop nest; attention's K transpose ([tokens,
// batch * heads, 64] to [batch * heads, 64, tokens]) ran on one thread
// while the other waited. Large ones become an `scf.parallel` over the
// output's outermost dimension, each iteration transposing one slice.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlprog {
#define GEN_PASS_DEF_PARALLELIZETRANSPOSESPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;

/// The slice of `buffer` at `index` along dimension `dim`, keeping the rank.
static Value sliceAlong(OpBuilder &b, Location loc, Value buffer, int64_t dim,
                        Value index) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes, strides(type.getRank(), b.getIndexAttr(1));
  for (int64_t size : type.getShape())
    sizes.push_back(b.getIndexAttr(size));
  offsets[dim] = index;
  sizes[dim] = b.getIndexAttr(1);
  return memref::SubViewOp::create(b, loc, buffer, offsets, sizes, strides);
}

/// Rewrites `op` into an `scf.parallel` over its output's first dimension
/// when it moves at least `minBytes` and that dimension has two or more
/// elements.
static void parallelize(linalg::TransposeOp op, int64_t minBytes) {
  auto input = dyn_cast<MemRefType>(op.getInput().getType());
  auto init = dyn_cast<MemRefType>(op.getInit().getType());
  if (!input || !init || !input.hasStaticShape() || init.getRank() < 2 ||
      init.getDimSize(0) < 2 || !init.getElementType().isIntOrFloat())
    return;
  int64_t bytes = init.getNumElements() *
                  llvm::divideCeil(init.getElementTypeBitWidth(), 8);
  if (bytes < minBytes)
    return;
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value extent = arith::ConstantIndexOp::create(b, loc, init.getDimSize(0));
  auto loop = scf::ParallelOp::create(b, loc, ValueRange{zero},
                                      ValueRange{extent}, ValueRange{one});
  b.setInsertionPointToStart(loop.getBody());
  Value index = loop.getInductionVars()[0];
  // Output dimension 0 is input dimension permutation[0].
  Value from = sliceAlong(b, loc, op.getInput(), op.getPermutation()[0], index);
  Value to = sliceAlong(b, loc, op.getInit(), 0, index);
  // The loops of a transpose follow its output: when the output's last
  // dimension comes from an outer input dimension and the one before it
  // from the input's rows, the innermost loop reads a column of rows that
  // may alias in L1 (attention's K: rows 24 KiB apart, every load a miss).
  // A loop over the output's last dimension outside the slice's transpose
  // makes the innermost loop read a row.
  ArrayRef<int64_t> perm = op.getPermutation();
  int64_t last = init.getRank() - 1;
  if (last >= 2 && perm[last] != last && perm[last - 1] == last) {
    Value columns =
        arith::ConstantIndexOp::create(b, loc, init.getDimSize(last));
    auto columnLoop = scf::ForOp::create(b, loc, zero, columns, one);
    b.setInsertionPointToStart(columnLoop.getBody());
    Value column = columnLoop.getInductionVar();
    from = sliceAlong(b, loc, from, perm[last], column);
    to = sliceAlong(b, loc, to, last, column);
  }
  linalg::TransposeOp::create(b, loc, from, to, perm);
  op->erase();
}

namespace {
/// Puts each large `linalg.transpose` on buffers in an `scf.parallel` over
/// its output's first dimension.
struct ParallelizeTransposesPass
    : public mlprog::impl::ParallelizeTransposesPassBase<
          ParallelizeTransposesPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<linalg::TransposeOp> transposes;
    getOperation()->walk([&](linalg::TransposeOp op) {
      if (!op->getParentOfType<scf::ParallelOp>())
        transposes.push_back(op);
    });
    for (linalg::TransposeOp op : transposes)
      parallelize(op, minBytes);
  }
};
} // namespace
