//===- PoolOps.cpp - ONNX pooling ops -------------------------------------===//
//
// Handlers for MaxPool (with the optional Indices output), AveragePool,
// LpPool, GlobalAveragePool, GlobalMaxPool and MaxUnpool.
//
// Handlers only read operands and attributes (with the ONNX operator spec's
// defaults for the model's opset) and call the shared builders in
// mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"

#include "mlprog/Import/Common/Conv.h"
#include "mlprog/Import/Common/Pool.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace mlprog::onnx_import {

namespace {

/// Input 0 of a pooling node with its window: kernel_shape and the geometry
/// attributes (pads or auto_pad, strides, dilations).
struct PoolOperand {
  Value x;
  SmallVector<int64_t> kernel;
  WindowParams params;
};

FailureOr<PoolOperand> poolOperand(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  SmallVector<int64_t> kernel = ctx.getInts("kernel_shape");
  FailureOr<WindowParams> params = getWindowParams(ctx, *x, kernel);
  if (failed(params))
    return failure();
  return PoolOperand{*x, std::move(kernel), *params};
}

/// MaxPool: ceil_mode and dilations since opset 10; the optional Indices
/// output (opset 8+), row-major (storage_order = 0) or column-major (1).
LogicalResult importMaxPool(NodeContext &ctx) {
  FailureOr<PoolOperand> in = poolOperand(ctx);
  if (failed(in))
    return failure();
  auto &[x, kernel, params] = *in;
  bool ceilMode = ctx.getInt("ceil_mode", 0);
  if (!ctx.hasOutput(1))
    return ctx.setResult(0, buildMaxPool(ctx.b, ctx.loc, x, kernel, params,
                                         ceilMode, ctx.isUnsignedInput(0)));
  int64_t order = ctx.getInt("storage_order", 0);
  if (order != 0 && order != 1)
    return emitError(ctx.loc) << "invalid MaxPool storage_order " << order;
  FailureOr<std::pair<Value, Value>> r =
      buildMaxPoolWithIndices(ctx.b, ctx.loc, x, kernel, params, ceilMode,
                              order == 1, ctx.isUnsignedInput(0));
  if (failed(r))
    return failure();
  if (failed(ctx.setResult(0, r->first)))
    return failure();
  return ctx.setResult(1, r->second);
}

/// AveragePool: count_include_pad = 0, ceil_mode = 0 by default.
LogicalResult importAveragePool(NodeContext &ctx) {
  FailureOr<PoolOperand> in = poolOperand(ctx);
  if (failed(in))
    return failure();
  auto &[x, kernel, params] = *in;
  return ctx.setResult(0, buildAveragePool(ctx.b, ctx.loc, x, kernel, params,
                                           ctx.getInt("ceil_mode", 0),
                                           ctx.getInt("count_include_pad", 0)));
}

/// LpPool-2/11/18: p (default 2), and since 18 ceil_mode and dilations.
LogicalResult importLpPool(NodeContext &ctx) {
  FailureOr<PoolOperand> in = poolOperand(ctx);
  if (failed(in))
    return failure();
  auto &[x, kernel, params] = *in;
  // LpPool-1 had a float p; from opset 2 it is an int.
  const onnx::AttributeProto *p = ctx.attribute("p");
  double power = !p ? 2.0 : p->has_f() ? p->f() : double(p->i());
  return ctx.setResult(0, buildLpPool(ctx.b, ctx.loc, x, kernel, params,
                                      ctx.getInt("ceil_mode", 0), power));
}

/// GlobalAveragePool.
LogicalResult importGlobalAveragePool(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildGlobalAveragePool(ctx.b, ctx.loc, *x));
}

/// GlobalMaxPool: max over all spatial dims, giving [N, C, 1, ..., 1].
LogicalResult importGlobalMaxPool(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  if (type.getRank() < 3)
    return emitError(ctx.loc) << "GlobalMaxPool needs rank >= 3";
  SmallVector<int64_t> kernel(type.getShape().drop_front(2));
  return ctx.setResult(0, buildMaxPool(ctx.b, ctx.loc, *x, kernel, {}, false,
                                       ctx.isUnsignedInput(0)));
}

/// MaxUnpool (opset 9-11): kernel_shape, strides, pads; the optional
/// output_shape input (a constant, or read at run time) sets the output
/// extents.
LogicalResult importMaxUnpool(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), idx = ctx.input(1);
  if (failed(x) || failed(idx))
    return failure();
  int64_t rank = rankOf(*x), n = rank - 2;
  SmallVector<int64_t> kernel = ctx.getInts("kernel_shape");
  SmallVector<int64_t> strides = ctx.getInts("strides");
  SmallVector<int64_t> pads = ctx.getInts("pads");
  if (n < 1 || int64_t(kernel.size()) != n)
    return emitError(ctx.loc) << "MaxUnpool: kernel_shape must have " << n
                              << " entries for an input of rank " << rank;
  if (strides.empty())
    strides.assign(n, 1);
  if (pads.empty())
    pads.assign(2 * n, 0);
  SmallVector<OpFoldResult> outSizes;
  if (ctx.hasInput(2)) {
    if (DenseElementsAttr c = ctx.optionalConstantInput(2)) {
      for (const APInt &v : c.getValues<APInt>())
        outSizes.push_back(ctx.b.getIndexAttr(v.getSExtValue()));
    } else {
      FailureOr<Value> shape = ctx.input(2);
      if (failed(shape))
        return failure();
      auto st = dyn_cast<RankedTensorType>(shape->getType());
      if (!st || st.getRank() != 1 || st.getDimSize(0) != rank ||
          !st.getElementType().isSignlessInteger(64))
        return emitError(ctx.loc)
               << "MaxUnpool: output_shape must be an "
                  "int64 tensor of "
               << rank << " elements, got " << shape->getType();
      for (int64_t d = 0; d < rank; ++d) {
        Value i = arith::ConstantIndexOp::create(ctx.b, ctx.loc, d);
        Value v = tensor::ExtractOp::create(ctx.b, ctx.loc, *shape, i);
        outSizes.push_back(
            arith::IndexCastOp::create(ctx.b, ctx.loc, ctx.b.getIndexType(), v)
                .getResult());
      }
    }
  }
  return ctx.setResult(0, buildMaxUnpool(ctx.b, ctx.loc, *x, *idx, kernel,
                                         strides, pads, outSizes));
}

} // namespace

void registerPoolOps(OpTable &table) {
  table.add({
      {"AveragePool", importAveragePool},
      {"LpPool", importLpPool},
      {"GlobalAveragePool", importGlobalAveragePool},
      {"GlobalMaxPool", importGlobalMaxPool},
      {"MaxPool", importMaxPool},
      {"MaxUnpool", importMaxUnpool},
  });
}

} // namespace mlprog::onnx_import
