//===- Creation.cpp - Tensor creation builders ----------------------------===//

#include "mlprog/Import/Common/Creation.h"
#include "Utils.h"
#include "mlprog/Import/Common/Convert.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

FailureOr<Value> mlprog::buildFull(OpBuilder &b, Location loc,
                                   ArrayRef<OpFoldResult> sizes,
                                   Type elementType, Value value) {
  Value scalar = buildConvertScalar(b, loc, value, elementType);
  if (!scalar)
    return emitError(loc) << "full: cannot fill " << elementType
                          << " with a value of type " << value.getType();
  Value empty = createEmpty(b, loc, sizes, elementType);
  return linalg::FillOp::create(b, loc, ValueRange{scalar}, ValueRange{empty})
      .getResult(0);
}

FailureOr<Value> mlprog::buildArange(OpBuilder &b, Location loc, double start,
                                     double end, double step,
                                     Type elementType) {
  if (step == 0)
    return emitError(loc) << "arange: step must be nonzero";
  if (!elementType.isIntOrFloat())
    return emitError(loc) << "arange: unsupported element type " << elementType;
  int64_t n = std::max<int64_t>(0, int64_t(std::ceil((end - start) / step)));
  Value init = createEmpty(b, loc, {b.getIndexAttr(n)}, elementType);
  MLIRContext *ctx = b.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
  bool isFloat = isa<FloatType>(elementType);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{}, init,
             SmallVector<AffineMap>{id}, parallelIterators(1),
             [&](OpBuilder &nb, Location nl, ValueRange) {
               Value i = linalg::IndexOp::create(nb, nl, 0);
               Value i64 =
                   arith::IndexCastOp::create(nb, nl, nb.getI64Type(), i);
               Value v;
               if (isFloat) {
                 Value f =
                     arith::SIToFPOp::create(nb, nl, nb.getF64Type(), i64);
                 v = arith::AddFOp::create(
                     nb, nl, createScalar(nb, nl, nb.getF64Type(), start),
                     arith::MulFOp::create(
                         nb, nl, f,
                         createScalar(nb, nl, nb.getF64Type(), step)));
               } else {
                 v = arith::AddIOp::create(
                     nb, nl, createScalar(nb, nl, nb.getI64Type(), start),
                     arith::MulIOp::create(
                         nb, nl, i64,
                         createScalar(nb, nl, nb.getI64Type(), step)));
               }
               linalg::YieldOp::create(
                   nb, nl, buildConvertScalar(nb, nl, v, elementType));
             })
      .getResult(0);
}
