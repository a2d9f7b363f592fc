//===- AffineGrid.cpp - Sampling grids of affine transformations ----------===//
//
// buildAffineGrid: one linalg.generic over the grid [N, (D,) H, W, k] whose
// body computes the normalized coordinates of its position and row k of
// theta applied to them.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"
#include "mlprog/Import/Common/Resample.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

FailureOr<Value> mlprog::buildAffineGrid(OpBuilder &b, Location loc,
                                         Value theta,
                                         ArrayRef<OpFoldResult> sizes,
                                         bool alignCorners) {
  auto tt = dyn_cast<RankedTensorType>(theta.getType());
  if (!tt || tt.getRank() != 3 || !isa<FloatType>(tt.getElementType()))
    return emitError(loc) << "affine grid: theta must be a float [N, 2, 3] or "
                             "[N, 3, 4] tensor, got "
                          << theta.getType();
  int64_t spatial = tt.getDimSize(1);
  if ((spatial != 2 && spatial != 3) || tt.getDimSize(2) != spatial + 1)
    return emitError(loc) << "affine grid: theta " << tt
                          << " is neither [N, 2, 3] nor [N, 3, 4]";
  if (int64_t(sizes.size()) != spatial + 2)
    return emitError(loc) << "affine grid: " << sizes.size() << " sizes for a "
                          << spatial << "-D grid";
  Type et = tt.getElementType();
  // [N, (D,) H, W, spatial]; sizes[2..] are (D,) H, W.
  SmallVector<OpFoldResult> outSizes = {
      tensor::getMixedSizes(b, loc, theta)[0]};
  SmallVector<Value> extents;
  for (int64_t i = 0; i < spatial; ++i) {
    outSizes.push_back(sizes[2 + i]);
    extents.push_back(getValueOrCreateConstantIndexOp(b, loc, sizes[2 + i]));
  }
  outSizes.push_back(b.getIndexAttr(spatial));
  Value init = createEmpty(b, loc, outSizes, et);
  int64_t rank = spatial + 2;
  AffineMap id = AffineMap::getMultiDimIdentityMap(rank, b.getContext());
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{}, ValueRange{init},
             SmallVector<AffineMap>{id}, parallelIterators(rank),
             [&](OpBuilder &nb, Location nl, ValueRange) {
               Type f64 = nb.getF64Type();
               auto cf = [&](double v) -> Value {
                 return arith::ConstantOp::create(nb, nl,
                                                  nb.getFloatAttr(f64, v));
               };
               auto toF = [&](Value i) -> Value {
                 Value i64 =
                     arith::IndexCastOp::create(nb, nl, nb.getI64Type(), i);
                 return arith::SIToFPOp::create(nb, nl, f64, i64);
               };
               Value n = linalg::IndexOp::create(nb, nl, 0);
               Value k = linalg::IndexOp::create(nb, nl, rank - 1);
               // coords[j]: x along the last spatial dim, then y, then z.
               SmallVector<Value> coords;
               for (int64_t j = 0; j < spatial; ++j) {
                 int64_t dim = spatial - j; // W is loop dim `spatial`
                 Value i = toF(linalg::IndexOp::create(nb, nl, dim));
                 Value size = toF(extents[dim - 1]);
                 Value c;
                 if (alignCorners) {
                   Value denom = arith::SubFOp::create(nb, nl, size, cf(1.0));
                   Value step = arith::DivFOp::create(nb, nl, cf(2.0), denom);
                   c = arith::AddFOp::create(
                       nb, nl, cf(-1.0),
                       arith::MulFOp::create(nb, nl, i, step));
                   Value single = arith::CmpFOp::create(
                       nb, nl, arith::CmpFPredicate::OLE, size, cf(1.0));
                   c = arith::SelectOp::create(nb, nl, single, cf(-1.0), c);
                 } else {
                   Value twice = arith::AddFOp::create(
                       nb, nl, arith::MulFOp::create(nb, nl, i, cf(2.0)),
                       cf(1.0));
                   c = arith::AddFOp::create(
                       nb, nl, cf(-1.0),
                       arith::DivFOp::create(nb, nl, twice, size));
                 }
                 coords.push_back(c);
               }
               auto th = [&](int64_t col) -> Value {
                 Value v = tensor::ExtractOp::create(
                     nb, nl, theta,
                     ValueRange{n, k,
                                arith::ConstantIndexOp::create(nb, nl, col)});
                 return et == f64 ? v : arith::ExtFOp::create(nb, nl, f64, v);
               };
               Value acc = th(spatial);
               for (int64_t j = 0; j < spatial; ++j)
                 acc = arith::AddFOp::create(
                     nb, nl, acc,
                     arith::MulFOp::create(nb, nl, th(j), coords[j]));
               Value out =
                   et == f64
                       ? acc
                       : arith::TruncFOp::create(nb, nl, et, acc).getResult();
               linalg::YieldOp::create(nb, nl, out);
             })
      .getResult(0);
}
