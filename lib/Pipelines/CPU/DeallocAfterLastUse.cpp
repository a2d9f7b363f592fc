//===- DeallocAfterLastUse.cpp - Free buffers after their last use -------===//
//
// --mlprog-dealloc-after-last-use: the ownership-based buffer deallocation
// pipeline frees every buffer at the end of the block that allocated it, so
// a model's function holds all its activations at once. Each
// `memref.dealloc` of a `memref.alloc` of the same block moves up to just
// after the last operation of that block that uses the buffer or a view of
// it.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include "llvm/ADT/DenseSet.h"

namespace mlprog {
#define GEN_PASS_DEF_DEALLOCAFTERLASTUSEPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;

/// Whether `value` can carry the address of a buffer: a memref or an LLVM
/// pointer (a memref's address taken as an integer is tracked through every
/// op that uses it, see lastUse).
static bool isAddress(Value value) {
  return isa<BaseMemRefType, LLVM::LLVMPointerType>(value.getType());
}

/// The operation of `block` after which nothing reads or writes the buffer
/// that `alloc` allocates and `dealloc` frees: the latest ancestor in
/// `block` of every user of the buffer and of the values that may alias it
/// (memref and pointer results of its users and of those ancestors, and
/// every result derived from its address taken as an integer). Null when an
/// alias leaves the block (a user outside it, its terminator, another
/// dealloc).
static Operation *lastUse(memref::AllocOp alloc, memref::DeallocOp dealloc) {
  Block *block = alloc->getBlock();
  Operation *last = alloc;
  // (value, whether every result of its users is followed, not only their
  // memref and pointer results: integers holding the buffer's address).
  SmallVector<std::pair<Value, bool>> worklist = {{alloc.getMemref(), false}};
  DenseSet<Value> seen = {alloc.getMemref()};
  auto follow = [&](Operation *op, bool all) {
    for (Value result : op->getResults())
      if ((all || isAddress(result)) && seen.insert(result).second)
        worklist.push_back({result, all});
  };
  while (!worklist.empty()) {
    auto [value, isInteger] = worklist.pop_back_val();
    for (Operation *user : value.getUsers()) {
      if (user == dealloc)
        continue;
      if (isa<memref::DeallocOp>(user))
        return nullptr;
      Operation *ancestor = block->findAncestorOpInBlock(*user);
      if (!ancestor || ancestor->hasTrait<OpTrait::IsTerminator>())
        return nullptr;
      if (last->isBeforeInBlock(ancestor))
        last = ancestor;
      follow(user,
             isInteger || isa<memref::ExtractAlignedPointerAsIndexOp>(user));
      // A region that yields the alias makes it a result of the ancestor.
      if (ancestor != user)
        follow(ancestor, isInteger);
    }
  }
  return last;
}

namespace {
/// Moves each `memref.dealloc` of a `memref.alloc` in the same block to
/// right after the buffer's last use in that block, so the allocator can
/// hand the memory (still in cache) to the buffers allocated after it.
struct DeallocAfterLastUsePass
    : public mlprog::impl::DeallocAfterLastUsePassBase<
          DeallocAfterLastUsePass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<memref::DeallocOp> deallocs;
    getOperation()->walk(
        [&](memref::DeallocOp dealloc) { deallocs.push_back(dealloc); });
    for (memref::DeallocOp dealloc : deallocs) {
      auto alloc = dealloc.getMemref().getDefiningOp<memref::AllocOp>();
      if (!alloc || alloc->getBlock() != dealloc->getBlock() ||
          !alloc->isBeforeInBlock(dealloc))
        continue;
      Operation *last = lastUse(alloc, dealloc);
      if (last && last->isBeforeInBlock(dealloc))
        dealloc->moveAfter(last);
    }
  }
};
} // namespace
