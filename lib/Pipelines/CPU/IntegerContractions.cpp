//===- IntegerContractions.cpp - 8-bit contractions as exact f32 ones -----===//
//
// --mlprog-integer-contractions-to-f32: a quantized matrix product (ONNX
// MatMulInteger, DynamicQuantizeMatMul, QLinearMatMul; the importers'
// integer contraction) is an i32 contraction of 8-bit values widened and
// shifted by their zero points:
//
//   C[m, n] += (a[m, k] - za) * (b[k, n] - zb)        (i32)
//
// The CPU code generation blocks, packs and vectorizes f32 contractions only;
// an i32 one was scalar loops (a quantized BERT-base took 10x onnxruntime's
// time, and 10x our own float model's). Every such product is exact in f32:
// its factors are integers of at most 9 bits and their products of at most
// 17, and a sum of f32 integers is exact while it stays within 2^24. So the
// contraction is computed as f32 contractions over chunks of K short enough
// that no partial sum can pass 2^24 (for u8 - za times i8: 514 terms), each
// converted to i32 and added to C in i32: the same result, bit for bit, at
// the speed of the f32 code generation.
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
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Matchers.h"

#include <algorithm>

namespace mlprog {
#define GEN_PASS_DEF_INTEGERCONTRACTIONSTOF32PASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;
using namespace mlprog;

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
  unsigned bits = type.getIntOrFloatBitWidth();
  if (!type.isInteger() || bits > 16)
    return std::nullopt;
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

/// A clone of `producer` (elementwise, one result) whose body converts what
/// it yields to f32 (arith.sitofp): the operand's values as exact floats.
static Value cloneAsF32(RewriterBase &rewriter, linalg::GenericOp producer,
                        Value operand) {
  Location loc = producer.getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(producer);
  Value init = producer.getDpsInitOperand(0)->get();
  Value empty = tensor::EmptyOp::create(
      rewriter, loc, tensor::getMixedSizes(rewriter, loc, init),
      rewriter.getF32Type());
  auto clone = linalg::GenericOp::create(
      rewriter, loc, empty.getType(), producer.getDpsInputs(), empty,
      producer.getIndexingMapsArray(), producer.getIteratorTypesArray());
  IRMapping mapping;
  Block *body = producer.getBody();
  Block *block = rewriter.createBlock(
      &clone.getRegion(), clone.getRegion().end(), body->getArgumentTypes(),
      SmallVector<Location>(body->getNumArguments(), loc));
  // The output block argument is f32 now; the body never read it (an
  // elementwise producer writes a fresh tensor).
  block->getArgument(body->getNumArguments() - 1)
      .setType(rewriter.getF32Type());
  mapping.map(body->getArguments(), block->getArguments());
  rewriter.setInsertionPointToStart(block);
  for (Operation &op : body->without_terminator())
    rewriter.clone(op, mapping);
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  Value converted =
      arith::SIToFPOp::create(rewriter, loc, rewriter.getF32Type(),
                              mapping.lookup(yield.getOperand(0)));
  linalg::YieldOp::create(rewriter, loc, converted);
  // The contraction read `operand`, possibly a slice or reshape of the
  // producer's result: read the same view of the f32 values.
  SmallVector<Operation *> views;
  for (Value v = operand; v != producer.getResult(0);
       v = v.getDefiningOp()->getOperand(0))
    views.push_back(v.getDefiningOp());
  Value result = clone.getResult(0);
  for (Operation *view : llvm::reverse(views)) {
    rewriter.setInsertionPointAfter(view);
    IRMapping viewMapping;
    viewMapping.map(view->getOperand(0), result);
    Operation *copy = rewriter.clone(*view, viewMapping);
    auto type = cast<RankedTensorType>(copy->getResult(0).getType());
    copy->getResult(0).setType(type.clone(rewriter.getF32Type()));
    result = copy->getResult(0);
  }
  return result;
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

/// Rewrites `op` as described in the file comment. Fails, leaving it alone,
/// when it is no i32 multiply-add contraction with one static K loop and
/// bounded factors.
static LogicalResult rewriteAsF32(RewriterBase &rewriter, linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op) ||
      !isIntegerMultiplyAdd(op))
    return failure();
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
  void runOnOperation() override {
    // Generics and named ops (linalg.matmul of i32 operands) alike.
    SmallVector<linalg::LinalgOp> candidates;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.getNumReductionLoops() == 1)
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : candidates)
      (void)rewriteAsF32(rewriter, op);
  }
};
} // namespace
