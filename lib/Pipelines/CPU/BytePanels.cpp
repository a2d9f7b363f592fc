//===- BytePanels.cpp - Operands of the VNNI byte products ----------------===//
//
// The pieces of emitU8S8Contraction (DotProducts.cpp) that lay out and
// summarize its operands: byte dot products, B's panels (made at run time
// or, for a weight, at compile time), a constant A's row panels, and the
// row and column sums the zero points are expanded with; and the widening
// generics (`ext(b) - ext(z)`) a byte product's factors are written as.
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"
#include "mlprog/Dialect/MLProgram/Transforms/RawElements.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::cpu;

static constexpr int64_t kLanes = kByteLanes;

Value cpu::dotProducts(OpBuilder &b, Location loc, Value acc, Value a,
                       Value bytes) {
  auto grouped = VectorType::get({kLanes, kBytesPerLane}, b.getI8Type());
  auto wide = VectorType::get({kLanes, kBytesPerLane}, b.getI32Type());
  Value lhs = arith::ExtUIOp::create(
      b, loc, wide, vector::ShapeCastOp::create(b, loc, grouped, a));
  Value rhs = arith::ExtSIOp::create(
      b, loc, wide, vector::ShapeCastOp::create(b, loc, grouped, bytes));
  Value products = arith::MulIOp::create(b, loc, lhs, rhs);
  return vector::MultiDimReductionOp::create(b, loc, products, acc,
                                             ArrayRef<bool>{false, true},
                                             vector::CombiningKind::ADD);
}

/// Whether `value` is a constant's or a constant global's (whose panels
/// --mlprog-fold-constant-panels computes at compile time).
static bool isConstantBytes(Value value) {
  return static_cast<bool>(getConstantElements(value));
}

Value cpu::interleaveByteRows(OpBuilder &b, Location loc,
                              ArrayRef<Value> rows) {
  int64_t len = cast<VectorType>(rows[0].getType()).getNumElements();
  SmallVector<int64_t> bytePairs, wordPairs;
  for (int64_t i = 0; i < len; ++i) {
    bytePairs.append({i, len + i});
    wordPairs.append({2 * i, 2 * i + 1, 2 * len + 2 * i, 2 * len + 2 * i + 1});
  }
  // Bytes of rows 0 and 1 and of rows 2 and 3 (unpack instructions), then
  // their byte pairs.
  Value low = vector::ShuffleOp::create(b, loc, rows[0], rows[1], bytePairs);
  Value high = vector::ShuffleOp::create(b, loc, rows[2], rows[3], bytePairs);
  return vector::ShuffleOp::create(b, loc, low, high, wordPairs);
}

/// B [K, N] as panels [N / 16, K / 4, 64], computed at run time: an
/// scf.forall over blocks of up to 4 steps of K (16 rows of B) and, in each,
/// a loop over groups of up to 4 panels (64 columns, a cache line of each
/// row), each step's 4 x 16 bytes of B per panel interleaved in registers
/// (two rounds of vector.shuffle, unpack instructions) into the 64 bytes of
/// the panel's step. Each iteration reads its rows of B from left to right,
/// streams the hardware prefetches. (Groups of panels outside read every
/// row of B, K / 4 lines 4 rows apart, for each group: 576 lines 100 KB
/// apart for a 3x3 convolution over 64 channels of 8 images, which no
/// prefetcher follows; that packing took twice the time of the gather that
/// made B.)
static Value packPanelsAtRunTime(OpBuilder &b, Location loc, Value bytes,
                                 int64_t depth, int64_t n) {
  auto i8 = b.getI8Type();
  auto index = [&](OpBuilder &builder, int64_t value) {
    return arith::ConstantIndexOp::create(builder, loc, value).getResult();
  };
  int64_t steps = depth / kBytesPerLane, panels = n / kLanes;
  int64_t group = panels % 4 == 0 ? 4 : panels % 2 == 0 ? 2 : 1;
  int64_t block = steps % 4 == 0 ? 4 : steps % 2 == 0 ? 2 : 1;
  Value empty = tensor::EmptyOp::create(
      b, loc, {panels, steps, kLanes * kBytesPerLane}, i8);
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(steps / block)},
      ValueRange{empty}, /*mapping=*/std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  Value firstStep = arith::MulIOp::create(b, loc, forall.getInductionVars()[0],
                                          index(b, block));
  Value output = forall.getRegionIterArgs().front();
  auto tileType =
      RankedTensorType::get({panels, block, kLanes * kBytesPerLane}, i8);
  SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), firstStep,
                                       b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(panels),
                                     b.getIndexAttr(block),
                                     b.getIndexAttr(kLanes * kBytesPerLane)};
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  Value tile = tensor::ExtractSliceOp::create(b, loc, tileType, output, offsets,
                                              sizes, strides);
  Value firstRow =
      arith::MulIOp::create(b, loc, firstStep, index(b, kBytesPerLane));
  Value pad = arith::ConstantIntOp::create(b, loc, 0, 8);
  auto loop = scf::ForOp::create(
      b, loc, index(b, 0), index(b, panels / group), index(b, 1),
      ValueRange{tile},
      [&](OpBuilder &nb, Location l, Value groupIndex, ValueRange args) {
        Value firstPanel =
            arith::MulIOp::create(nb, l, groupIndex, index(nb, group));
        Value column =
            arith::MulIOp::create(nb, l, firstPanel, index(nb, kLanes));
        Value written = args[0];
        for (int64_t step = 0; step < block; ++step) {
          // Rows r0..r3 of the group's columns; for each panel, its 16
          // bytes of each, interleaved: bytes of r0 and r1 and of r2 and r3
          // (unpack instructions), then their byte pairs, so that column
          // i's 4 bytes are bytes [4 i, 4 i + 4).
          SmallVector<Value> rowsOf;
          for (int64_t r = 0; r < kBytesPerLane; ++r)
            rowsOf.push_back(vector::TransferReadOp::create(
                nb, l, VectorType::get({group * kLanes}, i8), bytes,
                ValueRange{
                    arith::AddIOp::create(nb, l, firstRow,
                                          index(nb, step * kBytesPerLane + r)),
                    column},
                pad, ArrayRef<bool>{true}));
          for (int64_t g = 0; g < group; ++g) {
            SmallVector<Value> part;
            for (Value rowBytes : rowsOf)
              part.push_back(
                  group == 1
                      ? rowBytes
                      : vector::ExtractStridedSliceOp::create(
                            nb, l, rowBytes, ArrayRef<int64_t>{g * kLanes},
                            ArrayRef<int64_t>{kLanes}, ArrayRef<int64_t>{1})
                            .getResult());
            Value flat = interleaveByteRows(nb, l, part);
            written = vector::TransferWriteOp::create(
                          nb, l, flat, written,
                          ValueRange{arith::AddIOp::create(nb, l, firstPanel,
                                                           index(nb, g)),
                                     index(nb, step), index(nb, 0)},
                          ArrayRef<bool>{true})
                          .getResult();
          }
        }
        scf::YieldOp::create(nb, l, written);
      });
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(b, loc, loop.getResult(0), output,
                                        offsets, sizes, strides);
  return forall.getResult(0);
}

/// The 2-D constant `bytes` rearranged at compile time: expanded to
/// `shape` (each of its dimensions split in two), transposed by
/// `permutation` and its last two dimensions collapsed, a form
/// --mlprog-fold-constant-panels evaluates.
static Value rearrangeConstant(OpBuilder &b, Location loc, Value bytes,
                               ArrayRef<int64_t> shape,
                               ArrayRef<int64_t> permutation) {
  auto i8 = b.getI8Type();
  auto expanded = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, i8), bytes,
      SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
  SmallVector<int64_t> permuted;
  for (int64_t d : permutation)
    permuted.push_back(shape[d]);
  Value empty = tensor::EmptyOp::create(b, loc, permuted, i8);
  Value panels =
      linalg::TransposeOp::create(b, loc, expanded, empty, permutation)
          .getResult()
          .front();
  return tensor::CollapseShapeOp::create(
      b, loc, panels, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
}

/// The panel layout's dimensions as unpackBytePanels transposes them:
/// [N / 16, K / 4, 16, 4] -> [K / 4, 4, N / 16, 16].
static constexpr int64_t kUnpackPermutation[] = {1, 3, 0, 2};

Value cpu::unpackBytePanels(OpBuilder &b, Location loc, Value panels) {
  auto type = cast<RankedTensorType>(panels.getType());
  int64_t count = type.getDimSize(0), steps = type.getDimSize(1);
  auto i8 = b.getI8Type();
  Value expanded = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({count, steps, kLanes, kBytesPerLane}, i8),
      panels, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
  Value empty = tensor::EmptyOp::create(
      b, loc, {steps, kBytesPerLane, count, kLanes}, i8);
  Value transposed =
      linalg::TransposeOp::create(b, loc, expanded, empty, kUnpackPermutation)
          .getResult()
          .front();
  return tensor::CollapseShapeOp::create(
      b, loc, transposed, SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
}

/// The panels [n / 16, depth / 4, 64] whose columns `bytes` [depth, n] are
/// (see unpackBytePanels), or null.
static Value getUnpackedPanels(Value bytes, int64_t depth, int64_t n) {
  auto collapse = bytes.getDefiningOp<tensor::CollapseShapeOp>();
  auto transpose = collapse
                       ? collapse.getSrc().getDefiningOp<linalg::TransposeOp>()
                       : nullptr;
  if (!transpose ||
      transpose.getPermutation() != ArrayRef<int64_t>(kUnpackPermutation))
    return {};
  auto expand = transpose.getInput().getDefiningOp<tensor::ExpandShapeOp>();
  if (!expand)
    return {};
  auto type = cast<RankedTensorType>(expand.getSrc().getType());
  if (type.getShape() != ArrayRef<int64_t>{n / kLanes, depth / kBytesPerLane,
                                           kLanes * kBytesPerLane})
    return {};
  return expand.getSrc();
}

Value cpu::packBytePanels(OpBuilder &b, Location loc, Value bytes,
                          int64_t depth, int64_t n) {
  if (Value panels = getUnpackedPanels(bytes, depth, n))
    return panels;
  if (!isConstantBytes(bytes))
    return packPanelsAtRunTime(b, loc, bytes, depth, n);
  // [K / 4, 4, N / 16, 16] -> [N / 16, K / 4, 16, 4].
  return rearrangeConstant(
      b, loc, bytes, {depth / kBytesPerLane, kBytesPerLane, n / kLanes, kLanes},
      {2, 0, 3, 1});
}

Value cpu::packByteRowPanels(OpBuilder &b, Location loc, Value bytes, int64_t m,
                             int64_t depth, int64_t mr) {
  auto type = dyn_cast<RankedTensorType>(bytes.getType());
  if (!type || type.getRank() != 2 || !isConstantBytes(bytes))
    return {};
  // [M / mr, mr, K / 4, 4] -> [M / mr, K / 4, mr, 4].
  return rearrangeConstant(b, loc, bytes,
                           {m / mr, mr, depth / kBytesPerLane, kBytesPerLane},
                           {0, 2, 1, 3});
}

Value cpu::byteColumnSums(OpBuilder &b, Location loc, Value panels,
                          int64_t depth, int64_t n, bool isSigned) {
  auto i32 = b.getI32Type();
  auto laneType = VectorType::get({kLanes}, i32);
  auto byteType = VectorType::get({kLanes * kBytesPerLane}, b.getI8Type());
  Value ones = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(byteType, b.getI8IntegerAttr(1)));
  Value zeros = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(laneType, b.getI32IntegerAttr(0)));
  Value pad = arith::ConstantIntOp::create(b, loc, 0, 8);
  auto index = [&](int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value).getResult();
  };
  Value sums = tensor::EmptyOp::create(b, loc, {n}, i32);
  auto panelsLoop = scf::ForOp::create(
      b, loc, index(0), index(n / kLanes), index(1), ValueRange{sums},
      [&](OpBuilder &outer, Location l, Value panel, ValueRange args) {
        auto steps = scf::ForOp::create(
            outer, l, index(0), index(depth / kBytesPerLane), index(1),
            ValueRange{zeros},
            [&](OpBuilder &inner, Location l2, Value step, ValueRange acc) {
              Value bytes = vector::TransferReadOp::create(
                  inner, l2, byteType, panels,
                  ValueRange{panel, step, index(0)}, pad, ArrayRef{true});
              scf::YieldOp::create(
                  inner, l2,
                  isSigned ? dotProducts(inner, l2, acc[0], ones, bytes)
                           : dotProducts(inner, l2, acc[0], bytes, ones));
            });
        Value column = arith::MulIOp::create(outer, l, panel, index(kLanes));
        Value written = vector::TransferWriteOp::create(
                            outer, l, steps.getResult(0), args[0],
                            ValueRange{column}, ArrayRef{true})
                            .getResult();
        scf::YieldOp::create(outer, l, written);
      });
  return panelsLoop.getResult(0);
}

/// The sums of the rows of the constant A [M, K] (signed or unsigned
/// bytes), sum_k a[m, k] [M] i32, computed now into a constant; null when
/// A is no constant (see getConstantElements) or its bytes cannot be read.
static Value constantRowSums(OpBuilder &b, Location loc, Value a, int64_t m,
                             int64_t depth, bool isSigned) {
  ElementsAttr elements = getConstantElements(a);
  if (!elements || !elements.getElementType().isInteger(8) ||
      elements.getNumElements() != m * depth)
    return {};
  std::vector<char> storage;
  FailureOr<ArrayRef<char>> bytes = getRawElementBytes(elements, storage);
  if (failed(bytes))
    return {};
  SmallVector<int32_t> sums(m, 0);
  for (int64_t row = 0; row < m; ++row)
    for (char byte : bytes->slice(row * depth, depth))
      sums[row] += isSigned ? int32_t(int8_t(byte)) : int32_t(uint8_t(byte));
  auto type = RankedTensorType::get({m}, b.getI32Type());
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, ArrayRef<int32_t>(sums)));
}

/// The sums of the rows of A, sum_k a[m, k] [M] i32 (a signed or unsigned
/// bytes), summed at run time.
static Value rowSumsAtRunTime(OpBuilder &b, Location loc, Value a, int64_t m,
                              bool isSigned) {
  auto i32 = b.getI32Type();
  Value empty = tensor::EmptyOp::create(b, loc, {m}, i32);
  Value zero = arith::ConstantIntOp::create(b, loc, 0, 32);
  Value init = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
  MLIRContext *ctx = b.getContext();
  AffineMap input = AffineMap::getMultiDimIdentityMap(2, ctx);
  AffineMap output = AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{a}, ValueRange{init},
             ArrayRef<AffineMap>{input, output},
             ArrayRef<utils::IteratorType>{utils::IteratorType::parallel,
                                           utils::IteratorType::reduction},
             [&](OpBuilder &nested, Location l, ValueRange args) {
               Value wide = isSigned
                                ? arith::ExtSIOp::create(
                                      nested, l, nested.getI32Type(), args[0])
                                      .getResult()
                                : arith::ExtUIOp::create(
                                      nested, l, nested.getI32Type(), args[0])
                                      .getResult();
               linalg::YieldOp::create(
                   nested, l,
                   arith::AddIOp::create(nested, l, args[1], wide).getResult());
             })
      .getResult(0);
}

Value cpu::byteRowSums(OpBuilder &b, Location loc, Value a, int64_t m,
                       int64_t depth, bool isSigned) {
  if (Value sums = constantRowSums(b, loc, a, m, depth, isSigned))
    return sums;
  return rowSumsAtRunTime(b, loc, a, m, isSigned);
}

Value cpu::widenBytes(OpBuilder &rewriter, Location loc, Value bytes,
                      Value zero, bool isSigned) {
  auto type = cast<RankedTensorType>(bytes.getType());
  auto i32 = rewriter.getI32Type();
  MLIRContext *ctx = rewriter.getContext();
  SmallVector<Value> inputs = {bytes};
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(type.getRank(), ctx)};
  if (zero) {
    inputs.push_back(zero);
    maps.push_back(AffineMap::get(type.getRank(), 0, ctx));
  }
  maps.push_back(maps.front());
  Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(), i32);
  auto ext = [&](OpBuilder &b, Location l, Value v) -> Value {
    if (isSigned)
      return arith::ExtSIOp::create(b, l, i32, v);
    return arith::ExtUIOp::create(b, l, i32, v);
  };
  return linalg::GenericOp::create(
             rewriter, loc, empty.getType(), inputs, empty, maps,
             SmallVector<utils::IteratorType>(type.getRank(),
                                              utils::IteratorType::parallel),
             [&](OpBuilder &b, Location l, ValueRange args) {
               Value result = ext(b, l, args[0]);
               if (zero)
                 result =
                     arith::SubIOp::create(b, l, result, ext(b, l, args[1]));
               linalg::YieldOp::create(b, l, result);
             })
      .getResult(0);
}
