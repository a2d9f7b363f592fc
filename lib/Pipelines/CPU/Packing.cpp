//===- Packing.cpp - Register-block panels of contraction inputs ----------===//
//
// Copies of a contraction's B [.., K, N] (A [.., M, K]) into panels
// [.., N / nr, K, nr] ([.., M / mr, K, mr]), and the register blocks rewired
// to read them, so that each block's K loop streams contiguous memory instead
// of rows 4 KiB apart that evict each other from L1.
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::cpu;

Value cpu::getStaticSliceSource(Value value,
                                SmallVectorImpl<int64_t> *offsets) {
  auto slice = value.getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice || !slice.hasUnitStride() ||
      ShapedType::isDynamicShape(slice.getStaticOffsets()) ||
      ShapedType::isDynamicShape(slice.getStaticSizes()) ||
      slice.getSourceType().getRank() != slice.getResultType().getRank())
    return value;
  if (offsets)
    offsets->assign(slice.getStaticOffsets().begin(),
                    slice.getStaticOffsets().end());
  return slice.getSource();
}

Value cpu::stripReshapes(Value value) {
  while (isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(
      value.getDefiningOp()))
    value = value.getDefiningOp()->getOperand(0);
  return value;
}

ElementsAttr cpu::getConstantElements(Value value) {
  value = stripReshapes(value);
  ElementsAttr elements;
  if (matchPattern(value, m_Constant(&elements)))
    return elements;
  auto toTensor = value.getDefiningOp<bufferization::ToTensorOp>();
  auto getGlobal =
      toTensor ? toTensor.getBuffer().getDefiningOp<memref::GetGlobalOp>()
               : memref::GetGlobalOp();
  if (!getGlobal)
    return {};
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      getGlobal, getGlobal.getNameAttr());
  if (!global || !global.getConstant() || !global.getInitialValue())
    return {};
  return dyn_cast<ElementsAttr>(*global.getInitialValue());
}

bool cpu::isConstantGlobal(Value value) {
  value = stripReshapes(getStaticSliceSource(value, nullptr));
  if (auto transpose = value.getDefiningOp<linalg::TransposeOp>())
    if (transpose.hasPureTensorSemantics())
      value = stripReshapes(transpose.getInput());
  auto toTensor = value.getDefiningOp<bufferization::ToTensorOp>();
  if (!toTensor)
    return false;
  auto getGlobal = toTensor.getBuffer().getDefiningOp<memref::GetGlobalOp>();
  if (!getGlobal)
    return false;
  // Reads the global's attributes only; no pass changes globals while the
  // function passes run.
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      getGlobal, getGlobal.getNameAttr());
  return global && global.getConstant() && global.getInitialValue() &&
         isa<ElementsAttr>(*global.getInitialValue());
}

/// The panels of the weight `operand.source` (see isConstantGlobal) as a
/// tensor.expand_shape of it and a linalg.transpose:
///   B [b..., K, N] -> [b..., K, N / nr, nr] -> [b..., N / nr, K, nr]
///   A [b..., M, K] -> [b..., M / mr, mr, K] -> [b..., M / mr, K, mr]
static Value packConstant(RewriterBase &rewriter, Location loc,
                          const PackedOperand &operand) {
  auto type = cast<RankedTensorType>(operand.source.getType());
  int64_t rank = type.getRank();
  int64_t splitDim = operand.splitLast ? rank - 1 : rank - 2;
  SmallVector<int64_t> expandedShape(type.getShape());
  expandedShape[splitDim] /= operand.tile;
  expandedShape.insert(expandedShape.begin() + splitDim + 1, operand.tile);
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < rank; ++i) {
    if (i < splitDim)
      groups.push_back({i});
    else if (i == splitDim)
      groups.push_back({i, i + 1});
    else
      groups.push_back({i + 1});
  }
  Value expanded = tensor::ExpandShapeOp::create(
      rewriter, loc, type.clone(expandedShape), operand.source, groups);
  SmallVector<int64_t> permutation;
  for (int64_t i = 0; i + 2 < rank; ++i)
    permutation.push_back(i);
  if (operand.splitLast) // [b..., K, N1, nr] -> [b..., N1, K, nr]
    permutation.append({rank - 1, rank - 2, rank});
  else // [b..., M1, mr, K] -> [b..., M1, K, mr]
    permutation.append({rank - 2, rank, rank - 1});
  SmallVector<int64_t> shape;
  for (int64_t dim : permutation)
    shape.push_back(expandedShape[dim]);
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(rewriter, loc, expanded, empty,
                                     permutation)
      .getResult()[0];
}

/// K steps of one vectorized panel copy: B's rows are nr-element vector
/// copies, 8 per step; A's mr rows are read 16 elements each and transposed
/// in registers.
static constexpr int64_t kPanelCopyRowsB = 8;
static constexpr int64_t kPanelCopyColumnsA = 16;

/// Makes the panel copy `copy` (loops batch..., outer, k, inner, see pack)
/// vector code: an scf.for over K steps (kPanelCopyRowsB, or
/// kPanelCopyColumnsA when the source is read transposed), whose static
/// tiles `linalg::vectorize` turns into transfers. Scalar loops copied 4
/// bytes at a time: 6% of a 1024^3 sgemm's time went to packing B. Returns
/// the value that replaces the copy's result.
static Value vectorizePanelCopy(RewriterBase &rewriter, linalg::LinalgOp copy,
                                bool splitLast) {
  SmallVector<int64_t> ranges = copy.getStaticLoopRanges();
  unsigned loops = ranges.size();
  int64_t step = splitLast ? kPanelCopyRowsB : kPanelCopyColumnsA;
  int64_t k = ranges[loops - 2];
  while (k % step != 0)
    --step;
  SmallVector<int64_t> sizes(loops, 1);
  sizes[loops - 2] = step;
  sizes[loops - 1] = 0;
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(copy.getContext(), sizes));
  options.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(copy);
  FailureOr<scf::SCFTilingResult> result = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(copy.getOperation()), options);
  if (failed(result))
    return copy->getResult(0);
  rewriter.replaceOp(copy, result->replacements);
  // The tile's unit loops go, and with them the `outer * tile + inner`
  // index the vectorizer does not take: [step, nr] read at (k, n0), or
  // [step, mr] read transposed at (m0, k).
  auto tile = dyn_cast<linalg::GenericOp>(result->tiledOps.back());
  if (!tile)
    return result->replacements.front();
  rewriter.setInsertionPoint(tile);
  // Rank-reducing slices bufferize in place (reshapes of the output tile
  // left a copy of it onto itself).
  linalg::ControlDropUnitDims control;
  control.rankReductionStrategy =
      linalg::ControlDropUnitDims::RankReductionStrategy::ExtractInsertSlice;
  FailureOr<linalg::DropUnitDimsResult> dropped =
      linalg::dropUnitDims(rewriter, tile, control);
  if (succeeded(dropped)) {
    rewriter.replaceOp(tile, dropped->replacements);
    vectorizeIfStatic(rewriter, dropped->resultOp);
  }
  return result->replacements.front();
}

/// Copies `operand.source` into panels (see PackedOperand):
///   B: Bp[b..., n1, k, n0] = B[b..., k, n1 * nr + n0]
///   A: Ap[b..., m1, k, m0] = A[b..., m1 * mr + m0, k]
/// (the tile divides the split extent), as vector code (vectorizePanelCopy).
/// When `parallel`, the copy runs on the forall threads, one panel per
/// iteration.
void cpu::pack(RewriterBase &rewriter, Location loc, PackedOperand &operand,
               bool parallel) {
  if (isConstantGlobal(operand.source)) {
    operand.packed = packConstant(rewriter, loc, operand);
    return;
  }
  auto type = cast<RankedTensorType>(operand.source.getType());
  unsigned rank = type.getRank();
  int64_t tileSize = operand.tile;
  SmallVector<int64_t> shape(type.getShape().drop_back(2));
  int64_t split = type.getDimSize(operand.splitLast ? rank - 1 : rank - 2);
  int64_t k = type.getDimSize(operand.splitLast ? rank - 2 : rank - 1);
  shape.append({split / tileSize, k, tileSize});
  MLIRContext *ctx = rewriter.getContext();
  // Loops (batch..., outer, k, inner), one per dimension of the panels.
  SmallVector<AffineExpr> inputExprs;
  for (unsigned i = 0; i + 2 < rank; ++i)
    inputExprs.push_back(getAffineDimExpr(i, ctx));
  AffineExpr outer = getAffineDimExpr(rank - 2, ctx);
  AffineExpr kExpr = getAffineDimExpr(rank - 1, ctx);
  AffineExpr inner = getAffineDimExpr(rank, ctx);
  if (operand.splitLast)
    inputExprs.append({kExpr, outer * tileSize + inner});
  else
    inputExprs.append({outer * tileSize + inner, kExpr});
  AffineMap inputMap = AffineMap::get(rank + 1, 0, inputExprs, ctx);
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
  auto copy = linalg::GenericOp::create(
      rewriter, loc, TypeRange{empty.getType()}, ValueRange{operand.source},
      ValueRange{empty},
      ArrayRef<AffineMap>{inputMap, rewriter.getMultiDimIdentityMap(rank + 1)},
      SmallVector<utils::IteratorType>(rank + 1, utils::IteratorType::parallel),
      [](OpBuilder &builder, Location l, ValueRange args) {
        linalg::YieldOp::create(builder, l, args[0]);
      });
  if (!parallel) {
    operand.packed = vectorizePanelCopy(rewriter, copy, operand.splitLast);
    return;
  }
  operand.packed = copy.getResult(0);
  SmallVector<int64_t> sizes(rank + 1, 0);
  for (unsigned i = 0; i + 1 < rank; ++i)
    sizes[i] = 1;
  FailureOr<linalg::LinalgOp> tiled = tileLinalgOp(
      rewriter, copy, sizes, scf::SCFTilingOptions::LoopType::ForallOp);
  if (failed(tiled))
    return;
  operand.packed = (*tiled)->getParentOfType<scf::ForallOp>().getResult(0);
  vectorizePanelCopy(rewriter, *tiled, operand.splitLast);
}

/// Points the operand of the register block `tiled` (a chain of unit-stride
/// extract_slices of `operand.source`: [1..., 1, nr] of B or [1..., mr, 1] of
/// A) at the same elements of the panels.
LogicalResult cpu::usePacked(RewriterBase &rewriter, linalg::LinalgOp tiled,
                             const PackedOperand &operand) {
  OpOperand *use = tiled.getDpsInputOperand(operand.index);
  auto tileType = cast<RankedTensorType>(use->get().getType());
  unsigned rank = tileType.getRank();
  unsigned splitDim = operand.splitLast ? rank - 1 : rank - 2;
  unsigned kDim = operand.splitLast ? rank - 2 : rank - 1;
  if (tileType.getDimSize(splitDim) != operand.tile ||
      tileType.getDimSize(kDim) != 1)
    return failure();
  Location loc = tiled.getLoc();
  rewriter.setInsertionPoint(tiled);
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
  Value value = use->get();
  AffineExpr d0, d1;
  bindDims(ctx, d0, d1);
  while (value != operand.source) {
    auto slice = value.getDefiningOp<tensor::ExtractSliceOp>();
    if (!slice || !slice.hasUnitStride() ||
        slice.getSourceType().getRank() != rank)
      return failure();
    for (auto [i, offset] : llvm::enumerate(slice.getMixedOffsets()))
      offsets[i] = affine::makeComposedFoldedAffineApply(rewriter, loc, d0 + d1,
                                                         {offsets[i], offset});
    value = slice.getSource();
  }
  OpFoldResult split = offsets[splitDim], k = offsets[kDim];
  offsets[rank - 2] = affine::makeComposedFoldedAffineApply(
      rewriter, loc, d0.floorDiv(operand.tile), {split});
  offsets[rank - 1] = k;
  offsets.push_back(rewriter.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes(rank + 1, rewriter.getIndexAttr(1));
  sizes.back() = rewriter.getIndexAttr(operand.tile);
  SmallVector<OpFoldResult> strides(rank + 1, rewriter.getIndexAttr(1));
  // [1..., tile]: the panel row, with the unit outer and K dimensions dropped.
  SmallVector<int64_t> rowShape(rank - 1, 1);
  rowShape.back() = operand.tile;
  auto rowType = RankedTensorType::get(rowShape, tileType.getElementType());
  Value row = tensor::ExtractSliceOp::create(
      rewriter, loc, operand.splitLast ? tileType : rowType, operand.packed,
      offsets, sizes, strides);
  if (!operand.splitLast) {
    // A's block is [1..., mr, 1].
    SmallVector<ReassociationIndices> groups;
    for (unsigned i = 0; i + 2 < rank; ++i)
      groups.push_back({static_cast<int64_t>(i)});
    groups.push_back({rank - 2, rank - 1});
    row = tensor::ExpandShapeOp::create(rewriter, loc, tileType, row, groups);
  }
  rewriter.modifyOpInPlace(tiled, [&] { use->set(row); });
  return success();
}
