//===- Passes.td - Passes of the CPU code generation pipeline -*- tablegen -*-===//

#ifndef MLPROG_PIPELINES_PASSES_TD
#define MLPROG_PIPELINES_PASSES_TD

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
      input as the matrix;
    - a static f32 `linalg.depthwise_conv_2d_nchw_chw` with column strides
      of 1 or 2 (reading a zero-padded input through, with row checks only
      where the window reaches the padding) becomes an `scf.forall` over
      (n, c) and a loop over output rows
      whose columns are accumulated in vector registers over the window
      taps (`vector.fma` with the tap broadcast; stride 2 reads two vectors
      and shuffles out every other element); other depthwise convolutions
      become a generic with loops (n, c, oh, kh, kw, ow), so the innermost
      loop runs along the output row and LLVM vectorizes it;
    - a contraction whose innermost N extent is at most 64 and not a
      multiple of the vector width is padded with zero columns to a multiple
      of two vectors (one pass over A instead of one per part); a larger
      one is split (`linalg::splitOp`) into a part that is (multiples of 2
      and 1 vector widths) and a narrow remainder;
    - every f32 contraction with static loop ranges whose innermost N
      dimension is contiguous in B and C (matmul, batch_matmul, the im2col
      contraction) is tiled into an `scf.forall` over Mc x Nc output tiles
      (when `parallel`; a `linalg.fill` of its init is fused into it), an
      `scf.for` over K in steps of Kc, and `scf.for` loops over mr x nr x 1
      register blocks, each vectorized to a `vector.contract` (with masks at
      partial edge tiles);
    - before that, when the rows of B [.., K, N] (A [.., M, K]) are a
      multiple of 4 KiB apart, K >= 256 and M (N) spans at least 4 register
      blocks, B (A) is copied into panels [.., N / nr, K, nr]
      ([.., M / mr, K, mr]) by a `linalg.generic` (tiled into an
      `scf.forall` over panels when `parallel`), and the register blocks
      read the panels, so their K loop streams contiguous memory;
    - a static f32 `linalg.pooling_nchw_max` with column strides of 1 or 2
      and at most 5x5 windows becomes the same vector code as a depthwise
      convolution, with `arith.maximumf` in place of the FMA;
    - a contraction's init that is a `linalg.fill` or a bias broadcast
      (`out[..] = bias[dk]`, seen through reshapes and shared by several
      contractions) is recreated per contraction, and per part after a
      split, and fused into the forall's tiles, so no contraction copies a
      shared init during bufferization.

    mr x nr is 8 x 32 with AVX-512 (16 of 32 zmm registers accumulate) and
    4 x 16 with AVX2 (8 of 16 ymm); Mc and Nc are the largest divisors of M
    and N up to 16 mr and 8 nr, Kc all of K up to 768, else a divisor of K
    up to 512. Other ops are left alone for the loop lowering (elementwise
    ops: `--mlprog-vectorize-elementwise`).
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

def HoistVectorTransfersPass
    : Pass<"mlprog-hoist-vector-transfers", "mlir::func::FuncOp"> {
  let summary = "Hoists loop-invariant vector transfers out of loops";
  let description = [{
    Runs `linalg::hoistRedundantVectorTransfers` on buffers: a
    `vector.transfer_read`/`transfer_write` pair of the same indices that a
    loop does not otherwise touch (the accumulator of a register block in
    the K loop) moves out of the loop and its value becomes a loop-carried
    vector.
  }];
  let dependentDialects = [
    "mlir::vector::VectorDialect",
  ];
}

def InlineAllocaScopesPass : Pass<"mlprog-inline-alloca-scopes"> {
  let summary = "Inlines memref.alloca_scope ops that allocate nothing";
  let description = [{
    `convert-scf-to-openmp` wraps each parallel loop body in a
    `memref.alloca_scope`, whose region may only have one block; once the
    loops inside are lowered to control flow it no longer verifies. Scopes
    without a `memref.alloca` inside are dropped and their body inlined.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def LowerStridedCopiesPass
    : Pass<"mlprog-lower-strided-copies", "mlir::func::FuncOp"> {
  let summary = "Lowers memref.copy ops that are not contiguous to vector "
                "loops";
  let description = [{
    `finalize-memref-to-llvm` turns a `memref.copy` whose operands are not
    both contiguous (a copy into the interior of a padded buffer, out of a
    column block of a matrix) into a call to MLIR's generic `memrefCopy`,
    which moves one element at a time through a strided index computation.
    This pass rewrites each such copy with a static shape, an int or float
    element type and unit innermost strides into loops:

    - dimensions that are contiguous in both operands (and unit dimensions)
      are collapsed with `memref.collapse_shape`, leaving [o1, ..., ok, n];
    - the outer dimensions become an `scf.parallel` (when `parallel` and
      the copy moves at least 256 KiB; OpenMP later) or `scf.for` loops;
    - each row of n elements is moved with `vector.load`/`vector.store` of
      the target's vector width (a loop when the row holds more than 8
      vectors), and a remainder of n mod width elements with one narrower
      vector.

    Contiguous copies are left alone (they become `memcpy`), as are copies
    with dynamic shapes or a strided innermost dimension.
  }];
  let options = [
    Option<"targetFeatures", "target-features", "std::string",
           /*default=*/"\"\"",
           "LLVM target features that choose the vector width (empty: the "
           "host's)">,
    Option<"parallel", "parallel", "bool", /*default=*/"true",
           "Run the outer loops of large copies in an scf.parallel">,
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect",
    "mlir::vector::VectorDialect",
  ];
}

def VectorizeElementwisePass
    : Pass<"mlprog-vectorize-elementwise", "mlir::func::FuncOp"> {
  let summary = "Tiles elementwise linalg ops on tensors into vector code, "
                "outer tiles in an scf.forall";
  let description = [{
    For the ops the loop lowering would otherwise turn into scalar loops
    (relu/clip, residual adds, bias broadcasts, BatchNorm-style affine
    maps, fills, the fill of a padded tensor): every linalg op at the top
    level of the function that is all-parallel, has static loop ranges, an
    identity output map and inputs whose maps are projected permutations
    that either end with the innermost loop dimension (contiguous rows) or
    do not use it (broadcasts), with int/float operands of whole bytes and
    an arith/math body:

    - a static `tensor.pad` whose value is defined outside its region
      becomes loops over the output rows (an `scf.forall` when `parallel`
      and the result holds at least 64 Ki elements) that write each row
      once, as vectors: the padding value for rows outside the source, else
      the low padding, the source row and the high padding (a fill of the
      whole result and a copy into its interior would write the interior
      twice, and CSE would share the fills of equal pads, which
      bufferization then copies);
    - the op is generalized and its loop dimensions that are contiguous in
      every operand are collapsed (`linalg::collapseOpIterationDims`), so
      [1, C, H, W] + [C] becomes [1, C, H*W];
    - the innermost dimension is split into a multiple of a chunk of up to
      4 vectors of the target's width and a remainder (`linalg::splitOp`);
    - each part of at least 64 Ki elements is tiled into an `scf.forall`
      (when `parallel`) over the outer dimensions (and blocks of the
      innermost one when the outer ones are few), then into `scf.for` loops
      over chunks, and each chunk is vectorized (`linalg::vectorize`) into
      transfers of one row; the remainder becomes one narrower vector.

    Transposes whose innermost dimension moves, ops inside loops (the tiles
    of `mlprog-tile-and-vectorize-contractions`) and ops with `i1` operands
    are left alone.
  }];
  let options = [
    Option<"targetFeatures", "target-features", "std::string",
           /*default=*/"\"\"",
           "LLVM target features that choose the vector width (empty: the "
           "host's)">,
    Option<"parallel", "parallel", "bool", /*default=*/"true",
           "Put the outer tiles of large ops in an scf.forall">,
  ];
  let dependentDialects = [
    "mlir::affine::AffineDialect",
    "mlir::arith::ArithDialect",
    "mlir::linalg::LinalgDialect",
    "mlir::scf::SCFDialect",
    "mlir::tensor::TensorDialect",
    "mlir::vector::VectorDialect",
  ];
}

#endif // MLPROG_PIPELINES_PASSES_TD
