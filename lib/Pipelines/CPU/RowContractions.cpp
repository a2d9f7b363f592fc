//===- RowContractions.cpp - Contractions of a single row -----------------===//
//
// A contraction with one row of A, C[b.., n] += A[b.., k] B[b.., k, n] (a
// decoding step's token through a linear layer; attention's probabilities
// times the values), is a vector-matrix product: every element of B is
// used once, so the product streams B from memory, and the code only has to
// keep up with that stream. The register blocks of the matrix strategy
// (RegisterBlocking.cpp) have mr rows; a single row there either pads A and
// C to mr rows (mr times the arithmetic, and zero-filled copies on the main
// thread) or gets blocks of 1 x nr with nr / width accumulators, whose FMA
// chain is latency-bound. Here each block is 1 x (q * nr), up to
// kAccumulators vector accumulators that stay in registers along all of K:
//
//   scf.forall over (batch.., chunks of N)         OpenMP threads
//     scf.for over q panels of nr columns           register block
//       scf.for k in [0, K)                          acc_i += A[k] * B[k, i]
//
// A weight B is read from its panels [N / nr, K, nr] (cpu::pack; made at
// compile time, the same panels the matrix strategy reads, so the weight is
// stored once), so each of the q streams is contiguous; another B is read
// where it is, q * nr contiguous floats per k.
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::cpu;

/// Vector accumulators of a register block: with one broadcast of A and a
/// load of B per FMA, 8 independent chains hide the FMA latency.
static constexpr int64_t kAccumulators = 8;

/// Chunks of N per batch item that the threads share (static schedule).
static constexpr int64_t kChunks = 16;

namespace {
/// A contraction of one row (see isRowContraction).
struct RowContraction {
  /// Loop of the column dimension N and of the reduction K.
  unsigned n, k;
  /// Batch loops (each read by B too).
  SmallVector<unsigned> batch;
  /// Input operand numbers of A (no N) and B.
  int a, b;
};
} // namespace

/// The largest divisor of `value` that is at most `limit` and a multiple of
/// `multiple` (at least `multiple`, which must divide `value`).
static int64_t largestMultipleDivisor(int64_t value, int64_t limit,
                                      int64_t multiple) {
  for (int64_t d = std::max(limit - limit % multiple, multiple); d > multiple;
       d -= multiple)
    if (value % d == 0)
      return d;
  return multiple;
}

/// Matches an f32 contraction with static loop ranges whose M loops (if
/// any) all have range 1, one N loop and one K loop, A [b.., (m..), k],
/// B [b.., k, n] and C [b.., (m..), n] (projected permutations, batch loops
/// in any order before), and every batch loop read by B.
static std::optional<RowContraction> matchRowContraction(linalg::LinalgOp op) {
  if (!isF32Contraction(op))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(
          ranges, [](int64_t r) { return ShapedType::isDynamic(r) || r == 0; }))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->n.size() != 1 || dims->k.size() != 1 ||
      llvm::any_of(dims->m, [&](unsigned m) { return ranges[m] != 1; }))
    return std::nullopt;
  RowContraction row;
  row.n = dims->n.front();
  row.k = dims->k.front();
  row.batch.assign(dims->batch.begin(), dims->batch.end());
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  row.b = maps[0].isFunctionOfDim(row.n) ? 0 : 1;
  row.a = 1 - row.b;
  AffineMap a = maps[row.a], b = maps[row.b], c = maps[2];
  auto dimAt = [](AffineMap map, int fromEnd) -> int64_t {
    int64_t i = int64_t(map.getNumResults()) - 1 - fromEnd;
    return i < 0 ? -1 : int64_t(map.getDimPosition(i));
  };
  if (!a.isProjectedPermutation() || !b.isProjectedPermutation() ||
      !c.isProjectedPermutation() || a.isFunctionOfDim(row.n) ||
      dimAt(a, 0) != row.k || dimAt(b, 0) != row.n || dimAt(b, 1) != row.k ||
      dimAt(c, 0) != row.n)
    return std::nullopt;
  for (unsigned loop : row.batch)
    if (!b.isFunctionOfDim(loop))
      return std::nullopt;
  // B's leading results are batch loops only.
  for (unsigned i = 0; i + 2 < b.getNumResults(); ++i)
    if (!llvm::is_contained(row.batch, b.getDimPosition(i)))
      return std::nullopt;
  return row;
}

/// Offsets and sizes of the slice of an operand indexed by `map` at the
/// batch indices `batchIvs` (size 1 each), index 0 of the unit M loops, and
/// `rangeOf(loop)` along the N and K loops (offset, size).
static void
sliceAt(OpBuilder &b, AffineMap map, const RowContraction &row,
        ValueRange batchIvs,
        function_ref<std::pair<OpFoldResult, int64_t>(unsigned)> rangeOf,
        SmallVectorImpl<OpFoldResult> &offsets,
        SmallVectorImpl<OpFoldResult> &sizes) {
  for (unsigned i = 0; i < map.getNumResults(); ++i) {
    unsigned loop = map.getDimPosition(i);
    const auto *it = llvm::find(row.batch, loop);
    if (it != row.batch.end()) {
      offsets.push_back(batchIvs[it - row.batch.begin()]);
      sizes.push_back(b.getIndexAttr(1));
    } else if (loop == row.n || loop == row.k) {
      auto [offset, size] = rangeOf(loop);
      offsets.push_back(offset);
      sizes.push_back(b.getIndexAttr(size));
    } else {
      offsets.push_back(b.getIndexAttr(0));
      sizes.push_back(b.getIndexAttr(1));
    }
  }
}

/// Emits the register block at panel `panel` of the chunk: the q * nr / width
/// accumulators read from `acc` (the chunk's columns), the K loop of FMAs
/// and the accumulators written back. `bChunk` is the chunk's panels
/// [panels, K, nr] or its columns [K, columns]. Returns the updated chunk.
static Value emitRegisterBlock(OpBuilder &b, Location loc, Value acc,
                               Value aRow, Value bChunk, bool panels,
                               Value panel, int64_t q, int64_t nr,
                               int64_t width, int64_t depth) {
  auto vectorType = VectorType::get({width}, b.getF32Type());
  auto index = [&](int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value).getResult();
  };
  Value padding = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  int64_t perPanel = nr / width;
  int64_t count = q * perPanel;
  // Accumulator v holds columns [column(v), column(v) + width) of the chunk,
  // in panel panel + v / perPanel at lane offset (v % perPanel) * width.
  Value firstColumn = arith::MulIOp::create(b, loc, panel, index(nr));
  SmallVector<Value> columns, panelOf, lanes;
  for (int64_t v = 0; v < count; ++v) {
    columns.push_back(arith::AddIOp::create(
        b, loc, firstColumn,
        index((v / perPanel) * nr + (v % perPanel) * width)));
    panelOf.push_back(
        arith::AddIOp::create(b, loc, panel, index(v / perPanel)));
    lanes.push_back(index((v % perPanel) * width));
  }
  SmallVector<Value> inits;
  for (int64_t v = 0; v < count; ++v)
    inits.push_back(vector::TransferReadOp::create(b, loc, vectorType, acc,
                                                   ValueRange{columns[v]},
                                                   padding, ArrayRef{true}));
  auto loop = scf::ForOp::create(
      b, loc, index(0), index(depth), index(1), inits,
      [&](OpBuilder &nested, Location l, Value k, ValueRange accs) {
        Value scalar =
            tensor::ExtractOp::create(nested, l, aRow, ValueRange{k});
        Value broadcast =
            vector::BroadcastOp::create(nested, l, vectorType, scalar);
        SmallVector<Value> next;
        for (int64_t v = 0; v < count; ++v) {
          SmallVector<Value> indices =
              panels ? SmallVector<Value>{panelOf[v], k, lanes[v]}
                     : SmallVector<Value>{k, columns[v]};
          Value weights = vector::TransferReadOp::create(
              nested, l, vectorType, bChunk, indices, padding, ArrayRef{true});
          next.push_back(
              vector::FMAOp::create(nested, l, broadcast, weights, accs[v]));
        }
        scf::YieldOp::create(nested, l, next);
      });
  for (int64_t v = 0; v < count; ++v)
    acc =
        vector::TransferWriteOp::create(b, loc, loop.getResult(v), acc,
                                        ValueRange{columns[v]}, ArrayRef{true})
            .getResult();
  return acc;
}

LogicalResult cpu::vectorizeRowContraction(RewriterBase &rewriter,
                                           linalg::LinalgOp op,
                                           const CPUTarget &target,
                                           bool parallel) {
  std::optional<RowContraction> row = matchRowContraction(op);
  if (!row)
    return failure();
  int64_t width = target.getVectorWidthF32();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t n = ranges[row->n], depth = ranges[row->k];
  // Whole panels of nr = 2 vectors where N has them, else of one vector;
  // the rest of N (fewer than 2 vectors) is left to the matrix strategy.
  int64_t nr = n % (2 * width) == 0 || n > 2 * width ? 2 * width : width;
  if (n < nr)
    return failure();
  if (n % nr != 0) {
    rewriter.setInsertionPoint(op);
    auto [head, tail] =
        linalg::splitOp(rewriter, cast<TilingInterface>(op.getOperation()),
                        row->n, rewriter.getIndexAttr(n - n % nr));
    if (!head || !tail)
      return failure();
    op = cast<linalg::LinalgOp>(head.getOperation());
    n -= n % nr;
  }
  useOwnInit(rewriter, op);
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  int64_t numPanels = n / nr;
  int64_t perPanel = nr / width;
  int64_t q = largestMultipleDivisor(numPanels, kAccumulators / perPanel, 1);
  int64_t panelsPerChunk =
      parallel
          ? largestMultipleDivisor(
                numPanels,
                std::max<int64_t>(q, llvm::divideCeil(numPanels, kChunks)), q)
          : numPanels;
  int64_t chunks = numPanels / panelsPerChunk;

  // A weight is read from its panels [b.., N / nr, K, nr].
  Value bValue = op.getDpsInputOperand(row->b)->get();
  Value aValue = op.getDpsInputOperand(row->a)->get();
  bool panels = isConstantGlobal(bValue);
  Value bSource = bValue;
  if (panels) {
    PackedOperand packed{row->b, bValue, Value(), nr, /*splitLast=*/true};
    pack(rewriter, loc, packed, /*parallel=*/false);
    bSource = packed.packed;
  }
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  Value init = op.getDpsInitOperand(0)->get();

  SmallVector<OpFoldResult> upper;
  for (unsigned loop : row->batch)
    upper.push_back(rewriter.getIndexAttr(ranges[loop]));
  upper.push_back(rewriter.getIndexAttr(chunks));
  auto forall = scf::ForallOp::create(rewriter, loc, upper, ValueRange{init},
                                      /*mapping=*/std::nullopt);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(forall.getBody());
  ValueRange ivs = forall.getInductionVars();
  ValueRange batchIvs = ivs.drop_back();
  Value chunk = ivs.back();
  Value firstPanel = arith::MulIOp::create(
      rewriter, loc, chunk,
      arith::ConstantIndexOp::create(rewriter, loc, panelsPerChunk));
  Value firstColumn =
      arith::MulIOp::create(rewriter, loc, firstPanel,
                            arith::ConstantIndexOp::create(rewriter, loc, nr));
  int64_t chunkColumns = panelsPerChunk * nr;
  auto rangeOf = [&](unsigned loop) -> std::pair<OpFoldResult, int64_t> {
    if (loop == row->n)
      return {firstColumn, chunkColumns};
    return {rewriter.getIndexAttr(0), depth};
  };
  auto f32 = rewriter.getF32Type();
  auto slice = [&](Value source, AffineMap map, RankedTensorType type,
                   SmallVector<OpFoldResult> &offsets,
                   SmallVector<OpFoldResult> &sizes) {
    sliceAt(rewriter, map, *row, batchIvs, rangeOf, offsets, sizes);
    SmallVector<OpFoldResult> strides(offsets.size(), rewriter.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(rewriter, loc, type, source, offsets,
                                          sizes, strides)
        .getResult();
  };
  SmallVector<OpFoldResult> aOffsets, aSizes, cOffsets, cSizes;
  Value aRow = slice(aValue, maps[row->a], RankedTensorType::get({depth}, f32),
                     aOffsets, aSizes);
  Value output = forall.getRegionIterArgs().front();
  auto chunkType = RankedTensorType::get({chunkColumns}, f32);
  Value cChunk = slice(output, maps[2], chunkType, cOffsets, cSizes);
  Value bChunk;
  if (panels) {
    // [b.., N / nr, K, nr]: the batch results of B's map, then the panels.
    SmallVector<OpFoldResult> offsets, sizes;
    AffineMap bMap = maps[row->b];
    for (unsigned i = 0; i + 2 < bMap.getNumResults(); ++i) {
      offsets.push_back(
          batchIvs[llvm::find(row->batch, bMap.getDimPosition(i)) -
                   row->batch.begin()]);
      sizes.push_back(rewriter.getIndexAttr(1));
    }
    offsets.append(
        {firstPanel, rewriter.getIndexAttr(0), rewriter.getIndexAttr(0)});
    sizes.append({rewriter.getIndexAttr(panelsPerChunk),
                  rewriter.getIndexAttr(depth), rewriter.getIndexAttr(nr)});
    SmallVector<OpFoldResult> strides(offsets.size(), rewriter.getIndexAttr(1));
    bChunk = tensor::ExtractSliceOp::create(
        rewriter, loc, RankedTensorType::get({panelsPerChunk, depth, nr}, f32),
        bSource, offsets, sizes, strides);
  } else {
    SmallVector<OpFoldResult> offsets, sizes;
    bChunk = slice(bSource, maps[row->b],
                   RankedTensorType::get({depth, chunkColumns}, f32), offsets,
                   sizes);
  }
  auto blocks = scf::ForOp::create(
      rewriter, loc, arith::ConstantIndexOp::create(rewriter, loc, 0),
      arith::ConstantIndexOp::create(rewriter, loc, panelsPerChunk),
      arith::ConstantIndexOp::create(rewriter, loc, q), ValueRange{cChunk},
      [&](OpBuilder &b, Location l, Value panel, ValueRange args) {
        Value acc = emitRegisterBlock(b, l, args.front(), aRow, bChunk, panels,
                                      panel, q, nr, width, depth);
        scf::YieldOp::create(b, l, acc);
      });
  rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
  SmallVector<OpFoldResult> strides(cOffsets.size(), rewriter.getIndexAttr(1));
  tensor::ParallelInsertSliceOp::create(rewriter, loc, blocks.getResult(0),
                                        output, cOffsets, cSizes, strides);
  rewriter.replaceOp(op, forall.getResults());
  return success();
}
