//===- ExpandMath.cpp - Math without libdevice ----------------------------===//
//
// Implements --mlprog-gpu-expand-math: math functions that GPU-to-NVVM would
// turn into libdevice calls become PTX instructions, LLVM intrinsics,
// sign-bit arithmetic or polynomial approximations.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlprog {
#define GEN_PASS_DEF_EXPANDMATHPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;

/// Applies the PTX instruction `f32Inst`/`f64Inst` (e.g. "cvt.rmi.f32.f32")
/// to a scalar float through inline assembly; f16/bf16 go through f32.
/// GPU-to-NVVM would turn math.floor/sqrt/... into calls to libdevice's
/// __nv_* functions (and marks the LLVM intrinsics illegal), so kernels get
/// the instructions directly.
static Value applyPTX(OpBuilder &builder, Location loc, StringRef f32Inst,
                      StringRef f64Inst, Value x) {
  Type type = x.getType();
  if (!type.isF32() && !type.isF64()) {
    Value wide = arith::ExtFOp::create(builder, loc, builder.getF32Type(), x);
    Value result = applyPTX(builder, loc, f32Inst, f64Inst, wide);
    return arith::TruncFOp::create(builder, loc, type, result);
  }
  bool isF64 = type.isF64();
  std::string text = ((isF64 ? f64Inst : f32Inst) + " $0, $1;").str();
  auto op = LLVM::InlineAsmOp::create(
      builder, loc, type, ValueRange{x}, builder.getStringAttr(text),
      builder.getStringAttr(isF64 ? "=d,d" : "=f,f"),
      /*has_side_effects=*/UnitAttr(), /*is_align_stack=*/UnitAttr(),
      LLVM::TailCallKindAttr::get(builder.getContext(),
                                  LLVM::tailcallkind::TailCallKind::None),
      LLVM::AsmDialectAttr(), ArrayAttr());
  return op.getResult(0);
}

/// The scalar float types the kernel rewrites handle: f16, bf16, f32, f64.
static bool isScalarPTXFloat(Type type) {
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64();
}

namespace {
/// math.floor/ceil/roundeven/sqrt → one PTX instruction.
template <typename MathOp> struct MathToPTX : public OpRewritePattern<MathOp> {
  MathToPTX(MLIRContext *context, StringRef f32Inst, StringRef f64Inst)
      : OpRewritePattern<MathOp>(context, /*benefit=*/2), f32Inst(f32Inst),
        f64Inst(f64Inst) {}
  LogicalResult matchAndRewrite(MathOp op,
                                PatternRewriter &rewriter) const override {
    if (!isScalarPTXFloat(op.getType()) ||
        !op->template getParentOfType<gpu::GPUModuleOp>())
      return rewriter.notifyMatchFailure(op, "not a scalar float in a kernel");
    rewriter.replaceOp(op, applyPTX(rewriter, op.getLoc(), f32Inst, f64Inst,
                                    op->getOperand(0)));
    return success();
  }
  std::string f32Inst, f64Inst;
};

/// math.X → an LLVM intrinsic that GPU-to-NVVM keeps (trunc, fma), in
/// kernels.
template <typename MathOp, typename IntrinsicOp>
struct MathToIntrinsic : public OpRewritePattern<MathOp> {
  MathToIntrinsic(MLIRContext *context)
      : OpRewritePattern<MathOp>(context, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(MathOp op,
                                PatternRewriter &rewriter) const override {
    if (!isScalarPTXFloat(op.getType()) ||
        !op->template getParentOfType<gpu::GPUModuleOp>())
      return rewriter.notifyMatchFailure(op, "not a scalar float in a kernel");
    rewriter.replaceOpWithNewOp<IntrinsicOp>(op, op.getType(),
                                             op->getOperands());
    return success();
  }
};

/// Kernel-side rewrites of math ops whose NVVM lowering calls libdevice:
/// absf and copysign as sign-bit arithmetic, round as trunc plus a
/// correction, rsqrt as 1 / sqrt, the rest as PTX instructions.
struct KernelMathPattern : public RewritePattern {
  explicit KernelMathPattern(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/2, context) {}
  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<math::AbsFOp, math::CopySignOp, math::RoundOp, math::RsqrtOp>(
            op) ||
        op->getNumResults() != 1 ||
        !isScalarPTXFloat(op->getResult(0).getType()) ||
        !op->getParentOfType<gpu::GPUModuleOp>())
      return failure();
    Location loc = op->getLoc();
    auto type = cast<FloatType>(op->getResult(0).getType());
    unsigned width = type.getWidth();
    auto intType = rewriter.getIntegerType(width);
    auto bits = [&](Value v) {
      return arith::BitcastOp::create(rewriter, loc, intType, v).getResult();
    };
    auto intConst = [&](APInt value) {
      return arith::ConstantOp::create(rewriter, loc,
                                       rewriter.getIntegerAttr(intType, value))
          .getResult();
    };
    APInt signBit = APInt::getSignMask(width);
    Value x = op->getOperand(0);
    Value result;
    if (isa<math::AbsFOp>(op)) {
      Value masked =
          arith::AndIOp::create(rewriter, loc, bits(x), intConst(~signBit));
      result = arith::BitcastOp::create(rewriter, loc, type, masked);
    } else if (isa<math::CopySignOp>(op)) {
      Value magnitude =
          arith::AndIOp::create(rewriter, loc, bits(x), intConst(~signBit));
      Value sign = arith::AndIOp::create(rewriter, loc, bits(op->getOperand(1)),
                                         intConst(signBit));
      Value merged = arith::OrIOp::create(rewriter, loc, magnitude, sign);
      result = arith::BitcastOp::create(rewriter, loc, type, merged);
    } else if (isa<math::RoundOp>(op)) {
      // Half away from zero: t = trunc(x); t + copysign(|x - t| >= 0.5, x).
      Value truncated = LLVM::FTruncOp::create(rewriter, loc, type, x);
      Value diff = arith::SubFOp::create(rewriter, loc, x, truncated);
      Value absDiff = math::AbsFOp::create(rewriter, loc, diff);
      Value half = arith::ConstantOp::create(rewriter, loc,
                                             rewriter.getFloatAttr(type, 0.5));
      Value one = arith::ConstantOp::create(rewriter, loc,
                                            rewriter.getFloatAttr(type, 1.0));
      Value zero = arith::ConstantOp::create(rewriter, loc,
                                             rewriter.getFloatAttr(type, 0.0));
      Value up = arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OGE,
                                       absDiff, half);
      Value step = arith::SelectOp::create(rewriter, loc, up, one, zero);
      Value signed_ = math::CopySignOp::create(rewriter, loc, step, x);
      result = arith::AddFOp::create(rewriter, loc, truncated, signed_);
    } else {
      Value sqrt = math::SqrtOp::create(rewriter, loc, x);
      Value one = arith::ConstantOp::create(rewriter, loc,
                                            rewriter.getFloatAttr(type, 1.0));
      result = arith::DivFOp::create(rewriter, loc, one, sqrt);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct ExpandMathPass
    : public mlprog::impl::ExpandMathPassBase<ExpandMathPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Keep the ops NVPTX has instructions for (sqrt, rsqrt, abs, floor,
    // ...). Upstream passes operation names ("math.rsqrt"); its rsqrt
    // "approximation" is an x86 AVX2 intrinsic, never right for a GPU.
    auto approximate = [](StringRef name) {
      name.consume_front("math.");
      return !llvm::is_contained({"sqrt", "rsqrt"}, name);
    };
    MLIRContext *context = &getContext();
    patterns
        .add<KernelMathPattern, MathToIntrinsic<math::TruncOp, LLVM::FTruncOp>,
             MathToIntrinsic<math::FmaOp, LLVM::FMAOp>>(context);
    patterns.add<MathToPTX<math::FloorOp>>(context, "cvt.rmi.f32.f32",
                                           "cvt.rmi.f64.f64");
    patterns.add<MathToPTX<math::CeilOp>>(context, "cvt.rpi.f32.f32",
                                          "cvt.rpi.f64.f64");
    patterns.add<MathToPTX<math::RoundEvenOp>>(context, "cvt.rni.f32.f32",
                                               "cvt.rni.f64.f64");
    patterns.add<MathToPTX<math::SqrtOp>>(context, "sqrt.rn.f32",
                                          "sqrt.rn.f64");
    math::populateExpansionPatterns(patterns);
    populateMathF32ExpansionPatterns(patterns, approximate);
    populateMathPolynomialApproximationPatterns(patterns, approximate);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
