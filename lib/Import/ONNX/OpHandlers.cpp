//===- OpHandlers.cpp - ONNX op -> tensor op builder table ----------------===//
//
// One handler per ONNX op type: it reads the node's operands and attributes
// (supplying the defaults the ONNX operator spec gives for the model's
// opset) and calls the shared builders in mlprog/Import/Common. Semantics
// belong in the builders, not here.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"
#include "TensorConversion.h"

#include "mlprog/Import/Common/Conv.h"
#include "mlprog/Import/Common/Creation.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/LinearAlgebra.h"
#include "mlprog/Import/Common/Normalization.h"
#include "mlprog/Import/Common/Pool.h"
#include "mlprog/Import/Common/Reduction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace mlprog::onnx_import {

FailureOr<int64_t> normalizeAxis(NodeContext &ctx, int64_t axis, int64_t rank,
                                 bool inclusiveEnd) {
  int64_t hi = inclusiveEnd ? rank : rank - 1;
  if (axis < -rank || axis > hi)
    return emitError(ctx.loc)
           << "axis " << axis << " out of range for rank " << rank;
  return axis < 0 ? axis + rank : axis;
}

int64_t rankOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank();
}

namespace {

//===--- Elementwise ------------------------------------------------------===//

/// Add, Sub, Mul, Div, Pow (ONNX opset 7+: multidirectional broadcasting).
template <BinaryOpKind Kind> LogicalResult importBinary(NodeContext &ctx) {
  FailureOr<Value> lhs = ctx.input(0), rhs = ctx.input(1);
  if (failed(lhs) || failed(rhs))
    return failure();
  return ctx.setResult(0, buildElementwiseBinary(ctx.b, ctx.loc, Kind, *lhs,
                                                 *rhs, ctx.isUnsignedInput(0)));
}

/// Max, Min: variadic (opset 8+ broadcasting), folded left to right.
template <BinaryOpKind Kind> LogicalResult importVariadic(NodeContext &ctx) {
  FailureOr<Value> acc = ctx.input(0);
  for (int i = 1; succeeded(acc) && i < ctx.node.input_size(); ++i) {
    FailureOr<Value> next = ctx.input(i);
    if (failed(next))
      return failure();
    acc = buildElementwiseBinary(ctx.b, ctx.loc, Kind, *acc, *next,
                                 ctx.isUnsignedInput(0));
  }
  return ctx.setResult(0, acc);
}

/// Relu, Sigmoid, Tanh, Exp, Log, Neg, Abs, Sqrt, Erf.
template <UnaryOpKind Kind> LogicalResult importUnary(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildElementwiseUnary(ctx.b, ctx.loc, Kind, *x));
}

/// Identity: the output is the input value.
LogicalResult importIdentity(NodeContext &ctx) {
  return ctx.setResult(0, ctx.input(0));
}

/// Dropout in inference: identity; the optional mask output is all true.
/// Opset 12+ takes training_mode as input 2, which must be a constant false.
LogicalResult importDropout(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  if (ctx.opset >= 12 && ctx.hasInput(2)) {
    // A training_mode computed at run time would need a random mask.
    if (!ctx.optionalConstantInput(2))
      return emitError(ctx.loc) << "unsupported Dropout with a non-constant "
                                   "training_mode input";
    FailureOr<DenseElementsAttr> mode = ctx.constantInput(2);
    if (failed(mode))
      return failure();
    if (llvm::any_of(mode->getValues<bool>(), [](bool v) { return v; }))
      return emitError(ctx.loc) << "unsupported Dropout training_mode=1";
  }
  if (ctx.hasOutput(1)) {
    FailureOr<Value> mask = buildBroadcastedGeneric(
        ctx.b, ctx.loc, *x, ctx.b.getI1Type(),
        [](OpBuilder &b, Location loc, ValueRange) -> Value {
          return arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
        });
    if (failed(ctx.setResult(1, mask)))
      return failure();
  }
  return ctx.setResult(0, x);
}

/// BatchNormalization in training mode (opset 14+, training_mode = 1):
/// normalizes with the batch statistics and returns the running averages
/// `running * momentum + batch * (1 - momentum)` (biased batch variance) as
/// outputs 1 and 2.
LogicalResult importBatchNormTraining(NodeContext &ctx, ArrayRef<Value> in) {
  FailureOr<BatchNormTrainingResult> r = buildBatchNormTraining(
      ctx.b, ctx.loc, in[0], in[1], in[2], ctx.getFloat("epsilon", 1e-5));
  if (failed(r) || failed(ctx.setResult(0, r->output)))
    return failure();
  double momentum = ctx.getFloat("momentum", 0.9);
  if (ctx.hasOutput(1) &&
      failed(ctx.setResult(
          1, buildRunningAverage(ctx.b, ctx.loc, in[3], r->mean, momentum))))
    return failure();
  if (ctx.hasOutput(2) &&
      failed(ctx.setResult(2, buildRunningAverage(ctx.b, ctx.loc, in[4],
                                                  r->biasedVar, momentum))))
    return failure();
  return success();
}

/// BatchNormalization: inference (before opset 9: spatial = 1), or training
/// mode from opset 14 (training_mode = 1, see importBatchNormTraining).
/// The training outputs of opsets before 14 are rejected.
LogicalResult importBatchNorm(NodeContext &ctx) {
  int64_t mode = ctx.getInt("training_mode", 0);
  if (mode != 0 && (mode != 1 || ctx.opset < 14))
    return emitError(ctx.loc)
           << "unsupported BatchNormalization attribute training_mode=" << mode;
  if (ctx.opset < 9 && ctx.getInt("spatial", 1) != 1)
    return emitError(ctx.loc)
           << "unsupported BatchNormalization attribute spatial="
           << ctx.getInt("spatial", 1);
  if (!mode)
    for (int i = 1; i < ctx.node.output_size(); ++i)
      if (ctx.hasOutput(i))
        return emitError(ctx.loc) << "unsupported BatchNormalization training "
                                     "output "
                                  << i;
  SmallVector<Value> in;
  for (unsigned i = 0; i < 5; ++i) {
    FailureOr<Value> v = ctx.input(i);
    if (failed(v))
      return failure();
    in.push_back(*v);
  }
  if (mode)
    return importBatchNormTraining(ctx, in);
  return ctx.setResult(
      0, buildBatchNormInference(ctx.b, ctx.loc, in[0], in[1], in[2], in[3],
                                 in[4], ctx.getFloat("epsilon", 1e-5)));
}

/// Softmax. Opset < 13: the input is coerced to 2-D at `axis` (default 1),
/// i.e. softmax over dims [axis, rank). Opset 13+: over `axis` (default -1).
LogicalResult importSoftmax(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  int64_t rank = rankOf(*x);
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", ctx.opset < 13 ? 1 : -1), rank);
  if (failed(axis))
    return failure();
  SmallVector<int64_t> axes = {*axis};
  if (ctx.opset < 13)
    for (int64_t d = *axis + 1; d < rank; ++d)
      axes.push_back(d);
  return ctx.setResult(0, buildSoftmax(ctx.b, ctx.loc, *x, axes));
}

//===--- Contractions -----------------------------------------------------===//

/// MatMul (numpy.matmul).
LogicalResult importMatMul(NodeContext &ctx) {
  FailureOr<Value> a = ctx.input(0), b = ctx.input(1);
  if (failed(a) || failed(b))
    return failure();
  return ctx.setResult(0, buildMatMul(ctx.b, ctx.loc, *a, *b));
}

/// Gemm: alpha = beta = 1.0, transA = transB = 0 by default; C optional
/// since opset 11.
LogicalResult importGemm(NodeContext &ctx) {
  FailureOr<Value> a = ctx.input(0), b = ctx.input(1);
  if (failed(a) || failed(b))
    return failure();
  return ctx.setResult(
      0, buildGemm(ctx.b, ctx.loc, *a, *b, ctx.optionalInput(2),
                   ctx.getFloat("alpha", 1.0), ctx.getFloat("beta", 1.0),
                   ctx.getInt("transA", 0), ctx.getInt("transB", 0)));
}

//===--- Sliding windows --------------------------------------------------===//

} // namespace

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
  if (shape.size() != n + 2 ||
      llvm::any_of(shape.drop_front(2), ShapedType::isDynamic))
    return emitError(ctx.loc)
           << "auto_pad " << autoPad << " needs static spatial extents";
  if ((!params.strides.empty() && params.strides.size() != n) ||
      (!params.dilations.empty() && params.dilations.size() != n))
    return emitError(ctx.loc) << "strides/dilations do not match the kernel";
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

/// MaxPool: ceil_mode and dilations since opset 10; the optional Indices
/// output (opset 8+), row-major (storage_order = 0) or column-major (1).
LogicalResult importMaxPool(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  SmallVector<int64_t> kernel = ctx.getInts("kernel_shape");
  FailureOr<WindowParams> params = getWindowParams(ctx, *x, kernel);
  if (failed(params))
    return failure();
  bool ceilMode = ctx.getInt("ceil_mode", 0);
  if (!ctx.hasOutput(1))
    return ctx.setResult(0, buildMaxPool(ctx.b, ctx.loc, *x, kernel, *params,
                                         ceilMode, ctx.isUnsignedInput(0)));
  int64_t order = ctx.getInt("storage_order", 0);
  if (order != 0 && order != 1)
    return emitError(ctx.loc) << "invalid MaxPool storage_order " << order;
  FailureOr<std::pair<Value, Value>> r =
      buildMaxPoolWithIndices(ctx.b, ctx.loc, *x, kernel, *params, ceilMode,
                              order == 1, ctx.isUnsignedInput(0));
  if (failed(r))
    return failure();
  if (failed(ctx.setResult(0, r->first)))
    return failure();
  return ctx.setResult(1, r->second);
}

/// AveragePool: count_include_pad = 0, ceil_mode = 0 by default.
LogicalResult importAveragePool(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  SmallVector<int64_t> kernel = ctx.getInts("kernel_shape");
  FailureOr<WindowParams> params = getWindowParams(ctx, *x, kernel);
  if (failed(params))
    return failure();
  return ctx.setResult(0, buildAveragePool(ctx.b, ctx.loc, *x, kernel, *params,
                                           ctx.getInt("ceil_mode", 0),
                                           ctx.getInt("count_include_pad", 0)));
}

/// GlobalAveragePool.
LogicalResult importGlobalAveragePool(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildGlobalAveragePool(ctx.b, ctx.loc, *x));
}

//===--- Constants --------------------------------------------------------===//

/// The tensor of a Constant node: `value`, or (opset 12+) value_float(s),
/// value_int(s). Sparse and string constants are not supported.
FailureOr<DenseElementsAttr> getConstantValue(NodeContext &ctx) {
  OpBuilder &b = ctx.b;
  if (const onnx::AttributeProto *a = ctx.attribute("value"))
    return convertTensor(ctx.loc, a->t());
  if (const onnx::AttributeProto *a = ctx.attribute("value_float"))
    return DenseElementsAttr::get(RankedTensorType::get({}, b.getF32Type()),
                                  a->f());
  if (const onnx::AttributeProto *a = ctx.attribute("value_floats")) {
    SmallVector<float> v(a->floats().begin(), a->floats().end());
    return DenseElementsAttr::get(
        RankedTensorType::get({int64_t(v.size())}, b.getF32Type()),
        ArrayRef<float>(v));
  }
  if (const onnx::AttributeProto *a = ctx.attribute("value_int"))
    return DenseElementsAttr::get(RankedTensorType::get({}, b.getI64Type()),
                                  int64_t(a->i()));
  if (const onnx::AttributeProto *a = ctx.attribute("value_ints")) {
    SmallVector<int64_t> v(a->ints().begin(), a->ints().end());
    return DenseElementsAttr::get(
        RankedTensorType::get({int64_t(v.size())}, b.getI64Type()),
        ArrayRef<int64_t>(v));
  }
  return emitError(ctx.loc) << "unsupported Constant value attribute (only "
                               "value, value_float(s) and value_int(s) are "
                               "implemented)";
}

/// Constant: an arith.constant whose value later nodes (Reshape) may read.
LogicalResult importConstant(NodeContext &ctx) {
  FailureOr<DenseElementsAttr> value = getConstantValue(ctx);
  if (failed(value))
    return failure();
  ctx.setConstantResult(0, buildConstant(ctx.b, ctx.loc, *value), *value);
  return success();
}

} // namespace

void registerCoreOpHandlers(OpHandlerTable &table) {
  static const std::pair<const char *, OpHandler> handlers[] = {
      {"Abs", importUnary<UnaryOpKind::Abs>},
      {"Add", importBinary<BinaryOpKind::Add>},
      {"AveragePool", importAveragePool},
      {"BatchNormalization", importBatchNorm},
      {"Constant", importConstant},
      {"Conv", importConv},
      {"Div", importBinary<BinaryOpKind::Div>},
      {"Dropout", importDropout},
      {"Erf", importUnary<UnaryOpKind::Erf>},
      {"Exp", importUnary<UnaryOpKind::Exp>},
      {"Gemm", importGemm},
      {"GlobalAveragePool", importGlobalAveragePool},
      {"Identity", importIdentity},
      {"Log", importUnary<UnaryOpKind::Log>},
      {"MatMul", importMatMul},
      {"Max", importVariadic<BinaryOpKind::Max>},
      {"MaxPool", importMaxPool},
      {"Min", importVariadic<BinaryOpKind::Min>},
      {"Mul", importBinary<BinaryOpKind::Mul>},
      {"Neg", importUnary<UnaryOpKind::Neg>},
      {"Relu", importUnary<UnaryOpKind::Relu>},
      {"Sigmoid", importUnary<UnaryOpKind::Sigmoid>},
      {"Softmax", importSoftmax},
      {"Sqrt", importUnary<UnaryOpKind::Sqrt>},
      {"Sub", importBinary<BinaryOpKind::Sub>},
      {"Tanh", importUnary<UnaryOpKind::Tanh>},
  };
  for (const auto &[name, handler] : handlers)
    table[name] = handler;
}

const llvm::StringMap<OpHandler> &getOpHandlers() {
  static const OpHandlerTable table = [] {
    OpHandlerTable t;
    registerCoreOpHandlers(t);
    registerMathOpHandlers(t);
    registerTensorOpHandlers(t);
    registerControlFlowOpHandlers(t);
    registerResizeOpHandlers(t);
    registerIndexingOpHandlers(t);
    registerQuantizationOpHandlers(t);
    registerRecurrentOpHandlers(t);
    registerSignalOpHandlers(t);
    return t;
  }();
  return table;
}

} // namespace mlprog::onnx_import
