// RUN: mlprog-opt %s --pass-pipeline='builtin.module(func.func(mlprog-integer-contractions-to-f32{target-features=+avx512f,+avx512bw},canonicalize,cse))' | FileCheck %s
// RUN: mlprog-opt %s --pass-pipeline='builtin.module(func.func(mlprog-integer-contractions-to-f32{target-features=+avx512f,+avx512bw,+avx512vnni},canonicalize,cse))' | FileCheck %s --check-prefix=VNNI
// RUN: mlprog-opt %s --pass-pipeline='builtin.module(func.func(mlprog-integer-contractions-to-f32{target-features=+avx512f,+avx512bw,+avx512vnni},mlprog-lower-dot-products-to-vnni{target-features=+avx512f,+avx512bw,+avx512vnni}))' | FileCheck %s --check-prefix=INTR

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>

// MatMulInteger as the ONNX importer builds it: u8 activations minus their
// zero point times i8 weights minus theirs, in i32. Both factors are within
// [-255, 255], so a chunk of 258 terms cannot pass 2^24 (256 when rounded
// to whole blocks of 64): K = 600 is three f32 contractions of 256, 256 and
// 88 terms over f32 clones of the factors, each converted to i32 and added
// to the accumulator.
// CHECK-LABEL: func.func @matmul_integer
// CHECK-SAME: (%[[X:.*]]: tensor<4x600xi8>, %[[XZ:.*]]: tensor<i8>, %[[W:.*]]: tensor<600x32xi8>, %[[WZ:.*]]: tensor<i8>)
// CHECK: %[[AF:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[XZ]] : tensor<4x600xi8>, tensor<i8>) outs(%{{.*}} : tensor<4x600xf32>)
// CHECK: arith.extui
// CHECK: arith.subi
// CHECK: arith.sitofp {{.*}} : i32 to f32
// CHECK: %[[BF:.*]] = linalg.generic {{.*}} ins(%[[W]], %[[WZ]] : tensor<600x32xi8>, tensor<i8>) outs(%{{.*}} : tensor<600x32xf32>)
// CHECK: arith.extsi
// CHECK: arith.sitofp {{.*}} : i32 to f32
// CHECK: %[[A0:.*]] = tensor.extract_slice %[[AF]][0, 0] [4, 256] [1, 1]
// CHECK: %[[B0:.*]] = tensor.extract_slice %[[BF]][0, 0] [256, 32] [1, 1]
// CHECK: %[[P0:.*]] = linalg.generic {{.*}} ins(%[[A0]], %[[B0]] : tensor<4x256xf32>, tensor<256x32xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[C0:.*]] = linalg.generic {{.*}} ins(%[[P0]] : tensor<4x32xf32>) outs(%{{.*}} : tensor<4x32xi32>)
// CHECK: arith.fptosi
// CHECK: arith.addi
// CHECK: tensor.extract_slice %[[AF]][0, 256] [4, 256] [1, 1]
// CHECK: tensor.extract_slice %[[AF]][0, 512] [4, 88] [1, 1]
// CHECK: %[[B2:.*]] = tensor.extract_slice %[[BF]][512, 0] [88, 32] [1, 1]
// CHECK: %[[P2:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[B2]] : tensor<4x88xf32>, tensor<88x32xf32>)
// CHECK: %[[C2:.*]] = linalg.generic {{.*}} ins(%[[P2]] : tensor<4x32xf32>)
// CHECK: return %[[C2]]
// CHECK-NOT: arith.muli
// With AVX-512 VNNI the same contraction (u8 times i8, K = 600 a multiple
// of 4, N = 32 of 16) is dot products of bytes: B in panels [N / 16, K / 4,
// 64] (B is an argument here: packed at run time, an scf.forall over
// blocks of up to 4 steps of K, here 2 of the 150, and in each up to 4
// panels at a time, here both: per step 4 rows of 32 bytes read, each
// panel's 16 bytes of them interleaved by vector.shuffles; a weight's are
// an expand_shape and a
// transpose, packed at compile time, see @weight_panels), the column sums
// of B by dot products with all-ones bytes, the
// row sums of A (the weight's zero point is not known to be 0), and an
// scf.forall over register blocks (here one, of 4 rows x 32 columns, so
// canonicalization removes the forall) whose K loop
// multiplies 4 bytes of a row, broadcast, with 64 bytes of a panel and
// sums each group of 4 products into a lane (vector.multi_reduction, which
// --mlprog-lower-dot-products-to-vnni makes one vpdpbusd).
// VNNI-LABEL: func.func @matmul_integer
// VNNI: %[[P:.*]] = scf.forall (%{{.*}}) in (75) shared_outs(%{{.*}}) -> (tensor<2x150x64xi8>)
// VNNI-COUNT-4: vector.transfer_read %{{.*}} : tensor<600x32xi8>, vector<32xi8>
// VNNI-COUNT-4: vector.extract_strided_slice %{{.*}} {offsets = [0], sizes = [16], strides = [1]} : vector<32xi8> to vector<16xi8>
// VNNI-COUNT-2: vector.interleave %{{.*}}, %{{.*}} : vector<16xi8> -> vector<32xi8>
// VNNI: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 32, 33, 2, 3, 34, 35, {{.*}}] : vector<32xi8>, vector<32xi8>
// VNNI: vector.transfer_write %{{.*}}[%c0, %c0, %c0] {{.*}} : vector<64xi8>, tensor<2x2x64xi8>
// VNNI-COUNT-4: vector.extract_strided_slice %{{.*}} {offsets = [16], sizes = [16], strides = [1]} : vector<32xi8> to vector<16xi8>
// VNNI: vector.transfer_write %{{.*}}[%c1, %c0, %c0] {{.*}} : vector<64xi8>, tensor<2x2x64xi8>
// VNNI-COUNT-4: vector.transfer_read %{{.*}} : tensor<600x32xi8>, vector<32xi8>
// VNNI: vector.transfer_write %{{.*}}[%c1, %c1, %c0] {{.*}} : vector<64xi8>, tensor<2x2x64xi8>
// VNNI: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[0, %{{.*}}, 0] [2, 2, 64] [1, 1, 1] : tensor<2x2x64xi8> into tensor<2x150x64xi8>
// VNNI: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1] : vector<16x4xi32> to vector<16xi32>
// VNNI: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// VNNI: scf.for {{.*}} iter_args({{.*}}) -> (vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>)
// VNNI: vector.transfer_read %[[P]]
// VNNI: vector.bitcast {{.*}} : vector<4xi8> to vector<1xi32>
// VNNI: arith.extui {{.*}} : vector<16x4xi8> to vector<16x4xi32>
// VNNI: arith.extsi {{.*}} : vector<16x4xi8> to vector<16x4xi32>
// VNNI: arith.muli {{.*}} : vector<16x4xi32>
// VNNI: vector.multi_reduction <add>
// VNNI-NOT: arith.sitofp
// VNNI-LABEL: func.func @one_chunk
// INTR-LABEL: func.func @matmul_integer
// The column sums, then the register block: both vpdpbusd.
// INTR: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"({{.*}}) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// INTR: llvm.call_intrinsic "llvm.x86.avx512.vpdpbusd.512"
// INTR-NOT: vector.multi_reduction
// INTR-LABEL: func.func @one_chunk
func.func @matmul_integer(%x: tensor<4x600xi8>, %xz: tensor<i8>, %w: tensor<600x32xi8>, %wz: tensor<i8>) -> tensor<4x32xi32> {
  %ea = tensor.empty() : tensor<4x600xi32>
  %a = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %xz : tensor<4x600xi8>, tensor<i8>) outs(%ea : tensor<4x600xi32>) {
  ^bb0(%v: i8, %z: i8, %o: i32):
    %v32 = arith.extui %v : i8 to i32
    %z32 = arith.extui %z : i8 to i32
    %d = arith.subi %v32, %z32 : i32
    linalg.yield %d : i32
  } -> tensor<4x600xi32>
  %eb = tensor.empty() : tensor<600x32xi32>
  %b = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %wz : tensor<600x32xi8>, tensor<i8>) outs(%eb : tensor<600x32xi32>) {
  ^bb0(%v: i8, %z: i8, %o: i32):
    %v32 = arith.extsi %v : i8 to i32
    %z32 = arith.extsi %z : i8 to i32
    %d = arith.subi %v32, %z32 : i32
    linalg.yield %d : i32
  } -> tensor<600x32xi32>
  %c0 = arith.constant 0 : i32
  %ec = tensor.empty() : tensor<4x32xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%ec : tensor<4x32xi32>) -> tensor<4x32xi32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<4x600xi32>, tensor<600x32xi32>) outs(%f : tensor<4x32xi32>) {
  ^bb0(%in: i32, %in_0: i32, %out: i32):
    %p = arith.muli %in, %in_0 : i32
    %s = arith.addi %out, %p : i32
    linalg.yield %s : i32
  } -> tensor<4x32xi32>
  return %r : tensor<4x32xi32>
}

// Two i8 factors with no zero point (products within 2^14): K = 64 fits
// one chunk, so one f32 contraction and no slices.
// CHECK-LABEL: func.func @one_chunk
// CHECK-NOT: tensor.extract_slice
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x64xf32>, tensor<64x8xf32>)
// CHECK: arith.fptosi
// CHECK-NOT: arith.muli
func.func @one_chunk(%x: tensor<4x64xi8>, %w: tensor<64x8xi8>, %acc: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %ea = tensor.empty() : tensor<4x64xi32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x64xi8>) outs(%ea : tensor<4x64xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extsi %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<4x64xi32>
  %eb = tensor.empty() : tensor<64x8xi32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<64x8xi8>) outs(%eb : tensor<64x8xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extsi %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<64x8xi32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<4x64xi32>, tensor<64x8xi32>) outs(%acc : tensor<4x8xi32>) {
  ^bb0(%in: i32, %in_0: i32, %out: i32):
    %p = arith.muli %in, %in_0 : i32
    %s = arith.addi %out, %p : i32
    linalg.yield %s : i32
  } -> tensor<4x8xi32>
  return %r : tensor<4x8xi32>
}

// A named linalg.matmul of such factors, as canonicalization leaves some
// of them, is rewritten the same way.
// CHECK-LABEL: func.func @named_matmul
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x64xf32>, tensor<64x8xf32>)
// CHECK-NOT: linalg.matmul
func.func @named_matmul(%x: tensor<4x64xi8>, %w: tensor<64x8xi8>, %acc: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %ea = tensor.empty() : tensor<4x64xi32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x64xi8>) outs(%ea : tensor<4x64xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extui %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<4x64xi32>
  %eb = tensor.empty() : tensor<64x8xi32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<64x8xi8>) outs(%eb : tensor<64x8xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extsi %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<64x8xi32>
  %r = linalg.matmul ins(%a, %b : tensor<4x64xi32>, tensor<64x8xi32>) outs(%acc : tensor<4x8xi32>) -> tensor<4x8xi32>
  return %r : tensor<4x8xi32>
}

// Factors of unknown range (i32 arguments) stay an i32 contraction.
// CHECK-LABEL: func.func @unbounded
// CHECK: arith.muli
// CHECK-NOT: arith.sitofp
func.func @unbounded(%a: tensor<4x64xi32>, %b: tensor<64x8xi32>, %acc: tensor<4x8xi32>) -> tensor<4x8xi32> {
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<4x64xi32>, tensor<64x8xi32>) outs(%acc : tensor<4x8xi32>) {
  ^bb0(%in: i32, %in_0: i32, %out: i32):
    %p = arith.muli %in, %in_0 : i32
    %s = arith.addi %out, %p : i32
    linalg.yield %s : i32
  } -> tensor<4x8xi32>
  return %r : tensor<4x8xi32>
}

// A weight (a constant global) is packed by an expand_shape and a
// transpose, which --mlprog-fold-constant-panels computes at compile time.
// CHECK-LABEL: func.func @weight_panels
// VNNI-LABEL: func.func @weight_panels
// VNNI: %[[WEIGHT:.*]] = bufferization.to_tensor
// VNNI: %[[E:.*]] = tensor.expand_shape %[[WEIGHT]] {{\[}}[0, 1], [2, 3]] output_shape [16, 4, 2, 16] : tensor<64x32xi8> into tensor<16x4x2x16xi8>
// VNNI: %[[T:.*]] = linalg.transpose ins(%[[E]] : tensor<16x4x2x16xi8>) outs(%{{.*}} : tensor<2x16x16x4xi8>) permutation = [2, 0, 3, 1]
// VNNI: tensor.collapse_shape %[[T]] {{\[}}[0], [1], [2, 3]] : tensor<2x16x16x4xi8> into tensor<2x16x64xi8>
// VNNI-NOT: vector.shuffle
// VNNI: return
memref.global "private" constant @weight : memref<64x32xi8> = dense<7>

func.func @weight_panels(%x: tensor<4x64xi8>, %xz: tensor<i8>) -> tensor<4x32xi32> {
  %ea = tensor.empty() : tensor<4x64xi32>
  %a = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %xz : tensor<4x64xi8>, tensor<i8>) outs(%ea : tensor<4x64xi32>) {
  ^bb0(%v: i8, %z: i8, %o: i32):
    %v32 = arith.extui %v : i8 to i32
    %z32 = arith.extui %z : i8 to i32
    %d = arith.subi %v32, %z32 : i32
    linalg.yield %d : i32
  } -> tensor<4x64xi32>
  %wg = memref.get_global @weight : memref<64x32xi8>
  %w = bufferization.to_tensor %wg restrict : memref<64x32xi8> to tensor<64x32xi8>
  %eb = tensor.empty() : tensor<64x32xi32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<64x32xi8>) outs(%eb : tensor<64x32xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extsi %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<64x32xi32>
  %zero = arith.constant 0 : i32
  %ec = tensor.empty() : tensor<4x32xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%ec : tensor<4x32xi32>) -> tensor<4x32xi32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<4x64xi32>, tensor<64x32xi32>) outs(%acc : tensor<4x32xi32>) {
  ^bb0(%l: i32, %r2: i32, %o: i32):
    %m = arith.muli %l, %r2 : i32
    %s2 = arith.addi %o, %m : i32
    linalg.yield %s2 : i32
  } -> tensor<4x32xi32>
  return %r : tensor<4x32xi32>
}

// A signed weight A larger than an L2 block (1 MiB here) times unsigned
// columns whose column block of B fits L1 (K = 1024 x 32 columns): the
// register blocks' rows go outside, and A is read from row panels [M / 8,
// K / 4, 8 x 4], its 8 rows' 4 bytes of each K step side by side (an
// expand_shape and a transpose of the constant, computed at compile time),
// so that a block's broadcasts read one stream.
// CHECK-LABEL: func.func @row_panels
// VNNI-LABEL: func.func @row_panels
// VNNI: %[[WEIGHT:.*]] = bufferization.to_tensor
// VNNI: %[[E:.*]] = tensor.expand_shape %[[WEIGHT]] {{\[}}[0, 1], [2, 3]] output_shape [128, 8, 256, 4] : tensor<1024x1024xi8> into tensor<128x8x256x4xi8>
// VNNI: %[[T:.*]] = linalg.transpose ins(%[[E]] : tensor<128x8x256x4xi8>) outs(%{{.*}} : tensor<128x256x8x4xi8>) permutation = [0, 2, 1, 3]
// VNNI: %[[R:.*]] = tensor.collapse_shape %[[T]] {{\[}}[0], [1], [2, 3]] : tensor<128x256x8x4xi8> into tensor<128x256x32xi8>
// VNNI: scf.forall (%[[BLOCK:.*]]) in (128)
// VNNI: scf.for %[[STEP:.*]] = %{{.*}} to %{{.*}} step
// VNNI: vector.transfer_read %[[R]][%[[BLOCK]], %[[STEP]], %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<128x256x32xi8>, vector<4xi8>
// VNNI-COUNT-7: vector.transfer_read %[[R]][%[[BLOCK]], %[[STEP]], %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<128x256x32xi8>, vector<4xi8>
// VNNI: return
memref.global "private" constant @large_weight : memref<1024x1024xi8> = dense<3>

func.func @row_panels(%x: tensor<1024x32xi8>) -> tensor<1024x32xi32> {
  %wg = memref.get_global @large_weight : memref<1024x1024xi8>
  %w = bufferization.to_tensor %wg restrict : memref<1024x1024xi8> to tensor<1024x1024xi8>
  %ea = tensor.empty() : tensor<1024x1024xi32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<1024x1024xi8>) outs(%ea : tensor<1024x1024xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extsi %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<1024x1024xi32>
  %eb = tensor.empty() : tensor<1024x32xi32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1024x32xi8>) outs(%eb : tensor<1024x32xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extui %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<1024x32xi32>
  %zero = arith.constant 0 : i32
  %ec = tensor.empty() : tensor<1024x32xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%ec : tensor<1024x32xi32>) -> tensor<1024x32xi32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<1024x1024xi32>, tensor<1024x32xi32>) outs(%acc : tensor<1024x32xi32>) {
  ^bb0(%l: i32, %r2: i32, %o: i32):
    %m = arith.muli %l, %r2 : i32
    %s2 = arith.addi %o, %m : i32
    linalg.yield %s2 : i32
  } -> tensor<1024x32xi32>
  return %r : tensor<1024x32xi32>
}

// The requantizing epilogue of a QDQ convolution's byte product (the
// product [F, OH * OW] expanded to [1, F, OH, OW], rescaled, biased per
// channel and converted back to bytes) is computed in the register blocks:
// the forall writes the bytes, its sums never go to memory. The bias is
// read per row of the block (one element broadcast), the bytes written as
// 16 lanes of a block row.
// VNNI-LABEL: func.func @requantized
// VNNI-SAME: (%[[X:.*]]: tensor<8x32xi8>, %[[BIAS:.*]]: tensor<16xf32>)
// VNNI: %[[BYTES:.*]] = scf.forall {{.*}} -> (tensor<16x32xi8>)
// VNNI: scf.for
// VNNI: tensor.extract %[[BIAS]][%{{.*}}] : tensor<16xf32>
// VNNI: arith.fptoui %{{.*}} : vector<16xf32> to vector<16xi8>
// VNNI: vector.transfer_write %{{.*}} : vector<16xi8>, tensor<8x32xi8>
// The sums start from the zeros C is filled with, not from reads of C.
// VNNI-NOT: tensor<16x32xi32>, vector<16xi32>
// VNNI-NOT: -> (tensor<16x32xi32>)
// VNNI: %[[Y:.*]] = tensor.expand_shape %[[BYTES]] {{\[}}[0, 1], [2, 3]] output_shape [1, 16, 4, 8] : tensor<16x32xi8> into tensor<1x16x4x8xi8>
// VNNI: return %[[Y]]
// When the epilogue yields the bytes widened for the next byte product
// (elementwise fusion merges the two), the blocks write the bytes and a
// generic of its own widens them: the next product reads them in place.
// VNNI-LABEL: func.func @requantized_and_widened
// VNNI: %[[BYTES:.*]] = scf.forall {{.*}} -> (tensor<16x32xi8>)
// VNNI: %[[E:.*]] = tensor.expand_shape %[[BYTES]] {{.*}} into tensor<1x16x4x8xi8>
// VNNI: %[[W:.*]] = linalg.generic {{.*}} ins(%[[E]] : tensor<1x16x4x8xi8>) outs(%{{.*}} : tensor<1x16x4x8xi32>)
// VNNI-NEXT: ^bb0
// VNNI-NEXT: arith.extui
// VNNI: return %[[W]]
memref.global "private" constant @filter : memref<16x8xi8> = dense<2>
memref.global "private" constant @filter16 : memref<16x16xi8> = dense<3>
memref.global "private" constant @filter64 : memref<32x64xi8> = dense<5>

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#channel4 = affine_map<(d0, d1, d2, d3) -> (d1)>
#swapped4 = affine_map<(d0, d1, d2, d3) -> (d1, d0, d2, d3)>

func.func @requantized(%x: tensor<8x32xi8>, %bias: tensor<16xf32>) -> tensor<1x16x4x8xi8> {
  %wg = memref.get_global @filter : memref<16x8xi8>
  %w = bufferization.to_tensor %wg restrict : memref<16x8xi8> to tensor<16x8xi8>
  %ea = tensor.empty() : tensor<16x8xi32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<16x8xi8>) outs(%ea : tensor<16x8xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extsi %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<16x8xi32>
  %eb = tensor.empty() : tensor<8x32xi32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x32xi8>) outs(%eb : tensor<8x32xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extui %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<8x32xi32>
  %zero = arith.constant 0 : i32
  %ec = tensor.empty() : tensor<16x32xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%ec : tensor<16x32xi32>) -> tensor<16x32xi32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x8xi32>, tensor<8x32xi32>) outs(%acc : tensor<16x32xi32>) {
  ^bb0(%l: i32, %r2: i32, %o: i32):
    %m = arith.muli %l, %r2 : i32
    %s2 = arith.addi %o, %m : i32
    linalg.yield %s2 : i32
  } -> tensor<16x32xi32>
  %e = tensor.expand_shape %r [[0, 1], [2, 3]] output_shape [1, 16, 4, 8] : tensor<16x32xi32> into tensor<1x16x4x8xi32>
  %s = arith.constant 0.125 : f32
  %ey = tensor.empty() : tensor<1x16x4x8xi8>
  %y = linalg.generic {indexing_maps = [#id4, #channel4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %bias : tensor<1x16x4x8xi32>, tensor<16xf32>) outs(%ey : tensor<1x16x4x8xi8>) {
  ^bb0(%v: i32, %bv: f32, %o: i8):
    %f = arith.sitofp %v : i32 to f32
    %scaled = arith.mulf %f, %s : f32
    %biased = arith.addf %scaled, %bv : f32
    %q = arith.fptoui %biased : f32 to i8
    linalg.yield %q : i8
  } -> tensor<1x16x4x8xi8>
  return %y : tensor<1x16x4x8xi8>
}

func.func @requantized_and_widened(%x: tensor<8x32xi8>, %bias: tensor<16xf32>) -> tensor<1x16x4x8xi32> {
  %wg = memref.get_global @filter : memref<16x8xi8>
  %w = bufferization.to_tensor %wg restrict : memref<16x8xi8> to tensor<16x8xi8>
  %ea = tensor.empty() : tensor<16x8xi32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<16x8xi8>) outs(%ea : tensor<16x8xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extsi %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<16x8xi32>
  %eb = tensor.empty() : tensor<8x32xi32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x32xi8>) outs(%eb : tensor<8x32xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extui %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<8x32xi32>
  %zero = arith.constant 0 : i32
  %ec = tensor.empty() : tensor<16x32xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%ec : tensor<16x32xi32>) -> tensor<16x32xi32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x8xi32>, tensor<8x32xi32>) outs(%acc : tensor<16x32xi32>) {
  ^bb0(%l: i32, %r2: i32, %o: i32):
    %m = arith.muli %l, %r2 : i32
    %s2 = arith.addi %o, %m : i32
    linalg.yield %s2 : i32
  } -> tensor<16x32xi32>
  %e = tensor.expand_shape %r [[0, 1], [2, 3]] output_shape [1, 16, 4, 8] : tensor<16x32xi32> into tensor<1x16x4x8xi32>
  %s = arith.constant 0.125 : f32
  %ey = tensor.empty() : tensor<1x16x4x8xi32>
  %y = linalg.generic {indexing_maps = [#id4, #channel4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %bias : tensor<1x16x4x8xi32>, tensor<16xf32>) outs(%ey : tensor<1x16x4x8xi32>) {
  ^bb0(%v: i32, %bv: f32, %o: i32):
    %f = arith.sitofp %v : i32 to f32
    %scaled = arith.mulf %f, %s : f32
    %biased = arith.addf %scaled, %bv : f32
    %q = arith.fptoui %biased : f32 to i8
    %wide = arith.extui %q : i8 to i32
    linalg.yield %wide : i32
  } -> tensor<1x16x4x8xi32>
  return %y : tensor<1x16x4x8xi32>
}

// A product of 64 columns of which the epilogue reads 40 (a convolution's
// pixels padded to pairs of panels): the last column block's second panel
// holds only padding, so that block computes its first panel only (8
// accumulators, not 16); columns past the 40 read 0 from the epilogue's
// other inputs, and the real columns are sliced from the result.
// VNNI-LABEL: func.func @padded_columns
// VNNI: %[[BYTES:.*]] = scf.forall (%[[COLUMNS:.*]], %{{.*}}) in (2, 2) {{.*}} -> (tensor<16x64xi8>)
// VNNI: %[[COLUMN:.*]] = arith.muli %[[COLUMNS]], %c32 : index
// VNNI: %[[LAST:.*]] = arith.cmpi eq, %[[COLUMN]], %c32 : index
// VNNI: scf.if %[[LAST]] -> (tensor<8x32xi8>) {
// VNNI: scf.for {{.*}} -> (vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>) {
// VNNI: vector.transfer_read %{{.*}} : tensor<16x40xf32>, vector<16xf32>
// VNNI: } else {
// VNNI: scf.for {{.*}} -> (vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>, vector<16xi32>) {
// VNNI: %[[REAL:.*]] = tensor.extract_slice %[[BYTES]][0, 0] [16, 40] [1, 1]
// VNNI: tensor.expand_shape %[[REAL]] {{.*}} into tensor<1x16x5x8xi8>
func.func @padded_columns(%x: tensor<8x64xi8>, %residual: tensor<1x16x5x8xf32>) -> tensor<1x16x5x8xi8> {
  %wg = memref.get_global @filter : memref<16x8xi8>
  %w = bufferization.to_tensor %wg restrict : memref<16x8xi8> to tensor<16x8xi8>
  %ea = tensor.empty() : tensor<16x8xi32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<16x8xi8>) outs(%ea : tensor<16x8xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extsi %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<16x8xi32>
  %eb = tensor.empty() : tensor<8x64xi32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xi8>) outs(%eb : tensor<8x64xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extui %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<8x64xi32>
  %zero = arith.constant 0 : i32
  %ec = tensor.empty() : tensor<16x64xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%ec : tensor<16x64xi32>) -> tensor<16x64xi32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x8xi32>, tensor<8x64xi32>) outs(%acc : tensor<16x64xi32>) {
  ^bb0(%l: i32, %r2: i32, %o: i32):
    %m = arith.muli %l, %r2 : i32
    %s2 = arith.addi %o, %m : i32
    linalg.yield %s2 : i32
  } -> tensor<16x64xi32>
  %used = tensor.extract_slice %r[0, 0] [16, 40] [1, 1] : tensor<16x64xi32> to tensor<16x40xi32>
  %e = tensor.expand_shape %used [[0, 1], [2, 3]] output_shape [1, 16, 5, 8] : tensor<16x40xi32> into tensor<1x16x5x8xi32>
  %s = arith.constant 0.125 : f32
  %ey = tensor.empty() : tensor<1x16x5x8xi8>
  %y = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %residual : tensor<1x16x5x8xi32>, tensor<1x16x5x8xf32>) outs(%ey : tensor<1x16x5x8xi8>) {
  ^bb0(%v: i32, %rv: f32, %o: i8):
    %f = arith.sitofp %v : i32 to f32
    %scaled = arith.mulf %f, %s : f32
    %sum = arith.addf %scaled, %rv : f32
    %q = arith.fptoui %sum : f32 to i8
    linalg.yield %q : i8
  } -> tensor<1x16x5x8xi8>
  return %y : tensor<1x16x5x8xi8>
}

// A batch of 2 images of 32 pixels each, their columns contiguous
// ([16, 64] as [16, 2, 4, 8]), the epilogue reading the product with its
// first two dimensions swapped into the convolution's [2, 16, 4, 8]: each
// register block's 32 columns are one image's, so the blocks compute the
// epilogue (a residual read at [image, row, column], a bias per row) and
// write bytes at [image, row, column] of [2, 16, 32].
// VNNI-LABEL: func.func @batched_images
// VNNI: %[[BYTES:.*]] = scf.forall (%[[COLUMNS:.*]], %[[ROWS:.*]]) in (2, 2) {{.*}} -> (tensor<2x16x32xi8>)
// VNNI: %[[COLUMN:.*]] = arith.muli %[[COLUMNS]], %c32 : index
// VNNI: %[[IMAGE:.*]] = arith.divui %[[COLUMN]], %c32 : index
// VNNI: %[[AT:.*]] = arith.remui %[[COLUMN]], %c32 : index
// VNNI: tensor.extract_slice %{{.*}}[%[[IMAGE]], %{{.*}}, %[[AT]]] [1, 8, 32] [1, 1, 1] : tensor<2x16x32xi8> to tensor<8x32xi8>
// VNNI: vector.transfer_read %{{.*}}[%[[IMAGE]], %{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<2x16x32xf32>, vector<16xf32>
// VNNI: tensor.parallel_insert_slice %{{.*}} into %{{.*}}[%[[IMAGE]], %{{.*}}, %[[AT]]] [1, 8, 32] [1, 1, 1] : tensor<8x32xi8> into tensor<2x16x32xi8>
// VNNI: tensor.expand_shape %[[BYTES]] {{\[}}[0], [1], [2, 3]] output_shape [2, 16, 4, 8] : tensor<2x16x32xi8> into tensor<2x16x4x8xi8>
// VNNI-NOT: linalg.generic
func.func @batched_images(%x: tensor<8x64xi8>, %residual: tensor<2x16x4x8xf32>, %bias: tensor<16xf32>) -> tensor<2x16x4x8xi8> {
  %wg = memref.get_global @filter : memref<16x8xi8>
  %w = bufferization.to_tensor %wg restrict : memref<16x8xi8> to tensor<16x8xi8>
  %ea = tensor.empty() : tensor<16x8xi32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<16x8xi8>) outs(%ea : tensor<16x8xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extsi %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<16x8xi32>
  %eb = tensor.empty() : tensor<8x64xi32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xi8>) outs(%eb : tensor<8x64xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extui %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<8x64xi32>
  %zero = arith.constant 0 : i32
  %ec = tensor.empty() : tensor<16x64xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%ec : tensor<16x64xi32>) -> tensor<16x64xi32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x8xi32>, tensor<8x64xi32>) outs(%acc : tensor<16x64xi32>) {
  ^bb0(%l: i32, %r2: i32, %o: i32):
    %m = arith.muli %l, %r2 : i32
    %s2 = arith.addi %o, %m : i32
    linalg.yield %s2 : i32
  } -> tensor<16x64xi32>
  %e = tensor.expand_shape %r [[0], [1, 2, 3]] output_shape [16, 2, 4, 8] : tensor<16x64xi32> into tensor<16x2x4x8xi32>
  %s = arith.constant 0.125 : f32
  %ey = tensor.empty() : tensor<2x16x4x8xi8>
  %y = linalg.generic {indexing_maps = [#swapped4, #id4, #channel4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %residual, %bias : tensor<16x2x4x8xi32>, tensor<2x16x4x8xf32>, tensor<16xf32>) outs(%ey : tensor<2x16x4x8xi8>) {
  ^bb0(%v: i32, %rv: f32, %bv: f32, %o: i8):
    %f = arith.sitofp %v : i32 to f32
    %scaled = arith.mulf %f, %s : f32
    %biased = arith.addf %scaled, %bv : f32
    %sum = arith.addf %biased, %rv : f32
    %q = arith.fptoui %sum : f32 to i8
    linalg.yield %q : i8
  } -> tensor<2x16x4x8xi8>
  return %y : tensor<2x16x4x8xi8>
}

// The same batch with 12 pixels per image, each image's columns padded to
// 32 ([16, 64] as [16, 2, 32], its [16, 2, 12] sliced and expanded to
// [16, 2, 3, 4]): the blocks read the residual with columns past 12 read
// as 0, each image's last block computes its first panel only (the second
// holds only padding), and the real columns are sliced from the bytes.
// VNNI-LABEL: func.func @padded_images
// VNNI: %[[BYTES:.*]] = scf.forall (%[[COLUMNS:.*]], %{{.*}}) in (2, 2) {{.*}} -> (tensor<2x16x32xi8>)
// VNNI: %[[COLUMN:.*]] = arith.muli %[[COLUMNS]], %c32 : index
// VNNI: %[[AT:.*]] = arith.remui %[[COLUMN]], %c32 : index
// VNNI: %[[LAST:.*]] = arith.cmpi eq, %[[AT]], %c0 : index
// VNNI: scf.if %[[LAST]] -> (tensor<8x32xi8>) {
// VNNI: vector.transfer_read %{{.*}} : tensor<2x16x12xf32>, vector<16xf32>
// VNNI: %[[REAL:.*]] = tensor.extract_slice %[[BYTES]][0, 0, 0] [2, 16, 12] [1, 1, 1]
// VNNI: tensor.expand_shape %[[REAL]] {{\[}}[0], [1], [2, 3]] output_shape [2, 16, 3, 4] : tensor<2x16x12xi8> into tensor<2x16x3x4xi8>
// VNNI-NOT: linalg.generic
func.func @padded_images(%x: tensor<8x64xi8>, %residual: tensor<2x16x3x4xf32>) -> tensor<2x16x3x4xi8> {
  %wg = memref.get_global @filter : memref<16x8xi8>
  %w = bufferization.to_tensor %wg restrict : memref<16x8xi8> to tensor<16x8xi8>
  %ea = tensor.empty() : tensor<16x8xi32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<16x8xi8>) outs(%ea : tensor<16x8xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extsi %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<16x8xi32>
  %eb = tensor.empty() : tensor<8x64xi32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x64xi8>) outs(%eb : tensor<8x64xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extui %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<8x64xi32>
  %zero = arith.constant 0 : i32
  %ec = tensor.empty() : tensor<16x64xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%ec : tensor<16x64xi32>) -> tensor<16x64xi32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x8xi32>, tensor<8x64xi32>) outs(%acc : tensor<16x64xi32>) {
  ^bb0(%l: i32, %r2: i32, %o: i32):
    %m = arith.muli %l, %r2 : i32
    %s2 = arith.addi %o, %m : i32
    linalg.yield %s2 : i32
  } -> tensor<16x64xi32>
  %images = tensor.expand_shape %r [[0], [1, 2]] output_shape [16, 2, 32] : tensor<16x64xi32> into tensor<16x2x32xi32>
  %used = tensor.extract_slice %images[0, 0, 0] [16, 2, 12] [1, 1, 1] : tensor<16x2x32xi32> to tensor<16x2x12xi32>
  %e = tensor.expand_shape %used [[0], [1], [2, 3]] output_shape [16, 2, 3, 4] : tensor<16x2x12xi32> into tensor<16x2x3x4xi32>
  %s = arith.constant 0.125 : f32
  %ey = tensor.empty() : tensor<2x16x3x4xi8>
  %y = linalg.generic {indexing_maps = [#swapped4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %residual : tensor<16x2x3x4xi32>, tensor<2x16x3x4xf32>) outs(%ey : tensor<2x16x3x4xi8>) {
  ^bb0(%v: i32, %rv: f32, %o: i8):
    %f = arith.sitofp %v : i32 to f32
    %scaled = arith.mulf %f, %s : f32
    %sum = arith.addf %scaled, %rv : f32
    %q = arith.fptoui %sum : f32 to i8
    linalg.yield %q : i8
  } -> tensor<2x16x3x4xi8>
  return %y : tensor<2x16x3x4xi8>
}

// A batch of 3 images of 36 pixels each, their columns contiguous and the
// batch's 108 padded to 128 ([16, 128], its [16, 108] sliced and expanded
// to [16, 3, 6, 6]): blocks of 32 columns that span two images. A block
// writes its columns of the first image as a slice of a dynamic size and
// those of the next into a side tensor [4, 16, 32] at [column block, row,
// 0], moved down to column 0 and masked (the lanes before the next image
// shifted out); after the blocks, each image boundary's columns are copied
// from the side tensor to the image (28 at image 1, 24 at image 2).
// VNNI-LABEL: func.func @straddling_images
// VNNI: %[[BLOCKS:.*]]:2 = scf.forall (%[[COLUMNS:.*]], %{{.*}}) in (4, 2) shared_outs(%[[OUT:.*]] = %{{.*}}, %[[SIDE:.*]] = %{{.*}}) -> (tensor<3x16x36xi8>, tensor<4x16x32xi8>)
// VNNI: %[[FIRST:.*]] = tensor.extract_slice %[[OUT]][%{{.*}}, %{{.*}}, %{{.*}}] [1, 8, %{{.*}}] [1, 1, 1] : tensor<3x16x36xi8> to tensor<8x?xi8>
// VNNI: %[[PART:.*]] = tensor.extract_slice %[[SIDE]][%{{.*}}, %{{.*}}, 0] [1, 8, 32] [1, 1, 1] : tensor<4x16x32xi8> to tensor<8x32xi8>
// VNNI: scf.if %{{.*}} -> (tensor<8x?xi8>, tensor<8x32xi8>) {
// VNNI: vector.transfer_write %{{.*}}, %{{.*}}[%c0, %c0] {in_bounds = [true]} : vector<16xi8>, tensor<8x?xi8>
// VNNI: } else {
// VNNI: vector.transfer_read %{{.*}} : tensor<3x16x36xf32>, vector<16xf32>
// VNNI: vector.transfer_write %{{.*}}, %{{.*}}[%c0, %c0] : vector<16xi8>, tensor<8x?xi8>
// VNNI: vector.shuffle
// VNNI: vector.transfer_write %{{.*}}, %{{.*}}[%c0, %{{.*}}], %{{.*}} {in_bounds = [true]} : vector<16xi8>, tensor<8x32xi8>
// VNNI: tensor.parallel_insert_slice %{{.*}} into %[[OUT]]
// VNNI: tensor.parallel_insert_slice %{{.*}} into %[[SIDE]]
// VNNI: %[[TO1:.*]] = tensor.extract_slice %[[BLOCKS]]#1[1, 0, 0] [1, 16, 28] [1, 1, 1]
// VNNI: %[[IMAGE1:.*]] = tensor.insert_slice %[[TO1]] into %[[BLOCKS]]#0[1, 0, 0] [1, 16, 28] [1, 1, 1]
// VNNI: %[[TO2:.*]] = tensor.extract_slice %[[BLOCKS]]#1[2, 0, 0] [1, 16, 24] [1, 1, 1]
// VNNI: %[[IMAGE2:.*]] = tensor.insert_slice %[[TO2]] into %[[IMAGE1]][2, 0, 0] [1, 16, 24] [1, 1, 1]
// VNNI: tensor.expand_shape %[[IMAGE2]] {{\[}}[0], [1], [2, 3]] output_shape [3, 16, 6, 6] : tensor<3x16x36xi8> into tensor<3x16x6x6xi8>
// VNNI-NOT: linalg.generic
func.func @straddling_images(%x: tensor<8x128xi8>, %residual: tensor<3x16x6x6xf32>) -> tensor<3x16x6x6xi8> {
  %wg = memref.get_global @filter : memref<16x8xi8>
  %w = bufferization.to_tensor %wg restrict : memref<16x8xi8> to tensor<16x8xi8>
  %ea = tensor.empty() : tensor<16x8xi32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<16x8xi8>) outs(%ea : tensor<16x8xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extsi %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<16x8xi32>
  %eb = tensor.empty() : tensor<8x128xi32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x128xi8>) outs(%eb : tensor<8x128xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extui %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<8x128xi32>
  %zero = arith.constant 0 : i32
  %ec = tensor.empty() : tensor<16x128xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%ec : tensor<16x128xi32>) -> tensor<16x128xi32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x8xi32>, tensor<8x128xi32>) outs(%acc : tensor<16x128xi32>) {
  ^bb0(%l: i32, %r2: i32, %o: i32):
    %m = arith.muli %l, %r2 : i32
    %s2 = arith.addi %o, %m : i32
    linalg.yield %s2 : i32
  } -> tensor<16x128xi32>
  %used = tensor.extract_slice %r[0, 0] [16, 108] [1, 1] : tensor<16x128xi32> to tensor<16x108xi32>
  %e = tensor.expand_shape %used [[0], [1, 2, 3]] output_shape [16, 3, 6, 6] : tensor<16x108xi32> into tensor<16x3x6x6xi32>
  %s = arith.constant 0.125 : f32
  %ey = tensor.empty() : tensor<3x16x6x6xi8>
  %y = linalg.generic {indexing_maps = [#swapped4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %residual : tensor<16x3x6x6xi32>, tensor<3x16x6x6xf32>) outs(%ey : tensor<3x16x6x6xi8>) {
  ^bb0(%v: i32, %rv: f32, %o: i8):
    %f = arith.sitofp %v : i32 to f32
    %scaled = arith.mulf %f, %s : f32
    %sum = arith.addf %scaled, %rv : f32
    %q = arith.fptoui %sum : f32 to i8
    linalg.yield %q : i8
  } -> tensor<3x16x6x6xi8>
  return %y : tensor<3x16x6x6xi8>
}

// Two byte products of one shape (K = 8 and K = 16) that one epilogue
// adds, each read through the same expand_shape (a residual block's last
// convolution and its downsampling one): the first waits for the second,
// whose forall computes both in its register blocks of 4 rows (its own K
// loop, then the first's: 16 accumulators), applies the
// epilogue to the two sets of sums and writes the bytes; neither product
// is written as i32.
// VNNI-LABEL: func.func @two_products
// VNNI: %[[BYTES:.*]] = scf.forall (%{{.*}}) in (4) shared_outs({{.*}}) -> (tensor<16x32xi8>)
// VNNI: %{{.*}}:8 = scf.for %{{.*}} = %c0 to %c4 step %c1
// VNNI: %{{.*}}:8 = scf.for %{{.*}} = %c0 to %c2 step %c1
// VNNI: arith.sitofp %{{.*}} : vector<16xi32> to vector<16xf32>
// VNNI: arith.addf %{{.*}} : vector<16xf32>
// VNNI: vector.transfer_write %{{.*}} : vector<16xi8>, tensor<4x32xi8>
// VNNI-NOT: -> (tensor<16x32xi32>)
// VNNI-NOT: linalg.generic
// VNNI: tensor.expand_shape %[[BYTES]] {{\[}}[0, 1], [2, 3]] output_shape [1, 16, 4, 8] : tensor<16x32xi8> into tensor<1x16x4x8xi8>
func.func @two_products(%x: tensor<8x32xi8>, %h: tensor<16x32xi8>) -> tensor<1x16x4x8xi8> {
  %wg = memref.get_global @filter : memref<16x8xi8>
  %w = bufferization.to_tensor %wg restrict : memref<16x8xi8> to tensor<16x8xi8>
  %ea = tensor.empty() : tensor<16x8xi32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<16x8xi8>) outs(%ea : tensor<16x8xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extsi %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<16x8xi32>
  %eb = tensor.empty() : tensor<8x32xi32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x32xi8>) outs(%eb : tensor<8x32xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extui %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<8x32xi32>
  %wg2 = memref.get_global @filter16 : memref<16x16xi8>
  %w2 = bufferization.to_tensor %wg2 restrict : memref<16x16xi8> to tensor<16x16xi8>
  %ea2 = tensor.empty() : tensor<16x16xi32>
  %a2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%w2 : tensor<16x16xi8>) outs(%ea2 : tensor<16x16xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extsi %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<16x16xi32>
  %eb2 = tensor.empty() : tensor<16x32xi32>
  %b2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%h : tensor<16x32xi8>) outs(%eb2 : tensor<16x32xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extui %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<16x32xi32>
  %zero = arith.constant 0 : i32
  %ec = tensor.empty() : tensor<16x32xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%ec : tensor<16x32xi32>) -> tensor<16x32xi32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x8xi32>, tensor<8x32xi32>) outs(%acc : tensor<16x32xi32>) {
  ^bb0(%l: i32, %r2: i32, %o: i32):
    %m = arith.muli %l, %r2 : i32
    %s2 = arith.addi %o, %m : i32
    linalg.yield %s2 : i32
  } -> tensor<16x32xi32>
  %r2 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a2, %b2 : tensor<16x16xi32>, tensor<16x32xi32>) outs(%acc : tensor<16x32xi32>) {
  ^bb0(%l: i32, %rr: i32, %o: i32):
    %m = arith.muli %l, %rr : i32
    %s2 = arith.addi %o, %m : i32
    linalg.yield %s2 : i32
  } -> tensor<16x32xi32>
  %e = tensor.expand_shape %r [[0, 1], [2, 3]] output_shape [1, 16, 4, 8] : tensor<16x32xi32> into tensor<1x16x4x8xi32>
  %e2 = tensor.expand_shape %r2 [[0, 1], [2, 3]] output_shape [1, 16, 4, 8] : tensor<16x32xi32> into tensor<1x16x4x8xi32>
  %s = arith.constant 0.125 : f32
  %t = arith.constant 0.25 : f32
  %ey = tensor.empty() : tensor<1x16x4x8xi8>
  %y = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %e2 : tensor<1x16x4x8xi32>, tensor<1x16x4x8xi32>) outs(%ey : tensor<1x16x4x8xi8>) {
  ^bb0(%v: i32, %v2: i32, %o: i8):
    %f = arith.sitofp %v : i32 to f32
    %scaled = arith.mulf %f, %s : f32
    %f2 = arith.sitofp %v2 : i32 to f32
    %scaled2 = arith.mulf %f2, %t : f32
    %sum = arith.addf %scaled, %scaled2 : f32
    %q = arith.fptoui %sum : f32 to i8
    linalg.yield %q : i8
  } -> tensor<1x16x4x8xi8>
  return %y : tensor<1x16x4x8xi8>
}

// One image of 49 pixels (a 7 x 7 map; the product's 64 columns sliced
// to 49): the register blocks compute the first 48 columns (the last
// block its first panel only), and the last column is a matrix-vector
// product: its bytes gathered from the panels, a forall over the 2 groups
// of 16 rows, 16 accumulators each summed across lanes, the epilogue
// applied to the 16 rows (the bias read as 16 elements) and written down
// the column.
// VNNI-LABEL: func.func @tail_column
// VNNI: %[[BLOCKS:.*]] = scf.forall (%{{.*}}, %{{.*}}) in (2, 4) {{.*}} -> (tensor<32x64xi8>)
// VNNI: %[[BYTES:.*]] = scf.for {{.*}} -> (tensor<1x64xi8>)
// VNNI: vector.transfer_read %{{.*}}[%c3, %{{.*}}, %c0], %{{.*}} {in_bounds = [true]} : tensor<4x16x64xi8>, vector<4xi8>
// VNNI: %[[TAIL:.*]] = scf.forall (%{{.*}}) in (2) shared_outs(%[[SHARED:.*]] = %[[BLOCKS]]) -> (tensor<32x64xi8>)
// VNNI: %[[COLUMN:.*]] = tensor.extract_slice %[[SHARED]][%{{.*}}, 48] [16, 1] [1, 1] : tensor<32x64xi8> to tensor<16x1xi8>
// VNNI: vector.transfer_read %[[BYTES]][%c0, %c0]
// VNNI-COUNT-16: vector.reduction <add>
// VNNI: vector.from_elements
// VNNI: vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<32xf32>, vector<16xf32>
// VNNI: vector.transfer_write %{{.*}}, %[[COLUMN]][%c0, %c0] {in_bounds = [true], permutation_map = #{{.*}}} : vector<16xi8>, tensor<16x1xi8>
// VNNI: tensor.parallel_insert_slice %{{.*}} into %[[SHARED]][%{{.*}}, 48] [16, 1] [1, 1]
// VNNI: tensor.extract_slice %[[TAIL]][0, 0] [32, 49] [1, 1]
func.func @tail_column(%x: tensor<64x64xi8>, %bias: tensor<32xf32>) -> tensor<1x32x7x7xi8> {
  %wg = memref.get_global @filter64 : memref<32x64xi8>
  %w = bufferization.to_tensor %wg restrict : memref<32x64xi8> to tensor<32x64xi8>
  %ea = tensor.empty() : tensor<32x64xi32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<32x64xi8>) outs(%ea : tensor<32x64xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extsi %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<32x64xi32>
  %eb = tensor.empty() : tensor<64x64xi32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x64xi8>) outs(%eb : tensor<64x64xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extui %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<64x64xi32>
  %zero = arith.constant 0 : i32
  %ec = tensor.empty() : tensor<32x64xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%ec : tensor<32x64xi32>) -> tensor<32x64xi32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<32x64xi32>, tensor<64x64xi32>) outs(%acc : tensor<32x64xi32>) {
  ^bb0(%l: i32, %r2: i32, %o: i32):
    %m = arith.muli %l, %r2 : i32
    %s2 = arith.addi %o, %m : i32
    linalg.yield %s2 : i32
  } -> tensor<32x64xi32>
  %used = tensor.extract_slice %r[0, 0] [32, 49] [1, 1] : tensor<32x64xi32> to tensor<32x49xi32>
  %e = tensor.expand_shape %used [[0, 1], [2, 3]] output_shape [1, 32, 7, 7] : tensor<32x49xi32> into tensor<1x32x7x7xi32>
  %s = arith.constant 0.125 : f32
  %ey = tensor.empty() : tensor<1x32x7x7xi8>
  %y = linalg.generic {indexing_maps = [#id4, #channel4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e, %bias : tensor<1x32x7x7xi32>, tensor<32xf32>) outs(%ey : tensor<1x32x7x7xi8>) {
  ^bb0(%v: i32, %bv: f32, %o: i8):
    %f = arith.sitofp %v : i32 to f32
    %scaled = arith.mulf %f, %s : f32
    %biased = arith.addf %scaled, %bv : f32
    %q = arith.fptoui %biased : f32 to i8
    linalg.yield %q : i8
  } -> tensor<1x32x7x7xi8>
  return %y : tensor<1x32x7x7xi8>
}

// One image read the batch's way ([16, 32] as [16, 1, 4, 8], its first two
// dimensions swapped): no batch to split, and the one-image form reads the
// product through the identity map, so the epilogue stays a generic of its
// own and the product is written as i32.
// VNNI-LABEL: func.func @one_image_swapped
// VNNI: scf.forall {{.*}} -> (tensor<16x32xi32>)
// VNNI: linalg.generic
func.func @one_image_swapped(%x: tensor<8x32xi8>) -> tensor<1x16x4x8xi8> {
  %wg = memref.get_global @filter : memref<16x8xi8>
  %w = bufferization.to_tensor %wg restrict : memref<16x8xi8> to tensor<16x8xi8>
  %ea = tensor.empty() : tensor<16x8xi32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<16x8xi8>) outs(%ea : tensor<16x8xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extsi %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<16x8xi32>
  %eb = tensor.empty() : tensor<8x32xi32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x32xi8>) outs(%eb : tensor<8x32xi32>) {
  ^bb0(%v: i8, %o: i32):
    %v32 = arith.extui %v : i8 to i32
    linalg.yield %v32 : i32
  } -> tensor<8x32xi32>
  %zero = arith.constant 0 : i32
  %ec = tensor.empty() : tensor<16x32xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%ec : tensor<16x32xi32>) -> tensor<16x32xi32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<16x8xi32>, tensor<8x32xi32>) outs(%acc : tensor<16x32xi32>) {
  ^bb0(%l: i32, %r2: i32, %o: i32):
    %m = arith.muli %l, %r2 : i32
    %s2 = arith.addi %o, %m : i32
    linalg.yield %s2 : i32
  } -> tensor<16x32xi32>
  %e = tensor.expand_shape %r [[0], [1, 2, 3]] output_shape [16, 1, 4, 8] : tensor<16x32xi32> into tensor<16x1x4x8xi32>
  %s = arith.constant 0.125 : f32
  %ey = tensor.empty() : tensor<1x16x4x8xi8>
  %y = linalg.generic {indexing_maps = [#swapped4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%e : tensor<16x1x4x8xi32>) outs(%ey : tensor<1x16x4x8xi8>) {
  ^bb0(%v: i32, %o: i8):
    %f = arith.sitofp %v : i32 to f32
    %scaled = arith.mulf %f, %s : f32
    %q = arith.fptoui %scaled : f32 to i8
    linalg.yield %q : i8
  } -> tensor<1x16x4x8xi8>
  return %y : tensor<1x16x4x8xi8>
}

// B written as panels already (the columns a QDQ convolution gathers into
// them, see unpackBytePanels): the product reads the panels themselves,
// nothing packs them and the transpose that unpacks them is dead.
// VNNI-LABEL: func.func @prepacked_panels
// VNNI-SAME: %[[P:[a-z0-9]+]]: tensor<2x4x64xi8>
// VNNI-NOT: linalg.transpose
// VNNI-NOT: -> (tensor<2x4x64xi8>)
// VNNI: vector.transfer_read %[[P]]
// VNNI-NOT: linalg.transpose
// VNNI: return
func.func @prepacked_panels(%x: tensor<4x16xi8>, %xz: tensor<i8>, %p: tensor<2x4x64xi8>, %wz: tensor<i8>) -> tensor<4x32xi32> {
  %expanded = tensor.expand_shape %p [[0], [1], [2, 3]] output_shape [2, 4, 16, 4] : tensor<2x4x64xi8> into tensor<2x4x16x4xi8>
  %et = tensor.empty() : tensor<4x4x2x16xi8>
  %t = linalg.transpose ins(%expanded : tensor<2x4x16x4xi8>) outs(%et : tensor<4x4x2x16xi8>) permutation = [1, 3, 0, 2]
  %w = tensor.collapse_shape %t [[0, 1], [2, 3]] : tensor<4x4x2x16xi8> into tensor<16x32xi8>
  %ea = tensor.empty() : tensor<4x16xi32>
  %a = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %xz : tensor<4x16xi8>, tensor<i8>) outs(%ea : tensor<4x16xi32>) {
  ^bb0(%v: i8, %z: i8, %o: i32):
    %v32 = arith.extui %v : i8 to i32
    %z32 = arith.extui %z : i8 to i32
    %d = arith.subi %v32, %z32 : i32
    linalg.yield %d : i32
  } -> tensor<4x16xi32>
  %eb = tensor.empty() : tensor<16x32xi32>
  %b = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%w, %wz : tensor<16x32xi8>, tensor<i8>) outs(%eb : tensor<16x32xi32>) {
  ^bb0(%v: i8, %z: i8, %o: i32):
    %v32 = arith.extsi %v : i8 to i32
    %z32 = arith.extsi %z : i8 to i32
    %d = arith.subi %v32, %z32 : i32
    linalg.yield %d : i32
  } -> tensor<16x32xi32>
  %c0 = arith.constant 0 : i32
  %ec = tensor.empty() : tensor<4x32xi32>
  %f = linalg.fill ins(%c0 : i32) outs(%ec : tensor<4x32xi32>) -> tensor<4x32xi32>
  %r = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<4x16xi32>, tensor<16x32xi32>) outs(%f : tensor<4x32xi32>) {
  ^bb0(%in: i32, %in_0: i32, %out: i32):
    %p0 = arith.muli %in, %in_0 : i32
    %s = arith.addi %out, %p0 : i32
    linalg.yield %s : i32
  } -> tensor<4x32xi32>
  return %r : tensor<4x32xi32>
}
