//===- DirectConvolutions.cpp - Convolutions without column tensors -------===//
//
// An f32 convolution with a small window (3x3) and strides 1 or 2 is
// computed from its padded input directly: each register block holds r
// pixels of one output row (r = 8 or 7) times two vectors of features, and
// its K loop runs over (c, kh, kw), broadcasting the r input pixels under
// the window and reading the filter from panels packed at compile time.
// There is no column tensor (9x the input, written and read back) and no
// remainder of columns: the blocks tile each row exactly. resnet18's 3x3
// convolutions over 56x56, 28x28 and 14x14 took 5-8% less time than as
// column tensors and matmuls (1 thread).
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::cpu;

/// The most taps of a window computed directly: the K loop's body is
/// unrolled over them, r broadcasts and 2r FMAs each.
static constexpr int64_t kMaxDirectTaps = 9;

/// The pixels of a register block along the output rows of the [N, F, Oh,
/// Ow] `init`: 8 or 7 when they divide Ow (resnet's 56, 28, 14 and 7), else
/// 0. Also 0 when each panel of the filter would serve fewer than 14 blocks
/// (N * Oh * Ow / r): a block reads its whole panel (590 KiB for 512
/// channels) from L2, and resnet18's 7x7 convolution at batch 1 (7 blocks)
/// took 1.16 ms where the pixels-as-rows product, whose K blocks stay in L1
/// for all 49 pixels, took 1.10 (1 thread).
static int64_t getDirectBlockPixels(RankedTensorType init) {
  int64_t ow = init.getDimSize(3);
  int64_t pixels = ow % 8 == 0 ? 8 : ow % 7 == 0 ? 7 : 0;
  if (!pixels || init.getDimSize(0) * init.getDimSize(2) * (ow / pixels) < 14)
    return 0;
  return pixels;
}

/// The fewest K steps (C*Fh*Fw) of a convolution computed directly: each
/// block's transpose and 2r row writes are paid once per K loop, which few
/// K steps do not amortize. mobilenet_v2's stem (3 channels, K = 27) took
/// 0.195 ms directly and 0.180 as a column tensor and matmul (onnxruntime:
/// 0.132).
static constexpr int64_t kMinDirectK = 64;

bool cpu::isDirectConvolution(linalg::Conv2DNchwFchwOp conv,
                              const CPUTarget &target) {
  auto inputType = cast<RankedTensorType>(conv.getDpsInputs()[0].getType());
  auto filterType = cast<RankedTensorType>(conv.getDpsInputs()[1].getType());
  auto initType = cast<RankedTensorType>(conv.getDpsInits()[0].getType());
  int64_t width = target.getVectorWidthF32();
  int64_t taps = filterType.getDimSize(2) * filterType.getDimSize(3);
  auto isOne = [](int64_t value) { return value == 1; };
  auto isOneOrTwo = [](int64_t value) { return value == 1 || value == 2; };
  return (width == 8 || width == 16) && taps > 1 && taps <= kMaxDirectTaps &&
         filterType.getDimSize(1) * taps >= kMinDirectK &&
         llvm::all_of(getValues(conv.getStrides()), isOneOrTwo) &&
         llvm::all_of(getValues(conv.getDilations()), isOne) &&
         inputType.getElementType().isF32() &&
         filterType.getElementType().isF32() &&
         filterType.getDimSize(0) % (2 * width) == 0 &&
         getDirectBlockPixels(initType) != 0 &&
         isConstantGlobal(conv.getDpsInputs()[1]) &&
         getConvolutionInit(conv.getDpsInits()[0]);
}

LogicalResult cpu::rewriteConvDirectly(RewriterBase &rewriter,
                                       linalg::Conv2DNchwFchwOp conv,
                                       const CPUTarget &target) {
  if (!isDirectConvolution(conv, target))
    return failure();
  Value input = conv.getDpsInputs()[0], filter = conv.getDpsInputs()[1];
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto initType = cast<RankedTensorType>(conv.getDpsInits()[0].getType());
  int64_t batch = initType.getDimSize(0), features = initType.getDimSize(1);
  int64_t oh = initType.getDimSize(2), ow = initType.getDimSize(3);
  int64_t channels = filterType.getDimSize(1);
  int64_t fh = filterType.getDimSize(2), fw = filterType.getDimSize(3);
  int64_t taps = fh * fw, k = channels * taps;
  int64_t width = target.getVectorWidthF32(), panel = 2 * width;
  int64_t pixels = getDirectBlockPixels(initType);
  SmallVector<int64_t> strides = getValues(conv.getStrides());
  int64_t sh = strides[0], sw = strides[1];
  Type f32 = initType.getElementType();
  Location loc = conv.getLoc();
  linalg::LinalgOp convInit = getConvolutionInit(conv.getDpsInits()[0]);
  linalg::GenericOp epilogue = getConvolutionEpilogue(conv);
  if (epilogue && !appliesToVectors(epilogue))
    epilogue = {};
  // The epilogue's other operands may be computed after the convolution.
  rewriter.setInsertionPoint(epilogue ? epilogue.getOperation()
                                      : conv.getOperation());

  // The filter as panels [F / 2w, K, 2w]: panel[b, c.kh.kw, j] =
  // w[b * 2w + j, c, kh, kw], a transpose of the constant that
  // --mlprog-fold-constant-panels computes at compile time.
  Value rows = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({features, k}, f32), filter,
      SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  Value blocks = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get({features / panel, panel, k}, f32),
      rows, SmallVector<ReassociationIndices>{{0, 1}, {2}});
  Value panels = linalg::TransposeOp::create(
                     rewriter, loc, blocks,
                     tensor::EmptyOp::create(
                         rewriter, loc,
                         ArrayRef<int64_t>{features / panel, k, panel}, f32),
                     ArrayRef<int64_t>{0, 2, 1})
                     .getResult()[0];

  Value out = epilogue ? epilogue.getDpsInitOperand(0)->get()
                       : tensor::EmptyOp::create(rewriter, loc,
                                                 initType.getShape(), f32)
                             .getResult();
  auto outType = cast<RankedTensorType>(out.getType());
  auto forall = scf::ForallOp::create(
      rewriter, loc,
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(features / panel),
                             rewriter.getIndexAttr(batch),
                             rewriter.getIndexAttr(oh)},
      ValueRange{out}, std::nullopt);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(forall.getBody());
  Value block = forall.getInductionVar(0), n = forall.getInductionVar(1);
  Value row = forall.getInductionVar(2);
  Value shared = forall.getRegionIterArgs()[0];
  AffineExpr d0 = rewriter.getAffineDimExpr(0);
  auto apply = [&](OpBuilder &b, Location l, AffineExpr expr,
                   ValueRange operands) -> Value {
    return affine::AffineApplyOp::create(
        b, l, AffineMap::get(operands.size(), 0, expr), operands);
  };
  auto index = [&](OpBuilder &b, Location l, int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, l, value);
  };
  Value firstFeature = apply(rewriter, loc, d0 * panel, block);
  SmallVector<OpFoldResult> offsets = {n, firstFeature, row,
                                       rewriter.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {
      rewriter.getIndexAttr(1), rewriter.getIndexAttr(panel),
      rewriter.getIndexAttr(1), rewriter.getIndexAttr(ow)};
  SmallVector<OpFoldResult> unit(4, rewriter.getIndexAttr(1));
  auto tileType =
      RankedTensorType::get({1, panel, 1, ow}, outType.getElementType());
  Value tile = tensor::ExtractSliceOp::create(rewriter, loc, tileType, shared,
                                              offsets, sizes, unit);

  // The accumulators start from the bias (or the fill's value): two vectors
  // of the panel's features, the same for every pixel.
  auto vectorType = VectorType::get({width}, f32);
  Value zero =
      arith::ConstantOp::create(rewriter, loc, f32, rewriter.getZeroAttr(f32));
  SmallVector<Value> bias;
  for (int64_t half = 0; half < 2; ++half) {
    if (auto fill = dyn_cast<linalg::FillOp>(convInit.getOperation())) {
      bias.push_back(vector::BroadcastOp::create(rewriter, loc, vectorType,
                                                 fill.getInputs()[0]));
      continue;
    }
    Value feature = apply(rewriter, loc, d0 + half * width, firstFeature);
    bias.push_back(vector::TransferReadOp::create(
        rewriter, loc, vectorType, convInit.getDpsInputs()[0],
        ValueRange{feature}, zero, ArrayRef<bool>{true}));
  }

  auto columns = scf::ForOp::create(
      rewriter, loc, index(rewriter, loc, 0), index(rewriter, loc, ow),
      index(rewriter, loc, pixels), ValueRange{tile},
      [&](OpBuilder &b, Location l, Value column, ValueRange tileArgs) {
        // acc[2 * i + half]: pixel i, features [half * w, (half + 1) * w).
        SmallVector<Value> init;
        for (int64_t i = 0; i < pixels; ++i)
          init.append(bias.begin(), bias.end());
        auto channelLoop = scf::ForOp::create(
            b, l, index(b, l, 0), index(b, l, channels), index(b, l, 1), init,
            [&](OpBuilder &b, Location l, Value c, ValueRange accArgs) {
              SmallVector<Value> acc = llvm::to_vector(accArgs);
              for (int64_t kh = 0; kh < fh; ++kh) {
                Value inRow = apply(b, l, d0 * sh + kh, row);
                for (int64_t kw = 0; kw < fw; ++kw) {
                  Value kIndex = apply(b, l, d0 * taps + kh * fw + kw, c);
                  Value weights[2];
                  for (int64_t half = 0; half < 2; ++half)
                    weights[half] = vector::TransferReadOp::create(
                        b, l, vectorType, panels,
                        ValueRange{block, kIndex, index(b, l, half * width)},
                        zero, ArrayRef<bool>{true});
                  for (int64_t i = 0; i < pixels; ++i) {
                    Value inColumn = apply(b, l, (d0 + i) * sw + kw, column);
                    Value pixel = tensor::ExtractOp::create(
                        b, l, input, ValueRange{n, c, inRow, inColumn});
                    Value broadcast =
                        vector::BroadcastOp::create(b, l, vectorType, pixel);
                    for (int64_t half = 0; half < 2; ++half)
                      acc[2 * i + half] = vector::FMAOp::create(
                          b, l, broadcast, weights[half], acc[2 * i + half]);
                  }
                }
              }
              scf::YieldOp::create(b, l, acc);
            });

        // To the output's layout: per half, the pixels' vectors transposed
        // in groups of 8 lanes (a 7th pixel padded with a copy); lanes
        // [8g, 8g + pixels) of vector j then hold feature
        // half * w + 8g + j of the block's pixels.
        Value result = tileArgs[0];
        for (int64_t half = 0; half < 2; ++half) {
          SmallVector<Value> vectors;
          for (int64_t i = 0; i < 8; ++i)
            vectors.push_back(
                channelLoop.getResult(2 * std::min(i, pixels - 1) + half));
          transposeLaneGroups(b, l, vectors);
          for (int64_t group = 0; group < width / 8; ++group) {
            for (int64_t j = 0; j < 8; ++j) {
              int64_t feature = half * width + group * 8 + j;
              Value value = vector::ExtractStridedSliceOp::create(
                  b, l, vectors[j], ArrayRef<int64_t>{group * 8},
                  ArrayRef<int64_t>{pixels}, ArrayRef<int64_t>{1});
              if (epilogue) {
                SmallVector<Value> operands;
                Value f = apply(b, l, d0 + feature, firstFeature);
                for (Value operand : epilogue.getDpsInputs()) {
                  if (operand == conv.getResult(0)) {
                    operands.push_back(value);
                    continue;
                  }
                  Type element = getElementTypeOrSelf(operand.getType());
                  operands.push_back(vector::TransferReadOp::create(
                      b, l, VectorType::get({pixels}, element), operand,
                      ValueRange{n, f, row, column},
                      arith::ConstantOp::create(b, l, element,
                                                b.getZeroAttr(element)),
                      ArrayRef<bool>{true}));
                }
                value = applyToVectors(b, l, epilogue, operands);
              }
              result = vector::TransferWriteOp::create(
                           b, l, value, result,
                           ValueRange{index(b, l, 0), index(b, l, feature),
                                      index(b, l, 0), column},
                           ArrayRef<bool>{true})
                           .getResult();
            }
          }
        }
        scf::YieldOp::create(b, l, result);
      });

  rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(rewriter, loc, columns.getResult(0),
                                        shared, offsets, sizes, unit);
  rewriter.setInsertionPointAfter(forall);
  replaceWithEpilogue(rewriter, conv, epilogue, forall.getResult(0));
  return success();
}
