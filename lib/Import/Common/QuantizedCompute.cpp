//===- QuantizedCompute.cpp - Ops on quantized tensors --------------------===//
//
// The quantized elementwise, pooling and Gemm ops that onnxruntime's
// quantization tools emit in the QOperator format (com.microsoft QLinearAdd,
// QLinearMul, QLinearGlobalAveragePool, QGemm), composed from the
// quantize/dequantize, pooling and integer matmul builders.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Pool.h"
#include "mlprog/Import/Common/Quantization.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <numeric>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

static FailureOr<Value> dequantize(OpBuilder &b, Location loc,
                                   const QuantizedValue &q) {
  return buildDequantizeLinear(b, loc, q.value, q.scale, q.zeroPoint,
                               std::nullopt, q.isUnsigned);
}

FailureOr<Value> mlprog::buildQLinearBinary(OpBuilder &b, Location loc,
                                            BinaryOpKind kind,
                                            const QuantizedValue &a,
                                            const QuantizedValue &bq,
                                            Value yScale, Value yZeroPoint,
                                            QuantizedType result) {
  if (kind != BinaryOpKind::Add && kind != BinaryOpKind::Mul)
    return emitError(loc) << "quantized binary op: only Add and Mul";
  FailureOr<Value> x = dequantize(b, loc, a), y = dequantize(b, loc, bq);
  if (failed(x) || failed(y))
    return failure();
  FailureOr<Value> r = buildElementwiseBinary(b, loc, kind, *x, *y);
  if (failed(r))
    return failure();
  return buildQuantizeLinear(b, loc, *r, yScale, yZeroPoint, std::nullopt,
                             result);
}

FailureOr<Value> mlprog::buildQLinearGlobalAveragePool(
    OpBuilder &b, Location loc, const QuantizedValue &x, Value yScale,
    Value yZeroPoint, QuantizedType result, bool channelsLast) {
  FailureOr<Value> input = dequantize(b, loc, x);
  if (failed(input))
    return failure();
  auto type = cast<RankedTensorType>(input->getType());
  int64_t rank = type.getRank();
  if (rank < 3)
    return emitError(loc) << "quantized global average pool: input of rank "
                          << rank << ", expected at least 3";
  // Channels last: [N, D..., C] -> [N, C, D...] and back.
  SmallVector<int64_t> toFirst, toLast;
  if (channelsLast) {
    toFirst.push_back(0);
    toFirst.push_back(rank - 1);
    for (int64_t i = 1; i < rank - 1; ++i)
      toFirst.push_back(i);
    toLast.resize(rank);
    for (int64_t i = 0; i < rank; ++i)
      toLast[toFirst[i]] = i;
    input = buildTranspose(b, loc, *input, toFirst);
    if (failed(input))
      return failure();
  }
  FailureOr<Value> mean = buildGlobalAveragePool(b, loc, *input);
  if (failed(mean))
    return failure();
  if (channelsLast) {
    mean = buildTranspose(b, loc, *mean, toLast);
    if (failed(mean))
      return failure();
  }
  return buildQuantizeLinear(b, loc, *mean, yScale, yZeroPoint, std::nullopt,
                             result);
}

FailureOr<Value> mlprog::buildQGemm(OpBuilder &b, Location loc,
                                    const QuantizedValue &a,
                                    const QuantizedValue &bq, Value c,
                                    Value yScale, Value yZeroPoint,
                                    std::optional<QuantizedType> result,
                                    double alpha, bool transA, bool transB) {
  auto aType = dyn_cast<RankedTensorType>(a.value.getType());
  auto bType = dyn_cast<RankedTensorType>(bq.value.getType());
  if (!aType || !bType || aType.getRank() != 2 || bType.getRank() != 2)
    return emitError(loc) << "QGemm: A and B must be 2-D tensors";
  Value lhs = a.value, rhs = bq.value;
  if (transA) {
    FailureOr<Value> t = buildTranspose(b, loc, lhs, {1, 0});
    if (failed(t))
      return failure();
    lhs = *t;
  }
  if (transB) {
    FailureOr<Value> t = buildTranspose(b, loc, rhs, {1, 0});
    if (failed(t))
      return failure();
    rhs = *t;
  }
  FailureOr<Value> acc = buildMatMulInteger(
      b, loc, lhs, rhs, a.zeroPoint, bq.zeroPoint, a.isUnsigned, bq.isUnsigned);
  if (failed(acc))
    return failure();
  if (c) {
    acc = buildElementwiseBinary(b, loc, BinaryOpKind::Add, *acc, c);
    if (failed(acc))
      return failure();
  }
  Value scaleA = a.scale;
  if (alpha != 1.0) {
    auto scaleType = cast<RankedTensorType>(scaleA.getType());
    Value alphaT = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(
            RankedTensorType::get({}, scaleType.getElementType()),
            b.getFloatAttr(scaleType.getElementType(), alpha)));
    FailureOr<Value> scaled =
        buildElementwiseBinary(b, loc, BinaryOpKind::Mul, scaleA, alphaT);
    if (failed(scaled))
      return failure();
    scaleA = *scaled;
  }
  if (result)
    return buildRequantize(b, loc, *acc, scaleA, bq.scale, yScale, yZeroPoint,
                           *result);
  // A float result: acc * scaleA * scaleB (/ yScale).
  SmallVector<Value> operands = {*acc, scaleA, bq.scale};
  if (yScale)
    operands.push_back(yScale);
  Type f32 = b.getF32Type();
  return buildBroadcastedGeneric(
      b, loc, operands, f32, [&](OpBuilder &nb, Location nl, ValueRange v) {
        auto toF32 = [&](Value x) -> Value {
          if (isa<IntegerType>(x.getType()))
            return arith::SIToFPOp::create(nb, nl, f32, x);
          if (x.getType() != f32)
            return arith::ExtFOp::create(nb, nl, f32, x);
          return x;
        };
        Value r = arith::MulFOp::create(
            nb, nl, toF32(v[0]),
            arith::MulFOp::create(nb, nl, toF32(v[1]), toF32(v[2])));
        if (v.size() > 3)
          r = arith::DivFOp::create(nb, nl, r, toF32(v[3]));
        return r;
      });
}
