//===- ContractionStrategy.cpp - Which contractions to block and how ------===//
//
// Strategy selection of the contraction code generation, apart from the
// transforms that apply it: which ops are contractions we block
// (planContraction), their register and cache tiles (chooseTiles), which
// inputs to copy into panels (choosePackedOperands) and how to block a
// convolution's column tensor (chooseColumnBlockRows).
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::cpu;

/// Whether `map`'s last result is the loop dimension `dim`.
static bool isInnermost(AffineMap map, int64_t dim) {
  if (map.getNumResults() == 0)
    return false;
  auto expr = dyn_cast<AffineDimExpr>(map.getResults().back());
  return expr && expr.getPosition() == dim;
}

bool cpu::isF32Contraction(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return false;
  return llvm::all_of(op->getOpOperands(), [](OpOperand &operand) {
    return getElementTypeOrSelf(operand.get().getType()).isF32();
  });
}

std::optional<ContractionPlan> cpu::planContraction(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  auto resultType =
      dyn_cast<RankedTensorType>(op.getDpsInitOperand(0)->get().getType());
  if (!resultType || !resultType.getElementType().isF32())
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands())
    if (getElementTypeOrSelf(operand.get().getType()) !=
        resultType.getElementType())
      return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims))
    return std::nullopt;
  ContractionPlan plan;
  plan.ranges = op.getStaticLoopRanges();
  if (llvm::any_of(plan.ranges, ShapedType::isDynamic))
    return std::nullopt;
  plan.dims = *dims;
  plan.m = dims->m.back();
  plan.n = dims->n.back();
  plan.k = dims->k.back();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // The input that carries N (and not M) is B.
  int bIndex = -1;
  for (int i = 0; i < 2; ++i) {
    AffineMap map = maps[i];
    if (map.isFunctionOfDim(plan.n) && !map.isFunctionOfDim(plan.m))
      bIndex = i;
  }
  if (bIndex < 0 || !isInnermost(maps[bIndex], plan.n) ||
      !isInnermost(maps[2], plan.n))
    return std::nullopt;
  plan.b = bIndex;
  plan.weightB = isConstantGlobal(op.getDpsInputOperand(bIndex)->get());
  return plan;
}

/// The largest divisor of `value` that is at most `limit` (at least 1),
/// preferring multiples of `multiple` when one exists.
static int64_t largestDivisor(int64_t value, int64_t limit,
                              int64_t multiple = 1) {
  for (int64_t d = std::min(value, limit); d >= multiple; --d)
    if (value % d == 0 && d % multiple == 0)
      return d;
  for (int64_t d = std::min(value, limit); d > 1; --d)
    if (value % d == 0)
      return d;
  return 1;
}

int64_t cpu::getMaxRegisterRows(const CPUTarget &target) {
  // mr x (nr / width) accumulators plus the B row and a broadcast must fit
  // the register file: 8 x 2 of 32 registers (AVX-512), 4 x 2 of 16 (AVX2).
  return target.getNumVectorRegisters() >= 32 ? 8 : 4;
}

bool cpu::hasRegisterRowDivisor(int64_t m, const CPUTarget &target) {
  int64_t rows = getMaxRegisterRows(target);
  return m % rows == 0 || 8 * largestDivisor(m, rows) >= 7 * rows;
}

/// The fewest output tiles of a contraction whose weight B is read in one
/// pass (see chooseTiles) for the threads to share them evenly.
static constexpr int64_t kMinBalancedTiles = 16;

TileConfig cpu::chooseTiles(const CPUTarget &target,
                            const ContractionPlan &plan) {
  int64_t width = target.getVectorWidthF32();
  TileConfig config;
  int64_t m = plan.ranges[plan.m], n = plan.ranges[plan.n];
  int64_t k = plan.ranges[plan.k];
  config.mr = largestDivisor(m, getMaxRegisterRows(target));
  config.nr = largestDivisor(n, 2 * width, width);
  // Odd widths above one vector (28 for 14x14 maps) make poor code; one
  // vector or less (14) is faster.
  if (config.nr > width && config.nr % width != 0)
    config.nr = largestDivisor(n, width);
  config.kc = k <= 768 ? k : largestDivisor(k, 512, 16);
  if (config.kc < 64)
    config.kc = 256;
  // With packed panels, a C tile of 128 x 256 and K blocks of up to 512
  // measured best on a 48 KiB L1 / 2 MiB L2 core (1024^3: 96-99 GFLOP/s,
  // against 86-88 with 64 x 256 x 256).
  config.mc = largestDivisor(m, 16 * config.mr, config.mr);
  // A weight outgrows the caches and is read from memory once per pass
  // over it: with all rows of A in one block, one pass (vit_b_16's 197
  // tokens in blocks of 40 rows read every weight 5 times).
  if (plan.weightB && m * config.kc * 4 <= target.getL2BlockBytes())
    config.mc = m;
  config.nc = largestDivisor(n, 8 * config.nr, config.nr);
  // At least two C tiles, so that a second thread has work even when one
  // tile would hold the whole output (a 64-token encoder's 64 x 256
  // projections).
  int64_t batch = 1;
  for (unsigned dim : plan.dims.batch)
    batch *= plan.ranges[dim];
  if (batch * (m / config.mc) * (n / config.nc) < 2) {
    if (config.nc % (2 * config.nr) == 0)
      config.nc /= 2;
    else if (config.mc % (2 * config.mr) == 0)
      config.mc /= 2;
  }
  // With all rows in one block, the threads share the columns: narrower
  // tiles, down to two register blocks, until there are enough of them
  // to balance (ViT's 768-column projections were 3 tiles, 2 on one of
  // two threads). Each tile re-reads A from L2, each weight is still read
  // once.
  if (config.mc == m && plan.weightB)
    while (batch * (n / config.nc) < kMinBalancedTiles &&
           config.nc % (2 * config.nr) == 0 && config.nc >= 4 * config.nr)
      config.nc /= 2;
  return config;
}

/// Whether input `index` of `op` is indexed [batch..., x, y] with the
/// innermost loops (x, y) = (k, n) for B or (m, k) for A, and only batch loops
/// besides: the forms the panels below support.
static bool isPackable(linalg::LinalgOp op, const ContractionPlan &plan,
                       int index, bool isB) {
  AffineMap map = op.getIndexingMapsArray()[index];
  unsigned rank = map.getNumResults();
  if (rank < 2 || !map.isProjectedPermutation() ||
      map.getDimPosition(rank - 2) != (isB ? plan.k : plan.m) ||
      map.getDimPosition(rank - 1) != (isB ? plan.n : plan.k))
    return false;
  for (unsigned i = 0; i + 2 < rank; ++i)
    if (!llvm::is_contained(plan.dims.batch, map.getDimPosition(i)))
      return false;
  return true;
}

/// Panels pay for their copy only with enough K steps per register block.
static constexpr int64_t kMinPackedK = 256;

/// L1 ways from which A's rows are read in place even when they alias.
static constexpr unsigned kMinWaysForUnpackedA = 12;

/// Whether the rows of the matrix `value` (or of the tensor it is a slice
/// of) are a multiple of 4 KiB apart, so that a column of them falls into
/// one set of a 48 KiB, 12-way L1 (64 sets, 4 KiB period) and a K x nr block
/// cannot stay in L1 (e.g. square matrices of 1024 or 2048 f32).
static bool rowsAliasInL1(Value value, const CPUTarget &target) {
  while (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>())
    value = slice.getSource();
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() < 2 || type.isDynamicDim(type.getRank() - 1))
    return false;
  int64_t bytes = type.getDimSize(type.getRank() - 1) *
                  type.getElementType().getIntOrFloatBitWidth() / 8;
  return bytes % target.getL1SetPeriodBytes() == 0;
}

SmallVector<PackedOperand>
cpu::choosePackedOperands(linalg::LinalgOp op, const ContractionPlan &plan,
                          const TileConfig &config, const CPUTarget &target) {
  // Pack B into contiguous K x nr panels, and A into K x mr panels, when
  // their rows alias in L1 and each panel is reused by enough register
  // blocks to pay for the copy. The copies are plain loops, so operands
  // whose rows do not alias keep their layout: 256^3 and 512^3 sgemm (rows
  // 1 and 2 KiB apart) and the column tensors of resnet18's convolutions
  // measured slower with panels (512^3: 84 against 101 GFLOP/s), 1024^3
  // faster (96 against 65). A's mr rows alias in one L1 set, which a
  // 12-way L1 holds beside the B stream: there A's panels cost more than
  // they save (1024^3 on an EPYC core: 9.0 ms a call without them, 9.6 ms
  // with them; 2048^3 77 against 87 ms).
  int bIndex = plan.b;
  SmallVector<PackedOperand> packed;
  int64_t m = plan.ranges[plan.m], n = plan.ranges[plan.n];
  int64_t k = plan.ranges[plan.k];
  // A weight's panels cost nothing at run time (see isConstantGlobal): they
  // are made at compile time, whatever the shapes.
  Value b = op.getDpsInputOperand(bIndex)->get();
  bool worthPackingB =
      isConstantGlobal(b) || (m >= 4 * config.mr && n > config.nr &&
                              k >= kMinPackedK && rowsAliasInL1(b, target));
  if (config.nr % target.getVectorWidthF32() == 0 && worthPackingB &&
      isPackable(op, plan, bIndex, /*isB=*/true))
    packed.push_back({bIndex, op.getDpsInputOperand(bIndex)->get(), Value(),
                      config.nr, /*splitLast=*/true});
  if (target.l1Ways < kMinWaysForUnpackedA && n >= 4 * config.nr &&
      m > config.mr && k >= kMinPackedK &&
      rowsAliasInL1(op.getDpsInputOperand(1 - bIndex)->get(), target) &&
      isPackable(op, plan, 1 - bIndex, /*isB=*/false))
    packed.push_back({1 - bIndex, op.getDpsInputOperand(1 - bIndex)->get(),
                      Value(), config.mr, /*splitLast=*/false});
  return packed;
}

int64_t cpu::chooseColumnBlockRows(int64_t k, int64_t batch, int64_t oh,
                                   int64_t ow, const CPUTarget &target) {
  int64_t width = target.getVectorWidthF32();
  int64_t rowBytes = k * ow * 4;
  if (rowBytes * oh * batch <= 2 * target.getL2BlockBytes())
    return 0;
  for (int64_t nr : {2 * width, width})
    for (int64_t rows = batch > 1 ? oh : oh / 2; rows >= 1; --rows)
      if (oh % rows == 0 && (rows * ow) % nr == 0 &&
          rows * rowBytes <= target.getL2BlockBytes())
        return rows;
  return 0;
}
