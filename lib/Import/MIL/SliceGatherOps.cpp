//===- SliceGatherOps.cpp - MIL slicing and gathering ---------------------===//
//
// split, slice_by_index, slice_by_size, slice_update, the gathers (gather,
// gather_along_axis, gather_nd), the scatters (scatter, scatter_along_axis,
// scatter_nd), non_zero, and the ordering ops topk, argsort and cumsum.
//
// Handlers read the op's named arguments and compile-time parameters
// (supplying the MIL spec defaults, iOS15+ semantics) and call the shared
// builders in mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"
#include "Importer.h"

#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringSwitch.h"

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

/// The slice of slice_by_index and slice_update: per dim begin:end:stride;
/// a set mask bit ignores begin (end); squeeze_mask takes the single element
/// at begin and drops the dim.
LogicalResult getIndexSlice(OpContext &ctx, Value x,
                            SmallVectorImpl<SliceDim> &dims,
                            SmallVectorImpl<int64_t> &squeeze) {
  int64_t rank = rankOf(x);
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
      return emitError(ctx.loc) << ctx.op.type() << ": parameters need " << rank
                                << " values, got " << v->size();
  ArrayRef<int64_t> shape = typeOf(x).getShape();
  for (int64_t d = 0; d < rank; ++d) {
    SliceDim s;
    s.step = (*stride)[d];
    if (s.step == 0)
      return emitError(ctx.loc) << ctx.op.type() << ": stride 0 in dim " << d;
    if ((*squeezeMask)[d]) {
      int64_t bgn = (*beginMask)[d] ? (s.step > 0 ? 0 : -1) : (*begin)[d];
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
  return success();
}

/// Element `d` of the 1-D integer tensor `t` as an index value.
Value elementAt(OpContext &ctx, Value t, int64_t d) {
  Value e = tensor::ExtractOp::create(
      ctx.b, ctx.loc, t,
      ValueRange{arith::ConstantIndexOp::create(ctx.b, ctx.loc, d)});
  return arith::IndexCastOp::create(ctx.b, ctx.loc, ctx.b.getIndexType(), e);
}

/// Parameter `name` (rank entries) as index values per dim: constants when
/// known at import time, tensor.extract reads otherwise.
FailureOr<SmallVector<Value>> indexValues(OpContext &ctx, StringRef name,
                                          int64_t rank,
                                          std::optional<int64_t> dflt = {}) {
  SmallVector<Value> out;
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ctx.b, ctx.loc, v);
  };
  if (!ctx.has(name) && dflt) {
    for (int64_t d = 0; d < rank; ++d)
      out.push_back(c(*dflt));
    return out;
  }
  if (std::optional<SmallVector<int64_t>> v = foldedInts(ctx, name)) {
    if (int64_t(v->size()) != rank)
      return emitError(ctx.loc) << "parameter '" << name << "' needs " << rank
                                << " values, got " << v->size();
    for (int64_t x : *v)
      out.push_back(c(x));
    return out;
  }
  FailureOr<Value> t = ctx.input(name);
  if (failed(t))
    return failure();
  if (rankOf(*t) != 1 || typeOf(*t).getDimSize(0) != rank)
    return emitError(ctx.loc)
           << "parameter '" << name << "' must be a 1-D "
           << "tensor of " << rank << " values, got " << t->getType();
  for (int64_t d = 0; d < rank; ++d)
    out.push_back(elementAt(ctx, *t, d));
  return out;
}

/// Drops the `squeeze` dims (extent 1 at run time) from the run-time slice
/// `v`, typed with the declared output shape.
FailureOr<Value> finishRuntimeSlice(OpContext &ctx, Value v,
                                    ArrayRef<int64_t> squeeze) {
  RankedTensorType declared = declaredType(ctx, 0);
  SmallVector<int64_t> hint;
  if (declared) {
    ArrayRef<int64_t> out = declared.getShape();
    for (int64_t d = 0, k = 0; d < rankOf(v); ++d)
      hint.push_back(
          llvm::is_contained(squeeze, d)
              ? 1
              : (k < int64_t(out.size()) ? out[k++] : ShapedType::kDynamic));
  } else {
    hint.assign(rankOf(v), ShapedType::kDynamic);
    for (int64_t d : squeeze)
      hint[d] = 1;
  }
  v = refineToShape(ctx.b, ctx.loc, v, hint);
  if (squeeze.empty())
    return v;
  return buildSqueeze(ctx.b, ctx.loc, v, squeeze);
}

/// slice_by_index with begin, end or stride computed at run time
/// (buildSliceDynamic); masks must be compile-time values.
LogicalResult importSliceByIndexAtRunTime(OpContext &ctx, Value x) {
  int64_t rank = rankOf(x);
  SmallVector<int64_t> zeros(rank, 0);
  FailureOr<SmallVector<int64_t>> beginMask = ctx.getInts("begin_mask", zeros),
                                  endMask = ctx.getInts("end_mask", zeros),
                                  squeezeMask =
                                      ctx.getInts("squeeze_mask", zeros);
  FailureOr<SmallVector<Value>> begin = indexValues(ctx, "begin", rank),
                                end = indexValues(ctx, "end", rank),
                                stride = indexValues(ctx, "stride", rank, 1);
  if (failed(beginMask) || failed(endMask) || failed(squeezeMask) ||
      failed(begin) || failed(end) || failed(stride))
    return failure();
  if (int64_t(beginMask->size()) != rank || int64_t(endMask->size()) != rank ||
      int64_t(squeezeMask->size()) != rank)
    return emitError(ctx.loc)
           << "slice_by_index: masks need " << rank << " values";
  auto c = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(ctx.b, ctx.loc, v);
  };
  Value zero = c(0);
  SmallVector<DynamicSliceDim> dims;
  SmallVector<int64_t> squeeze;
  for (int64_t d = 0; d < rank; ++d) {
    Value step = (*stride)[d];
    Value negative = arith::CmpIOp::create(
        ctx.b, ctx.loc, arith::CmpIPredicate::slt, step, zero);
    // A masked bound is the first / past-the-last element in the direction
    // of the step (stops clamp: -extent - 1 reaches before the start).
    Value extent = tensor::DimOp::create(ctx.b, ctx.loc, x, d);
    Value beforeStart = arith::SubIOp::create(ctx.b, ctx.loc, c(-1), extent);
    Value start =
        (*beginMask)[d]
            ? arith::SelectOp::create(ctx.b, ctx.loc, negative, c(-1), zero)
                  .getResult()
            : (*begin)[d];
    Value stop = (*endMask)[d]
                     ? arith::SelectOp::create(ctx.b, ctx.loc, negative,
                                               beforeStart, extent)
                           .getResult()
                     : (*end)[d];
    if ((*squeezeMask)[d]) {
      // One element at begin (from the end when negative).
      Value neg = arith::CmpIOp::create(ctx.b, ctx.loc,
                                        arith::CmpIPredicate::slt, start, zero);
      start = arith::SelectOp::create(
          ctx.b, ctx.loc, neg,
          arith::AddIOp::create(ctx.b, ctx.loc, start, extent), start);
      stop = arith::AddIOp::create(ctx.b, ctx.loc, start, c(1));
      step = c(1);
      squeeze.push_back(d);
    }
    dims.push_back({start, stop, step});
  }
  FailureOr<Value> v = buildSliceDynamic(ctx.b, ctx.loc, x, dims);
  if (failed(v))
    return failure();
  return ctx.setResult(0, finishRuntimeSlice(ctx, *v, squeeze));
}

/// slice_by_size with begin or size computed at run time: size -1 reads
/// to the end.
LogicalResult importSliceBySizeAtRunTime(OpContext &ctx, Value x) {
  int64_t rank = rankOf(x);
  FailureOr<SmallVector<Value>> begin = indexValues(ctx, "begin", rank),
                                size = indexValues(ctx, "size", rank);
  if (failed(begin) || failed(size))
    return failure();
  Value zero = arith::ConstantIndexOp::create(ctx.b, ctx.loc, 0);
  Value one = arith::ConstantIndexOp::create(ctx.b, ctx.loc, 1);
  Value minusOne = arith::ConstantIndexOp::create(ctx.b, ctx.loc, -1);
  SmallVector<DynamicSliceDim> dims;
  for (int64_t d = 0; d < rank; ++d) {
    Value extent = tensor::DimOp::create(ctx.b, ctx.loc, x, d);
    Value start = (*begin)[d];
    Value neg = arith::CmpIOp::create(ctx.b, ctx.loc, arith::CmpIPredicate::slt,
                                      start, zero);
    start = arith::SelectOp::create(
        ctx.b, ctx.loc, neg,
        arith::AddIOp::create(ctx.b, ctx.loc, start, extent), start);
    Value toEnd = arith::CmpIOp::create(
        ctx.b, ctx.loc, arith::CmpIPredicate::eq, (*size)[d], minusOne);
    Value stop = arith::SelectOp::create(
        ctx.b, ctx.loc, toEnd, extent,
        arith::AddIOp::create(ctx.b, ctx.loc, start, (*size)[d]));
    dims.push_back({start, stop, one});
  }
  FailureOr<Value> v = buildSliceDynamic(ctx.b, ctx.loc, x, dims);
  if (failed(v))
    return failure();
  return ctx.setResult(0, finishRuntimeSlice(ctx, *v, {}));
}

/// slice_by_index(x, begin, end, stride, begin_mask, end_mask,
/// squeeze_mask).
LogicalResult importSliceByIndex(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  if (failed(x))
    return failure();
  if (!foldedInts(ctx, "begin") || !foldedInts(ctx, "end") ||
      (ctx.has("stride") && !foldedInts(ctx, "stride")))
    return importSliceByIndexAtRunTime(ctx, *x);
  SmallVector<SliceDim> dims;
  SmallVector<int64_t> squeeze;
  if (failed(getIndexSlice(ctx, *x, dims, squeeze)))
    return failure();
  return ctx.setResult(0, buildSlice(ctx.b, ctx.loc, *x, dims, squeeze));
}

/// slice_update with begin (or end) computed at run time: the update's
/// static shape gives the slice extents (end is not needed), strides and
/// masks must be compile-time values, strides positive.
LogicalResult importSliceUpdateAtRunTime(OpContext &ctx, Value x,
                                         Value update) {
  int64_t rank = rankOf(x);
  SmallVector<int64_t> ones(rank, 1), zeros(rank, 0);
  FailureOr<SmallVector<int64_t>> stride = ctx.getInts("stride", ones),
                                  beginMask = ctx.getInts("begin_mask", zeros),
                                  squeezeMask =
                                      ctx.getInts("squeeze_mask", zeros);
  FailureOr<Value> begin = ctx.input("begin");
  if (failed(stride) || failed(beginMask) || failed(squeezeMask) ||
      failed(begin))
    return failure();
  if (int64_t(stride->size()) != rank || int64_t(beginMask->size()) != rank ||
      int64_t(squeezeMask->size()) != rank || rankOf(*begin) != 1 ||
      typeOf(*begin).getDimSize(0) != rank)
    return emitError(ctx.loc)
           << "slice_update: parameters need " << rank << " values";
  if (llvm::any_of(*stride, [](int64_t s) { return s < 1; }))
    return emitError(ctx.loc) << "unsupported slice_update with a run-time "
                                 "begin and a non-positive stride";
  SmallVector<OpFoldResult> starts;
  SmallVector<int64_t> squeeze;
  for (int64_t d = 0; d < rank; ++d) {
    if ((*squeezeMask)[d])
      squeeze.push_back(d);
    if ((*beginMask)[d]) {
      starts.push_back(ctx.b.getIndexAttr(0));
      continue;
    }
    Value e = tensor::ExtractOp::create(
        ctx.b, ctx.loc, *begin,
        ValueRange{arith::ConstantIndexOp::create(ctx.b, ctx.loc, d)});
    starts.push_back(
        arith::IndexCastOp::create(ctx.b, ctx.loc, ctx.b.getIndexType(), e)
            .getResult());
  }
  return ctx.setResult(0, buildSliceUpdateDynamic(ctx.b, ctx.loc, x, update,
                                                  starts, *stride, squeeze));
}

/// slice_update(x, update, begin, end, stride, masks) (iOS18): x with the
/// slice_by_index slice replaced by update.
LogicalResult importSliceUpdate(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), update = ctx.input("update");
  if (failed(x) || failed(update))
    return failure();
  if (!foldedInts(ctx, "begin") || !foldedInts(ctx, "end"))
    return importSliceUpdateAtRunTime(ctx, *x, *update);
  SmallVector<SliceDim> dims;
  SmallVector<int64_t> squeeze;
  if (failed(getIndexSlice(ctx, *x, dims, squeeze)))
    return failure();
  return ctx.setResult(
      0, buildSliceUpdate(ctx.b, ctx.loc, *x, *update, dims, squeeze));
}

/// slice_by_size(x, begin, size): size -1 means to the end.
LogicalResult importSliceBySize(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  if (failed(x))
    return failure();
  if (!foldedInts(ctx, "begin") || !foldedInts(ctx, "size"))
    return importSliceBySizeAtRunTime(ctx, *x);
  FailureOr<SmallVector<int64_t>> begin = ctx.getInts("begin"),
                                  size = ctx.getInts("size");
  if (failed(begin) || failed(size))
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
  // batch_dims (iOS16) may be negative, counting from the indices' rank.
  int64_t bd = *batchDims;
  if (bd < 0)
    bd += rankOf(*indices);
  return ctx.setResult(0, buildGather(ctx.b, ctx.loc, *x, *indices, *axis, bd));
}

LogicalResult importGatherAlongAxis(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), indices = ctx.input("indices");
  FailureOr<int64_t> axis = ctx.getInt("axis", 0);
  if (failed(x) || failed(indices) || failed(axis))
    return failure();
  return ctx.setResult(
      0, buildGatherAlongAxis(ctx.b, ctx.loc, *x, *indices, *axis));
}

LogicalResult importGatherND(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), indices = ctx.input("indices");
  FailureOr<int64_t> batchDims = ctx.getInt("batch_dims", 0);
  if (failed(x) || failed(indices) || failed(batchDims))
    return failure();
  return ctx.setResult(0,
                       buildGatherND(ctx.b, ctx.loc, *x, *indices, *batchDims));
}

/// The scatter mode of parameter "mode" (default "add").
FailureOr<ScatterReduction> getScatterMode(OpContext &ctx) {
  FailureOr<std::string> mode = ctx.getString("mode", std::string("add"));
  if (failed(mode))
    return failure();
  std::optional<ScatterReduction> r =
      llvm::StringSwitch<std::optional<ScatterReduction>>(*mode)
          .Case("update", ScatterReduction::None)
          .Case("add", ScatterReduction::Add)
          .Case("sub", ScatterReduction::Sub)
          .Case("mul", ScatterReduction::Mul)
          .Case("div", ScatterReduction::Div)
          .Case("max", ScatterReduction::Max)
          .Case("min", ScatterReduction::Min)
          .Default(std::nullopt);
  if (!r)
    return emitError(ctx.loc) << "unsupported scatter mode '" << *mode << "'";
  return *r;
}

/// scatter_along_axis(data, indices, updates, axis = 0, mode = "add").
LogicalResult importScatterAlongAxis(OpContext &ctx) {
  FailureOr<Value> data = ctx.input("data"), indices = ctx.input("indices"),
                   updates = ctx.input("updates");
  FailureOr<int64_t> axis = ctx.getInt("axis", 0);
  FailureOr<ScatterReduction> mode = getScatterMode(ctx);
  if (failed(data) || failed(indices) || failed(updates) || failed(axis) ||
      failed(mode))
    return failure();
  return ctx.setResult(0, buildScatterElements(ctx.b, ctx.loc, *data, *indices,
                                               *updates, *axis, *mode));
}

/// scatter(data, indices [K], updates, axis = 0, mode = "add"): updates is
/// data.shape[:axis] + [K] + data.shape[axis+1:] and slice k goes to
/// position indices[k] along axis: scatter_along_axis with the indices
/// broadcast to the updates' shape.
LogicalResult importScatter(OpContext &ctx) {
  FailureOr<Value> data = ctx.input("data"), indices = ctx.input("indices"),
                   updates = ctx.input("updates");
  FailureOr<int64_t> axis = ctx.getInt("axis", 0);
  FailureOr<ScatterReduction> mode = getScatterMode(ctx);
  if (failed(data) || failed(indices) || failed(updates) || failed(axis) ||
      failed(mode))
    return failure();
  int64_t rank = rankOf(*data);
  FailureOr<int64_t> ax = normalizeAxis(ctx, *axis, rank);
  if (failed(ax))
    return failure();
  if (rankOf(*indices) != 1 || rankOf(*updates) != rank)
    return emitError(ctx.loc)
           << "scatter: indices must be 1-D and updates of "
              "data's rank, got "
           << indices->getType() << " and " << updates->getType();
  SmallVector<int64_t> shape(rank, 1);
  shape[*ax] = typeOf(*indices).getDimSize(0);
  FailureOr<Value> idx = buildReshape(ctx.b, ctx.loc, *indices, shape);
  if (succeeded(idx)) {
    SmallVector<int64_t> target(typeOf(*updates).getShape());
    for (int64_t &t : target)
      if (ShapedType::isDynamic(t))
        t = -1;
    idx = buildExpand(ctx.b, ctx.loc, *idx, target);
  }
  if (failed(idx))
    return failure();
  return ctx.setResult(0, buildScatterElements(ctx.b, ctx.loc, *data, *idx,
                                               *updates, *ax, *mode));
}

/// scatter_nd(data, indices [.., q], updates, mode = "add").
LogicalResult importScatterND(OpContext &ctx) {
  FailureOr<Value> data = ctx.input("data"), indices = ctx.input("indices"),
                   updates = ctx.input("updates");
  FailureOr<ScatterReduction> mode = getScatterMode(ctx);
  if (failed(data) || failed(indices) || failed(updates) || failed(mode))
    return failure();
  return ctx.setResult(
      0, buildScatterND(ctx.b, ctx.loc, *data, *indices, *updates, *mode));
}

/// non_zero(x): [N, rank] coordinates of the non-zero elements, int32.
LogicalResult importNonZero(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  if (failed(x))
    return failure();
  FailureOr<Value> nz = buildNonZero(ctx.b, ctx.loc, *x);
  if (succeeded(nz))
    nz = buildTranspose(ctx.b, ctx.loc, *nz, {1, 0});
  if (succeeded(nz))
    nz = buildConvertElementType(ctx.b, ctx.loc, *nz, ctx.b.getI32Type());
  return ctx.setResult(0, nz);
}

/// The element type of output `i`'s declared type, or `dflt`.
Type declaredElementType(OpContext &ctx, unsigned i, Type dflt) {
  RankedTensorType t = declaredType(ctx, i);
  return t ? t.getElementType() : dflt;
}

/// topk(x, k = 1, axis = -1, ascending = False; iOS16: sort = True,
/// return_indices = True; iOS17: k at run time, output_indices_dtype).
/// Results are always sorted (valid for sort = False too).
LogicalResult importTopK(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<int64_t> axis = ctx.getInt("axis", -1);
  FailureOr<bool> ascending = ctx.getBool("ascending", false),
                  returnIndices = ctx.getBool("return_indices", true);
  if (failed(x) || failed(axis) || failed(ascending) || failed(returnIndices))
    return failure();
  FailureOr<int64_t> ax = normalizeAxis(ctx, *axis, rankOf(*x));
  if (failed(ax))
    return failure();
  FailureOr<std::pair<Value, Value>> r;
  std::optional<SmallVector<int64_t>> k = SmallVector<int64_t>{1};
  if (ctx.has("k"))
    k = foldedInts(ctx, "k");
  if (k) {
    if (k->size() != 1)
      return emitError(ctx.loc) << "topk: k must be a scalar";
    int64_t extent = typeOf(*x).getDimSize(*ax);
    int64_t kv = k->front();
    if (kv == -1 && !ShapedType::isDynamic(extent))
      kv = extent;
    if (kv < 0 || (!ShapedType::isDynamic(extent) && kv > extent))
      return emitError(ctx.loc) << "topk: k = " << k->front()
                                << " out of range for extent " << extent;
    r = ShapedType::isDynamic(extent)
            ? buildTopKDynamic(ctx.b, ctx.loc, *x, ctx.b.getIndexAttr(kv), *ax,
                               !*ascending)
            : buildTopK(ctx.b, ctx.loc, *x, kv, *ax, !*ascending);
  } else {
    FailureOr<Value> kTensor = ctx.input("k");
    if (failed(kTensor))
      return failure();
    if (rankOf(*kTensor) > 1 || typeOf(*kTensor).getNumElements() != 1)
      return emitError(ctx.loc)
             << "topk: k must be a scalar, got " << kTensor->getType();
    Value kScalar = tensor::ExtractOp::create(
        ctx.b, ctx.loc, *kTensor,
        SmallVector<Value>(rankOf(*kTensor),
                           arith::ConstantIndexOp::create(ctx.b, ctx.loc, 0)));
    Value kIndex = arith::IndexCastOp::create(ctx.b, ctx.loc,
                                              ctx.b.getIndexType(), kScalar);
    r = buildTopKDynamic(ctx.b, ctx.loc, *x, kIndex, *ax, !*ascending);
  }
  if (failed(r) || failed(ctx.setResult(0, r->first)))
    return failure();
  if (!*returnIndices || ctx.numOutputs() < 2)
    return success();
  return ctx.setResult(1, buildConvertElementType(
                              ctx.b, ctx.loc, r->second,
                              declaredElementType(ctx, 1, ctx.b.getI32Type())));
}

/// argsort(x, axis = -1, ascending = False): int32 positions that sort x
/// along axis (ties keep the lower index first).
LogicalResult importArgSort(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<int64_t> axis = ctx.getInt("axis", -1);
  FailureOr<bool> ascending = ctx.getBool("ascending", false);
  if (failed(x) || failed(axis) || failed(ascending))
    return failure();
  FailureOr<int64_t> ax = normalizeAxis(ctx, *axis, rankOf(*x));
  if (failed(ax))
    return failure();
  int64_t extent = typeOf(*x).getDimSize(*ax);
  if (ShapedType::isDynamic(extent))
    return emitError(ctx.loc) << "unsupported argsort along a dynamic dim";
  FailureOr<std::pair<Value, Value>> r =
      buildTopK(ctx.b, ctx.loc, *x, extent, *ax, !*ascending);
  if (failed(r))
    return failure();
  return ctx.setResult(0, buildConvertElementType(ctx.b, ctx.loc, r->second,
                                                  ctx.b.getI32Type()));
}

/// cumsum(x, axis = 0, exclusive = False, reverse = False).
LogicalResult importCumSum(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<int64_t> axis = ctx.getInt("axis", 0);
  FailureOr<bool> exclusive = ctx.getBool("exclusive", false),
                  reverse = ctx.getBool("reverse", false);
  if (failed(x) || failed(axis) || failed(exclusive) || failed(reverse))
    return failure();
  return ctx.setResult(
      0, buildCumSum(ctx.b, ctx.loc, *x, *axis, *exclusive, *reverse));
}

} // namespace

void registerSliceGatherOps(OpTable &table) {
  table.add({
      {"argsort", importArgSort},
      {"cumsum", importCumSum},
      {"gather", importGather},
      {"gather_along_axis", importGatherAlongAxis},
      {"gather_nd", importGatherND},
      {"non_zero", importNonZero},
      {"scatter", importScatter},
      {"scatter_along_axis", importScatterAlongAxis},
      {"scatter_nd", importScatterND},
      {"slice_by_index", importSliceByIndex},
      {"slice_by_size", importSliceBySize},
      {"slice_update", importSliceUpdate},
      {"split", importSplit},
      {"topk", importTopK},
  });
}

} // namespace mlprog::mil_import
