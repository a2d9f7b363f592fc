//===- FuseElementwiseOps.cpp - Elementwise fusion without recomputation --===//
//
// --mlprog-fuse-elementwise-ops: linalg's elementwise fusion on tensors,
// restricted to fusions that compute every produced element once (see the
// pass description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlprog {
#define GEN_PASS_DEF_FUSEELEMENTWISEOPSPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;

/// Whether fusing the producer of `fused` into its consumer computes each of
/// the producer's elements once: the producer has no other use and the
/// consumer reads it through a permutation of all its loops.
static bool fusesWithoutRecomputation(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  if (!producer || !producer->hasOneUse())
    return false;
  auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
  if (!consumer)
    return true;
  return consumer.getMatchingIndexingMap(fused).isPermutation();
}

/// Whether the producer of `fused` has no other use (constant folding).
static bool hasSingleUseProducer(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  return producer && producer->hasOneUse();
}

/// Whether `op` is a linalg op with a reduction loop.
static bool hasReductionLoop(Operation *op) {
  auto linalgOp = dyn_cast_if_present<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumReductionLoops() > 0;
}

/// Whether a reshape may move through the linalg op at either end of
/// `fused` by expanding its loops: only through all-parallel ops. Expanding
/// a contraction splits its loops (the K of `[s, h * d] x [h * d, n]` into h
/// and d after an attention head merge), which the contraction code
/// generation handles worse than the single loop, for no gain.
static bool propagatesReshape(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  return producer && producer->hasOneUse() &&
         !hasReductionLoop(fused->getOwner()) && !hasReductionLoop(producer);
}

namespace {
/// A scalar read from a constant global (an ONNX initializer such as Pow's
/// exponent 2 or LayerNorm's epsilon) as an arith.constant, which
/// InlineSplatInputs moves into the generics that read it and the
/// math simplifications then use (`powf(x, 2)` becomes `x * x`: a libm
/// powf call per element was 11% of a BERT-base's time).
struct ScalarGlobalAsConstant : OpRewritePattern<bufferization::ToTensorOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(bufferization::ToTensorOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    auto getGlobal = op.getBuffer().getDefiningOp<memref::GetGlobalOp>();
    if (!type || !type.hasStaticShape() || type.getNumElements() != 1 ||
        !getGlobal)
      return failure();
    auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
        getGlobal, getGlobal.getNameAttr());
    if (!global || !global.getConstant() || !global.getInitialValue())
      return failure();
    auto value = dyn_cast<DenseElementsAttr>(*global.getInitialValue());
    if (!value)
      return failure();
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, value.reshape(type));
    return success();
  }
};

/// A generic input that is a splat constant (of any shape: every element
/// the same) becomes that scalar in the body, as an arith.constant, and
/// leaves the operands. (Upstream's populateInlineConstantOperandsPatterns
/// also moves computed scalars into the body, as tensor.extract per
/// element, which the vectorization of generics does not take.)
struct InlineSplatInputs : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics())
      return failure();
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    SmallVector<std::pair<unsigned, TypedAttr>> splats;
    for (OpOperand *input : op.getDpsInputOperands()) {
      DenseElementsAttr value;
      if (matchPattern(input->get(), m_Constant(&value)) && value.isSplat() &&
          value.getElementType().isIntOrFloat()) {
        splats.emplace_back(input->getOperandNumber(),
                            value.getSplatValue<TypedAttr>());
        continue;
      }
      inputs.push_back(input->get());
      maps.push_back(op.getMatchingIndexingMap(input));
    }
    if (splats.empty())
      return failure();
    for (OpOperand &init : op.getDpsInitsMutable())
      maps.push_back(op.getMatchingIndexingMap(&init));
    // The loop ranges must still follow from the operands left (a splat
    // read along loops that only a reduction's scalar output has besides).
    if (!inversePermutation(concatAffineMaps(maps, op.getContext())))
      return failure();
    auto inlined = linalg::GenericOp::create(
        rewriter, op.getLoc(), op.getResultTypes(), inputs, op.getDpsInits(),
        maps, op.getIteratorTypesArray());
    rewriter.inlineRegionBefore(op.getRegion(), inlined.getRegion(),
                                inlined.getRegion().begin());
    Block *body = inlined.getBody();
    rewriter.setInsertionPointToStart(body);
    for (auto [number, value] : llvm::reverse(splats)) {
      Value scalar = arith::ConstantOp::create(rewriter, op.getLoc(), value);
      rewriter.replaceAllUsesWith(body->getArgument(number), scalar);
      body->eraseArgument(number);
    }
    rewriter.replaceOp(op, inlined.getResults());
    return success();
  }
};

/// The range [lo, hi] of `value` when it is known to hold only integers
/// (or NaN), in f32: a constant, a rounding (math.roundeven and kin), an
/// integer converted, and sums, differences, maxima and minima of such. (A
/// sum of two integral floats rounds to an integral float: exact below
/// 2^24, and every float above that is an integer.) Nothing otherwise.
static std::optional<std::pair<double, double>> integralRange(Value value,
                                                              int depth = 0) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  APFloat constant(0.0f);
  if (matchPattern(value, m_ConstantFloat(&constant))) {
    double c = constant.convertToDouble();
    if (c != std::trunc(c))
      return std::nullopt;
    return std::make_pair(c, c);
  }
  Operation *op = value.getDefiningOp();
  if (!op || depth > 8)
    return std::nullopt;
  if (isa<math::RoundEvenOp, math::RoundOp, math::FloorOp, math::CeilOp,
          math::TruncOp>(op))
    return std::make_pair(-inf, inf);
  if (isa<arith::SIToFPOp, arith::UIToFPOp>(op)) {
    auto type = cast<IntegerType>(getElementTypeOrSelf(op->getOperand(0)));
    unsigned width = type.getWidth();
    if (isa<arith::UIToFPOp>(op))
      return std::make_pair(0.0, std::ldexp(1.0, width) - 1);
    return std::make_pair(-std::ldexp(1.0, width - 1),
                          std::ldexp(1.0, width - 1) - 1);
  }
  if (!isa<arith::AddFOp, arith::SubFOp, arith::MaxNumFOp, arith::MaximumFOp,
           arith::MinNumFOp, arith::MinimumFOp>(op))
    return std::nullopt;
  auto a = integralRange(op->getOperand(0), depth + 1);
  auto b = integralRange(op->getOperand(1), depth + 1);
  if (!a || !b)
    return std::nullopt;
  if (isa<arith::AddFOp>(op))
    return std::make_pair(a->first + b->first, a->second + b->second);
  if (isa<arith::SubFOp>(op))
    return std::make_pair(a->first - b->second, a->second - b->first);
  if (isa<arith::MaxNumFOp, arith::MaximumFOp>(op))
    return std::make_pair(std::max(a->first, b->first),
                          std::max(a->second, b->second));
  return std::make_pair(std::min(a->first, b->first),
                        std::min(a->second, b->second));
}

/// Whether the integer `value` is below 2^24 in magnitude (exact in f32):
/// a constant, or an extension of at most 16 bits.
static bool isSmallInteger(Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return constant.getSignificantBits() <= 24;
  Operation *ext = value.getDefiningOp();
  return isa_and_present<arith::ExtUIOp, arith::ExtSIOp>(ext) &&
         getElementTypeOrSelf(ext->getOperand(0)).getIntOrFloatBitWidth() <= 16;
}

/// `sitofp(ext(fptoi(t)) - z)` as `t - sitofp(z)` (`t` without z) when `t`
/// is an f32 holding integers within the range of fptoi's 8- or 16-bit
/// result, and z a small integer: a QuantizeLinear (rounded, offset by its
/// zero point and clamped to the byte range) read back by a
/// DequantizeLinear in the same fused generic (a QDQ residual add), whose
/// float to byte to float round trip is then the identity. Exact.
struct ElideIntegerRoundTrip : OpRewritePattern<arith::SIToFPOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::SIToFPOp op,
                                PatternRewriter &rewriter) const override {
    Value in = op.getIn(), zero;
    if (auto sub = in.getDefiningOp<arith::SubIOp>()) {
      in = sub.getLhs();
      zero = sub.getRhs();
      if (!isSmallInteger(zero))
        return failure();
    }
    Operation *ext = in.getDefiningOp();
    Operation *toInteger = ext ? ext->getOperand(0).getDefiningOp() : nullptr;
    bool isUnsigned = isa_and_present<arith::ExtUIOp>(ext) &&
                      isa_and_present<arith::FPToUIOp>(toInteger);
    bool isSigned = isa_and_present<arith::ExtSIOp>(ext) &&
                    isa_and_present<arith::FPToSIOp>(toInteger);
    if (!isUnsigned && !isSigned)
      return failure();
    Value t = toInteger->getOperand(0);
    unsigned width = getElementTypeOrSelf(toInteger->getResult(0).getType())
                         .getIntOrFloatBitWidth();
    if (width > 16 || t.getType() != op.getType() ||
        !getElementTypeOrSelf(t).isF32())
      return failure();
    double lo = isUnsigned ? 0.0 : -std::ldexp(1.0, width - 1);
    double hi = isUnsigned ? std::ldexp(1.0, width) - 1
                           : std::ldexp(1.0, width - 1) - 1;
    auto range = integralRange(t);
    if (!range || range->first < lo || range->second > hi)
      return failure();
    Value result = t;
    if (zero)
      result = arith::SubFOp::create(
          rewriter, op.getLoc(), t,
          arith::SIToFPOp::create(rewriter, op.getLoc(), op.getType(), zero));
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Elementwise fusion that never recomputes a produced element.
struct FuseElementwiseOpsPass
    : public mlprog::impl::FuseElementwiseOpsPassBase<FuseElementwiseOpsPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    linalg::populateElementwiseOpsFusionPatterns(patterns,
                                                 fusesWithoutRecomputation);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns,
                                                      propagatesReshape);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, context);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, context);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, context);
    context->getLoadedDialect<linalg::LinalgDialect>()
        ->getCanonicalizationPatterns(patterns);
    linalg::populateConstantFoldLinalgOperations(patterns,
                                                 hasSingleUseProducer);
    patterns
        .add<ScalarGlobalAsConstant, InlineSplatInputs, ElideIntegerRoundTrip>(
            context);
    populateMathAlgebraicSimplificationPatterns(patterns);
    // The simplifications write powf(x, -0.5) as rsqrt, which has no libm
    // function (at -O0 the CPU pipeline calls libm): 1 / sqrt(x).
    math::populateExpansionPatterns(patterns, {"rsqrt"});
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
