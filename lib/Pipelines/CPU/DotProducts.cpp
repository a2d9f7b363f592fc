//===- DotProducts.cpp - u8 x s8 contractions with AVX-512 VNNI ----------===//
//
// A quantized matrix product C[m, n] += (a[m, k] - za) (b[k, n] - zb) of
// unsigned 8-bit activations a and signed 8-bit weights b (what
// onnxruntime's quantize_dynamic and QDQ MatMul export) is computed with
// AVX-512 VNNI's `vpdpbusd`, which adds the four products of four u8 and
// four s8 values to each i32 lane of an accumulator: 64 multiply-adds per
// instruction, four times an f32 FMA's 16. Expanding the zero points,
//
//   C[m, n] += sum_k a b - za colsum[n] - zb rowsum[m] + K za zb,
//
// where colsum[n] = sum_k b[k, n] (itself `vpdpbusd` with a = 1) and
// rowsum[m] = sum_k a[m, k] (only when zb may be nonzero), every term an
// exact i32.
//
// Layout. B is packed into panels [N / 16, K / 4, 16 x 4]: for each group
// of 16 columns and 4 K steps, the 4 bytes of a column are contiguous, so a
// zmm load is the `vpdpbusd` operand for 16 columns; a weight's panels are a
// linalg.transpose of a tensor.expand_shape of the constant, which
// --mlprog-fold-constant-panels computes at compile time. Four bytes of a
// row of A are broadcast to all 16 lanes. Either operand may be the
// unsigned one: a QDQ convolution (QuantizedConvolutions.cpp) broadcasts its
// signed filter bytes and packs its unsigned input columns into the panels
// at run time. A register block is mr rows x nr
// (16 or 32) columns: mr * nr / 16 accumulators in zmm registers across all
// of K; an scf.forall spreads the blocks over the threads.
//
// Epilogue. The elementwise generic that reads the product (a QDQ
// convolution's rescaling, bias, residual add and requantization, after
// elementwise fusion) is applied to each block's sums in registers, and the
// blocks write its result (the bytes): the i32 sums are not written out
// and read back by a loop nest of their own. In a batch whose images'
// pixels are contiguous columns and not a multiple of a block's 32 (14 x 14
// and 7 x 7 maps), a block may span two images: it writes its columns of
// the first in place and those of the second into a side tensor, copied to
// that image after the blocks (emitStraddlingBlock). An epilogue that
// adds a second byte product of the same shape (a residual block's
// downsampling convolution) has both computed in the same blocks, two K
// loops into two sets of accumulators (blocks of at most 4 rows), so that
// neither product's i32 sums go to memory. One image's last few real
// columns past whole panels (1 of a 7 x 7 map's 49, 4 of a 14 x 14 map's
// 196) are matrix-vector products after the blocks (emitTailColumns), not
// a panel of 16 columns mostly of padding, both products' where there are
// two.
//
// The operands' layouts and sums are built in BytePanels.cpp, the epilogue
// matched and read in ByteProductEpilogues.cpp.
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
/// Rows of a register block at most (8 x 32 columns: 16 accumulators).
static constexpr int64_t kMaxRows = 8;
/// Real columns past whole panels that emitTailColumns computes at most
/// (each costs 1/16 of a panel; the panel they would pad to, 1).
static constexpr int64_t kMaxTailColumns = 4;
/// Bytes of B's panels a column block may have for row blocks to go
/// outside (see emitU8S8Contraction): two thirds of a 48 KiB L1, so that
/// the block stays there beside the rows of A streaming past it.
static constexpr int64_t kL1BlockBytes = 32 * 1024;

/// The 4 bytes of `matrix` (i8, innermost dimension contiguous) at
/// `indices` broadcast to a vector<64xi8> (16 copies).
static Value broadcastFour(OpBuilder &b, Location loc, Value matrix,
                           ValueRange indices) {
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 8);
  Value four = vector::TransferReadOp::create(
      b, loc, VectorType::get({kBytesPerLane}, b.getI8Type()), matrix, indices,
      zero, ArrayRef{true});
  Value word = vector::BitCastOp::create(
      b, loc, VectorType::get({1}, b.getI32Type()), four);
  Value scalar = vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0});
  Value lanes = vector::BroadcastOp::create(
      b, loc, VectorType::get({kLanes}, b.getI32Type()), scalar);
  return vector::BitCastOp::create(
      b, loc, VectorType::get({kLanes * kBytesPerLane}, b.getI8Type()), lanes);
}

bool cpu::supportsU8S8Contraction(linalg::LinalgOp op,
                                  const CPUTarget &target) {
  if (!target.hasAVX512VNNI() || op.getNumDpsInputs() != 2)
    return false;
  auto aType =
      dyn_cast<RankedTensorType>(op.getDpsInputOperand(0)->get().getType());
  auto bType =
      dyn_cast<RankedTensorType>(op.getDpsInputOperand(1)->get().getType());
  auto cType =
      dyn_cast<RankedTensorType>(op.getDpsInitOperand(0)->get().getType());
  if (!aType || !bType || !cType || !aType.hasStaticShape() ||
      !bType.hasStaticShape() || !cType.hasStaticShape() ||
      bType.getRank() != 2 || aType.getRank() != cType.getRank() ||
      aType.getRank() < 2)
    return false;
  int64_t depth = bType.getDimSize(0), n = bType.getDimSize(1);
  return depth % kBytesPerLane == 0 && n % kLanes == 0 &&
         aType.getShape().back() == depth && cType.getShape().back() == n;
}

LogicalResult cpu::emitU8S8Contraction(RewriterBase &rewriter,
                                       linalg::LinalgOp op,
                                       const ByteContraction &operands,
                                       const CPUTarget &target) {
  if (!supportsU8S8Contraction(op, target))
    return failure();
  Value a = operands.a, b = operands.b;
  bool aIsSigned = operands.aIsSigned;
  auto aType = cast<RankedTensorType>(a.getType());
  auto bType = cast<RankedTensorType>(b.getType());
  Value init = op.getDpsInitOperand(0)->get();
  auto cType = cast<RankedTensorType>(init.getType());
  int64_t depth = bType.getDimSize(0), n = bType.getDimSize(1);
  int64_t m = cType.getNumElements() / n;
  int64_t nr = n % (2 * kLanes) == 0 ? 2 * kLanes : kLanes;
  int64_t mr = 1;
  for (int64_t rows = kMaxRows; rows >= 1; --rows)
    if (m % rows == 0) {
      mr = rows;
      break;
    }
  int64_t q = nr / kLanes;

  // The elementwise epilogue that reads the product (a QDQ convolution's
  // rescaling, bias, residual add, ReLU and requantization into bytes),
  // computed on each register block's sums: the i32 sums never go to
  // memory, to be read back by a loop nest of its own.
  std::optional<ByteProductEpilogue> epilogue;
  int64_t imageColumns = n;
  // Whether a block's columns may span two images of a batch: the images'
  // pixels are contiguous columns and not a multiple of the block's (14 x
  // 14 or 7 x 7 maps at batch 8, which padding each image to whole blocks
  // made 14% and 31% larger).
  bool straddling = false;
  // The other product an epilogue adds (ByteProductEpilogue::other),
  // computed in the same blocks.
  std::optional<ByteContraction> other;
  if (cType.getRank() == 2 && aType.getRank() == 2) {
    std::optional<ByteProductEpilogue> matched = matchByteProductEpilogue(op);
    if (matched && matched->other) {
      FailureOr<ByteContraction> otherOperands =
          matchByteContraction(rewriter, matched->other, target);
      if (succeeded(otherOperands) && otherOperands->aIsSigned == aIsSigned)
        other = *otherOperands;
      else
        matched.reset();
    }
    if (matched && matched->imageColumns % nr == 0 &&
        matched->images * matched->imageColumns == n) {
      // A block writes into one image of a batch.
      imageColumns = matched->imageColumns;
      epilogue = std::move(matched);
    } else if (matched && matched->images > 1 &&
               matched->columns == matched->imageColumns &&
               matched->imageColumns >= nr) {
      // A block writes into one image or two consecutive ones.
      imageColumns = matched->imageColumns;
      straddling = true;
      epilogue = std::move(matched);
    }
  }
  if (!epilogue)
    other.reset();
  bool batched = epilogue && epilogue->images > 1;
  // Two products' accumulators: blocks of at most 4 rows.
  if (other)
    for (int64_t rows = kMaxRows / 2; rows >= 1; --rows)
      if (m % rows == 0) {
        mr = rows;
        break;
      }

  Location loc = op.getLoc();
  // The epilogue's other operands may be computed after the product.
  rewriter.setInsertionPoint(epilogue ? epilogue->generic.getOperation()
                                      : op.getOperation());
  SmallVector<ByteEpilogueOperand> epilogueOperands;
  if (epilogue)
    epilogueOperands = viewByteEpilogueOperands(rewriter, *epilogue);
  auto i32 = rewriter.getI32Type();
  auto laneType = VectorType::get({kLanes}, i32);
  auto byteType =
      VectorType::get({kLanes * kBytesPerLane}, rewriter.getI8Type());
  auto index = [&](OpBuilder &builder, int64_t value) {
    return arith::ConstantIndexOp::create(builder, loc, value).getResult();
  };
  // Rows of A and C collapsed into one M.
  SmallVector<ReassociationIndices> rowsGroups(1);
  for (int64_t d = 0; d + 1 < aType.getRank(); ++d)
    rowsGroups.front().push_back(d);
  rowsGroups.push_back({aType.getRank() - 1});
  /// A product's operands as the blocks read them.
  struct Product {
    Value a2, c2, fill, panels, colSums, rowSum, za, zb, constant;
    int64_t depth;
    bool aIsSigned;
  };
  auto prepare = [&](const ByteContraction &operands, Value init) -> Product {
    Product p;
    p.aIsSigned = operands.aIsSigned;
    p.depth = cast<RankedTensorType>(operands.b.getType()).getDimSize(0);
    p.a2 = aType.getRank() == 2 ? operands.a
                                : tensor::CollapseShapeOp::create(
                                      rewriter, loc, operands.a, rowsGroups)
                                      .getResult();
    p.c2 =
        cType.getRank() == 2
            ? init
            : tensor::CollapseShapeOp::create(rewriter, loc, init, rowsGroups)
                  .getResult();
    // C filled with one value (the zeros a QDQ convolution's product starts
    // from): that value, not a read of C in every block (C was a buffer
    // memset and read back on every call, 3 MiB for a [256, 3136] product).
    auto fillOp = init.getDefiningOp<linalg::FillOp>();
    if (fillOp && fillOp.getInputs().front().getType() == i32)
      p.fill = vector::BroadcastOp::create(rewriter, loc, laneType,
                                           fillOp.getInputs().front());
    p.panels = packBytePanels(rewriter, loc, operands.b, p.depth, n);
    if (!operands.aZeroIsZero)
      p.colSums =
          byteColumnSums(rewriter, loc, p.panels, p.depth, n, !p.aIsSigned);
    // A weight's row sums are constants; an activation's are summed per
    // call.
    if (!operands.bZeroIsZero)
      p.rowSum = byteRowSums(rewriter, loc, p.a2, m, p.depth, p.aIsSigned);
    // The constant part of the expansion, K za zb, and za, zb as vectors.
    p.za = vector::BroadcastOp::create(rewriter, loc, laneType, operands.aZero);
    p.zb = vector::BroadcastOp::create(rewriter, loc, laneType, operands.bZero);
    p.constant = arith::MulIOp::create(
        rewriter, loc,
        arith::MulIOp::create(
            rewriter, loc, p.za,
            arith::ConstantOp::create(
                rewriter, loc,
                DenseElementsAttr::get(laneType,
                                       rewriter.getI32IntegerAttr(p.depth)))),
        p.zb);
    return p;
  };
  SmallVector<Product, 2> products = {prepare(operands, init)};
  if (other)
    products.push_back(
        prepare(*other, epilogue->other.getDpsInitOperand(0)->get()));
  Value a2 = products.front().a2, c2 = products.front().c2;
  Value zeros = arith::ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(laneType, rewriter.getI32IntegerAttr(0)));
  Value pad8 = arith::ConstantIntOp::create(rewriter, loc, 0, 8);
  Value pad32 = arith::ConstantIntOp::create(rewriter, loc, 0, 32);

  // Column blocks outside, row blocks inside: consecutive blocks of a
  // thread share the K x nr bytes of B's panels (in L1). When A is larger
  // than an L2 block and a column block of B fits L1 (a late ResNet
  // stage's [2048, 512] filter times 64 columns), row blocks outside, A
  // read from constant row panels: A is read once, as one stream, where it
  // was read once per column block from 8 rows at a time (that convolution
  // took 24% less time in the QDQ resnet50; with K = 2048 or 4608, whose
  // column blocks do not fit L1, 26-29% more, so those stay). Each block
  // writes C + its sums into a new tensor, C only read: C may be a constant
  // (a small zero fill, folded) or shared with another contraction (fills
  // merged by CSE), and a block that canonicalization inlines out of a
  // forall of one would otherwise write into it, which one-shot
  // bufferization copied into a buffer without C's values.
  bool rowsOutside = !other && m * depth > target.getL2BlockBytes() &&
                     nr * depth <= kL1BlockBytes;
  Value rowPanels = rowsOutside
                        ? packByteRowPanels(rewriter, loc, a2, m, depth, mr)
                        : Value();
  // One image's last few real columns past whole panels (1 of 49 pixels, 4
  // of 196), computed as matrix-vector products after the blocks (see
  // emitTailColumns) instead of in a panel of 16 mostly padding columns.
  int64_t tailColumns = 0;
  if (epilogue && !batched && !straddling && aIsSigned && m % kLanes == 0 &&
      llvm::all_of(products,
                   [](const Product &p) {
                     return p.depth % (kLanes * kBytesPerLane) == 0;
                   }) &&
      epilogue->columns % kLanes <= kMaxTailColumns)
    tailColumns = epilogue->columns % kLanes;
  // The blocks cover the columns before the tail.
  int64_t blockedColumns = n;
  if (tailColumns)
    blockedColumns = llvm::divideCeil(epilogue->columns - tailColumns, nr) * nr;
  SmallVector<OpFoldResult> blockCounts = {
      rewriter.getIndexAttr(blockedColumns / nr),
      rewriter.getIndexAttr(m / mr)};
  if (rowsOutside)
    std::swap(blockCounts[0], blockCounts[1]);
  Type outElement = i32;
  if (epilogue)
    outElement =
        epilogue->widening
            ? epilogue->widening->getOperand(0).getType()
            : getElementTypeOrSelf(epilogue->generic->getResult(0).getType());
  // [M, N], or the batch's [images, M, imageColumns].
  SmallVector<int64_t> outShape(
      cast<RankedTensorType>(c2.getType()).getShape());
  if (batched)
    outShape = {epilogue->images, m, imageColumns};
  SmallVector<Value> outs = {
      tensor::EmptyOp::create(rewriter, loc, outShape, outElement)};
  // Straddling blocks write the columns of their second image here.
  if (straddling)
    outs.push_back(tensor::EmptyOp::create(
        rewriter, loc, ArrayRef<int64_t>{n / nr, m, nr}, outElement));
  auto forall = scf::ForallOp::create(rewriter, loc, blockCounts, outs,
                                      /*mapping=*/std::nullopt);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(forall.getBody());
  Value columnBlock = forall.getInductionVars()[rowsOutside ? 1 : 0];
  Value rowBlock = forall.getInductionVars()[rowsOutside ? 0 : 1];
  Value column =
      arith::MulIOp::create(rewriter, loc, columnBlock, index(rewriter, nr));
  Value row =
      arith::MulIOp::create(rewriter, loc, rowBlock, index(rewriter, mr));
  Value firstPanel =
      arith::DivUIOp::create(rewriter, loc, column, index(rewriter, kLanes));
  // The block's image in a batch, and its first column in that image.
  Value image, imageColumn = column;
  if (batched) {
    image = arith::DivUIOp::create(rewriter, loc, column,
                                   index(rewriter, imageColumns));
    imageColumn = arith::RemUIOp::create(rewriter, loc, column,
                                         index(rewriter, imageColumns));
  }
  SmallVector<Value> rows, panelOf;
  for (int64_t r = 0; r < mr; ++r)
    rows.push_back(
        arith::AddIOp::create(rewriter, loc, row, index(rewriter, r)));
  for (int64_t j = 0; j < q; ++j)
    panelOf.push_back(
        arith::AddIOp::create(rewriter, loc, firstPanel, index(rewriter, j)));
  // The blocks' K loops and the sums of their first `count` panels,
  // C + acc - za colsum[n] - zb rowsum[m] + K za zb: sums[j * mr + r] for
  // row r, columns [16 j, 16 j + 16) of the block, then the other
  // product's from mr * count.
  auto computeSums = [&](int64_t count) -> SmallVector<Value> {
    SmallVector<Value> sums;
    for (const Product &p : products) {
      auto steps = scf::ForOp::create(
          rewriter, loc, index(rewriter, 0),
          index(rewriter, p.depth / kBytesPerLane), index(rewriter, 1),
          SmallVector<Value>(mr * count, zeros),
          [&](OpBuilder &nested, Location l, Value step, ValueRange accs) {
            SmallVector<Value> weights;
            for (int64_t j = 0; j < count; ++j)
              weights.push_back(vector::TransferReadOp::create(
                  nested, l, byteType, p.panels,
                  ValueRange{panelOf[j], step, index(nested, 0)}, pad8,
                  ArrayRef{true}));
            Value k = arith::MulIOp::create(nested, l, step,
                                            index(nested, kBytesPerLane));
            SmallVector<Value> next;
            for (int64_t r = 0; r < mr; ++r) {
              Value four =
                  rowPanels ? broadcastFour(nested, l, rowPanels,
                                            {rowBlock, step,
                                             index(nested, r * kBytesPerLane)})
                            : broadcastFour(nested, l, p.a2, {rows[r], k});
              for (int64_t j = 0; j < count; ++j)
                next.push_back(p.aIsSigned
                                   ? dotProducts(nested, l, accs[r * count + j],
                                                 weights[j], four)
                                   : dotProducts(nested, l, accs[r * count + j],
                                                 four, weights[j]));
            }
            scf::YieldOp::create(nested, l, next);
          });
      for (int64_t j = 0; j < count; ++j) {
        Value first = arith::AddIOp::create(rewriter, loc, column,
                                            index(rewriter, j * kLanes));
        Value columnTerm = p.constant;
        if (p.colSums) {
          Value sums = vector::TransferReadOp::create(
              rewriter, loc, laneType, p.colSums, ValueRange{first}, pad32,
              ArrayRef{true});
          columnTerm = arith::SubIOp::create(
              rewriter, loc, p.constant,
              arith::MulIOp::create(rewriter, loc, p.za, sums));
        }
        for (int64_t r = 0; r < mr; ++r) {
          Value term = columnTerm;
          if (p.rowSum) {
            Value sum = tensor::ExtractOp::create(rewriter, loc, p.rowSum,
                                                  ValueRange{rows[r]});
            term = arith::SubIOp::create(
                rewriter, loc, term,
                arith::MulIOp::create(
                    rewriter, loc, p.zb,
                    vector::BroadcastOp::create(rewriter, loc, laneType, sum)));
          }
          Value old =
              p.fill ? p.fill
                     : vector::TransferReadOp::create(
                           rewriter, loc, laneType, p.c2,
                           ValueRange{rows[r], first}, pad32, ArrayRef{true})
                           .getResult();
          sums.push_back(arith::AddIOp::create(
              rewriter, loc, old,
              arith::AddIOp::create(rewriter, loc,
                                    steps.getResult(r * count + j), term)));
        }
      }
    }
    return sums;
  };
  // The epilogue (if any) applied to the 16 sums of row `r` (and the other
  // product's, `otherSum`) at column `at` of `atImage` (null for one
  // image).
  auto finish = [&](Value sum, Value otherSum, Value atImage, int64_t r,
                    Value at, bool mayOverrun) -> Value {
    if (!epilogue)
      return sum;
    SmallVector<Value> operands;
    for (const ByteEpilogueOperand &operand : epilogueOperands)
      operands.push_back(readByteEpilogueOperand(rewriter, loc, operand, sum,
                                                 otherSum, atImage, rows[r], at,
                                                 mayOverrun));
    return applyToVectors(rewriter, loc, epilogue->generic, operands,
                          epilogue->widening ? epilogue->widening->getOperand(0)
                                             : Value());
  };
  Value output = forall.getRegionIterArgs().front();
  int64_t realColumns = epilogue ? epilogue->columns : n;
  // The columns the blocks compute (the real ones but a tail's).
  int64_t blockColumns = realColumns - tailColumns;
  StraddlingBlocks straddlingBlocks{
      int64_t(products.size()),        mr,          q, n,
      epilogue ? epilogue->images : 1, imageColumns};
  if (straddling) {
    emitStraddlingBlock(rewriter, loc, forall, computeSums, finish,
                        straddlingBlocks, row, column, image, imageColumn);
  } else {
    SmallVector<OpFoldResult> offsets = {row, imageColumn};
    SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(mr),
                                       rewriter.getIndexAttr(nr)};
    if (batched) {
      offsets.insert(offsets.begin(), image);
      sizes.insert(sizes.begin(), rewriter.getIndexAttr(1));
    }
    SmallVector<OpFoldResult> strides(sizes.size(), rewriter.getIndexAttr(1));
    Value tile = tensor::ExtractSliceOp::create(
        rewriter, loc, RankedTensorType::get({mr, nr}, outElement), output,
        offsets, sizes, strides);
    // The block's first `count` panels written into `tile`.
    auto computeBlock = [&](int64_t count, Value tile) -> Value {
      SmallVector<Value> sums = computeSums(count);
      for (int64_t j = 0; j < count; ++j)
        for (int64_t r = 0; r < mr; ++r) {
          Value at = arith::AddIOp::create(rewriter, loc, imageColumn,
                                           index(rewriter, j * kLanes));
          Value otherSum = other ? sums[(count + j) * mr + r] : Value();
          Value value = finish(sums[j * mr + r], otherSum, image, r, at,
                               realColumns < imageColumns);
          tile =
              vector::TransferWriteOp::create(
                  rewriter, loc, value, tile,
                  ValueRange{index(rewriter, r), index(rewriter, j * kLanes)},
                  ArrayRef{true})
                  .getResult();
        }
      return tile;
    };
    // Where the last block's (of each image's, in a batch) second panel
    // holds only columns of padding (columns [208, 224) of a [F, 196]
    // convolution), that block computes its first panel only.
    // (Per image in a batch; before the tail columns of one image.)
    int64_t lastBlockEnd = tailColumns ? blockedColumns : imageColumns;
    if (q == 2 && lastBlockEnd - kLanes >= blockColumns) {
      Value isLast = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::eq, imageColumn,
          index(rewriter, lastBlockEnd - nr));
      auto branch = scf::IfOp::create(rewriter, loc, TypeRange{tile.getType()},
                                      isLast, /*withElseRegion=*/true);
      OpBuilder::InsertionGuard branchGuard(rewriter);
      rewriter.setInsertionPointToStart(branch.thenBlock());
      scf::YieldOp::create(rewriter, loc, computeBlock(1, tile));
      rewriter.setInsertionPointToStart(branch.elseBlock());
      scf::YieldOp::create(rewriter, loc, computeBlock(q, tile));
      tile = branch.getResult(0);
    } else {
      tile = computeBlock(q, tile);
    }
    rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(rewriter, loc, tile, output, offsets,
                                          sizes, strides);
  }
  rewriter.setInsertionPointAfter(forall);
  Value result = forall.getResult(0);
  if (straddling)
    result = fillStraddledColumns(rewriter, loc, result, forall.getResult(1),
                                  straddlingBlocks);
  if (tailColumns) {
    SmallVector<TailProduct, 2> tailProducts;
    for (const Product &p : products)
      tailProducts.push_back({p.a2, p.panels, p.colSums, p.rowSum, p.fill, p.c2,
                              p.za, p.zb, p.constant, p.depth});
    result = emitTailColumns(rewriter, loc, result, tailProducts,
                             {m, blockColumns, tailColumns}, *epilogue,
                             epilogueOperands);
  }
  if (epilogue) {
    // The real columns, in the epilogue's shape.
    auto resultType =
        cast<RankedTensorType>(epilogue->generic->getResult(0).getType());
    if (batched) {
      if (epilogue->columns != imageColumns)
        result = tensor::ExtractSliceOp::create(
            rewriter, loc, result,
            SmallVector<OpFoldResult>(3, rewriter.getIndexAttr(0)),
            getAsIndexOpFoldResult(rewriter.getContext(),
                                   {epilogue->images, m, epilogue->columns}),
            SmallVector<OpFoldResult>(3, rewriter.getIndexAttr(1)));
      if (resultType.getRank() != 3)
        result = tensor::ExpandShapeOp::create(
            rewriter, loc, resultType.clone(outElement), result,
            SmallVector<ReassociationIndices>{
                {0},
                {1},
                llvm::to_vector(llvm::seq<int64_t>(2, resultType.getRank()))});
    } else {
      if (epilogue->slice)
        result = tensor::ExtractSliceOp::create(
            rewriter, loc, result, epilogue->slice.getMixedOffsets(),
            epilogue->slice.getMixedSizes(), epilogue->slice.getMixedStrides());
      result = tensor::ExpandShapeOp::create(
          rewriter, loc, resultType.clone(outElement), result,
          epilogue->expand.getReassociationIndices());
    }
    if (epilogue->widening)
      result = widenBytes(rewriter, loc, result, /*zero=*/Value(),
                          isa<arith::ExtSIOp>(epilogue->widening));
    rewriter.replaceOp(epilogue->generic, result);
    for (Operation *view : llvm::reverse(epilogue->views))
      rewriter.eraseOp(view);
    rewriter.eraseOp(op);
    if (other) {
      for (Operation *view : llvm::reverse(epilogue->otherViews))
        rewriter.eraseOp(view);
      rewriter.eraseOp(epilogue->other);
    }
    return success();
  }
  if (cType.getRank() != 2)
    result =
        tensor::ExpandShapeOp::create(rewriter, loc, cType, result, rowsGroups);
  rewriter.replaceOp(op, result);
  return success();
}
