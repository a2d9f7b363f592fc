//===- MLProgramToMemRef.cpp - ml_program to func/memref ------------------===//
//
// Lowers the ml_program structure of an import-contract module to func.func
// and memref.global so that upstream one-shot bufferization can take over.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Conversion/MLProgramToMemRef/MLProgramToMemRef.h"
#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlprog {
#define GEN_PASS_DEF_CONVERTMLPROGRAMTOMEMREF
#include "mlprog/Conversion/Passes.h.inc"
} // namespace mlprog

using namespace mlir;
using namespace mlprog;

namespace {

/// The memref type that stores the value of `global`: the bounding type's
/// shape, or the initial value's where the bounding type has dynamic
/// extents (legal only for immutable globals, whose value never changes);
/// scalars are stored in a rank-0 memref. Null when it cannot be stored.
static MemRefType getStorageType(GlobalOp global) {
  Type bound = global.getType();
  if (bound.isIntOrIndexOrFloat())
    return MemRefType::get({}, bound);
  auto tensorType = dyn_cast<RankedTensorType>(bound);
  if (!tensorType)
    return {};
  if (!tensorType.hasStaticShape()) {
    auto value = dyn_cast_if_present<TypedAttr>(global.getValueAttr());
    if (global.getIsMutable() || !value)
      return {};
    tensorType = dyn_cast<RankedTensorType>(value.getType());
    if (!tensorType || !tensorType.hasStaticShape())
      return {};
  }
  return MemRefType::get(tensorType.getShape(), tensorType.getElementType());
}

/// Lowers one `ml_program.global` to a `memref.global` of the same name:
/// an inline value becomes the initializer, no value an uninitialized
/// buffer, and `#ml_program.extern` an external declaration whose symbol the
/// runner binds to the memory-mapped storage (see ExternalStorage.h).
LogicalResult lowerGlobal(RewriterBase &rewriter, GlobalOp global) {
  MemRefType memrefType = getStorageType(global);
  if (!memrefType)
    return global.emitOpError()
           << "cannot be lowered yet: the bounding type " << global.getType()
           << (global.getIsMutable()
                   ? " of a mutable global must be a statically shaped "
                     "tensor or a scalar"
                   : " needs a statically shaped initial value");
  Attribute initialValue = global.getValueAttr();
  bool isExtern = isa_and_nonnull<ExternAttr>(initialValue);
  auto valueType =
      RankedTensorType::get(memrefType.getShape(), memrefType.getElementType());
  if (isExtern) {
    if (cast<ExternAttr>(initialValue).getType() != valueType &&
        cast<ExternAttr>(initialValue).getType() != global.getType())
      return global.emitOpError("cannot be lowered: the #ml_program.extern "
                                "type differs from the storage type ")
             << valueType;
    initialValue = {};
  } else if (!initialValue) {
    initialValue = rewriter.getUnitAttr();
  } else if (auto elements = dyn_cast<ElementsAttr>(initialValue)) {
    if (elements.getType() != valueType)
      return global.emitOpError("cannot be lowered: initial value type "
                                "differs from the storage type ")
             << valueType;
  } else if (auto scalar = dyn_cast<TypedAttr>(initialValue);
             scalar && memrefType.getRank() == 0 &&
             scalar.getType() == memrefType.getElementType()) {
    initialValue = DenseElementsAttr::get(valueType, scalar);
  } else {
    return global.emitOpError()
           << "cannot be lowered: initial value " << initialValue
           << " is not an elements or scalar attribute";
  }

  rewriter.setInsertionPoint(global);
  // An external declaration must be public to be bound; its data comes from
  // a file, so it promises no alignment beyond the element's.
  StringAttr visibility = global.getSymVisibilityAttr();
  if (!visibility || isExtern)
    visibility = rewriter.getStringAttr("public");
  memref::GlobalOp::create(
      rewriter, global.getLoc(), global.getSymNameAttr(), visibility,
      TypeAttr::get(memrefType), initialValue,
      global.getIsMutable() ? UnitAttr() : rewriter.getUnitAttr(),
      isExtern ? IntegerAttr() : rewriter.getI64IntegerAttr(64));
  rewriter.eraseOp(global);
  return success();
}

/// Emits the memref backing `global` and returns it with the global's
/// mutability.
FailureOr<std::pair<Value, bool>> getGlobalBuffer(RewriterBase &rewriter,
                                                  Operation *user,
                                                  SymbolRefAttr global,
                                                  SymbolTable &symbols) {
  auto memrefGlobal =
      symbols.lookup<memref::GlobalOp>(global.getRootReference());
  if (!memrefGlobal)
    return user->emitOpError() << "references " << global
                               << ", which was not lowered to memref.global";
  Value buffer = memref::GetGlobalOp::create(rewriter, user->getLoc(),
                                             memrefGlobal.getType(),
                                             memrefGlobal.getSymName());
  return std::make_pair(buffer, !memrefGlobal.getConstant());
}

/// Replaces a read of a global by a tensor view of its buffer; reads of
/// mutable globals take a copy so that later stores leave them unchanged.
LogicalResult lowerRead(RewriterBase &rewriter, Operation *op,
                        SymbolRefAttr global, Value result,
                        SymbolTable &symbols) {
  rewriter.setInsertionPoint(op);
  FailureOr<std::pair<Value, bool>> buffer =
      getGlobalBuffer(rewriter, op, global, symbols);
  if (failed(buffer))
    return failure();
  auto [memref, isMutable] = *buffer;
  auto memrefType = cast<MemRefType>(memref.getType());
  Value value;
  if (memrefType.getRank() == 0 && !isa<TensorType>(result.getType())) {
    value = memref::LoadOp::create(rewriter, op->getLoc(), memref);
  } else {
    auto type = RankedTensorType::get(memrefType.getShape(),
                                      memrefType.getElementType());
    value = bufferization::ToTensorOp::create(rewriter, op->getLoc(), type,
                                              memref, /*restrict=*/true,
                                              /*writable=*/false);
    if (isMutable)
      value = bufferization::AllocTensorOp::create(
          rewriter, op->getLoc(), type, ValueRange(), /*copy=*/value);
    // An immutable global with a dynamic bounding type is stored with its
    // initial value's static shape.
    if (type != result.getType())
      value = tensor::CastOp::create(rewriter, op->getLoc(), result.getType(),
                                     value);
  }
  rewriter.replaceAllUsesWith(result, value);
  return success();
}

/// Replaces a store by materializing the value in the global's buffer.
LogicalResult lowerWrite(RewriterBase &rewriter, Operation *op,
                         SymbolRefAttr global, Value value,
                         SymbolTable &symbols) {
  rewriter.setInsertionPoint(op);
  FailureOr<std::pair<Value, bool>> buffer =
      getGlobalBuffer(rewriter, op, global, symbols);
  if (failed(buffer))
    return failure();
  // Mutable globals are stored with their (static or scalar) bounding type;
  // the verifier guarantees `value` is compatible with it.
  Value memref = buffer->first;
  if (!isa<TensorType>(value.getType())) {
    memref::StoreOp::create(rewriter, op->getLoc(), value, memref);
    return success();
  }
  auto memrefType = cast<MemRefType>(memref.getType());
  auto type =
      RankedTensorType::get(memrefType.getShape(), memrefType.getElementType());
  if (value.getType() != type)
    value = tensor::CastOp::create(rewriter, op->getLoc(), type, value);
  bufferization::MaterializeInDestinationOp::create(
      rewriter, op->getLoc(), TypeRange(), value, memref, /*restrict=*/true,
      /*writable=*/true);
  return success();
}

/// Lowers every global accessor nested in `root`.
LogicalResult lowerAccessors(RewriterBase &rewriter, Operation *root,
                             SymbolTable &symbols) {
  SmallVector<Operation *> lowered;
  WalkResult result = root->walk([&](Operation *op) -> WalkResult {
    LogicalResult status =
        llvm::TypeSwitch<Operation *, LogicalResult>(op)
            .Case<GlobalLoadOp, GlobalLoadConstOp>([&](auto load) {
              return lowerRead(rewriter, load, load.getGlobalAttr(),
                               load.getResult(), symbols);
            })
            .Case([&](GlobalStoreOp store) {
              return lowerWrite(rewriter, store, store.getGlobalAttr(),
                                store.getValue(), symbols);
            })
            .Default([&](Operation *) { return success(); });
    if (failed(status))
      return WalkResult::interrupt();
    if (isa<GlobalLoadOp, GlobalLoadConstOp, GlobalStoreOp>(op))
      lowered.push_back(op);
    return WalkResult::advance();
  });
  if (result.wasInterrupted())
    return failure();
  for (Operation *op : lowered)
    rewriter.eraseOp(op);
  return success();
}

/// Replaces an `ml_program.func` by a `func.func` with the same body.
void lowerFunc(RewriterBase &rewriter, FuncOp callable) {
  rewriter.setInsertionPoint(callable);
  auto func = func::FuncOp::create(
      rewriter, callable.getLoc(), callable.getSymName(),
      callable.getFunctionType(), callable.getSymVisibilityAttr(),
      callable.getArgAttrsAttr(), callable.getResAttrsAttr());
  // Keep discardable attributes (e.g. llvm.emit_c_interface).
  for (NamedAttribute attr : callable->getDiscardableAttrs())
    func->setAttr(attr.getName(), attr.getValue());
  rewriter.inlineRegionBefore(callable.getBody(), func.getBody(), func.end());
  rewriter.eraseOp(callable);
  for (Block &block : func.getBody()) {
    auto terminator = dyn_cast<ReturnOp>(block.getTerminator());
    if (!terminator)
      continue;
    rewriter.setInsertionPoint(terminator);
    rewriter.replaceOpWithNewOp<func::ReturnOp>(terminator,
                                                terminator.getOperands());
  }
}

struct ConvertMLProgramToMemRefPass
    : mlprog::impl::ConvertMLProgramToMemRefBase<ConvertMLProgramToMemRefPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    IRRewriter rewriter(&getContext());
    // Graph regions have no program order to lower; ordering them is the job
    // of --mlprog-topological-sort, which the CPU pipeline runs first.
    for (auto subgraph : module.getOps<SubgraphOp>()) {
      subgraph.emitOpError("must be ordered into an 'ml_program.func' "
                           "first (run --mlprog-topological-sort)");
      return signalPassFailure();
    }
    for (auto global : llvm::make_early_inc_range(module.getOps<GlobalOp>()))
      if (failed(lowerGlobal(rewriter, global)))
        return signalPassFailure();
    SymbolTable symbols(module);
    if (failed(lowerAccessors(rewriter, module, symbols)))
      return signalPassFailure();
    module.walk([&](CallOp call) {
      rewriter.setInsertionPoint(call);
      rewriter.replaceOpWithNewOp<func::CallOp>(call, call.getCalleeAttr(),
                                                call.getResultTypes(),
                                                call.getOperands());
    });
    for (auto func : llvm::make_early_inc_range(module.getOps<FuncOp>()))
      lowerFunc(rewriter, func);
  }
};

} // namespace
