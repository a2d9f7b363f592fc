//===- DynamicIndexing.h - Run-time slices, pads, reshapes -----*- C++ -*-===//
//
// Format-independent builders for data-movement ops whose arguments (slice
// bounds, pad widths, split sizes, inserted or removed axes) are run-time
// values rather than compile-time constants. Result extents that depend on
// those values are dynamic; a caller that knows the result shape from
// elsewhere (a model's declared types) passes it as a hint and gets a
// result of that type (tensor.cast). They emit linalg.generic gathers
// (linalg.index + tensor.extract), tensor.extract_slice / tensor.pad with
// dynamic operands and tensor.reshape with a computed shape.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_DYNAMICINDEXING_H
#define MLPROG_IMPORT_COMMON_DYNAMICINDEXING_H

#include "mlprog/Import/Common/Indexing.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

namespace mlprog {

/// Casts `v` to the shape `hint` (same rank, ShapedType::kDynamic where
/// unknown) where that makes its type more static; `v` unchanged when
/// `hint` is empty, of another rank, or contradicts a static extent of `v`.
mlir::Value refineToShape(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                          llvm::ArrayRef<int64_t> hint);

/// One dimension of a slice with run-time bounds: `start`, `stop`, `step`
/// are signless-integer or index scalars, all null for a dim left whole.
/// Python/ONNX semantics: negative start/stop count from the end; with
/// step > 0 both clamp to [0, extent]; with step < 0 start clamps to
/// [0, extent - 1] and stop to [-1, extent - 1]. A step of 0 (invalid in
/// every format) is read as 1 rather than dividing by zero.
struct DynamicSliceDim {
  mlir::Value start;
  mlir::Value stop;
  mlir::Value step;
};

/// Slices `x` (ranked, any element type) with one DynamicSliceDim per dim:
/// result extent max(ceil((stop - start) / step), 0) on sliced dims (dynamic
/// in the type), `x`'s extent on whole dims; result[i] =
/// x[start + i * step] (a linalg.generic gather, so negative steps need no
/// special case). `hint` refines the result type (see refineToShape).
/// Errors: dims.size() != rank, partially null dims.
/// Spec: ONNX Slice (opset 10+) with non-constant starts/ends/axes/steps.
mlir::FailureOr<mlir::Value>
buildSliceDynamic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                  llvm::ArrayRef<DynamicSliceDim> dims,
                  llvm::ArrayRef<int64_t> hint = {});

/// Pads `x` by `low[d]` / `high[d]` elements per dim (index Values or
/// attributes; negative values crop, as in ONNX): result extent
/// extent + low + high. Constant mode fills with `padValue` (a scalar of
/// `x`'s element type; null means zero) via tensor.extract_slice (crop) and
/// tensor.pad; Reflect mirrors without repeating the edge (any width, by
/// repeated reflection as numpy.pad) and Replicate repeats the edge, both
/// as a linalg.generic gather that needs extents >= 1 on padded dims.
/// `hint` refines the result type.
/// Errors: low/high sizes != rank, padValue of another type.
/// Spec: ONNX Pad (opset 11+, pads as a non-constant input); numpy.pad.
mlir::FailureOr<mlir::Value>
buildPadDynamic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                llvm::ArrayRef<mlir::OpFoldResult> low,
                llvm::ArrayRef<mlir::OpFoldResult> high, PadMode mode,
                mlir::Value padValue, llvm::ArrayRef<int64_t> hint = {});

/// Splits `x` along `axis` (in [0, rank)) into consecutive pieces of the
/// run-time `sizes` (index Values or attributes, >= 0, summing to the
/// extent): tensor.extract_slice at prefix-sum offsets; a piece's extent
/// along `axis` is dynamic unless its size is an attribute.
/// Spec: ONNX Split (opset 13+) with a non-constant split input.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
buildSplitDynamic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                  int64_t axis, llvm::ArrayRef<mlir::OpFoldResult> sizes);

/// Inserts unit dims into `x` (rank r) at the output positions held in the
/// 1-D signless-integer tensor `axes` (static length k, entries in
/// [-(r + k), r + k), distinct, any order): the result has rank r + k and
/// its shape is computed at run time (tensor.reshape). `hint` refines the
/// result type. Repeated or out-of-range axes are undefined behaviour.
/// Errors: `axes` not a 1-D integer tensor of static length.
/// Spec: ONNX Unsqueeze (opset 13+) with a non-constant axes input.
mlir::FailureOr<mlir::Value>
buildUnsqueezeDynamic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                      mlir::Value axes, llvm::ArrayRef<int64_t> hint = {});

/// Removes from `x` (rank r) the dims listed in the 1-D signless-integer
/// tensor `axes` (static length k <= r, entries in [-r, r), distinct, each
/// naming an extent-1 dim): the result has rank r - k, its shape computed
/// at run time (tensor.reshape). `hint` refines the result type. Repeated
/// axes or listed extents other than 1 are undefined behaviour.
/// Errors: `axes` not a 1-D integer tensor of static length <= r.
/// Spec: ONNX Squeeze (opset 13+) with a non-constant axes input.
mlir::FailureOr<mlir::Value>
buildSqueezeDynamic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                    mlir::Value axes, llvm::ArrayRef<int64_t> hint = {});

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_DYNAMICINDEXING_H
