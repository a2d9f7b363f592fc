//===- OutlineLoopNests.cpp - Loop nests as shared private functions -----===//
//
// Implements --mlprog-outline-loop-nests (see Passes.td): the loop nests of
// functions on buffers become private no-inline functions, and identical
// ones are merged, so LLVM compiles each distinct kernel once and never
// sees one function of a whole network.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace mlprog {
#define GEN_PASS_DEF_OUTLINELOOPNESTSPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;

namespace {

/// Marks the functions this pass creates.
constexpr llvm::StringLiteral kOutlinedAttr = "mlprog.outlined";

/// Number of operations nested in the regions of `op`.
unsigned countNestedOps(Operation *op) {
  unsigned count = 0;
  for (Region &region : op->getRegions())
    region.walk([&](Operation *) { ++count; });
  return count;
}

/// Whether `value` is a scalar or vector constant the callee can rebuild
/// rather than receive: cloning it keeps loop bounds and steps constant in
/// the callee and lets nests that differ only in buffers share a callee.
bool isClonableConstant(Value value) {
  Operation *def = value.getDefiningOp();
  return def && def->hasTrait<OpTrait::ConstantLike>() &&
         def->getNumOperands() == 0 && def->getNumRegions() == 0 &&
         def->getNumResults() == 1 &&
         (value.getType().isIntOrIndexOrFloat() ||
          isa<VectorType>(value.getType()));
}

/// Whether `op` is a loop nest to outline: it has regions, is a loop or a
/// `linalg` op (a loop nest per dimension once lowered) or else holds at
/// least `minOps` operations, opens no symbol table or isolated scope of
/// its own and returns no buffer (one allocated on the callee's stack would
/// not outlive the call). Loops go whatever their size: a register block's
/// few vector ops here unroll into hundreds of LLVM instructions.
bool isOutlinable(Operation *op, unsigned minOps) {
  if (op->getNumRegions() == 0 || op->hasTrait<OpTrait::SymbolTable>() ||
      op->hasTrait<OpTrait::IsIsolatedFromAbove>())
    return false;
  if (llvm::any_of(op->getResultTypes(),
                   [](Type type) { return isa<BaseMemRefType>(type); }))
    return false;
  return isa<linalg::LinalgOp, LoopLikeOpInterface>(op) ||
         countNestedOps(op) >= minOps;
}

/// Moves `op` out of its function into a new private function placed after
/// `parent` and calls that function in its place. The values `op` uses from
/// its function become arguments in order of first use; scalar and vector
/// constants are cloned into the callee instead.
func::FuncOp outline(Operation *op, func::FuncOp parent, unsigned index,
                     SymbolTable &symbols) {
  llvm::SetVector<Value> captured(op->getOperands().begin(),
                                  op->getOperands().end());
  getUsedValuesDefinedAbove(op->getRegions(), captured);
  SmallVector<Value> arguments, constants;
  for (Value value : captured)
    (isClonableConstant(value) ? constants : arguments).push_back(value);

  MLIRContext *context = op->getContext();
  OpBuilder builder(context);
  builder.setInsertionPointAfter(parent);
  auto type = builder.getFunctionType(ValueRange(arguments).getTypes(),
                                      op->getResultTypes());
  auto callee = func::FuncOp::create(
      builder, op->getLoc(),
      (parent.getSymName() + "_nest_" + Twine(index)).str(), type);
  callee.setPrivate();
  callee->setAttr(kOutlinedAttr, builder.getUnitAttr());
  // Inlining the callee back would rebuild the one huge function this
  // pass exists to avoid. Internal linkage: the JIT wraps no callable
  // entry around it, and LLVM sees every call.
  callee->setAttr("passthrough",
                  builder.getArrayAttr({builder.getStringAttr("noinline")}));
  callee->setAttr("llvm.linkage",
                  LLVM::LinkageAttr::get(context, LLVM::Linkage::Internal));
  symbols.insert(callee);

  Block *entry = callee.addEntryBlock();
  builder.setInsertionPoint(op);
  auto call = func::CallOp::create(builder, op->getLoc(), callee, arguments);
  op->replaceAllUsesWith(call.getResults());

  builder.setInsertionPointToStart(entry);
  IRMapping mapping;
  for (auto [value, argument] : llvm::zip(arguments, entry->getArguments()))
    mapping.map(value, argument);
  for (Value value : constants)
    mapping.map(value, builder.clone(*value.getDefiningOp())->getResult(0));
  op->moveBefore(entry, entry->end());
  for (auto [from, to] : mapping.getValueMap()) {
    from.replaceUsesWithIf(
        to, [&](OpOperand &use) { return op->isAncestor(use.getOwner()); });
  }
  builder.setInsertionPointToEnd(entry);
  func::ReturnOp::create(builder, op->getLoc(), op->getResults());
  return callee;
}

/// A hash of `func`'s signature and body that is equal for equivalent
/// functions (names of values and locations ignored).
llvm::hash_code hashBody(func::FuncOp func) {
  llvm::hash_code hash = hash_value(func.getFunctionType());
  func.getBody().walk([&](Operation *op) {
    hash =
        llvm::hash_combine(hash, OperationEquivalence::computeHash(
                                     op, OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::IgnoreLocations));
  });
  return hash;
}

/// Merges callees with equivalent bodies: every call of a duplicate calls
/// the first such callee instead, and the duplicate is erased.
void mergeEquivalent(ModuleOp module, ArrayRef<func::FuncOp> callees) {
  llvm::DenseMap<llvm::hash_code, SmallVector<func::FuncOp>> classes;
  llvm::DenseMap<Operation *, func::FuncOp> replacement;
  for (func::FuncOp callee : callees) {
    SmallVector<func::FuncOp> &candidates = classes[hashBody(callee)];
    auto same = llvm::find_if(candidates, [&](func::FuncOp other) {
      return other.getFunctionType() == callee.getFunctionType() &&
             OperationEquivalence::isRegionEquivalentTo(
                 &other.getBody(), &callee.getBody(),
                 OperationEquivalence::IgnoreLocations);
    });
    if (same == candidates.end())
      candidates.push_back(callee);
    else
      replacement[callee] = *same;
  }
  if (replacement.empty())
    return;
  module.walk([&](func::CallOp call) {
    Operation *target =
        SymbolTable::lookupNearestSymbolFrom(call, call.getCalleeAttr());
    auto it = replacement.find(target);
    if (it != replacement.end())
      call.setCallee(it->second.getSymName());
  });
  for (auto &[duplicate, kept] : replacement)
    duplicate->erase();
}

struct OutlineLoopNestsPass
    : public mlprog::impl::OutlineLoopNestsPassBase<OutlineLoopNestsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> parents;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal() && !func->hasAttr(kOutlinedAttr))
        parents.push_back(func);

    SmallVector<func::FuncOp> callees;
    for (func::FuncOp parent : parents) {
      SmallVector<Operation *> nests;
      collectNests(parent.getBody(), nests);
      for (Operation *op : nests)
        callees.push_back(outline(op, parent, callees.size(), symbols));
    }
    mergeEquivalent(module, callees);
  }

  /// Collects the outermost nests to outline in `region`, looking inside
  /// the operations that are not outlined themselves (the branches of an
  /// `scf.if` that returns a buffer, a small loop around a `linalg` op).
  void collectNests(Region &region, SmallVectorImpl<Operation *> &nests) {
    for (Block &block : region) {
      for (Operation &op : block) {
        if (isOutlinable(&op, minOps)) {
          nests.push_back(&op);
          continue;
        }
        if (op.hasTrait<OpTrait::IsIsolatedFromAbove>())
          continue;
        for (Region &nested : op.getRegions())
          collectNests(nested, nests);
      }
    }
  }
};

} // namespace
