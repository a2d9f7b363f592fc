//===- SliceGatherOps.cpp - MIL slicing and gathering ---------------------===//
//
// split, slice_by_index, slice_by_size, gather and gather_along_axis.
//
// Handlers read the op's named arguments and compile-time parameters
// (supplying the MIL spec defaults, iOS15+ semantics) and call the shared
// builders in mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"
#include "Importer.h"

#include "mlprog/Import/Common/SliceGather.h"

using namespace mlir;

namespace mlprog::mil_import {
namespace {

LogicalResult importSplit(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<int64_t> axis = ctx.getInt("axis");
  if (failed(x) || failed(axis))
    return failure();
  FailureOr<int64_t> ax = normalizeAxis(ctx, *axis, rankOf(*x));
  if (failed(ax))
    return failure();
  SmallVector<int64_t> sizes;
  if (ctx.has("split_sizes")) {
    FailureOr<SmallVector<int64_t>> s = ctx.getInts("split_sizes");
    if (failed(s))
      return failure();
    sizes = *s;
  } else {
    FailureOr<int64_t> num = ctx.getInt("num_splits");
    if (failed(num))
      return failure();
    int64_t extent = typeOf(*x).getDimSize(*ax);
    if (*num < 1 || ShapedType::isDynamic(extent))
      return emitError(ctx.loc) << "split: num_splits " << *num
                                << " of a dim of extent " << extent;
    int64_t chunk = (extent + *num - 1) / *num;
    for (int64_t i = 0; i < *num; ++i)
      sizes.push_back(
          std::max<int64_t>(0, std::min(chunk, extent - i * chunk)));
  }
  if (int64_t(sizes.size()) != ctx.numOutputs())
    return emitError(ctx.loc)
           << "split into " << sizes.size() << " pieces but the op declares "
           << ctx.numOutputs() << " outputs";
  FailureOr<SmallVector<Value>> pieces =
      buildSplit(ctx.b, ctx.loc, *x, *ax, sizes);
  if (failed(pieces))
    return failure();
  for (auto [i, piece] : llvm::enumerate(*pieces))
    if (failed(ctx.setResult(i, piece)))
      return failure();
  return success();
}

/// slice_by_index(x, begin, end, stride, begin_mask, end_mask,
/// squeeze_mask): per dim begin:end:stride; a set mask bit ignores begin
/// (end); squeeze_mask takes the single element at begin and drops the dim.
LogicalResult importSliceByIndex(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  if (failed(x))
    return failure();
  int64_t rank = rankOf(*x);
  SmallVector<int64_t> ones(rank, 1), zeros(rank, 0);
  FailureOr<SmallVector<int64_t>> begin = ctx.getInts("begin"),
                                  end = ctx.getInts("end"),
                                  stride = ctx.getInts("stride", ones),
                                  beginMask = ctx.getInts("begin_mask", zeros),
                                  endMask = ctx.getInts("end_mask", zeros),
                                  squeezeMask =
                                      ctx.getInts("squeeze_mask", zeros);
  if (failed(begin) || failed(end) || failed(stride) || failed(beginMask) ||
      failed(endMask) || failed(squeezeMask))
    return failure();
  for (auto *v :
       {&*begin, &*end, &*stride, &*beginMask, &*endMask, &*squeezeMask})
    if (int64_t(v->size()) != rank)
      return emitError(ctx.loc) << "slice_by_index: parameters need " << rank
                                << " values, got " << v->size();
  SmallVector<SliceDim> dims;
  SmallVector<int64_t> squeeze;
  ArrayRef<int64_t> shape = typeOf(*x).getShape();
  for (int64_t d = 0; d < rank; ++d) {
    SliceDim s;
    s.step = (*stride)[d];
    if ((*squeezeMask)[d]) {
      int64_t bgn = (*begin)[d];
      if (bgn < 0 && !ShapedType::isDynamic(shape[d]))
        bgn += shape[d];
      s.start = bgn;
      s.stop = bgn + 1;
      s.step = 1;
      squeeze.push_back(d);
    } else {
      if (!(*beginMask)[d])
        s.start = (*begin)[d];
      if (!(*endMask)[d])
        s.stop = (*end)[d];
    }
    dims.push_back(s);
  }
  return ctx.setResult(0, buildSlice(ctx.b, ctx.loc, *x, dims, squeeze));
}

/// slice_by_size(x, begin, size): size -1 means to the end.
LogicalResult importSliceBySize(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<SmallVector<int64_t>> begin = ctx.getInts("begin"),
                                  size = ctx.getInts("size");
  if (failed(x) || failed(begin) || failed(size))
    return failure();
  int64_t rank = rankOf(*x);
  if (int64_t(begin->size()) != rank || int64_t(size->size()) != rank)
    return emitError(ctx.loc)
           << "slice_by_size: begin/size need " << rank << " values";
  ArrayRef<int64_t> shape = typeOf(*x).getShape();
  SmallVector<SliceDim> dims;
  for (int64_t d = 0; d < rank; ++d) {
    SliceDim s;
    int64_t bgn = (*begin)[d];
    if (bgn < 0 && !ShapedType::isDynamic(shape[d]))
      bgn += shape[d];
    if (bgn != 0 || (*size)[d] != -1)
      s.start = bgn;
    if ((*size)[d] != -1) {
      if ((*size)[d] < 0)
        return emitError(ctx.loc)
               << "slice_by_size: invalid size " << (*size)[d];
      s.stop = bgn + (*size)[d];
    }
    dims.push_back(s);
  }
  return ctx.setResult(0, buildSlice(ctx.b, ctx.loc, *x, dims));
}

LogicalResult importGather(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), indices = ctx.input("indices");
  FailureOr<int64_t> axis = ctx.getInt("axis", 0);
  FailureOr<int64_t> batchDims = ctx.getInt("batch_dims", 0);
  if (failed(x) || failed(indices) || failed(axis) || failed(batchDims))
    return failure();
  if (*batchDims != 0)
    return emitError(ctx.loc)
           << "unsupported gather with batch_dims=" << *batchDims;
  return ctx.setResult(0, buildGather(ctx.b, ctx.loc, *x, *indices, *axis));
}

LogicalResult importGatherAlongAxis(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), indices = ctx.input("indices");
  FailureOr<int64_t> axis = ctx.getInt("axis", 0);
  if (failed(x) || failed(indices) || failed(axis))
    return failure();
  return ctx.setResult(
      0, buildGatherAlongAxis(ctx.b, ctx.loc, *x, *indices, *axis));
}

} // namespace

void registerSliceGatherOps(OpTable &table) {
  table.add({
      {"gather", importGather},
      {"gather_along_axis", importGatherAlongAxis},
      {"slice_by_index", importSliceByIndex},
      {"slice_by_size", importSliceBySize},
      {"split", importSplit},
  });
}

} // namespace mlprog::mil_import
