//===- SpecialScalar.h - Scalar formulas of special functions --*- C++ -*-===//
//
// Private to MLProgImportCommon: a short spelling of arith/math/scf on float
// scalars, used inside the linalg.generic bodies of SpecialFunctions.h.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_LIB_IMPORT_COMMON_SPECIALSCALAR_H
#define MLPROG_LIB_IMPORT_COMMON_SPECIALSCALAR_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"

#include <limits>

namespace mlprog {
enum class SpecialFunctionKind;
enum class SpecialUnaryKind;
} // namespace mlprog

namespace mlprog::detail {

/// The scalar formula of buildSpecialFunction (Elementwise.h) at the f64
/// (or f32) scalar `x`, in x's type.
mlir::Value buildSpecialScalar(mlir::OpBuilder &b, mlir::Location loc,
                               SpecialFunctionKind kind, mlir::Value x);

/// Scalar formulas in the float type `t`.
struct Scalar {
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Type t;

  using Value = mlir::Value;
  using P = mlir::arith::CmpFPredicate;

  Value c(double v) {
    return mlir::arith::ConstantOp::create(b, loc, b.getFloatAttr(t, v));
  }
  Value inf() { return c(std::numeric_limits<double>::infinity()); }
  Value nan() { return c(std::numeric_limits<double>::quiet_NaN()); }
  Value add(Value x, Value y) {
    return mlir::arith::AddFOp::create(b, loc, x, y);
  }
  Value sub(Value x, Value y) {
    return mlir::arith::SubFOp::create(b, loc, x, y);
  }
  Value mul(Value x, Value y) {
    return mlir::arith::MulFOp::create(b, loc, x, y);
  }
  Value div(Value x, Value y) {
    return mlir::arith::DivFOp::create(b, loc, x, y);
  }
  Value neg(Value x) { return mlir::arith::NegFOp::create(b, loc, x); }
  Value abs(Value x) { return mlir::math::AbsFOp::create(b, loc, x); }
  /// Transcendental functions of f32 are evaluated in f64 and rounded: a
  /// correctly rounded result (as glibc's, which torch calls), independent
  /// of the pipeline's fast f32 approximations.
  template <typename Op> Value libm(Value x) {
    if (!t.isF32())
      return Op::create(b, loc, x);
    Value w = mlir::arith::ExtFOp::create(b, loc, b.getF64Type(), x);
    return mlir::arith::TruncFOp::create(b, loc, t, Op::create(b, loc, w));
  }
  Value exp(Value x) { return libm<mlir::math::ExpOp>(x); }
  Value log(Value x) { return libm<mlir::math::LogOp>(x); }
  Value sqrt(Value x) { return mlir::math::SqrtOp::create(b, loc, x); }
  Value sin(Value x) { return libm<mlir::math::SinOp>(x); }
  Value cos(Value x) { return libm<mlir::math::CosOp>(x); }
  Value acos(Value x) { return libm<mlir::math::AcosOp>(x); }
  Value floor(Value x) { return mlir::math::FloorOp::create(b, loc, x); }
  Value pow(Value x, Value y) {
    return mlir::math::PowFOp::create(b, loc, x, y);
  }
  Value cmp(P p, Value x, Value y) {
    return mlir::arith::CmpFOp::create(b, loc, p, x, y);
  }
  Value lt(Value x, Value y) { return cmp(P::OLT, x, y); }
  Value le(Value x, Value y) { return cmp(P::OLE, x, y); }
  Value gt(Value x, Value y) { return cmp(P::OGT, x, y); }
  Value ge(Value x, Value y) { return cmp(P::OGE, x, y); }
  Value eq(Value x, Value y) { return cmp(P::OEQ, x, y); }
  Value ne(Value x, Value y) { return cmp(P::UNE, x, y); }
  Value isNaN(Value x) { return cmp(P::UNO, x, x); }
  Value isInteger(Value x) { return eq(x, floor(x)); }
  Value sel(Value cond, Value x, Value y) {
    return mlir::arith::SelectOp::create(b, loc, cond, x, y);
  }
  Value andI(Value x, Value y) {
    return mlir::arith::AndIOp::create(b, loc, x, y);
  }
  Value orI(Value x, Value y) {
    return mlir::arith::OrIOp::create(b, loc, x, y);
  }
  Value notI(Value x) {
    return mlir::arith::XOrIOp::create(
        b, loc, x,
        mlir::arith::ConstantOp::create(b, loc, b.getBoolAttr(true)));
  }
  /// Converts the float or i64 `v` to `t`.
  Value to(Value v) {
    if (v.getType() == t)
      return v;
    if (v.getType().isInteger(64))
      return mlir::arith::SIToFPOp::create(b, loc, t, v);
    if (v.getType().getIntOrFloatBitWidth() < t.getIntOrFloatBitWidth())
      return mlir::arith::ExtFOp::create(b, loc, t, v);
    return mlir::arith::TruncFOp::create(b, loc, t, v);
  }
  /// Horner's rule, highest coefficient first.
  Value poly(Value x, llvm::ArrayRef<double> coeffs) {
    Value r = c(coeffs.front());
    for (double k : coeffs.drop_front())
      r = add(mul(r, x), c(k));
    return r;
  }
};

/// The Bessel and Airy functions of SpecialUnaryKind at the f64 scalar `x`
/// (Bessel.cpp).
mlir::Value buildBesselScalar(Scalar &s, SpecialUnaryKind kind, mlir::Value x);

} // namespace mlprog::detail

#endif // MLPROG_LIB_IMPORT_COMMON_SPECIALSCALAR_H
