//===- Im2col.cpp - Convolutions as column tensors and matmuls ------------===//
//
// A static f32 linalg.conv_2d_nchw_fchw becomes a column tensor
// [C*Fh*Fw, N*Oh*Ow] built by vector code that reads through the input's zero
// padding, and one linalg.matmul of the [F, C*Fh*Fw] filter with it, which the
// contraction strategy then blocks like any matmul. Large column tensors are
// built and multiplied in blocks of output rows that stay in L2. Products
// with the pixels as rows are in TransposedConvolutions.cpp; 3x3 windows
// over rows of 14 pixels or more, without a column tensor, in
// DirectConvolutions.cpp.
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

/// Builds the column tensor of a static f32 `linalg.conv_2d_nchw_fchw` with
/// column strides 1 or 2 as vector code:
///
///   col[c.kh.kw, b.oh.ow] = x[b, c, oh * sh + kh * dh - pt,
///                                   ow * sw + kw * dw - pl]
///
/// (0 outside x, which is the convolution's input or the source of its zero
/// padding, see ConvSource) as an scf.forall over (c, kh) (OpenMP when the
/// pipeline is parallel), each iteration writing the Fw rows of its (c, kh)
/// with vector.transfer_write along ow. The output rows whose input row lies
/// in the padding are written with zeros by loops of their own; within the
/// others, the column range of each kw is static, so the column padding
/// costs a masked read or a select only at the row ends. Returns a null
/// value for other strides.
///
/// With `ohBegin`, only output rows [ohBegin, ohBegin + rows) (the column
/// tensor is [C*Fh*Fw, N * rows * Ow]), with `image` only that image (N = 1),
/// with `nested` (inside a forall already) plain loops over (c, kh), and
/// with `padTo` zero columns up to that many.
static Value buildColumns(RewriterBase &rewriter, Location loc,
                          linalg::Conv2DNchwFchwOp conv,
                          const CPUTarget &target, Value ohBegin = Value(),
                          int64_t rows = 0, bool nested = false,
                          Value image = Value(), int64_t padTo = 0) {
  auto filterType = cast<RankedTensorType>(conv.getDpsInputs()[1].getType());
  auto initType = cast<RankedTensorType>(conv.getDpsInits()[0].getType());
  SmallVector<int64_t> strides = getValues(conv.getStrides());
  SmallVector<int64_t> dilations = getValues(conv.getDilations());
  int64_t sh = strides[0], sw = strides[1], dh = dilations[0],
          dw = dilations[1];
  if (sw < 1 || sw > 2 || sh < 1)
    return Value();
  ConvSource source = getConvSource(conv.getDpsInputs()[0]);
  auto sourceType = cast<RankedTensorType>(source.value.getType());
  int64_t batch = sourceType.getDimSize(0), channels = sourceType.getDimSize(1);
  int64_t height = sourceType.getDimSize(2), width = sourceType.getDimSize(3);
  int64_t fh = filterType.getDimSize(2), fw = filterType.getDimSize(3);
  int64_t oh = initType.getDimSize(2), ow = initType.getDimSize(3);
  int64_t pt = source.padTop, pl = source.padLeft;
  if (oh == 0 || ow == 0)
    return Value();
  if (!ohBegin) {
    ohBegin = arith::ConstantIndexOp::create(rewriter, loc, 0);
    rows = oh;
  }
  int64_t len = std::min<int64_t>(target.getVectorWidthF32(), ow);
  SmallVector<int64_t> starts = getRowVectorStarts(ow, len);
  int64_t images = image ? 1 : batch;
  int64_t k = channels * fh * fw, n = images * rows * ow;
  int64_t columns = std::max(n, padTo);
  Type f32 = initType.getElementType();
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr d0, d1;
  bindDims(ctx, d0, d1);
  Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value batchEnd = arith::ConstantIndexOp::create(rewriter, loc, batch);
  auto zeroType = VectorType::get({len}, f32);
  Value ohEnd = affine::AffineApplyOp::create(
      rewriter, loc, AffineMap::get(1, 0, d0 + rows), ValueRange{ohBegin});

  // The Fw rows [fw, n] of channel c and filter row kh.
  auto buildRows = [&](OpBuilder &b, Value c, Value kh, Value init) {
    // Output rows [lo, hi) of the block read input rows oh * sh + kh * dh -
    // pt inside x; the others read zeros.
    Value lo = affine::AffineMaxOp::create(
        b, loc, AffineMap::get(2, 0, {d1, (pt - d0 * dh).ceilDiv(sh)}, ctx),
        ValueRange{kh, ohBegin});
    lo = affine::AffineMinOp::create(b, loc,
                                     AffineMap::get(2, 0, {d0 + rows, d1}, ctx),
                                     ValueRange{ohBegin, lo});
    Value hi = affine::AffineMinOp::create(
        b, loc,
        AffineMap::get(2, 0, {d1 + rows, (height + pt - d0 * dh).ceilDiv(sh)},
                       ctx),
        ValueRange{kh, ohBegin});
    hi = affine::AffineMaxOp::create(
        b, loc, AffineMap::get(2, 0, {d0, d1}, ctx), ValueRange{lo, hi});
    // One loop over the output rows [from, to) of image `input`, written to
    // the columns of image `slot`: input rows, or zeros when `copy` is
    // false.
    auto rowLoop = [&](OpBuilder &lb, Location l, Value input, Value slot,
                       Value from, Value to, Value t, bool copy) {
      auto loop = scf::ForOp::create(
          lb, l, from, to, c1, ValueRange{t},
          [&](OpBuilder &nb, Location nl, Value y, ValueRange args) {
            Value result = args[0];
            Value base = affine::AffineApplyOp::create(
                nb, nl,
                AffineMap::get(3, 0,
                               d0 * (rows * ow) +
                                   (d1 - getAffineDimExpr(2, ctx)) * ow),
                ValueRange{slot, y, ohBegin});
            Value inputRow;
            if (copy)
              inputRow = affine::AffineApplyOp::create(
                  nb, nl, AffineMap::get(2, 0, d0 * sh + d1 * dh - pt),
                  ValueRange{y, kh});
            Value zeros = arith::ConstantOp::create(nb, nl, zeroType,
                                                    nb.getZeroAttr(zeroType));
            for (int64_t j = 0; j < fw; ++j) {
              Value rowIndex = arith::ConstantIndexOp::create(nb, nl, j);
              for (int64_t s : starts) {
                Value vec =
                    copy ? readRowColumns(nb, nl, source.value,
                                          ValueRange{input, c, inputRow},
                                          s * sw + j * dw - pl, len, sw, width)
                         : zeros;
                Value col = affine::AffineApplyOp::create(
                    nb, nl, AffineMap::get(1, 0, d0 + s), ValueRange{base});
                result = vector::TransferWriteOp::create(
                             nb, nl, vec, result, ValueRange{rowIndex, col},
                             ArrayRef<bool>{true})
                             .getResult();
              }
            }
            scf::YieldOp::create(nb, nl, result);
          });
      return loop.getResult(0);
    };
    auto imageRows = [&](OpBuilder &ib, Location l, Value input, Value slot,
                         Value t) {
      t = rowLoop(ib, l, input, slot, ohBegin, lo, t, /*copy=*/false);
      t = rowLoop(ib, l, input, slot, lo, hi, t, /*copy=*/true);
      return rowLoop(ib, l, input, slot, hi, ohEnd, t, /*copy=*/false);
    };
    Value result;
    if (image) {
      result = imageRows(b, loc, image, c0, init);
    } else {
      auto loop = scf::ForOp::create(
          b, loc, c0, batchEnd, c1, ValueRange{init},
          [&](OpBuilder &ib, Location l, Value index, ValueRange args) {
            scf::YieldOp::create(ib, l,
                                 imageRows(ib, l, index, index, args[0]));
          });
      result = loop.getResult(0);
    }
    if (columns == n)
      return result;
    // Zero columns up to `padTo`.
    auto tailType = VectorType::get({columns - n}, f32);
    Value tail =
        arith::ConstantOp::create(b, loc, tailType, b.getZeroAttr(tailType));
    Value start = arith::ConstantIndexOp::create(b, loc, n);
    for (int64_t j = 0; j < fw; ++j)
      result = vector::TransferWriteOp::create(
                   b, loc, tail, result,
                   ValueRange{arith::ConstantIndexOp::create(b, loc, j), start},
                   ArrayRef<bool>{true})
                   .getResult();
    return result;
  };

  Value empty = tensor::EmptyOp::create(rewriter, loc, {k, columns}, f32);
  auto rowsType = RankedTensorType::get({fw, columns}, f32);
  SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(fw),
                                     rewriter.getIndexAttr(columns)};
  SmallVector<OpFoldResult> unit(2, rewriter.getIndexAttr(1));
  auto firstRow = [&](OpBuilder &b, Value c, Value kh) -> OpFoldResult {
    return affine::AffineApplyOp::create(
               b, loc, AffineMap::get(2, 0, (d0 * fh + d1) * fw), {c, kh})
        .getResult();
  };
  if (nested) {
    // Inside a parallel loop already: plain loops over (c, kh).
    Value cEnd = arith::ConstantIndexOp::create(rewriter, loc, channels);
    Value khEnd = arith::ConstantIndexOp::create(rewriter, loc, fh);
    auto outer = scf::ForOp::create(
        rewriter, loc, c0, cEnd, c1, ValueRange{empty},
        [&](OpBuilder &ob, Location l, Value c, ValueRange outerArgs) {
          auto inner = scf::ForOp::create(
              ob, l, c0, khEnd, c1, ValueRange{outerArgs[0]},
              [&](OpBuilder &b, Location il, Value kh, ValueRange args) {
                SmallVector<OpFoldResult> offsets = {firstRow(b, c, kh),
                                                     b.getIndexAttr(0)};
                Value slice = tensor::ExtractSliceOp::create(
                    b, il, rowsType, args[0], offsets, sizes, unit);
                Value filled = buildRows(b, c, kh, slice);
                Value result = tensor::InsertSliceOp::create(
                    b, il, filled, args[0], offsets, sizes, unit);
                scf::YieldOp::create(b, il, result);
              });
          scf::YieldOp::create(ob, l, inner.getResult(0));
        });
    return outer.getResult(0);
  }
  auto forall = scf::ForallOp::create(
      rewriter, loc,
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(channels),
                             rewriter.getIndexAttr(fh)},
      ValueRange{empty}, std::nullopt);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(forall.getBody());
  Value c = forall.getInductionVar(0), kh = forall.getInductionVar(1);
  Value shared = forall.getRegionIterArgs()[0];
  SmallVector<OpFoldResult> offsets = {firstRow(rewriter, c, kh),
                                       rewriter.getIndexAttr(0)};
  Value slice = tensor::ExtractSliceOp::create(rewriter, loc, rowsType, shared,
                                               offsets, sizes, unit);
  Value filled = buildRows(rewriter, c, kh, slice);
  rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(rewriter, loc, filled, shared, offsets,
                                        sizes, unit);
  return forall.getResult(0);
}

/// Rewrites a `linalg.conv_2d_nchw_fchw` (see rewriteConvAsMatmul) into an
/// scf.forall over images and blocks of `rows` output rows, each building
/// its [C*Fh*Fw, rows * Ow] block of the column tensor (buildColumns) and
/// multiplying the filter with it into its part of the output:
///
///   forall b, blk: col = columns of image b, output rows [blk * rows,
///                        (blk + 1) * rows)
///                  out[b, f, blk * rows * Ow + j] += w[f, :] * col[:, j]
///
/// A whole column tensor of resnet18's 56x56 layers is 7 MiB (per image),
/// written to memory and read back; a block stays in L2 between the two.
/// The output is accumulated in place for any batch (no transposed copy).
///
/// When the convolution's init is a fill or a bias broadcast along the
/// features, each block starts from its own copy of it, and an elementwise
/// epilogue (see getElementwiseEpilogue: the ReLU, the residual add) is
/// computed on the block right after its product, reading the other
/// operands' blocks: the register blocks then compute both (see
/// prepareEpilogue), and neither the init nor the product is a pass over the
/// whole output (resnet50 at batch 8: 25 MiB outputs, out of the caches).
static LogicalResult rewriteConvAsBlockedMatmul(RewriterBase &rewriter,
                                                linalg::Conv2DNchwFchwOp conv,
                                                const CPUTarget &target,
                                                int64_t rows) {
  Value filter = conv.getDpsInputs()[1], init = conv.getDpsInits()[0];
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto initType = cast<RankedTensorType>(init.getType());
  int64_t features = filterType.getDimSize(0);
  int64_t k = filterType.getDimSize(1) * filterType.getDimSize(2) *
              filterType.getDimSize(3);
  int64_t batch = initType.getDimSize(0);
  int64_t oh = initType.getDimSize(2), ow = initType.getDimSize(3);
  int64_t width = rows * ow;
  Type f32 = initType.getElementType();
  Location loc = conv.getLoc();

  // The init rebuilt on each block, and the epilogue computed there.
  linalg::LinalgOp productInit = getConvolutionInit(conv.getDpsInits()[0]);
  linalg::GenericOp epilogue =
      productInit ? getConvolutionEpilogue(conv) : linalg::GenericOp();
  // The epilogue's other operands may be computed after the convolution.
  rewriter.setInsertionPoint(epilogue ? epilogue.getOperation()
                                      : conv.getOperation());
  Value weights = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({features, k}, f32), filter,
      SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  SmallVector<ReassociationIndices> pixelGroups = {{0}, {1}, {2, 3}};
  auto collapsePixels = [&](Value value) -> Value {
    auto type = cast<RankedTensorType>(value.getType());
    return tensor::CollapseShapeOp::create(
        rewriter, loc,
        RankedTensorType::get({batch, features, oh * ow},
                              type.getElementType()),
        value, pixelGroups);
  };
  // The forall's output: the epilogue's, else the init, which a block init
  // overwrites.
  Value out = epilogue      ? epilogue.getDpsInitOperand(0)->get()
              : productInit ? tensor::EmptyOp::create(rewriter, loc,
                                                      initType.getShape(), f32)
                                  .getResult()
                            : init;
  auto forall = scf::ForallOp::create(
      rewriter, loc,
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(batch),
                             rewriter.getIndexAttr(oh / rows)},
      ValueRange{collapsePixels(out)}, std::nullopt);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(forall.getBody());
    Value image = forall.getInductionVar(0);
    Value block = forall.getInductionVar(1);
    Value shared = forall.getRegionIterArgs()[0];
    AffineExpr d0 = rewriter.getAffineDimExpr(0);
    Value ohBegin = affine::AffineApplyOp::create(
        rewriter, loc, AffineMap::get(1, 0, d0 * rows), ValueRange{block});
    Value col = buildColumns(rewriter, loc, conv, target, ohBegin, rows,
                             /*nested=*/true, image);
    Value first = affine::AffineApplyOp::create(
        rewriter, loc, AffineMap::get(1, 0, d0 * width), ValueRange{block});
    SmallVector<OpFoldResult> offsets = {image, rewriter.getIndexAttr(0),
                                         first};
    SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(1),
                                       rewriter.getIndexAttr(features),
                                       rewriter.getIndexAttr(width)};
    SmallVector<OpFoldResult> unit(3, rewriter.getIndexAttr(1));
    // The [F, width] block of a [B, F, Oh, Ow] operand.
    auto blockOf = [&](Value value) -> Value {
      auto type = cast<RankedTensorType>(value.getType());
      return tensor::ExtractSliceOp::create(
          rewriter, loc,
          RankedTensorType::get({features, width}, type.getElementType()),
          collapsePixels(value), offsets, sizes, unit);
    };
    Value outBlock = tensor::ExtractSliceOp::create(
        rewriter, loc,
        RankedTensorType::get(
            {features, width},
            cast<RankedTensorType>(shared.getType()).getElementType()),
        shared, offsets, sizes, unit);
    auto blockType = RankedTensorType::get({features, width}, f32);
    Value accBlock = outBlock;
    if (epilogue)
      accBlock =
          tensor::EmptyOp::create(rewriter, loc, blockType.getShape(), f32);
    if (productInit)
      accBlock = buildConvolutionInit(rewriter, loc, productInit, accBlock, 0);
    Value result = linalg::MatmulOp::create(rewriter, loc, TypeRange{blockType},
                                            ValueRange{weights, col}, accBlock)
                       .getResult(0);
    if (epilogue) {
      SmallVector<Value> inputs;
      for (Value input : epilogue.getDpsInputs())
        inputs.push_back(input == conv.getResult(0) ? result : blockOf(input));
      result = cloneEpilogue(rewriter, epilogue, inputs, outBlock).getResult(0);
    }
    rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
    tensor::ParallelInsertSliceOp::create(rewriter, loc, result, shared,
                                          offsets, sizes, unit);
  }
  Value expanded = tensor::ExpandShapeOp::create(
      rewriter, loc, cast<RankedTensorType>(out.getType()), forall.getResult(0),
      pixelGroups);
  replaceWithEpilogue(rewriter, conv, epilogue, expanded);
  return success();
}

/// Rewrites a static f32 `linalg.conv_2d_nchw_fchw` that rewriteConvDirectly
/// does not take into a column tensor and one `linalg.matmul` whose N
/// dimension covers the batch and the output pixels, so a batch > 1 convolution
/// is one large GEMM (upstream's im2col keeps a batch loop around a contraction
/// that vectorizes badly):
///
///   col[c, kh, kw, b, oh, ow] = x[b, c, oh * sh + kh * dh, ow * sw + kw * dw]
///   mm[f, b.oh.ow] += w[f, c.kh.kw] * col[c.kh.kw, b.oh.ow]
///
/// With batch 1, mm accumulates into the convolution's init in place; with a
/// larger batch it starts from the init's fill or bias broadcast (see
/// getConvolutionInit) and a transposing copy writes out[b, f, oh, ow] =
/// mm[f, b, oh, ow], which also computes the elementwise epilogue (see
/// getConvolutionEpilogue); for other inits mm starts from zero and the copy
/// adds init[b, f, oh, ow]. A 1x1 stride-1
/// convolution of batch 1 needs no column tensor: x is already [C, H*W].
/// Otherwise the column tensor is vector code reading through the input's
/// zero padding (see buildColumns), built and multiplied in blocks when it
/// is large (see rewriteConvAsBlockedMatmul), or, for column strides above
/// 2, a copy generic. A batch-1 convolution with a weight filter whose
/// pixels are one, or not a multiple of the vector width but of 7 or 8
/// (hasRegisterRowDivisor), is the transposed product instead, pixels as
/// rows (see rewriteConvAsTransposedMatmul).
LogicalResult cpu::rewriteConvAsMatmul(RewriterBase &rewriter,
                                       linalg::Conv2DNchwFchwOp conv,
                                       const CPUTarget &target) {
  Value input = conv.getDpsInputs()[0], filter = conv.getDpsInputs()[1];
  Value init = conv.getDpsInits()[0];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  auto initType = cast<RankedTensorType>(init.getType());
  int64_t batch = inputType.getDimSize(0), channels = inputType.getDimSize(1);
  int64_t features = filterType.getDimSize(0);
  int64_t fh = filterType.getDimSize(2), fw = filterType.getDimSize(3);
  int64_t oh = initType.getDimSize(2), ow = initType.getDimSize(3);
  SmallVector<int64_t> strides = getValues(conv.getStrides());
  SmallVector<int64_t> dilations = getValues(conv.getDilations());
  Location loc = conv.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  Type f32 = initType.getElementType();
  rewriter.setInsertionPoint(conv);
  // Small stride-1 and stride-2 windows with a weight filter need no
  // column tensor at all.
  if (succeeded(rewriteConvDirectly(rewriter, conv, target)))
    return success();

  int64_t k = channels * fh * fw, n = batch * oh * ow;
  bool pointwise = batch == 1 && fh == 1 && fw == 1 && strides[0] == 1 &&
                   strides[1] == 1 && inputType.getDimSize(2) == oh &&
                   inputType.getDimSize(3) == ow;
  // The blocks need buildColumns, which takes strides of 1 or 2 along rows.
  if (!pointwise && strides[0] >= 1 && strides[1] >= 1 && strides[1] <= 2)
    if (int64_t rows = chooseColumnBlockRows(k, batch, oh, ow, target))
      return rewriteConvAsBlockedMatmul(rewriter, conv, target, rows);
  // Output maps whose pixels are not a multiple of the vector width: the
  // pixels are the rows of the product instead.
  int64_t width = target.getVectorWidthF32();
  bool rowsOfPixels = n % width != 0 && features % 16 == 0 &&
                      n > getMaxRegisterRows(target) &&
                      hasRegisterRowDivisor(n, target);
  if (batch == 1 && (rowsOfPixels || n == 1) && isConstantGlobal(filter)) {
    Value columns =
        pointwise
            ? tensor::CollapseShapeOp::create(
                  rewriter, loc, RankedTensorType::get({k, n}, f32), input,
                  SmallVector<ReassociationIndices>{{0, 1}, {2, 3}})
            : buildColumns(rewriter, loc, conv, target);
    if (columns)
      return rewriteConvAsTransposedMatmul(rewriter, conv, columns);
  }
  // Register blocks cover N in multiples of the vector width; a remainder
  // of fewer than 4 columns would run as scalar loops (7x7 = 49 = 32 + 16 +
  // 1: a third of a 512x512x7x7 convolution's time), so the column tensor
  // gets zero columns up to the next multiple and the matmul computes them.
  int64_t padded = n > width && n % width < 4 ? llvm::alignTo(n, width) : n;
  Value zero =
      arith::ConstantOp::create(rewriter, loc, f32, rewriter.getZeroAttr(f32));
  auto padColumns = [&](Value value) -> Value {
    if (padded == n)
      return value;
    return tensor::PadOp::create(
        rewriter, loc, Type(), value,
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0),
                               rewriter.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0),
                               rewriter.getIndexAttr(padded - n)},
        zero);
  };
  Value col;
  if (pointwise) {
    col = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({k, n}, f32), input,
        SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
  } else if (Value columns =
                 buildColumns(rewriter, loc, conv, target, Value(), 0,
                              /*nested=*/false, Value(), padded)) {
    col = columns;
  } else {
    AffineExpr c, kh, kw, b, y, x;
    bindDims(ctx, c, kh, kw, b, y, x);
    AffineMap inputMap =
        AffineMap::get(6, 0,
                       {b, c, y * strides[0] + kh * dilations[0],
                        x * strides[1] + kw * dilations[1]},
                       ctx);
    SmallVector<int64_t> colShape = {channels, fh, fw, batch, oh, ow};
    Value empty = tensor::EmptyOp::create(rewriter, loc, colShape, f32);
    SmallVector<utils::IteratorType> parallel6(6,
                                               utils::IteratorType::parallel);
    Value col6 =
        linalg::GenericOp::create(
            rewriter, loc, TypeRange{empty.getType()}, ValueRange{input},
            ValueRange{empty},
            ArrayRef<AffineMap>{inputMap, rewriter.getMultiDimIdentityMap(6)},
            parallel6,
            [](OpBuilder &b, Location l, ValueRange args) {
              linalg::YieldOp::create(b, l, args[0]);
            })
            .getResult(0);
    col = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({k, n}, f32), col6,
        SmallVector<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}});
  }
  if (cast<RankedTensorType>(col.getType()).getDimSize(1) != padded)
    col = padColumns(col);
  Value weights = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({features, k}, f32), filter,
      SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  auto mmType = RankedTensorType::get({features, n}, f32);
  auto paddedType = RankedTensorType::get({features, padded}, f32);
  // The first n columns of the [features, padded] product.
  auto unpadColumns = [&](Value value) -> Value {
    if (padded == n)
      return value;
    return tensor::ExtractSliceOp::create(
        rewriter, loc, mmType, value,
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0),
                               rewriter.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(features),
                               rewriter.getIndexAttr(n)},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                               rewriter.getIndexAttr(1)});
  };
  if (batch == 1) {
    Value acc = tensor::CollapseShapeOp::create(
        rewriter, loc, mmType, init,
        SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
    Value mm =
        linalg::MatmulOp::create(rewriter, loc, TypeRange{paddedType},
                                 ValueRange{weights, col}, padColumns(acc))
            .getResult(0);
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        conv, initType, unpadColumns(mm),
        SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
    return success();
  }
  // The product starts from the init when it is a fill or the bias
  // broadcast; its transposed copy into the output then computes the
  // elementwise epilogue (a ReLU, a residual add): one pass over the output
  // where the init, the transposing add and the epilogue were three.
  linalg::LinalgOp productInit = getConvolutionInit(conv.getDpsInits()[0]);
  Value empty = tensor::EmptyOp::create(rewriter, loc, {features, padded}, f32);
  Value acc =
      productInit
          ? buildConvolutionInit(rewriter, loc, productInit, empty, 0)
          : linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
  Value mm = unpadColumns(
      linalg::MatmulOp::create(rewriter, loc, TypeRange{paddedType},
                               ValueRange{weights, col}, acc)
          .getResult(0));
  Value mm4 = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get({features, batch, oh, ow}, f32), mm,
      SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  AffineExpr b, f, y, x;
  bindDims(ctx, b, f, y, x);
  AffineMap transposed = AffineMap::get(4, 0, {f, b, y, x}, ctx);
  AffineMap identity = rewriter.getMultiDimIdentityMap(4);
  SmallVector<utils::IteratorType> parallel4(4, utils::IteratorType::parallel);
  if (linalg::GenericOp epilogue =
          productInit ? getConvolutionEpilogue(conv) : linalg::GenericOp()) {
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (Value input : epilogue.getDpsInputs()) {
      bool product = input == conv.getResult(0);
      inputs.push_back(product ? mm4 : input);
      maps.push_back(product ? transposed : identity);
    }
    maps.push_back(identity);
    rewriter.setInsertionPoint(epilogue);
    auto fused = linalg::GenericOp::create(
        rewriter, loc, epilogue.getResultTypes(), inputs,
        epilogue.getDpsInits(), maps, parallel4);
    rewriter.cloneRegionBefore(epilogue.getRegion(), fused.getRegion(),
                               fused.getRegion().end());
    replaceWithEpilogue(rewriter, conv, epilogue, fused.getResult(0));
    return success();
  }
  if (productInit) {
    Value out =
        tensor::EmptyOp::create(rewriter, loc, initType.getShape(), f32);
    rewriter.replaceOpWithNewOp<linalg::GenericOp>(
        conv, TypeRange{initType}, ValueRange{mm4}, ValueRange{out},
        ArrayRef<AffineMap>{transposed, identity}, parallel4,
        [](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(b, l, args[0]);
        });
    return success();
  }
  rewriter.replaceOpWithNewOp<linalg::GenericOp>(
      conv, TypeRange{initType}, ValueRange{mm4}, ValueRange{init},
      ArrayRef<AffineMap>{transposed, identity}, parallel4,
      [](OpBuilder &b, Location l, ValueRange args) {
        Value sum = arith::AddFOp::create(b, l, args[0], args[1]);
        linalg::YieldOp::create(b, l, sum);
      });
  return success();
}
