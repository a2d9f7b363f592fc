//===- SignalOps.cpp - ONNX DFT, STFT, MelWeightMatrix --------------------===//
//
// Handlers for ONNX's signal processing ops (DFT, STFT, MelWeightMatrix);
// the transforms themselves are built by Common/Signal.h.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"

#include "mlprog/Import/Common/Signal.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace mlprog::onnx_import {
namespace {

/// The value of the one-element integer input `i` as an index: a constant
/// when it is known at compile time, else read with tensor.extract.
FailureOr<Value> scalarIndexInput(NodeContext &ctx, unsigned i,
                                  StringRef what) {
  if (DenseElementsAttr c = ctx.optionalConstantInput(i)) {
    if (c.getNumElements() != 1 || !c.getElementType().isInteger())
      return emitError(ctx.loc) << ctx.node.op_type() << ": " << what
                                << " must be a one-element integer tensor";
    return arith::ConstantIndexOp::create(
               ctx.b, ctx.loc, (*c.getValues<APInt>().begin()).getSExtValue())
        .getResult();
  }
  FailureOr<Value> v = ctx.input(i);
  if (failed(v))
    return failure();
  auto type = dyn_cast<RankedTensorType>(v->getType());
  if (!type || !type.getElementType().isSignlessInteger() ||
      !type.hasStaticShape() || type.getNumElements() != 1)
    return emitError(ctx.loc)
           << ctx.node.op_type() << ": " << what
           << " must be a one-element integer tensor, got " << v->getType();
  Value zero = arith::ConstantIndexOp::create(ctx.b, ctx.loc, 0);
  SmallVector<Value> indices(type.getRank(), zero);
  Value elem = tensor::ExtractOp::create(ctx.b, ctx.loc, *v, indices);
  return arith::IndexCastOp::create(ctx.b, ctx.loc, ctx.b.getIndexType(), elem)
      .getResult();
}

/// Casts `v` to the static output shape shape inference gives output 0, if
/// there is one and `v` is less static.
Value refineToOutputShape(NodeContext &ctx, Value v) {
  std::optional<SmallVector<int64_t>> out = ctx.staticOutputShape(0);
  auto type = cast<RankedTensorType>(v.getType());
  if (!out || int64_t(out->size()) != type.getRank() || type.hasStaticShape())
    return v;
  return tensor::CastOp::create(ctx.b, ctx.loc, type.clone(*out), v);
}

/// DFT (opset 17): attributes axis (default 1), inverse, onesided; the
/// optional dft_length input must be a compile-time constant (else
/// unsupported), as must the extent along `axis`.
LogicalResult importDFT(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  std::optional<int64_t> length;
  if (ctx.hasInput(1)) {
    DenseElementsAttr c = ctx.optionalConstantInput(1);
    if (!c)
      return emitError(ctx.loc) << "unsupported DFT with a run-time dft_length";
    if (c.getNumElements() != 1 || !c.getElementType().isInteger())
      return emitError(ctx.loc)
             << "DFT: dft_length must be a one-element integer tensor";
    length = (*c.getValues<APInt>().begin()).getSExtValue();
  }
  int64_t rank = rankOf(*x);
  int64_t axis = ctx.getInt("axis", 1);
  // Accepted: [-rank, -2] and [0, rank - 2]; the trailing [1 or 2] dim
  // cannot be transformed (the builder rejects it).
  if (axis < 0)
    axis += rank;
  return ctx.setResult(0, buildDFT(ctx.b, ctx.loc, *x, axis, length,
                                   ctx.getInt("inverse", 0) != 0,
                                   ctx.getInt("onesided", 0) != 0));
}

/// STFT (opset 17): inputs signal, frame_step, window (optional),
/// frame_length (optional; the window's length when absent); attribute
/// onesided (default 1). frame_step and frame_length may be run-time
/// values.
LogicalResult importSTFT(NodeContext &ctx) {
  FailureOr<Value> signal = ctx.input(0);
  FailureOr<Value> step = scalarIndexInput(ctx, 1, "frame_step");
  if (failed(signal) || failed(step))
    return failure();
  Value window = ctx.optionalInput(2);
  Value frameLength;
  if (ctx.hasInput(3)) {
    FailureOr<Value> fl = scalarIndexInput(ctx, 3, "frame_length");
    if (failed(fl))
      return failure();
    frameLength = *fl;
  } else if (window) {
    auto wt = dyn_cast<RankedTensorType>(window.getType());
    if (!wt || wt.getRank() != 1)
      return emitError(ctx.loc)
             << "STFT: window must be 1-D, got " << window.getType();
    frameLength = tensor::DimOp::create(ctx.b, ctx.loc, window, 0);
  } else {
    return emitError(ctx.loc) << "STFT: needs a window or a frame_length input";
  }
  FailureOr<Value> result =
      buildSTFT(ctx.b, ctx.loc, *signal, *step, window, frameLength,
                ctx.getInt("onesided", 1) != 0);
  if (failed(result))
    return failure();
  return ctx.setResult(0, refineToOutputShape(ctx, *result));
}

/// The one-element numeric input `i` as an f64 value.
FailureOr<Value> scalarF64Input(NodeContext &ctx, unsigned i, StringRef what) {
  FailureOr<Value> v = ctx.input(i);
  if (failed(v))
    return failure();
  auto type = dyn_cast<RankedTensorType>(v->getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() != 1 ||
      !(isa<FloatType>(type.getElementType()) ||
        type.getElementType().isSignlessInteger()))
    return emitError(ctx.loc)
           << ctx.node.op_type() << ": " << what
           << " must be a one-element numeric tensor, got " << v->getType();
  Value zero = arith::ConstantIndexOp::create(ctx.b, ctx.loc, 0);
  SmallVector<Value> indices(type.getRank(), zero);
  Value elem = tensor::ExtractOp::create(ctx.b, ctx.loc, *v, indices);
  Type f64 = ctx.b.getF64Type();
  if (isa<IntegerType>(elem.getType()))
    return arith::SIToFPOp::create(ctx.b, ctx.loc, f64, elem).getResult();
  if (elem.getType() != f64)
    return arith::ExtFOp::create(ctx.b, ctx.loc, f64, elem).getResult();
  return elem;
}

/// MelWeightMatrix (opset 17): all five inputs may be run-time scalars;
/// output_datatype FLOAT, FLOAT16 or DOUBLE (others unsupported).
LogicalResult importMelWeightMatrix(NodeContext &ctx) {
  int64_t dtype = ctx.getInt("output_datatype", onnx::TensorProto::FLOAT);
  Type elt;
  if (dtype == onnx::TensorProto::FLOAT)
    elt = ctx.b.getF32Type();
  else if (dtype == onnx::TensorProto::DOUBLE)
    elt = ctx.b.getF64Type();
  else if (dtype == onnx::TensorProto::FLOAT16)
    elt = ctx.b.getF16Type();
  else
    return emitError(ctx.loc)
           << "unsupported MelWeightMatrix output_datatype " << dtype;
  FailureOr<Value> bins = scalarIndexInput(ctx, 0, "num_mel_bins");
  FailureOr<Value> length = scalarIndexInput(ctx, 1, "dft_length");
  FailureOr<Value> rate = scalarF64Input(ctx, 2, "sample_rate");
  FailureOr<Value> lower = scalarF64Input(ctx, 3, "lower_edge_hertz");
  FailureOr<Value> upper = scalarF64Input(ctx, 4, "upper_edge_hertz");
  if (failed(bins) || failed(length) || failed(rate) || failed(lower) ||
      failed(upper))
    return failure();
  FailureOr<Value> result = buildMelWeightMatrix(ctx.b, ctx.loc, *bins, *length,
                                                 *rate, *lower, *upper, elt);
  if (failed(result))
    return failure();
  return ctx.setResult(0, refineToOutputShape(ctx, *result));
}

} // namespace

void registerSignalOps(OpTable &table) {
  table.add({
      {"DFT", importDFT},
      {"STFT", importSTFT},
      {"MelWeightMatrix", importMelWeightMatrix},
  });
}

} // namespace mlprog::onnx_import
