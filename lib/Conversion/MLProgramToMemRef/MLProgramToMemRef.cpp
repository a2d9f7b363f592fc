//===- MLProgramToMemRef.cpp - ml_program to func/memref ------------------===//
//
// Lowers the ml_program structure of an import-contract module to func.func
// and memref.global so that upstream one-shot bufferization can take over.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Conversion/MLProgramToMemRef/MLProgramToMemRef.h"
#include "DynamicGlobals.h"
#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlprog {
#define GEN_PASS_DEF_CONVERTMLPROGRAMTOMEMREF
#include "mlprog/Conversion/Passes.h.inc"
} // namespace mlprog

using namespace mlir;
using namespace mlprog;
using namespace mlprog::ml_program_to_memref;

namespace {

/// Whether `global` is mutable with a ranked tensor bounding type that has
/// dynamic extents: its value can change shape with every store.
static bool hasDynamicMutableValue(GlobalOp global) {
  auto tensorType = dyn_cast<RankedTensorType>(global.getType());
  return global.getIsMutable() && tensorType && !tensorType.hasStaticShape();
}

/// The memref type that stores the initial value of `global`: the bounding
/// type's shape, or, where the bounding type has dynamic extents, the shape
/// of the initial value (inline or `#ml_program.extern`) and, for an
/// uninitialized mutable global, the bounding shape with every dynamic
/// extent 0 (a read before the first store yields an empty tensor). Scalars
/// are stored in a rank-0 memref. Null when it cannot be stored.
static MemRefType getStorageType(GlobalOp global) {
  Type bound = global.getType();
  if (bound.isIntOrIndexOrFloat())
    return MemRefType::get({}, bound);
  auto tensorType = dyn_cast<RankedTensorType>(bound);
  if (!tensorType)
    return {};
  if (!tensorType.hasStaticShape()) {
    Attribute initialValue = global.getValueAttr();
    if (!initialValue && global.getIsMutable()) {
      SmallVector<int64_t> shape(tensorType.getShape());
      for (int64_t &extent : shape)
        if (ShapedType::isDynamic(extent))
          extent = 0;
      return MemRefType::get(shape, tensorType.getElementType());
    }
    Type valueType;
    if (auto value = dyn_cast_if_present<ExternAttr>(initialValue))
      valueType = value.getType();
    else if (auto value = dyn_cast_if_present<TypedAttr>(initialValue))
      valueType = value.getType();
    tensorType = dyn_cast_if_present<RankedTensorType>(valueType);
    if (!tensorType || !tensorType.hasStaticShape())
      return {};
  }
  return MemRefType::get(tensorType.getShape(), tensorType.getElementType());
}

/// Creates the `box` and `stored` globals of `global` (see
/// DynamicGlobalState), and its `capacity` where a function appends to it
/// along `appendDim`, after `lowered`, with names unique in `symbols`.
DynamicGlobalState createDynamicGlobalState(RewriterBase &rewriter,
                                            GlobalOp global,
                                            memref::GlobalOp lowered,
                                            SymbolTable &symbols,
                                            std::optional<int64_t> appendDim) {
  auto bound = cast<RankedTensorType>(global.getType());
  auto valueType = MemRefType::get(bound.getShape(), bound.getElementType());
  if (appendDim)
    valueType = getAppendableType(valueType, *appendDim);
  StringAttr priv = rewriter.getStringAttr("private");
  auto makeGlobal = [&](StringRef suffix, MemRefType type,
                        Attribute initialValue) {
    auto op = memref::GlobalOp::create(
        rewriter, global.getLoc(),
        rewriter.getStringAttr(global.getSymName() + suffix), priv,
        TypeAttr::get(type), initialValue, /*constant=*/UnitAttr(),
        /*alignment=*/IntegerAttr());
    symbols.insert(op);
    return FlatSymbolRefAttr::get(op.getSymNameAttr());
  };
  rewriter.setInsertionPointAfter(lowered);
  DynamicGlobalState state;
  state.valueType = valueType;
  state.box = makeGlobal("__value", MemRefType::get({}, valueType),
                         rewriter.getUnitAttr());
  auto flagType = RankedTensorType::get({}, rewriter.getI1Type());
  state.stored =
      makeGlobal("__stored", MemRefType::get({}, rewriter.getI1Type()),
                 DenseElementsAttr::get(flagType, false));
  if (appendDim) {
    state.appendDim = appendDim;
    auto countType = RankedTensorType::get({}, rewriter.getI64Type());
    state.capacity =
        makeGlobal("__capacity", MemRefType::get({}, rewriter.getI64Type()),
                   DenseElementsAttr::get(countType, int64_t(0)));
  }
  return state;
}

/// Lowers one `ml_program.global` to a `memref.global` of the same name:
/// an inline value becomes the initializer, no value an uninitialized
/// buffer, and `#ml_program.extern` an external declaration whose symbol the
/// runner binds to the memory-mapped storage (see ExternalStorage.h).
FailureOr<memref::GlobalOp> lowerGlobal(RewriterBase &rewriter,
                                        GlobalOp global) {
  MemRefType memrefType = getStorageType(global);
  if (!memrefType)
    return global.emitOpError()
           << "cannot be lowered: the bounding type " << global.getType()
           << (isa<RankedTensorType>(global.getType()) ||
                       global.getType().isIntOrIndexOrFloat()
                   ? " needs a statically shaped initial value"
                   : " must be a ranked tensor or a scalar");
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
  // One-shot bufferization turns a tensor constant into a get_global of any
  // memref.global with the same initial value and alignment, `constant` or
  // not (bufferization::getGlobalFor), so `global_store @pos = dense<0>`
  // would read and write the mutable @pos itself. A mutable global gets an
  // alignment the bufferization (64 bytes) never asks for.
  int64_t alignment = global.getIsMutable() ? 128 : 64;
  return memref::GlobalOp::create(
      rewriter, global.getLoc(), global.getSymNameAttr(), visibility,
      TypeAttr::get(memrefType), initialValue,
      global.getIsMutable() ? UnitAttr() : rewriter.getUnitAttr(),
      isExtern ? IntegerAttr() : rewriter.getI64IntegerAttr(alignment));
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

} // namespace

Value mlprog::ml_program_to_memref::loadStoredFlag(
    RewriterBase &rewriter, Location loc, const DynamicGlobalState &state) {
  Value flag = memref::GetGlobalOp::create(
      rewriter, loc, MemRefType::get({}, rewriter.getI1Type()),
      state.stored.getValue());
  return memref::LoadOp::create(rewriter, loc, flag);
}

Value mlprog::ml_program_to_memref::loadBoxedBuffer(
    RewriterBase &rewriter, Location loc, const DynamicGlobalState &state) {
  Value box = memref::GetGlobalOp::create(rewriter, loc,
                                          MemRefType::get({}, state.valueType),
                                          state.box.getValue());
  return memref::LoadOp::create(rewriter, loc, box);
}

Value mlprog::ml_program_to_memref::getCurrentBuffer(
    RewriterBase &rewriter, Location loc, const DynamicGlobalState &state,
    Value initial) {
  Value stored = loadStoredFlag(rewriter, loc, state);
  auto ifOp = scf::IfOp::create(rewriter, loc, state.valueType, stored,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(rewriter, loc, loadBoxedBuffer(rewriter, loc, state));
  rewriter.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(
      rewriter, loc,
      memref::CastOp::create(rewriter, loc, state.valueType, initial)
          .getResult());
  return ifOp.getResult(0);
}

void mlprog::ml_program_to_memref::setBoxedBuffer(
    RewriterBase &rewriter, Location loc, const DynamicGlobalState &state,
    Value buffer) {
  Value box = memref::GetGlobalOp::create(rewriter, loc,
                                          MemRefType::get({}, state.valueType),
                                          state.box.getValue());
  memref::StoreOp::create(rewriter, loc, buffer, box);
  Value flag = memref::GetGlobalOp::create(
      rewriter, loc, MemRefType::get({}, rewriter.getI1Type()),
      state.stored.getValue());
  memref::StoreOp::create(
      rewriter, loc,
      arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true)),
      flag);
}

namespace {

/// How a `global_load` of a mutable global reaches its users.
enum class ReadKind {
  /// A copy of the buffer, which later stores leave unchanged (the default).
  Copy,
  /// The buffer itself, read-only: no store to the global and no call
  /// follows the load in its function; for a global with dynamic extents,
  /// whose store frees the old buffer, none follows the last use of the
  /// load or of a value that may alias it.
  View,
  /// The buffer itself, writable: the load's only use is an op (typically
  /// a `tensor.insert_slice` of one row into it, or the scf.for of a
  /// scatter) whose result's only use is a store to the same global, with
  /// no other access to the global (and no call) between the load and the
  /// store. Bufferization then updates the buffer in place and the store
  /// copies it onto itself (folded away).
  InPlace,
};

/// Whether every use of `load`'s value, and of every value that may alias
/// it once bufferized (results an op's BufferizableOpInterface says alias
/// an operand; every result of an unknown op or of an op using it inside a
/// region), ends before position `end` of `order` (`position` maps ops to
/// it). A use nested in a region ends with its entry-block ancestor.
static bool isDeadBefore(GlobalLoadOp load, Block &entry, size_t end,
                         const DenseMap<Operation *, size_t> &position,
                         ArrayRef<Operation *> order) {
  bufferization::BufferizationOptions options;
  bufferization::AnalysisState analysis(options);
  SmallVector<Value> worklist = {load.getResult()};
  DenseSet<Value> seen(worklist.begin(), worklist.end());
  auto push = [&](Value value) {
    if (isa<TensorType>(value.getType()) && seen.insert(value).second)
      worklist.push_back(value);
  };
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = entry.findAncestorOpInBlock(*use.getOwner());
      if (!user)
        return false;
      // The last op nested in `user` (pre-order) ends it.
      size_t last = position.lookup(user);
      while (last + 1 < order.size() && user->isProperAncestor(order[last + 1]))
        ++last;
      if (last >= end)
        return false;
      if (user != use.getOwner()) {
        for (Value result : user->getResults())
          push(result);
        continue;
      }
      for (const bufferization::AliasingValue &alias :
           analysis.getAliasingValues(use))
        push(alias.value);
    }
  }
  return true;
}

/// Decides how each load of a mutable global (not `#ml_program.extern`) at
/// the top level of a public function is lowered (see ReadKind); loads
/// elsewhere (nested regions, private functions, whose results may escape
/// to callers) keep their copy. A decode step `store @cache =
/// insert_slice(k into load @cache)` followed by reads of the cache then
/// copies no cache, nor does `store @cache = concat(load @cache, k)` of a
/// global with dynamic extents whose loaded value is dead at the store.
/// Ops whose results are unused (trivially dead) and `tensor.dim`s are no
/// uses.
void classifyReads(FuncOp func, const DenseSet<StringAttr> &staticMutable,
                   const DenseSet<StringAttr> &dynamicMutable,
                   DenseMap<Operation *, ReadKind> &kinds) {
  if (!func.isPublic() || func.isExternal())
    return;
  // Ops in program order (pre-order: nested ops between their parent and
  // its successor), with the last position writing each global.
  SmallVector<Operation *> order;
  DenseMap<Operation *, size_t> position;
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    position[op] = order.size();
    order.push_back(op);
  });
  auto accesses = [](Operation *op, StringAttr global) {
    if (isa<CallOpInterface>(op))
      return true;
    if (auto load = dyn_cast<GlobalLoadOp>(op))
      return load.getGlobalAttr().getRootReference() == global;
    if (auto store = dyn_cast<GlobalStoreOp>(op))
      return store.getGlobalAttr().getRootReference() == global;
    return false;
  };
  auto writes = [](Operation *op, StringAttr global) {
    if (isa<CallOpInterface>(op))
      return true;
    auto store = dyn_cast<GlobalStoreOp>(op);
    return store && store.getGlobalAttr().getRootReference() == global;
  };
  Block &entry = func.getBody().front();
  for (auto load : entry.getOps<GlobalLoadOp>()) {
    StringAttr global = load.getGlobalAttr().getRootReference();
    size_t at = position[load];
    if (dynamicMutable.contains(global)) {
      auto write =
          llvm::find_if(ArrayRef(order).drop_front(at + 1),
                        [&](Operation *op) { return writes(op, global); });
      size_t end = write == order.end() ? order.size() : position[*write];
      if (write == order.end() ||
          isDeadBefore(load, entry, end, position, order))
        kinds[load] = ReadKind::View;
      continue;
    }
    if (!staticMutable.contains(global))
      continue;
    if (llvm::none_of(ArrayRef(order).drop_front(at + 1),
                      [&](Operation *op) { return writes(op, global); })) {
      kinds[load] = ReadKind::View;
      continue;
    }
    // Users whose results nothing reads (a view the importer left) do not
    // read the old value, nor does a `tensor.dim` (the extents of a static
    // global, which bounds checks of the update read).
    SmallVector<Operation *> users;
    for (Operation *user : load.getResult().getUsers())
      if (!isOpTriviallyDead(user) && !isa<tensor::DimOp>(user))
        users.push_back(user);
    if (users.size() != 1)
      continue;
    Operation *update = users.front();
    if (update->getBlock() != &entry || update->getNumResults() != 1 ||
        !update->getResult(0).hasOneUse())
      continue;
    auto store = dyn_cast<GlobalStoreOp>(*update->getUsers().begin());
    if (!store || store->getBlock() != &entry ||
        store.getGlobalAttr().getRootReference() != global)
      continue;
    size_t end = position[store];
    if (llvm::none_of(ArrayRef(order).slice(at + 1, end - at - 1),
                      [&](Operation *op) { return accesses(op, global); }))
      kinds[load] = ReadKind::InPlace;
  }
}

/// Replaces a read of a global by a tensor view of its buffer; reads of
/// mutable globals take a copy so that later stores leave them unchanged,
/// unless `kind` says none is needed.
LogicalResult lowerRead(RewriterBase &rewriter, Operation *op,
                        SymbolRefAttr global, Value result,
                        SymbolTable &symbols,
                        const DynamicGlobalState *dynamicState, ReadKind kind) {
  rewriter.setInsertionPoint(op);
  FailureOr<std::pair<Value, bool>> buffer =
      getGlobalBuffer(rewriter, op, global, symbols);
  if (failed(buffer))
    return failure();
  auto [memref, isMutable] = *buffer;
  Location loc = op->getLoc();
  if (dynamicState)
    memref = getCurrentBuffer(rewriter, loc, *dynamicState, memref);
  auto memrefType = cast<MemRefType>(memref.getType());
  Value value;
  if (memrefType.getRank() == 0 && !isa<TensorType>(result.getType())) {
    value = memref::LoadOp::create(rewriter, loc, memref);
  } else {
    auto type = RankedTensorType::get(memrefType.getShape(),
                                      memrefType.getElementType());
    value = bufferization::ToTensorOp::create(
        rewriter, loc, type, memref,
        /*restrict=*/true, /*writable=*/kind == ReadKind::InPlace);
    if (isMutable && kind == ReadKind::Copy)
      value = bufferization::AllocTensorOp::create(
          rewriter, loc, type, /*dynamicSizes=*/ValueRange(), /*copy=*/value);
    // An immutable global with a dynamic bounding type is stored with its
    // initial value's static shape.
    if (type != result.getType())
      value = tensor::CastOp::create(rewriter, loc, result.getType(), value);
  }
  rewriter.replaceAllUsesWith(result, value);
  return success();
}

/// A buffer of `value`'s shape allocated at the insertion point, marked for
/// manual deallocation. Extents known here are static in the allocation:
/// canonicalization would otherwise fold a constant size into a new
/// memref.alloc without the mark, and buffer deallocation would free the
/// stored buffer at the end of the function (`reset` storing a constant).
static Value allocateStaticExtents(RewriterBase &rewriter, Location loc,
                                   const DynamicGlobalState &state,
                                   Value value) {
  auto known = cast<RankedTensorType>(value.getType());
  for (auto castOp = value.getDefiningOp<tensor::CastOp>(); castOp;
       castOp = castOp.getSource().getDefiningOp<tensor::CastOp>())
    if (auto source = dyn_cast<RankedTensorType>(castOp.getSource().getType()))
      known = source;
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamicSizes;
  for (auto [i, extent] : llvm::enumerate(state.valueType.getShape())) {
    int64_t knownExtent = known.getDimSize(i);
    if (!ShapedType::isDynamic(extent) || !ShapedType::isDynamic(knownExtent)) {
      shape.push_back(ShapedType::isDynamic(extent) ? knownExtent : extent);
      continue;
    }
    shape.push_back(ShapedType::kDynamic);
    dynamicSizes.push_back(
        tensor::DimOp::create(rewriter, loc, value, int64_t(i)));
  }
  auto alloc = memref::AllocOp::create(
      rewriter, loc, MemRefType::get(shape, state.valueType.getElementType()),
      dynamicSizes);
  alloc->setAttr(bufferization::BufferizationDialect::kManualDeallocation,
                 rewriter.getUnitAttr());
  return alloc;
}

/// The `tensor.empty` in `block` that `value` is built in: `value` is the
/// end of a chain of ops each writing into the previous one's result (the
/// destination of a `tensor.insert_slice`, the tied init of a
/// destination-style op, through `tensor.cast`s), whose destinations have
/// no other use. An imported Concat is such a chain. Null if there is none.
static tensor::EmptyOp findDestinationEmpty(Value value, Block *block) {
  for (bool isDestination = false;;) {
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != block ||
        (isDestination && !value.hasOneUse()))
      return {};
    if (auto empty = dyn_cast<tensor::EmptyOp>(def))
      return isDestination ? empty : tensor::EmptyOp();
    if (auto castOp = dyn_cast<tensor::CastOp>(def)) {
      value = castOp.getSource();
      continue;
    }
    isDestination = true;
    if (auto insert = dyn_cast<tensor::InsertSliceOp>(def))
      value = insert.getDest();
    else if (auto dps = dyn_cast<DestinationStyleOpInterface>(def);
             dps && dps.hasPureTensorSemantics())
      value = dps.getTiedOpOperand(cast<OpResult>(value))->get();
    else
      return {};
  }
}

/// Whether `store` is in the entry block of its function with no access to
/// `global` and no call after it: the stored buffer then outlives every use
/// of the stored value (the next store, which frees it, is a later call's),
/// and no later load reads the buffer bufferization may still write through
/// the stored value.
static bool isLastAccessOfCall(Operation *store, StringAttr global) {
  auto func = store->getParentOfType<FuncOp>();
  if (!func || store->getBlock() != &func.getBody().front())
    return false;
  for (Operation *op = store->getNextNode(); op; op = op->getNextNode()) {
    WalkResult result = op->walk([&](Operation *nested) {
      SymbolRefAttr accessed;
      if (auto load = dyn_cast<GlobalLoadOp>(nested))
        accessed = load.getGlobalAttr();
      else if (auto other = dyn_cast<GlobalStoreOp>(nested))
        accessed = other.getGlobalAttr();
      if (isa<CallOpInterface>(nested) ||
          (accessed && accessed.getRootReference() == global))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return false;
  }
  return true;
}

/// A new buffer, marked for manual deallocation, for storing `value` into a
/// dynamic global, as the global's memref type. Where `inPlace` and `value`
/// is built in a `tensor.empty` of this block (findDestinationEmpty), the
/// empty becomes the buffer, so that bufferization builds the value in it
/// and the store copies nothing; otherwise the buffer is allocated here,
/// and the store copies the value into it.
static Value allocateStoredBuffer(RewriterBase &rewriter, Location loc,
                                  const DynamicGlobalState &state, Value value,
                                  bool inPlace) {
  StringRef manual = bufferization::BufferizationDialect::kManualDeallocation;
  Value buffer;
  tensor::EmptyOp empty;
  if (inPlace)
    empty = findDestinationEmpty(value, rewriter.getInsertionBlock());
  if (empty) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(empty);
    RankedTensorType type = empty.getType();
    auto alloc = memref::AllocOp::create(
        rewriter, empty.getLoc(),
        MemRefType::get(type.getShape(), type.getElementType()),
        empty.getDynamicSizes());
    alloc->setAttr(manual, rewriter.getUnitAttr());
    rewriter.replaceOpWithNewOp<bufferization::ToTensorOp>(
        empty, type, alloc, /*restrict=*/true, /*writable=*/true);
    buffer = alloc;
  } else {
    buffer = allocateStaticExtents(rewriter, loc, state, value);
  }
  if (buffer.getType() != state.valueType)
    buffer = memref::CastOp::create(rewriter, loc, state.valueType, buffer);
  return buffer;
}

/// Stores `value` into a dynamic global: a fresh buffer of the value's
/// shape replaces (and frees) the previous one. `inPlace`: the value may be
/// built in that buffer (allocateStoredBuffer).
void storeDynamic(RewriterBase &rewriter, Location loc,
                  const DynamicGlobalState &state, Value value, bool inPlace) {
  auto valueTensorType = RankedTensorType::get(
      state.valueType.getShape(), state.valueType.getElementType());
  if (value.getType() != valueTensorType)
    value = tensor::CastOp::create(rewriter, loc, valueTensorType, value);
  Value buffer = allocateStoredBuffer(rewriter, loc, state, value, inPlace);
  bufferization::MaterializeInDestinationOp::create(
      rewriter, loc, TypeRange(), value, buffer, /*restrict=*/true,
      /*writable=*/true);
  StringRef manual = bufferization::BufferizationDialect::kManualDeallocation;
  Value stored = loadStoredFlag(rewriter, loc, state);
  auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange(), stored,
                                /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
    auto dealloc = memref::DeallocOp::create(
        rewriter, loc, loadBoxedBuffer(rewriter, loc, state));
    dealloc->setAttr(manual, rewriter.getUnitAttr());
  }
  // An appendable buffer has just room for the value.
  if (state.appendDim) {
    Value extent =
        memref::DimOp::create(rewriter, loc, buffer, *state.appendDim);
    Value capacity = memref::GetGlobalOp::create(
        rewriter, loc, MemRefType::get({}, rewriter.getI64Type()),
        state.capacity.getValue());
    memref::StoreOp::create(rewriter, loc,
                            arith::IndexCastOp::create(
                                rewriter, loc, rewriter.getI64Type(), extent),
                            capacity);
  }
  setBoxedBuffer(rewriter, loc, state, buffer);
}

/// Creates `func.func @__mlprog_release_globals()`, which frees the buffers
/// of every dynamic global and resets it to its initial value. Runners call
/// it before they tear an engine down (see JitRunner), so that no buffer
/// outlives the code that manages it.
void createReleaseFunction(
    RewriterBase &rewriter, ModuleOp module,
    const llvm::DenseMap<StringAttr, DynamicGlobalState> &dynamic) {
  Location loc = module.getLoc();
  rewriter.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(rewriter, loc, kReleaseGlobalsFunction,
                                   rewriter.getFunctionType({}, {}));
  rewriter.setInsertionPointToStart(func.addEntryBlock());
  // Deterministic order: by global name.
  SmallVector<StringAttr> names;
  for (const auto &entry : dynamic)
    names.push_back(entry.first);
  llvm::sort(names, [](StringAttr a, StringAttr b) {
    return a.getValue() < b.getValue();
  });
  StringRef manual = bufferization::BufferizationDialect::kManualDeallocation;
  for (StringAttr name : names) {
    const DynamicGlobalState &state = dynamic.find(name)->second;
    Value stored = loadStoredFlag(rewriter, loc, state);
    auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange(), stored,
                                  /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
    auto dealloc = memref::DeallocOp::create(
        rewriter, loc, loadBoxedBuffer(rewriter, loc, state));
    dealloc->setAttr(manual, rewriter.getUnitAttr());
    Value flag = memref::GetGlobalOp::create(
        rewriter, loc, MemRefType::get({}, rewriter.getI1Type()),
        state.stored.getValue());
    memref::StoreOp::create(
        rewriter, loc,
        arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(false)),
        flag);
  }
  func::ReturnOp::create(rewriter, loc);
}

/// Replaces a store by materializing the value in the global's buffer.
LogicalResult lowerWrite(RewriterBase &rewriter, Operation *op,
                         SymbolRefAttr global, Value value,
                         SymbolTable &symbols,
                         const DynamicGlobalState *dynamicState) {
  rewriter.setInsertionPoint(op);
  if (dynamicState) {
    storeDynamic(rewriter, op->getLoc(), *dynamicState, value,
                 isLastAccessOfCall(op, global.getRootReference()));
    return success();
  }
  FailureOr<std::pair<Value, bool>> buffer =
      getGlobalBuffer(rewriter, op, global, symbols);
  if (failed(buffer))
    return failure();
  // Other mutable globals are stored with their (static or scalar) bounding
  // type; the verifier guarantees `value` is compatible with it.
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

/// Lowers every global accessor nested in `root`; the stores of `appends`
/// (lowerAppend) are finished.
LogicalResult
lowerAccessors(RewriterBase &rewriter, Operation *root, SymbolTable &symbols,
               const llvm::DenseMap<StringAttr, DynamicGlobalState> &dynamic,
               const DenseMap<Operation *, ReadKind> &readKinds,
               const DenseMap<Operation *, PendingAppend> &appends) {
  auto lookupState = [&](SymbolRefAttr global) -> const DynamicGlobalState * {
    auto it = dynamic.find(global.getRootReference());
    return it == dynamic.end() ? nullptr : &it->second;
  };
  SmallVector<Operation *> lowered;
  WalkResult result = root->walk([&](Operation *op) -> WalkResult {
    LogicalResult status =
        llvm::TypeSwitch<Operation *, LogicalResult>(op)
            .Case<GlobalLoadOp, GlobalLoadConstOp>([&](auto load) {
              return lowerRead(rewriter, load, load.getGlobalAttr(),
                               load.getResult(), symbols,
                               lookupState(load.getGlobalAttr()),
                               readKinds.lookup(load));
            })
            .Case([&](GlobalStoreOp store) {
              if (auto it = appends.find(store); it != appends.end()) {
                rewriter.setInsertionPoint(store);
                finishAppend(rewriter, store.getLoc(),
                             *lookupState(store.getGlobalAttr()), it->second);
                return success();
              }
              return lowerWrite(rewriter, store, store.getGlobalAttr(),
                                store.getValue(), symbols,
                                lookupState(store.getGlobalAttr()));
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
    SymbolTable symbols(module);
    DenseSet<StringAttr> staticMutable, dynamicMutable;
    for (auto global : module.getOps<GlobalOp>()) {
      if (!global.getIsMutable() ||
          isa_and_nonnull<ExternAttr>(global.getValueAttr()))
        continue;
      (hasDynamicMutableValue(global) ? dynamicMutable : staticMutable)
          .insert(global.getSymNameAttr());
    }
    DenseMap<Operation *, ReadKind> readKinds;
    for (auto func : module.getOps<FuncOp>())
      classifyReads(func, staticMutable, dynamicMutable, readKinds);
    // Stores that append to a dynamic global read in place, at the end of
    // their call; a global appended to along two dimensions gets none.
    SmallVector<AppendMatch> appendMatches;
    DenseMap<StringAttr, std::optional<int64_t>> appendDims;
    auto isInPlaceRead = [&](GlobalLoadOp load) {
      return readKinds.lookup(load) == ReadKind::View;
    };
    module.walk([&](GlobalStoreOp store) {
      StringAttr global = store.getGlobalAttr().getRootReference();
      if (!dynamicMutable.contains(global) ||
          !isLastAccessOfCall(store, global))
        return;
      std::optional<AppendMatch> match = matchAppend(store, isInPlaceRead);
      if (!match)
        return;
      auto [it, inserted] = appendDims.try_emplace(global, match->dim);
      if (!inserted && it->second != match->dim)
        it->second = std::nullopt;
      appendMatches.push_back(*match);
    });
    llvm::DenseMap<StringAttr, DynamicGlobalState> dynamic;
    for (auto global : llvm::make_early_inc_range(module.getOps<GlobalOp>())) {
      FailureOr<memref::GlobalOp> lowered = lowerGlobal(rewriter, global);
      if (failed(lowered))
        return signalPassFailure();
      if (hasDynamicMutableValue(global))
        dynamic[lowered->getSymNameAttr()] = createDynamicGlobalState(
            rewriter, global, *lowered, symbols,
            appendDims.lookup(global.getSymNameAttr()));
      symbols.remove(global);
      rewriter.eraseOp(global);
      symbols.insert(*lowered);
    }
    DenseMap<Operation *, PendingAppend> appends;
    for (AppendMatch &match : appendMatches) {
      const DynamicGlobalState &state =
          dynamic.find(match.store.getGlobalAttr().getRootReference())->second;
      if (state.appendDim != match.dim)
        continue;
      rewriter.setInsertionPoint(match.concat);
      FailureOr<std::pair<Value, bool>> initial = getGlobalBuffer(
          rewriter, match.concat, match.store.getGlobalAttr(), symbols);
      if (failed(initial))
        return signalPassFailure();
      appends[match.store] =
          lowerAppend(rewriter, match, state, initial->first);
    }
    if (failed(lowerAccessors(rewriter, module, symbols, dynamic, readKinds,
                              appends)))
      return signalPassFailure();
    if (!dynamic.empty())
      createReleaseFunction(rewriter, module, dynamic);
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
