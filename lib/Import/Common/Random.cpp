//===- Random.cpp - Counter-based random numbers and Dropout --------------===//

#include "mlprog/Import/Common/Random.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

/// SplitMix64's finalizer applied to seed * golden + index + 1 (Steele,
/// Lea and Flood, "Fast splittable pseudorandom number generators", 2014):
/// consecutive indices give independent-looking 64-bit words.
static Value splitMix64(OpBuilder &b, Location loc, Value index,
                        uint64_t seed) {
  Type i64 = b.getI64Type();
  auto c = [&](uint64_t v) {
    return arith::ConstantIntOp::create(b, loc, i64, int64_t(v)).getResult();
  };
  auto xorShift = [&](Value z, int64_t s) {
    return arith::XOrIOp::create(b, loc, z,
                                 arith::ShRUIOp::create(b, loc, z, c(s)));
  };
  const uint64_t golden = 0x9E3779B97F4A7C15ull;
  Value z = arith::AddIOp::create(b, loc, index, c(1));
  z = arith::MulIOp::create(b, loc, z, c(golden));
  z = arith::AddIOp::create(b, loc, z, c(seed * golden));
  z = arith::MulIOp::create(b, loc, xorShift(z, 30), c(0xBF58476D1CE4E5B9ull));
  z = arith::MulIOp::create(b, loc, xorShift(z, 27), c(0x94D049BB133111EBull));
  return xorShift(z, 31);
}

Value mlprog::buildUniformScalar(OpBuilder &b, Location loc, Value linearIndex,
                                 Type elementType, uint64_t seed) {
  auto floatType = cast<FloatType>(elementType);
  // p bits convert to the float type exactly, and so does the scaling.
  unsigned precision = std::min(64u, unsigned(APFloat::semanticsPrecision(
                                         floatType.getFloatSemantics())));
  Value bits = splitMix64(b, loc, linearIndex, seed);
  Value top = arith::ShRUIOp::create(
      b, loc, bits,
      arith::ConstantIntOp::create(b, loc, b.getI64Type(), 64 - precision));
  Value asFloat = arith::UIToFPOp::create(b, loc, floatType, top);
  Value scale = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(floatType, std::ldexp(1.0, -int(precision))));
  return arith::MulFOp::create(b, loc, asFloat, scale);
}

/// The row-major index (i64) of the current element of a `linalg.generic`
/// over `x`'s dimensions; `sizes` are x's extents as index Values.
static Value linearIndex(OpBuilder &b, Location loc, ArrayRef<Value> sizes) {
  Value linear = arith::ConstantIndexOp::create(b, loc, 0);
  for (auto [d, size] : llvm::enumerate(sizes)) {
    linear = arith::MulIOp::create(b, loc, linear, size);
    linear = arith::AddIOp::create(b, loc, linear,
                                   linalg::IndexOp::create(b, loc, d));
  }
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), linear);
}

FailureOr<DropoutResult> mlprog::buildDropout(OpBuilder &b, Location loc,
                                              Value x, Value ratio,
                                              Value trainingMode,
                                              uint64_t seed) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || !isa<FloatType>(type.getElementType()))
    return emitError(loc) << "Dropout needs a ranked float tensor, got "
                          << x.getType();
  Type elementType = type.getElementType();
  Type i1 = b.getI1Type();
  auto scalarOf = [&](Value v, Type want) -> FailureOr<Value> {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || !t.hasStaticShape() || t.getNumElements() != 1 ||
        t.getElementType() != want)
      return failure();
    if (t.getRank() == 0)
      return v;
    SmallVector<Value> zeros(t.getRank(),
                             arith::ConstantIndexOp::create(b, loc, 0));
    return tensor::FromElementsOp::create(
               b, loc, RankedTensorType::get({}, want),
               ValueRange{tensor::ExtractOp::create(b, loc, v, zeros)})
        .getResult();
  };
  if (!ratio)
    ratio = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get({}, elementType),
                               Attribute(b.getFloatAttr(elementType, 0.5))));
  auto ratioType = dyn_cast<RankedTensorType>(ratio.getType());
  if (!ratioType || !isa<FloatType>(ratioType.getElementType()))
    return emitError(loc) << "Dropout ratio must be a float scalar, got "
                          << ratio.getType();
  FailureOr<Value> ratio0 = scalarOf(ratio, ratioType.getElementType());
  if (failed(ratio0))
    return emitError(loc) << "Dropout ratio must be a scalar, got "
                          << ratio.getType();
  if (!trainingMode)
    trainingMode = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(RankedTensorType::get({}, i1), false));
  FailureOr<Value> training0 = scalarOf(trainingMode, i1);
  if (failed(training0))
    return emitError(loc) << "Dropout training_mode must be a bool scalar, "
                             "got "
                          << trainingMode.getType();

  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> mixed = tensor::getMixedSizes(b, loc, x);
  SmallVector<Value> sizes;
  for (OpFoldResult s : mixed)
    sizes.push_back(getValueOrCreateConstantIndexOp(b, loc, s));
  MLIRContext *ctx = b.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap scalar = AffineMap::get(rank, 0, ctx);
  Value outInit = createEmpty(b, loc, mixed, elementType);
  Value maskInit = createEmpty(b, loc, mixed, i1);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type, RankedTensorType::get(type.getShape(), i1)},
      ValueRange{x, *ratio0, *training0}, ValueRange{outInit, maskInit},
      ArrayRef<AffineMap>{identity, scalar, scalar, identity, identity},
      parallelIterators(rank),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value value = args[0], training = args[2];
        Value r = buildConvertScalar(nb, nloc, args[1], elementType);
        Value u = buildUniformScalar(nb, nloc, linearIndex(nb, nloc, sizes),
                                     elementType, seed);
        Value keep =
            arith::CmpFOp::create(nb, nloc, arith::CmpFPredicate::OGE, u, r);
        Value one = arith::ConstantOp::create(
            nb, nloc, nb.getFloatAttr(elementType, 1.0));
        Value zero = arith::ConstantOp::create(
            nb, nloc, nb.getFloatAttr(elementType, 0.0));
        // x * (1 / (1 - ratio)), as the ONNX reference scales.
        Value scale = arith::DivFOp::create(
            nb, nloc, one, arith::SubFOp::create(nb, nloc, one, r));
        Value scaled = arith::SelectOp::create(
            nb, nloc, keep, arith::MulFOp::create(nb, nloc, value, scale),
            zero);
        Value out = arith::SelectOp::create(nb, nloc, training, scaled, value);
        Value allTrue = arith::ConstantIntOp::create(nb, nloc, i1, 1);
        Value mask = arith::SelectOp::create(nb, nloc, training, keep, allTrue);
        linalg::YieldOp::create(nb, nloc, ValueRange{out, mask});
      });
  return DropoutResult{generic.getResult(0), generic.getResult(1)};
}
