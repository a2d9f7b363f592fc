//===- TransposedConvolutions.cpp - Pixels as the rows of a product -------===//
//
// A batch-1 convolution whose output pixels are not a multiple of the vector
// width (7x7, 14x14 maps) or are one (a squeeze and excitation's pooled
// input) is the product of its column tensor, read transposed, and its
// transposed filter: the pixels are the rows of the register blocks. The
// [P, F] result is transposed back to [F, P] by vector code.
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

void cpu::transposeLaneGroups(OpBuilder &b, Location loc,
                              MutableArrayRef<Value> vectors) {
  auto n = static_cast<int64_t>(vectors.size());
  int64_t lanes = cast<VectorType>(vectors.front().getType()).getDimSize(0);
  for (int64_t h = n / 2; h >= 1; h /= 2) {
    SmallVector<int64_t> low, high;
    for (int64_t c = 0; c < lanes; ++c) {
      low.push_back((c & h) ? lanes + c - h : c);
      high.push_back((c & h) ? lanes + c : c + h);
    }
    for (int64_t i = 0; i < n; ++i) {
      if (i & h)
        continue;
      Value x = vectors[i], y = vectors[i + h];
      vectors[i] = vector::ShuffleOp::create(b, loc, x, y, low);
      vectors[i + h] = vector::ShuffleOp::create(b, loc, x, y, high);
    }
  }
}

/// The transpose [C, R] of `rows` [R, C] (C a multiple of 16) as vector code:
/// an scf.forall over blocks of 16 columns, each a loop over blocks of 16
/// rows that reads them as 16 vectors, transposes them in registers
/// (transposeLaneGroups) and writes 16 vectors, masked past the last
/// row. A linalg.transpose became scalar loops: a [196, 1024] one took a
/// nanosecond per element.
static Value transposeBy16(OpBuilder &b, Location loc, Value rows) {
  constexpr int64_t kBlock = 16;
  auto type = cast<RankedTensorType>(rows.getType());
  int64_t numRows = type.getDimSize(0), numColumns = type.getDimSize(1);
  Type element = type.getElementType();
  auto index = [&](OpBuilder &builder, int64_t value) {
    return arith::ConstantIndexOp::create(builder, loc, value).getResult();
  };
  Value empty = tensor::EmptyOp::create(b, loc, {numColumns, numRows}, element);
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(numColumns / kBlock)},
      ValueRange{empty}, /*mapping=*/std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  Value column = arith::MulIOp::create(b, loc, forall.getInductionVars()[0],
                                       index(b, kBlock));
  Value output = forall.getRegionIterArgs().front();
  SmallVector<OpFoldResult> offsets = {column, b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(kBlock),
                                     b.getIndexAttr(numRows)};
  SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
  Value tile = tensor::ExtractSliceOp::create(
      b, loc, RankedTensorType::get({kBlock, numRows}, element), output,
      offsets, sizes, strides);
  Value pad =
      arith::ConstantOp::create(b, loc, element, b.getZeroAttr(element));
  auto vectorType = VectorType::get({kBlock}, element);
  bool partial = numRows % kBlock != 0;
  AffineExpr d0 = getAffineDimExpr(0, b.getContext());
  auto loop = scf::ForOp::create(
      b, loc, index(b, 0), index(b, numRows), index(b, kBlock),
      ValueRange{tile},
      [&](OpBuilder &nb, Location l, Value row, ValueRange args) {
        SmallVector<Value> vectors;
        for (int64_t i = 0; i < kBlock; ++i) {
          // Rows past the last one read the last one again; their columns
          // are not written.
          Value r = affine::AffineMinOp::create(
              nb, l,
              AffineMap::get(
                  1, 0,
                  {d0 + i, getAffineConstantExpr(numRows - 1, nb.getContext())},
                  nb.getContext()),
              ValueRange{row});
          vectors.push_back(vector::TransferReadOp::create(
              nb, l, vectorType, rows, ValueRange{r, column}, pad,
              ArrayRef<bool>{true}));
        }
        transposeLaneGroups(nb, l, vectors);
        Value result = args[0];
        for (int64_t i = 0; i < kBlock; ++i)
          result = vector::TransferWriteOp::create(
                       nb, l, vectors[i], result, ValueRange{index(nb, i), row},
                       ArrayRef<bool>{!partial})
                       .getResult();
        scf::YieldOp::create(nb, l, result);
      });
  b.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(b, loc, loop.getResult(0), output,
                                        offsets, sizes, strides);
  return forall.getResult(0);
}

/// Replaces the batch-1 convolution `conv` by the product of its column
/// tensor `col` [K, P] (K = C*Fh*Fw, P = Oh*Ow) and its filter, transposed:
/// the pixels are the rows M and the features the columns N,
///
///   outT[p, f] = initT[p, f] + sum_k col[k, p] * wT[k, f]
///   out[0, f, oh, ow] = outT[oh * Ow + ow, f]
///
/// where wT [K, F] is the filter transposed, whose panels
/// --mlprog-fold-constant-panels computes at compile time, and initT the
/// convolution's fill or bias broadcast in that layout (other inits are added
/// after the product). For output maps whose pixels are not a multiple of
/// the vector width (7x7 = 49, 14x14 = 196) the register blocks are then
/// full: 7 pixels x 32 features, where 49 columns were padded to 64 (a
/// quarter of the work wasted) and 196 were 192 + 4 (the last 4 a second
/// pass over the weights at a fifth of the speed). The result is transposed
/// back by transposeBy16. With one pixel (the squeeze and excitation of a
/// mobilenet_v3 or efficientnet block: a 1x1 convolution of a pooled
/// [1, C, 1, 1]) the product is a row [1, K] x [K, F], a vector-matrix
/// product (RowContractions.cpp) already in the output's layout; as a
/// [F, K] x [K, 1] matmul it had one column and was scalar loops.
LogicalResult cpu::rewriteConvAsTransposedMatmul(RewriterBase &rewriter,
                                                 linalg::Conv2DNchwFchwOp conv,
                                                 Value col) {
  Value filter = conv.getDpsInputs()[1], init = conv.getDpsInits()[0];
  auto initType = cast<RankedTensorType>(init.getType());
  int64_t features = initType.getDimSize(1);
  int64_t pixels = initType.getDimSize(2) * initType.getDimSize(3);
  int64_t k = cast<RankedTensorType>(col.getType()).getDimSize(0);
  Type f32 = initType.getElementType();
  Location loc = conv.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  AffineExpr d0, d1, d2;
  bindDims(ctx, d0, d1, d2);
  auto parallel2 =
      SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel);

  // [F, C, Fh, Fw] -> [C, Fh, Fw, F] -> [K, F].
  auto filterType = cast<RankedTensorType>(filter.getType());
  SmallVector<int64_t> permutation = {1, 2, 3, 0};
  SmallVector<int64_t> transposedShape;
  for (int64_t dim : permutation)
    transposedShape.push_back(filterType.getDimSize(dim));
  Value transposed =
      linalg::TransposeOp::create(
          rewriter, loc, filter,
          tensor::EmptyOp::create(rewriter, loc, transposedShape, f32),
          permutation)
          .getResult()[0];
  Value weights = tensor::CollapseShapeOp::create(
      rewriter, loc, RankedTensorType::get({k, features}, f32), transposed,
      SmallVector<ReassociationIndices>{{0, 1, 2}, {3}});

  // The init in the [P, F] layout: the fill or the bias broadcast along
  // the pixels, else zeros and the init added to the result.
  auto productType = RankedTensorType::get({pixels, features}, f32);
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, productType.getShape(), f32);
  Value initT;
  linalg::LinalgOp convInit = getConvolutionInit(conv.getDpsInits()[0]);
  bool addInit = !convInit;
  if (convInit) {
    initT = buildConvolutionInit(rewriter, loc, convInit, empty, 1);
  } else {
    Value zero = arith::ConstantOp::create(rewriter, loc, f32,
                                           rewriter.getZeroAttr(f32));
    initT = linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
  }

  // One pixel: a vector-matrix product of the [1, K] column (see
  // RowContractions.cpp), whose [1, F] result is the output's layout too.
  // More: a matmul reading the columns transposed, whose register blocks
  // read 7 consecutive pixels of a column row per K step.
  bool onePixel = pixels == 1;
  if (onePixel)
    col = tensor::ExpandShapeOp::create(
        rewriter, loc, RankedTensorType::get({1, k}, f32),
        tensor::CollapseShapeOp::create(
            rewriter, loc, RankedTensorType::get({k}, f32), col,
            SmallVector<ReassociationIndices>{{0, 1}}),
        SmallVector<ReassociationIndices>{{0, 1}});
  auto product =
      linalg::MatmulOp::create(rewriter, loc, TypeRange{productType},
                               ValueRange{col, weights}, ValueRange{initT});
  if (!onePixel)
    product.setIndexingMapsAttr(
        rewriter.getAffineMapArrayAttr({AffineMap::get(3, 0, {d2, d0}, ctx),
                                        AffineMap::get(3, 0, {d2, d1}, ctx),
                                        AffineMap::get(3, 0, {d0, d1}, ctx)}));

  // out[f, p] = outT[p, f] (+ init[f, p]).
  auto outType =
      onePixel ? productType : RankedTensorType::get({features, pixels}, f32);
  SmallVector<ReassociationIndices> outGroups =
      onePixel ? SmallVector<ReassociationIndices>{{0}, {1, 2, 3}}
               : SmallVector<ReassociationIndices>{{0, 1}, {2, 3}};
  // A unary activation after the convolution (ReLU, Clip, SiLU) is applied
  // to the product before the transpose, where the contraction's register
  // blocks compute it (see prepareEpilogue).
  Value result = product.getResult(0);
  linalg::GenericOp epilogue;
  if (!addInit && (epilogue = getUnaryEpilogue(conv.getResult(0))))
    result = cloneUnaryEpilogue(rewriter, epilogue, result).getResult(0);
  Value out = onePixel ? result : transposeBy16(rewriter, loc, result);
  if (addInit) {
    Value init2 = tensor::CollapseShapeOp::create(rewriter, loc, outType, init,
                                                  outGroups);
    out = linalg::GenericOp::create(
              rewriter, loc, TypeRange{outType}, ValueRange{out},
              ValueRange{init2},
              ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(2),
                                  rewriter.getMultiDimIdentityMap(2)},
              parallel2,
              [](OpBuilder &b, Location l, ValueRange args) {
                linalg::YieldOp::create(
                    b, l,
                    arith::AddFOp::create(b, l, args[0], args[1]).getResult());
              })
              .getResult(0);
  }
  Value expanded =
      tensor::ExpandShapeOp::create(rewriter, loc, initType, out, outGroups);
  replaceWithEpilogue(rewriter, conv, epilogue, expanded);
  return success();
}
