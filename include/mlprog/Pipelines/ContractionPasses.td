//===- ContractionPasses.td - Contraction code generation -*- tablegen -*-===//

#ifndef MLPROG_PIPELINES_CONTRACTIONPASSES_TD
#define MLPROG_PIPELINES_CONTRACTIONPASSES_TD

include "mlir/Pass/PassBase.td"

def TileAndVectorizeContractionsPass
    : Pass<"mlprog-tile-and-vectorize-contractions", "mlir::func::FuncOp"> {
  let summary = "Blocks f32 contractions for caches and registers and "
                "vectorizes the register blocks";
  let description = [{
    The -O2 code generation strategy of `--mlprog-lower-to-cpu`, on tensors
    (before bufferization):

    - `linalg.conv_2d_nchw_fchw` with static shapes is rewritten into a
      column tensor [C*Fh*Fw, N*Oh*Ow] and a `linalg.matmul` of the
      [F, C*Fh*Fw] filter with it. The column tensor is vector code (an
      `scf.forall` over (c, kh) writing rows along ow; stride 2 by two reads
      and a shuffle) that reads a zero `tensor.pad` of the input through,
      so the padded copy is never made. Column tensors over 1.5 MiB are
      built and multiplied in blocks of output rows that stay in L2 (an
      `scf.forall` over (image, block), accumulating into the output in
      place); N 1-3 columns past a multiple of the vector width gets zero
      columns up to it; a 1x1 stride-1 convolution of batch 1 uses its
      input as the matrix. One image whose pixels P are not a multiple of
      the vector width but of 7 or 8 (7x7, 14x14 maps), with a weight
      filter, is the product transposed instead: [P, K] (the column tensor
      read transposed) x [K, F] (the filter transposed, whose panels are
      made at compile time), 7 pixels x 32 features per register block, the
      [P, F] result transposed back by 16x16 register transposes
      (`vector.shuffle`); one pixel (a squeeze-and-excitation block's 1x1
      convolution) is the row [1, K] x [K, F], a vector-matrix product;
    - a static f32 `linalg.depthwise_conv_2d_nchw_chw` with column strides
      of 1 or 2 (reading a zero-padded input through, with row checks only
      where the window reaches the padding) becomes an `scf.forall` over
      (n, c) and a loop over output rows
      whose columns are accumulated in vector registers over the window
      taps (`vector.fma` with the tap broadcast; stride 2 reads two vectors
      and shuffles out every other element; windows of more than 25 taps,
      up to 9x9, broadcast their taps in each output row instead of once
      per channel); other depthwise convolutions
      become a generic with loops (n, c, oh, kh, kw, ow), so the innermost
      loop runs along the output row and LLVM vectorizes it;
    - a contraction of a single row (M loops, if any, of range 1: a
      decoding step's token through a linear layer, attention's
      probabilities times the values), `C[b.., n] += A[b.., k] B[b.., k, n]`
      with B reading every batch loop, is a vector-matrix product: an
      `scf.forall` over (batch.., chunks of N) (when `parallel`), register
      blocks of 1 x (q * nr) columns (q panels of nr = 2 vector widths, up
      to 8 vector accumulators) and a K loop of `vector.fma`s with A's
      element broadcast, the accumulators carried in registers along all of
      K. A weight B is read from its panels [.., N / nr, K, nr] (made at
      compile time; the same panels the matrix blocks below read); another
      B where it is. Columns past the last whole panel stay a contraction
      for the steps below. Padded to mr rows, the row cost mr times the
      arithmetic and zero-filled copies of A and C on the main thread;
      blocked as 1 x nr, its FMA chain was latency-bound (a GPT-2-small
      decoding step at a 512-token context, 2 threads: ONNX `--state`
      17.8 -> 12.6 ms, TorchScript 17.1 -> 14.9 ms);
    - a batched contraction generic whose B is shared by the batch,
      `C[b.., m, n] += A[b.., m, k] * B[k, n]` (a linear layer at batch > 1),
      becomes one `linalg.matmul` of A and C collapsed to [b.. * m, ..];
    - a contraction whose innermost N extent is at most 64 and not a
      multiple of the vector width is padded with zero columns to a multiple
      of two vectors (one pass over A instead of one per part); a larger
      one is split (`linalg::splitOp`) into a part that is (multiples of 2
      and 1 vector widths) and a narrow remainder; with a weight B (and A
      not a weight), rows are padded with zero rows to a multiple of mr (of
      8 mr from 512 rows; not when 7 or 8 rows divide fewer than 512,
      which make register blocks of 7) instead of being split, so the weight is not
      streamed again for a tail of rows; the parts of a split read the
      whole tensors where the split took all of them;
    - every f32 contraction with static loop ranges whose innermost N
      dimension is contiguous in B and C (matmul, batch_matmul, the im2col
      contraction) is tiled into an `scf.forall` over Mc x Nc output tiles
      (when `parallel`; a `linalg.fill` of its init is fused into it), an
      `scf.for` over K in steps of Kc, and `scf.for` loops over mr x nr x 1
      register blocks, each vectorized to a `vector.contract` (with masks at
      partial edge tiles);
    - before that, when B is a weight or a static block of one, or when the
      rows of B [.., K, N] (A [.., M, K]) are a
      multiple of 4 KiB apart, K >= 256 and M (N) spans at least 4 register
      blocks, B (A) is copied into panels [.., N / nr, K, nr]
      ([.., M / mr, K, mr]) by vector code (an `scf.forall` over panels when
      `parallel`, an `scf.for` over K steps of 8 rows of B, or of 16
      columns of A read transposed), and the register blocks read the
      panels, so their K loop streams contiguous memory. A is left in place
      on an L1 of 12 ways or more (`CPUTarget::l1Ways`: the host's; 8 for
      a target given by its features), which holds a register block's
      aliasing rows beside B's stream;
    - a static f32 `linalg.pooling_nchw_max` with column strides of 1 or 2
      and at most 5x5 windows becomes the same vector code as a depthwise
      convolution, with `arith.maximumf` in place of the FMA;
    - a contraction's init that is a `linalg.fill` or a bias broadcast
      (`out[..] = bias[dk]`, seen through reshapes and shared by several
      contractions) is recreated per contraction, and per part after a
      split, and fused into the forall's tiles, so no contraction copies a
      shared init during bufferization; when K is one block, it is fused
      into each register block, which starts from it in registers (no
      memset of the output, no read of it back);
    - when K is one block, an elementwise `linalg.generic` that is the only
      reader of a contraction's result (directly or through the
      `tensor.expand_shape` of a convolution's [F, H*W] -> [N, F, H, W],
      which is folded by collapsing the generic's loops), reading it through
      the identity map, with identity or projected-permutation maps for its
      other operands (a residual) and no `linalg.index`, is tiled in its
      place with the contraction and its init fused into its loops: it is
      computed on each register block's accumulator in registers, and the
      contraction's result is never stored. A unary one (ReLU, Clip, SiLU)
      after a pixels-as-rows product is applied to the product before the
      transpose back; one without `math` ops after a depthwise convolution
      is applied to each (n, c) plane, as contiguous vectors, right after
      the plane is computed (a SiLU is not: on 7x7 planes its exp chains
      ran slower than a separate pass).

    mr x nr is 8 x 32 with AVX-512 (16 of 32 zmm registers accumulate) and
    4 x 16 with AVX2 (8 of 16 ymm); Kc is all of K up to 768, else a
    divisor of K up to 512; Mc and Nc are the largest divisors of M and N
    up to 16 mr and 8 nr, except with a weight B whose Mc x Kc block of A
    fits `CPUTarget::getL2BlockBytes()`: then Mc is all of M (each weight
    read once) and Nc is halved, down to 2 nr, until there are 16 tiles.
    Other ops are left alone for the loop lowering (elementwise ops:
    `--mlprog-vectorize-elementwise`).
  }];
  let options = [
    Option<"targetFeatures", "target-features", "std::string",
           /*default=*/"\"\"",
           "LLVM target features that choose the vector width (empty: the "
           "host's)">,
    Option<"parallel", "parallel", "bool", /*default=*/"true",
           "Put the outer output tiles in an scf.forall">,
  ];
  let dependentDialects = [
    "mlir::affine::AffineDialect",
    "mlir::arith::ArithDialect",
    "mlir::bufferization::BufferizationDialect",
    "mlir::linalg::LinalgDialect",
    "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect",
    "mlir::vector::VectorDialect",
  ];
}

def IntegerContractionsToF32Pass
    : Pass<"mlprog-integer-contractions-to-f32", "mlir::func::FuncOp"> {
  let summary = "Computes contractions of 8-bit integers as exact f32 "
                "contractions over chunks of K";
  let description = [{
    Runs before `--mlprog-tile-dynamic-contractions`. A `linalg.generic`
    contraction `C[.., m, n] += A[.., m, k] * B[.., k, n]` in i32 (body
    `arith.muli`, `arith.addi`; one K loop of static range) whose inputs
    are each produced by an elementwise `linalg.generic` (through slices,
    reshapes and casts) yielding 8- or 16-bit values widened by
    `arith.extsi` / `arith.extui` and shifted by constants or other such
    values (ONNX MatMulInteger, DynamicQuantizeMatMul and QLinearMatMul:
    `(a - za) * (b - zb)`) becomes f32 contractions over chunks of K: the
    producers are cloned to yield `arith.sitofp` of their values, each
    chunk is an f32 contraction from a zero fill, and its result is
    converted back (`arith.fptosi`) and added to C in i32. The chunks are
    short enough that no partial sum can exceed 2^24 in magnitude (K /
    chunk at most `2^24 / (max |A| * max |B|)`: 514 for `u8 - za` times an
    `i8` weight), so every f32 product and sum is an exact integer and the
    result equals the i32 contraction bit for bit. The f32 contractions
    then take the blocked, packed and vectorized code generation; left in
    i32, they were scalar loops (a BERT-base quantized by onnxruntime's
    `quantize_dynamic` took 10x its float model's time). Contractions
    whose factors are not bounded this way are left alone.

    With AVX-512 VNNI in the target features, a contraction of unsigned
    bytes and signed bytes (`arith.extui` and `arith.extsi` of i8, minus
    scalar zero points; either may be A; B `[K, N]`, K a multiple of 4, N
    of 16, static shapes, A's rows any number of dimensions) is instead
    computed with
    `vpdpbusd` (`llvm.call_intrinsic`; 64 multiply-adds per instruction):
    `sum a b - za colsum(b) - zb rowsum(a) + K za zb`, with B in panels
    `[N / 16, K / 4, 64]` (a weight's at compile time, by
    `--mlprog-fold-constant-panels`), register blocks of up to 8 rows x 32
    columns and an `scf.forall` over them. An elementwise epilogue that
    reads the product (a QDQ convolution's requantization) is computed on
    the blocks' sums, which then write its result; in a batch, blocks may
    span two images (their second image's columns go through a side
    tensor). When the epilogue adds a second such product of the same
    shape through the same views (a residual block's downsampling
    convolution), the blocks (of up to 4 rows) run both products' K loops
    and neither is written as i32. One image's last 1 to 4 real columns
    past whole panels of 16 (a 7 x 7 map's 49th, a 14 x 14 map's last 4)
    are matrix-vector products after the blocks (16 rows per `vpdpbusd`
    chain; both products where the epilogue adds two), not a panel of 16
    columns mostly of padding.
  }];
  let options = [
    Option<"targetFeatures", "target-features", "std::string",
           /*default=*/"\"\"",
           "LLVM target features (empty: the host's); with +avx512vnni, "
           "u8 x s8 contractions use vpdpbusd">,
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::LLVM::LLVMDialect",
    "mlir::linalg::LinalgDialect",
    "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect",
    "mlir::vector::VectorDialect",
  ];
}

def QuantizedConvolutionsPass
    : Pass<"mlprog-quantized-convolutions", "mlir::func::FuncOp"> {
  let summary = "Computes convolutions between DequantizeLinear pairs as "
                "u8 x s8 contractions of their bytes";
  let description = [{
    Runs before `--mlprog-fold-constant-generics`, while ONNX
    DequantizeLinear (an elementwise `linalg.generic` yielding
    `(ext(q) - ext(z)) * s` in f32 from 8-bit `q`) is an op of its own. A
    static f32 `linalg.conv_2d_nchw_fchw` of a dequantized unsigned-byte
    input (one scale and zero point; optionally `tensor.pad`ded with 0 in
    height and width) and a dequantized signed-byte filter (one scale or
    one per output channel, one zero point), whose `K = C * KH * KW` is a
    multiple of 4 and `F` of 16, becomes the integer form onnxruntime's
    fused QDQ kernels compute:

    - the filter as a `[F, K]` byte matrix (a `tensor.collapse_shape`);
    - the input bytes as columns `[K, N * OH * OW]` in `(c, kh, kw)` order:
      the input itself for one image and a 1x1 window of stride 1, else
      gathered by vector code (an `scf.forall` over the channels, one
      vector read, shuffled for a stride, and one vector write per output
      row) from the input `tensor.pad`ded with its zero point (which
      dequantizes to 0); padded with the zero point to a multiple of 16
      columns (of 32 beyond 16). Where the output rows fill whole panels of
      16 columns in blocks (56 x 56, 28 x 28; 14 x 14 at batch 8) and K
      needs no padding, the gather
      writes the contraction's panels `[columns / 16, K / 4, 64]` directly
      and the columns are their unpacking (a `linalg.transpose` that
      `--mlprog-integer-contractions-to-f32` reads through), so that they
      are not written and packed again;
    - `extsi(w) - zw` and `extui(x) - zx` as elementwise generics and their
      i32 contraction `acc[f, p]`, which
      `--mlprog-integer-contractions-to-f32` computes with `vpdpbusd`;
    - `y = init + sx * sw[f] * float(acc)` in the convolution's
      `[N, F, OH, OW]` order, `init` (the convolution's, the bias) read as
      an input.

    The contraction is exact; the result differs from the f32 convolution
    of dequantized values only by rounding.

    A static f32 `linalg.pooling_nchw_max` between such a pair, reading
    unsigned bytes dequantized with a constant positive scale (padded with
    -inf in height and width, as ONNX MaxPool pads) and read only by a
    QuantizeLinear generic of the same scale and zero point (a QDQ
    ResNet's stem), becomes the max pooling of the bytes themselves: vector
    code over the `(n, c)` planes with `arith.maxui`, reading the padding
    as 0. Exact: dequantization is increasing and requantizes to the same
    byte. The convolution before it then writes bytes.

    Without AVX-512 VNNI in the target features the pass changes nothing.
  }];
  let options = [
    Option<"targetFeatures", "target-features", "std::string",
           /*default=*/"\"\"",
           "LLVM target features (empty: the host's)">,
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::linalg::LinalgDialect",
    "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect",
    "mlir::vector::VectorDialect",
  ];
}

def LowerDotProductsToVNNIPass
    : Pass<"mlprog-lower-dot-products-to-vnni", "mlir::func::FuncOp"> {
  let summary = "Makes u8 x s8 dot products AVX-512 VNNI vpdpbusd "
                "instructions";
  let description = [{
    Runs after bufferization and deallocation (which reject ops of unknown
    memory effects). A `vector.multi_reduction <add>` over the inner
    dimension of `vector<16x4xi32>` products of `arith.extui` and
    `arith.extsi` of `vector.shape_cast`s of two `vector<64xi8>` into a
    `vector<16xi32>` accumulator (what `--mlprog-integer-contractions-to-f32`
    emits for u8 x s8 contractions) becomes `llvm.call_intrinsic
    "llvm.x86.avx512.vpdpbusd.512"(acc, a, b)`, which computes exactly that.
    Without AVX-512 VNNI in the target features the pass changes nothing.
  }];
  let options = [
    Option<"targetFeatures", "target-features", "std::string",
           /*default=*/"\"\"",
           "LLVM target features (empty: the host's)">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def TileDynamicContractionsPass
    : Pass<"mlprog-tile-dynamic-contractions", "mlir::func::FuncOp"> {
  let summary = "Tiles the dynamic extents of f32 contractions into static "
                "blocks padded with zeros";
  let description = [{
    Runs before `--mlprog-tile-and-vectorize-contractions`, which blocks
    only contractions with static loop ranges. An f32 contraction (two
    inputs, one init, `linalg::isaContractionOpInterface`) whose dynamic
    loop ranges are all M, N or K dimensions (a linear layer over a
    sequence of unknown length, `[1, ?, 768] x [768, 3072]`; attention's
    `[1, 12, ?, 64] x [1, 12, 64, ?]` and its product with the values,
    whose K is the number of keys) is tiled with `scf::tileUsingSCF` into
    `scf.for` loops over blocks of those dimensions only: mr rows of M (8
    with AVX-512, 4 with AVX2: one register block), 64 columns of N and 256
    of K. Each tile
    is padded with zeros to the static block (a `tensor.pad` per operand;
    zero rows and columns of A and B add nothing to C, and the padded rows
    and columns of C are dropped), so the tile has static loop ranges and
    the contraction code generation blocks, packs and vectorizes it; a
    weight B keeps its pre-packed panels. Dynamic batch dimensions, and
    dynamic M, N or K dimensions other than the innermost of their kind,
    are tiled by 1. Each dynamic extent is first split at its last whole
    block (`linalg::splitOp`; M's bulk block is 64 rows, so a prompt reads
    each weight once per 64 rows, and its rest is split again at its last
    whole register block; K's rest at its last whole 32): the whole blocks
    are slices of the operands, only the rest (M's last rows, fewer than a
    register block; fewer than 32 of K) is padded, except that M's last
    rows, when at run time there are at most two (a decoding step's one),
    are computed one at a time (an `scf.if`): exact one-row tiles, which the
    contraction code generation computes as vector-matrix products.

    A contraction `C[.., m, n] += A[.., m, k] B[.., k, n]` whose B is a
    `linalg.transpose` of `S[.., n, k]` swapping its two innermost
    dimensions (attention's keys, transposed for `Q K^T`; possibly through
    a `tensor.collapse_shape` of leading dimensions) instead reads S
    through the transposed map: K is innermost in both inputs, the op is
    dot products that `--mlprog-vectorize-reductions` vectorizes, and the
    transposed copy of the whole key cache at every decoding step is gone.
    It is not tiled into blocks. When M (the query rows) is dynamic, that
    holds for at most two rows at run time (an `scf.if`: a decoding step);
    more rows (a prompt) make the transposed copy in their branch and are
    tiled like any contraction (as dot products, a 512-token GPT-2 prompt's
    scores ran at 3 GFLOP/s, 7.5% of its prefill).

    A convolution or pooling window (`linalg::isaConvolutionOpInterface`)
    whose only dynamic loops are batch loops (images of unknown number: a
    model exported with a dynamic batch axis, Mask R-CNN's mask head over
    its detections) becomes an `scf.for` over the batch of static windows
    over one image each (`scf::tileConsumerAndFuseProducersUsingSCF`), with
    its init (a fill or bias broadcast) and the `tensor.pad` of its input
    computed per image when nothing else uses them; the column tensor,
    depthwise and pooling code generation then applies to each image.
  }];
  let options = [
    Option<"targetFeatures", "target-features", "std::string",
           /*default=*/"\"\"",
           "LLVM target features that choose the row block (empty: the "
           "host's)">,
  ];
  let dependentDialects = [
    "mlir::affine::AffineDialect",
    "mlir::arith::ArithDialect",
    "mlir::linalg::LinalgDialect",
    "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect",
  ];
}

def FoldConstantPanelsPass : Pass<"mlprog-fold-constant-panels", "mlir::ModuleOp"> {
  let summary = "Computes the register-block panels of weights at compile "
                "time";
  let description = [{
    `mlprog-tile-and-vectorize-contractions` copies a contraction input
    into register-block panels ([.., N / nr, K, nr] for B); when the input
    is a weight (a `bufferization.to_tensor` of a `memref.get_global` of a
    constant `memref.global` with an inline or `dense_resource` value, or a
    static unit-stride `tensor.extract_slice` of one: the columns a part of
    a split contraction reads), the copy is a `linalg.transpose` of a
    `tensor.expand_shape` of it. This
    pass evaluates every such transpose into a new private constant global
    (`<weight>_panels`, 64-byte aligned, one per weight, block, shape and
    permutation, shared by all its readers) and removes weights no one
    reads any more, so a model does not copy its weights on every call and
    its matrix products stream contiguous panels whatever the weights'
    shapes (onnxruntime pre-packs its weights when a session starts, to the
    same end).
  }];
  let dependentDialects = [
    "mlir::bufferization::BufferizationDialect",
    "mlir::memref::MemRefDialect",
  ];
}

#endif // MLPROG_PIPELINES_CONTRACTIONPASSES_TD
