//===- GPUPipeline.cpp - The mlprog NVIDIA GPU pipeline -------------------===//
//
// --mlprog-lower-to-gpu: see GPUPipeline.h for the steps. The passes defined
// here are the glue between upstream's pieces: device-accessible globals and
// buffers, one-dimensional tiling of parallel loops into blocks × threads,
// math expansion (no libdevice), and a final check of the PTX.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/GPUPipeline.h"
#include "mlprog/Conversion/Passes.h"
#include "mlprog/Dialect/MLProgram/Transforms/Passes.h"
#include "mlprog/Pipelines/Pipelines.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSet.h"

#include <numeric>

using namespace mlir;

namespace {

/// Kernels cannot read a global's host memory (.rodata, or a memory-mapped
/// weights file). Every constant global a host function uses is copied once,
/// at the function's entry, into a buffer that the later alloc conversion
/// makes device-accessible, and freed before each return. Mutable globals
/// would need their state to live in device memory between calls; they are
/// rejected for now.
struct DeviceGlobalsPass
    : public PassWrapper<DeviceGlobalsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DeviceGlobalsPass)
  StringRef getArgument() const final { return "mlprog-gpu-device-globals"; }
  StringRef getDescription() const final {
    return "Copy constant globals used by host functions into buffers the "
           "GPU can read";
  }

  void runOnOperation() override {
    SymbolTable symbols(getOperation());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      SmallVector<memref::GetGlobalOp> gets;
      func.walk([&](memref::GetGlobalOp op) { gets.push_back(op); });
      if (gets.empty())
        continue;
      SmallVector<func::ReturnOp> returns;
      func.walk([&](func::ReturnOp op) { returns.push_back(op); });
      llvm::DenseMap<StringAttr, Value> copies;
      OpBuilder builder(func.getBody());
      for (memref::GetGlobalOp get : gets) {
        auto global = symbols.lookup<memref::GlobalOp>(get.getName());
        if (!global)
          continue;
        if (!global.getConstant()) {
          get.emitError("mutable global @")
              << get.getName()
              << " is not supported by --mlprog-lower-to-gpu yet (its state "
                 "would have to live in device memory across calls)";
          return signalPassFailure();
        }
        Value &copy = copies[get.getNameAttr().getAttr()];
        if (!copy) {
          auto type = cast<MemRefType>(get.getType());
          builder.setInsertionPointToStart(&func.getBody().front());
          Value source = memref::GetGlobalOp::create(builder, get.getLoc(),
                                                     type, get.getName());
          auto bufferType =
              MemRefType::get(type.getShape(), type.getElementType());
          copy = memref::AllocOp::create(builder, get.getLoc(), bufferType);
          memref::CopyOp::create(builder, get.getLoc(), source, copy);
          for (func::ReturnOp ret : returns) {
            builder.setInsertionPoint(ret);
            memref::DeallocOp::create(builder, get.getLoc(), copy);
          }
        }
        if (copy.getType() != get.getType()) {
          OpBuilder castBuilder(get);
          copy = memref::CastOp::create(castBuilder, get.getLoc(),
                                        get.getType(), copy);
        }
        get.replaceAllUsesWith(copy);
        get.erase();
      }
    }
  }
};

/// Turns every outermost scf.parallel into blocks × threads: its dimensions
/// are collapsed into one, which is tiled by `blockSize` with constant inner
/// bounds (and a guard), so that gpu-map-parallel-loops maps the tile loop
/// to the grid and the inner loop to the threads of a block.
struct TileParallelLoopsPass
    : public PassWrapper<TileParallelLoopsPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TileParallelLoopsPass)
  TileParallelLoopsPass() = default;
  TileParallelLoopsPass(const TileParallelLoopsPass &other)
      : PassWrapper(other) {}
  explicit TileParallelLoopsPass(int64_t size) { blockSize = size; }
  StringRef getArgument() const final { return "mlprog-gpu-tile-parallel"; }
  StringRef getDescription() const final {
    return "Collapse outermost scf.parallel loops to one dimension and tile "
           "them by the thread-block size";
  }

  Option<int64_t> blockSize{*this, "block-size",
                            llvm::cl::desc("Threads per block"),
                            llvm::cl::init(256)};

  static SmallVector<scf::ParallelOp> outermostLoops(ModuleOp module) {
    SmallVector<scf::ParallelOp> loops;
    for (auto func : module.getOps<func::FuncOp>())
      func.walk([&](scf::ParallelOp op) {
        if (!op->getParentOfType<scf::ParallelOp>())
          loops.push_back(op);
      });
    return loops;
  }

  void runOnOperation() override {
    if (blockSize <= 0 || blockSize > 1024) {
      getOperation().emitError("block-size must be in [1, 1024], got ")
          << blockSize;
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : outermostLoops(getOperation())) {
      if (loop.getNumLoops() < 2)
        continue;
      std::vector<unsigned> all(loop.getNumLoops());
      std::iota(all.begin(), all.end(), 0);
      rewriter.setInsertionPoint(loop);
      collapseParallelLoops(rewriter, loop, {all});
    }
    for (scf::ParallelOp loop : outermostLoops(getOperation()))
      scf::tileParallelLoop(loop, {blockSize.getValue()},
                            /*noMinMaxBounds=*/true);
  }
};

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

static bool isScalarPTXFloat(Type type) {
  return type.isF16() || type.isBF16() || type.isF32() || type.isF64();
}

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

/// Rewrites math functions that have no PTX instruction (exp, log, tanh,
/// erf, pow, ...) into arithmetic: upstream's expansions and f32 polynomial
/// approximations (f16/bf16 computed in f32). Without it the NVVM lowering
/// would call libdevice's __nv_* functions, which need the CUDA toolkit's
/// libdevice.bc at compile time. Applied to host code too, so that the host
/// needs no libm beyond what LLVM intrinsics lower to.
struct ExpandMathPass
    : public PassWrapper<ExpandMathPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ExpandMathPass)
  StringRef getArgument() const final { return "mlprog-gpu-expand-math"; }
  StringRef getDescription() const final {
    return "Expand and approximate math functions so kernels need no "
           "libdevice";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, math::MathDialect, scf::SCFDialect,
                    LLVM::LLVMDialect>();
  }
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Keep the ops NVPTX has instructions for (sqrt, rsqrt, abs, floor, ...).
    auto approximate = [](StringRef name) {
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

/// Host buffers become managed memory that kernels can read and write:
/// memref.alloc → gpu.alloc host_shared, memref.dealloc → a call to the
/// runtime's `mlprog_cuda_dealloc(i64 aligned pointer)` (upstream's
/// gpu.dealloc lowering only supports the async form).
struct HostAllocToGPUPass
    : public PassWrapper<HostAllocToGPUPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(HostAllocToGPUPass)
  StringRef getArgument() const final { return "mlprog-gpu-host-alloc"; }
  StringRef getDescription() const final {
    return "Allocate host buffers as managed memory (gpu.alloc host_shared)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<gpu::GPUDialect, arith::ArithDialect, func::FuncDialect>();
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    IRRewriter rewriter(context);
    bool needsDealloc = false;
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      func.walk([&](memref::AllocOp alloc) {
        rewriter.setInsertionPoint(alloc);
        auto replacement = gpu::AllocOp::create(
            rewriter, alloc.getLoc(), alloc.getType(), /*asyncToken=*/Type(),
            ValueRange(), alloc.getDynamicSizes(), alloc.getSymbolOperands(),
            /*hostShared=*/true);
        rewriter.replaceOp(alloc, replacement.getMemref());
      });
      func.walk([&](memref::DeallocOp dealloc) {
        rewriter.setInsertionPoint(dealloc);
        Location loc = dealloc.getLoc();
        Value index = memref::ExtractAlignedPointerAsIndexOp::create(
            rewriter, loc, dealloc.getMemref());
        Value pointer = arith::IndexCastOp::create(
            rewriter, loc, rewriter.getI64Type(), index);
        func::CallOp::create(rewriter, loc, mlprog::kCudaDeallocFunction,
                             TypeRange(), pointer);
        rewriter.eraseOp(dealloc);
        needsDealloc = true;
      });
    }
    if (needsDealloc && !module.lookupSymbol(mlprog::kCudaDeallocFunction)) {
      rewriter.setInsertionPointToEnd(module.getBody());
      auto decl = func::FuncOp::create(
          rewriter, module.getLoc(), mlprog::kCudaDeallocFunction,
          rewriter.getFunctionType({rewriter.getI64Type()}, {}));
      decl.setPrivate();
    }
  }
};

/// Fails when a kernel still calls a libdevice function (`__nv_*`): the
/// driver cannot load such PTX without linking libdevice, which mlprog does
/// not ship.
struct CheckPTXPass
    : public PassWrapper<CheckPTXPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CheckPTXPass)
  StringRef getArgument() const final { return "mlprog-gpu-check-ptx"; }
  StringRef getDescription() const final {
    return "Reject PTX that calls libdevice functions";
  }
  void runOnOperation() override {
    getOperation().walk([&](gpu::BinaryOp binary) {
      for (Attribute attr : binary.getObjects()) {
        auto object = dyn_cast<gpu::ObjectAttr>(attr);
        if (!object)
          continue;
        StringRef text = object.getObject().getValue();
        llvm::StringSet<> names;
        for (size_t pos = text.find("__nv_"); pos != StringRef::npos;
             pos = text.find("__nv_", pos + 1)) {
          size_t end = pos;
          while (end < text.size() && (isalnum(text[end]) || text[end] == '_'))
            ++end;
          names.insert(text.slice(pos, end));
        }
        if (names.empty())
          continue;
        std::string list;
        for (const auto &name : names)
          list += (list.empty() ? "" : ", ") + name.getKey().str();
        binary.emitError("kernels call libdevice functions (")
            << list
            << "), which mlprog cannot link; the math operation has no "
               "expansion for this element type";
        signalPassFailure();
      }
    });
  }
};

} // namespace

void mlprog::buildLowerToGPUPipeline(OpPassManager &pm,
                                     const LowerToGPUOptions &options) {
  // The tensor-level steps of the CPU pipeline.
  pm.addPass(createTopologicalSort());
  pm.addPass(createConvertMLProgramToMemRef());
  pm.addPass(createAnnotateEntryPointsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createConvertElementwiseToLinalgPass());
  pm.addPass(createLinalgElementwiseOpFusionPass());
  pm.addPass(createCSEPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.allowReturnAllocsFromLoops = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createCanonicalizerPass());
  bufferization::BufferDeallocationPipelineOptions dealloc;
  bufferization::buildBufferDeallocationPipeline(pm, dealloc);
  pm.addPass(createConvertBufferizationToMemRefPass());

  // Buffers the device can reach, then loops → kernels.
  pm.addPass(std::make_unique<DeviceGlobalsPass>());
  pm.addPass(createConvertLinalgToParallelLoopsPass());
  pm.addPass(std::make_unique<TileParallelLoopsPass>(options.blockSize));
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addPass(createConvertParallelLoopToGpuPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(std::make_unique<ExpandMathPass>());
  pm.addPass(std::make_unique<HostAllocToGPUPass>());

  gpu::GPUToNVVMPipelineOptions nvvm;
  nvvm.cubinChip = options.chip;
  nvvm.cubinFeatures = options.features;
  nvvm.cubinFormat = "isa";
  nvvm.optLevel = options.optLevel;
  gpu::buildLowerToNVVMPassPipeline(pm, nvvm);
  pm.addPass(std::make_unique<CheckPTXPass>());
}

void mlprog::registerGPUPipelines() {
  PassPipelineRegistration<LowerToGPUOptions>(
      "mlprog-lower-to-gpu",
      "Lower an import-contract module to host LLVM plus NVIDIA PTX kernels "
      "(gpu.binary) that call the mgpu* runtime",
      buildLowerToGPUPipeline);
  PassRegistration<DeviceGlobalsPass>();
  PassRegistration<TileParallelLoopsPass>();
  PassRegistration<ExpandMathPass>();
  PassRegistration<HostAllocToGPUPass>();
  PassRegistration<CheckPTXPass>();
}

void mlprog::registerGPUDialects(DialectRegistry &registry) {
  registry.insert<gpu::GPUDialect, NVVM::NVVMDialect>();
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerConvertNVVMToLLVMInterface(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
}
