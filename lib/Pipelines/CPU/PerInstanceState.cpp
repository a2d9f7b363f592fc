//===- PerInstanceState.cpp - Read state through pointer slots ------------===//
//
// Implements --mlprog-per-instance-state (see Passes.td): the state of an AOT
// library is reached through one pointer slot per global, which the C ABI
// points at the storage of the model instance being run.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/Passes.h"
#include "mlprog/Pipelines/Pipelines.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlprog {
#define GEN_PASS_DEF_PERINSTANCESTATEPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;

namespace {

/// Whether the initial value of `global` is all zero bits; an undefined
/// initial value (an uninitialized `memref.global`) counts as zeros, which
/// refine it. nullopt when the initializer is computed by a region that
/// does more than produce undef/zero/poison.
std::optional<bool> isZeroInitialized(LLVM::GlobalOp global) {
  if (Block *block = global.getInitializerBlock()) {
    auto ret = dyn_cast<LLVM::ReturnOp>(block->getTerminator());
    Operation *def = ret && ret.getNumOperands() == 1
                         ? ret.getOperand(0).getDefiningOp()
                         : nullptr;
    if (isa_and_nonnull<LLVM::UndefOp, LLVM::ZeroOp, LLVM::PoisonOp>(def))
      return true;
    return std::nullopt;
  }
  Attribute value = global.getValueOrNull();
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(value))
    return llvm::all_of(dense.getRawData(), [](char c) { return c == 0; });
  if (auto integer = dyn_cast_if_present<IntegerAttr>(value))
    return integer.getValue().isZero();
  if (auto real = dyn_cast_if_present<FloatAttr>(value))
    return real.getValue().isPosZero();
  // Another attribute (a resource blob, a string): kept as a copy.
  return false;
}

/// Whether `global` is a declaration whose data is defined elsewhere.
bool isDeclaration(LLVM::GlobalOp global) {
  return !global.getValueOrNull() && global.getInitializerRegion().empty();
}

struct PerInstanceStatePass
    : public mlprog::impl::PerInstanceStatePassBase<PerInstanceStatePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    // Run once: a second run would take the slots for state.
    if (module->hasAttr(mlprog::kInstanceStateAttrName))
      return;
    SymbolTable symbols(module);
    OpBuilder builder(ctx);
    auto ptrType = LLVM::LLVMPointerType::get(ctx);

    SmallVector<LLVM::GlobalOp> state;
    SmallVector<Attribute> shared;
    for (auto global : module.getOps<LLVM::GlobalOp>()) {
      if (global.getConstant())
        continue;
      std::optional<bool> zero =
          isDeclaration(global) ? std::nullopt : isZeroInitialized(global);
      if (zero)
        state.push_back(global);
      else
        shared.push_back(FlatSymbolRefAttr::get(global.getSymNameAttr()));
    }
    llvm::sort(state, [](LLVM::GlobalOp a, LLVM::GlobalOp b) {
      return a.getSymName() < b.getSymName();
    });

    SmallVector<Attribute> entries;
    llvm::DenseMap<StringAttr, LLVM::GlobalOp> slots;
    for (LLVM::GlobalOp global : state) {
      Location loc = global.getLoc();
      builder.setInsertionPointAfter(global);
      auto slot = LLVM::GlobalOp::create(
          builder, loc, ptrType, /*isConstant=*/false, LLVM::Linkage::Private,
          (global.getSymName() + "__slot").str(), Attribute(),
          /*alignment=*/8);
      symbols.insert(slot);
      builder.setInsertionPointToStart(
          builder.createBlock(&slot.getInitializerRegion()));
      Value address = LLVM::AddressOfOp::create(builder, loc, global);
      LLVM::ReturnOp::create(builder, loc, address);

      NamedAttrList entry;
      entry.append("global", FlatSymbolRefAttr::get(global.getSymNameAttr()));
      entry.append("slot", FlatSymbolRefAttr::get(slot.getSymNameAttr()));
      if (!*isZeroInitialized(global)) {
        builder.setInsertionPointAfter(slot);
        auto initial = LLVM::GlobalOp::create(
            builder, loc, global.getGlobalType(), /*isConstant=*/true,
            LLVM::Linkage::Private, (global.getSymName() + "__initial").str(),
            global.getValueOrNull(), global.getAlignment().value_or(0));
        symbols.insert(initial);
        entry.append("initial",
                     FlatSymbolRefAttr::get(initial.getSymNameAttr()));
      }
      entries.push_back(entry.getDictionary(ctx));
      slots[global.getSymNameAttr()] = slot;
    }

    // Functions reach the storage through the slot; initializers (the
    // slots' own) keep the address.
    module.walk([&](LLVM::AddressOfOp op) {
      if (op->getParentOfType<LLVM::GlobalOp>())
        return;
      auto it = slots.find(op.getGlobalNameAttr().getAttr());
      if (it == slots.end())
        return;
      builder.setInsertionPoint(op);
      Value slot = LLVM::AddressOfOp::create(builder, op.getLoc(), it->second);
      Value storage = LLVM::LoadOp::create(builder, op.getLoc(), ptrType, slot);
      op.replaceAllUsesWith(storage);
      op.erase();
    });

    module->setAttr(mlprog::kInstanceStateAttrName,
                    ArrayAttr::get(ctx, entries));
    if (!shared.empty())
      module->setAttr(mlprog::kSharedStateAttrName,
                      ArrayAttr::get(ctx, shared));
  }
};

} // namespace
