//===- ExpandNarrowFloatCasts.cpp - extf/truncf of f8/f4 as integers ------===//
//
// --mlprog-expand-narrow-float-casts: LLVM has no 8- or 4-bit floats, so the
// conversions between them and the wider floats become integer code on the
// f32 bit pattern (see the pass description in Passes.td for the rules).
// Upstream's arith-expand (MLIR 22) has patterns for bf16, f8E8M0FNU and
// f4E2M1FN only, none for the E4M3/E5M2 kinds ONNX uses most, and ONNX's
// E8M0 `round_mode`s and its f4E2M1FN NaN rule (ml_dtypes') are its own; one
// pass keeps every narrow type's rules in one place, tested bit for bit
// against APFloat (unittests/Pipelines/ExpandNarrowFloatCastsTest.cpp).
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <optional>

namespace mlprog {
#define GEN_PASS_DEF_EXPANDNARROWFLOATCASTSPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;

namespace {

/// How a narrow float encodes its special values.
enum class Specials {
  IEEE, ///< Infinities and NaNs in the all-ones exponent (f8E5M2).
  FN,   ///< No infinities; NaN is the all-ones pattern (f8E4M3FN).
  FNUZ, ///< No infinities, no negative zero; 0x80 is the one NaN.
  None, ///< Neither infinities nor NaNs (f4E2M1FN).
  E8M0, ///< Exponent only, no sign, no zero; 0xFF is NaN (f8E8M0FNU).
};

/// The bit layout of a narrow float type.
struct Format {
  unsigned bits, exponentBits, mantissaBits;
  int bias;
  Specials specials;
};

/// The layout of `type`, or nothing for types LLVM handles itself.
static std::optional<Format> getFormat(Type type) {
  return llvm::TypeSwitch<Type, std::optional<Format>>(type)
      .Case([](Float8E4M3FNType) {
        return Format{8, 4, 3, 7, Specials::FN};
      })
      .Case([](Float8E4M3FNUZType) {
        return Format{8, 4, 3, 8, Specials::FNUZ};
      })
      .Case([](Float8E5M2Type) {
        return Format{8, 5, 2, 15, Specials::IEEE};
      })
      .Case([](Float8E5M2FNUZType) {
        return Format{8, 5, 2, 16, Specials::FNUZ};
      })
      .Case([](Float4E2M1FNType) {
        return Format{4, 2, 1, 1, Specials::None};
      })
      .Case([](Float8E8M0FNUType) {
        return Format{8, 8, 0, 127, Specials::E8M0};
      })
      .Default([](Type) { return std::nullopt; });
}

/// Builds i32/f32 code of the shape of one operand (scalar or vector).
struct Emitter {
  Emitter(OpBuilder &b, Location loc, Type like)
      : b(b), loc(loc), shape(dyn_cast<VectorType>(like)) {}

  /// `elementType` in this shape.
  Type get(Type elementType) const {
    return shape ? Type(shape.clone(elementType)) : elementType;
  }
  Type i32() const { return get(b.getI32Type()); }
  Type f32() const { return get(b.getF32Type()); }

  Value constI(int64_t v) const { return constant(b.getI32IntegerAttr(v)); }
  Value constF(float v) const { return constant(b.getF32FloatAttr(v)); }

  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, int64_t y) {
    return arith::SubIOp::create(b, loc, x, constI(y));
  }
  Value bitAnd(Value x, int64_t m) {
    return arith::AndIOp::create(b, loc, x, constI(m));
  }
  Value bitOr(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value bitOr(Value x, int64_t y) { return bitOr(x, constI(y)); }
  Value shl(Value x, int64_t n) {
    return arith::ShLIOp::create(b, loc, x, constI(n));
  }
  Value shr(Value x, int64_t n) {
    return arith::ShRUIOp::create(b, loc, x, constI(n));
  }
  Value cmp(arith::CmpIPredicate p, Value x, int64_t v) {
    return arith::CmpIOp::create(b, loc, p, x, constI(v));
  }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value select(Value c, int64_t x, Value y) { return select(c, constI(x), y); }
  Value bitcast(Type elementType, Value x) {
    return arith::BitcastOp::create(b, loc, get(elementType), x);
  }
  /// The i1 `x` as 0 or 1 (i32).
  Value toInt(Value x) { return arith::ExtUIOp::create(b, loc, i32(), x); }

  OpBuilder &b;
  Location loc;

private:
  Value constant(TypedAttr scalar) const {
    if (!shape)
      return arith::ConstantOp::create(b, loc, scalar);
    return arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(cast<ShapedType>(get(scalar.getType())),
                               scalar));
  }

  mutable VectorType shape;
};

using Pred = arith::CmpIPredicate;

/// The f32 bit pattern (i32) of the narrow float bits `v` (i32, zero
/// extended). Exact: every narrow value is an f32.
static Value extendBits(Emitter &e, Value v, const Format &f) {
  if (f.specials == Specials::E8M0) {
    // 2^(v-127); v = 0 is 2^-127, an f32 subnormal.
    Value bits = e.select(e.cmp(Pred::eq, v, 0), 0x00400000, e.shl(v, 23));
    return e.select(e.cmp(Pred::eq, v, 0xFF), 0x7FC00000, bits);
  }
  unsigned expMask = (1u << f.exponentBits) - 1;
  unsigned manMask = (1u << f.mantissaBits) - 1;
  unsigned signBit = 1u << (f.bits - 1);
  Value sign = e.shl(e.shr(v, f.bits - 1), 31);
  Value exponent = e.bitAnd(e.shr(v, f.mantissaBits), expMask);
  Value mantissa = e.bitAnd(v, manMask);
  Value normal = e.bitOr(e.shl(e.sub(exponent, f.bias - 127), 23),
                         e.shl(mantissa, 23 - f.mantissaBits));
  // Subnormals: mantissa * 2^(1 - bias - mantissaBits), exact in f32.
  Value scaled = arith::MulFOp::create(
      e.b, e.loc, arith::UIToFPOp::create(e.b, e.loc, e.f32(), mantissa),
      e.constF(std::ldexp(1.0f, 1 - f.bias - int(f.mantissaBits))));
  Value magnitude = e.select(e.cmp(Pred::eq, exponent, 0),
                             e.bitcast(e.b.getI32Type(), scaled), normal);
  Value bits = e.bitOr(magnitude, sign);
  switch (f.specials) {
  case Specials::IEEE: {
    Value special =
        e.select(e.cmp(Pred::eq, mantissa, 0), e.bitOr(sign, 0x7F800000),
                 e.bitOr(sign, 0x7FC00000));
    return e.select(e.cmp(Pred::eq, exponent, expMask), special, bits);
  }
  case Specials::FN:
    return e.select(e.cmp(Pred::eq, e.bitAnd(v, signBit - 1), signBit - 1),
                    e.bitOr(sign, 0x7FC00000), bits);
  case Specials::FNUZ:
    return e.select(e.cmp(Pred::eq, v, signBit), 0x7FC00000, bits);
  case Specials::None:
  case Specials::E8M0:
    break;
  }
  return bits;
}

/// The E8M0 bits (i32) of the f32 bit pattern `x`, rounded by `mode` as
/// onnx.numpy_helper.to_float8e8m0 does without saturation.
static Value truncateE8M0(Emitter &e, Value x,
                          std::optional<arith::RoundingMode> mode) {
  Value exponent = e.bitAnd(e.shr(x, 23), 0xFF);
  Value special = e.cmp(Pred::eq, exponent, 0xFF);
  if (mode == arith::RoundingMode::downward)
    return e.select(special, 0xFF, exponent);
  Value up;
  if (mode == arith::RoundingMode::upward) {
    up = e.cmp(Pred::ne, e.bitAnd(x, 0x7FFFFF), 0);
  } else {
    Value guard = e.cmp(Pred::ne, e.bitAnd(x, 0x400000), 0);
    Value rest = e.cmp(Pred::ne, e.bitAnd(x, 0x3FFFFF), 0);
    Value odd = e.cmp(Pred::ne, exponent, 0);
    up = arith::AndIOp::create(e.b, e.loc, guard,
                               arith::OrIOp::create(e.b, e.loc, rest, odd));
  }
  return e.select(special, 0xFF, e.add(exponent, e.toInt(up)));
}

/// The narrow bits (i32) of the f32 bit pattern `x`, rounded to nearest
/// even, without saturation.
static Value truncateBits(Emitter &e, Value x, const Format &f,
                          std::optional<arith::RoundingMode> mode) {
  if (f.specials == Specials::E8M0)
    return truncateE8M0(e, x, mode);
  unsigned m = f.mantissaBits, expMask = (1u << f.exponentBits) - 1;
  unsigned manMask = (1u << m) - 1, signBit = 1u << (f.bits - 1);
  Value sign = e.shr(x, 31);
  Value abs = e.bitAnd(x, 0x7FFFFFFF);
  // Normal results: round the f32 mantissa to m bits, ties to even (a carry
  // moves into the exponent), then rebias.
  unsigned shift = 23 - m;
  Value odd = e.bitAnd(e.shr(abs, shift), 1);
  Value rounded =
      e.shr(e.add(e.add(abs, e.constI((1u << (shift - 1)) - 1)), odd), shift);
  Value normal = e.sub(rounded, int64_t(127 - f.bias) << m);
  // Subnormal results: scale to units of the smallest subnormal and round
  // to an integer, ties to even (adding and subtracting 2^23 in f32).
  Value absF = e.bitcast(e.b.getF32Type(), abs);
  Value units = arith::MulFOp::create(
      e.b, e.loc, absF, e.constF(std::ldexp(1.0f, f.bias - 1 + int(m))));
  Value magic = e.constF(8388608.0f);
  Value integral = arith::SubFOp::create(
      e.b, e.loc, arith::AddFOp::create(e.b, e.loc, units, magic), magic);
  Value subnormal = arith::FPToUIOp::create(e.b, e.loc, e.i32(), integral);
  Value enc = e.select(e.cmp(Pred::ult, abs, int64_t(128 - f.bias) << 23),
                       subnormal, normal);
  // Beyond the largest finite value (infinity included).
  int64_t maxFinite = (int64_t(expMask) << m) | manMask, overflow, nan;
  switch (f.specials) {
  case Specials::IEEE:
    maxFinite = (int64_t(expMask - 1) << m) | manMask;
    overflow = int64_t(expMask) << m;
    nan = overflow | (1 << (m - 1));
    break;
  case Specials::FN:
    maxFinite -= 1;
    overflow = nan = signBit - 1;
    break;
  case Specials::FNUZ:
    overflow = nan = signBit;
    break;
  default:
    overflow = maxFinite;
    nan = 0;
    break;
  }
  enc = e.select(e.cmp(Pred::ugt, enc, maxFinite), overflow, enc);
  Value isNaN = e.cmp(Pred::ugt, abs, 0x7F800000);
  Value signed_ = e.bitOr(enc, e.shl(sign, f.bits - 1));
  switch (f.specials) {
  case Specials::IEEE:
  case Specials::FN:
    return e.select(isNaN, e.bitOr(e.shl(sign, f.bits - 1), nan), signed_);
  case Specials::FNUZ: {
    // No negative zero; the NaN (also the overflow) has no sign.
    Value unsignedEnc = arith::OrIOp::create(
        e.b, e.loc, e.cmp(Pred::eq, enc, 0), e.cmp(Pred::eq, enc, signBit));
    return e.select(isNaN, nan, e.select(unsignedEnc, enc, signed_));
  }
  default:
    // No NaN: ml_dtypes gives the zero of the opposite sign.
    return e.select(isNaN,
                    e.shl(e.bitAnd(e.add(sign, e.constI(1)), 1), f.bits - 1),
                    signed_);
  }
}

/// `x` (any float) as f32: narrow floats through their bits, others by
/// extf/truncf.
static Value toF32(Emitter &e, Value x) {
  Type type = getElementTypeOrSelf(x.getType());
  if (type.isF32())
    return x;
  std::optional<Format> f = getFormat(type);
  if (!f) {
    if (type.getIntOrFloatBitWidth() < 32)
      return arith::ExtFOp::create(e.b, e.loc, e.f32(), x);
    return arith::TruncFOp::create(e.b, e.loc, e.f32(), x);
  }
  Value bits = e.bitcast(e.b.getIntegerType(f->bits), x);
  Value wide = arith::ExtUIOp::create(e.b, e.loc, e.i32(), bits);
  return e.bitcast(e.b.getF32Type(), extendBits(e, wide, *f));
}

/// The f32 `x` converted to `type` (the element type).
static Value fromF32(Emitter &e, Value x, Type type,
                     std::optional<arith::RoundingMode> mode) {
  if (type.isF32())
    return x;
  std::optional<Format> f = getFormat(type);
  if (!f) {
    if (type.getIntOrFloatBitWidth() > 32)
      return arith::ExtFOp::create(e.b, e.loc, e.get(type), x);
    return arith::TruncFOp::create(e.b, e.loc, e.get(type), x);
  }
  Value bits = truncateBits(e, e.bitcast(e.b.getI32Type(), x), *f, mode);
  Value narrow = arith::TruncIOp::create(
      e.b, e.loc, e.get(e.b.getIntegerType(f->bits)), bits);
  return e.bitcast(type, narrow);
}

/// Whether `op` (extf or truncf) converts from or to a narrow float.
static bool isNarrowCast(Operation *op) {
  return getFormat(getElementTypeOrSelf(op->getOperand(0).getType())) ||
         getFormat(getElementTypeOrSelf(op->getResult(0).getType()));
}

struct ExpandNarrowFloatCastsPass
    : public mlprog::impl::ExpandNarrowFloatCastsPassBase<
          ExpandNarrowFloatCastsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<Operation *> casts;
    getOperation()->walk([&](Operation *op) {
      if (isa<arith::ExtFOp, arith::TruncFOp>(op) && isNarrowCast(op))
        casts.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : casts) {
      rewriter.setInsertionPoint(op);
      Emitter e(rewriter, op->getLoc(), op->getResult(0).getType());
      std::optional<arith::RoundingMode> mode;
      if (auto trunc = dyn_cast<arith::TruncFOp>(op))
        mode = trunc.getRoundingmode();
      Value wide = toF32(e, op->getOperand(0));
      rewriter.replaceOp(
          op, fromF32(e, wide, getElementTypeOrSelf(op->getResult(0)), mode));
    }
  }
};

} // namespace
