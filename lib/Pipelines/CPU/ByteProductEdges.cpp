//===- ByteProductEdges.cpp - Byte product columns at the edges -----------===//
//
// The columns of a byte product (DotProducts.cpp) that its register blocks
// do not write whole: blocks that span two images of a batch, whose
// images' pixels are contiguous columns and not a multiple of a block's 32
// (14 x 14 and 7 x 7 maps), and one image's last few real columns past
// whole panels of 16, computed as matrix-vector products.
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::cpu;

static constexpr int64_t kLanes = kByteLanes;

/// `vector` (vector<16xi32>) moved down by `shift` lanes (an index in
/// [0, 16)): lane i holds lane i + shift, the last `shift` lanes any value.
/// Four shuffles by 1, 2, 4 and 8 lanes, each selected by a bit of `shift`.
static Value shiftLanesDown(OpBuilder &b, Location loc, Value vector,
                            Value shift) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  for (int64_t bit = 1; bit < kLanes; bit *= 2) {
    SmallVector<int64_t> lanes;
    for (int64_t i = 0; i < kLanes; ++i)
      lanes.push_back(std::min(i + bit, kLanes - 1));
    Value moved = vector::ShuffleOp::create(b, loc, vector, vector, lanes);
    Value isSet = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne,
        arith::AndIOp::create(b, loc, shift,
                              arith::ConstantIndexOp::create(b, loc, bit)),
        zero);
    vector = arith::SelectOp::create(b, loc, isSet, moved, vector);
  }
  return vector;
}

void cpu::emitStraddlingBlock(
    RewriterBase &rewriter, Location loc, scf::ForallOp forall,
    llvm::function_ref<SmallVector<Value>(int64_t)> computeSums,
    llvm::function_ref<Value(Value, Value, Value, int64_t, Value, bool)> finish,
    const StraddlingBlocks &blocks, Value row, Value column, Value image,
    Value imageColumn) {
  auto index = [&](int64_t value) {
    return arith::ConstantIndexOp::create(rewriter, loc, value).getResult();
  };
  Value output = forall.getRegionIterArgs()[0];
  Value side = forall.getRegionIterArgs()[1];
  int64_t mr = blocks.rows, nr = blocks.panels * kLanes;
  // The block's columns in `image`; the next image (the last one for reads
  // past the batch, which write nothing).
  Value first = arith::MinSIOp::create(
      rewriter, loc, index(nr),
      arith::SubIOp::create(rewriter, loc, index(blocks.imageColumns),
                            imageColumn));
  Value nextImage = arith::MinSIOp::create(
      rewriter, loc, arith::AddIOp::create(rewriter, loc, image, index(1)),
      index(blocks.images - 1));
  Type element = cast<RankedTensorType>(output.getType()).getElementType();
  auto firstType = RankedTensorType::get({mr, ShapedType::kDynamic}, element);
  auto sideType = RankedTensorType::get({mr, nr}, element);
  SmallVector<OpFoldResult> firstOffsets = {image, row, imageColumn};
  SmallVector<OpFoldResult> firstSizes = {rewriter.getIndexAttr(1),
                                          rewriter.getIndexAttr(mr), first};
  SmallVector<OpFoldResult> sideOffsets = {
      arith::DivUIOp::create(rewriter, loc, column, index(nr)).getResult(), row,
      rewriter.getIndexAttr(0)};
  SmallVector<OpFoldResult> sideSizes = {rewriter.getIndexAttr(1),
                                         rewriter.getIndexAttr(mr),
                                         rewriter.getIndexAttr(nr)};
  SmallVector<OpFoldResult> strides(3, rewriter.getIndexAttr(1));
  Value firstTile = tensor::ExtractSliceOp::create(
      rewriter, loc, firstType, output, firstOffsets, firstSizes, strides);
  Value sideTile = tensor::ExtractSliceOp::create(
      rewriter, loc, sideType, side, sideOffsets, sideSizes, strides);
  auto lastDimension = AffineMapAttr::get(
      AffineMap::getMinorIdentityMap(2, 1, rewriter.getContext()));
  // The block's first `count` panels, spanning two images.
  auto split = [&](int64_t count) -> SmallVector<Value> {
    SmallVector<Value> sums = computeSums(count);
    Value a = firstTile, b = sideTile;
    for (int64_t j = 0; j < count; ++j) {
      Value lane = index(j * kLanes);
      Value at = arith::AddIOp::create(rewriter, loc, imageColumn, lane);
      // The vector's lanes before the next image, whose start at column
      // max(16 j - first, 0).
      Value before = arith::SubIOp::create(rewriter, loc, first, lane);
      Value nextColumn = arith::MaxSIOp::create(
          rewriter, loc, index(0),
          arith::SubIOp::create(rewriter, loc, lane, first));
      Value shift = arith::MinSIOp::create(
          rewriter, loc, index(kLanes - 1),
          arith::MaxSIOp::create(rewriter, loc, index(0), before));
      Value nextLanes = arith::MaxSIOp::create(
          rewriter, loc, index(0),
          arith::MinSIOp::create(
              rewriter, loc, index(kLanes),
              arith::SubIOp::create(rewriter, loc, index(kLanes), before)));
      Value mask = vector::CreateMaskOp::create(
          rewriter, loc, VectorType::get({kLanes}, rewriter.getI1Type()),
          ValueRange{nextLanes});
      for (int64_t r = 0; r < mr; ++r) {
        Value sum = sums[j * mr + r];
        Value otherSum =
            blocks.products == 2 ? sums[(count + j) * mr + r] : Value();
        a = vector::TransferWriteOp::create(
                rewriter, loc, finish(sum, otherSum, image, r, at, true), a,
                ValueRange{index(r), lane}, lastDimension, Value(),
                rewriter.getBoolArrayAttr({false}))
                .getResult();
        Value moved = finish(
            shiftLanesDown(rewriter, loc, sum, shift),
            otherSum ? shiftLanesDown(rewriter, loc, otherSum, shift) : Value(),
            nextImage, r, nextColumn, true);
        b = vector::TransferWriteOp::create(
                rewriter, loc, moved, b, ValueRange{index(r), nextColumn},
                lastDimension, mask, rewriter.getBoolArrayAttr({true}))
                .getResult();
      }
    }
    return {a, b};
  };
  Value isWhole = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        first, index(nr));
  auto branch =
      scf::IfOp::create(rewriter, loc, TypeRange{firstType, sideType}, isWhole,
                        /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(branch.thenBlock());
    SmallVector<Value> sums = computeSums(blocks.panels);
    Value a = firstTile;
    for (int64_t j = 0; j < blocks.panels; ++j)
      for (int64_t r = 0; r < mr; ++r) {
        Value lane = index(j * kLanes);
        Value at = arith::AddIOp::create(rewriter, loc, imageColumn, lane);
        a = vector::TransferWriteOp::create(
                rewriter, loc,
                finish(sums[j * mr + r],
                       blocks.products == 2 ? sums[(blocks.panels + j) * mr + r]
                                            : Value(),
                       image, r, at, false),
                a, ValueRange{index(r), lane}, ArrayRef{true})
                .getResult();
      }
    scf::YieldOp::create(rewriter, loc, ValueRange{a, sideTile});
    rewriter.setInsertionPointToStart(branch.elseBlock());
    // The product's last block, whose second panel is all padding,
    // computes its first panel only.
    if (blocks.panels == 2 &&
        blocks.columns - kLanes >= blocks.images * blocks.imageColumns) {
      Value isLast =
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq, column,
                                index(blocks.columns - nr));
      auto last =
          scf::IfOp::create(rewriter, loc, TypeRange{firstType, sideType},
                            isLast, /*withElseRegion=*/true);
      rewriter.setInsertionPointToStart(last.thenBlock());
      scf::YieldOp::create(rewriter, loc, split(1));
      rewriter.setInsertionPointToStart(last.elseBlock());
      scf::YieldOp::create(rewriter, loc, split(2));
      rewriter.setInsertionPointAfter(last);
      scf::YieldOp::create(rewriter, loc, last.getResults());
    } else {
      scf::YieldOp::create(rewriter, loc, split(blocks.panels));
    }
  }
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(rewriter, loc, branch.getResult(0),
                                        output, firstOffsets, firstSizes,
                                        strides);
  tensor::ParallelInsertSliceOp::create(rewriter, loc, branch.getResult(1),
                                        side, sideOffsets, sideSizes, strides);
}

Value cpu::fillStraddledColumns(RewriterBase &rewriter, Location loc,
                                Value output, Value side,
                                const StraddlingBlocks &blocks) {
  int64_t nr = blocks.panels * kLanes;
  int64_t m = cast<RankedTensorType>(output.getType()).getDimSize(1);
  int64_t realColumns = blocks.images * blocks.imageColumns;
  SmallVector<OpFoldResult> strides(3, rewriter.getIndexAttr(1));
  for (int64_t image = 1; image < blocks.images; ++image) {
    int64_t start = image * blocks.imageColumns;
    if (start % nr == 0)
      continue;
    int64_t count = std::min(nr - start % nr, realColumns - start);
    auto pieceType = RankedTensorType::get(
        {m, count}, cast<RankedTensorType>(side.getType()).getElementType());
    SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(1),
                                       rewriter.getIndexAttr(m),
                                       rewriter.getIndexAttr(count)};
    Value piece = tensor::ExtractSliceOp::create(
        rewriter, loc, pieceType, side,
        getAsIndexOpFoldResult(rewriter.getContext(), {start / nr, 0, 0}),
        sizes, strides);
    output = tensor::InsertSliceOp::create(
        rewriter, loc, piece, output,
        getAsIndexOpFoldResult(rewriter.getContext(), {image, 0, 0}), sizes,
        strides);
  }
  return output;
}

Value cpu::emitTailColumns(RewriterBase &rewriter, Location loc, Value output,
                           ArrayRef<TailProduct> products,
                           const TailColumns &tail,
                           const ByteProductEpilogue &epilogue,
                           ArrayRef<ByteEpilogueOperand> epilogueOperands) {
  auto index = [&](OpBuilder &b, int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value).getResult();
  };
  auto i32 = rewriter.getI32Type();
  auto laneType = VectorType::get({kLanes}, i32);
  auto byteType =
      VectorType::get({kLanes * kBytesPerLane}, rewriter.getI8Type());
  Type element = cast<RankedTensorType>(output.getType()).getElementType();
  // A vector along a 2-D tensor's first dimension.
  auto downColumn = AffineMapAttr::get(AffineMap::get(
      2, 0, rewriter.getAffineDimExpr(0), rewriter.getContext()));
  auto inBounds = rewriter.getBoolArrayAttr({true});
  Value pad8 = arith::ConstantIntOp::create(rewriter, loc, 0, 8);
  Value zeros = arith::ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(laneType, rewriter.getI32IntegerAttr(0)));
  // Each product's columns' bytes [count, K]: 4 bytes of each K step from
  // its panel.
  auto fourType = VectorType::get({kBytesPerLane}, rewriter.getI8Type());
  SmallVector<Value, 2> columnBytes;
  for (const TailProduct &p : products) {
    Value bytes = tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{tail.count, p.depth},
        rewriter.getI8Type());
    for (int64_t c = 0; c < tail.count; ++c) {
      int64_t column = tail.first + c;
      auto gather = scf::ForOp::create(
          rewriter, loc, index(rewriter, 0),
          index(rewriter, p.depth / kBytesPerLane), index(rewriter, 1),
          ValueRange{bytes},
          [&](OpBuilder &nested, Location l, Value step, ValueRange args) {
            Value four = vector::TransferReadOp::create(
                nested, l, fourType, p.panels,
                ValueRange{index(nested, column / kLanes), step,
                           index(nested, column % kLanes * kBytesPerLane)},
                pad8, ArrayRef{true});
            Value k = arith::MulIOp::create(nested, l, step,
                                            index(nested, kBytesPerLane));
            scf::YieldOp::create(
                nested, l,
                vector::TransferWriteOp::create(nested, l, four, args[0],
                                                ValueRange{index(nested, c), k},
                                                ArrayRef{true})
                    .getResult());
          });
      bytes = gather.getResult(0);
    }
    columnBytes.push_back(bytes);
  }
  auto forall = scf::ForallOp::create(
      rewriter, loc,
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(tail.m / kLanes)},
      ValueRange{output}, /*mapping=*/std::nullopt);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(forall.getBody());
  Value group = forall.getInductionVars().front();
  Value row =
      arith::MulIOp::create(rewriter, loc, group, index(rewriter, kLanes));
  SmallVector<Value> rows;
  for (int64_t r = 0; r < kLanes; ++r)
    rows.push_back(
        arith::AddIOp::create(rewriter, loc, row, index(rewriter, r)));
  // The product `p` of the 16 rows and column `c`, a vector<16xi32>:
  // C + acc - za colsum[n] - zb rowsum[m] + K za zb, acc summed across the
  // lanes of one accumulator per row.
  int64_t chunk = kLanes * kBytesPerLane;
  auto columnProduct = [&](const TailProduct &p, Value bytesOfColumns,
                           int64_t c) -> Value {
    auto steps = scf::ForOp::create(
        rewriter, loc, index(rewriter, 0), index(rewriter, p.depth),
        index(rewriter, chunk), SmallVector<Value>(kLanes, zeros),
        [&](OpBuilder &nested, Location l, Value k, ValueRange accs) {
          Value bytes = vector::TransferReadOp::create(
              nested, l, byteType, bytesOfColumns,
              ValueRange{index(nested, c), k}, pad8, ArrayRef{true});
          SmallVector<Value> next;
          for (int64_t r = 0; r < kLanes; ++r) {
            Value weights = vector::TransferReadOp::create(
                nested, l, byteType, p.a2, ValueRange{rows[r], k}, pad8,
                ArrayRef{true});
            next.push_back(dotProducts(nested, l, accs[r], bytes, weights));
          }
          scf::YieldOp::create(nested, l, next);
        });
    SmallVector<Value> rowSums;
    for (int64_t r = 0; r < kLanes; ++r)
      rowSums.push_back(vector::ReductionOp::create(
          rewriter, loc, vector::CombiningKind::ADD, steps.getResult(r)));
    Value sums =
        vector::FromElementsOp::create(rewriter, loc, laneType, rowSums);
    Value column = index(rewriter, tail.first + c);
    // term - zero * sums.
    auto subtract = [&](Value term, Value zero, Value sums) -> Value {
      return arith::SubIOp::create(
          rewriter, loc, term,
          arith::MulIOp::create(rewriter, loc, zero, sums));
    };
    Value term = p.constant;
    if (p.colSums)
      term = subtract(term, p.za,
                      vector::BroadcastOp::create(
                          rewriter, loc, laneType,
                          tensor::ExtractOp::create(rewriter, loc, p.colSums,
                                                    ValueRange{column})));
    if (p.rowSum)
      term = subtract(term, p.zb,
                      vector::TransferReadOp::create(
                          rewriter, loc, laneType, p.rowSum, ValueRange{row},
                          arith::ConstantIntOp::create(rewriter, loc, 0, 32),
                          ArrayRef{true}));
    Value old = p.fill ? p.fill
                       : vector::TransferReadOp::create(
                             rewriter, loc, laneType, p.c2,
                             ValueRange{row, column}, downColumn,
                             arith::ConstantIntOp::create(rewriter, loc, 0, 32),
                             Value(), inBounds)
                             .getResult();
    return arith::AddIOp::create(
        rewriter, loc, old, arith::AddIOp::create(rewriter, loc, sums, term));
  };
  SmallVector<OpFoldResult> offsets = {row, rewriter.getIndexAttr(tail.first)};
  SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(kLanes),
                                     rewriter.getIndexAttr(tail.count)};
  SmallVector<OpFoldResult> strides(2, rewriter.getIndexAttr(1));
  Value shared = forall.getRegionIterArgs().front();
  Value tile = tensor::ExtractSliceOp::create(
      rewriter, loc, RankedTensorType::get({kLanes, tail.count}, element),
      shared, offsets, sizes, strides);
  for (int64_t c = 0; c < tail.count; ++c) {
    Value column = index(rewriter, tail.first + c);
    SmallVector<Value, 2> sums;
    for (auto [p, bytes] : llvm::zip(products, columnBytes))
      sums.push_back(columnProduct(p, bytes, c));
    SmallVector<Value> operands;
    for (const ByteEpilogueOperand &operand : epilogueOperands) {
      Type type = getElementTypeOrSelf(operand.view ? operand.view.getType()
                                                    : sums.front().getType());
      auto vectorType = VectorType::get({kLanes}, type);
      switch (operand.kind) {
      case ByteEpilogueOperand::Product:
        operands.push_back(sums.front());
        break;
      case ByteEpilogueOperand::OtherProduct:
        operands.push_back(sums.back());
        break;
      case ByteEpilogueOperand::Element:
        operands.push_back(vector::TransferReadOp::create(
            rewriter, loc, vectorType, operand.view, ValueRange{row, column},
            downColumn,
            arith::ConstantOp::create(rewriter, loc, type,
                                      rewriter.getZeroAttr(type)),
            Value(), inBounds));
        break;
      case ByteEpilogueOperand::Row:
        operands.push_back(vector::TransferReadOp::create(
            rewriter, loc, vectorType, operand.view, ValueRange{row},
            arith::ConstantOp::create(rewriter, loc, type,
                                      rewriter.getZeroAttr(type)),
            ArrayRef{true}));
        break;
      case ByteEpilogueOperand::Scalar:
        operands.push_back(vector::BroadcastOp::create(
            rewriter, loc, vectorType,
            tensor::ExtractOp::create(rewriter, loc, operand.view,
                                      ValueRange{})));
        break;
      }
    }
    Value value = applyToVectors(
        rewriter, loc, epilogue.generic, operands,
        epilogue.widening ? epilogue.widening->getOperand(0) : Value());
    tile = vector::TransferWriteOp::create(
               rewriter, loc, value, tile,
               ValueRange{index(rewriter, 0), index(rewriter, c)}, downColumn,
               Value(), inBounds)
               .getResult();
  }
  rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(rewriter, loc, tile, shared, offsets,
                                        sizes, strides);
  return forall.getResult(0);
}
