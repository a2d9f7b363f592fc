//===- IntegerContractions.cpp - Exact 8-bit contractions, fast -----------===//
//
// --mlprog-integer-contractions-to-f32: a quantized matrix product (ONNX
// MatMulInteger, DynamicQuantizeMatMul, QLinearMatMul; the importers'
// integer contraction) is an i32 contraction of 8-bit values widened and
// shifted by their zero points:
//
//   C[m, n] += (a[m, k] - za) * (b[k, n] - zb)        (i32)
//
// The CPU code generation blocks, packs and vectorizes f32 contractions only;
// an i32 one was scalar loops (one [128, 768] x [768, 3072] MatMulInteger
// took 0.94 s). Two exact ways replace them:
//
// - With AVX-512 VNNI in the target, unsigned bytes times a signed [K, N]
//   matrix are byte dot products (DotProducts.cpp, emitU8S8Contraction),
//   the zero points expanded: 1.7 ms for that product.
// - Otherwise every product is exact in f32: its factors are integers of at
//   most 9 bits and their products of at most 17, and a sum of f32 integers
//   is exact while it stays within 2^24. So the contraction is computed as
//   f32 contractions over chunks of K short enough that no partial sum can
//   pass 2^24 (factors within [-255, 255], as for u8 - za times i8 - zb
//   with unknown zero points: 258 terms, rounded to 256), each converted to
//   i32 and added to C in i32: the same result, bit for bit, at the speed
//   of the f32 code generation (5 ms).
//
// The bound of each factor comes from the ops that compute it: the body of
// the elementwise linalg.generic that produces the operand (through slices
// and reshapes), where 8-bit values are widened (arith.extsi / extui) and
// shifted by constants or other widened 8-bit values. A contraction whose
// factors are not bounded that way is left alone.
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"
#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"

#include <algorithm>

namespace mlprog {
#define GEN_PASS_DEF_INTEGERCONTRACTIONSTOF32PASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;
using namespace mlprog;
using namespace mlprog::cpu;

/// Integers up to this magnitude are exact in f32 (its 24-bit significand).
static constexpr int64_t kExactF32 = int64_t(1) << 24;
/// Chunks of K are rounded down to a multiple of this when they are long.
static constexpr int64_t kChunkAlignment = 64;

namespace {
/// Inclusive bounds of an integer value.
struct Bounds {
  int64_t lo, hi;
  int64_t maxAbs() const { return std::max(std::abs(lo), std::abs(hi)); }
};
} // namespace

/// The range of a value of `bits` bits read as signed or unsigned.
static std::optional<Bounds> rangeOfWidth(Type type, bool isSigned) {
  if (!type.isInteger() || type.getIntOrFloatBitWidth() > 16)
    return std::nullopt;
  unsigned bits = type.getIntOrFloatBitWidth();
  if (isSigned)
    return Bounds{-(int64_t(1) << (bits - 1)), (int64_t(1) << (bits - 1)) - 1};
  return Bounds{0, (int64_t(1) << bits) - 1};
}

/// Bounds of `value`, computed in a linalg.generic body from 8- or 16-bit
/// values widened by arith.extsi / extui, integer constants, and sums,
/// differences and products of those; nothing for anything else.
static std::optional<Bounds> boundsOf(Value value, int depth = 0) {
  if (depth > 8)
    return std::nullopt;
  Operation *op = value.getDefiningOp();
  if (!op)
    return std::nullopt;
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)) &&
      constant.getSignificantBits() <= 32)
    return Bounds{constant.getSExtValue(), constant.getSExtValue()};
  if (auto ext = dyn_cast<arith::ExtSIOp>(op))
    return rangeOfWidth(ext.getIn().getType(), /*isSigned=*/true);
  if (auto ext = dyn_cast<arith::ExtUIOp>(op))
    return rangeOfWidth(ext.getIn().getType(), /*isSigned=*/false);
  if (!isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(op))
    return std::nullopt;
  std::optional<Bounds> a = boundsOf(op->getOperand(0), depth + 1);
  std::optional<Bounds> b = boundsOf(op->getOperand(1), depth + 1);
  if (!a || !b)
    return std::nullopt;
  if (isa<arith::AddIOp>(op))
    return Bounds{a->lo + b->lo, a->hi + b->hi};
  if (isa<arith::SubIOp>(op))
    return Bounds{a->lo - b->hi, a->hi - b->lo};
  int64_t products[] = {a->lo * b->lo, a->lo * b->hi, a->hi * b->lo,
                        a->hi * b->hi};
  return Bounds{*std::min_element(std::begin(products), std::end(products)),
                *std::max_element(std::begin(products), std::end(products))};
}

/// The elementwise linalg.generic that computes `value`, seen through
/// slices, reshapes and casts (which keep its bounds), and the bounds of
/// what its body yields; nothing when they are not known.
static std::optional<std::pair<linalg::GenericOp, Bounds>>
boundedProducer(Value value) {
  while (Operation *op = value.getDefiningOp()) {
    if (!isa<tensor::ExtractSliceOp, tensor::CollapseShapeOp,
             tensor::ExpandShapeOp, tensor::CastOp>(op))
      break;
    value = op->getOperand(0);
  }
  auto generic = value.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInits() != 1 ||
      generic.getNumReductionLoops() != 0)
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  std::optional<Bounds> bounds = boundsOf(yield.getOperand(0));
  if (!bounds)
    return std::nullopt;
  return std::make_pair(generic, *bounds);
}

/// Whether the body of `op` is `out + in0 * in1` in i32.
static bool isIntegerMultiplyAdd(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (body->getOperations().size() != 3)
    return false;
  auto mul = dyn_cast<arith::MulIOp>(&body->front());
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddIOp>();
  if (!mul || !add || !mul.getType().isInteger(32))
    return false;
  Value in0 = body->getArgument(0), in1 = body->getArgument(1),
        out = body->getArgument(2);
  bool mulOfInputs = (mul.getLhs() == in0 && mul.getRhs() == in1) ||
                     (mul.getLhs() == in1 && mul.getRhs() == in0);
  bool addOfOut = (add.getLhs() == out && add.getRhs() == mul) ||
                  (add.getLhs() == mul && add.getRhs() == out);
  return mulOfInputs && addOfOut;
}

/// `value` (of `producer`'s result's shape, any element type) seen through
/// the views (slices, reshapes) that make `operand` of `producer`'s result.
static Value applyViews(RewriterBase &rewriter, linalg::GenericOp producer,
                        Value operand, Value value) {
  OpBuilder::InsertionGuard guard(rewriter);
  SmallVector<Operation *> views;
  for (Value v = operand; v != producer.getResult(0);
       v = v.getDefiningOp()->getOperand(0))
    views.push_back(v.getDefiningOp());
  Type elementType = cast<RankedTensorType>(value.getType()).getElementType();
  for (Operation *view : llvm::reverse(views)) {
    rewriter.setInsertionPointAfter(view);
    IRMapping viewMapping;
    viewMapping.map(view->getOperand(0), value);
    Operation *copy = rewriter.clone(*view, viewMapping);
    auto type = cast<RankedTensorType>(copy->getResult(0).getType());
    copy->getResult(0).setType(type.clone(elementType));
    value = copy->getResult(0);
  }
  return value;
}

/// A clone of `producer` (elementwise, one result) that yields, in
/// `elementType`, what `yieldFn` computes from the cloned body (given the
/// mapping of the original body's values), seen through the same views
/// (slices, reshapes) as `operand`, a view of the producer's result.
static Value
cloneYielding(RewriterBase &rewriter, linalg::GenericOp producer, Value operand,
              Type elementType,
              function_ref<Value(OpBuilder &, Location, IRMapping &)> yieldFn) {
  Location loc = producer.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(producer);
  Value init = producer.getDpsInitOperand(0)->get();
  Value empty = tensor::EmptyOp::create(
      rewriter, loc, tensor::getMixedSizes(rewriter, loc, init), elementType);
  auto clone = linalg::GenericOp::create(
      rewriter, loc, empty.getType(), producer.getDpsInputs(), empty,
      producer.getIndexingMapsArray(), producer.getIteratorTypesArray());
  IRMapping mapping;
  Block *body = producer.getBody();
  Block *block = rewriter.createBlock(
      &clone.getRegion(), clone.getRegion().end(), body->getArgumentTypes(),
      SmallVector<Location>(body->getNumArguments(), loc));
  // The output block argument takes the new element type; the body never
  // read it (an elementwise producer writes a fresh tensor).
  block->getArgument(body->getNumArguments() - 1).setType(elementType);
  mapping.map(body->getArguments(), block->getArguments());
  rewriter.setInsertionPointToStart(block);
  for (Operation &op : body->without_terminator())
    rewriter.clone(op, mapping);
  linalg::YieldOp::create(rewriter, loc, yieldFn(rewriter, loc, mapping));
  return applyViews(rewriter, producer, operand, clone.getResult(0));
}

/// A clone of `producer` whose body converts what it yields to f32
/// (arith.sitofp): the operand's values as exact floats.
static Value cloneAsF32(RewriterBase &rewriter, linalg::GenericOp producer,
                        Value operand) {
  auto yield = cast<linalg::YieldOp>(producer.getBody()->getTerminator());
  return cloneYielding(
      rewriter, producer, operand, rewriter.getF32Type(),
      [&](OpBuilder &b, Location loc, IRMapping &mapping) -> Value {
        return arith::SIToFPOp::create(b, loc, b.getF32Type(),
                                       mapping.lookup(yield.getOperand(0)));
      });
}

namespace {
/// A factor an elementwise producer computes as `ext(x) - ext(z)` or
/// `ext(x)` from bytes: x an i8 value of its body, z a scalar input of the
/// producer (a map without results) or a constant, both widened alike.
struct WidenedBytes {
  linalg::GenericOp producer;
  /// x, in the producer's body.
  Value bytes;
  /// arith.extsi (signed) or arith.extui.
  bool isSigned;
  /// The input z reads, or null (then `zeroConstant`).
  OpOperand *zeroInput = nullptr;
  int64_t zeroConstant = 0;
};
} // namespace

/// Matches the body of `producer` (see WidenedBytes).
static std::optional<WidenedBytes>
matchWidenedBytes(linalg::GenericOp producer) {
  auto yield = cast<linalg::YieldOp>(producer.getBody()->getTerminator());
  Value value = yield.getOperand(0);
  Value zero;
  if (auto sub = value.getDefiningOp<arith::SubIOp>()) {
    value = sub.getLhs();
    zero = sub.getRhs();
  }
  auto widened = [](Value v) -> std::optional<std::pair<Value, bool>> {
    Operation *op = v.getDefiningOp();
    if (auto ext = dyn_cast_or_null<arith::ExtSIOp>(op))
      return std::make_pair(ext.getIn(), true);
    if (auto ext = dyn_cast_or_null<arith::ExtUIOp>(op))
      return std::make_pair(ext.getIn(), false);
    return std::nullopt;
  };
  std::optional<std::pair<Value, bool>> x = widened(value);
  if (!x || !x->first.getType().isInteger(8))
    return std::nullopt;
  WidenedBytes result{producer, x->first, x->second};
  if (!zero)
    return result;
  APInt constant;
  if (matchPattern(zero, m_ConstantInt(&constant))) {
    result.zeroConstant = constant.getSExtValue();
    return result;
  }
  std::optional<std::pair<Value, bool>> z = widened(zero);
  auto arg = z ? dyn_cast<BlockArgument>(z->first) : BlockArgument();
  if (!z || z->second != x->second || !z->first.getType().isInteger(8) ||
      !arg || arg.getOwner() != producer.getBody() ||
      arg.getArgNumber() >= producer.getNumDpsInputs())
    return std::nullopt;
  OpOperand *input = producer.getDpsInputOperand(arg.getArgNumber());
  if (producer.getMatchingIndexingMap(input).getNumResults() != 0)
    return std::nullopt;
  result.zeroInput = input;
  return result;
}

/// The zero point of `factor` as an i32 scalar, created at the insertion
/// point.
static Value materializeZero(OpBuilder &b, Location loc,
                             const WidenedBytes &factor) {
  if (!factor.zeroInput)
    return arith::ConstantIntOp::create(b, loc, factor.zeroConstant, 32);
  Value scalar =
      tensor::ExtractOp::create(b, loc, factor.zeroInput->get(), ValueRange{});
  if (factor.isSigned)
    return arith::ExtSIOp::create(b, loc, b.getI32Type(), scalar);
  return arith::ExtUIOp::create(b, loc, b.getI32Type(), scalar);
}

/// Whether the zero point of `factor` is 0: a constant, or a dense zero
/// constant or constant global's value.
static bool hasZeroZeroPoint(const WidenedBytes &factor) {
  if (!factor.zeroInput)
    return factor.zeroConstant == 0;
  auto dense = dyn_cast_if_present<DenseIntElementsAttr>(
      getConstantElements(factor.zeroInput->get()));
  return dense && dense.isSplat() && dense.getSplatValue<APInt>().isZero();
}

/// Whether the maps of `op` are A (m.., k), B (k, n), C (m.., n): the form
/// emitU8S8Contraction computes.
static bool isRowsTimesMatrix(linalg::LinalgOp op,
                              const linalg::ContractionDimensions &dims) {
  if (!dims.batch.empty() || dims.n.size() != 1 || dims.k.size() != 1)
    return false;
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto dim = [&](unsigned d) { return getAffineDimExpr(d, ctx); };
  SmallVector<AffineExpr> rows = llvm::map_to_vector(dims.m, dim);
  SmallVector<AffineExpr> a(rows), c(rows);
  a.push_back(dim(dims.k[0]));
  c.push_back(dim(dims.n[0]));
  return maps[0].getResults() == ArrayRef(a) &&
         maps[1].getResults() ==
             ArrayRef<AffineExpr>{dim(dims.k[0]), dim(dims.n[0])} &&
         maps[2].getResults() == ArrayRef(c);
}

/// The bytes `factor` widens, for the operand `operand` it produces: the
/// producer's input itself (through the same views) when the producer only
/// widens it (a weight, read in place, its panels made at compile time),
/// else a clone of the producer yielding the bytes.
static Value bytesOf(RewriterBase &rewriter, const WidenedBytes &factor,
                     Value operand) {
  linalg::GenericOp producer = factor.producer;
  if (auto arg = dyn_cast<BlockArgument>(factor.bytes);
      arg && arg.getOwner() == producer.getBody() &&
      arg.getArgNumber() < producer.getNumDpsInputs()) {
    OpOperand *input = producer.getDpsInputOperand(arg.getArgNumber());
    if (producer.getMatchingIndexingMap(input).isIdentity() &&
        producer.getIndexingMapsArray().back().isIdentity())
      return applyViews(rewriter, producer, operand, input->get());
  }
  return cloneYielding(
      rewriter, producer, operand, rewriter.getI8Type(),
      [&factor](OpBuilder &, Location, IRMapping &mapping) -> Value {
        return mapping.lookup(factor.bytes);
      });
}

/// Whether `op` is a contraction of two tensors whose body multiplies and
/// adds integers (C += A B in i32).
static bool isIntegerContraction(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() && op.getNumDpsInputs() == 2 &&
         op.getNumDpsInits() == 1 && linalg::isaContractionOpInterface(op) &&
         isIntegerMultiplyAdd(op);
}

FailureOr<ByteContraction> cpu::matchByteContraction(RewriterBase &rewriter,
                                                     linalg::LinalgOp op,
                                                     const CPUTarget &target) {
  if (!isIntegerContraction(op))
    return failure();
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || !isRowsTimesMatrix(op, *dims) ||
      !supportsU8S8Contraction(op, target))
    return failure();
  Value lhs = op.getDpsInputOperand(0)->get();
  Value rhs = op.getDpsInputOperand(1)->get();
  auto lhsProducer = boundedProducer(lhs), rhsProducer = boundedProducer(rhs);
  if (!lhsProducer || !rhsProducer)
    return failure();
  std::optional<WidenedBytes> a = matchWidenedBytes(lhsProducer->first);
  std::optional<WidenedBytes> b = matchWidenedBytes(rhsProducer->first);
  if (!a || !b || a->isSigned == b->isSigned)
    return failure();
  OpBuilder::InsertionGuard guard(rewriter);
  ByteContraction operands;
  operands.b = bytesOf(rewriter, *b, rhs);
  operands.a = bytesOf(rewriter, *a, lhs);
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  operands.aZero = materializeZero(rewriter, loc, *a);
  operands.bZero = materializeZero(rewriter, loc, *b);
  operands.aIsSigned = a->isSigned;
  operands.aZeroIsZero = hasZeroZeroPoint(*a);
  operands.bZeroIsZero = hasZeroZeroPoint(*b);
  return operands;
}

/// An identity-mapped elementwise generic over `init`'s shape: `init` +
/// fptosi(`part`) (both of the contraction's output shape).
static Value accumulateInI32(RewriterBase &rewriter, Location loc, Value init,
                             Value part) {
  auto type = cast<RankedTensorType>(init.getType());
  AffineMap identity = rewriter.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> parallel(type.getRank(),
                                            utils::IteratorType::parallel);
  auto add = linalg::GenericOp::create(
      rewriter, loc, type, ValueRange{part}, ValueRange{init},
      ArrayRef<AffineMap>{identity, identity}, parallel,
      [&](OpBuilder &b, Location nested, ValueRange args) {
        Value whole =
            arith::FPToSIOp::create(b, nested, b.getI32Type(), args[0]);
        Value sum = arith::AddIOp::create(b, nested, args[1], whole);
        linalg::YieldOp::create(b, nested, sum);
      });
  return add.getResult(0);
}

/// Rewrites `op` as described in the file comment: with AVX-512 VNNI dot
/// products when the target has them and the factors are unsigned times
/// signed bytes, else as f32 contractions. Fails, leaving it alone, when it
/// is no i32 multiply-add contraction with one static K loop and bounded
/// factors.
static LogicalResult rewriteContraction(RewriterBase &rewriter,
                                        linalg::LinalgOp op,
                                        const CPUTarget &target) {
  if (!isIntegerContraction(op))
    return failure();
  if (supportsU8S8Contraction(op, target)) {
    FailureOr<ByteContraction> operands =
        matchByteContraction(rewriter, op, target);
    if (succeeded(operands) &&
        succeeded(emitU8S8Contraction(rewriter, op, *operands, target)))
      return success();
  }
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->k.size() != 1)
    return failure();
  unsigned kLoop = dims->k.front();
  int64_t depth = op.getStaticLoopRanges()[kLoop];
  if (ShapedType::isDynamic(depth))
    return failure();
  Value lhs = op.getDpsInputOperand(0)->get();
  Value rhs = op.getDpsInputOperand(1)->get();
  auto a = boundedProducer(lhs), b = boundedProducer(rhs);
  if (!a || !b)
    return failure();
  int64_t largest = a->second.maxAbs() * b->second.maxAbs();
  if (largest == 0 || largest > kExactF32)
    return failure();
  // Terms per chunk: no partial sum of f32 products passes 2^24; whole
  // register-block depths when that allows (u8 - za times i8 - zb: 258
  // terms, so 256).
  int64_t chunk = kExactF32 / largest;
  if (chunk >= 2 * kChunkAlignment)
    chunk -= chunk % kChunkAlignment;
  chunk = std::min(depth, chunk);

  Location loc = op.getLoc();
  Value lhsF32 = cloneAsF32(rewriter, a->first, lhs);
  Value rhsF32 = cloneAsF32(rewriter, b->first, rhs);
  rewriter.setInsertionPoint(op);
  Value init = op.getDpsInitOperand(0)->get();
  Value zero =
      arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0.0f));
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  Value result = init;
  SmallVector<Value, 2> factors = {lhsF32, rhsF32};
  for (int64_t start = 0; start < depth; start += chunk) {
    int64_t size = std::min(chunk, depth - start);
    // Each input's slice of K (the operand dimension its map reads K in).
    SmallVector<Value> inputs;
    for (auto [index, input] : llvm::enumerate(factors)) {
      if (size == depth) {
        inputs.push_back(input);
        continue;
      }
      AffineMap map = maps[index];
      auto type = cast<RankedTensorType>(input.getType());
      SmallVector<OpFoldResult> offsets(type.getRank(),
                                        rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes =
          tensor::getMixedSizes(rewriter, loc, input);
      SmallVector<OpFoldResult> strides(type.getRank(),
                                        rewriter.getIndexAttr(1));
      for (auto [d, expr] : llvm::enumerate(map.getResults()))
        if (expr == rewriter.getAffineDimExpr(kLoop)) {
          offsets[d] = rewriter.getIndexAttr(start);
          sizes[d] = rewriter.getIndexAttr(size);
        }
      inputs.push_back(tensor::ExtractSliceOp::create(rewriter, loc, input,
                                                      offsets, sizes, strides));
    }
    Value empty = tensor::EmptyOp::create(
        rewriter, loc, tensor::getMixedSizes(rewriter, loc, init),
        rewriter.getF32Type());
    Value filled =
        linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
    auto part = linalg::GenericOp::create(
        rewriter, loc, filled.getType(), inputs, filled, maps,
        op.getIteratorTypesArray(),
        [&](OpBuilder &builder, Location nested, ValueRange args) {
          Value product =
              arith::MulFOp::create(builder, nested, args[0], args[1]);
          Value sum = arith::AddFOp::create(builder, nested, args[2], product);
          linalg::YieldOp::create(builder, nested, sum);
        });
    result = accumulateInI32(rewriter, loc, result, part.getResult(0));
  }
  rewriter.replaceOp(op, result);
  return success();
}

namespace {
struct IntegerContractionsToF32Pass
    : public mlprog::impl::IntegerContractionsToF32PassBase<
          IntegerContractionsToF32Pass> {
  using Base::Base;

  void runOnOperation() override {
    CPUTarget target = CPUTarget::getForFeatures(targetFeatures);
    // Generics and named ops (linalg.matmul of i32 operands) alike.
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.getNumReductionLoops() == 1)
        candidates.push_back(op);
    });
    // A byte product may compute another one with it (the two products a
    // residual block's epilogue adds) and erase it.
    struct Erasures : public RewriterBase::Listener {
      llvm::DenseSet<Operation *> erased;
      void notifyOperationErased(Operation *op) override { erased.insert(op); }
    } erasures;
    IRRewriter rewriter(&getContext(), &erasures);
    // The first of two products an epilogue adds waits for the second,
    // which computes both: by then the producers of both products'
    // operands are rewritten (a requantization widened for the product is
    // read as bytes in place, not cloned, which would leave the earlier
    // convolution's epilogue read twice and unfused).
    SmallVector<linalg::LinalgOp> deferred;
    for (linalg::LinalgOp op : candidates) {
      if (erasures.erased.contains(op))
        continue;
      auto type = op->getNumResults() == 1
                      ? dyn_cast<RankedTensorType>(op->getResult(0).getType())
                      : RankedTensorType();
      std::optional<ByteProductEpilogue> epilogue =
          type && type.getRank() == 2 ? matchByteProductEpilogue(op)
                                      : std::nullopt;
      if (epilogue && epilogue->other &&
          op->getBlock() == epilogue->other->getBlock() &&
          op->isBeforeInBlock(epilogue->other)) {
        deferred.push_back(op);
        continue;
      }
      (void)rewriteContraction(rewriter, op, target);
    }
    for (linalg::LinalgOp op : deferred)
      if (!erasures.erased.contains(op))
        (void)rewriteContraction(rewriter, op, target);
  }
};
} // namespace
