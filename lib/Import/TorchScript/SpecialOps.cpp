//===- SpecialOps.cpp - torch.special polynomials, zeta, incomplete gamma -===//
//
// The orthogonal polynomials of torch.special (x and n tensors or numbers),
// mvlgamma, polygamma, zeta, igamma/igammac, ndtri, the Bessel functions
// (j0, j1, y0, y1, modified i0, i1, k0, k1 and scaled k0, k1) and airy_ai.
// Thin mappings onto mlprog/Import/Common/SpecialFunctions.h: each handler
// reads the arguments at the schema's positions and applies torch's type
// promotion (integers and bools compute in float32).
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "HandlerUtils.h"

#include "mlprog/Import/Common/SpecialFunctions.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// Inputs 0 and 1 (tensors or numbers) in their promoted dtype, float32
/// when that is an integer or bool type.
FailureOr<std::pair<Value, Value>> floatPair(Im &im, Node *n) {
  Location l = im.loc(n);
  const TSValue &a = im.get(n->input(0)), &c = im.get(n->input(1));
  Type et = im.promote({&a, &c});
  if (!isa<FloatType>(et))
    et = im.b.getF32Type();
  FailureOr<Value> x = im.tensorOf(a, et, l), y = im.tensorOf(c, et, l);
  if (failed(x) || failed(y))
    return failure();
  return std::make_pair(*x, *y);
}

/// special_*_polynomial_*(x, n), with the x_scalar and n_scalar overloads.
template <OrthogonalPolynomialKind K>
LogicalResult polynomial(Im &im, Node *n) {
  FailureOr<std::pair<Value, Value>> xn = floatPair(im, n);
  if (failed(xn))
    return failure();
  return im.setTensor(
      n, 0,
      buildOrthogonalPolynomial(im.b, im.loc(n), K, xn->first, xn->second));
}

template <SpecialUnaryKind K> LogicalResult unary(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, buildSpecialUnary(im.b, im.loc(n), K, *x));
}

/// mvlgamma(self, p) / special_multigammaln(self, p).
LogicalResult mvlgamma(Im &im, Node *n) {
  FailureOr<Value> x = floatInput(im, n, 0);
  FailureOr<int64_t> p = im.intInput(n, 1);
  if (failed(x) || failed(p))
    return failure();
  if (*p < 1)
    return im.unsupported(n, "mvlgamma of dimension p < 1");
  return im.setTensor(n, 0, buildMultivariateLgamma(im.b, im.loc(n), *x, *p));
}

/// polygamma(int n, Tensor self) / special_polygamma.
LogicalResult polygamma(Im &im, Node *n) {
  FailureOr<int64_t> order = im.intInput(n, 0);
  FailureOr<Value> x = floatInput(im, n, 1);
  if (failed(order) || failed(x))
    return failure();
  if (*order < 0)
    return im.unsupported(n, "polygamma of negative order");
  return im.setTensor(n, 0, buildPolygamma(im.b, im.loc(n), *order, *x));
}

/// special_zeta(self, other), with the self_scalar and other_scalar
/// overloads.
LogicalResult zeta(Im &im, Node *n) {
  FailureOr<std::pair<Value, Value>> sq = floatPair(im, n);
  if (failed(sq))
    return failure();
  return im.setTensor(n, 0,
                      buildHurwitzZeta(im.b, im.loc(n), sq->first, sq->second));
}

/// igamma/igammac(self, other) and their special_gammainc(c) aliases.
template <IncompleteGammaKind K> LogicalResult igamma(Im &im, Node *n) {
  FailureOr<std::pair<Value, Value>> ax = floatPair(im, n);
  if (failed(ax))
    return failure();
  return im.setTensor(
      n, 0, buildIncompleteGamma(im.b, im.loc(n), K, ax->first, ax->second));
}

} // namespace

void mlprog::torchscript::registerSpecialOps(OpTable &table) {
  using K = OrthogonalPolynomialKind;
  using U = SpecialUnaryKind;
  table.add({
      {"aten::special_chebyshev_polynomial_t", polynomial<K::ChebyshevT>},
      {"aten::special_chebyshev_polynomial_u", polynomial<K::ChebyshevU>},
      {"aten::special_chebyshev_polynomial_v", polynomial<K::ChebyshevV>},
      {"aten::special_chebyshev_polynomial_w", polynomial<K::ChebyshevW>},
      {"aten::special_shifted_chebyshev_polynomial_t",
       polynomial<K::ShiftedChebyshevT>},
      {"aten::special_shifted_chebyshev_polynomial_u",
       polynomial<K::ShiftedChebyshevU>},
      {"aten::special_shifted_chebyshev_polynomial_v",
       polynomial<K::ShiftedChebyshevV>},
      {"aten::special_shifted_chebyshev_polynomial_w",
       polynomial<K::ShiftedChebyshevW>},
      {"aten::special_hermite_polynomial_h", polynomial<K::HermiteH>},
      {"aten::special_hermite_polynomial_he", polynomial<K::HermiteHe>},
      {"aten::special_laguerre_polynomial_l", polynomial<K::LaguerreL>},
      {"aten::special_legendre_polynomial_p", polynomial<K::LegendreP>},
      {"aten::special_ndtri", unary<U::Ndtri>},
      {"aten::special_spherical_bessel_j0", unary<U::SphericalBesselJ0>},
      {"aten::special_bessel_j0", unary<U::BesselJ0>},
      {"aten::special_bessel_j1", unary<U::BesselJ1>},
      {"aten::special_bessel_y0", unary<U::BesselY0>},
      {"aten::special_bessel_y1", unary<U::BesselY1>},
      {"aten::special_modified_bessel_i0", unary<U::ModifiedBesselI0>},
      {"aten::special_modified_bessel_i1", unary<U::ModifiedBesselI1>},
      {"aten::special_modified_bessel_k0", unary<U::ModifiedBesselK0>},
      {"aten::special_modified_bessel_k1", unary<U::ModifiedBesselK1>},
      {"aten::special_scaled_modified_bessel_k0",
       unary<U::ScaledModifiedBesselK0>},
      {"aten::special_scaled_modified_bessel_k1",
       unary<U::ScaledModifiedBesselK1>},
      {"aten::special_airy_ai", unary<U::AiryAi>},
      {"aten::mvlgamma", mvlgamma},
      {"aten::special_multigammaln", mvlgamma},
      {"aten::polygamma", polygamma},
      {"aten::special_polygamma", polygamma},
      {"aten::special_zeta", zeta},
      {"aten::igamma", igamma<IncompleteGammaKind::Lower>},
      {"aten::special_gammainc", igamma<IncompleteGammaKind::Lower>},
      {"aten::igammac", igamma<IncompleteGammaKind::Upper>},
      {"aten::special_gammaincc", igamma<IncompleteGammaKind::Upper>},
  });
}
