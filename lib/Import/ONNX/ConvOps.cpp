//===- ConvOps.cpp - ONNX convolutions ------------------------------------===//
//
// Handlers for Conv and ConvTranspose, and the window attributes (strides,
// dilations, pads, auto_pad) that the pooling and quantized convolution
// handlers read too.
//
// Handlers only read operands and attributes (with the ONNX operator spec's
// defaults for the model's opset) and call the shared builders in
// mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"

#include "mlprog/Import/Common/Conv.h"

using namespace mlir;

namespace mlprog::onnx_import {

FailureOr<WindowParams> getWindowParams(NodeContext &ctx, Value input,
                                        ArrayRef<int64_t> kernel) {
  WindowParams params;
  params.strides = ctx.getInts("strides");
  params.dilations = ctx.getInts("dilations");
  std::string autoPad = ctx.getString("auto_pad", "NOTSET");
  size_t n = kernel.size();
  if (autoPad == "NOTSET") {
    SmallVector<int64_t> pads = ctx.getInts("pads");
    if (pads.empty())
      return params;
    if (pads.size() != 2 * n)
      return emitError(ctx.loc)
             << "expected " << 2 * n << " pads, got " << pads.size();
    params.padsBegin.assign(pads.begin(), pads.begin() + n);
    params.padsEnd.assign(pads.begin() + n, pads.end());
    return params;
  }
  if (autoPad == "VALID")
    return params;
  if (autoPad != "SAME_UPPER" && autoPad != "SAME_LOWER")
    return emitError(ctx.loc) << "invalid auto_pad '" << autoPad << "'";
  auto shape = cast<RankedTensorType>(input.getType()).getShape();
  if (shape.size() != n + 2)
    return emitError(ctx.loc) << "auto_pad " << autoPad << " needs " << n + 2
                              << "-D input, got " << input.getType();
  if ((!params.strides.empty() && params.strides.size() != n) ||
      (!params.dilations.empty() && params.dilations.size() != n))
    return emitError(ctx.loc) << "strides/dilations do not match the kernel";
  // With stride 1 the padding does not depend on the extent.
  for (size_t i = 0; i < n; ++i)
    if (ShapedType::isDynamic(shape[2 + i]) &&
        (params.strides.empty() ? 1 : params.strides[i]) != 1)
      return emitError(ctx.loc)
             << "unsupported auto_pad " << autoPad
             << " with a dynamic spatial extent and a stride other than 1";
  computeSamePadding(shape.drop_front(2), kernel, autoPad == "SAME_LOWER",
                     params);
  return params;
}

namespace {

/// Conv: group = 1, strides/dilations 1, pads 0 by default; kernel_shape
/// defaults to the filter's spatial extents; bias B optional.
LogicalResult importConv(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), w = ctx.input(1);
  if (failed(x) || failed(w))
    return failure();
  auto wt = cast<RankedTensorType>(w->getType());
  if (wt.getRank() < 3)
    return emitError(ctx.loc) << "Conv weight must have rank >= 3";
  FailureOr<WindowParams> params =
      getWindowParams(ctx, *x, wt.getShape().drop_front(2));
  if (failed(params))
    return failure();
  return ctx.setResult(0,
                       buildConv(ctx.b, ctx.loc, *x, *w, ctx.optionalInput(2),
                                 *params, ctx.getInt("group", 1)));
}

/// DeformConv (opset 19/22): inputs X, W, offset, optional B and mask;
/// attributes as Conv's plus offset_group. 2-D only.
LogicalResult importDeformConv(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), w = ctx.input(1), off = ctx.input(2);
  if (failed(x) || failed(w) || failed(off))
    return failure();
  auto wt = cast<RankedTensorType>(w->getType());
  if (wt.getRank() != 4 || rankOf(*x) != 4)
    return emitError(ctx.loc)
           << "unsupported DeformConv of rank " << rankOf(*x) << " (only 2-D)";
  FailureOr<WindowParams> params =
      getWindowParams(ctx, *x, wt.getShape().drop_front(2));
  if (failed(params))
    return failure();
  return ctx.setResult(0, buildDeformConv2D(ctx.b, ctx.loc, *x, *w, *off,
                                            ctx.optionalInput(4),
                                            ctx.optionalInput(3), *params,
                                            ctx.getInt("group", 1),
                                            ctx.getInt("offset_group", 1)));
}

/// CausalConvWithState (opset 27): input [B, C, L], depthwise weight
/// [C, 1, K], optional bias and past_state; activation none / silu / swish.
LogicalResult importCausalConvWithState(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), w = ctx.input(1);
  if (failed(x) || failed(w))
    return failure();
  std::string act = ctx.getString("activation", "none");
  if (act != "none" && act != "silu" && act != "swish")
    return emitError(ctx.loc) << "CausalConvWithState: activation must be "
                                 "none, silu or swish, got '"
                              << act << "'";
  FailureOr<CausalConvResult> r =
      buildCausalConvWithState(ctx.b, ctx.loc, *x, *w, ctx.optionalInput(2),
                               ctx.optionalInput(3), act != "none");
  if (failed(r) || failed(ctx.setResult(0, r->output)))
    return failure();
  return ctx.setResult(1, r->presentState);
}

/// Col2Im (opset 18): input [N, C * prod(block), L], image_shape and
/// block_shape (constant or run-time); attributes dilations, pads, strides.
LogicalResult importCol2Im(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), image = ctx.input(1), block = ctx.input(2);
  if (failed(x) || failed(image) || failed(block))
    return failure();
  WindowParams params;
  params.strides = ctx.getInts("strides");
  params.dilations = ctx.getInts("dilations");
  SmallVector<int64_t> pads = ctx.getInts("pads");
  if (!pads.empty()) {
    if (pads.size() % 2)
      return emitError(ctx.loc) << "Col2Im: pads needs an even length";
    params.padsBegin.assign(pads.begin(), pads.begin() + pads.size() / 2);
    params.padsEnd.assign(pads.begin() + pads.size() / 2, pads.end());
  }
  return ctx.setResult(0,
                       buildCol2Im(ctx.b, ctx.loc, *x, *image, *block, params));
}

/// ConvTranspose (opset 1+): group, strides, dilations, pads,
/// output_padding; output_shape or auto_pad SAME_* derive the pads (ONNX
/// rule: SAME_UPPER puts the odd padding element at the end).
LogicalResult importConvTranspose(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), w = ctx.input(1);
  if (failed(x) || failed(w))
    return failure();
  auto xt = cast<RankedTensorType>(x->getType());
  auto wt = cast<RankedTensorType>(w->getType());
  int64_t n = wt.getRank() - 2;
  if (n < 1 || xt.getRank() != n + 2 || !wt.hasStaticShape())
    return emitError(ctx.loc) << "ConvTranspose: invalid input/weight ranks";
  SmallVector<int64_t> kernel(wt.getShape().drop_front(2));
  WindowParams p;
  p.strides = ctx.getInts("strides");
  p.dilations = ctx.getInts("dilations");
  if (p.strides.empty())
    p.strides.assign(n, 1);
  if (p.dilations.empty())
    p.dilations.assign(n, 1);
  SmallVector<int64_t> outPad = ctx.getInts("output_padding");
  if (outPad.empty())
    outPad.assign(n, 0);
  SmallVector<int64_t> pads = ctx.getInts("pads");
  if (pads.empty())
    pads.assign(2 * n, 0);
  if (int64_t(p.strides.size()) != n || int64_t(p.dilations.size()) != n ||
      int64_t(outPad.size()) != n || int64_t(pads.size()) != 2 * n)
    return emitError(ctx.loc) << "ConvTranspose: attribute lengths do not "
                                 "match the kernel";
  std::string autoPad = ctx.getString("auto_pad", "NOTSET");
  SmallVector<int64_t> outShape = ctx.getInts("output_shape");
  if (int64_t(outShape.size()) == n + 2)
    outShape.erase(outShape.begin(), outShape.begin() + 2);
  if (outShape.empty() && (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER"))
    for (int64_t i = 0; i < n; ++i)
      outShape.push_back(xt.getDimSize(i + 2) * p.strides[i]);
  if (!outShape.empty()) {
    if (int64_t(outShape.size()) != n)
      return emitError(ctx.loc) << "ConvTranspose: output_shape has "
                                << outShape.size() << " entries";
    for (int64_t i = 0; i < n; ++i) {
      int64_t in = xt.getDimSize(i + 2);
      if (ShapedType::isDynamic(in))
        return emitError(ctx.loc) << "unsupported ConvTranspose output_shape "
                                     "with dynamic spatial extents";
      int64_t total = p.strides[i] * (in - 1) + outPad[i] +
                      (kernel[i] - 1) * p.dilations[i] + 1 - outShape[i];
      if (total < 0) {
        // The output is larger than the full result: extend at the end.
        outPad[i] -= total;
        total = 0;
      }
      bool upper = autoPad == "SAME_UPPER";
      pads[i] = upper ? total / 2 : total - total / 2;
      pads[i + n] = total - pads[i];
    }
  } else if (autoPad != "NOTSET" && autoPad != "VALID") {
    return emitError(ctx.loc) << "invalid auto_pad '" << autoPad << "'";
  } else if (autoPad == "VALID") {
    pads.assign(2 * n, 0);
  }
  p.padsBegin.assign(pads.begin(), pads.begin() + n);
  p.padsEnd.assign(pads.begin() + n, pads.end());
  return ctx.setResult(0, buildConvTranspose(ctx.b, ctx.loc, *x, *w,
                                             ctx.optionalInput(2), p,
                                             ctx.getInt("group", 1), outPad));
}

} // namespace

void registerConvOps(OpTable &table) {
  table.add({
      {"CausalConvWithState", importCausalConvWithState},
      {"Col2Im", importCol2Im},
      {"Conv", importConv},
      {"ConvTranspose", importConvTranspose},
      {"DeformConv", importDeformConv},
  });
}

} // namespace mlprog::onnx_import
