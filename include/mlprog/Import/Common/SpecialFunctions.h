//===- SpecialFunctions.h - Polynomials, zeta, incomplete gamma -*- C++ -*-===//
//
// Format-independent builders for the special functions of torch.special
// beyond the unary ones of Elementwise.h: classical orthogonal polynomials,
// the multivariate log-gamma, polygamma and Hurwitz zeta, the regularized
// incomplete gamma functions, ndtri and the spherical Bessel function j0.
// All are broadcasting `linalg.generic` ops whose bodies compute one element
// with arith/math/scf.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_SPECIALFUNCTIONS_H
#define MLPROG_IMPORT_COMMON_SPECIALFUNCTIONS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlprog {

/// The orthogonal polynomial families of torch.special.
enum class OrthogonalPolynomialKind {
  ChebyshevT,        ///< first kind, T_n(cos t) = cos(n t)
  ChebyshevU,        ///< second kind, U_n(cos t) = sin((n+1) t) / sin t
  ChebyshevV,        ///< third kind, V_n(cos t) = cos((n+1/2) t) / cos(t/2)
  ChebyshevW,        ///< fourth kind, W_n(cos t) = sin((n+1/2) t) / sin(t/2)
  ShiftedChebyshevT, ///< T_n(2x - 1), orthogonal on [0, 1]
  ShiftedChebyshevU, ///< U_n(2x - 1)
  ShiftedChebyshevV, ///< V_n(2x - 1)
  ShiftedChebyshevW, ///< W_n(2x - 1)
  HermiteH,          ///< physicists' Hermite polynomial H_n
  HermiteHe,         ///< probabilists' Hermite polynomial He_n
  LaguerreL,         ///< Laguerre polynomial L_n
  LegendreP,         ///< Legendre polynomial P_n
};

/// The polynomial `kind` of degree n at x, elementwise over the broadcast
/// of the float tensors `x` and `n` (same element type; n is truncated to an
/// integer). As torch computes them: by the three-term recurrence in the
/// element type (f32 for narrower floats), with the closed trigonometric
/// forms of the Chebyshev kinds for |x| < 1 and large n and exact values at
/// the ends of [-1, 1]; n < 0 (and a NaN or infinite n) gives 0, Hermite
/// degrees above 128 (f32) or 512 (f64) give NaN.
/// Errors: non-float or mismatched element types, shapes that do not
/// broadcast.
/// Spec: aten::special_{chebyshev,shifted_chebyshev}_polynomial_{t,u,v,w},
/// special_hermite_polynomial_{h,he}, special_laguerre_polynomial_l,
/// special_legendre_polynomial_p (x: Tensor, n: Tensor); torch.special docs.
mlir::FailureOr<mlir::Value>
buildOrthogonalPolynomial(mlir::OpBuilder &b, mlir::Location loc,
                          OrthogonalPolynomialKind kind, mlir::Value x,
                          mlir::Value n);

/// Unary special functions of this file, computed in f64 and rounded once.
enum class SpecialUnaryKind {
  Ndtri,                  ///< inverse of the standard normal CDF on [0, 1]
  SphericalBesselJ0,      ///< sin(x) / x, 1 at 0, 0 at +-inf
  BesselJ0,               ///< Bessel function of the first kind J0 (even)
  BesselJ1,               ///< J1 (odd)
  BesselY0,               ///< second kind Y0: -inf at 0, NaN for x < 0
  BesselY1,               ///< Y1: -inf at 0, NaN for x < 0
  ModifiedBesselI0,       ///< modified Bessel function of the first kind I0
  ModifiedBesselI1,       ///< I1
  ModifiedBesselK0,       ///< modified second kind K0: +inf at 0, NaN for x < 0
  ModifiedBesselK1,       ///< K1
  ScaledModifiedBesselK0, ///< exp(x) K0(x)
  ScaledModifiedBesselK1, ///< exp(x) K1(x)
  AiryAi,                 ///< Airy function Ai: NaN at +-inf
};

/// `kind(x)` elementwise on the float tensor `x`. J and Y: power series
/// for |x| <= 12, Hankel's asymptotic expansion beyond; K: the power series
/// for x <= 2, beyond it the trapezoidal rule on exp(x) K(x) = int_0^inf exp(-x
/// (cosh t - 1)) cosh(nu t) dt; Ai: its Maclaurin series near 0, K_1/3 for x >
/// 2 and Hankel's expansion of J_{+-1/3} for x < -8. Errors: non-float tensors.
/// Spec: aten::special_ndtri (NaN outside [0, 1], -inf at 0, +inf at 1),
/// aten::special_spherical_bessel_j0, special_bessel_{j0,j1,y0,y1},
/// special_modified_bessel_{i0,i1,k0,k1}, special_scaled_modified_bessel_
/// {k0,k1}, special_airy_ai; scipy.special j0, y0, k0, k0e, airy.
mlir::FailureOr<mlir::Value> buildSpecialUnary(mlir::OpBuilder &b,
                                               mlir::Location loc,
                                               SpecialUnaryKind kind,
                                               mlir::Value x);

/// The multivariate log-gamma function of dimension `p` >= 1:
/// sum_{j<p} lgamma(x - j/2) + p (p - 1) / 4 * log(pi), in f64, rounded
/// once to the float element type of `x`. Domain checks (x > (p - 1) / 2)
/// are torch's run-time errors and are not made here.
/// Errors: p < 1, non-float x.
/// Spec: aten::mvlgamma(Tensor self, int p), special_multigammaln.
mlir::FailureOr<mlir::Value> buildMultivariateLgamma(mlir::OpBuilder &b,
                                                     mlir::Location loc,
                                                     mlir::Value x, int64_t p);

/// The Hurwitz zeta function zeta(s, q) = sum_{k>=0} (q + k)^-s over the
/// broadcast of the float tensors `s` and `q` (same element type), in f64:
/// direct summation to q + k >= 9 and then the Euler-Maclaurin tail. +inf
/// at s = 1 and at q a non-positive integer; NaN for s < 1 and for q < 0
/// with a non-integer s.
/// Errors: non-float or mismatched element types, shapes that do not
/// broadcast.
/// Spec: aten::special_zeta(Tensor self, Tensor other).
mlir::FailureOr<mlir::Value> buildHurwitzZeta(mlir::OpBuilder &b,
                                              mlir::Location loc, mlir::Value s,
                                              mlir::Value q);

/// The polygamma function psi^(n)(x) elementwise on the float tensor `x`:
/// digamma for n = 0, (-1)^(n+1) n! zeta(n + 1, x) for n >= 1.
/// Errors: n < 0, non-float x.
/// Spec: aten::polygamma(int n, Tensor self), special_polygamma.
mlir::FailureOr<mlir::Value> buildPolygamma(mlir::OpBuilder &b,
                                            mlir::Location loc, int64_t n,
                                            mlir::Value x);

/// The regularized incomplete gamma functions of a >= 0, x >= 0.
enum class IncompleteGammaKind {
  Lower, ///< P(a, x) = gamma(a, x) / Gamma(a)
  Upper, ///< Q(a, x) = 1 - P(a, x)
};

/// P(a, x) or Q(a, x) over the broadcast of the float tensors `a` and `x`
/// (same element type), in f64: the power series for x < a + 1, else the
/// continued fraction of Q (DLMF 8.9.2, modified Lentz); Temme's uniform
/// expansion for a > 1e4. NaN for a < 0 or x < 0 or where both are 0;
/// a = 0 is the limit (P = 1 for x > 0); x = inf gives P = 1.
/// Errors: non-float or mismatched element types, shapes that do not
/// broadcast.
/// Spec: aten::igamma(Tensor self, Tensor other), aten::igammac
/// (special_gammainc, special_gammaincc); scipy.special.gammainc.
mlir::FailureOr<mlir::Value> buildIncompleteGamma(mlir::OpBuilder &b,
                                                  mlir::Location loc,
                                                  IncompleteGammaKind kind,
                                                  mlir::Value a, mlir::Value x);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_SPECIALFUNCTIONS_H
