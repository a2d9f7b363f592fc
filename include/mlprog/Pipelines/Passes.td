//===- Passes.td - Passes of the CPU pipeline and both ----*- tablegen -*-===//

#ifndef MLPROG_PIPELINES_PASSES_TD
#define MLPROG_PIPELINES_PASSES_TD

include "mlir/Pass/PassBase.td"

// The contraction code generation of the CPU pipeline (tiling, packing,
// register blocks) and the GPU pipeline's own passes are declared in
// files of their own; all generate into Passes.h.inc.
include "mlprog/Pipelines/ContractionPasses.td"
include "mlprog/Pipelines/GPUPasses.td"

def FoldConstantGenericsPass : Pass<"mlprog-fold-constant-generics"> {
  let summary = "Evaluates elementwise linalg.generic ops over small "
                "constants";
  let description = [{
    An all-parallel `linalg.generic` with an identity output map, a static
    integer (or index) result of at most 4096 elements and only dense
    constants as inputs is
    evaluated element by element with the folders of its body's ops
    (arith's: compares, selects, integer and float arithmetic, casts) and
    replaced by an `arith.constant`. A generic whose body does not fold at
    every point is left alone. A `linalg.fill` of a constant into such a
    tensor becomes a splat constant. Float results stay: they are data, and
    float fills are the inits that the code generation fuses into
    contraction tiles. The pass also applies every loaded dialect's and
    op's canonicalization patterns, to a fixed point (it replaces a
    canonicalizer run): folded shape arithmetic makes `tensor.dim` and
    `tensor.extract` constant, which makes the next generic's inputs
    constant.

    This is for the shape arithmetic exporters emit on constants: torch's
    ViT export computes the class token's `Expand` shape as
    `Where(Equal([1, -1, -1], -1), 1, [1, -1, -1])`; left to run time, the
    sizes are dynamic and every contraction after it loses its static
    shape (and with it the GEMM strategy: vit_b_16 took 55 s per call).
    Folded, canonicalization makes the shapes static again.

    Once the shape arithmetic is constant, a generic without inputs whose
    body yields `tensor.extract %source[o0 + s0 * index(0), ...]` (constant
    offsets, strides of at least 1, each index along its own loop) becomes
    `tensor.extract_slice %source[o...][sizes][s...]`: the strided slices of
    ONNX `Slice` with starts computed from shapes (the query, key and value
    of torch's `MultiheadAttention` export), which the loop lowering would
    otherwise read one scalar at a time.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect"];
}

def FuseElementwiseOpsPass : Pass<"mlprog-fuse-elementwise-ops"> {
  let summary = "Fuses elementwise linalg producers into consumers that read "
                "each produced element once";
  let description = [{
    Linalg's elementwise fusion on tensors (the patterns of upstream's
    `linalg-fuse-elementwise-ops`, with reshape propagation by expansion and
    constant folding), under one more condition: a producer is fused only
    into a consumer whose indexing map for it is a permutation of all the
    consumer's loops, so that every produced element is computed once.

    Upstream's pass also fuses a producer into consumers that read it many
    times: bias + GELU before a `[b, s, k] x [k, n]` contraction became part
    of the contraction's body, recomputing `erf` n times per element and
    turning the contraction into a generic that no GEMM strategy matches
    (a 4-layer encoder spent 17% of its time in `erff` and 120x
    onnxruntime's latency). A producer with more than one use is not fused
    either (it would be computed once per consumer).

    A scalar read from a constant global (an initializer of one element:
    Pow's exponent, an epsilon) becomes an `arith.constant`, splat constant
    inputs are inlined into the generics that read them as scalar
    constants, and math's algebraic
    simplifications apply (`math.powf(x, 2.0)` is `x * x`: a libm `powf`
    per element was 11% of a quantized BERT-base's time). A QuantizeLinear
    read back by a DequantizeLinear within one generic (a QDQ residual
    add), `sitofp(ext(fptoui(t)) - z)` of a rounded value t clamped to the
    byte range, is `t - z` in f32 (exact: t holds an integer the byte
    holds).
  }];
  let dependentDialects = [
    "mlir::affine::AffineDialect",
    "mlir::arith::ArithDialect",
    "mlir::math::MathDialect",
    "mlir::linalg::LinalgDialect",
    "mlir::tensor::TensorDialect",
  ];
}

def ApproximateMathPass : Pass<"mlprog-approximate-math"> {
  let summary = "Replaces transcendental functions on f32 vectors by "
                "polynomial approximations";
  let description = [{
    `math.erf`, `exp`, `expm1`, `tanh`, `log`, `log1p`, `log2`, `sin` and
    `cos` on vectors of f32 become upstream MLIR's polynomial approximations
    (`populateMathPolynomialApproximationPatterns`: Cephes-style range
    reduction and minimax polynomials, a few ulp from libm; erf within
    about 1.2e-7 absolute), which are vector code. The libm lowering that
    runs later would extract every lane and call the scalar function (GELU
    through `erff` was 24% of a transformer encoder's time). Scalar ops keep
    libm's correctly rounded (or nearly) results.

    The approximations' `math.fma` and `floor` (and `ceil`, `trunc`,
    `roundeven`) on 1-D f32 vectors become `vector.fma` and LLVM's vector
    intrinsics, which the libm lowering would also split into one call per
    lane, and `math.powf(x, n)` on f32 vectors with n = 2, 3 or 4 becomes
    products of x: `x * x` (the correctly rounded square; a layer norm's
    variance squares this way), `x * x * x` (as onnxruntime computes
    Pow(x, 3), GPT-2's GELU; within an ulp or two of powf) and
    `(x * x) * (x * x)`.
  }];
  let dependentDialects = [
    "mlir::LLVM::LLVMDialect",
    "mlir::arith::ArithDialect",
    "mlir::math::MathDialect",
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

def PrefetchPanelsPass
    : Pass<"mlprog-prefetch-panels", "mlir::func::FuncOp"> {
  let summary = "Prefetches the next K block of B in blocked contractions";
  let description = [{
    On buffers, after --mlprog-hoist-vector-transfers: in a blocked
    contraction (loops over K blocks of Kc, or one K block, register-block
    rows of mr, the columns of a cache tile, and a K loop of step 1 around
    a `vector.contract` whose right-hand side B is a `vector.transfer_read`
    of a static f32 memref [K, N] or panels [N / nr, K, nr]), each register
    block's K loop prefetches into L2 (`memref.prefetch`, locality 2) its
    share of the B rows of the next K block: with M rows in P = M / mr rows
    of register blocks, B rows of L cache lines, and S = the largest power
    of two not above P / L (at least 1), the block at row m prefetches, at
    K step k of block k0, line (k / S) mod L of row
    `(k0 + Kc) mod K + m * Kc / M + k / (S * L)` (clamped to the last row):
    one prefetch per K step, a shift rather than a division, the shares
    overlapping a little rather than leaving gaps. Past the last K block
    the rows are those of the next cache tile's panel (Nc / nr panels or
    Nc columns on, clamped to the last), which the tile loop's next
    iteration reads first. The first row of
    register blocks of a K block then finds B in cache instead of reading
    it from memory faster than memory delivers (a weight larger than the
    last-level cache, at few rows: the 7x7 layers of a ResNet; resnet18 at
    1 thread through the Python binding, 18.7-19.3 -> 17.3-17.4 ms a call,
    while a 512-channel 3x3 convolution over 7x7 pixels whose weights stay
    in cache between calls costs 1.02 -> 1.03-1.06 ms).
    Other loops are left alone.
  }];
  let dependentDialects = [
    "mlir::affine::AffineDialect",
    "mlir::memref::MemRefDialect",
  ];
}

def DeallocAfterLastUsePass : Pass<"mlprog-dealloc-after-last-use"> {
  let summary = "Moves each buffer's dealloc to just after its last use";
  let description = [{
    Runs on buffers, after the buffer deallocation pipeline, which frees
    each `memref.alloc` at the end of the block that allocates it: a model's
    function then holds every activation of the call at once (1.4 GiB for
    vit_b_16 at batch 8), more than glibc keeps between calls, so every
    call faults all of it in again from the kernel, and every buffer is
    written to memory no cache holds.

    A `memref.dealloc` of a `memref.alloc` in the same block moves to just
    after the last operation of that block that uses the buffer or a value
    that may alias it: memref and LLVM pointer results of its users
    (views, casts, calls), results of region operations that yield it, and
    everything computed from its address taken as an integer
    (`memref.extract_aligned_pointer_as_index`). A use nested in a region
    counts as its ancestor in the block (a loop is a use as a whole). The
    dealloc stays where it is when an alias reaches the block's terminator,
    a user outside the block, or another dealloc. The allocator then hands
    the freed memory, still in cache, to the buffers allocated after it.

    ```mlir
    %a = memref.alloc() : memref<64xf32>
    linalg.fill ins(%f : f32) outs(%a : memref<64xf32>)
    memref.copy %a, %out : memref<64xf32> to memref<64xf32>
    // the dealloc of %a moves here, above the work below
    %b = memref.alloc() : memref<64xf32>
    ...
    memref.dealloc %a : memref<64xf32>
    ```
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect"];
}

def ParallelizeTransposesPass : Pass<"mlprog-parallelize-transposes"> {
  let summary = "Shares large transposes on buffers among the threads";
  let description = [{
    Runs on buffers. A `linalg.transpose` becomes one serial loop nest;
    attention's K transpose ([tokens, batch * heads, 64] to [batch * heads,
    64, tokens], vit_b_16 and BERT as torch exports them) then kept one
    of two threads idle (2-3% of vit_b_16's time at 2 threads). A
    transpose of static shape that writes at least `min-bytes` becomes an
    `scf.parallel` over its output's first dimension, each iteration a
    `linalg.transpose` of the matching slices (the input's slice is along
    dimension `permutation[0]`); transposes already inside an
    `scf.parallel` stay. When the output's last dimension comes from an
    outer input dimension and the one before it from the input's
    innermost (the K transpose, permutation [1, 2, 0]), an `scf.for` over
    the output's last dimension goes around each slice's transpose, so the
    innermost loop reads an input row instead of a column of rows that
    alias in L1 (24 KiB apart in vit_b_16 at batch 8).
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"256 * 1024",
           "Smallest output, in bytes, worth forking threads for">,
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect",
    "mlir::memref::MemRefDialect",
    "mlir::scf::SCFDialect",
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

def OutlineLoopNestsPass
    : Pass<"mlprog-outline-loop-nests", "mlir::ModuleOp"> {
  let summary = "Outlines the loop nests of functions on buffers into private "
                "functions and shares the identical ones";
  let description = [{
    Runs on buffers, after bufferization and deallocation. Each loop (an
    `scf.for`, or an `scf.parallel` tile loop), each `linalg` op (a loop
    nest once lowered) and each other operation with regions (an `scf.if`)
    that holds at least `min-ops` operations, directly in a function body
    or inside an operation that is not outlined itself, becomes a private
    `func.func` marked `mlprog.outlined`, with internal linkage and LLVM's
    `noinline`, called in its place: the values it uses from the function
    (buffers, extents) become the callee's arguments, in order of first
    use, and the scalar and vector constants it uses are cloned into it.
    Loops go whatever their size (a register block's few vector ops here
    unroll into hundreds of LLVM instructions). Nests that return a buffer
    stay in place (it could be a `memref.alloca` of the callee's frame).

    Callees whose bodies are equivalent (same operations, attributes and
    types, locations ignored) are then merged into one: the layers of a
    transformer or the repeated blocks of a CNN differ only in the weights
    they read, which are arguments, so their code is generated once.

    The point is compile time. LLVM's optimizer and code generator are
    superlinear in a function's size (LoopRotate, dominator trees, OpenMP
    outlining, register allocation): one `@main` of 100k LLVM
    instructions took most of GPT-2-small's JIT time. Calls cost a few
    nanoseconds against kernels of microseconds or more.
  }];
  let options = [
    Option<"minOps", "min-ops", "unsigned", /*default=*/"16",
           "Outline an operation with regions that is neither a loop nor a "
           "linalg op only when its regions hold at least this many "
           "operations">,
  ];
  let dependentDialects = [
    "mlir::func::FuncDialect",
    "mlir::LLVM::LLVMDialect",
  ];
}

def ExpandNarrowFloatCastsPass : Pass<"mlprog-expand-narrow-float-casts"> {
  let summary = "Rewrites extf/truncf of 8- and 4-bit floats as integer code";
  let description = [{
    LLVM has no 8- or 4-bit float types: the LLVM type converter stores an
    `f8E4M3FN` as an `i8`, but `arith.extf`/`arith.truncf` from or to one
    have no lowering. This pass rewrites every `arith.extf` and
    `arith.truncf` whose source or result element type is `f8E4M3FN`,
    `f8E4M3FNUZ`, `f8E5M2`, `f8E5M2FNUZ`, `f8E8M0FNU` or `f4E2M1FN`
    (scalars and vectors) into integer bit manipulation on the f32 bit
    pattern, followed by `arith.bitcast` between the narrow float and an
    integer of its width (which the LLVM conversion turns into nothing).
    Other source and result floats go through f32 (an f64 source is rounded
    twice).

    `extf` is exact. `truncf` rounds to nearest, ties to even (the ONNX
    Cast rule; the op's `roundingmode` is honoured for f8E8M0FNU only, see
    below) and does not saturate: a value beyond the largest finite one
    becomes infinity in f8E5M2, NaN in the types without infinities
    (f8E4M3FN, the FNUZ types, f8E8M0FNU), and the largest finite value in
    f4E2M1FN, which has neither. NaN stays NaN (keeping its sign where the
    type has one; FNUZ types have one NaN, 0x80, and no negative zero:
    -0 becomes +0); f4E2M1FN has no NaN, and NaN becomes the zero of
    opposite sign, as ml_dtypes (the ONNX reference) converts it. Saturation
    (ONNX Cast `saturate=1`) is a clamp the importer puts before the truncf.

    f8E8M0FNU (an exponent only, ONNX FLOAT8E8M0) follows onnx.numpy_helper.
    to_float8e8m0 without saturation: the sign is ignored, NaN and infinity
    become 0xFF (NaN), and the f32 exponent field is rounded by
    `roundingmode`: `upward` adds one when any mantissa bit is set,
    `downward` keeps it, and the default (ONNX "nearest") adds one when the
    highest mantissa bit and any other mantissa bit or a non-zero exponent
    are set.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
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
    This pass rewrites each such copy with a static innermost extent (outer
    extents may be dynamic: the slices of a KV cache that grows), an int or
    float element type and unit innermost strides into loops:

    - dimensions that are contiguous in both operands (and unit dimensions)
      are collapsed with `memref.collapse_shape`, leaving [o1, ..., ok, n];
    - the outer dimensions become an `scf.parallel` (when `parallel` and
      the copy moves at least 256 KiB; OpenMP later) or `scf.for` loops;
    - each row of n elements is moved with `vector.load`/`vector.store` of
      the target's vector width (a loop when the row holds more than 8
      vectors), and a remainder of n mod width elements with one narrower
      vector.

    Contiguous copies are left alone (they become `memcpy`), as are copies
    with a dynamic innermost extent or a strided innermost dimension.
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

def VectorizeReductionsPass
    : Pass<"mlprog-vectorize-reductions", "mlir::func::FuncOp"> {
  let summary = "Tiles reductions along the innermost dimension into vector "
                "code that keeps a vector of partial results per row";
  let description = [{
    For the reductions the loop lowering would otherwise turn into scalar
    loops with one loop-carried dependence (a softmax's max and sum, a layer
    norm's mean and variance, ReduceMean/ReduceSum/ReduceMax over the last
    axis): every linalg op at the top level of the function (or of the
    branches of its `scf.if` ops) with static
    loop ranges whose loops are parallel except the innermost, which reduces
    over at least 8 elements; whose output is indexed by the parallel loops
    in order; whose inputs' maps are projected permutations that either end
    with the innermost loop dimension or do not use it; with int/float
    operands of whole bytes and an arith/math body whose yield combines the
    output with one op that has a neutral element (`arith.addf`,
    `arith.maximumf`, `arith.muli`, ...; `arith::getNeutralElement`):

    - first, a generic whose trailing loops are all reductions that every
      operand reads contiguously (a global average pool's sum over [H, W]),
      whose other loops are parallel and whose maps are projected
      permutations, has those reductions collapsed into one loop
      (`linalg::collapseOpIterationDims`), so that it is a row reduction;
    - the op is generalized and its contiguous parallel dimensions are
      collapsed into one dimension of rows;
    - the innermost dimension is split into a multiple of a chunk of up to
      4 vectors of the target's width and a remainder (`linalg::splitOp`:
      the remainder reduces into the other part's result);
    - each part is tiled into loops over single rows (an `scf.forall` when
      `parallel` and the part holds at least 64 Ki elements);
    - within a row, the reduction is tiled by chunks with partial results
      (`ReductionTilingStrategy::PartialReductionOuterReduction`): a chunk
      of partial results starts at the combiner's neutral element, every
      chunk of the row combines into it lane by lane, and a final reduction
      combines the lanes with the output's initial value;
    - the chunk and the final reduction are vectorized (`linalg::vectorize`,
      the latter to `vector.reduction`), and the partial results become a
      loop-carried vector (`hoistLoopInvariantSubsets`).

    Floating-point sums are therefore reassociated: each lane sums every
    (4 x lanes)-th element, as onnxruntime's and Eigen's vectorized
    reductions do; results differ from a sequential sum by rounding only.

    Dynamic loop ranges: a reduction whose innermost range is dynamic (a
    decoding step's softmax over the keys) is collapsed with at most one
    dynamic extent per group, its outer loops become `scf.for` loops of
    step 1, and its row a loop over one-vector chunks into a vector of
    partial results; the last, partial chunk is peeled off
    (`scf::peelForLoopAndSimplifyBounds`) and stays scalar. A reduction
    whose innermost range is static (at least 8) but whose outer ones are
    dynamic (Q K^T's dot products over the head dimension for an unknown
    number of queries and keys) is tiled by 1 along its dynamic loops, and
    each static tile is vectorized as above.
  }];
  let options = [
    Option<"targetFeatures", "target-features", "std::string",
           /*default=*/"\"\"",
           "LLVM target features that choose the vector width (empty: the "
           "host's)">,
    Option<"parallel", "parallel", "bool", /*default=*/"true",
           "Put the rows of large reductions in an scf.forall">,
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

    An op whose innermost loop range is static but some outer ones are
    dynamic (a residual add or GELU over [batch, sequence, hidden] with the
    sequence unknown) is first tiled by 1 along its dynamic loops into
    `scf.for` loops (one row after another: a decoding step has one row),
    and each row, now static, is vectorized as above, after dropping a
    unit-dimension broadcast it reads (a layer norm's [1, ?, 1] mean).

    An op whose innermost loop range is dynamic (softmax's exponentials
    over a decoding step's keys) is collapsed with at most one dynamic
    extent per group, its outer loops become `scf.for` loops of step 1 and
    its row a loop over one-vector chunks; the last, partial chunk is
    peeled off (`scf::peelForLoopAndSimplifyBounds`) and stays scalar, the
    whole chunks are vectorized.

    Transposes whose innermost dimension moves, ops inside loops (the tiles of
    `mlprog-tile-and-vectorize-contractions`) and ops with `i1` operands
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

//===----------------------------------------------------------------------===//
// Entry points and targets (both pipelines)
//===----------------------------------------------------------------------===//

def AnnotateEntryPointsPass
    : Pass<"mlprog-annotate-entry-points", "mlir::ModuleOp"> {
  let summary = "Records the tensor signature of public functions and marks "
                "their tensor arguments read-only";
  let description = [{
    Prepares public functions to be called from the host, on tensors (after
    `convert-ml-program-to-memref`, before one-shot bufferization). Each
    public `func.func` with a body:

    - gets `mlprog.signature`, a TypeAttr holding its tensor-level
      FunctionType as host callers see it (`mlprog::getHostSignature`:
      arguments and results marked `ml_program.unsigned` are spelled `uiN`),
      unless it has one already; the markers are then removed. The
      discardable attribute survives the conversion to `llvm.func`, so a
      runner can check and bind .npy arrays to an already-lowered module;
    - has each tensor argument marked `bufferization.writable = false`
      (unless it carries the attribute already), so that one-shot
      bufferization never writes into the caller's input buffers.

    Private functions and declarations are left alone.
  }];
}

def EmitCInterfacePass : Pass<"mlprog-emit-c-interface", "mlir::ModuleOp"> {
  let summary = "Marks public functions llvm.emit_c_interface";
  let description = [{
    Puts the `llvm.emit_c_interface` unit attribute on every public
    `func.func` with a body, so that `finalize-memref-to-llvm` and
    `convert-func-to-llvm` also emit a `_mlir_ciface_<name>` wrapper taking
    pointers to memref descriptors: the entry points of AOT libraries
    called from C. `--mlprog-lower-to-cpu="emit-c-interface=1"` runs it just
    before the conversion to LLVM.
  }];
}

def SetTargetAttrsPass : Pass<"mlprog-set-target-attrs", "mlir::ModuleOp"> {
  let summary = "Records an explicitly requested CPU target on the LLVM "
                "module";
  let description = [{
    For AOT output compiled for a target other than the host, on the LLVM
    dialect (the end of `--mlprog-lower-to-cpu`): `target-triple` becomes
    the module's `llvm.target_triple`, and `target-cpu` and
    `target-features` become the `target_cpu` and `target_features` of
    every `llvm.func` with a body. Empty options set nothing. The JIT
    ignores these attributes and compiles for the host.
  }];
  let options = [
    Option<"targetCPU", "target-cpu", "std::string", /*default=*/"\"\"",
           "LLVM CPU name (as llc -mcpu); empty: none recorded">,
    Option<"targetFeatures", "target-features", "std::string",
           /*default=*/"\"\"",
           "LLVM target features (as llc -mattr, e.g. +avx2,+fma); empty: "
           "none recorded">,
    Option<"targetTriple", "target-triple", "std::string",
           /*default=*/"\"\"",
           "Target triple of the module; empty: none recorded">,
  ];
}

def PerInstanceStatePass
    : Pass<"mlprog-per-instance-state", "mlir::ModuleOp"> {
  let summary = "Reads the program's state (mutable globals) through "
                "pointer slots, so that each model instance has its own";
  let description = [{
    For AOT libraries (`mlprog-compile`), on the LLVM dialect (the end of
    `--mlprog-lower-to-cpu`). The state of a lowered program is its
    non-constant `llvm.mlir.global`s with an initializer: the storage of
    mutable `ml_program.global`s, and the `__value`/`__stored` pair of
    those with dynamic extents (see `--mlprog-convert-ml-program-to-memref`).
    For each such global `@g` this pass
    - creates `@g__slot`, a private pointer global that initially holds
      `@g`'s address;
    - replaces every `llvm.mlir.addressof @g` in a function by a load of
      `@g__slot`, so the code reads and writes whatever storage the slot
      points at;
    - keeps a constant copy `@g__initial` of the initial value when it is
      not all zeros (a new instance starts from it; zeros need no copy).
    It records the globals, in symbol order, in the module attribute
    `mlprog.instance_state`: an array of dictionaries `{global = @g, slot =
    @g__slot, initial = @g__initial}` (`initial` absent for zeros).
    Non-constant globals without an initializer (external data bound at
    link time) cannot be copied per instance: they are listed in
    `mlprog.shared_state` and keep their direct accesses.

    The AOT compiler turns the attribute into the state table of the
    library's C ABI: `mlprog_instance_create` allocates storage for every
    entry, `mlprog_instance_run` points the slots at it for one call
    (include/mlprog-c/Model.h). Without instances, the slots keep pointing
    at the library's own storage, so `mlprog_model_run` behaves as before:
    one load of a slot per `memref.get_global`, outside the loops.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

#endif // MLPROG_PIPELINES_PASSES_TD
