//===- LinearAlgebra.h - Matrix factorizations ------------------*- C++ -*-===//
//
// Format-independent builders for linear-algebra ops that need a
// factorization (not a contraction): lowered to scf.for loops on tensors.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_LINEARALGEBRA_H
#define MLPROG_IMPORT_COMMON_LINEARALGEBRA_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlprog {

/// Determinants of the square matrices in the last two dims of `x`
/// [..., M, M] (float element type, rank >= 2): the result has shape [...]
/// (rank 0 for a single matrix). Computed per matrix by LU decomposition
/// with partial pivoting (row swaps flip the sign; a zero pivot column gives
/// 0). An empty matrix (M = 0) has determinant 1.
/// Errors: non-float element type, rank < 2, statically non-square.
/// Spec: ONNX Det (opset 11); numpy.linalg.det; aten::linalg_det.
mlir::FailureOr<mlir::Value>
buildDeterminant(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_LINEARALGEBRA_H
