//===- MatrixFactorization.h - LU, Cholesky and solves ----------*- C++ -*-===//
//
// Format-independent builders for the factorizations and solves of small
// dense matrices: LU with partial pivoting, Cholesky, triangular and
// general solves, inverses and log-determinants, as PyTorch's torch.linalg
// (LAPACK getrf/getrs/potrf/trtrs) defines them.
//
// Operands are float tensors [*, M, N]: zero or more batch dims, then the
// matrices, all extents static (zero extents allowed). The algorithms are
// the textbook scalar ones, written as scf.for loops on tensors (one pass of
// the batch loop per matrix), for the sizes models use these ops at; they
// are not tiled or vectorized.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_MATRIXFACTORIZATION_H
#define MLPROG_IMPORT_COMMON_MATRIXFACTORIZATION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlprog {

/// An LU factorization with partial pivoting, A = P L U.
///   lu      [*, M, N]: U on and above the diagonal, L's multipliers below
///           it (L has a unit diagonal, not stored);
///   pivots  [*, K] i32, K = min(M, N), 1-based: step j swapped rows j and
///           pivots[j] - 1 (LAPACK's ipiv);
///   info    [*] i32: 0, or i > 0 when U[i-1, i-1] is exactly zero (the
///           first such; the factorization is still complete).
struct LUFactorization {
  mlir::Value lu, pivots, info;
};

/// LU factorization with partial pivoting of each matrix of `a` [*, M, N]:
/// the pivot of column j is the first row i >= j of largest |a[i, j]|.
/// Errors: a non-float or rank < 2 operand, a dynamic extent.
/// Spec: aten::linalg_lu_factor_ex (pivot=True); LAPACK getrf.
mlir::FailureOr<LUFactorization>
buildLUFactor(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a);

/// The factors of an LU factorization, A = P L U: P [*, M, M] (a
/// permutation matrix in `lu`'s element type), L [*, M, K] (unit lower
/// trapezoidal), U [*, K, N] (upper trapezoidal).
/// Errors: `lu` as for buildLUFactor, `pivots` not [*, K] integers.
/// Spec: aten::lu_unpack; aten::linalg_lu (with buildLUFactor).
mlir::FailureOr<llvm::SmallVector<mlir::Value, 3>>
buildLUUnpack(mlir::OpBuilder &b, mlir::Location loc, mlir::Value lu,
              mlir::Value pivots);

/// Solves A X = B for X given A's LU factorization (`lu` [*, N, N],
/// `pivots` [*, N]); `adjoint` solves A^T X = B instead, `!left` solves
/// X A = B (X A^T = B with `adjoint`). B is [*, N, R] (left) or [*, R, N];
/// the batch dims of the operands broadcast.
/// Errors: non-square factors, mismatched extents or element types.
/// Spec: aten::linalg_lu_solve; LAPACK getrs.
mlir::FailureOr<mlir::Value> buildLUSolve(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value lu,
                                          mlir::Value pivots, mlir::Value rhs,
                                          bool left, bool adjoint);

/// Solves A X = B (`left`) or X A = B for X, where A [*, N, N] is upper
/// (`upper`) or lower triangular; only that triangle of A is read, and its
/// diagonal is taken as ones with `unitDiagonal`. B is [*, N, R] (left) or
/// [*, R, N]; batch dims broadcast.
/// Errors: a non-square A, mismatched extents or element types.
/// Spec: aten::linalg_solve_triangular; LAPACK trtrs.
mlir::FailureOr<mlir::Value>
buildTriangularSolve(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a,
                     mlir::Value rhs, bool upper, bool left, bool unitDiagonal);

/// The result and LU info of solving A X = B (`left`) or X A = B.
struct SolveResult {
  mlir::Value x, info;
};

/// Solves A X = B (`left`) or X A = B for square A [*, N, N] through its LU
/// factorization. B is [*, N, R] / [*, R, N], or a batch of vectors [*, N]
/// when its rank is A's minus one and its shape is A's without the last
/// dim (or B is 1-D); X has B's shape (batch dims broadcast). `info` is
/// the factorization's ([*] of A): a singular A gives infinities or NaNs.
/// Errors: as buildLUFactor and buildLUSolve.
/// Spec: aten::linalg_solve_ex.
mlir::FailureOr<SolveResult> buildSolve(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::Value a, mlir::Value rhs,
                                        bool left);

/// The inverse of each square matrix of `a` [*, N, N] (LU with partial
/// pivoting, then N solves), and the factorization's info.
/// Spec: aten::linalg_inv_ex.
mlir::FailureOr<SolveResult> buildInverse(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value a);

/// A Cholesky factorization: `factor` [*, N, N] is L with A = L L^T (zeros
/// above the diagonal), or U = L^T when built with `upper`; `info` [*] i32
/// is 0, or i > 0 when the leading minor of order i is not positive
/// definite (that column and the ones after it are then NaN).
struct CholeskyFactorization {
  mlir::Value factor, info;
};

/// Cholesky factorization of each symmetric positive-definite matrix of
/// `a` [*, N, N]; only A's lower triangle is read (its upper one with
/// `upper`).
/// Errors: a non-square operand, as buildLUFactor otherwise.
/// Spec: aten::linalg_cholesky_ex; LAPACK potrf.
mlir::FailureOr<CholeskyFactorization> buildCholesky(mlir::OpBuilder &b,
                                                     mlir::Location loc,
                                                     mlir::Value a, bool upper);

/// Solves A X = B given A's Cholesky factor (L, or U with `upper`) [*, N,
/// N]; B [*, N, R], batch dims broadcast.
/// Spec: aten::cholesky_solve; LAPACK potrs.
mlir::FailureOr<mlir::Value> buildCholeskySolve(mlir::OpBuilder &b,
                                                mlir::Location loc,
                                                mlir::Value factor,
                                                mlir::Value rhs, bool upper);

/// The inverse of A = L L^T (or U^T U with `upper`) from its Cholesky
/// factor [*, N, N].
/// Spec: aten::cholesky_inverse; LAPACK potri.
mlir::FailureOr<mlir::Value> buildCholeskyInverse(mlir::OpBuilder &b,
                                                  mlir::Location loc,
                                                  mlir::Value factor,
                                                  bool upper);

/// sign(det A) and log|det A| of each square matrix of `a` [*, N, N], both
/// [*] of A's element type (0 and -inf for a singular matrix), from its LU
/// factorization. `logDeterminant` gives log(det A) instead of the pair
/// (NaN for a negative determinant) in the second value, the first null.
/// Spec: aten::linalg_slogdet, aten::logdet.
mlir::FailureOr<std::pair<mlir::Value, mlir::Value>>
buildSignLogDeterminant(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a,
                        bool logDeterminant);

/// The singular values of each matrix of `a` [*, M, N], [*, min(M, N)] in
/// descending order, by one-sided Jacobi rotations (Hestenes) carried out in
/// f64 and rounded once to A's element type.
/// Spec: aten::linalg_svdvals.
mlir::FailureOr<mlir::Value>
buildSingularValues(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a);

/// The eigenvalues of each symmetric matrix of `a` [*, N, N], [*, N] in
/// ascending order; only A's lower triangle is read (its upper one with
/// `upper`). Computed as the singular values of the symmetric matrix
/// signed by its singular vectors (one-sided Jacobi in f64).
/// Spec: aten::linalg_eigvalsh.
mlir::FailureOr<mlir::Value> buildSymmetricEigenvalues(mlir::OpBuilder &b,
                                                       mlir::Location loc,
                                                       mlir::Value a,
                                                       bool upper);

/// The tolerance of a rank decision on the singular values S of one matrix,
/// max(atol, rtol * max(S)), as torch.linalg defines it: `atol` and `rtol`
/// are float tensors broadcasting against the batch dims [*] of A, or null.
/// Null atol is 0; null rtol is eps(A's type) * max(M, N) unless an atol is
/// given, then 0 where atol > 0.
struct RankTolerance {
  mlir::Value atol, rtol;
};

/// The Moore-Penrose pseudo-inverse [*, N, M] of each matrix of `a` [*, M,
/// N]: V diag(1/s, s > tol; else 0) U^T from its singular value
/// decomposition (one-sided Jacobi in f64). `hermitian` reads only the lower
/// triangle of each (square, symmetric) matrix.
/// Spec: aten::linalg_pinv.atol_rtol_tensor.
mlir::FailureOr<mlir::Value>
buildPseudoInverse(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a,
                   RankTolerance tol, bool hermitian);

/// The rank [*] i64 of each matrix of `a` [*, M, N]: the number of its
/// singular values above the tolerance.
/// Spec: aten::linalg_matrix_rank.atol_rtol_tensor.
mlir::FailureOr<mlir::Value> buildMatrixRank(mlir::OpBuilder &b,
                                             mlir::Location loc, mlir::Value a,
                                             RankTolerance tol, bool hermitian);

/// The 2-norm condition number max(S) / min(S) of each matrix of `a` [*, M,
/// N] (min(S) / max(S) with `inverse`, torch's p = -2), [*].
/// Spec: aten::linalg_cond with p None, 2 or -2.
mlir::FailureOr<mlir::Value> buildConditionNumber(mlir::OpBuilder &b,
                                                  mlir::Location loc,
                                                  mlir::Value a, bool inverse);

/// A QR factorization in LAPACK's compact form: `a` [*, M, N] holds R on
/// and above the diagonal and, below it, the Householder vectors v_i (with
/// an implicit 1 at row i); `tau` [*, K], K = min(M, N), their scales, so
/// that Q = H_0 ... H_{K-1}, H_i = I - tau_i v_i v_i^T. LAPACK's signs: R's
/// diagonal is -sign(a_ii) ||column||, tau_i = 0 where the column below the
/// diagonal is already zero.
struct HouseholderQR {
  mlir::Value a, tau;
};

/// The Householder QR factorization of each matrix of `a` [*, M, N].
/// Errors: as buildLUFactor.
/// Spec: aten::geqrf; LAPACK geqrf (dlarfg's conventions).
mlir::FailureOr<HouseholderQR>
buildHouseholderQR(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a);

/// The first N columns [*, M, N] of Q = H_0 ... H_{K-1} from Householder
/// vectors `reflectors` [*, M, N] (M >= N) and scales `tau` [*, K], K <= N.
/// Spec: aten::linalg_householder_product; LAPACK orgqr.
mlir::FailureOr<mlir::Value> buildHouseholderProduct(mlir::OpBuilder &b,
                                                     mlir::Location loc,
                                                     mlir::Value reflectors,
                                                     mlir::Value tau);

/// Q C, Q^T C (`transpose`), C Q or C Q^T (`!left`) for Q given by
/// Householder vectors `reflectors` [*, M, K'] and `tau` [*, K] (K <= K'),
/// and C `other` [*, M, R] (left) or [*, R, M]; equal batch dims.
/// Spec: aten::ormqr; LAPACK ormqr.
mlir::FailureOr<mlir::Value>
buildHouseholderMultiply(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Value reflectors, mlir::Value tau,
                         mlir::Value other, bool left, bool transpose);

/// Which factors buildQR returns: Q [*, M, K] and R [*, K, N] (reduced), Q
/// [*, M, M] and R [*, M, N] (complete), or only R [*, K, N] (Q null).
enum class QRMode { Reduced, Complete, R };

/// A = Q R for each matrix of `a` [*, M, N], with LAPACK's signs (see
/// HouseholderQR).
/// Spec: aten::linalg_qr; aten::qr.
mlir::FailureOr<std::pair<mlir::Value, mlir::Value>>
buildQR(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a, QRMode mode);

/// The matrix norms made of singular values: the largest (the spectral
/// norm, torch's ord 2), the smallest (ord -2) or their sum (the nuclear
/// norm, "nuc").
enum class SingularValueNorm { Largest, Smallest, Sum };

/// That norm of the matrices of float `x` spanning its distinct dims
/// `rowDim`, `colDim` (in [0, rank)); both dims are dropped unless
/// `keepDims`. Matrices without elements give 0 (for Sum only).
/// Errors: as buildSingularValues; Largest/Smallest of empty matrices.
/// Spec: aten::linalg_matrix_norm with ord 2, -2, "nuc".
mlir::FailureOr<mlir::Value>
buildSingularValueNorm(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                       SingularValueNorm kind, int64_t rowDim, int64_t colDim,
                       bool keepDims);

/// LAPACK's least-squares drivers, as torch.linalg.lstsq names them: they
/// differ in what they report besides the solution.
enum class LeastSquaresDriver { Gels, Gelsy, Gelsd, Gelss };

/// The results of torch.linalg.lstsq; an output the driver does not
/// compute is an empty [0] tensor.
struct LeastSquaresResult {
  /// [*, N, R]: the minimum-norm least-squares solution of A X = B.
  mlir::Value solution;
  /// [*, R] squared residual norms when M > N and the driver is not gelsy.
  mlir::Value residuals;
  /// [*] i64 effective ranks (not with gels).
  mlir::Value rank;
  /// [*, min(M, N)] singular values (gelsd and gelss).
  mlir::Value singularValues;
};

/// Least squares for A [*, M, N] and B [*, M, R] (equal batch dims): X =
/// pinv(A) B with singular values at or below rcond * max(S) dropped
/// (`rcond` null: eps(A's type) * max(M, N)), for full-rank A what every
/// driver computes.
/// Spec: aten::linalg_lstsq.
mlir::FailureOr<LeastSquaresResult>
buildLeastSquares(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a,
                  mlir::Value rhs, std::optional<double> rcond,
                  LeastSquaresDriver driver);

/// The inverse of `a` viewed as a matrix of its first `ind` dims by the
/// rest (whose products must be equal): shape a[ind:] + a[:ind].
/// Spec: aten::linalg_tensorinv.
mlir::FailureOr<mlir::Value> buildTensorInverse(mlir::OpBuilder &b,
                                                mlir::Location loc,
                                                mlir::Value a, int64_t ind);

/// X with tensordot(A, X, X.ndim) = B: `a`'s dims `dims` (in [0, rank))
/// move to the end first; X has shape a[B.ndim:].
/// Spec: aten::linalg_tensorsolve.
mlir::FailureOr<mlir::Value> buildTensorSolve(mlir::OpBuilder &b,
                                              mlir::Location loc, mlir::Value a,
                                              mlir::Value rhs,
                                              llvm::ArrayRef<int64_t> dims);

/// exp(A) of each square matrix of `a` [*, N, N]: scaling and squaring with
/// an 18-term Taylor series, in f64.
/// Spec: aten::linalg_matrix_exp.
mlir::FailureOr<mlir::Value>
buildMatrixExponential(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a);

/// The k-th power of each square matrix of `x` [..., n, n] (any element
/// type matmul takes): the identity for k = 0 (static shapes only), the
/// inverse's |k|-th power for k < 0 (floats), else aten's square-and-multiply
/// products in aten's order.
/// Errors: non-square or rank < 2 input, k = 0 on a dynamic shape.
/// Spec: aten::linalg_matrix_power.
mlir::FailureOr<mlir::Value> buildMatrixPower(mlir::OpBuilder &b,
                                              mlir::Location loc, mlir::Value x,
                                              int64_t k);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_MATRIXFACTORIZATION_H
