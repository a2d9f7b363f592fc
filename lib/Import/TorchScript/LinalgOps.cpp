//===- LinalgOps.cpp - aten LU, Cholesky, solves, inverses, determinants --===//
//
// torch.linalg's factorizations and solves of small dense matrices and
// their older spellings (`torch.lu`, `lu_solve`, `cholesky`,
// `triangular_solve`, `inverse`, `det`, `logdet`).
//
// One handler per aten op (overloads told apart by the node's schema): it
// reads the arguments at the schema's positions and calls the shared
// builders of mlprog/Import/Common/MatrixFactorization.h. Semantics belong
// in the builders, not here. The `check_errors` flags of the `_ex` ops
// cannot raise at run time: the `info` results report what they would.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "HandlerUtils.h"

#include "mlprog/Import/Common/LinearAlgebra.h"
#include "mlprog/Import/Common/MatrixFactorization.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// The optional bool argument `i` (absent or None: `def`).
FailureOr<bool> flag(Im &im, Node *n, unsigned i, bool def) {
  if (n->inputs().size() <= i || im.isNoneInput(n, i))
    return def;
  return im.boolInput(n, i);
}

/// A 0-d float32 tensor holding `v`.
Value createScalarTensor(Im &im, Node *n, double v) {
  auto type = RankedTensorType::get({}, im.b.getF32Type());
  return arith::ConstantOp::create(
      im.b, im.loc(n), DenseElementsAttr::get(type, static_cast<float>(v)));
}

/// torch raises for pivot=False on the CPU; so do we, at import.
LogicalResult requirePivoting(Im &im, Node *n, unsigned i) {
  FailureOr<bool> pivot = flag(im, n, i, true);
  if (failed(pivot))
    return failure();
  if (!*pivot)
    return im.unsupported(n, "LU without pivoting (pivot=False)");
  return success();
}

/// linalg_lu_factor(A, *, pivot=True) -> (LU, pivots);
/// linalg_lu_factor_ex(A, *, pivot, check_errors) and
/// _lu_with_info(self, pivot, check_errors) -> (LU, pivots, info).
LogicalResult luFactor(Im &im, Node *n) {
  FailureOr<Value> a = im.tensorInput(n, 0);
  if (failed(a) || failed(requirePivoting(im, n, 1)))
    return failure();
  FailureOr<LUFactorization> f = buildLUFactor(im.b, im.loc(n), *a);
  if (failed(f) || failed(im.setTensor(n, 0, f->lu)) ||
      failed(im.setTensor(n, 1, f->pivots)))
    return failure();
  return n->outputs().size() > 2 ? im.setTensor(n, 2, f->info) : success();
}

/// linalg_lu(A, *, pivot=True) -> (P, L, U).
LogicalResult lu(Im &im, Node *n) {
  FailureOr<Value> a = im.tensorInput(n, 0);
  if (failed(a) || failed(requirePivoting(im, n, 1)))
    return failure();
  FailureOr<LUFactorization> f = buildLUFactor(im.b, im.loc(n), *a);
  if (failed(f))
    return failure();
  FailureOr<SmallVector<Value, 3>> plu =
      buildLUUnpack(im.b, im.loc(n), f->lu, f->pivots);
  if (failed(plu))
    return failure();
  for (unsigned i = 0; i < 3; ++i)
    if (failed(im.setTensor(n, i, (*plu)[i])))
      return failure();
  return success();
}

/// lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True)
/// -> (P, L, U).
LogicalResult luUnpack(Im &im, Node *n) {
  FailureOr<Value> f = im.tensorInput(n, 0), piv = im.tensorInput(n, 1);
  FailureOr<bool> data = flag(im, n, 2, true), pivots = flag(im, n, 3, true);
  if (failed(f) || failed(piv) || failed(data) || failed(pivots))
    return failure();
  if (!*data || !*pivots)
    return im.unsupported(n, "lu_unpack without unpack_data or unpack_pivots");
  FailureOr<SmallVector<Value, 3>> plu =
      buildLUUnpack(im.b, im.loc(n), *f, *piv);
  if (failed(plu))
    return failure();
  for (unsigned i = 0; i < 3; ++i)
    if (failed(im.setTensor(n, i, (*plu)[i])))
      return failure();
  return success();
}

/// linalg_lu_solve(LU, pivots, B, *, left=True, adjoint=False).
LogicalResult linalgLuSolve(Im &im, Node *n) {
  FailureOr<Value> f = im.tensorInput(n, 0), piv = im.tensorInput(n, 1),
                   rhs = im.tensorInput(n, 2);
  FailureOr<bool> left = flag(im, n, 3, true), adjoint = flag(im, n, 4, false);
  if (failed(f) || failed(piv) || failed(rhs) || failed(left) ||
      failed(adjoint))
    return failure();
  return im.setTensor(
      n, 0, buildLUSolve(im.b, im.loc(n), *f, *piv, *rhs, *left, *adjoint));
}

/// lu_solve(self=B, LU_data, LU_pivots).
LogicalResult luSolve(Im &im, Node *n) {
  FailureOr<Value> rhs = im.tensorInput(n, 0), f = im.tensorInput(n, 1),
                   piv = im.tensorInput(n, 2);
  if (failed(f) || failed(piv) || failed(rhs))
    return failure();
  return im.setTensor(n, 0,
                      buildLUSolve(im.b, im.loc(n), *f, *piv, *rhs,
                                   /*left=*/true, /*adjoint=*/false));
}

/// linalg_solve(A, B, *, left=True);
/// linalg_solve_ex(A, B, *, left, check_errors) -> (result, info).
LogicalResult solve(Im &im, Node *n) {
  FailureOr<Value> a = im.tensorInput(n, 0), rhs = im.tensorInput(n, 1);
  FailureOr<bool> left = flag(im, n, 2, true);
  if (failed(a) || failed(rhs) || failed(left))
    return failure();
  FailureOr<SolveResult> r = buildSolve(im.b, im.loc(n), *a, *rhs, *left);
  if (failed(r) || failed(im.setTensor(n, 0, r->x)))
    return failure();
  return n->outputs().size() > 1 ? im.setTensor(n, 1, r->info) : success();
}

/// linalg_inv(A), inverse(self); linalg_inv_ex(A, *, check_errors) ->
/// (inverse, info).
LogicalResult inverse(Im &im, Node *n) {
  FailureOr<Value> a = im.tensorInput(n, 0);
  if (failed(a))
    return failure();
  FailureOr<SolveResult> r = buildInverse(im.b, im.loc(n), *a);
  if (failed(r) || failed(im.setTensor(n, 0, r->x)))
    return failure();
  return n->outputs().size() > 1 ? im.setTensor(n, 1, r->info) : success();
}

/// linalg_det(A), det(self).
LogicalResult det(Im &im, Node *n) {
  FailureOr<Value> a = im.tensorInput(n, 0);
  if (failed(a))
    return failure();
  return im.setTensor(n, 0, buildDeterminant(im.b, im.loc(n), *a));
}

/// linalg_slogdet(A), slogdet(self) -> (sign, logabsdet); logdet(self).
LogicalResult slogdet(Im &im, Node *n) {
  FailureOr<Value> a = im.tensorInput(n, 0);
  if (failed(a))
    return failure();
  bool logdet = n->kind().toUnqualString() == std::string("logdet");
  FailureOr<std::pair<Value, Value>> r =
      buildSignLogDeterminant(im.b, im.loc(n), *a, logdet);
  if (failed(r))
    return failure();
  if (logdet)
    return im.setTensor(n, 0, r->second);
  if (failed(im.setTensor(n, 0, r->first)))
    return failure();
  return im.setTensor(n, 1, r->second);
}

/// linalg_cholesky(self, *, upper=False), cholesky(self, upper=False);
/// linalg_cholesky_ex(self, *, upper, check_errors) -> (L, info).
LogicalResult cholesky(Im &im, Node *n) {
  FailureOr<Value> a = im.tensorInput(n, 0);
  FailureOr<bool> upper = flag(im, n, 1, false);
  if (failed(a) || failed(upper))
    return failure();
  FailureOr<CholeskyFactorization> f =
      buildCholesky(im.b, im.loc(n), *a, *upper);
  if (failed(f) || failed(im.setTensor(n, 0, f->factor)))
    return failure();
  return n->outputs().size() > 1 ? im.setTensor(n, 1, f->info) : success();
}

/// cholesky_solve(self=B, input2=L, upper=False).
LogicalResult choleskySolve(Im &im, Node *n) {
  FailureOr<Value> rhs = im.tensorInput(n, 0), f = im.tensorInput(n, 1);
  FailureOr<bool> upper = flag(im, n, 2, false);
  if (failed(rhs) || failed(f) || failed(upper))
    return failure();
  return im.setTensor(n, 0,
                      buildCholeskySolve(im.b, im.loc(n), *f, *rhs, *upper));
}

/// cholesky_inverse(self=L, upper=False).
LogicalResult choleskyInverse(Im &im, Node *n) {
  FailureOr<Value> f = im.tensorInput(n, 0);
  FailureOr<bool> upper = flag(im, n, 1, false);
  if (failed(f) || failed(upper))
    return failure();
  return im.setTensor(n, 0, buildCholeskyInverse(im.b, im.loc(n), *f, *upper));
}

/// linalg_solve_triangular(self=A, B, *, upper, left=True,
/// unitriangular=False).
LogicalResult solveTriangular(Im &im, Node *n) {
  FailureOr<Value> a = im.tensorInput(n, 0), rhs = im.tensorInput(n, 1);
  FailureOr<bool> upper = im.boolInput(n, 2), left = flag(im, n, 3, true),
                  unit = flag(im, n, 4, false);
  if (failed(a) || failed(rhs) || failed(upper) || failed(left) || failed(unit))
    return failure();
  return im.setTensor(
      n, 0,
      buildTriangularSolve(im.b, im.loc(n), *a, *rhs, *upper, *left, *unit));
}

/// triangular_solve(self=B, A, upper=True, transpose=False,
/// unitriangular=False) -> (solution, cloned_coefficient).
LogicalResult triangularSolve(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> rhs = im.tensorInput(n, 0), a = im.tensorInput(n, 1);
  FailureOr<bool> upper = flag(im, n, 2, true),
                  transpose = flag(im, n, 3, false),
                  unit = flag(im, n, 4, false);
  if (failed(a) || failed(rhs) || failed(upper) || failed(transpose) ||
      failed(unit))
    return failure();
  Value coefficient = *a;
  // A^T X = B: A^T is triangular in the other triangle.
  if (*transpose) {
    int64_t r = rankOf(*a);
    if (r < 2)
      return emitError(l) << "triangular_solve: A must have rank >= 2, got "
                          << a->getType();
    auto perm = llvm::to_vector(llvm::seq<int64_t>(0, r));
    std::swap(perm[r - 1], perm[r - 2]);
    a = buildTranspose(im.b, l, *a, perm);
    if (failed(a))
      return failure();
  }
  FailureOr<Value> x = buildTriangularSolve(
      im.b, l, *a, *rhs, *upper != *transpose, /*left=*/true, *unit);
  if (failed(x) || failed(im.setTensor(n, 0, x)))
    return failure();
  return im.setTensor(n, 1, coefficient);
}

/// linalg_svdvals(A, *, driver=None).
LogicalResult svdvals(Im &im, Node *n) {
  FailureOr<Value> a = im.tensorInput(n, 0);
  if (failed(a))
    return failure();
  return im.setTensor(n, 0, buildSingularValues(im.b, im.loc(n), *a));
}

/// linalg_eigvalsh(self, UPLO="L").
LogicalResult eigvalsh(Im &im, Node *n) {
  FailureOr<Value> a = im.tensorInput(n, 0);
  if (failed(a))
    return failure();
  bool upper = n->inputs().size() > 1 && im.get(n->input(1)).str == "U";
  return im.setTensor(n, 0,
                      buildSymmetricEigenvalues(im.b, im.loc(n), *a, upper));
}

/// Argument `i` as a tolerance tensor, or null when None.
FailureOr<Value> toleranceInput(Im &im, Node *n, unsigned i) {
  if (im.isNoneInput(n, i))
    return Value();
  return im.tensorInput(n, i);
}

/// The tolerances and `hermitian` of linalg_pinv / linalg_matrix_rank /
/// pinverse, by overload: atol_rtol_{float,tensor}(A, *, atol, rtol,
/// hermitian); pinv(A, rcond, hermitian) and rcond_tensor: rtol = rcond;
/// matrix_rank(A, tol, hermitian) and tol_tensor: atol = tol, rtol = 0;
/// pinverse(A, rcond=1e-15).
LogicalResult rankArguments(Im &im, Node *n, RankTolerance &tol,
                            bool &hermitian) {
  std::string ov = n->schema().overload_name();
  bool rank = n->kind().toUnqualString() == std::string("linalg_matrix_rank");
  unsigned hermitianArg = 2;
  if (ov.rfind("atol_rtol", 0) == 0) {
    FailureOr<Value> atol = toleranceInput(im, n, 1),
                     rtol = toleranceInput(im, n, 2);
    if (failed(atol) || failed(rtol))
      return failure();
    tol = {*atol, *rtol};
    hermitianArg = 3;
  } else {
    FailureOr<Value> t = toleranceInput(im, n, 1);
    if (failed(t))
      return failure();
    if (rank)
      tol = {*t, createScalarTensor(im, n, 0.0)};
    else
      tol = {Value(), *t};
  }
  FailureOr<bool> h = flag(im, n, hermitianArg, false);
  if (failed(h))
    return failure();
  hermitian = *h;
  return success();
}

/// linalg_pinv (every overload), pinverse(self, rcond=1e-15) with
/// buildPseudoInverse; linalg_matrix_rank (every overload) with
/// buildMatrixRank.
template <FailureOr<Value> (*Build)(OpBuilder &, Location, Value, RankTolerance,
                                    bool)>
LogicalResult rankRevealing(Im &im, Node *n) {
  FailureOr<Value> a = im.tensorInput(n, 0);
  RankTolerance tol;
  bool hermitian;
  if (failed(a) || failed(rankArguments(im, n, tol, hermitian)))
    return failure();
  return im.setTensor(n, 0, Build(im.b, im.loc(n), *a, tol, hermitian));
}

/// linalg_cond(self, p=None) for p None, 2 and -2 (the 2-norm condition
/// number); other norms and linalg_cond.p_str are unsupported.
LogicalResult cond(Im &im, Node *n) {
  FailureOr<Value> a = im.tensorInput(n, 0);
  if (failed(a))
    return failure();
  double p = 2;
  if (n->schema().overload_name() == "p_str")
    return im.unsupported(n, "linalg.cond with p='" + im.get(n->input(1)).str +
                                 "'");
  if (!im.isNoneInput(n, 1)) {
    FailureOr<double> v = im.numberInput(n, 1);
    if (failed(v))
      return failure();
    p = *v;
  }
  if (p != 2 && p != -2)
    return im.unsupported(n, "linalg.cond with p=" + std::to_string(p));
  return im.setTensor(n, 0, buildConditionNumber(im.b, im.loc(n), *a, p == -2));
}

/// geqrf(self) -> (a, tau).
LogicalResult geqrf(Im &im, Node *n) {
  FailureOr<Value> a = im.tensorInput(n, 0);
  if (failed(a))
    return failure();
  FailureOr<HouseholderQR> f = buildHouseholderQR(im.b, im.loc(n), *a);
  if (failed(f) || failed(im.setTensor(n, 0, f->a)))
    return failure();
  return im.setTensor(n, 1, f->tau);
}

/// linalg_householder_product(input, tau).
LogicalResult householderProduct(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0), tau = im.tensorInput(n, 1);
  if (failed(x) || failed(tau))
    return failure();
  return im.setTensor(n, 0, buildHouseholderProduct(im.b, im.loc(n), *x, *tau));
}

/// ormqr(self, input2=tau, input3=other, left=True, transpose=False).
LogicalResult ormqr(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0), tau = im.tensorInput(n, 1),
                   c = im.tensorInput(n, 2);
  FailureOr<bool> left = flag(im, n, 3, true),
                  transpose = flag(im, n, 4, false);
  if (failed(x) || failed(tau) || failed(c) || failed(left) ||
      failed(transpose))
    return failure();
  return im.setTensor(n, 0,
                      buildHouseholderMultiply(im.b, im.loc(n), *x, *tau, *c,
                                               *left, *transpose));
}

/// linalg_qr(A, mode="reduced") -> (Q, R); qr(self, some=True). Mode "r"
/// gives an empty Q, as torch does.
LogicalResult qr(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> a = im.tensorInput(n, 0);
  if (failed(a))
    return failure();
  QRMode mode = QRMode::Reduced;
  if (n->kind().toUnqualString() == std::string("qr")) {
    FailureOr<bool> some = flag(im, n, 1, true);
    if (failed(some))
      return failure();
    mode = *some ? QRMode::Reduced : QRMode::Complete;
  } else if (n->inputs().size() > 1) {
    std::string m = im.get(n->input(1)).str;
    if (m == "complete")
      mode = QRMode::Complete;
    else if (m == "r")
      mode = QRMode::R;
    else if (m != "reduced")
      return emitError(l) << "linalg_qr: unknown mode '" << m
                          << "' (reduced, complete or r)";
  }
  FailureOr<std::pair<Value, Value>> qrf = buildQR(im.b, l, *a, mode);
  if (failed(qrf))
    return failure();
  Value q = qrf->first;
  if (!q)
    q = arith::ConstantOp::create(
        im.b, l,
        DenseElementsAttr::get(RankedTensorType::get({0}, elemOf(*a)),
                               ArrayRef<Attribute>{}));
  if (failed(im.setTensor(n, 0, q)))
    return failure();
  return im.setTensor(n, 1, qrf->second);
}

/// linalg_lstsq(self, b, rcond=None, *, driver=None) -> (solution,
/// residuals, rank, singular_values); driver None is gelsy, as on torch's
/// CPU.
LogicalResult lstsq(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> a = im.tensorInput(n, 0), rhs = im.tensorInput(n, 1);
  if (failed(a) || failed(rhs))
    return failure();
  std::optional<double> rcond;
  if (!im.isNoneInput(n, 2)) {
    FailureOr<double> r = im.numberInput(n, 2);
    if (failed(r))
      return failure();
    rcond = *r;
  }
  LeastSquaresDriver driver = LeastSquaresDriver::Gelsy;
  if (n->inputs().size() > 3 && !im.isNoneInput(n, 3)) {
    std::string d = im.get(n->input(3)).str;
    if (d == "gels")
      driver = LeastSquaresDriver::Gels;
    else if (d == "gelsd")
      driver = LeastSquaresDriver::Gelsd;
    else if (d == "gelss")
      driver = LeastSquaresDriver::Gelss;
    else if (d != "gelsy")
      return emitError(l) << "linalg_lstsq: unknown driver '" << d
                          << "' (gels, gelsy, gelsd or gelss)";
  }
  if (rankOf(*rhs) != rankOf(*a))
    return im.unsupported(n, "linalg_lstsq with a batch of vectors B");
  FailureOr<LeastSquaresResult> r =
      buildLeastSquares(im.b, l, *a, *rhs, rcond, driver);
  if (failed(r))
    return failure();
  Value outs[] = {r->solution, r->residuals, r->rank, r->singularValues};
  for (unsigned i = 0; i < 4; ++i)
    if (failed(im.setTensor(n, i, outs[i])))
      return failure();
  return success();
}

/// linalg_tensorinv(self, ind=2).
LogicalResult tensorinv(Im &im, Node *n) {
  FailureOr<Value> a = im.tensorInput(n, 0);
  FailureOr<int64_t> ind =
      n->inputs().size() > 1 ? im.intInput(n, 1) : FailureOr<int64_t>(2);
  if (failed(a) || failed(ind))
    return failure();
  return im.setTensor(n, 0, buildTensorInverse(im.b, im.loc(n), *a, *ind));
}

/// linalg_tensorsolve(self, other, dims=None).
LogicalResult tensorsolve(Im &im, Node *n) {
  FailureOr<Value> a = im.tensorInput(n, 0), rhs = im.tensorInput(n, 1);
  if (failed(a) || failed(rhs))
    return failure();
  SmallVector<int64_t> dims;
  if (n->inputs().size() > 2 && !im.isNoneInput(n, 2)) {
    FailureOr<SmallVector<int64_t>> d = im.intListInput(n, 2);
    if (failed(d))
      return failure();
    for (int64_t v : *d)
      dims.push_back(v < 0 ? v + rankOf(*a) : v);
  }
  return im.setTensor(n, 0, buildTensorSolve(im.b, im.loc(n), *a, *rhs, dims));
}

/// linalg_matrix_exp(self), matrix_exp(self).
LogicalResult matrixExp(Im &im, Node *n) {
  FailureOr<Value> a = im.tensorInput(n, 0);
  if (failed(a))
    return failure();
  return im.setTensor(n, 0, buildMatrixExponential(im.b, im.loc(n), *a));
}

/// linalg_vander(x, *, N=None).
LogicalResult vander(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  std::optional<int64_t> cols;
  if (!im.isNoneInput(n, 1)) {
    FailureOr<int64_t> c = im.intInput(n, 1);
    if (failed(c))
      return failure();
    cols = *c;
  }
  return im.setTensor(n, 0, buildVander(im.b, im.loc(n), *x, cols));
}

} // namespace

void mlprog::torchscript::registerLinalgOps(OpTable &table) {
  table.add({
      {"aten::linalg_vander", vander},
      {"aten::linalg_lu_factor", luFactor},
      {"aten::linalg_lu_factor_ex", luFactor},
      {"aten::_lu_with_info", luFactor},
      {"aten::linalg_lu", lu},
      {"aten::lu_unpack", luUnpack},
      {"aten::linalg_lu_solve", linalgLuSolve},
      {"aten::lu_solve", luSolve},
      {"aten::linalg_solve", solve},
      {"aten::linalg_solve_ex", solve},
      {"aten::linalg_inv", inverse},
      {"aten::linalg_inv_ex", inverse},
      {"aten::inverse", inverse},
      {"aten::linalg_det", det},
      {"aten::det", det},
      {"aten::linalg_slogdet", slogdet},
      {"aten::slogdet", slogdet},
      {"aten::logdet", slogdet},
      {"aten::linalg_cholesky", cholesky},
      {"aten::linalg_cholesky_ex", cholesky},
      {"aten::cholesky", cholesky},
      {"aten::cholesky_solve", choleskySolve},
      {"aten::cholesky_inverse", choleskyInverse},
      {"aten::linalg_solve_triangular", solveTriangular},
      {"aten::triangular_solve", triangularSolve},
      {"aten::linalg_svdvals", svdvals},
      {"aten::linalg_eigvalsh", eigvalsh},
      {"aten::linalg_pinv", rankRevealing<buildPseudoInverse>},
      {"aten::pinverse", rankRevealing<buildPseudoInverse>},
      {"aten::linalg_matrix_rank", rankRevealing<buildMatrixRank>},
      {"aten::linalg_cond", cond},
      {"aten::geqrf", geqrf},
      {"aten::linalg_householder_product", householderProduct},
      {"aten::ormqr", ormqr},
      {"aten::linalg_qr", qr},
      {"aten::qr", qr},
      {"aten::linalg_lstsq", lstsq},
      {"aten::linalg_tensorinv", tensorinv},
      {"aten::linalg_tensorsolve", tensorsolve},
      {"aten::linalg_matrix_exp", matrixExp},
      {"aten::matrix_exp", matrixExp},
  });
}
