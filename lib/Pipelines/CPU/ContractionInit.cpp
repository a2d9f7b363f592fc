//===- ContractionInit.cpp - Inits of their own for contractions ----------===//
//
// A contraction that accumulates into a shared init (a fill or a bias
// broadcast, which CSE merges between contractions) makes bufferization copy
// the init; these rewrites give each contraction, and each part of a split
// one, a fill or broadcast of its own that its scf.forall fuses into its
// tiles.
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::cpu;

std::optional<unsigned> cpu::getBroadcastDim(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0 || !op.hasPureTensorSemantics())
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto inputType = dyn_cast<RankedTensorType>(op.getDpsInputs()[0].getType());
  if (!inputType || inputType.getRank() != 1 || !maps[1].isIdentity() ||
      maps[0].getNumResults() != 1)
    return std::nullopt;
  auto dim = dyn_cast<AffineDimExpr>(maps[0].getResult(0));
  Block *body = op.getBody();
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!dim || body->getOperations().size() != 1 ||
      yield.getOperand(0) != body->getArgument(0))
    return std::nullopt;
  return dim.getPosition();
}

linalg::LinalgOp cpu::getConvolutionInit(Value init) {
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    return fill;
  auto broadcast = init.getDefiningOp<linalg::GenericOp>();
  if (broadcast && getBroadcastDim(broadcast) == 1u)
    return broadcast;
  return {};
}

Value cpu::buildConvolutionInit(RewriterBase &rewriter, Location loc,
                                linalg::LinalgOp init, Value dest,
                                unsigned featureDim) {
  if (auto fill = dyn_cast<linalg::FillOp>(init.getOperation()))
    return linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], dest)
        .getResult(0);
  MLIRContext *ctx = rewriter.getContext();
  return linalg::GenericOp::create(
             rewriter, loc, TypeRange{dest.getType()},
             ValueRange{init.getDpsInputs()[0]}, ValueRange{dest},
             ArrayRef<AffineMap>{
                 AffineMap::get(2, 0, {getAffineDimExpr(featureDim, ctx)}, ctx),
                 rewriter.getMultiDimIdentityMap(2)},
             SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
             [](OpBuilder &b, Location l, ValueRange args) {
               linalg::YieldOp::create(b, l, args[0]);
             })
      .getResult(0);
}

/// Follows the dimension `dim` of `type` through the reshape or pad `op` (from
/// its source to its result): the result dimension holding it when every
/// other dimension it is grouped with has size 1 (a pad must not pad it).
static std::optional<unsigned> reshapeDim(Operation *op, unsigned dim) {
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
    ArrayRef<int64_t> shape = collapse.getSrcType().getShape();
    for (auto [index, group] :
         llvm::enumerate(collapse.getReassociationIndices())) {
      if (!llvm::is_contained(group, static_cast<int64_t>(dim)))
        continue;
      for (int64_t other : group)
        if (other != dim && shape[other] != 1)
          return std::nullopt;
      return index;
    }
    return std::nullopt;
  }
  // The padding of an init is never read back (see padForRegisterBlocks),
  // so only the broadcast dimension must keep its extent.
  if (auto pad = dyn_cast<tensor::PadOp>(op)) {
    if (pad.getStaticLow()[dim] != 0 || pad.getStaticHigh()[dim] != 0)
      return std::nullopt;
    return dim;
  }
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    ArrayRef<int64_t> shape = expand.getResultType().getShape();
    ReassociationIndices group = expand.getReassociationIndices()[dim];
    std::optional<unsigned> result;
    for (int64_t d : group) {
      if (shape[d] == 1)
        continue;
      if (result)
        return std::nullopt;
      result = d;
    }
    return result ? result : std::optional<unsigned>(group.back());
  }
  return std::nullopt;
}

/// Gives the contraction `op` an init of its own when it starts from a fill
/// or a bias broadcast reached through reshapes or a tensor.pad (whose
/// padding the contraction overwrites and nobody reads) or shared with other
/// ops
/// (CSE merges the broadcasts of equal biases): a fresh fill or broadcast
/// of the init's shape, into a bufferization.alloc_tensor (which CSE does not
/// merge, unlike tensor.empty), right before `op`. The contraction's forall
/// can then fuse it into its tiles (see tileForall), and bufferization writes
/// the contraction's result in place instead of copying the shared init.
/// A bufferization.alloc_tensor of `like`'s type, its dynamic extents read
/// from `like` (which must dominate the insertion point).
static Value createAllocLike(RewriterBase &rewriter, Location loc, Value like) {
  auto type = cast<RankedTensorType>(like.getType());
  SmallVector<Value> dynamicSizes;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (type.isDynamicDim(i))
      dynamicSizes.push_back(tensor::DimOp::create(rewriter, loc, like, i));
  return bufferization::AllocTensorOp::create(rewriter, loc, type,
                                              dynamicSizes);
}

void cpu::useOwnInit(RewriterBase &rewriter, linalg::LinalgOp op) {
  OpOperand *initOperand = op.getDpsInitOperand(0);
  Value init = initOperand->get();
  SmallVector<Operation *> reshapes;
  Value value = init;
  while (isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp,
                         tensor::PadOp>(value.getDefiningOp())) {
    reshapes.push_back(value.getDefiningOp());
    value = value.getDefiningOp()->getOperand(0);
  }
  Operation *producer = value.getDefiningOp();
  if (!producer || (reshapes.empty() && value.hasOneUse()))
    return;
  auto type = cast<RankedTensorType>(init.getType());
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value fresh;
  if (auto fill = dyn_cast<linalg::FillOp>(producer)) {
    Value empty = createAllocLike(rewriter, loc, init);
    fresh = linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty)
                .getResult(0);
  } else if (auto generic = dyn_cast<linalg::GenericOp>(producer)) {
    std::optional<unsigned> dim = getBroadcastDim(generic);
    for (Operation *reshape : llvm::reverse(reshapes))
      if (dim)
        dim = reshapeDim(reshape, *dim);
    if (!dim)
      return;
    MLIRContext *ctx = rewriter.getContext();
    unsigned rank = type.getRank();
    AffineMap biasMap =
        AffineMap::get(rank, 0, getAffineDimExpr(*dim, ctx), ctx);
    Value empty = createAllocLike(rewriter, loc, init);
    fresh =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{type},
            ValueRange{generic.getDpsInputs()[0]}, ValueRange{empty},
            ArrayRef<AffineMap>{biasMap, rewriter.getMultiDimIdentityMap(rank)},
            SmallVector<utils::IteratorType>(rank,
                                             utils::IteratorType::parallel),
            [](OpBuilder &b, Location l, ValueRange args) {
              linalg::YieldOp::create(b, l, args[0]);
            })
            .getResult(0);
  } else {
    return;
  }
  rewriter.modifyOpInPlace(op, [&] { initOperand->set(fresh); });
}

/// After splitForRegisterBlocks, each part of a contraction accumulates into
/// a slice of the whole contraction's `init` (taken through the insert_slices
/// of the parts before it). When `init` is a fill or a bias broadcast, gives
/// every part that slice of the fill or broadcast as an op of its own, which
/// the part's forall then fuses into its tiles, and lets the parts write
/// into an empty tensor: they cover all of it. Otherwise bufferization
/// copies the part's slice out of the shared init and back.
void cpu::splitInitProducer(RewriterBase &rewriter,
                            ArrayRef<linalg::LinalgOp> parts, Value init) {
  auto producer = dyn_cast_or_null<linalg::LinalgOp>(init.getDefiningOp());
  auto generic = dyn_cast_or_null<linalg::GenericOp>(init.getDefiningOp());
  if (parts.size() < 2 || !producer ||
      !(isa<linalg::FillOp>(producer) || (generic && getBroadcastDim(generic))))
    return;
  auto initType = cast<RankedTensorType>(init.getType());
  // The parts' slices are static.
  if (!initType.hasStaticShape())
    return;
  for (linalg::LinalgOp part : parts) {
    OpOperand *operand = part.getDpsInitOperand(0);
    auto partType = cast<RankedTensorType>(operand->get().getType());
    // The part's offsets in `init`, composed through nested slices.
    SmallVector<int64_t> offsets(initType.getRank(), 0);
    Value value = operand->get();
    while (value.getType() != initType) {
      // A nested split's parts insert into a slice: same coordinates.
      if (auto insert = value.getDefiningOp<tensor::InsertSliceOp>()) {
        value = insert.getDest();
        continue;
      }
      auto slice = value.getDefiningOp<tensor::ExtractSliceOp>();
      if (!slice || !slice.hasUnitStride() ||
          ShapedType::isDynamicShape(slice.getStaticOffsets()))
        return;
      for (auto [offset, sliceOffset] :
           llvm::zip_equal(offsets, slice.getStaticOffsets()))
        offset += sliceOffset;
      value = slice.getSource();
    }
    rewriter.setInsertionPoint(part);
    SmallVector<int64_t> ones(initType.getRank(), 1);
    auto slice = tensor::ExtractSliceOp::create(
        rewriter, part.getLoc(), partType, init, ValueRange{}, ValueRange{},
        ValueRange{}, offsets, partType.getShape(), ones);
    FailureOr<TilingResult> tiled =
        tensor::replaceExtractSliceWithTiledProducer(rewriter, slice,
                                                     cast<OpResult>(init));
    auto tiledOp = failed(tiled) || tiled->tiledOps.size() != 1
                       ? nullptr
                       : dyn_cast<linalg::LinalgOp>(tiled->tiledOps[0]);
    rewriter.eraseOp(slice);
    if (!tiledOp || tiledOp->getNumResults() != 1)
      return;
    // The part's fill or broadcast writes the slice of the tensor its result
    // is inserted into (as the part did), so all of it bufferizes in place.
    Value dest = operand->get();
    Value tiledDest = tiledOp.getDpsInitOperand(0)->get();
    rewriter.modifyOpInPlace(tiledOp,
                             [&] { tiledOp.getDpsInitOperand(0)->set(dest); });
    if (tiledDest.use_empty() && tiledDest.getDefiningOp())
      rewriter.eraseOp(tiledDest.getDefiningOp());
    rewriter.modifyOpInPlace(part,
                             [&] { operand->set(tiledOp->getResult(0)); });
  }
  // No part reads `init` any more; the parts overwrite every element of it.
  // A bufferization.alloc_tensor (unlike a tensor.empty, which CSE merges
  // with others of its type) keeps each contraction's slices apart, so
  // bufferization writes them in place instead of copying.
  rewriter.setInsertionPoint(producer);
  Value empty = bufferization::AllocTensorOp::create(
      rewriter, producer.getLoc(), initType, ValueRange{});
  rewriter.replaceAllUsesWith(init, empty);
  Value dest = producer.getDpsInitOperand(0)->get();
  rewriter.eraseOp(producer);
  if (dest.use_empty() && dest.getDefiningOp<bufferization::AllocTensorOp>())
    rewriter.eraseOp(dest.getDefiningOp());
}
