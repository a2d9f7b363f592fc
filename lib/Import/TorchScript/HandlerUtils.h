//===- HandlerUtils.h - Argument helpers of aten handlers -------*- C++ -*-===//
//
// Private to MLProgImportTorchScript (includes libtorch headers through
// GraphImporter.h). Helpers shared by the handler families: dims, number
// and per-dimension list arguments, and the promoted binary op.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_LIB_IMPORT_TORCHSCRIPT_HANDLERUTILS_H
#define MLPROG_LIB_IMPORT_TORCHSCRIPT_HANDLERUTILS_H

#include "GraphImporter.h"

#include "mlprog/Import/Common/Elementwise.h"

namespace mlprog::torchscript {

/// Rank of a ranked tensor value.
int64_t rankOf(mlir::Value v);

/// Element type of a ranked tensor value.
mlir::Type elemOf(mlir::Value v);

/// Normalizes `dim` against `rank` (+1 when `inclusive`).
mlir::FailureOr<int64_t> normDim(Importer &im, torch::jit::Node *n, int64_t dim,
                                 int64_t rank, bool inclusive = false);

/// The number argument `i` (scalar TSValue) or `def` when None/absent.
mlir::FailureOr<double> numberOr(Importer &im, torch::jit::Node *n, unsigned i,
                                 double def);

/// add/sub (with alpha), mul, div, maximum, minimum, pow, with torch type
/// promotion; `reverse` swaps operands (rsub).
mlir::LogicalResult binary(Importer &im, torch::jit::Node *n, BinaryOpKind kind,
                           bool hasAlpha, bool reverse = false);

/// Inputs 0 and 1 (tensors or numbers) as tensors of their torch-promoted
/// dtype (Importer::promote), for binary ops without special rules.
mlir::FailureOr<std::pair<mlir::Value, mlir::Value>>
promotedPair(Importer &im, torch::jit::Node *n);

/// Float-only unary ops promote integer inputs to float32 (torch's
/// "int to float" unary rule).
mlir::FailureOr<mlir::Value> floatInput(Importer &im, torch::jit::Node *n,
                                        unsigned i);

/// Expands a per-dimension int list (a single entry applies to all).
mlir::FailureOr<llvm::SmallVector<int64_t>>
perDim(Importer &im, torch::jit::Node *n, unsigned i, int64_t nd, int64_t def);

/// The int argument `i` as an i64 SSA value (a constant when known at
/// import time), or an error naming the argument when it is not an int.
mlir::FailureOr<mlir::Value> intValueInput(Importer &im, torch::jit::Node *n,
                                           unsigned i);

/// The int argument `i` as an index: an attribute when known at import
/// time, else an `arith.index_cast` of the run-time int (a size read with
/// `x.size(d)` or arithmetic on one).
mlir::FailureOr<mlir::OpFoldResult> indexInput(Importer &im,
                                               torch::jit::Node *n, unsigned i);

/// The int-list argument `i` (a single int counts as a list of one) as
/// index sizes: attributes for entries known at import time, index Values
/// for run-time ints.
mlir::FailureOr<llvm::SmallVector<mlir::OpFoldResult>>
sizesInput(Importer &im, torch::jit::Node *n, unsigned i);

/// The tensors of list argument `i`, promoted to one element type.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
tensorList(Importer &im, torch::jit::Node *n, unsigned i);

/// The shape of ranked `v`.
llvm::SmallVector<int64_t> shapeOf(mlir::Value v);

/// `x` with dims `d0` and `d1` swapped.
mlir::FailureOr<mlir::Value> swapDims(Importer &im, mlir::Location l,
                                      mlir::Value x, int64_t d0, int64_t d1);

/// `x` as a 1-D tensor (row-major).
mlir::FailureOr<mlir::Value> ravelValue(Importer &im, mlir::Location l,
                                        mlir::Value x);

} // namespace mlprog::torchscript

#endif // MLPROG_LIB_IMPORT_TORCHSCRIPT_HANDLERUTILS_H
