//===- Signal.cpp - Fourier transforms and filter banks -------------------===//

//
// Direct sums: one linalg.generic whose loops are the output dims plus a
// reduction over the input samples; the twiddle angle uses (j * k) mod n in
// index arithmetic so that it stays exact for long signals.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Import/Common/Signal.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

namespace {

constexpr double kPi = 3.14159265358979323846;

/// The real (`part` 0) or imaginary (1) plane of a [..., 2] tensor, or the
/// whole of a [..., 1] one, with the trailing dim dropped.
Value plane(OpBuilder &b, Location loc, Value x, int64_t part) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  offsets.back() = b.getIndexAttr(part);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  sizes.back() = b.getIndexAttr(1);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  auto resultType =
      RankedTensorType::get(type.getShape().drop_back(), type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, resultType, x, offsets, sizes,
                                        strides);
}

/// Accumulates `acc + scale * (xr + i xi) * exp(i sign 2 pi m / n)` into the
/// real (c == 0) or imaginary part; `xi` may be null (real input), `n` is
/// an index value, m = (j * k) mod n.
Value twiddleAccumulate(OpBuilder &b, Location loc, Type elt, Value xr,
                        Value xi, Value acc, Value j, Value k, Value c, Value n,
                        double sign, Value scale) {
  Value m =
      arith::RemUIOp::create(b, loc, arith::MulIOp::create(b, loc, j, k), n);
  // The twiddle factor is computed in f64: in f32, sin(pi) alone is off by
  // 1e-7, which a large sample turns into a visible non-zero.
  Type f64 = b.getF64Type();
  auto toF64 = [&](Value idx) {
    Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), idx);
    return arith::SIToFPOp::create(b, loc, f64, i64).getResult();
  };
  Value angle = arith::DivFOp::create(
      b, loc,
      arith::MulFOp::create(b, loc, toF64(m),
                            createScalar(b, loc, f64, sign * 2 * kPi)),
      toF64(n));
  auto toElt = [&](Value v) {
    return elt == f64 ? v : arith::TruncFOp::create(b, loc, elt, v).getResult();
  };
  Value cos = toElt(math::CosOp::create(b, loc, angle));
  Value sin = toElt(math::SinOp::create(b, loc, angle));
  // (xr + i xi)(cos + i sin) = (xr cos - xi sin) + i (xr sin + xi cos).
  Value re = arith::MulFOp::create(b, loc, xr, cos);
  Value im = arith::MulFOp::create(b, loc, xr, sin);
  if (xi) {
    re = arith::SubFOp::create(b, loc, re,
                               arith::MulFOp::create(b, loc, xi, sin));
    im = arith::AddFOp::create(b, loc, im,
                               arith::MulFOp::create(b, loc, xi, cos));
  }
  Value isReal =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, c,
                            arith::ConstantIndexOp::create(b, loc, 0));
  Value term = arith::SelectOp::create(b, loc, isReal, re, im);
  if (scale)
    term = arith::MulFOp::create(b, loc, term, scale);
  return arith::AddFOp::create(b, loc, acc, term);
}

/// Checks a float [..., 1 or 2] tensor; returns whether it is complex.
FailureOr<bool> checkSignal(Location loc, Value x, StringRef what) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, what);
  if (failed(type))
    return failure();
  if (!isa<FloatType>(type->getElementType()))
    return emitError(loc) << what << ": expected a float tensor, got "
                          << x.getType();
  if (type->getRank() < 2 ||
      (type->getShape().back() != 1 && type->getShape().back() != 2))
    return emitError(loc) << what
                          << ": the trailing extent must be 1 (real) or 2 "
                             "(complex), got "
                          << x.getType();
  return type->getShape().back() == 2;
}

} // namespace

/// Extent [offset, offset + size) of `x` along `axis` (static).
static Value sliceAxis(OpBuilder &b, Location loc, Value x, int64_t axis,
                       int64_t offset, int64_t size) {
  int64_t rank = cast<RankedTensorType>(x.getType()).getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  offsets[axis] = b.getIndexAttr(offset);
  sizes[axis] = b.getIndexAttr(size);
  return tensor::ExtractSliceOp::create(b, loc, x, offsets, sizes, strides);
}

FailureOr<Value> mlprog::buildDFT(OpBuilder &b, Location loc, Value x,
                                  int64_t axis, std::optional<int64_t> length,
                                  bool inverse, bool onesided) {
  FailureOr<bool> complex = checkSignal(loc, x, "DFT");
  if (failed(complex))
    return failure();
  auto type = cast<RankedTensorType>(x.getType());
  Type elt = type.getElementType();
  int64_t rank = type.getRank();
  if (axis < 0 || axis >= rank - 1)
    return emitError(loc) << "DFT: axis " << axis << " out of range for "
                          << x.getType();
  if (onesided && inverse)
    return emitError(loc) << "DFT: onesided and inverse are exclusive";
  int64_t inLength = type.getDimSize(axis);
  if (ShapedType::isDynamic(inLength))
    return emitError(loc) << "unsupported DFT along a dynamic extent";
  int64_t n = length.value_or(inLength);
  if (n <= 0)
    return emitError(loc) << "DFT: length must be positive, got " << n;
  // Samples past n are dropped; missing ones are zeros (left out of the
  // sum).
  if (inLength > n)
    x = sliceAxis(b, loc, x, axis, 0, n);
  Value xr = plane(b, loc, x, 0);
  Value xi = *complex ? plane(b, loc, x, 1) : Value();

  int64_t outLength = onesided ? n / 2 + 1 : n;
  SmallVector<OpFoldResult> outSizes = tensor::getMixedSizes(b, loc, x);
  outSizes[axis] = b.getIndexAttr(outLength);
  outSizes.back() = b.getIndexAttr(2);
  Value init = createFilled(b, loc, outSizes, b.getFloatAttr(elt, 0.0));

  // Loops: the rank output dims (the last one real/imaginary), then j.
  MLIRContext *ctx = b.getContext();
  unsigned numLoops = rank + 1;
  SmallVector<AffineExpr> inExprs;
  for (int64_t d = 0; d < rank - 1; ++d)
    inExprs.push_back(getAffineDimExpr(d == axis ? rank : d, ctx));
  AffineMap inMap = AffineMap::get(numLoops, 0, inExprs, ctx);
  AffineMap outMap =
      AffineMap::getMultiDimIdentityMap(numLoops, ctx)
          .getSubMap(llvm::to_vector(llvm::seq<unsigned>(0, rank)));
  SmallVector<Value> inputs = {xr};
  if (xi)
    inputs.push_back(xi);
  SmallVector<AffineMap> maps(inputs.size(), inMap);
  maps.push_back(outMap);
  SmallVector<utils::IteratorType> iterators = parallelIterators(rank);
  iterators.push_back(utils::IteratorType::reduction);
  double sign = inverse ? 1.0 : -1.0;
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value k = linalg::IndexOp::create(nb, l, axis);
        Value c = linalg::IndexOp::create(nb, l, rank - 1);
        Value j = linalg::IndexOp::create(nb, l, rank);
        Value nv = arith::ConstantIndexOp::create(nb, l, n);
        Value scale =
            inverse ? createScalar(nb, l, elt, 1.0 / double(n)) : Value();
        Value result =
            twiddleAccumulate(nb, l, elt, args[0], xi ? args[1] : Value(),
                              args.back(), j, k, c, nv, sign, scale);
        linalg::YieldOp::create(nb, l, result);
      });
  return generic.getResult(0);
}

FailureOr<Value> mlprog::buildInverseRealDFT(OpBuilder &b, Location loc,
                                             Value x, int64_t axis,
                                             std::optional<int64_t> length) {
  FailureOr<bool> complex = checkSignal(loc, x, "inverse real DFT");
  if (failed(complex))
    return failure();
  auto type = cast<RankedTensorType>(x.getType());
  Type elt = type.getElementType();
  int64_t rank = type.getRank();
  if (axis < 0 || axis >= rank - 1)
    return emitError(loc) << "inverse real DFT: axis " << axis
                          << " out of range for " << x.getType();
  int64_t m = type.getDimSize(axis);
  if (ShapedType::isDynamic(m))
    return emitError(loc)
           << "unsupported inverse real DFT along a dynamic extent";
  int64_t n = length.value_or(2 * (m - 1));
  if (n <= 0)
    return emitError(loc) << "inverse real DFT: length must be positive, got "
                          << n;
  // A real input is a spectrum with zero imaginary parts.
  if (!*complex) {
    SmallVector<int64_t> high(rank, 0);
    high.back() = 1;
    x = padStatic(b, loc, x, SmallVector<int64_t>(rank, 0), high,
                  b.getFloatAttr(elt, 0.0));
  }
  // The non-redundant half X[0 .. h): truncated or zero-padded to h.
  int64_t h = n / 2 + 1;
  Value half = sliceAxis(b, loc, x, axis, 0, std::min(m, h));
  if (m < h) {
    SmallVector<int64_t> high(rank, 0);
    high[axis] = h - m;
    half = padStatic(b, loc, half, SmallVector<int64_t>(rank, 0), high,
                     b.getFloatAttr(elt, 0.0));
  }
  // The full spectrum: X[k] = conj(X[n - k]) for k in [h, n).
  SmallVector<Value> parts = {half};
  if (n - h > 0) {
    FailureOr<Value> mirrored =
        buildReverse(b, loc, sliceAxis(b, loc, half, axis, 1, n - h), {axis});
    if (failed(mirrored))
      return failure();
    SmallVector<int64_t> shape(rank, 1);
    shape.back() = 2;
    auto signType = RankedTensorType::get(shape, elt);
    Value sign = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(signType,
                               ArrayRef<Attribute>{b.getFloatAttr(elt, 1.0),
                                                   b.getFloatAttr(elt, -1.0)}));
    FailureOr<Value> conj =
        buildElementwiseBinary(b, loc, BinaryOpKind::Mul, *mirrored, sign);
    if (failed(conj))
      return failure();
    parts.push_back(*conj);
  }
  FailureOr<Value> full = parts.size() == 1 ? FailureOr<Value>(half)
                                            : buildConcat(b, loc, parts, axis);
  if (failed(full))
    return failure();
  // Hermitian symmetry makes the inverse real up to the imaginary parts of
  // X[0] (and X[n / 2]), which numpy and ONNX drop: keep the real plane.
  FailureOr<Value> y = buildDFT(b, loc, *full, axis, n, /*inverse=*/true,
                                /*onesided=*/false);
  if (failed(y))
    return failure();
  return sliceAxis(b, loc, *y, rank - 1, 0, 1);
}

FailureOr<Value> mlprog::buildSTFT(OpBuilder &b, Location loc, Value signal,
                                   Value frameStep, Value window,
                                   Value frameLength, bool onesided) {
  FailureOr<bool> complex = checkSignal(loc, signal, "STFT");
  if (failed(complex))
    return failure();
  auto type = cast<RankedTensorType>(signal.getType());
  Type elt = type.getElementType();
  if (type.getRank() != 3)
    return emitError(loc) << "STFT: signal must be [batch, length, 1 or 2], "
                             "got "
                          << signal.getType();
  if (window) {
    auto wt = dyn_cast<RankedTensorType>(window.getType());
    if (!wt || wt.getRank() != 1 || wt.getElementType() != elt)
      return emitError(loc) << "STFT: window must be a 1-D tensor of " << elt
                            << ", got " << window.getType();
  } else {
    // A window of ones gives the reduction its extent.
    window = createFilled(b, loc, {OpFoldResult(frameLength)},
                          b.getFloatAttr(elt, 1.0));
  }
  Value xr = plane(b, loc, signal, 0);
  Value xi = *complex ? plane(b, loc, signal, 1) : Value();

  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value two = arith::ConstantIndexOp::create(b, loc, 2);
  Value len = tensor::DimOp::create(b, loc, signal, 1);
  Value frames = arith::AddIOp::create(
      b, loc,
      arith::DivUIOp::create(
          b, loc, arith::SubIOp::create(b, loc, len, frameLength), frameStep),
      one);
  Value bins =
      onesided
          ? arith::AddIOp::create(
                b, loc, arith::DivUIOp::create(b, loc, frameLength, two), one)
                .getResult()
          : frameLength;
  SmallVector<OpFoldResult> outSizes = {
      tensor::getMixedSize(b, loc, signal, 0), getAsOpFoldResult(frames),
      getAsOpFoldResult(bins), b.getIndexAttr(2)};
  Value init = createFilled(b, loc, outSizes, b.getFloatAttr(elt, 0.0));

  // Loops (batch, frame, bin, real/imag, sample); the signal is read with
  // tensor.extract at frame * step + sample.
  MLIRContext *ctx = b.getContext();
  AffineMap windowMap = AffineMap::get(5, 0, {getAffineDimExpr(4, ctx)}, ctx);
  AffineMap outMap =
      AffineMap::get(5, 0,
                     {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx),
                      getAffineDimExpr(2, ctx), getAffineDimExpr(3, ctx)},
                     ctx);
  SmallVector<utils::IteratorType> iterators = parallelIterators(4);
  iterators.push_back(utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{window}, ValueRange{init},
      ArrayRef<AffineMap>{windowMap, outMap}, iterators,
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value batch = linalg::IndexOp::create(nb, l, 0);
        Value f = linalg::IndexOp::create(nb, l, 1);
        Value k = linalg::IndexOp::create(nb, l, 2);
        Value c = linalg::IndexOp::create(nb, l, 3);
        Value j = linalg::IndexOp::create(nb, l, 4);
        Value pos = arith::AddIOp::create(
            nb, l, arith::MulIOp::create(nb, l, f, frameStep), j);
        Value w = args[0];
        Value re = arith::MulFOp::create(
            nb, l, w,
            tensor::ExtractOp::create(nb, l, xr, ValueRange{batch, pos}));
        Value im;
        if (xi)
          im = arith::MulFOp::create(
              nb, l, w,
              tensor::ExtractOp::create(nb, l, xi, ValueRange{batch, pos}));
        Value result = twiddleAccumulate(nb, l, elt, re, im, args[1], j, k, c,
                                         frameLength, -1.0, Value());
        linalg::YieldOp::create(nb, l, result);
      });
  return generic.getResult(0);
}

FailureOr<Value> mlprog::buildMelWeightMatrix(OpBuilder &b, Location loc,
                                              Value numMelBins, Value dftLength,
                                              Value sampleRate, Value lowerHz,
                                              Value upperHz, Type elementType) {
  if (!isa<FloatType>(elementType))
    return emitError(loc) << "MelWeightMatrix: the output must be float, got "
                          << elementType;
  Type f64 = b.getF64Type();
  auto c = [&](double v) { return createScalar(b, loc, f64, v); };
  auto toF64 = [&](OpBuilder &nb, Location l, Value idx) {
    Value i64 = arith::IndexCastOp::create(nb, l, nb.getI64Type(), idx);
    return arith::SIToFPOp::create(nb, l, f64, i64).getResult();
  };
  auto hzToMel = [&](Value hz) {
    Value ratio = arith::DivFOp::create(b, loc, hz, c(700));
    Value log = math::Log10Op::create(
        b, loc, arith::AddFOp::create(b, loc, c(1), ratio));
    return arith::MulFOp::create(b, loc, c(2595), log).getResult();
  };
  Value lowMel = hzToMel(lowerHz);
  Value highMel = hzToMel(upperHz);
  Value two = arith::ConstantIndexOp::create(b, loc, 2);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value melStep = arith::DivFOp::create(
      b, loc, arith::SubFOp::create(b, loc, highMel, lowMel),
      toF64(b, loc, arith::AddIOp::create(b, loc, numMelBins, two)));
  Value scale = arith::DivFOp::create(
      b, loc, toF64(b, loc, arith::AddIOp::create(b, loc, dftLength, one)),
      sampleRate);
  Value rows = arith::AddIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, dftLength, two), one);
  Value init = createEmpty(
      b, loc, {OpFoldResult(rows), OpFoldResult(numMelBins)}, elementType);
  MLIRContext *ctx = b.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{}, ValueRange{init},
      ArrayRef<AffineMap>{id}, parallelIterators(2),
      [&](OpBuilder &nb, Location l, ValueRange) {
        auto k = [&](double v) { return createScalar(nb, l, f64, v); };
        Value j = toF64(nb, l, linalg::IndexOp::create(nb, l, 0));
        Value i = linalg::IndexOp::create(nb, l, 1);
        // The spectrogram bin of mel edge point p.
        auto edge = [&](int64_t offset) {
          Value p = toF64(
              nb, l,
              arith::AddIOp::create(
                  nb, l, i, arith::ConstantIndexOp::create(nb, l, offset)));
          Value mel = arith::AddFOp::create(
              nb, l, arith::MulFOp::create(nb, l, p, melStep), lowMel);
          Value pow = math::PowFOp::create(
              nb, l, k(10), arith::DivFOp::create(nb, l, mel, k(2595)));
          Value hz = arith::MulFOp::create(
              nb, l, k(700), arith::SubFOp::create(nb, l, pow, k(1)));
          return math::FloorOp::create(nb, l,
                                       arith::MulFOp::create(nb, l, hz, scale))
              .getResult();
        };
        Value lo = edge(0), mid = edge(1), hi = edge(2);
        auto cmp = [&](arith::CmpFPredicate pred, Value x, Value y) {
          return arith::CmpFOp::create(nb, l, pred, x, y).getResult();
        };
        auto sel = [&](Value cond, Value x, Value y) {
          return arith::SelectOp::create(nb, l, cond, x, y).getResult();
        };
        auto andi = [&](Value x, Value y) {
          return arith::AndIOp::create(nb, l, x, y).getResult();
        };
        using P = arith::CmpFPredicate;
        // Rising edge on [lo, mid] (a single 1 at mid when lo == mid), then
        // the falling edge on [mid, hi) overrides.
        Value rising =
            sel(cmp(P::OEQ, lo, mid), sel(cmp(P::OEQ, j, mid), k(1), k(0)),
                sel(andi(cmp(P::OGE, j, lo), cmp(P::OLE, j, mid)),
                    arith::DivFOp::create(
                        nb, l, arith::SubFOp::create(nb, l, j, lo),
                        arith::SubFOp::create(nb, l, mid, lo)),
                    k(0)));
        Value falling =
            arith::DivFOp::create(nb, l, arith::SubFOp::create(nb, l, hi, j),
                                  arith::SubFOp::create(nb, l, hi, mid));
        Value inFalling = andi(cmp(P::OGT, hi, mid),
                               andi(cmp(P::OGE, j, mid), cmp(P::OLT, j, hi)));
        Value w = sel(inFalling, falling, rising);
        if (elementType != f64)
          w = arith::TruncFOp::create(nb, l, elementType, w);
        linalg::YieldOp::create(nb, l, w);
      });
  return generic.getResult(0);
}
