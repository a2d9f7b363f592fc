//===- ByteColumns.cpp - A QDQ convolution's columns of bytes -------------===//
//
// The columns [K, N * OH * OW] of a QDQ convolution's byte product
// (--mlprog-quantized-convolutions): gathered from its input bytes, padded
// with their zero point, as a column tensor, or written straight into the
// product's panels (see packBytePanels in BytePanels.cpp).
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <numeric>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::cpu;

static constexpr int64_t kLanes = kByteLanes;

Value cpu::gatherColumns(RewriterBase &rewriter, Location loc, Value bytes,
                         Value zero, ArrayRef<int64_t> window,
                         ArrayRef<int64_t> output, ArrayRef<int64_t> strides,
                         ArrayRef<int64_t> dilations, int64_t columns,
                         int64_t depth, int64_t imageColumns) {
  auto i8 = rewriter.getI8Type();
  auto type = cast<RankedTensorType>(bytes.getType());
  int64_t n = type.getDimSize(0), c = type.getDimSize(1);
  int64_t kh = window[0], kw = window[1], oh = output[0], ow = output[1];
  int64_t rows = kh * kw, pixels = oh * ow;
  int64_t span = (ow - 1) * strides[1] + 1;
  auto index = [&](OpBuilder &b, int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value).getResult();
  };
  Value empty = tensor::EmptyOp::create(rewriter, loc, {depth, columns}, i8);
  auto forall = scf::ForallOp::create(
      rewriter, loc, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(c)},
      ValueRange{empty}, /*mapping=*/std::nullopt);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(forall.getBody());
  Value channel = forall.getInductionVars()[0];
  Value output0 = forall.getRegionIterArgs().front();
  Value firstRow =
      arith::MulIOp::create(rewriter, loc, channel, index(rewriter, rows));
  SmallVector<OpFoldResult> offsets = {firstRow, rewriter.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(rows),
                                     rewriter.getIndexAttr(columns)};
  SmallVector<OpFoldResult> unit(2, rewriter.getIndexAttr(1));
  Value tile = tensor::ExtractSliceOp::create(
      rewriter, loc, RankedTensorType::get({rows, columns}, i8), output0,
      offsets, sizes, unit);
  // The zero-point columns after each image's pixels, and after the last
  // image's columns.
  auto writeZeros = [&](int64_t first, int64_t count) {
    if (count == 0)
      return;
    Value zeros = vector::BroadcastOp::create(
        rewriter, loc, VectorType::get({count}, i8), zero);
    for (int64_t r = 0; r < rows; ++r)
      tile = vector::TransferWriteOp::create(
                 rewriter, loc, zeros, tile,
                 ValueRange{index(rewriter, r), index(rewriter, first)},
                 ArrayRef<bool>{true})
                 .getResult();
  };
  for (int64_t image = 0; image < n; ++image)
    writeZeros(image * imageColumns + pixels, imageColumns - pixels);
  writeZeros(n * imageColumns, columns - n * imageColumns);
  SmallVector<int64_t> keep;
  for (int64_t i = 0; i < ow; ++i)
    keep.push_back(i * strides[1]);
  Value pad = arith::ConstantIntOp::create(rewriter, loc, 0, 8);
  // Loops over (kh, kw, n, oh), each writing one output row.
  auto loopOver = [&](OpBuilder &b, int64_t extent, Value init,
                      function_ref<Value(OpBuilder &, Value, Value)> body) {
    return scf::ForOp::create(
               b, loc, index(b, 0), index(b, extent), index(b, 1),
               ValueRange{init},
               [&](OpBuilder &nb, Location, Value iv, ValueRange args) {
                 scf::YieldOp::create(nb, loc, body(nb, iv, args[0]));
               })
        .getResult(0);
  };
  Value filled =
      loopOver(rewriter, kh, tile, [&](OpBuilder &b1, Value i, Value t1) {
        return loopOver(b1, kw, t1, [&](OpBuilder &b2, Value j, Value t2) {
          Value row = arith::AddIOp::create(
              b2, loc, arith::MulIOp::create(b2, loc, i, index(b2, kw)), j);
          Value column0 =
              arith::MulIOp::create(b2, loc, j, index(b2, dilations[1]));
          return loopOver(b2, n, t2, [&](OpBuilder &b3, Value image, Value t3) {
            return loopOver(b3, oh, t3, [&](OpBuilder &b4, Value y, Value t4) {
              Value inputRow = arith::AddIOp::create(
                  b4, loc,
                  arith::MulIOp::create(b4, loc, y, index(b4, strides[0])),
                  arith::MulIOp::create(b4, loc, i, index(b4, dilations[0])));
              Value read = vector::TransferReadOp::create(
                  b4, loc, VectorType::get({span}, i8), bytes,
                  ValueRange{image, channel, inputRow, column0}, pad,
                  ArrayRef<bool>{true});
              if (strides[1] != 1)
                read = vector::ShuffleOp::create(b4, loc, read, read, keep);
              Value pixel = arith::AddIOp::create(
                  b4, loc,
                  arith::MulIOp::create(b4, loc, image,
                                        index(b4, imageColumns)),
                  arith::MulIOp::create(b4, loc, y, index(b4, ow)));
              return vector::TransferWriteOp::create(b4, loc, read, t4,
                                                     ValueRange{row, pixel},
                                                     ArrayRef<bool>{true})
                  .getResult();
            });
          });
        });
      });
  rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(rewriter, loc, filled, output0, offsets,
                                        sizes, unit);
  rewriter.setInsertionPointAfter(forall);
  Value result = forall.getResult(0);
  // Rows of the zero point up to `depth`.
  if (depth > c * rows) {
    Value rest =
        tensor::EmptyOp::create(rewriter, loc, {depth - c * rows, columns}, i8);
    rest = linalg::FillOp::create(rewriter, loc, zero, rest).getResult(0);
    result = tensor::InsertSliceOp::create(
        rewriter, loc, rest, result,
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(c * rows),
                               rewriter.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(depth - c * rows),
                               rewriter.getIndexAttr(columns)},
        unit);
  }
  return result;
}

Value cpu::gatherPanels(RewriterBase &rewriter, Location loc, Value bytes,
                        Value zero, ArrayRef<int64_t> window,
                        ArrayRef<int64_t> output, ArrayRef<int64_t> strides,
                        ArrayRef<int64_t> dilations, int64_t columns,
                        int64_t depth, int64_t imageColumns) {
  auto i8 = rewriter.getI8Type();
  auto type = cast<RankedTensorType>(bytes.getType());
  int64_t n = type.getDimSize(0), c = type.getDimSize(1);
  int64_t kh = window[0], kw = window[1], oh = output[0], ow = output[1];
  int64_t taps = kh * kw, pixels = oh * ow, width = type.getDimSize(3);
  int64_t period = kLanes / std::gcd(ow, kLanes);
  // Blocks of `period` rows of each image (its pixels whole panels), or of
  // the batch's rows (the images' pixels contiguous: 14 x 14 at batch 8).
  bool perImage =
      pixels % kLanes == 0 && oh % period == 0 && imageColumns % kLanes == 0;
  bool batchRows = imageColumns == pixels && n * oh % period == 0;
  if (depth != c * taps || (!perImage && !batchRows) || columns % kLanes != 0 ||
      columns < n * imageColumns)
    return {};
  int64_t steps = depth / kBytesPerLane, blockPanels = period * ow / kLanes;
  int64_t line = kLanes * kBytesPerLane;
  auto index = [&](OpBuilder &b, int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value).getResult();
  };
  Value empty = tensor::EmptyOp::create(rewriter, loc,
                                        {columns / kLanes, steps, line}, i8);
  auto forall = scf::ForallOp::create(
      rewriter, loc,
      ArrayRef<OpFoldResult>{
          rewriter.getIndexAttr(perImage ? n : 1),
          rewriter.getIndexAttr((perImage ? oh : n * oh) / period)},
      ValueRange{empty}, /*mapping=*/std::nullopt);
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToStart(forall.getBody());
  Value image = forall.getInductionVars()[0];
  Value block = forall.getInductionVars()[1];
  Value shared = forall.getRegionIterArgs().front();
  Value firstPanel = arith::AddIOp::create(
      rewriter, loc,
      arith::MulIOp::create(
          rewriter, loc, image,
          index(rewriter, perImage ? imageColumns / kLanes : 0)),
      arith::MulIOp::create(rewriter, loc, block,
                            index(rewriter, blockPanels)));
  SmallVector<OpFoldResult> offsets = {firstPanel, rewriter.getIndexAttr(0),
                                       rewriter.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(blockPanels),
                                     rewriter.getIndexAttr(steps),
                                     rewriter.getIndexAttr(line)};
  SmallVector<OpFoldResult> unit(3, rewriter.getIndexAttr(1));
  Value tile = tensor::ExtractSliceOp::create(
      rewriter, loc, RankedTensorType::get({blockPanels, steps, line}, i8),
      shared, offsets, sizes, unit);
  Value firstRow =
      arith::MulIOp::create(rewriter, loc, block, index(rewriter, period));
  Value pad = arith::ConstantIntOp::create(rewriter, loc, 0, 8);
  auto loop = scf::ForOp::create(
      rewriter, loc, index(rewriter, 0), index(rewriter, steps),
      index(rewriter, 1), ValueRange{tile},
      [&](OpBuilder &b, Location l, Value step, ValueRange args) {
        // The step's 4 rows of K, (c, kh, kw) each: channel, input row and
        // column offsets.
        SmallVector<Value> channel, rowOffset, columnOffset;
        for (int64_t j = 0; j < kBytesPerLane; ++j) {
          Value k = arith::AddIOp::create(
              b, l, arith::MulIOp::create(b, l, step, index(b, kBytesPerLane)),
              index(b, j));
          Value tap = arith::RemUIOp::create(b, l, k, index(b, taps));
          channel.push_back(arith::DivUIOp::create(b, l, k, index(b, taps)));
          rowOffset.push_back(arith::MulIOp::create(
              b, l, arith::DivUIOp::create(b, l, tap, index(b, kw)),
              index(b, dilations[0])));
          columnOffset.push_back(arith::MulIOp::create(
              b, l, arith::RemUIOp::create(b, l, tap, index(b, kw)),
              index(b, dilations[1])));
        }
        Value written = args[0];
        for (int64_t r = 0; r < period; ++r) {
          // The row's image and output row (of the batch's rows: R / OH
          // and R % OH).
          Value y = arith::AddIOp::create(b, l, firstRow, index(b, r));
          Value rowImage = image;
          if (!perImage) {
            rowImage = arith::DivUIOp::create(b, l, y, index(b, oh));
            y = arith::RemUIOp::create(b, l, y, index(b, oh));
          }
          Value inputRow = arith::MulIOp::create(b, l, y, index(b, strides[0]));
          // Runs of the row's pixels within one panel.
          for (int64_t first = 0; first < ow;) {
            int64_t column = r * ow + first;
            int64_t len = std::min(ow - first, kLanes - column % kLanes);
            // A read of a power of two bytes where the row has them (a
            // vector of 31 or 12 bytes is loaded piece by piece).
            int64_t span = (len - 1) * strides[1] + 1;
            int64_t wide = llvm::PowerOf2Ceil(span);
            if (first * strides[1] + (kw - 1) * dilations[1] + wide <= width)
              span = wide;
            SmallVector<int64_t> keep;
            for (int64_t i = 0; i < len; ++i)
              keep.push_back(i * strides[1]);
            SmallVector<Value> rows;
            for (int64_t j = 0; j < kBytesPerLane; ++j) {
              Value read = vector::TransferReadOp::create(
                  b, l, VectorType::get({span}, i8), bytes,
                  ValueRange{
                      rowImage, channel[j],
                      arith::AddIOp::create(b, l, inputRow, rowOffset[j]),
                      arith::AddIOp::create(b, l, columnOffset[j],
                                            index(b, first * strides[1]))},
                  pad, ArrayRef<bool>{true});
              if (span != len)
                read = vector::ShuffleOp::create(b, l, read, read, keep);
              rows.push_back(read);
            }
            Value flat = interleaveByteRows(b, l, rows);
            written = vector::TransferWriteOp::create(
                          b, l, flat, written,
                          ValueRange{index(b, column / kLanes), step,
                                     index(b, column % kLanes * kBytesPerLane)},
                          ArrayRef<bool>{true})
                          .getResult();
            first += len;
          }
        }
        scf::YieldOp::create(b, l, written);
      });
  rewriter.setInsertionPointToStart(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(rewriter, loc, loop.getResult(0),
                                        shared, offsets, sizes, unit);
  rewriter.setInsertionPointAfter(forall);
  Value result = forall.getResult(0);
  // The zero point in the panels after each image's pixels and after the
  // batch's columns.
  auto fillPanels = [&](int64_t first, int64_t count) {
    if (count == 0)
      return;
    Value zeros =
        tensor::EmptyOp::create(rewriter, loc, {count, steps, line}, i8);
    zeros = linalg::FillOp::create(rewriter, loc, zero, zeros).getResult(0);
    result = tensor::InsertSliceOp::create(
        rewriter, loc, zeros, result,
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(first),
                               rewriter.getIndexAttr(0),
                               rewriter.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{rewriter.getIndexAttr(count),
                               rewriter.getIndexAttr(steps),
                               rewriter.getIndexAttr(line)},
        ArrayRef<OpFoldResult>(unit));
  };
  for (int64_t i = 0; i < n; ++i)
    fillPanels((i * imageColumns + pixels) / kLanes,
               (imageColumns - pixels) / kLanes);
  fillPanels(n * imageColumns / kLanes, (columns - n * imageColumns) / kLanes);
  return result;
}
