//===- Compression.h - Compressed-weight builders ---------------*- C++ -*-===//
//
// Format-independent builders that decompress weights at run time: packed
// sub-byte integers, lookup tables (palettization) and bit-mask sparsity.
// The compressed data stays compressed in its global; these builders emit
// the linalg/tensor/scf IR that expands it. Linear (affine and blockwise)
// dequantization is in Quantization.h.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_COMPRESSION_H
#define MLPROG_IMPORT_COMMON_COMPRESSION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlprog {

/// Unpacks `bits`-bit integers (1 <= bits <= 8) from the 1-D i8 tensor
/// `packed` (static length B): element k of the row-major result of static
/// `shape` is bits [k * bits, (k + 1) * bits) of the little-endian bit
/// stream (LSB first; an element may straddle two bytes). The result has
/// element type i<bits> (signless: the caller knows the signedness); unused
/// trailing bits are ignored.
///
/// Errors: `packed` not a static 1-D i8 tensor, `bits` out of range, B * 8
/// less than numElements(shape) * bits.
/// Spec: Core ML MILBlob sub-byte packing (`SubByteTypes.cpp`), the packed
/// `indices` and `mask` of iOS16 `constexpr_lut_to_dense` and
/// `constexpr_sparse_to_dense`.
mlir::FailureOr<mlir::Value> buildUnpackBits(mlir::OpBuilder &b,
                                             mlir::Location loc,
                                             mlir::Value packed, unsigned bits,
                                             llvm::ArrayRef<int64_t> shape);

/// Lookup-table decompression (palettization). `indices` is an unsigned
/// integer tensor of static shape [D0, ..., Dk-1] whose element width N
/// satisfies 2^N <= P, so every index is in range; `lut` has static shape
/// [G0, ..., Gk-1, P, V] with Gi dividing Di: element i uses the table
/// lut[i0 / (D0 / G0), ..., :, :] (per-group tables; all Gi = 1 is one
/// table). With V = 1 the result has the indices' shape and
/// y[i] = lut[g(i), indices[i], 0]. With V > 1 (vector palettization) each
/// index stands for V consecutive elements along `vectorAxis`: the result's
/// extent there is D * V and y[.., j, ..] = lut[g, indices[.., j / V, ..],
/// j % V]. The result has the LUT's element type.
///
/// Errors: non-integer or non-static indices, a LUT of rank other than
/// k + 2, group counts that do not divide the indices' extents, P < 2^N,
/// V > 1 without a valid `vectorAxis`.
/// Spec: Core ML `constexpr_lut_to_dense` (iOS16: one table, V = 1; iOS18).
mlir::FailureOr<mlir::Value>
buildLookupTable(mlir::OpBuilder &b, mlir::Location loc, mlir::Value indices,
                 mlir::Value lut, std::optional<int64_t> vectorAxis);

/// Bit-mask sparse to dense: `mask` is an i1 tensor of static shape; the
/// result has that shape and `values`' element type, with the n-th set mask
/// element (row-major) taking values[n] and every other element zero.
/// `values` is 1-D of static length, which should equal the number of set
/// bits (reads past its end are clamped to its last element, so a mismatch
/// the caller cannot check gives wrong values, never out-of-bounds reads).
///
/// Errors: a non-i1 or non-static mask, non-1-D values.
/// Spec: Core ML `constexpr_sparse_to_dense` (iOS16 with the mask unpacked
/// by buildUnpackBits, iOS18).
mlir::FailureOr<mlir::Value> buildSparseToDense(mlir::OpBuilder &b,
                                                mlir::Location loc,
                                                mlir::Value mask,
                                                mlir::Value values);

/// Dense to bit-mask sparse, the inverse of buildSparseToDense: the 1-D
/// result of static length `count` holds the elements of `dense` whose
/// `mask` element (same static shape, i1) is set, in row-major order. Set
/// elements past `count` are dropped (the last one wins the final slot).
///
/// Errors: non-static or mismatched shapes, a non-i1 mask, count < 1.
/// Spec: the nonzero output of Core ML iOS18 `constexpr_lut_to_sparse` and
/// `constexpr_sparse_blockwise_shift_scale`.
mlir::FailureOr<mlir::Value>
buildDenseToSparse(mlir::OpBuilder &b, mlir::Location loc, mlir::Value dense,
                   mlir::Value mask, int64_t count);

/// Repeats every element of `x` (static shape) `repeats` times along
/// `axis` (numpy `repeat`): the result's extent there is D * repeats.
///
/// Errors: dynamic shapes, an axis out of range, repeats < 1.
/// Spec: numpy.repeat; the mask output of Core ML iOS18
/// `constexpr_lut_to_sparse` with vector palettization.
mlir::FailureOr<mlir::Value> buildRepeat(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value x, int64_t axis,
                                         int64_t repeats);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_COMPRESSION_H
