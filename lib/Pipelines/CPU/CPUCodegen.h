//===- CPUCodegen.h - Internals of the CPU code generation ------*- C++ -*-===//
//
// Private to lib/Pipelines/CPU: the pieces of the -O2 code generation of
// --mlprog-lower-to-cpu that its passes share. Strategy (which contractions
// to block and how: ContractionStrategy.cpp) is kept apart from the
// transforms that apply it (ContractionInit.cpp, Packing.cpp,
// RegisterBlocking.cpp, Im2col.cpp, WindowOps.cpp); the passes
// (TileAndVectorizeContractions.cpp, VectorizeElementwise.cpp,
// LowerStridedCopies.cpp) only drive them. Everything works on f32 linalg
// ops on tensors with static shapes unless it says otherwise; a transform
// that does not apply leaves the IR alone.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_LIB_PIPELINES_CPU_CPUCODEGEN_H
#define MLPROG_LIB_PIPELINES_CPU_CPUCODEGEN_H

#include "ByteProducts.h"
#include "mlprog/Pipelines/CPU/CPUTarget.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Vector/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/Transforms/SubsetOpInterfaceImpl.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>

namespace mlprog::cpu {

//===----------------------------------------------------------------------===//
// Contraction strategy (ContractionStrategy.cpp)
//===----------------------------------------------------------------------===//

/// Loop-dimension roles of a contraction that we know how to block.
struct ContractionPlan {
  /// Static range of every loop.
  llvm::SmallVector<int64_t> ranges;
  /// Batch, M, N and K loops (linalg::inferContractionDims).
  mlir::linalg::ContractionDimensions dims;
  /// The innermost M, N and K loop dimensions.
  int64_t m, n, k;
  /// The input operand that carries N and not M (B); the other one is A.
  int b;
  /// Whether B is a weight (isConstantGlobal): at batch 1 it is the large
  /// operand, read from memory on every call.
  bool weightB;
};

/// Tile sizes of the strategy for one target: register block mr x nr, cache
/// tile Mc x Nc, K block Kc.
struct TileConfig {
  int64_t mr, nr, mc, nc, kc;
};

/// One contraction input to copy into register-block panels: B [batch..., K,
/// N] is split along N (its last dimension), A [batch..., M, K] along M (its
/// second-to-last); either way the panels are [batch..., outer, K, tile] with
/// `tile` = nr or mr, so a register block's K loop reads one contiguous
/// stream of `tile` elements per K step.
struct PackedOperand {
  int index;          ///< Input operand number of the contraction.
  mlir::Value source; ///< The contraction's operand.
  mlir::Value packed; ///< [batch..., size / tile, K, tile] (set by pack).
  int64_t tile;       ///< nr or mr.
  bool splitLast;     ///< B (split the last dimension) or A (the one before).
};

/// Contractions with at most this N are padded to full vectors (see
/// padForRegisterBlocks) rather than split.
inline constexpr int64_t kMaxPaddedN = 64;

/// Whether `op` is a contraction on tensors (two inputs, one init,
/// `linalg::isaContractionOpInterface`) whose operands are all f32: the
/// contractions the CPU code generation blocks.
bool isF32Contraction(mlir::linalg::LinalgOp op);

/// Checks that `op` is an f32 contraction with static loop ranges whose
/// innermost N dimension is contiguous in the output and the N-side input
/// (B); nothing otherwise.
std::optional<ContractionPlan> planContraction(mlir::linalg::LinalgOp op);

/// The most rows (M) of a register block on `target`: 8 with 32 vector
/// registers (AVX-512), else 4.
int64_t getMaxRegisterRows(const CPUTarget &target);

/// Whether `m` rows are whole register blocks of at least 7/8 of
/// getMaxRegisterRows() (7 with AVX-512: the 49 and 196 pixels of 7x7 and
/// 14x14 output maps), so that they need neither zero rows nor a remainder.
bool hasRegisterRowDivisor(int64_t m, const CPUTarget &target);

/// Tile sizes that divide the loop ranges of `plan`, so every register block
/// has the full static size and no masks are needed: mr x nr is 8 x 32 with
/// AVX-512 and 4 x 16 with AVX2 (fewer when the ranges are not multiples),
/// Kc all of K up to 768, else a divisor of K up to 512, Nc the largest
/// divisor of N up to 8 nr, Mc all of M when B is a weight and an Mc x Kc
/// block of A fits CPUTarget::getL2BlockBytes() (each weight is then read
/// once per call), else the largest divisor of M up to 16 mr; Nc (else Mc)
/// is halved when the output would be one tile, so a second thread has
/// work, and with all of M in one block Nc is halved (down to 2 nr) until
/// there are 16 tiles for the threads to share.
TileConfig chooseTiles(const CPUTarget &target, const ContractionPlan &plan);

/// The inputs of the contraction `op` (planned as `plan`, tiled as `config`)
/// worth copying into panels: B (then A) when its rows are a multiple of
/// 4 KiB apart (they alias in L1), K is at least 256 and the other side
/// spans at least 4 register blocks. Their `packed` values are still null.
llvm::SmallVector<PackedOperand>
choosePackedOperands(mlir::linalg::LinalgOp op, const ContractionPlan &plan,
                     const TileConfig &config, const CPUTarget &target);

/// Output rows per block when the [k, batch * oh * ow] column tensor of a
/// convolution is built and consumed in blocks (see
/// rewriteConvAsBlockedMatmul in Im2col.cpp), or 0 when it is built whole:
/// blocks hold whole output rows of one image, divide oh, hold a multiple
/// of the register block width (2 vectors, else 1) of columns and at most
/// CPUTarget::getL2BlockBytes(), and there are at least two of them. Column
/// tensors of up to twice that size are built whole.
int64_t chooseColumnBlockRows(int64_t k, int64_t batch, int64_t oh, int64_t ow,
                              const CPUTarget &target);

//===----------------------------------------------------------------------===//
// Contraction inits (ContractionInit.cpp)
//===----------------------------------------------------------------------===//

/// Whether `op` writes a rank-1 value broadcast along all but one dimension
/// of its output (the per-channel bias of a convolution or a Gemm):
///   out[d0, ..., dn] = bias[dk]
/// Returns k.
std::optional<unsigned> getBroadcastDim(mlir::linalg::GenericOp op);

/// What the [N, F, Oh, Ow] init `init` of a convolution (or depthwise
/// convolution) is when the code computing it can start from it instead: a
/// linalg.fill, or a generic broadcasting the per-feature bias along
/// dimension 1 (see getBroadcastDim). Null otherwise, and the code starts
/// from the init's values.
mlir::linalg::LinalgOp getConvolutionInit(mlir::Value init);

/// The convolution init `init` (see getConvolutionInit) rebuilt on the rank-2
/// product tensor `dest`, whose features are along dimension `featureDim`:
/// 0 for the [F, pixels] products of Im2col.cpp, 1 for the [pixels, F]
/// product of rewriteConvAsTransposedMatmul. A fill stays a fill; a bias
/// broadcast becomes dest[i0, i1] = bias[i_featureDim].
mlir::Value buildConvolutionInit(mlir::RewriterBase &rewriter,
                                 mlir::Location loc,
                                 mlir::linalg::LinalgOp init, mlir::Value dest,
                                 unsigned featureDim);

/// Gives the contraction `op` an init of its own when it starts from a fill
/// or a bias broadcast reached through reshapes or a tensor.pad, or shared
/// with other ops: a fresh fill or broadcast into a
/// bufferization.alloc_tensor right before `op`, which the contraction's
/// forall can fuse into its tiles, so bufferization writes the result in
/// place instead of copying the shared init.
void useOwnInit(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp op);

/// After splitForRegisterBlocks, gives every part of a contraction whose
/// whole `init` is a fill or a bias broadcast its slice of that fill or
/// broadcast as an op of its own, and lets the parts write into a
/// bufferization.alloc_tensor that they cover.
void splitInitProducer(mlir::RewriterBase &rewriter,
                       llvm::ArrayRef<mlir::linalg::LinalgOp> parts,
                       mlir::Value init);

//===----------------------------------------------------------------------===//
// Panels (Packing.cpp)
//===----------------------------------------------------------------------===//

/// The tensor a `tensor.extract_slice` with static offsets and sizes and
/// unit strides reads, with its offsets in `offsets` (when not null); other
/// values are returned as they are, with no offsets.
mlir::Value getStaticSliceSource(mlir::Value value,
                                 llvm::SmallVectorImpl<int64_t> *offsets);

/// The tensor under the `tensor.collapse_shape`/`tensor.expand_shape`
/// reshapes of `value` (the same elements in row-major order); `value`
/// itself when it is no reshape.
mlir::Value stripReshapes(mlir::Value value);

/// Whether `value` is a weight: a `bufferization.to_tensor` of a
/// `memref.get_global` of a constant `memref.global` with an initial value
/// (an immutable ml_program global after
/// --mlprog-convert-ml-program-to-memref), or a static block of one (see
/// getStaticSliceSource: the columns of a weight a split contraction's part
/// reads), through `tensor.collapse_shape`/`tensor.expand_shape` reshapes and
/// at most one `linalg.transpose` (a convolution's filter [F, C, Fh, Fw] read
/// as [C*Fh*Fw, F], see rewriteConvAsMatmul). Its panels are made at compile
/// time (--mlprog-fold-constant-panels).
bool isConstantGlobal(mlir::Value value);

/// The elements of the constant `value` is, through
/// `tensor.collapse_shape`/`tensor.expand_shape` reshapes (the same
/// elements in row-major order): an `arith.constant`'s value or the initial
/// value of a constant `memref.global` read whole by `bufferization.to_tensor`
/// of `memref.get_global`. Null for any other value.
mlir::ElementsAttr getConstantElements(mlir::Value value);

/// Copies `operand.source` into panels (see PackedOperand) and sets
/// `operand.packed`; with `parallel`, in an scf.forall over the panels. The
/// panels of a weight (isConstantGlobal) are a `tensor.expand_shape` and a
/// `linalg.transpose` of it instead, which --mlprog-fold-constant-panels
/// evaluates at compile time.
void pack(mlir::RewriterBase &rewriter, mlir::Location loc,
          PackedOperand &operand, bool parallel);

/// Points the operand of the register block `tiled` (a chain of unit-stride
/// extract_slices of `operand.source`) at the same elements of the panels.
/// Fails, leaving `tiled` alone, on any other form.
mlir::LogicalResult usePacked(mlir::RewriterBase &rewriter,
                              mlir::linalg::LinalgOp tiled,
                              const PackedOperand &operand);

//===----------------------------------------------------------------------===//
// Elementwise epilogues (Epilogues.cpp)
//===----------------------------------------------------------------------===//

/// The elementwise linalg.generic that is the only reader of the result of
/// `contraction` (directly or through one `tensor.expand_shape`, the
/// [F, H*W] -> [N, F, H, W] of a convolution's matmul), reads it through the
/// identity map, is in the contraction's block and has identity and
/// projected-permutation maps (no constant results) elsewhere,
/// with no linalg.index: the epilogue tileAndVectorize computes in the
/// register blocks. Behind an expand_shape, the generic is first collapsed
/// to the contraction's shape (its other operands get collapse_shapes) so
/// that it reads the result itself. Null when there is none.
mlir::linalg::GenericOp prepareEpilogue(mlir::RewriterBase &rewriter,
                                        mlir::linalg::LinalgOp contraction);

/// The unary elementwise linalg.generic that is the only user of `value`:
/// one input, `value`, and its init through identity maps, the init's
/// values unread, no linalg.index, a result of `value`'s type (ReLU, Clip,
/// SiLU after a convolution). Such an epilogue commutes with any
/// rearrangement of the elements. Null when there is none.
mlir::linalg::GenericOp getUnaryEpilogue(mlir::Value value);

/// A copy of the unary epilogue `epilogue` (see getUnaryEpilogue) applied to
/// `input`, of any shape, into a fresh tensor.empty.
mlir::linalg::GenericOp cloneUnaryEpilogue(mlir::RewriterBase &rewriter,
                                           mlir::linalg::GenericOp epilogue,
                                           mlir::Value input);

/// The elementwise linalg.generic that is the only user of `value` and
/// reads it as one of its inputs: every operand of `value`'s shape through
/// the identity map, one init whose values are unread, no linalg.index, in
/// `value`'s block (a ReLU, or the residual add of a ResNet block, after a
/// convolution). Null when there is none.
mlir::linalg::GenericOp getElementwiseEpilogue(mlir::Value value);

/// The elementwise epilogue of the convolution `conv` (see
/// getElementwiseEpilogue) that a product computing `conv` can compute too,
/// except a ReLU before a padded max pooling: the pooling reads its input
/// through zero padding and applies it to its own output (see
/// vectorizeMaxPool); applied to the convolution, its -inf padding became a
/// copy of the whole output (resnet18 at batch 8: 26 MiB).
mlir::linalg::GenericOp
getConvolutionEpilogue(mlir::linalg::Conv2DNchwFchwOp conv);

/// A copy of the elementwise epilogue `epilogue` (see getElementwiseEpilogue
/// and getUnaryEpilogue) on `inputs` (in the order of its inputs, all of one
/// shape, of any rank) into `init`.
mlir::linalg::GenericOp cloneEpilogue(mlir::RewriterBase &rewriter,
                                      mlir::linalg::GenericOp epilogue,
                                      mlir::ValueRange inputs,
                                      mlir::Value init);

/// Replaces `op` by `result` or, when `epilogue` (a reader of `op`'s only
/// result that `result` already computes) is set, the epilogue by `result`
/// and erases `op`.
void replaceWithEpilogue(mlir::RewriterBase &rewriter, mlir::Operation *op,
                         mlir::linalg::GenericOp epilogue, mlir::Value result);

/// Whether every op of the payload of the unary epilogue `epilogue` is an
/// elementwise-mappable op on scalars, so that applyToVector applies.
bool appliesToVectors(mlir::linalg::GenericOp epilogue);

/// The payload of the unary epilogue `epilogue` (see appliesToVectors)
/// applied to each element of `vector`: its ops on vectors of the same
/// shape, the scalars it reads from above broadcast.
mlir::Value applyToVector(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::linalg::GenericOp epilogue, mlir::Value vector);

/// The payload of the elementwise epilogue `epilogue` (see appliesToVectors)
/// applied to `vectors`, one per input of the epilogue in order, all of one
/// shape: its ops on vectors of that shape, the scalars it reads from above
/// broadcast. Its init must be unread (see getElementwiseEpilogue). Returns
/// the vector of `payloadValue`, a value of the payload (default: the one
/// it yields).
mlir::Value applyToVectors(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::linalg::GenericOp epilogue,
                           mlir::ValueRange vectors,
                           mlir::Value payloadValue = {});

//===----------------------------------------------------------------------===//
// Register blocking (RegisterBlocking.cpp)
//===----------------------------------------------------------------------===//

/// Tiles `op` with `sizes` (one per loop, 0 = untiled) into loops of
/// `loopType`, replaces it and returns the tiled op.
mlir::FailureOr<mlir::linalg::LinalgOp>
tileLinalgOp(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp op,
             llvm::ArrayRef<int64_t> sizes,
             mlir::scf::SCFTilingOptions::LoopType loopType);

/// Computes `op`, an f32 contraction of a single row with static ranges
/// (C[b.., n] += A[b.., k] B[b.., k, n]: M loops, if any, of range 1; one N
/// and one K loop; B reads every batch loop), as vector-matrix products in
/// register blocks of 1 x (q * nr) (see RowContractions.cpp), on the forall
/// threads when `parallel`. The columns beyond the last whole panel of nr
/// stay in a contraction of their own, for tileAndVectorize. Fails, leaving
/// `op` alone, when `op` is no such contraction.
mlir::LogicalResult vectorizeRowContraction(mlir::RewriterBase &rewriter,
                                            mlir::linalg::LinalgOp op,
                                            const CPUTarget &target,
                                            bool parallel);

//===----------------------------------------------------------------------===//
// Tiling and register blocks (RegisterBlocking.cpp, DynamicBatches.cpp,
// TileDynamicContractions.cpp)
//===----------------------------------------------------------------------===//

/// Tiles `op` by `sizes` into loops of `loopType`
/// (scf::tileConsumerAndFuseProducersUsingSCF), fusing the producers of its
/// operands that `fuse` accepts, replaces the uses of `op` with the loops'
/// results and erases it.
mlir::FailureOr<mlir::scf::SCFTileAndFuseResult>
tileAndFuseProducers(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp op,
                     llvm::ArrayRef<int64_t> sizes,
                     mlir::scf::SCFTilingOptions::LoopType loopType,
                     llvm::function_ref<bool(mlir::Operation *)> fuse);

/// Rewrites the tensor.dim ops of `values` into the extents those values
/// are computed from (ReifyRankedShapedTypeOpInterface), so that a dim does
/// not keep a value alive that is otherwise dead.
void resolveExtents(llvm::ArrayRef<mlir::Value> values);

/// Rewrites `op`, a convolution or pooling window on tensors
/// (linalg::isaConvolutionOpInterface) whose only dynamic loops are batch
/// loops (linalg::inferConvolutionDims), into an scf.for over the batch of
/// windows over one image each, with static shapes; its init (a fill or a
/// bias broadcast) and a tensor.pad of its input, when nothing else uses
/// them, are computed per image inside the loop (see DynamicBatches.cpp).
/// Fails, leaving `op` alone, for any other op.
mlir::LogicalResult tileDynamicBatch(mlir::RewriterBase &rewriter,
                                     mlir::linalg::LinalgOp op);

/// Applies the blocking strategy to one contraction: panels, an scf.forall
/// over Mc x Nc tiles (when `parallel`), K blocks, register blocks
/// vectorized to vector.contract. Leaves `op` alone (to the scalar loop
/// lowering) when a step does not apply.
void tileAndVectorize(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp op,
                      const CPUTarget &target, bool parallel);

/// Splits `op` along its innermost N dimension into parts whose N extents
/// are multiples of 2 and 1 vector widths and a narrow remainder, then each
/// part along its innermost M dimension into a multiple of
/// getMaxRegisterRows() and a remainder (the 197 tokens of a ViT would
/// otherwise get register blocks of one row). Returns the parts (just `op`
/// when it needs no split).
llvm::SmallVector<mlir::linalg::LinalgOp>
splitForRegisterBlocks(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp op,
                       const CPUTarget &target);

/// Pads the N dimension of a contraction whose N extent is at most
/// kMaxPaddedN and not a multiple of the vector width up to a multiple of
/// two vectors with zero columns. Returns the padded contraction, or `op`.
mlir::linalg::LinalgOp padForRegisterBlocks(mlir::RewriterBase &rewriter,
                                            mlir::linalg::LinalgOp op,
                                            const CPUTarget &target);

/// Drops the unit loops of a contraction generic, merges its remaining
/// batch loops into one (a named batch_matmul has a single batch
/// dimension; MLIR 22's specializeGenericOp would build an invalid one from
/// several), and turns it into the named op it then is (matmul,
/// batch_matmul, ...), when it is one; a generic whose batch loops cannot
/// be merged stays a generic.
void simplifyContraction(mlir::RewriterBase &rewriter,
                         mlir::linalg::GenericOp generic);

/// Rewrites a batched contraction generic whose B does not depend on the
/// batch, C[b..., m, n] += A[b..., m, k] * B[k, n] (so that
/// linalg::inferContractionDims sees several M dimensions; a linear layer
/// applied to [seq, batch, d] or [batch, seq, d] activations, as ONNX MatMul of
/// a rank-3 and a rank-2 tensor imports), as one linalg.matmul on A and C
/// collapsed to [b... * m, k] and [b... * m, n]: one GEMM with the batch in
/// its rows, whose register blocks are plain outer products. Fails (and
/// changes nothing) for other contractions.
mlir::LogicalResult collapseBatchIntoRows(mlir::RewriterBase &rewriter,
                                          mlir::linalg::GenericOp generic);

//===----------------------------------------------------------------------===//
// Convolution inputs (ConvolutionInput.cpp)
//===----------------------------------------------------------------------===//

/// The static values of an i64 elements attribute (strides, dilations).
llvm::SmallVector<int64_t> getValues(mlir::DenseIntElementsAttr attr);

/// The tensor a convolution reads, [N, C, H, W] with static sizes, and the
/// zero padding before its rows and columns. A `tensor.pad` of the spatial
/// dimensions by a constant 0 is looked through (the importers emit one for
/// every padded convolution), so that the padded copy is never made: reads
/// outside the source give 0 instead.
struct ConvSource {
  mlir::Value value;
  int64_t padTop = 0, padLeft = 0;
};

/// The source of `input` (see ConvSource): the operand of a static
/// `tensor.pad` with non-negative widths on dimensions 2 and 3 only and a
/// constant zero padding value, else `input` itself.
ConvSource getConvSource(mlir::Value input);

/// Reads `len` columns ix0, ix0 + sw, ..., ix0 + (len - 1) * sw (sw = 1 or
/// 2) of the row of the f32 tensor `x` at `row` (all indices but the last),
/// whose rows have `width` elements, as a vector<len x f32>; columns outside
/// [0, width) read as 0 (zero padding).
mlir::Value readRowColumns(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value x, mlir::ValueRange row, int64_t ix0,
                           int64_t len, int64_t sw, int64_t width);

/// Start columns of the `len`-wide vectors that cover a row of `width`
/// elements; the last one overlaps its predecessor when len does not divide
/// the width.
llvm::SmallVector<int64_t> getRowVectorStarts(int64_t width, int64_t len);

//===----------------------------------------------------------------------===//
// Convolutions (Im2col.cpp, TransposedConvolutions.cpp,
// DirectConvolutions.cpp)
//===----------------------------------------------------------------------===//

/// Rewrites a static f32 `linalg.conv_2d_nchw_fchw` directly (see
/// rewriteConvDirectly) or else into a column tensor
/// [C*Fh*Fw, N*Oh*Ow] and one `linalg.matmul` of the [F, C*Fh*Fw] filter
/// with it (in blocks of output rows when the column tensor is large), or,
/// for one image whose pixels are one or not a multiple of the vector width
/// and a weight filter, the transposed product: [Oh*Ow, C*Fh*Fw] x
/// [C*Fh*Fw, F], transposed back.
mlir::LogicalResult rewriteConvAsMatmul(mlir::RewriterBase &rewriter,
                                        mlir::linalg::Conv2DNchwFchwOp conv,
                                        const CPUTarget &target);

/// Whether rewriteConvDirectly applies to `conv`: f32, strides 1 or 2,
/// dilations 1, a window of 2 to 9 taps, C*Fh*Fw >= 64, features a multiple
/// of twice the vector width (8 or 16 lanes), output rows a multiple of 8
/// or 7 pixels, at least 14 such blocks of pixels over all images, a weight
/// filter (isConstantGlobal) and a fill or bias init (getConvolutionInit).
bool isDirectConvolution(mlir::linalg::Conv2DNchwFchwOp conv,
                         const CPUTarget &target);

/// Rewrites `conv` (see isDirectConvolution) into vector code reading its
/// padded input [N, C, H, W] directly (input[n, c, oh * sh + kh,
/// ow * sw + kw]), without a column tensor: an scf.forall over (panel of 2w
/// features, image, output row), w the vector width, each a loop over
/// blocks of r = 8 or 7 pixels of the row. A block's 2r accumulators start
/// from the bias and run a K loop over (c, kh, kw) of r broadcast input
/// pixels times the two vectors of its panel of the filter, packed
/// [F / 2w, C*Fh*Fw, 2w] at compile time; they are then transposed to the
/// output's layout in registers (transposeLaneGroups) and written as
/// r-pixel rows, with the convolution's elementwise epilogue
/// (getConvolutionEpilogue) applied on the way. Fails, changing nothing, on
/// other convolutions (DirectConvolutions.cpp).
mlir::LogicalResult rewriteConvDirectly(mlir::RewriterBase &rewriter,
                                        mlir::linalg::Conv2DNchwFchwOp conv,
                                        const CPUTarget &target);

/// Replaces the batch-1 convolution `conv` by the product of its column
/// tensor `col` [K, P] (K = C*Fh*Fw, P = Oh*Ow) and its filter transposed,
/// pixels as rows: outT[p, f] = initT[p, f] + sum_k col[k, p] * wT[k, f],
/// transposed back to [1, F, Oh, Ow], with a unary epilogue applied before
/// the transpose (TransposedConvolutions.cpp). Always succeeds.
mlir::LogicalResult
rewriteConvAsTransposedMatmul(mlir::RewriterBase &rewriter,
                              mlir::linalg::Conv2DNchwFchwOp conv,
                              mlir::Value col);

/// Transposes the n x n blocks of the n `vectors` (n a power of 2, each
/// vector of one type with a multiple of n lanes) in registers: afterwards
/// lane g * n + j of vector i holds what lane g * n + i of vector j held.
/// log2(n) rounds of two-vector shuffles, each exchanging the off-diagonal
/// h x h blocks for h = n/2, ..., 1 (TransposedConvolutions.cpp). With n
/// equal to the lanes this is the transpose of an n x n matrix.
void transposeLaneGroups(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::MutableArrayRef<mlir::Value> vectors);

//===----------------------------------------------------------------------===//
// Window ops: depthwise convolution and max pooling (WindowOps.cpp)
//===----------------------------------------------------------------------===//

/// Rewrites a static f32 `linalg.depthwise_conv_2d_nchw_chw` with column
/// strides of 1 or 2 into vector code: an scf.forall over (n, c), loops over
/// output rows, broadcast FMAs along each row. Fails on other forms.
mlir::LogicalResult
vectorizeDepthwiseConv(mlir::RewriterBase &rewriter,
                       mlir::linalg::DepthwiseConv2DNchwChwOp conv,
                       const CPUTarget &target);

/// Rewrites a `linalg.depthwise_conv_2d_nchw_chw` into a generic whose
/// innermost loop runs along the output row (ow), which LLVM vectorizes.
mlir::LogicalResult
interchangeDepthwiseConv(mlir::RewriterBase &rewriter,
                         mlir::linalg::DepthwiseConv2DNchwChwOp conv);

/// Rewrites a static f32 `linalg.pooling_nchw_max` with column strides of 1
/// or 2 and at most 25 window taps into the vector code of a depthwise
/// convolution, with `arith.maximumf` in place of the FMA. Fails on other
/// forms.
mlir::LogicalResult vectorizeMaxPool(mlir::RewriterBase &rewriter,
                                     mlir::linalg::PoolingNchwMaxOp pool,
                                     const CPUTarget &target);

/// The max pooling of the unsigned bytes `bytes` [N, C, H, W] (u8 in i8),
/// read through `padTop` rows and `padLeft` columns of padding before it
/// (and as many after it as the windows reach), into a new [N, C, OH, OW]
/// tensor of `resultType`, as the vector code of vectorizeMaxPool with
/// `arith.maxui`: padding reads as 0, the least byte, so it never wins
/// where a window holds one element of `bytes` (as ONNX MaxPool's -inf
/// padding never does). `window` is (KH, KW), `strides` and `dilations`
/// (height, width). Null, emitting nothing, for forms the vector code does
/// not take (column strides other than 1 and 2, over 25 taps).
mlir::Value emitByteMaxPool(mlir::RewriterBase &rewriter, mlir::Location loc,
                            mlir::Value bytes, int64_t padTop, int64_t padLeft,
                            llvm::ArrayRef<int64_t> window,
                            llvm::ArrayRef<int64_t> strides,
                            llvm::ArrayRef<int64_t> dilations,
                            mlir::RankedTensorType resultType,
                            const CPUTarget &target);

//===----------------------------------------------------------------------===//
// Elementwise code, reductions and copies (VectorizeElementwise.cpp,
// VectorizeReductions.cpp, LowerStridedCopies.cpp)
//===----------------------------------------------------------------------===//

/// Rows of up to this many full vectors are written by straight-line code,
/// longer ones by a loop.
inline constexpr int64_t kMaxUnrolledVectors = 8;

/// Elementwise ops and reductions over at least this many elements get an
/// scf.forall.
inline constexpr int64_t kMinParallelElements = 64 * 1024;

/// Whether `type` (a shaped type's element type, or a scalar) vectorizes to
/// whole bytes per lane (not i1, not index).
bool isVectorElement(mlir::Type type);

/// Groups of adjacent loop dimensions of `op` that are contiguous in every
/// indexing map (for linalg::collapseOpIterationDims; a parallel and a
/// reduction dimension never share a group, the maps that omit one of them
/// keep them apart).
llvm::SmallVector<mlir::ReassociationIndices>
getCollapsibleLoops(mlir::linalg::LinalgOp op);

/// Number of lanes of a full vector of `vectorBits` bits holding elements of
/// the int or float `type` (at least 1; bytes at the least).
inline int64_t getLanes(mlir::Type type, int64_t vectorBits) {
  unsigned bits = type.getIntOrFloatBitWidth();
  return std::max<int64_t>(1, vectorBits / std::max(8u, bits));
}

/// Receives one part of a row op (see forEachRowPart) and its chunk size.
using RowPartFn =
    llvm::function_ref<void(mlir::linalg::LinalgOp part, int64_t chunk)>;

/// Generalizes the elementwise op or row reduction `op`, collapses its loop
/// dimensions that are contiguous in every operand (getCollapsibleLoops),
/// splits its innermost dimension into a multiple of a chunk of up to 4
/// vectors of the widest operand and a remainder (`linalg::splitOp`; a
/// reduction's remainder reduces into the first part's result), and calls
/// `part` on each part with the chunk. Leaves `op` alone when a step fails.
void forEachRowPart(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp op,
                    int64_t vectorBits, RowPartFn part);

/// Vectorizes `op` (`linalg::vectorize`) when it is a linalg op with static
/// loop ranges, such as a tile that tiling left static; leaves it alone
/// otherwise.
void vectorizeIfStatic(mlir::RewriterBase &rewriter, mlir::Operation *op);

/// Vectorizes the elementwise op or row reduction `op` whose innermost loop
/// range is dynamic (attention's softmax over the keys of a growing KV
/// cache: [1, heads, 1, keys]). `op` is generalized and collapsed like
/// forEachRowPart, its outer loops become `scf.for` loops of step 1, and its
/// row a loop over chunks of one vector of the widest operand (for a
/// reduction, accumulating into a vector of partial results that is
/// combined after the row). The last, partial chunk is peeled off
/// (`scf::peelForLoopAndSimplifyBounds`) and stays a scalar loop; the full
/// chunks are vectorized. Leaves `op` alone when a step fails.
void vectorizeDynamicRow(mlir::RewriterBase &rewriter,
                         mlir::linalg::LinalgOp op, int64_t vectorBits,
                         bool reduction);

/// Registers the external interfaces that the vector transfers on tensors
/// these passes emit need later: BufferizableOpInterface (one-shot
/// bufferization) and SubsetOpInterface (hoisting a transfer_read /
/// transfer_write pair out of a loop). For getDependentDialects.
inline void registerVectorTransferInterfaces(mlir::DialectRegistry &registry) {
  mlir::vector::registerBufferizableOpInterfaceExternalModels(registry);
  mlir::vector::registerSubsetOpInterfaceExternalModels(registry);
}

} // namespace mlprog::cpu

#endif // MLPROG_LIB_PIPELINES_CPU_CPUCODEGEN_H
