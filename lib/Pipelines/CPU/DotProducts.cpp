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
// and read back by a loop nest of their own.
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"
#include "mlprog/Dialect/MLProgram/Transforms/RawElements.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::cpu;

/// Lanes of an i32 zmm; bytes of B per lane (K steps per `vpdpbusd`).
static constexpr int64_t kLanes = 16;
static constexpr int64_t kBytesPerLane = 4;
/// Rows of a register block at most (8 x 32 columns: 16 accumulators).
static constexpr int64_t kMaxRows = 8;
/// Bytes of B's panels a column block may have for row blocks to go
/// outside (see emitU8S8Contraction): two thirds of a 48 KiB L1, so that
/// the block stays there beside the rows of A streaming past it.
static constexpr int64_t kL1BlockBytes = 32 * 1024;

/// `acc + sum of 4 products` per lane of `acc` (vector<16xi32>): the
/// unsigned bytes `a` times the signed bytes `bytes` (vector<64xi8> each),
/// lane i summing bytes [4 i, 4 i + 4). Written as vector arithmetic (exact
/// and free of side effects, as bufferization and deallocation need);
/// --mlprog-lower-dot-products-to-vnni makes it one AVX-512 VNNI
/// `vpdpbusd` after bufferization.
static Value dotProducts(OpBuilder &b, Location loc, Value acc, Value a,
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

/// Whether `value` is a constant's or a constant global's (whose panels
/// --mlprog-fold-constant-panels computes at compile time).
static bool isConstantBytes(Value value) {
  return static_cast<bool>(getConstantElements(value));
}

/// B [K, N] as panels [N / 16, K / 4, 64], computed at run time: for each
/// panel (an scf.forall) and each 4 rows of K, the 4 x 16 bytes of B
/// interleaved in registers (two rounds of vector.shuffle, unpack
/// instructions) into the 64 bytes of the panel's step.
static Value packPanelsAtRunTime(OpBuilder &b, Location loc, Value bytes,
                                 int64_t depth, int64_t n) {
  auto i8 = b.getI8Type();
  auto index = [&](OpBuilder &builder, int64_t value) {
    return arith::ConstantIndexOp::create(builder, loc, value).getResult();
  };
  int64_t steps = depth / kBytesPerLane;
  Value empty = tensor::EmptyOp::create(
      b, loc, {n / kLanes, steps, kLanes * kBytesPerLane}, i8);
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(n / kLanes)},
      ValueRange{empty}, /*mapping=*/std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  Value panel = forall.getInductionVars()[0];
  Value output = forall.getRegionIterArgs().front();
  auto tileType = RankedTensorType::get({1, steps, kLanes * kBytesPerLane}, i8);
  SmallVector<OpFoldResult> offsets = {panel, b.getIndexAttr(0),
                                       b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(steps),
                                     b.getIndexAttr(kLanes * kBytesPerLane)};
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  Value tile = tensor::ExtractSliceOp::create(b, loc, tileType, output, offsets,
                                              sizes, strides);
  Value column = arith::MulIOp::create(b, loc, panel, index(b, kLanes));
  Value pad = arith::ConstantIntOp::create(b, loc, 0, 8);
  auto loop = scf::ForOp::create(
      b, loc, index(b, 0), index(b, steps), index(b, 1), ValueRange{tile},
      [&](OpBuilder &nb, Location l, Value step, ValueRange args) {
        Value row =
            arith::MulIOp::create(nb, l, step, index(nb, kBytesPerLane));
        // Rows r0..r3 of 16 bytes, interleaved: bytes of r0 and r1 and of
        // r2 and r3 (unpack instructions), then their byte pairs, so that
        // column i's 4 bytes are bytes [4 i, 4 i + 4).
        SmallVector<Value> rowsOf;
        for (int64_t r = 0; r < kBytesPerLane; ++r)
          rowsOf.push_back(vector::TransferReadOp::create(
              nb, l, VectorType::get({kLanes}, i8), bytes,
              ValueRange{arith::AddIOp::create(nb, l, row, index(nb, r)),
                         column},
              pad, ArrayRef<bool>{true}));
        SmallVector<int64_t> bytePairs, wordPairs;
        for (int64_t i = 0; i < kLanes; ++i) {
          bytePairs.append({i, kLanes + i});
          wordPairs.append(
              {2 * i, 2 * i + 1, 2 * kLanes + 2 * i, 2 * kLanes + 2 * i + 1});
        }
        Value low =
            vector::ShuffleOp::create(nb, l, rowsOf[0], rowsOf[1], bytePairs);
        Value high =
            vector::ShuffleOp::create(nb, l, rowsOf[2], rowsOf[3], bytePairs);
        Value flat = vector::ShuffleOp::create(nb, l, low, high, wordPairs);
        Value written = vector::TransferWriteOp::create(
                            nb, l, flat, args[0],
                            ValueRange{index(nb, 0), step, index(nb, 0)},
                            ArrayRef<bool>{true})
                            .getResult();
        scf::YieldOp::create(nb, l, written);
      });
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(b, loc, loop.getResult(0), output,
                                        offsets, sizes, strides);
  return forall.getResult(0);
}

/// B [K, N] as panels [N / 16, K / 4, 64] (see the file comment).
static Value packPanels(OpBuilder &b, Location loc, Value bytes, int64_t depth,
                        int64_t n) {
  if (!isConstantBytes(bytes))
    return packPanelsAtRunTime(b, loc, bytes, depth, n);
  auto i8 = b.getI8Type();
  auto expanded = tensor::ExpandShapeOp::create(
      b, loc,
      RankedTensorType::get(
          {depth / kBytesPerLane, kBytesPerLane, n / kLanes, kLanes}, i8),
      bytes, SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
  Value empty = tensor::EmptyOp::create(
      b, loc, {n / kLanes, depth / kBytesPerLane, kLanes, kBytesPerLane}, i8);
  Value panels = linalg::TransposeOp::create(b, loc, expanded, empty,
                                             ArrayRef<int64_t>{2, 0, 3, 1})
                     .getResult()
                     .front();
  return tensor::CollapseShapeOp::create(
      b, loc, panels, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
}

/// A [M, K] as row panels [M / mr, K / 4, mr * 4]: the 4 bytes of each K
/// step of a register block's mr rows side by side, so that the block's
/// broadcasts read one sequential stream (from mr rows K bytes apart, a
/// row block of a [2048, 512] weight started 8 streams of 8 cache lines
/// each). Only for a constant A, whose panels --mlprog-fold-constant-panels
/// computes at compile time; null otherwise.
static Value packRowPanels(OpBuilder &b, Location loc, Value bytes, int64_t m,
                           int64_t depth, int64_t mr) {
  auto type = dyn_cast<RankedTensorType>(bytes.getType());
  if (!type || type.getRank() != 2 || !isConstantBytes(bytes))
    return {};
  auto i8 = b.getI8Type();
  int64_t steps = depth / kBytesPerLane;
  auto expanded = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({m / mr, mr, steps, kBytesPerLane}, i8),
      bytes, SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
  Value empty =
      tensor::EmptyOp::create(b, loc, {m / mr, steps, mr, kBytesPerLane}, i8);
  Value panels = linalg::TransposeOp::create(b, loc, expanded, empty,
                                             ArrayRef<int64_t>{0, 2, 1, 3})
                     .getResult()
                     .front();
  return tensor::CollapseShapeOp::create(
      b, loc, panels, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
}

/// The sums of the columns of B, sum_k b[k, n] [N] i32, from its panels
/// (signed or unsigned bytes): `vpdpbusd` with all-ones bytes for A.
static Value columnSums(OpBuilder &b, Location loc, Value panels, int64_t depth,
                        int64_t n, bool isSigned) {
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

namespace {
/// The elementwise linalg.generic a byte product [M, N] feeds (a QDQ
/// convolution's requantization): product -> (tensor.extract_slice of its
/// leading `columns`, dropping columns of padding) -> tensor.expand_shape
/// to the convolution's [1, F, OH, OW] (M and N each one group of
/// dimensions) -> the generic, reading it through the identity map.
struct ProductEpilogue {
  linalg::GenericOp generic;
  tensor::ExtractSliceOp slice;
  tensor::ExpandShapeOp expand;
  /// The columns the epilogue reads (N without a slice).
  int64_t columns;
  /// When the epilogue yields `ext(x)` of an 8-bit value x (the
  /// requantized bytes widened for the next byte product, as elementwise
  /// fusion merges the two): that extension. The register blocks then
  /// write x, and a generic of its own widens them, which the next product
  /// recognizes as widened bytes (and reads in place).
  Operation *widening = nullptr;
};

/// An input of a ProductEpilogue as the register blocks read it.
struct EpilogueOperand {
  enum Kind { Product, Element, Row, Scalar } kind;
  /// [M, columns] for Element, [M] for Row, rank 0 for Scalar.
  Value view;
};
} // namespace

/// Matches the epilogue of `op` (see ProductEpilogue): every other input of
/// the generic is read whole through the identity map, or by a map of the M
/// group's dimensions that leaves out only dimensions of extent 1 (a bias
/// per output channel), or is a scalar; its payload applies to vectors and
/// does not read its init.
static std::optional<ProductEpilogue>
matchProductEpilogue(linalg::LinalgOp op) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  Value value = op->getResult(0);
  auto type = cast<RankedTensorType>(value.getType());
  ProductEpilogue result{};
  result.columns = type.getDimSize(1);
  if (!value.hasOneUse())
    return std::nullopt;
  if (auto slice =
          dyn_cast<tensor::ExtractSliceOp>(*value.getUsers().begin())) {
    if (!slice.hasUnitStride() || slice.getResultType().getRank() != 2 ||
        !llvm::all_of(slice.getStaticOffsets(),
                      [](int64_t offset) { return offset == 0; }) ||
        slice.getStaticSizes()[0] != type.getDimSize(0) ||
        ShapedType::isDynamic(slice.getStaticSizes()[1]))
      return std::nullopt;
    result.slice = slice;
    result.columns = slice.getStaticSizes()[1];
    value = slice.getResult();
    if (!value.hasOneUse())
      return std::nullopt;
  }
  result.expand = dyn_cast<tensor::ExpandShapeOp>(*value.getUsers().begin());
  if (!result.expand || result.expand.getReassociationIndices().size() != 2 ||
      !result.expand->hasOneUse())
    return std::nullopt;
  Value expanded = result.expand.getResult();
  auto generic =
      dyn_cast<linalg::GenericOp>(*result.expand->getUsers().begin());
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic->getNumResults() != 1 || !linalg::isElementwise(generic) ||
      generic.hasIndexSemantics() || generic->getBlock() != op->getBlock() ||
      cast<RankedTensorType>(generic->getResult(0).getType()).getShape() !=
          result.expand.getResultType().getShape() ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity() ||
      generic.payloadUsesValueFromOperand(generic.getDpsInitOperand(0)) ||
      !appliesToVectors(generic))
    return std::nullopt;
  ReassociationIndices rowsGroup = result.expand.getReassociationIndices()[0];
  ArrayRef<int64_t> shape = result.expand.getResultType().getShape();
  int reads = 0;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(input);
    if (input->get() == expanded) {
      if (!map.isIdentity())
        return std::nullopt;
      ++reads;
      continue;
    }
    auto inputType = dyn_cast<RankedTensorType>(input->get().getType());
    if (!inputType || !inputType.hasStaticShape())
      return std::nullopt;
    if (map.isIdentity() || map.getNumResults() == 0)
      continue;
    // Dimensions of the rows' group, in order, the others of extent 1.
    int64_t last = -1;
    for (AffineExpr expr : map.getResults()) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim || !llvm::is_contained(rowsGroup, dim.getPosition()) ||
          int64_t(dim.getPosition()) <= last)
        return std::nullopt;
      last = dim.getPosition();
    }
    for (int64_t d : rowsGroup)
      if (shape[d] != 1 && !map.isFunctionOfDim(d))
        return std::nullopt;
  }
  if (reads != 1)
    return std::nullopt;
  result.generic = generic;
  Operation *yielded =
      generic.getBody()->getTerminator()->getOperand(0).getDefiningOp();
  if (isa_and_present<arith::ExtUIOp, arith::ExtSIOp>(yielded) &&
      yielded->getOperand(0).getType().isInteger(8))
    result.widening = yielded;
  return result;
}

/// The inputs of `epilogue` as its register blocks read them, viewed in 2-D
/// ([M, columns]) or 1-D ([M]) by collapse_shapes created at the rewriter's
/// insertion point.
static SmallVector<EpilogueOperand>
viewEpilogueOperands(RewriterBase &rewriter, ProductEpilogue epilogue) {
  SmallVector<EpilogueOperand> operands;
  Location loc = epilogue.generic.getLoc();
  for (OpOperand *input : epilogue.generic.getDpsInputOperands()) {
    Value value = input->get();
    AffineMap map = epilogue.generic.getMatchingIndexingMap(input);
    if (value == epilogue.expand.getResult()) {
      operands.push_back({EpilogueOperand::Product, Value()});
    } else if (map.getNumResults() == 0) {
      operands.push_back({EpilogueOperand::Scalar, value});
    } else if (map.isIdentity()) {
      operands.push_back({EpilogueOperand::Element,
                          tensor::CollapseShapeOp::create(
                              rewriter, loc, value,
                              epilogue.expand.getReassociationIndices())});
    } else {
      auto type = cast<RankedTensorType>(value.getType());
      if (type.getRank() != 1) {
        ReassociationIndices all;
        for (int64_t d = 0; d < type.getRank(); ++d)
          all.push_back(d);
        value = tensor::CollapseShapeOp::create(
            rewriter, loc, value, SmallVector<ReassociationIndices>{all});
      }
      operands.push_back({EpilogueOperand::Row, value});
    }
  }
  return operands;
}

/// `bytes` widened to `type` (its shape, a wider integer) by an identity
/// generic of one arith.extsi (`isSigned`) or arith.extui.
static Value widenBytes(OpBuilder &b, Location loc, Value bytes,
                        RankedTensorType type, bool isSigned) {
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  Value empty =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  return linalg::GenericOp::create(
             b, loc, type, ValueRange{bytes}, ValueRange{empty},
             ArrayRef<AffineMap>{identity, identity},
             SmallVector<utils::IteratorType>(type.getRank(),
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nested, Location l, ValueRange args) {
               Type wide = type.getElementType();
               Value value =
                   isSigned ? arith::ExtSIOp::create(nested, l, wide, args[0])
                                  .getResult()
                            : arith::ExtUIOp::create(nested, l, wide, args[0])
                                  .getResult();
               linalg::YieldOp::create(nested, l, value);
             })
      .getResult(0);
}

/// The 16 elements of the epilogue's input `operand` at `row` and the 16
/// columns from `column`: `sums` for the product, one vector read for an
/// element-wise input (columns past its end read 0 when `mayOverrun`: a
/// register block over columns of padding), one element broadcast for a
/// per-row input (a bias) or a scalar.
static Value readEpilogueOperand(OpBuilder &b, Location loc,
                                 const EpilogueOperand &operand, Value sums,
                                 Value row, Value column, bool mayOverrun) {
  if (operand.kind == EpilogueOperand::Product)
    return sums;
  Type element = getElementTypeOrSelf(operand.view.getType());
  auto vectorType = VectorType::get({kLanes}, element);
  if (operand.kind == EpilogueOperand::Element) {
    Value pad =
        arith::ConstantOp::create(b, loc, element, b.getZeroAttr(element));
    return vector::TransferReadOp::create(b, loc, vectorType, operand.view,
                                          ValueRange{row, column}, pad,
                                          ArrayRef<bool>{!mayOverrun});
  }
  SmallVector<Value> indices;
  if (operand.kind == EpilogueOperand::Row)
    indices.push_back(row);
  return vector::BroadcastOp::create(
      b, loc, vectorType,
      tensor::ExtractOp::create(b, loc, operand.view, indices));
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
/// bytes).
static Value rowSums(OpBuilder &b, Location loc, Value a, int64_t m,
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
  std::optional<ProductEpilogue> epilogue;
  if (cType.getRank() == 2 && aType.getRank() == 2)
    epilogue = matchProductEpilogue(op);

  Location loc = op.getLoc();
  // The epilogue's other operands may be computed after the product.
  rewriter.setInsertionPoint(epilogue ? epilogue->generic.getOperation()
                                      : op.getOperation());
  SmallVector<EpilogueOperand> epilogueOperands;
  if (epilogue)
    epilogueOperands = viewEpilogueOperands(rewriter, *epilogue);
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
  Value a2 = aType.getRank() == 2
                 ? a
                 : tensor::CollapseShapeOp::create(rewriter, loc, a, rowsGroups)
                       .getResult();
  Value c2 =
      cType.getRank() == 2
          ? init
          : tensor::CollapseShapeOp::create(rewriter, loc, init, rowsGroups)
                .getResult();
  // C filled with one value (the zeros a QDQ convolution's product starts
  // from): that value, not a read of C in every block (C was a buffer
  // memset and read back on every call, 3 MiB for a [256, 3136] product).
  Value fill;
  auto fillOp = init.getDefiningOp<linalg::FillOp>();
  if (fillOp && fillOp.getInputs().front().getType() == i32)
    fill = vector::BroadcastOp::create(rewriter, loc, laneType,
                                       fillOp.getInputs().front());
  Value panels = packPanels(rewriter, loc, b, depth, n);
  Value colSums = operands.aZeroIsZero
                      ? Value()
                      : columnSums(rewriter, loc, panels, depth, n, !aIsSigned);
  // A weight's row sums are constants; an activation's are summed per call.
  Value rowSum;
  if (!operands.bZeroIsZero) {
    rowSum = constantRowSums(rewriter, loc, a2, m, depth, aIsSigned);
    if (!rowSum)
      rowSum = rowSums(rewriter, loc, a2, m, aIsSigned);
  }
  // The constant part of the expansion, K za zb, and za, zb as vectors.
  Value za =
      vector::BroadcastOp::create(rewriter, loc, laneType, operands.aZero);
  Value zb =
      vector::BroadcastOp::create(rewriter, loc, laneType, operands.bZero);
  Value constant = arith::MulIOp::create(
      rewriter, loc,
      arith::MulIOp::create(
          rewriter, loc, za,
          arith::ConstantOp::create(
              rewriter, loc,
              DenseElementsAttr::get(laneType,
                                     rewriter.getI32IntegerAttr(depth)))),
      zb);
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
  bool rowsOutside =
      m * depth > target.getL2BlockBytes() && nr * depth <= kL1BlockBytes;
  Value rowPanels =
      rowsOutside ? packRowPanels(rewriter, loc, a2, m, depth, mr) : Value();
  SmallVector<OpFoldResult> blockCounts = {rewriter.getIndexAttr(n / nr),
                                           rewriter.getIndexAttr(m / mr)};
  if (rowsOutside)
    std::swap(blockCounts[0], blockCounts[1]);
  Type outElement = i32;
  if (epilogue)
    outElement =
        epilogue->widening
            ? epilogue->widening->getOperand(0).getType()
            : getElementTypeOrSelf(epilogue->generic->getResult(0).getType());
  Value out = tensor::EmptyOp::create(
      rewriter, loc, cast<RankedTensorType>(c2.getType()).getShape(),
      outElement);
  auto forall =
      scf::ForallOp::create(rewriter, loc, blockCounts, ValueRange{out},
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
  SmallVector<OpFoldResult> offsets = {row, column};
  SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(mr),
                                     rewriter.getIndexAttr(nr)};
  SmallVector<OpFoldResult> strides(2, rewriter.getIndexAttr(1));
  Value output = forall.getRegionIterArgs().front();
  Value tile = tensor::ExtractSliceOp::create(
      rewriter, loc, RankedTensorType::get({mr, nr}, outElement), output,
      offsets, sizes, strides);
  SmallVector<Value> rows, panelOf;
  for (int64_t r = 0; r < mr; ++r)
    rows.push_back(
        arith::AddIOp::create(rewriter, loc, row, index(rewriter, r)));
  for (int64_t j = 0; j < q; ++j)
    panelOf.push_back(
        arith::AddIOp::create(rewriter, loc, firstPanel, index(rewriter, j)));
  // The block's K loop and its write-back for its first `count` panels
  // (accumulator r * count + j: row r, columns [16 j, 16 j + 16) of the
  // block) into `tile`.
  auto computeBlock = [&](int64_t count, Value tile) -> Value {
    auto steps = scf::ForOp::create(
        rewriter, loc, index(rewriter, 0),
        index(rewriter, depth / kBytesPerLane), index(rewriter, 1),
        SmallVector<Value>(mr * count, zeros),
        [&](OpBuilder &nested, Location l, Value step, ValueRange accs) {
          SmallVector<Value> weights;
          for (int64_t j = 0; j < count; ++j)
            weights.push_back(vector::TransferReadOp::create(
                nested, l, byteType, panels,
                ValueRange{panelOf[j], step, index(nested, 0)}, pad8,
                ArrayRef{true}));
          Value k = arith::MulIOp::create(nested, l, step,
                                          index(nested, kBytesPerLane));
          SmallVector<Value> next;
          for (int64_t r = 0; r < mr; ++r) {
            Value four = rowPanels
                             ? broadcastFour(nested, l, rowPanels,
                                             {rowBlock, step,
                                              index(nested, r * kBytesPerLane)})
                             : broadcastFour(nested, l, a2, {rows[r], k});
            for (int64_t j = 0; j < count; ++j)
              next.push_back(aIsSigned
                                 ? dotProducts(nested, l, accs[r * count + j],
                                               weights[j], four)
                                 : dotProducts(nested, l, accs[r * count + j],
                                               four, weights[j]));
          }
          scf::YieldOp::create(nested, l, next);
        });
    // C += acc - za colsum[n] - zb rowsum[m] + K za zb.
    for (int64_t j = 0; j < count; ++j) {
      Value first = arith::AddIOp::create(rewriter, loc, column,
                                          index(rewriter, j * kLanes));
      Value columnTerm = constant;
      if (colSums) {
        Value sums = vector::TransferReadOp::create(rewriter, loc, laneType,
                                                    colSums, ValueRange{first},
                                                    pad32, ArrayRef{true});
        columnTerm = arith::SubIOp::create(
            rewriter, loc, constant,
            arith::MulIOp::create(rewriter, loc, za, sums));
      }
      for (int64_t r = 0; r < mr; ++r) {
        Value term = columnTerm;
        if (rowSum) {
          Value sum = tensor::ExtractOp::create(rewriter, loc, rowSum,
                                                ValueRange{rows[r]});
          term = arith::SubIOp::create(
              rewriter, loc, term,
              arith::MulIOp::create(
                  rewriter, loc, zb,
                  vector::BroadcastOp::create(rewriter, loc, laneType, sum)));
        }
        Value lane = index(rewriter, j * kLanes);
        Value old =
            fill ? fill
                 : vector::TransferReadOp::create(
                       rewriter, loc, laneType, c2,
                       ValueRange{rows[r], arith::AddIOp::create(rewriter, loc,
                                                                 column, lane)},
                       pad32, ArrayRef{true})
                       .getResult();
        Value sum = arith::AddIOp::create(
            rewriter, loc, old,
            arith::AddIOp::create(rewriter, loc, steps.getResult(r * count + j),
                                  term));
        if (epilogue) {
          SmallVector<Value> operands;
          for (const EpilogueOperand &operand : epilogueOperands)
            operands.push_back(readEpilogueOperand(rewriter, loc, operand, sum,
                                                   rows[r], first,
                                                   epilogue->columns < n));
          sum = applyToVectors(
              rewriter, loc, epilogue->generic, operands,
              epilogue->widening ? epilogue->widening->getOperand(0) : Value());
        }
        tile = vector::TransferWriteOp::create(
                   rewriter, loc, sum, tile,
                   ValueRange{index(rewriter, r), lane}, ArrayRef{true})
                   .getResult();
      }
    }
    return tile;
  };
  // Where the last block's second panel holds only columns of padding
  // (columns [208, 224) of a [F, 196] convolution), that block computes
  // its first panel only.
  int64_t realColumns = epilogue ? epilogue->columns : n;
  if (q == 2 && n - kLanes >= realColumns) {
    Value isLast =
        arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                              columnBlock, index(rewriter, n / nr - 1));
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
  rewriter.setInsertionPointAfter(forall);
  Value result = forall.getResult(0);
  if (epilogue) {
    // The real columns, in the epilogue's shape.
    if (epilogue->slice)
      result = tensor::ExtractSliceOp::create(
          rewriter, loc, result, epilogue->slice.getMixedOffsets(),
          epilogue->slice.getMixedSizes(), epilogue->slice.getMixedStrides());
    auto resultType =
        cast<RankedTensorType>(epilogue->generic->getResult(0).getType());
    result = tensor::ExpandShapeOp::create(
        rewriter, loc, resultType.clone(outElement), result,
        epilogue->expand.getReassociationIndices());
    if (epilogue->widening)
      result = widenBytes(rewriter, loc, result, resultType,
                          isa<arith::ExtSIOp>(epilogue->widening));
    rewriter.replaceOp(epilogue->generic, result);
    rewriter.eraseOp(epilogue->expand);
    if (epilogue->slice)
      rewriter.eraseOp(epilogue->slice);
    rewriter.eraseOp(op);
    return success();
  }
  if (cType.getRank() != 2)
    result =
        tensor::ExpandShapeOp::create(rewriter, loc, cType, result, rowsGroups);
  rewriter.replaceOp(op, result);
  return success();
}
