//===- IndexingOps.cpp - ONNX scatter, non-zero, compress, unpool ---------===//
//
// Handlers for ONNX ops that write by index or whose result extent depends
// on tensor values: Scatter, ScatterElements, ScatterND, NonZero, Compress,
// MaxUnpool, NonMaxSuppression, and Det. Semantics live in the shared
// builders (mlprog/Import/Common/SliceGather.h, LinearAlgebra.h); out-of-range
// indices are skipped there (never written out of bounds).
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"

#include "mlprog/Import/Common/LinearAlgebra.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace mlprog::onnx_import {
namespace {

/// The `reduction` attribute of ScatterElements/ScatterND (opset 16+; max
/// and min since 18).
FailureOr<ScatterReduction> getReduction(NodeContext &ctx) {
  std::string r = ctx.getString("reduction", "none");
  if (r == "none")
    return ScatterReduction::None;
  if (r == "add")
    return ScatterReduction::Add;
  if (r == "mul")
    return ScatterReduction::Mul;
  if (r == "max")
    return ScatterReduction::Max;
  if (r == "min")
    return ScatterReduction::Min;
  return emitError(ctx.loc) << "unsupported reduction '" << r
                            << "' of ONNX op '" << ctx.node.op_type() << "'";
}

/// Max/min reductions compare signed; unsigned data would need unsigned
/// comparisons.
LogicalResult checkSignedness(NodeContext &ctx, ScatterReduction r) {
  if ((r == ScatterReduction::Max || r == ScatterReduction::Min) &&
      ctx.isUnsignedInput(0))
    return emitError(ctx.loc) << "unsupported " << ctx.node.op_type()
                              << " max/min reduction of unsigned data";
  return success();
}

/// ScatterElements (opset 11-18: axis, reduction none/add/mul/max/min,
/// negative indices) and Scatter (opset 9-10, its deprecated alias without
/// reduction).
LogicalResult importScatterElements(NodeContext &ctx) {
  FailureOr<Value> data = ctx.input(0), idx = ctx.input(1), upd = ctx.input(2);
  if (failed(data) || failed(idx) || failed(upd))
    return failure();
  FailureOr<ScatterReduction> red = getReduction(ctx);
  if (failed(red) || failed(checkSignedness(ctx, *red)))
    return failure();
  return ctx.setResult(0,
                       buildScatterElements(ctx.b, ctx.loc, *data, *idx, *upd,
                                            ctx.getInt("axis", 0), *red));
}

/// ScatterND (opset 11-18: reduction none/add/mul/max/min).
LogicalResult importScatterND(NodeContext &ctx) {
  FailureOr<Value> data = ctx.input(0), idx = ctx.input(1), upd = ctx.input(2);
  if (failed(data) || failed(idx) || failed(upd))
    return failure();
  FailureOr<ScatterReduction> red = getReduction(ctx);
  if (failed(red) || failed(checkSignedness(ctx, *red)))
    return failure();
  return ctx.setResult(0,
                       buildScatterND(ctx.b, ctx.loc, *data, *idx, *upd, *red));
}

/// NonZero (opset 9-13): int64 [rank, n] coordinates, n known at run time.
LogicalResult importNonZero(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildNonZero(ctx.b, ctx.loc, *x));
}

/// Compress (opset 9-11): with `axis` (negative since 11) or on the
/// flattened input.
LogicalResult importCompress(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), cond = ctx.input(1);
  if (failed(x) || failed(cond))
    return failure();
  std::optional<int64_t> axis;
  if (ctx.attribute("axis")) {
    FailureOr<int64_t> a =
        normalizeAxis(ctx, ctx.getInt("axis", 0), rankOf(*x));
    if (failed(a))
      return failure();
    axis = *a;
  }
  return ctx.setResult(0, buildCompress(ctx.b, ctx.loc, *x, *cond, axis));
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

/// NonMaxSuppression (opset 10-11): center_point_box, optional
/// max_output_boxes_per_class / iou_threshold / score_threshold inputs.
LogicalResult importNonMaxSuppression(NodeContext &ctx) {
  FailureOr<Value> boxes = ctx.input(0), scores = ctx.input(1);
  if (failed(boxes) || failed(scores))
    return failure();
  int64_t center = ctx.getInt("center_point_box", 0);
  if (center != 0 && center != 1)
    return emitError(ctx.loc)
           << "NonMaxSuppression: center_point_box must be 0 or 1, got "
           << center;
  return ctx.setResult(
      0, buildNonMaxSuppression(ctx.b, ctx.loc, *boxes, *scores,
                                ctx.optionalInput(2), ctx.optionalInput(3),
                                ctx.optionalInput(4), center == 1));
}

/// Det (opset 11): determinants of the trailing square matrices.
LogicalResult importDet(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildDeterminant(ctx.b, ctx.loc, *x));
}

} // namespace

void registerIndexingOpHandlers(OpHandlerTable &table) {
  static const std::pair<const char *, OpHandler> handlers[] = {
      {"Scatter", importScatterElements},
      {"ScatterElements", importScatterElements},
      {"ScatterND", importScatterND},
      {"NonZero", importNonZero},
      {"Compress", importCompress},
      {"MaxUnpool", importMaxUnpool},
      {"NonMaxSuppression", importNonMaxSuppression},
      {"Det", importDet},
  };
  for (const auto &[name, handler] : handlers)
    table[name] = handler;
}

} // namespace mlprog::onnx_import
