//===- ApproximateMath.cpp - Vector math without scalar libm calls --------===//
//
// --mlprog-approximate-math: transcendental functions on f32 vectors become
// polynomial approximations (upstream's math patterns), which stay vector
// code; the libm lowering would call the scalar function once per lane.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlprog {
#define GEN_PASS_DEF_APPROXIMATEMATHPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;

/// The math ops this pass approximates, by name (`math.erf`) or mnemonic.
static bool isApproximated(StringRef name) {
  name.consume_front("math.");
  return llvm::is_contained(
      {"erf", "exp", "expm1", "tanh", "log", "log1p", "log2", "sin", "cos"},
      name);
}

namespace {
/// math.fma on vectors -> vector.fma, which lowers to LLVM's fma intrinsic
/// on the whole vector (the libm lowering would call fmaf per lane).
struct VectorFma : public OpRewritePattern<math::FmaOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::FmaOp op,
                                PatternRewriter &rewriter) const override {
    if (!isa<VectorType>(op.getType()))
      return rewriter.notifyMatchFailure(op, "not a vector");
    rewriter.replaceOpWithNewOp<vector::FMAOp>(op, op.getA(), op.getB(),
                                               op.getC());
    return success();
  }
};

/// A rounding function (floor, ceil, ...) on a 1-D vector -> the LLVM
/// intrinsic on the whole vector (one instruction with SSE4.1/AVX-512); the
/// libm lowering would call floorf per lane. The approximations use floor
/// for their range reduction.
template <typename MathOp, typename IntrinsicOp>
struct VectorRounding : public OpRewritePattern<MathOp> {
  using OpRewritePattern<MathOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(MathOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<VectorType>(op.getType());
    if (!type || type.getRank() != 1 || type.isScalable())
      return rewriter.notifyMatchFailure(op, "not a fixed 1-D vector");
    rewriter.replaceOpWithNewOp<IntrinsicOp>(op, type, op.getOperand());
    return success();
  }
};

/// The exponent `value` holds when it is the constant 2.0, 3.0 or 4.0 (a
/// splat on vectors); nullopt otherwise.
static std::optional<int> getSmallIntegerExponent(Value value) {
  std::optional<APFloat> exponent;
  FloatAttr splat;
  DenseFPElementsAttr dense;
  if (matchPattern(value, m_Constant(&splat)))
    exponent = splat.getValue();
  else if (matchPattern(value, m_Constant(&dense)) && dense.isSplat())
    exponent = dense.getSplatValue<APFloat>();
  if (!exponent)
    return std::nullopt;
  for (int n : {2, 3, 4})
    if (exponent->isExactlyValue(n))
      return n;
  return std::nullopt;
}

/// math.powf(x, n) on vectors for n = 2, 3, 4 -> products of x: x * x is
/// the correctly rounded square (a layer norm's variance); x * x * x is
/// what onnxruntime computes for Pow(x, 3) (GPT-2's GELU), within an ulp
/// or two of powf; x^4 = (x * x) * (x * x). Without this, the libm
/// lowering calls powf once per lane.
struct VectorIntegerPower : public OpRewritePattern<math::PowFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::PowFOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<int> n = getSmallIntegerExponent(op.getRhs());
    if (!isa<VectorType>(op.getType()) || !n)
      return rewriter.notifyMatchFailure(op, "not a small vector power");
    Value x = op.getLhs();
    Value square = arith::MulFOp::create(rewriter, op.getLoc(), x, x);
    Value result = square;
    if (*n == 3)
      result = arith::MulFOp::create(rewriter, op.getLoc(), square, x);
    if (*n == 4)
      result = arith::MulFOp::create(rewriter, op.getLoc(), square, square);
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

/// Whether `op` is one this pass rewrites: an approximated function or a
/// rounding function on f32 vectors.
static bool isRewritten(Operation *op) {
  if (!isa<math::MathDialect>(op->getDialect()) || op->getNumResults() != 1)
    return false;
  auto type = dyn_cast<VectorType>(op->getResult(0).getType());
  if (!type || !type.getElementType().isF32())
    return false;
  if (auto pow = dyn_cast<math::PowFOp>(op))
    return getSmallIntegerExponent(pow.getRhs()).has_value();
  return isApproximated(op->getName().getStringRef()) ||
         isa<math::FloorOp, math::CeilOp, math::TruncOp, math::RoundEvenOp,
             math::FmaOp>(op);
}

namespace {
/// Polynomial approximations of transcendental functions on f32 vectors.
struct ApproximateMathPass
    : public mlprog::impl::ApproximateMathPassBase<ApproximateMathPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isRewritten(op))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns, isApproximated);
    patterns.add<VectorFma, VectorIntegerPower,
                 VectorRounding<math::FloorOp, LLVM::FFloorOp>,
                 VectorRounding<math::CeilOp, LLVM::FCeilOp>,
                 VectorRounding<math::TruncOp, LLVM::FTruncOp>,
                 VectorRounding<math::RoundEvenOp, LLVM::RoundEvenOp>>(
        &getContext());
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    if (failed(applyOpPatternsGreedily(ops, std::move(patterns), config)))
      return signalPassFailure();
  }
};
} // namespace
