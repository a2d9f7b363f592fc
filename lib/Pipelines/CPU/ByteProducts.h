//===- ByteProducts.h - Byte products with AVX-512 VNNI ---------*- C++ -*-===//
//
// Private to lib/Pipelines/CPU, included by CPUCodegen.h: the byte
// products (u8 x s8 contractions as `vpdpbusd`) of QDQ convolutions and
// integer matmuls: their dot products, operands' panels and sums
// (DotProducts.cpp, BytePanels.cpp), a convolution's columns of bytes
// (ByteColumns.cpp), the requantizing epilogues computed in their
// register blocks (ByteProductEpilogues.cpp) and the columns the blocks do
// not write whole (ByteProductEdges.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_LIB_PIPELINES_CPU_BYTEPRODUCTS_H
#define MLPROG_LIB_PIPELINES_CPU_BYTEPRODUCTS_H

#include "mlprog/Pipelines/CPU/CPUTarget.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlprog::cpu {

/// Lanes of an i32 zmm; bytes per lane (K steps per `vpdpbusd`).
inline constexpr int64_t kByteLanes = 16;
inline constexpr int64_t kBytesPerLane = 4;

/// `acc + sum of 4 products` per lane of `acc` (vector<16xi32>): the
/// unsigned bytes `a` times the signed bytes `bytes` (vector<64xi8> each),
/// lane i summing bytes [4 i, 4 i + 4). Written as vector arithmetic (exact
/// and free of side effects, as bufferization and deallocation need);
/// --mlprog-lower-dot-products-to-vnni makes it one AVX-512 VNNI
/// `vpdpbusd` after bufferization.
mlir::Value dotProducts(mlir::OpBuilder &b, mlir::Location loc, mlir::Value acc,
                        mlir::Value a, mlir::Value bytes);

/// B [K, N] (i8) as panels [N / 16, K / 4, 64]: for each group of 16
/// columns and 4 K steps, the 4 bytes of a column side by side, so that a
/// zmm load is the `vpdpbusd` operand for 16 columns. A constant's are a
/// tensor.expand_shape and a linalg.transpose of it, which
/// --mlprog-fold-constant-panels computes at compile time; others are
/// packed at run time by vector shuffles (unpack instructions) in an
/// scf.forall over blocks of K steps; the columns of unpackBytePanels are
/// their panels.
mlir::Value packBytePanels(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value bytes, int64_t depth, int64_t n);

/// The columns [K, `columns`] of a window of `window` (KH, KW) over `bytes`
/// [N, C, H, W] (padded already) for an output of `output` (OH, OW), image
/// n's from column n * `imageColumns` (OH * OW, or more: images padded
/// each):
///
///   col[(c, kh, kw), n * imageColumns + oh * OW + ow] =
///       bytes[n, c, oh * sh + kh * dh, ow * sw + kw * dw]
///
/// and `zero` in the other columns up to `columns` and in the rows after
/// C * KH * KW up to `depth`. Vector code: an scf.forall
/// over the channels, each writing its KH * KW rows; one output row (OW
/// bytes) is one vector read, every sw-th byte of it kept by a shuffle for a
/// stride, and one vector write.
mlir::Value gatherColumns(mlir::RewriterBase &rewriter, mlir::Location loc,
                          mlir::Value bytes, mlir::Value zero,
                          llvm::ArrayRef<int64_t> window,
                          llvm::ArrayRef<int64_t> output,
                          llvm::ArrayRef<int64_t> strides,
                          llvm::ArrayRef<int64_t> dilations, int64_t columns,
                          int64_t depth, int64_t imageColumns);

/// The columns of gatherColumns (the same arguments and layout) written
/// directly as the byte product's panels [columns / 16, depth / 4, 64]
/// (see packBytePanels), so that they are neither written as columns nor
/// read back to be packed (at batch 8, 14 MB for stage 1 of a ResNet, read
/// 4 rows at a time 25 KB apart). An scf.forall over (image, block of
/// `period` output rows whose pixels fill whole panels: 2 rows of 56, 4 of
/// 28) or, with the images' pixels contiguous, over blocks of the batch's
/// rows (8 rows of 14 at batch 8), and in each a loop over K steps: the
/// step's 4 rows (c, kh, kw) of the window, read for each run of an output
/// row's pixels within one panel, interleaved by vector shuffles (pixel
/// i's 4 bytes at [4 i, 4 i + 4)) and written to the panel. The columns
/// after each image's pixels and after the batch's hold the zero point.
/// Null, emitting nothing, where K is padded (depth > C * KH * KW) or the
/// rows are not whole blocks (14 x 14 or 7 x 7 at batch 1, 7 x 7 at 8).
mlir::Value gatherPanels(mlir::RewriterBase &rewriter, mlir::Location loc,
                         mlir::Value bytes, mlir::Value zero,
                         llvm::ArrayRef<int64_t> window,
                         llvm::ArrayRef<int64_t> output,
                         llvm::ArrayRef<int64_t> strides,
                         llvm::ArrayRef<int64_t> dilations, int64_t columns,
                         int64_t depth, int64_t imageColumns);

/// The 4 byte vectors `rows` (4 rows of B, len columns each) interleaved
/// into one vector of 4 * len bytes, column i's 4 bytes at [4 i, 4 i + 4):
/// one step of B's panels (see packBytePanels), by two rounds of
/// vector.shuffle (unpack instructions).
mlir::Value interleaveByteRows(mlir::OpBuilder &b, mlir::Location loc,
                               llvm::ArrayRef<mlir::Value> rows);

/// The columns B [K, N] (i8) of the panels [N / 16, K / 4, 64] that a
/// convolution's gather wrote directly (see packBytePanels for the
/// layout): tensor.expand_shape to [N / 16, K / 4, 16, 4], linalg.transpose
/// to [K / 4, 4, N / 16, 16] and tensor.collapse_shape, which packBytePanels
/// recognizes and reads as the panels themselves (the transpose is then
/// dead); anywhere else it is the columns.
mlir::Value unpackBytePanels(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value panels);

/// A [M, K] (i8) as row panels [M / mr, K / 4, mr * 4]: the 4 bytes of each
/// K step of a register block's mr rows side by side, so that the block's
/// broadcasts read one sequential stream (from mr rows K bytes apart, a
/// row block of a [2048, 512] weight started 8 streams of 8 cache lines
/// each). Only for a constant A (see getConstantElements), whose panels
/// --mlprog-fold-constant-panels computes at compile time; null otherwise.
mlir::Value packByteRowPanels(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value bytes, int64_t m, int64_t depth,
                              int64_t mr);

/// The sums of the columns of B, sum_k b[k, n] [N] i32, from its panels
/// (see packBytePanels; signed bytes with `isSigned`, else unsigned):
/// `vpdpbusd` with all-ones bytes for A.
mlir::Value byteColumnSums(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value panels, int64_t depth, int64_t n,
                           bool isSigned);

/// The sums of the rows of A [M, K] (`depth` = K; signed or unsigned
/// bytes), sum_k a[m, k] [M] i32: a constant computed now for a constant A
/// (see getConstantElements), else a reduction at run time.
mlir::Value byteRowSums(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a,
                        int64_t m, int64_t depth, bool isSigned);

/// An elementwise linalg.generic over `bytes` (identity map) yielding
/// `ext(b) - ext(zero)` in i32, or `ext(b)` without `zero` (a rank-0 8-bit
/// tensor); extsi for `isSigned`, else extui. The form in which a byte
/// product's factors are written, and recognized
/// (--mlprog-integer-contractions-to-f32).
mlir::Value widenBytes(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value bytes, mlir::Value zero, bool isSigned);

/// The elementwise linalg.generic a byte product [M, N] feeds (a QDQ
/// convolution's requantization), through views of the product in the
/// convolution's layout. One image:
///
///   product -> (tensor.extract_slice of its leading `columns`, dropping
///   columns of padding) -> tensor.expand_shape to the convolution's
///   [1, F, OH, OW] (M and N each one group of dimensions) -> the generic,
///   reading it through the identity map.
///
/// A batch of `images` > 1, N being `images` runs of `imageColumns`
/// columns, the first `columns` of each an image's pixels:
///
///   product -> tensor.expand_shape to [M, images, imageColumns] ->
///   tensor.extract_slice [M, images, columns] -> tensor.expand_shape to
///   [M, images, OH, OW] (without padding, one tensor.expand_shape
///   [M, images * columns] -> [M, images, OH, OW], after a slice of the
///   leading images * columns where the product has columns of padding
///   after the batch's) -> the generic, reading
///   it with its first two dimensions swapped, its result the
///   convolution's [images, F, OH, OW].
struct ByteProductEpilogue {
  mlir::linalg::GenericOp generic;
  /// The views between the product and the generic, in order.
  llvm::SmallVector<mlir::Operation *, 3> views;
  /// The last of them, whose result the generic reads.
  mlir::tensor::ExpandShapeOp expand;
  /// One image: the slice of the real columns, or null.
  mlir::tensor::ExtractSliceOp slice;
  /// The columns the epilogue reads: of each image in a batch; N for one
  /// image without a slice.
  int64_t columns = 0;
  /// The images of a batch (see above); 1 for one image, whose columns
  /// are all N.
  int64_t images = 1;
  int64_t imageColumns = 0;
  /// When the epilogue yields `ext(x)` in i32 of an 8-bit value x (the
  /// requantized bytes widened for the next byte product, as elementwise
  /// fusion merges the two): that extension. The register blocks then
  /// write x, and a widening generic of its own (widenBytes) follows, which
  /// the next product recognizes as widened bytes and reads in place.
  mlir::Operation *widening = nullptr;
  /// A second contraction the generic reads through views like the
  /// product's (equal ops on a result of the same type, the same map): the
  /// downsampling convolution a residual block's epilogue adds to its last
  /// convolution. The register blocks compute it beside the product (see
  /// emitU8S8Contraction); null if none.
  mlir::linalg::LinalgOp other;
  /// Its views, in order.
  llvm::SmallVector<mlir::Operation *, 3> otherViews;
};

/// An input of a ByteProductEpilogue as the register blocks read it.
struct ByteEpilogueOperand {
  enum Kind { Product, OtherProduct, Element, Row, Scalar } kind;
  /// [M, columns] for Element ([images, M, columns] for a batch), [M] for
  /// Row, rank 0 for Scalar; null for the products.
  mlir::Value view;
};

/// Matches the epilogue of the byte product `op` (see ByteProductEpilogue):
/// every other input of the generic is read whole through the identity
/// map, or by a map of the M group's dimensions that leaves out only
/// dimensions of extent 1 (a bias per output channel), or is a scalar; the
/// payload applies to vectors (appliesToVectors) and does not read the
/// init. Nothing otherwise.
std::optional<ByteProductEpilogue>
matchByteProductEpilogue(mlir::linalg::LinalgOp op);

/// The inputs of `epilogue` as its register blocks read them, viewed in 2-D
/// ([M, columns]) or 1-D ([M]) by collapse_shapes created at the rewriter's
/// insertion point.
llvm::SmallVector<ByteEpilogueOperand>
viewByteEpilogueOperands(mlir::RewriterBase &rewriter,
                         ByteProductEpilogue epilogue);

/// The 16 elements of the epilogue's input `operand` at `row` and the 16
/// columns from `column` (of `image` in a batch; null for one image):
/// `sums` for the product, `otherSums` for the other product (see
/// ByteProductEpilogue::other), one vector read for an element-wise input
/// (columns past its end read 0 when `mayOverrun`: a register block over
/// columns of padding), one element broadcast for a per-row input (a bias)
/// or a scalar.
mlir::Value readByteEpilogueOperand(mlir::OpBuilder &b, mlir::Location loc,
                                    const ByteEpilogueOperand &operand,
                                    mlir::Value sums, mlir::Value otherSums,
                                    mlir::Value image, mlir::Value row,
                                    mlir::Value column, bool mayOverrun);

/// Whether emitU8S8Contraction applies to the shapes of `op` on `target`.
bool supportsU8S8Contraction(mlir::linalg::LinalgOp op,
                             const CPUTarget &target);

/// The operands of a byte contraction for emitU8S8Contraction: one of A
/// and B holds unsigned bytes and the other signed ones (i8 either way).
struct ByteContraction {
  /// A [m.., K] and B [K, N] (the shapes of the contraction's operands).
  mlir::Value a, b;
  /// Their zero points, i32 scalars.
  mlir::Value aZero, bZero;
  /// A is the signed operand (and B the unsigned one); else the reverse.
  bool aIsSigned = false;
  /// A zero point known to be 0 drops its correction term (column sums of
  /// B for za, row sums of A for zb).
  bool aZeroIsZero = false, bZeroIsZero = false;
};

/// The byte operands of `op` if it is an i32 contraction C[m.., n] +=
/// (a[m.., k] - za) * (b[k, n] - zb) of widened bytes, one factor unsigned
/// and the other signed, that emitU8S8Contraction computes on `target`
/// (creating the bytes' views or clones and the zero points); failure,
/// creating nothing, otherwise.
mlir::FailureOr<ByteContraction>
matchByteContraction(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp op,
                     const CPUTarget &target);

/// Computes `op`, an i32 contraction C[m.., n] += (a[m.., k] - za) *
/// (b[k, n] - zb) with one K loop, as AVX-512 VNNI dot products (see
/// DotProducts.cpp) of the bytes in `operands`. Needs static shapes, K a
/// multiple of 4 and N of 16, and a target with AVX-512 VNNI; fails,
/// leaving `op` alone, otherwise.
mlir::LogicalResult emitU8S8Contraction(mlir::RewriterBase &rewriter,
                                        mlir::linalg::LinalgOp op,
                                        const ByteContraction &operands,
                                        const CPUTarget &target);

//===----------------------------------------------------------------------===//
// A product's columns at image boundaries and past whole panels
// (ByteProductEdges.cpp)
//===----------------------------------------------------------------------===//

/// The blocks of a byte product whose epilogue writes a batch's
/// [images, M, imageColumns], the images' columns contiguous in the
/// product's N (see emitStraddlingBlock).
struct StraddlingBlocks {
  /// Products computed (2 with ByteProductEpilogue::other), rows of a
  /// block, its panels of 16 columns, the product's columns.
  int64_t products, rows, panels, columns;
  int64_t images, imageColumns;
};

/// Computes the block of rows [row, row + rows) and the product's columns
/// [column, column + 16 panels) (`computeSums` its sums per panel and row,
/// `finish` the epilogue on 16 of them at a row and a column of an image)
/// and writes, from the forall's terminator, its columns in `image` (from
/// `imageColumn`) into `output` [images, M, imageColumns] and those that
/// pass into the next image into `side` [N / (16 panels), M, 16 panels] at
/// [column block, row, 0], as columns from 0 of that image
/// (fillStraddledColumns copies them there). A block within one image
/// writes its vectors whole; one that spans two (or the batch's end) writes
/// each vector's lanes of the first image masked by the slice's size, and
/// the lanes of the next moved down to its column 0 (shiftLanesDown) and
/// written under a mask. Columns past the batch's (the product's padding)
/// are not written.
void emitStraddlingBlock(
    mlir::RewriterBase &rewriter, mlir::Location loc,
    mlir::scf::ForallOp forall,
    llvm::function_ref<llvm::SmallVector<mlir::Value>(int64_t)> computeSums,
    llvm::function_ref<mlir::Value(mlir::Value, mlir::Value, mlir::Value,
                                   int64_t, mlir::Value, bool)>
        finish,
    const StraddlingBlocks &blocks, mlir::Value row, mlir::Value column,
    mlir::Value image, mlir::Value imageColumn);

/// `output` [images, M, imageColumns] with the columns that emitStraddlingBlock
/// wrote into `side` copied to their images: for each image boundary
/// within a block, the block's columns of the next image (a static
/// [M, count] slice of `side` at [block, 0, 0] into [image, 0, 0]).
mlir::Value fillStraddledColumns(mlir::RewriterBase &rewriter,
                                 mlir::Location loc, mlir::Value output,
                                 mlir::Value side,
                                 const StraddlingBlocks &blocks);

/// A byte product's operands as emitTailColumns reads them: A [M, K]
/// (signed bytes), B's panels, the correction terms, C (see
/// emitU8S8Contraction) and K.
struct TailProduct {
  mlir::Value a2, panels, colSums, rowSum, fill, c2, za, zb, constant;
  int64_t depth;
};
/// M and the columns [first, first + count) of one image to compute.
struct TailColumns {
  int64_t m, first, count;
};

/// Computes the columns [first, first + count) of a byte product of one
/// image (1 of a 7 x 7 map's 49, 4 of a 14 x 14 map's 196: the real columns
/// past whole panels, at most kMaxTailColumns; K a multiple of 64) with its
/// epilogue into `output` [M, N], as matrix-vector products: the columns'
/// bytes gathered from B's panels into [count, K], then an scf.forall over
/// groups of 16 rows, for each column 16 accumulators (one per row), each
/// `vpdpbusd` of 64 bytes of the column times 64 of the row's, summed across
/// lanes after the K loop: a column costs 1/16 of a panel's products. The
/// epilogue is applied to each column's 16 rows (a per-row operand read as
/// 16 elements, an element-wise one as 16 elements of a column), the
/// results written down the column. `products` holds the product and, for
/// an epilogue that adds a second one (ByteProductEpilogue::other, its own
/// K), that one: both computed for the same rows and columns.
mlir::Value
emitTailColumns(mlir::RewriterBase &rewriter, mlir::Location loc,
                mlir::Value output, llvm::ArrayRef<TailProduct> products,
                const TailColumns &tail, const ByteProductEpilogue &epilogue,
                llvm::ArrayRef<ByteEpilogueOperand> epilogueOperands);

} // namespace mlprog::cpu

#endif // MLPROG_LIB_PIPELINES_CPU_BYTEPRODUCTS_H
