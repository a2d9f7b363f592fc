//===- MatrixLoops.h - Per-matrix loops of the factorizations ---*- C++ -*-===//
//
// Private to MLProgImportCommon: what the builders of
// MatrixFactorization.cpp and SingularValues.cpp share. Operands are float
// tensors [*, M, N] with static extents; forEachMatrix runs a scalar
// algorithm once per matrix of the batch, and the algorithms read and update
// their matrices element by element (tensor.extract / tensor.insert in
// scf.for loops).
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_LIB_IMPORT_COMMON_MATRIXLOOPS_H
#define MLPROG_LIB_IMPORT_COMMON_MATRIXLOOPS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"

#include <string>

namespace mlprog::detail {

/// Per-matrix work: (builder, loc, the operands' matrices) -> the results.
using MatrixBody = llvm::function_ref<llvm::SmallVector<mlir::Value>(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// "[2, 3]" for a diagnostic.
std::string shapeText(llvm::ArrayRef<int64_t> shape);

/// `v` as a float tensor of rank >= `minRank` with static extents, or a
/// located error naming `op` and `what`.
mlir::FailureOr<mlir::RankedTensorType>
staticFloat(mlir::Location loc, mlir::Value v, llvm::StringRef op,
            llvm::StringRef what, int64_t minRank = 2);

/// staticFloat of a batch of square matrices [*, N, N].
mlir::FailureOr<mlir::RankedTensorType> squareMatrices(mlir::Location loc,
                                                       mlir::Value v,
                                                       llvm::StringRef op,
                                                       llvm::StringRef what);

/// Swaps the last two dims of `v` (rank >= 2).
mlir::FailureOr<mlir::Value>
transposeMatrices(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);

/// Runs `body` once per element of the static batch shape `batch` on the
/// matching slabs of `operands` ([batch, ...] each: the dims after the
/// batch ones form the slab); `results` are the per-matrix result types,
/// and the returned values are [batch, ...] stacks of them. Empty slabs
/// are not read (the body gets a tensor.empty) and empty results not
/// written.
llvm::SmallVector<mlir::Value>
forEachMatrix(mlir::OpBuilder &b, mlir::Location loc,
              llvm::ArrayRef<int64_t> batch, mlir::ValueRange operands,
              llvm::ArrayRef<mlir::RankedTensorType> results, MatrixBody body);

/// t[idx] (tensor.extract).
mlir::Value at(mlir::OpBuilder &b, mlir::Location loc, mlir::Value t,
               mlir::ValueRange idx);

/// `t` with t[idx] = v (tensor.insert).
mlir::Value put(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                mlir::Value t, mlir::ValueRange idx);

/// The index `x + c`.
mlir::Value addI(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                 int64_t c);

/// A rank-0 tensor holding the scalar `v`.
mlir::Value scalarTensor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);

/// The tensor type `shape` of `et`.
mlir::RankedTensorType typeOf(llvm::ArrayRef<int64_t> shape, mlir::Type et);

/// The [N, N] identity of `et`.
mlir::Value identity(mlir::OpBuilder &b, mlir::Location loc, int64_t n,
                     mlir::Type et);

} // namespace mlprog::detail

#endif // MLPROG_LIB_IMPORT_COMMON_MATRIXLOOPS_H
