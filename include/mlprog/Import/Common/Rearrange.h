//===- Rearrange.h - Elements moved to computed positions -------*- C++ -*-===//
//
// Format-independent builders whose results read (or write) the elements of
// their input at positions computed from the indices: strided views of the
// row-major storage, repeat_interleave, combinations, _chunk_cat and
// masked_scatter.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_REARRANGE_H
#define MLPROG_IMPORT_COMMON_REARRANGE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlprog {

/// The strided view of the row-major storage of `x` (static shape, any
/// element type): result shape `sizes`, result[i] = flat(x)[offset +
/// sum_d i_d * strides[d]]. Elements may repeat (stride 0).
/// Errors: sizes/strides of different lengths, negative sizes, strides or
/// offset, a dynamic shape, a view reaching past the storage.
/// Spec: aten::as_strided, aten::as_strided_copy on a contiguous tensor.
mlir::FailureOr<mlir::Value> buildAsStrided(mlir::OpBuilder &b,
                                            mlir::Location loc, mlir::Value x,
                                            llvm::ArrayRef<int64_t> sizes,
                                            llvm::ArrayRef<int64_t> strides,
                                            int64_t offset);

/// A copy of `x` (static shape) whose elements in the strided view
/// buildAsStrided(sizes, strides, offset) are replaced by `src` (shape
/// `sizes`, x's element type); where the view repeats a storage element
/// the last write in row-major order wins. Built as one gather with a
/// constant map from storage position to source element.
/// Errors: as buildAsStrided, a source of another shape or element type.
/// Spec: aten::as_strided_scatter on a contiguous tensor.
mlir::FailureOr<mlir::Value>
buildAsStridedScatter(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                      mlir::Value src, llvm::ArrayRef<int64_t> sizes,
                      llvm::ArrayRef<int64_t> strides, int64_t offset);

/// Repeats each slice of `x` along `axis` (in [0, rank)): `repeats` is a
/// 1-D signless-integer tensor of one count per slice (or of one count for
/// all), read at run time, so the result extent along `axis` is their sum
/// (dynamic unless `outputSize` gives it); with a null `repeats`, every
/// slice repeats `count` times (static extent). result[.., j, ..] =
/// x[.., i, ..] for the i with cumsum(repeats)[i - 1] <= j <
/// cumsum(repeats)[i]. A null `x` stands for arange(len(repeats)).
/// Errors: rank-0 `x`, axis out of range, a negative count, repeats of
/// another rank, element type or length.
/// Spec: aten::repeat_interleave.self_int / .self_Tensor / .Tensor.
mlir::FailureOr<mlir::Value>
buildRepeatInterleave(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                      mlir::Value repeats, int64_t count, int64_t axis,
                      std::optional<int64_t> outputSize = std::nullopt);

/// The length-`r` combinations of the elements of the 1-D `x` (static
/// extent n) in lexicographic order of positions, with repeated positions
/// when `withReplacement`: a [C, r] tensor (C = n choose r, or n + r - 1
/// choose r); [0] when r = 0.
/// Errors: `x` not 1-D of static extent, r < 0.
/// Spec: aten::combinations; itertools.combinations(_with_replacement).
mlir::FailureOr<mlir::Value> buildCombinations(mlir::OpBuilder &b,
                                               mlir::Location loc,
                                               mlir::Value x, int64_t r,
                                               bool withReplacement);

/// _chunk_cat: each of `tensors` (static shapes, one element type, equal
/// extents before `dim`, rank > dim) is zero-padded along `dim` to a
/// multiple of `numChunks`, viewed as shape[:dim] + [numChunks, -1], and
/// the views are concatenated along dim + 1.
/// Errors: an empty list, numChunks < 1, dim out of range for a tensor,
/// mismatched leading extents or element types, dynamic shapes.
/// Spec: aten::_chunk_cat.
mlir::FailureOr<mlir::Value> buildChunkCat(mlir::OpBuilder &b,
                                           mlir::Location loc,
                                           llvm::ArrayRef<mlir::Value> tensors,
                                           int64_t dim, int64_t numChunks);

/// masked_scatter: `self` and the i1 `mask` broadcast to one shape (static);
/// the positions where `mask` is true, in row-major order, take the
/// consecutive elements of `source` (any shape, self's element type, read
/// flat); the others keep `self`. A source with fewer elements than true
/// mask entries repeats its last one (torch raises).
/// Errors: shapes that do not broadcast, dynamic shapes, element types.
/// Spec: aten::masked_scatter.
mlir::FailureOr<mlir::Value>
buildMaskedScatter(mlir::OpBuilder &b, mlir::Location loc, mlir::Value self,
                   mlir::Value mask, mlir::Value source);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_REARRANGE_H
