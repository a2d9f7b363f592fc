//===- LinearAlgebra.h - Matmul, einsum and determinants --------*- C++ -*-===//
//
// Format-independent builders for linear algebra on ranked tensors: matrix
// products (upstream named linalg ops where one fits, linalg.matmul and
// linalg.batch_matmul, a broadcasting linalg.generic otherwise), Einstein
// summation, cross products and determinants (scf.for loops on tensors).
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_LINEARALGEBRA_H
#define MLPROG_IMPORT_COMMON_LINEARALGEBRA_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlprog {

/// numpy `matmul(a, b)`: a is [..., M, K], b is [..., K, N]; the batch
/// dimensions broadcast; a 1-D `a` is [K] -> [1, K] and a 1-D `b` is
/// [K] -> [K, 1], the added dimension being removed from the result.
/// Operands share one float or signless integer element type; accumulation
/// is in that type, except that f16 and bf16 products accumulate in f32 and
/// round once (accumulateInF32). Dynamic batch, M and N extents are
/// supported.
///
/// Errors: rank-0 operands, mismatched element types or static K.
/// Spec: ONNX MatMul (numpy.matmul semantics).
mlir::FailureOr<mlir::Value> buildMatMul(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value a, mlir::Value bm);

/// General matrix multiply `Y = alpha * op(A) * op(B) + beta * C`, with
/// op(X) = X^T when the trans flag is set. A and B are 2-D; `c` may be null
/// (treated as 0) or any tensor unidirectionally broadcastable to [M, N].
/// Integer element types need alpha == beta == 1.
/// Spec: ONNX Gemm (opset 11+: C optional).
mlir::FailureOr<mlir::Value> buildGemm(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value a, mlir::Value bm,
                                       mlir::Value c, double alpha, double beta,
                                       bool transA, bool transB);

/// Einstein summation of `operands` (float or signless integer tensors of
/// one element type) per `equation` ("ij,jk->ik", lower/upper case letters,
/// "..." for leading broadcast-free batch dims, repeated letters within an
/// operand for diagonals, implicit output = letters seen once, sorted).
/// Products accumulate in the element type. Two operands whose equation is a
/// batched matrix product ("bhid,bhjd->bhij": batch labels, one row label
/// per operand, one summed label) become buildMatMul between transposes,
/// other equations one linalg.generic.
/// Errors: malformed equations, rank or extent mismatches.
/// Spec: ONNX Einsum; numpy.einsum; aten::einsum.
mlir::FailureOr<mlir::Value> buildEinsum(mlir::OpBuilder &b, mlir::Location loc,
                                         llvm::StringRef equation,
                                         mlir::ValueRange operands);

/// Cross product of 3-vectors along `axis` (in [-rank, rank) of the
/// broadcast rank) of `a` and `bm`, which broadcast (numpy) in every other
/// dim and have extent 3 along `axis`: r0 = a1 b2 - a2 b1, r1 = a2 b0 -
/// a0 b2, r2 = a0 b1 - a1 b0. One float or signless integer element type.
/// Errors: mismatched element types, an axis out of range or of extent
/// other than 3, shapes that do not broadcast.
/// Spec: aten::linalg_cross, aten::cross (dim given); numpy.cross.
mlir::FailureOr<mlir::Value> buildCross(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::Value a, mlir::Value bm,
                                        int64_t axis);

/// Determinants of the square matrices in the last two dims of `x`
/// [..., M, M] (float element type, rank >= 2): the result has shape [...]
/// (rank 0 for a single matrix). Computed per matrix by LU decomposition
/// with partial pivoting (row swaps flip the sign; a zero pivot column gives
/// 0). An empty matrix (M = 0) has determinant 1.
/// Errors: non-float element type, rank < 2, statically non-square.
/// Spec: ONNX Det (opset 11); numpy.linalg.det; aten::linalg_det.
mlir::FailureOr<mlir::Value>
buildDeterminant(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);

/// The Vandermonde matrix of `x` [..., n] (float or signless integer,
/// static last extent): [..., n, cols] with result[..., i, j] = x[..., i]^j
/// as a cumulative product (cols defaults to n); a 0-d x is read as [1].
/// Errors: a dynamic last extent, cols < 0.
/// Spec: aten::linalg_vander (increasing powers).
mlir::FailureOr<mlir::Value> buildVander(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value x,
                                         std::optional<int64_t> cols);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_LINEARALGEBRA_H
