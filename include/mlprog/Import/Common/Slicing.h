//===- Slicing.h - Slicing and gathering builders ---------------*- C++ -*-===//
//
// Format-independent builders that read parts of a ranked tensor: strided
// slices (tensor.extract_slice), single-index selection, and gathers by an
// index tensor (linalg.generic with tensor.extract), plus dimension
// insertion/removal and broadcasting to a shape.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_SLICING_H
#define MLPROG_IMPORT_COMMON_SLICING_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlprog {

/// `x` indexed with a single `index` along `dim` (the dim is removed). A
/// static negative index counts from the end; out-of-range static indices
/// are errors. A dynamic index (index-typed Value) must be in range.
/// Spec: aten::select.int; x[i].
mlir::FailureOr<mlir::Value> buildSelectIndex(mlir::OpBuilder &b,
                                              mlir::Location loc, mlir::Value x,
                                              int64_t dim,
                                              mlir::OpFoldResult index);

/// Inserts an extent-1 dim at `dim` in [0, rank].
/// Spec: aten::unsqueeze; ONNX Unsqueeze.
mlir::FailureOr<mlir::Value> buildUnsqueeze(mlir::OpBuilder &b,
                                            mlir::Location loc, mlir::Value x,
                                            int64_t dim);

/// Removes the listed dims (in [0, rank)) when their static extent is 1;
/// other listed dims are kept (torch semantics). An empty list removes every
/// static extent-1 dim.
/// Spec: aten::squeeze / squeeze.dim; ONNX Squeeze.
mlir::FailureOr<mlir::Value> buildSqueeze(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value x,
                                          llvm::ArrayRef<int64_t> dims);

/// Broadcasts `x` to `shape` (numpy rules, `x` aligned at the trailing
/// dim); an entry -1 keeps the corresponding extent of `x`.
/// Spec: aten::expand; ONNX Expand.
mlir::FailureOr<mlir::Value> buildExpand(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value x,
                                         llvm::ArrayRef<int64_t> shape);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_SLICING_H
