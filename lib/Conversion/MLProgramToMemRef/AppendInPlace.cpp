//===- AppendInPlace.cpp - Concatenations onto a global, in place ---------===//
//
// Part of --convert-ml-program-to-memref. A decoder imported from ONNX with
// --state keeps each KV cache in a mutable global with a dynamic sequence
// extent and stores `present = Concat(past, new)` back into it every step.
// Built as written, that concatenation allocates the new cache and copies
// the old one into it: O(context) bytes moved per step and per cache, and a
// heap allocation the size of the cache. Here such a store appends in
// place instead: the global's buffer has a capacity along the concatenated
// dimension (doubled when exceeded, so a copy happens only log(n) times
// over n steps), the new rows are written after the current ones, and the
// concatenation's users read the buffer itself.
//
//===----------------------------------------------------------------------===//

#include "DynamicGlobals.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::ml_program_to_memref;

namespace {

/// An index value in a canonical form that structural equality can
/// compare: a constant, or extent `dim` of `value` (a tensor that no rule
/// below looks through), or an opaque index `value` (`dim` -1).
struct Extent {
  Value value;
  int64_t dim = -1;
  int64_t constant = ShapedType::kDynamic;

  bool operator==(const Extent &other) const {
    return value == other.value && dim == other.dim &&
           constant == other.constant;
  }
};

/// Rules deep enough for an imported Concat; beyond this depth values stay
/// opaque (unequal to anything but themselves).
constexpr int kMaxDepth = 16;

Extent resolveDim(Value tensor, int64_t dim, int depth);

/// `index` in canonical form: looks through `x + 0` and `tensor.dim`.
Extent resolveIndex(OpFoldResult index, int depth = 0) {
  if (std::optional<int64_t> constant = getConstantIntValue(index))
    return {Value(), -1, *constant};
  Value value = cast<Value>(index);
  if (depth > kMaxDepth)
    return {value};
  if (auto add = value.getDefiningOp<arith::AddIOp>()) {
    if (isZeroInteger(add.getLhs()))
      return resolveIndex(add.getRhs(), depth + 1);
    if (isZeroInteger(add.getRhs()))
      return resolveIndex(add.getLhs(), depth + 1);
  }
  if (auto dimOp = value.getDefiningOp<tensor::DimOp>())
    if (std::optional<int64_t> dim = dimOp.getConstantIndex())
      return resolveDim(dimOp.getSource(), *dim, depth + 1);
  return {value};
}

/// Extent `dim` of `tensor` in canonical form: an insert_slice has its
/// destination's extents, a tensor.empty its sizes, a cast its source's.
Extent resolveDim(Value tensor, int64_t dim, int depth) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (!type.isDynamicDim(dim))
    return {Value(), -1, type.getDimSize(dim)};
  if (depth > kMaxDepth)
    return {tensor, dim};
  if (auto insert = tensor.getDefiningOp<tensor::InsertSliceOp>())
    return resolveDim(insert.getDest(), dim, depth + 1);
  if (auto empty = tensor.getDefiningOp<tensor::EmptyOp>())
    return resolveIndex(empty.getDynamicSize(dim), depth + 1);
  if (auto castOp = tensor.getDefiningOp<tensor::CastOp>())
    return resolveDim(castOp.getSource(), dim, depth + 1);
  return {tensor, dim};
}

/// Whether `insert` writes all of its source at offset 0 of a
/// `tensor.empty` of the source's extents that nothing else uses: a copy.
bool isFullCopy(tensor::InsertSliceOp insert) {
  auto empty = insert.getDest().getDefiningOp<tensor::EmptyOp>();
  if (!empty || !empty->hasOneUse() ||
      insert.getSourceType().getRank() != insert.getType().getRank() ||
      !llvm::all_of(insert.getMixedOffsets(), isZeroInteger) ||
      !llvm::all_of(insert.getMixedStrides(), isOneInteger))
    return false;
  for (int64_t i = 0, e = insert.getType().getRank(); i < e; ++i)
    if (!(resolveDim(insert.getSource(), i, 0) == resolveDim(empty, i, 0)) ||
        !(resolveIndex(insert.getMixedSizes()[i]) ==
          resolveDim(insert.getSource(), i, 0)))
      return false;
  return true;
}

/// `value` without the casts and full copies (isFullCopy) around it.
Value stripCopies(Value value) {
  for (int depth = 0; depth <= kMaxDepth; ++depth) {
    if (auto castOp = value.getDefiningOp<tensor::CastOp>()) {
      value = castOp.getSource();
      continue;
    }
    auto insert = value.getDefiningOp<tensor::InsertSliceOp>();
    if (!insert || !isFullCopy(insert))
      return value;
    value = insert.getSource();
  }
  return value;
}

} // namespace

std::optional<AppendMatch> mlprog::ml_program_to_memref::matchAppend(
    GlobalStoreOp store, llvm::function_ref<bool(GlobalLoadOp)> isInPlaceRead) {
  Value value = store.getValue();
  while (auto castOp = value.getDefiningOp<tensor::CastOp>())
    value = castOp.getSource();
  if (auto concat = value.getDefiningOp<tensor::ConcatOp>()) {
    auto load =
        concat.getInputs().size() == 2
            ? stripCopies(concat.getInputs()[0]).getDefiningOp<GlobalLoadOp>()
            : GlobalLoadOp();
    auto bound =
        load ? dyn_cast<RankedTensorType>(load.getType()) : RankedTensorType();
    if (!load || load.getGlobalAttr() != store.getGlobalAttr() ||
        concat->getBlock() != store->getBlock() ||
        load->getBlock() != store->getBlock() || !isInPlaceRead(load) ||
        !bound || !bound.isDynamicDim(concat.getDim()))
      return std::nullopt;
    return AppendMatch{store, load, concat, concat.getInputs()[1],
                       int64_t(concat.getDim())};
  }
  auto append = value.getDefiningOp<tensor::InsertSliceOp>();
  if (!append || append->getBlock() != store->getBlock())
    return std::nullopt;
  auto prefix = append.getDest().getDefiningOp<tensor::InsertSliceOp>();
  if (!prefix || !prefix->hasOneUse())
    return std::nullopt;
  auto empty = prefix.getDest().getDefiningOp<tensor::EmptyOp>();
  if (!empty || !empty->hasOneUse())
    return std::nullopt;
  auto load = stripCopies(prefix.getSource()).getDefiningOp<GlobalLoadOp>();
  if (!load || load.getGlobalAttr() != store.getGlobalAttr() ||
      load->getBlock() != store->getBlock() || !isInPlaceRead(load))
    return std::nullopt;
  auto bound = dyn_cast<RankedTensorType>(load.getType());
  Value x = append.getSource();
  int64_t rank = bound ? bound.getRank() : -1;
  if (!bound || append.getSourceType().getRank() != rank ||
      prefix.getType().getRank() != rank ||
      !llvm::all_of(append.getMixedStrides(), isOneInteger) ||
      !llvm::all_of(prefix.getMixedStrides(), isOneInteger) ||
      !llvm::all_of(prefix.getMixedOffsets(), isZeroInteger))
    return std::nullopt;
  // The old value fills the prefix of the empty; x starts at the old
  // length along exactly one dynamic dimension and covers the others.
  std::optional<int64_t> dim;
  SmallVector<OpFoldResult> offsets = append.getMixedOffsets();
  for (int64_t i = 0; i < rank; ++i) {
    Extent old = resolveDim(load, i, 0);
    if (!(resolveIndex(prefix.getMixedSizes()[i]) == old) ||
        !(resolveIndex(append.getMixedSizes()[i]) == resolveDim(x, i, 0)))
      return std::nullopt;
    // Along the other dimensions the concatenation has the old extents (x's
    // may be unknown here: the insert_slice bounds them by the old ones).
    if (isZeroInteger(offsets[i])) {
      if (!(resolveDim(empty, i, 0) == old))
        return std::nullopt;
      continue;
    }
    if (dim || !bound.isDynamicDim(i) || !(resolveIndex(offsets[i]) == old))
      return std::nullopt;
    // The empty's extent is the old one plus x's.
    auto sum = empty.getDynamicSize(i).getDefiningOp<arith::AddIOp>();
    if (!sum)
      return std::nullopt;
    Extent lhs = resolveIndex(sum.getLhs()), rhs = resolveIndex(sum.getRhs());
    Extent added = resolveDim(x, i, 0);
    if (!((lhs == old && rhs == added) || (lhs == added && rhs == old)))
      return std::nullopt;
    dim = i;
  }
  if (!dim)
    return std::nullopt;
  return AppendMatch{store, load, append, x, *dim};
}

MemRefType mlprog::ml_program_to_memref::getAppendableType(MemRefType identity,
                                                           int64_t dim) {
  ArrayRef<int64_t> shape = identity.getShape();
  SmallVector<int64_t> strides(shape.size(), ShapedType::kDynamic);
  int64_t stride = 1;
  for (int64_t i = shape.size() - 1; i >= dim; --i) {
    strides[i] = stride;
    if (ShapedType::isDynamic(shape[i]) || ShapedType::isDynamic(stride))
      stride = ShapedType::kDynamic;
    else
      stride *= shape[i];
  }
  return MemRefType::get(
      shape, identity.getElementType(),
      StridedLayoutAttr::get(identity.getContext(), /*offset=*/0, strides));
}

PendingAppend mlprog::ml_program_to_memref::lowerAppend(
    RewriterBase &rewriter, const AppendMatch &match,
    const DynamicGlobalState &state, Value initial) {
  Operation *concat = match.concat;
  Value appended = match.appended;
  Location loc = concat->getLoc();
  int64_t dim = match.dim;
  rewriter.setInsertionPoint(concat);
  MemRefType type = state.valueType;
  int64_t rank = type.getRank();
  ArrayRef<int64_t> staticStrides =
      cast<StridedLayoutAttr>(type.getLayout()).getStrides();
  Value current = getCurrentBuffer(rewriter, loc, state, initial);
  Value length = memref::DimOp::create(rewriter, loc, current, dim);
  Value added = tensor::DimOp::create(rewriter, loc, appended, dim);
  Value newLength = arith::AddIOp::create(rewriter, loc, length, added);
  Type i64 = rewriter.getI64Type();
  Value capacityBox = memref::GetGlobalOp::create(
      rewriter, loc, MemRefType::get({}, i64), state.capacity.getValue());
  Value capacity = arith::IndexCastOp::create(
      rewriter, loc, rewriter.getIndexType(),
      memref::LoadOp::create(rewriter, loc, capacityBox));
  // Only a boxed buffer is grown in place: the initial value's is a
  // memref.global, which is never freed nor written.
  Value stored = loadStoredFlag(rewriter, loc, state);
  Value fits = arith::AndIOp::create(
      rewriter, loc, stored,
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ule, newLength,
                            capacity));
  auto sizesWith = [&](Value extent) {
    SmallVector<OpFoldResult> sizes =
        memref::getMixedSizes(rewriter, loc, current);
    sizes[dim] = extent;
    return sizes;
  };
  auto ifOp = scf::IfOp::create(rewriter, loc, TypeRange{type}, fits,
                                /*withElseRegion=*/true);
  {
    // Room left: the same buffer, viewed with the new length.
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
    auto metadata =
        memref::ExtractStridedMetadataOp::create(rewriter, loc, current);
    SmallVector<OpFoldResult> strides;
    for (int64_t i = 0; i < rank; ++i)
      strides.push_back(
          ShapedType::isDynamic(staticStrides[i])
              ? OpFoldResult(metadata.getStrides()[i])
              : OpFoldResult(rewriter.getIndexAttr(staticStrides[i])));
    Value grown = memref::ReinterpretCastOp::create(
        rewriter, loc, type, current, rewriter.getIndexAttr(0),
        sizesWith(newLength), strides);
    scf::YieldOp::create(rewriter, loc, grown);

    // No room: a buffer of twice the capacity (at least the new length),
    // holding a copy of the old value.
    rewriter.setInsertionPointToStart(ifOp.elseBlock());
    Value twice = arith::AddIOp::create(rewriter, loc, capacity, capacity);
    Value newCapacity = arith::MaxUIOp::create(rewriter, loc, twice, newLength);
    SmallVector<OpFoldResult> allocSizes = sizesWith(newCapacity);
    SmallVector<int64_t> allocShape;
    SmallVector<Value> dynamicSizes;
    dispatchIndexOpFoldResults(allocSizes, dynamicSizes, allocShape);
    auto alloc = memref::AllocOp::create(
        rewriter, loc, MemRefType::get(allocShape, type.getElementType()),
        dynamicSizes);
    alloc->setAttr(bufferization::BufferizationDialect::kManualDeallocation,
                   rewriter.getUnitAttr());
    SmallVector<OpFoldResult> zeros(rank, rewriter.getIndexAttr(0)),
        ones(rank, rewriter.getIndexAttr(1));
    Value old = memref::SubViewOp::create(
        rewriter, loc, alloc, zeros,
        memref::getMixedSizes(rewriter, loc, current), ones);
    memref::CopyOp::create(rewriter, loc, current, old);
    memref::StoreOp::create(
        rewriter, loc,
        arith::IndexCastOp::create(rewriter, loc, i64, newCapacity),
        capacityBox);
    Value view = memref::SubViewOp::create(rewriter, loc, alloc, zeros,
                                           sizesWith(newLength), ones);
    scf::YieldOp::create(
        rewriter, loc,
        memref::CastOp::create(rewriter, loc, type, view).getResult());
  }
  Value buffer = ifOp.getResult(0);

  // The new rows, written after the old ones.
  SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0)),
      ones(rank, rewriter.getIndexAttr(1));
  offsets[dim] = length;
  Value rows = memref::SubViewOp::create(
      rewriter, loc, buffer, offsets,
      tensor::getMixedSizes(rewriter, loc, appended), ones);
  bufferization::MaterializeInDestinationOp::create(
      rewriter, loc, TypeRange(), appended, rows, /*restrict=*/true,
      /*writable=*/true);
  Value result = bufferization::ToTensorOp::create(
      rewriter, loc,
      RankedTensorType::get(type.getShape(), type.getElementType()), buffer,
      /*restrict=*/true, /*writable=*/false);
  Type concatType = concat->getResult(0).getType();
  if (result.getType() != concatType)
    result = tensor::CastOp::create(rewriter, loc, concatType, result);

  // The concatenation is now `result`: drop it and what it was built from
  // (the empty, the copies of the old value) once nothing else reads them.
  rewriter.replaceAllUsesWith(concat->getResult(0), result);
  SmallVector<Operation *> dead = {concat};
  while (!dead.empty()) {
    Operation *op = dead.pop_back_val();
    if (!op->use_empty())
      continue;
    SmallVector<Value> operands(op->getOperands());
    rewriter.eraseOp(op);
    for (Value operand : operands)
      if (Operation *def = operand.getDefiningOp();
          def &&
          isa<tensor::InsertSliceOp, tensor::EmptyOp, tensor::CastOp>(def))
        dead.push_back(def);
  }

  Value freePrevious = arith::AndIOp::create(
      rewriter, loc, stored,
      arith::XOrIOp::create(rewriter, loc, fits,
                            arith::ConstantOp::create(
                                rewriter, loc, rewriter.getBoolAttr(true))));
  return {buffer, current, freePrevious};
}

void mlprog::ml_program_to_memref::finishAppend(RewriterBase &rewriter,
                                                Location loc,
                                                const DynamicGlobalState &state,
                                                const PendingAppend &pending) {
  auto ifOp =
      scf::IfOp::create(rewriter, loc, TypeRange(), pending.freePrevious,
                        /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
    auto dealloc = memref::DeallocOp::create(rewriter, loc, pending.previous);
    dealloc->setAttr(bufferization::BufferizationDialect::kManualDeallocation,
                     rewriter.getUnitAttr());
  }
  setBoxedBuffer(rewriter, loc, state, pending.buffer);
}
