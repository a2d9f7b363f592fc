//===- OpHandlers.cpp - MIL op -> tensor op builder table -----------------===//
//
// One handler per MIL op type (iOS15+ semantics): it reads the op's named
// arguments and compile-time parameters (supplying the MIL spec defaults)
// and calls the shared builders in mlprog/Import/Common. Control flow (cond,
// while_loop) recurses into ProgramImporter::importBlock.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlprog/Import/Common/Conv.h"
#include "mlprog/Import/Common/Creation.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/LinearAlgebra.h"
#include "mlprog/Import/Common/Logic.h"
#include "mlprog/Import/Common/Normalization.h"
#include "mlprog/Import/Common/Pool.h"
#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Resample.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace mlprog::mil_import {
namespace {

int64_t rankOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getRank();
}

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

FailureOr<int64_t> normalizeAxis(OpContext &ctx, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return emitError(ctx.loc)
           << "axis " << axis << " out of range for rank " << rank;
  return axis < 0 ? axis + rank : axis;
}

//===--- Elementwise ------------------------------------------------------===//

template <BinaryOpKind Kind> LogicalResult importBinary(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), y = ctx.input("y");
  if (failed(x) || failed(y))
    return failure();
  return ctx.setResult(0, buildElementwiseBinary(ctx.b, ctx.loc, Kind, *x, *y));
}

LogicalResult importFloorDiv(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), y = ctx.input("y");
  if (failed(x) || failed(y))
    return failure();
  return ctx.setResult(
      0, buildDivision(ctx.b, ctx.loc, DivisionKind::FloorDivide, *x, *y));
}

template <UnaryOpKind Kind> LogicalResult importUnary(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildElementwiseUnary(ctx.b, ctx.loc, Kind, *x));
}

template <PointwiseKind Kind> LogicalResult importActivation(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildPointwise(ctx.b, ctx.loc, Kind, *x));
}

/// log(x, epsilon = 1e-45): log(x + epsilon).
LogicalResult importLog(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<double> eps = ctx.getFloat("epsilon", 1e-45);
  if (failed(x) || failed(eps))
    return failure();
  FailureOr<Value> shifted = buildAddScalar(ctx.b, ctx.loc, *x, *eps);
  if (failed(shifted))
    return failure();
  return ctx.setResult(
      0, buildElementwiseUnary(ctx.b, ctx.loc, UnaryOpKind::Log, *shifted));
}

/// rsqrt(x, epsilon = 1e-12): 1 / sqrt(x + epsilon).
LogicalResult importRsqrt(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<double> eps = ctx.getFloat("epsilon", 1e-12);
  if (failed(x) || failed(eps))
    return failure();
  FailureOr<Value> shifted = buildAddScalar(ctx.b, ctx.loc, *x, *eps);
  if (failed(shifted))
    return failure();
  return ctx.setResult(
      0, buildPointwise(ctx.b, ctx.loc, PointwiseKind::Rsqrt, *shifted));
}

LogicalResult importGelu(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<std::string> mode = ctx.getString("mode", std::string("EXACT"));
  if (failed(x) || failed(mode))
    return failure();
  PointwiseKind approximation;
  if (*mode == "EXACT")
    approximation = PointwiseKind::Gelu;
  else if (*mode == "TANH_APPROXIMATION")
    approximation = PointwiseKind::GeluTanh;
  else if (*mode == "SIGMOID_APPROXIMATION")
    approximation = PointwiseKind::GeluSigmoid;
  else
    return emitError(ctx.loc) << "invalid gelu mode '" << *mode << "'";
  return ctx.setResult(0, buildPointwise(ctx.b, ctx.loc, approximation, *x));
}

LogicalResult importLeakyRelu(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<double> alpha = ctx.getFloat("alpha", 0.01);
  if (failed(x) || failed(alpha))
    return failure();
  return ctx.setResult(0, buildLeakyRelu(ctx.b, ctx.loc, *x, *alpha));
}

LogicalResult importRelu6(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildClamp(ctx.b, ctx.loc, *x, 0.0, 6.0));
}

/// clip(x, alpha, beta): min(max(x, alpha), beta).
LogicalResult importClip(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<double> lo = ctx.getFloat("alpha"), hi = ctx.getFloat("beta");
  if (failed(x) || failed(lo) || failed(hi))
    return failure();
  return ctx.setResult(0, buildClamp(ctx.b, ctx.loc, *x, *lo, *hi));
}

LogicalResult importIdentity(OpContext &ctx) {
  return ctx.setResult(0, ctx.input("x"));
}

template <CompareKind Kind> LogicalResult importCompare(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), y = ctx.input("y");
  if (failed(x) || failed(y))
    return failure();
  return ctx.setResult(0, buildCompare(ctx.b, ctx.loc, Kind, *x, *y));
}

template <LogicalKind Kind> LogicalResult importLogical(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), y = ctx.input("y");
  if (failed(x) || failed(y))
    return failure();
  return ctx.setResult(0, buildLogical(ctx.b, ctx.loc, Kind, *x, *y));
}

LogicalResult importLogicalNot(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildLogicalNot(ctx.b, ctx.loc, *x));
}

LogicalResult importSelect(OpContext &ctx) {
  FailureOr<Value> cond = ctx.input("cond"), a = ctx.input("a"),
                   b = ctx.input("b");
  if (failed(cond) || failed(a) || failed(b))
    return failure();
  return ctx.setResult(0, buildSelect(ctx.b, ctx.loc, *cond, *a, *b));
}

/// cast(x, dtype): dtype is "bool", "int8"..."int64", "uint8"...,
/// "fp16", "fp32", "fp64".
LogicalResult importCast(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<std::string> dtype = ctx.getString("dtype");
  if (failed(x) || failed(dtype))
    return failure();
  Builder &b = ctx.b;
  Type to = llvm::StringSwitch<Type>(*dtype)
                .Case("bool", b.getI1Type())
                .Cases("int8", "uint8", b.getIntegerType(8))
                .Cases("int16", "uint16", b.getIntegerType(16))
                .Cases("int32", "uint32", b.getIntegerType(32))
                .Cases("int64", "uint64", b.getIntegerType(64))
                .Case("fp16", b.getF16Type())
                .Case("fp32", b.getF32Type())
                .Case("fp64", b.getF64Type())
                .Case("bf16", b.getBF16Type())
                .Default(Type());
  if (!to)
    return emitError(ctx.loc) << "unsupported cast dtype '" << *dtype << "'";
  return ctx.setResult(
      0, buildConvertElementType(ctx.b, ctx.loc, *x, to, false,
                                 StringRef(*dtype).starts_with("uint")));
}

//===--- Normalization ----------------------------------------------------===//

/// A [C] tensor of `value` matching the channel dim of `x`.
Value channelConstant(OpContext &ctx, Value x, double value) {
  RankedTensorType t = typeOf(x);
  auto type = RankedTensorType::get({t.getDimSize(1)}, t.getElementType());
  return arith::ConstantOp::create(
      ctx.b, ctx.loc,
      DenseElementsAttr::get(type,
                             ctx.b.getFloatAttr(t.getElementType(), value)));
}

LogicalResult importBatchNorm(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), mean = ctx.input("mean"),
                   var = ctx.input("variance");
  FailureOr<Value> gamma = ctx.optionalInput("gamma"),
                   beta = ctx.optionalInput("beta");
  FailureOr<double> eps = ctx.getFloat("epsilon", 1e-5);
  if (failed(x) || failed(mean) || failed(var) || failed(gamma) ||
      failed(beta) || failed(eps))
    return failure();
  if (rankOf(*x) < 2 || typeOf(*x).isDynamicDim(1))
    return emitError(ctx.loc)
           << "batch_norm needs a static channel dim, got " << x->getType();
  Value g = *gamma ? *gamma : channelConstant(ctx, *x, 1.0);
  Value bt = *beta ? *beta : channelConstant(ctx, *x, 0.0);
  return ctx.setResult(
      0, buildBatchNormInference(ctx.b, ctx.loc, *x, g, bt, *mean, *var, *eps));
}

LogicalResult importInstanceNorm(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<Value> gamma = ctx.optionalInput("gamma"),
                   beta = ctx.optionalInput("beta");
  FailureOr<double> eps = ctx.getFloat("epsilon", 1e-5);
  if (failed(x) || failed(gamma) || failed(beta) || failed(eps))
    return failure();
  return ctx.setResult(
      0, buildInstanceNorm(ctx.b, ctx.loc, *x, *gamma, *beta, *eps));
}

LogicalResult importLayerNorm(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<Value> gamma = ctx.optionalInput("gamma"),
                   beta = ctx.optionalInput("beta");
  FailureOr<SmallVector<int64_t>> axes =
      ctx.getInts("axes", SmallVector<int64_t>());
  FailureOr<double> eps = ctx.getFloat("epsilon", 1e-5);
  if (failed(x) || failed(gamma) || failed(beta) || failed(axes) || failed(eps))
    return failure();
  FailureOr<LayerNormResult> r =
      buildLayerNorm(ctx.b, ctx.loc, *x, *axes, *gamma, *beta, *eps);
  if (failed(r))
    return failure();
  return ctx.setResult(0, r->y);
}

LogicalResult importSoftmax(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<int64_t> axis = ctx.getInt("axis", -1);
  if (failed(x) || failed(axis))
    return failure();
  return ctx.setResult(0, buildSoftmax(ctx.b, ctx.loc, *x, {*axis}));
}

template <ReduceKind Kind> LogicalResult importReduce(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<SmallVector<int64_t>> axes =
      ctx.getInts("axes", SmallVector<int64_t>());
  FailureOr<bool> keepDims = ctx.getBool("keep_dims", false);
  if (failed(x) || failed(axes) || failed(keepDims))
    return failure();
  return ctx.setResult(0,
                       buildReduce(ctx.b, ctx.loc, Kind, *x, *axes, *keepDims));
}

//===--- Contractions -----------------------------------------------------===//

/// Swaps the last two dims of `x` (rank >= 2).
FailureOr<Value> transposeLast2(OpContext &ctx, Value x) {
  int64_t rank = rankOf(x);
  if (rank < 2)
    return x;
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    perm.push_back(d);
  std::swap(perm[rank - 1], perm[rank - 2]);
  return buildTranspose(ctx.b, ctx.loc, x, perm);
}

LogicalResult importMatMul(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), y = ctx.input("y");
  FailureOr<bool> tx = ctx.getBool("transpose_x", false),
                  ty = ctx.getBool("transpose_y", false);
  if (failed(x) || failed(y) || failed(tx) || failed(ty))
    return failure();
  if (*tx && failed(x = transposeLast2(ctx, *x)))
    return failure();
  if (*ty && failed(y = transposeLast2(ctx, *y)))
    return failure();
  return ctx.setResult(0, buildMatMul(ctx.b, ctx.loc, *x, *y));
}

/// linear(x, weight [Dout, Din], bias [Dout]): x @ weight^T + bias.
LogicalResult importLinear(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), w = ctx.input("weight");
  FailureOr<Value> bias = ctx.optionalInput("bias");
  if (failed(x) || failed(w) || failed(bias))
    return failure();
  if (rankOf(*w) != 2)
    return emitError(ctx.loc)
           << "linear weight must be 2-D, got " << w->getType();
  FailureOr<Value> wt = buildTranspose(ctx.b, ctx.loc, *w, {1, 0});
  if (failed(wt))
    return failure();
  FailureOr<Value> y = buildMatMul(ctx.b, ctx.loc, *x, *wt);
  if (failed(y) || !*bias)
    return ctx.setResult(0, y);
  return ctx.setResult(
      0, buildElementwiseBinary(ctx.b, ctx.loc, BinaryOpKind::Add, *y, *bias));
}

//===--- Sliding windows --------------------------------------------------===//

/// strides, dilations, pad_type ("valid" default, "same", "same_lower",
/// "custom") and pad ([begin, end] per spatial dim) of conv and pooling.
FailureOr<WindowParams> getWindowParams(OpContext &ctx, Value x,
                                        ArrayRef<int64_t> kernel,
                                        bool hasDilations) {
  size_t n = kernel.size();
  WindowParams params;
  FailureOr<SmallVector<int64_t>> strides =
      ctx.getInts("strides", SmallVector<int64_t>(n, 1));
  FailureOr<SmallVector<int64_t>> dilations =
      hasDilations
          ? ctx.getInts("dilations", SmallVector<int64_t>(n, 1))
          : FailureOr<SmallVector<int64_t>>(SmallVector<int64_t>(n, 1));
  FailureOr<std::string> padType =
      ctx.getString("pad_type", std::string("valid"));
  if (failed(strides) || failed(dilations) || failed(padType))
    return failure();
  if (strides->size() != n || dilations->size() != n)
    return emitError(ctx.loc) << "strides/dilations need " << n << " values";
  params.strides = *strides;
  params.dilations = *dilations;
  if (*padType == "valid")
    return params;
  if (*padType == "custom") {
    FailureOr<SmallVector<int64_t>> pad =
        ctx.getInts("pad", SmallVector<int64_t>(2 * n, 0));
    if (failed(pad))
      return failure();
    if (pad->size() != 2 * n)
      return emitError(ctx.loc)
             << "expected " << 2 * n << " pad values, got " << pad->size();
    for (size_t i = 0; i < n; ++i) {
      params.padsBegin.push_back((*pad)[2 * i]);
      params.padsEnd.push_back((*pad)[2 * i + 1]);
    }
    return params;
  }
  if (*padType != "same" && *padType != "same_lower")
    return emitError(ctx.loc) << "invalid pad_type '" << *padType << "'";
  ArrayRef<int64_t> shape = typeOf(x).getShape();
  if (shape.size() != n + 2 ||
      llvm::any_of(shape.drop_front(2), ShapedType::isDynamic))
    return emitError(ctx.loc)
           << "pad_type " << *padType << " needs static spatial extents";
  computeSamePadding(shape.drop_front(2), kernel, *padType == "same_lower",
                     params);
  return params;
}

LogicalResult importConv(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), w = ctx.input("weight");
  FailureOr<Value> bias = ctx.optionalInput("bias");
  FailureOr<int64_t> groups = ctx.getInt("groups", 1);
  if (failed(x) || failed(w) || failed(bias) || failed(groups))
    return failure();
  if (rankOf(*w) < 3)
    return emitError(ctx.loc) << "conv weight must have rank >= 3";
  FailureOr<WindowParams> params = getWindowParams(
      ctx, *x, typeOf(*w).getShape().drop_front(2), /*hasDilations=*/true);
  if (failed(params))
    return failure();
  return ctx.setResult(
      0, buildConv(ctx.b, ctx.loc, *x, *w, *bias, *params, *groups));
}

/// conv_transpose(x, weight [C, F / groups, K...], bias, pad_type, pad,
/// output_shape, strides, dilations, groups): output_shape, when given,
/// decides the output padding at the end of each spatial dim.
LogicalResult importConvTranspose(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), w = ctx.input("weight");
  FailureOr<Value> bias = ctx.optionalInput("bias");
  FailureOr<int64_t> groups = ctx.getInt("groups", 1);
  FailureOr<std::string> padType =
      ctx.getString("pad_type", std::string("valid"));
  if (failed(x) || failed(w) || failed(bias) || failed(groups) ||
      failed(padType))
    return failure();
  RankedTensorType xt = typeOf(*x), wt = typeOf(*w);
  if (wt.getRank() < 3 || xt.getRank() != wt.getRank() ||
      !xt.hasStaticShape() || !wt.hasStaticShape())
    return emitError(ctx.loc) << "conv_transpose needs static input and "
                                 "weight of one rank >= 3";
  size_t n = wt.getRank() - 2;
  WindowParams params;
  if (*padType == "same" || *padType == "same_lower") {
    // Output extent = input extent * stride.
    FailureOr<SmallVector<int64_t>> strides =
        ctx.getInts("strides", SmallVector<int64_t>(n, 1));
    FailureOr<SmallVector<int64_t>> dilations =
        ctx.getInts("dilations", SmallVector<int64_t>(n, 1));
    if (failed(strides) || failed(dilations))
      return failure();
    if (strides->size() != n || dilations->size() != n)
      return emitError(ctx.loc) << "strides/dilations need " << n << " values";
    params.strides = *strides;
    params.dilations = *dilations;
    for (size_t i = 0; i < n; ++i) {
      int64_t total = std::max<int64_t>(
          0, (*dilations)[i] * (wt.getDimSize(2 + i) - 1) + 1 - (*strides)[i]);
      int64_t small = total / 2, big = total - small;
      params.padsBegin.push_back(*padType == "same" ? small : big);
      params.padsEnd.push_back(*padType == "same" ? big : small);
    }
  } else {
    FailureOr<WindowParams> p = getWindowParams(
        ctx, *x, wt.getShape().drop_front(2), /*hasDilations=*/true);
    if (failed(p))
      return failure();
    params = *p;
  }
  SmallVector<int64_t> outputPadding(n, 0);
  if (ctx.has("output_shape")) {
    FailureOr<SmallVector<int64_t>> shape = ctx.getInts("output_shape");
    if (failed(shape))
      return failure();
    if (shape->size() != n + 2 && shape->size() != n)
      return emitError(ctx.loc)
             << "conv_transpose: output_shape needs " << n + 2 << " values";
    ArrayRef<int64_t> spatial = ArrayRef<int64_t>(*shape).take_back(n);
    for (size_t i = 0; i < n; ++i) {
      int64_t s = params.strides.empty() ? 1 : params.strides[i];
      int64_t d = params.dilations.empty() ? 1 : params.dilations[i];
      int64_t pb = params.padsBegin.empty() ? 0 : params.padsBegin[i];
      int64_t pe = params.padsEnd.empty() ? 0 : params.padsEnd[i];
      int64_t natural = (xt.getDimSize(2 + i) - 1) * s - pb - pe +
                        d * (wt.getDimSize(2 + i) - 1) + 1;
      outputPadding[i] = spatial[i] - natural;
      if (outputPadding[i] < 0 || outputPadding[i] >= std::max(s, d))
        return emitError(ctx.loc)
               << "conv_transpose: output_shape extent " << spatial[i]
               << " is not reachable from " << natural;
    }
  }
  return ctx.setResult(0, buildConvTranspose(ctx.b, ctx.loc, *x, *w, *bias,
                                             params, *groups, outputPadding));
}

LogicalResult importMaxPool(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<SmallVector<int64_t>> kernel = ctx.getInts("kernel_sizes");
  FailureOr<bool> ceilMode = ctx.getBool("ceil_mode", false);
  if (failed(x) || failed(kernel) || failed(ceilMode))
    return failure();
  FailureOr<WindowParams> params =
      getWindowParams(ctx, *x, *kernel, /*hasDilations=*/false);
  if (failed(params))
    return failure();
  return ctx.setResult(
      0, buildMaxPool(ctx.b, ctx.loc, *x, *kernel, *params, *ceilMode));
}

LogicalResult importAvgPool(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<SmallVector<int64_t>> kernel = ctx.getInts("kernel_sizes");
  FailureOr<bool> ceilMode = ctx.getBool("ceil_mode", false);
  FailureOr<bool> exclude = ctx.getBool("exclude_padding_from_average", false);
  if (failed(x) || failed(kernel) || failed(ceilMode) || failed(exclude))
    return failure();
  FailureOr<WindowParams> params =
      getWindowParams(ctx, *x, *kernel, /*hasDilations=*/false);
  if (failed(params))
    return failure();
  return ctx.setResult(0, buildAveragePool(ctx.b, ctx.loc, *x, *kernel, *params,
                                           *ceilMode, !*exclude));
}

LogicalResult importUpsampleNearest(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<double> sh = ctx.getFloat("scale_factor_height", 1.0),
                    sw = ctx.getFloat("scale_factor_width", 1.0);
  if (failed(x) || failed(sh) || failed(sw))
    return failure();
  return ctx.setResult(0, buildUpsampleNearest(ctx.b, ctx.loc, *x, *sh, *sw));
}

//===--- Shapes -----------------------------------------------------------===//

/// reshape(x, shape): one -1 is inferred, 0 copies the input extent.
LogicalResult importReshape(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<SmallVector<int64_t>> shape = ctx.getInts("shape");
  if (failed(x) || failed(shape))
    return failure();
  FailureOr<SmallVector<int64_t>> resolved = resolveReshapeShape(
      ctx.loc, typeOf(*x).getShape(), *shape, /*allowZero=*/false);
  if (failed(resolved))
    return failure();
  return ctx.setResult(0, buildReshape(ctx.b, ctx.loc, *x, *resolved));
}

LogicalResult importTranspose(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<SmallVector<int64_t>> perm = ctx.getInts("perm");
  if (failed(x) || failed(perm))
    return failure();
  for (int64_t &p : *perm)
    if (p < 0)
      p += rankOf(*x);
  return ctx.setResult(0, buildTranspose(ctx.b, ctx.loc, *x, *perm));
}

LogicalResult importConcat(OpContext &ctx) {
  FailureOr<SmallVector<Value>> values = ctx.inputs("values");
  FailureOr<int64_t> axis = ctx.getInt("axis");
  FailureOr<bool> interleave = ctx.getBool("interleave", false);
  if (failed(values) || failed(axis) || failed(interleave))
    return failure();
  if (*interleave)
    return emitError(ctx.loc) << "unsupported concat with interleave=True";
  return ctx.setResult(0, buildConcat(ctx.b, ctx.loc, *values, *axis));
}

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

LogicalResult importExpandDims(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<SmallVector<int64_t>> axes = ctx.getInts("axes");
  if (failed(x) || failed(axes))
    return failure();
  int64_t outRank = rankOf(*x) + axes->size();
  SmallVector<bool> unit(outRank, false);
  for (int64_t a : *axes) {
    FailureOr<int64_t> ax = normalizeAxis(ctx, a, outRank);
    if (failed(ax))
      return failure();
    if (unit[*ax])
      return emitError(ctx.loc) << "expand_dims: repeated axis " << a;
    unit[*ax] = true;
  }
  SmallVector<int64_t> shape;
  ArrayRef<int64_t> in = typeOf(*x).getShape();
  for (int64_t d = 0, k = 0; d < outRank; ++d)
    shape.push_back(unit[d] ? 1 : in[k++]);
  return ctx.setResult(0, buildReshape(ctx.b, ctx.loc, *x, shape));
}

LogicalResult importSqueeze(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  if (failed(x))
    return failure();
  ArrayRef<int64_t> in = typeOf(*x).getShape();
  int64_t rank = in.size();
  SmallVector<bool> drop(rank, false);
  if (ctx.has("axes")) {
    FailureOr<SmallVector<int64_t>> axes = ctx.getInts("axes");
    if (failed(axes))
      return failure();
    for (int64_t a : *axes) {
      FailureOr<int64_t> ax = normalizeAxis(ctx, a, rank);
      if (failed(ax))
        return failure();
      if (in[*ax] != 1)
        return emitError(ctx.loc) << "squeeze: dim " << *ax << " of "
                                  << x->getType() << " is not 1";
      drop[*ax] = true;
    }
  } else {
    for (int64_t d = 0; d < rank; ++d)
      drop[d] = in[d] == 1;
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0; d < rank; ++d)
    if (!drop[d])
      shape.push_back(in[d]);
  return ctx.setResult(0, buildReshape(ctx.b, ctx.loc, *x, shape));
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

LogicalResult importTile(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<SmallVector<int64_t>> reps = ctx.getInts("reps");
  if (failed(x) || failed(reps))
    return failure();
  return ctx.setResult(0, buildTile(ctx.b, ctx.loc, *x, *reps));
}

/// pad(x, pad, mode, constant_val): pad holds [begin, end] pairs for the
/// last len(pad) / 2 dims.
LogicalResult importPad(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<SmallVector<int64_t>> pad = ctx.getInts("pad");
  FailureOr<std::string> mode = ctx.getString("mode", std::string("constant"));
  FailureOr<double> value = ctx.getFloat("constant_val", 0.0);
  if (failed(x) || failed(pad) || failed(mode) || failed(value))
    return failure();
  int64_t rank = rankOf(*x);
  int64_t n = pad->size() / 2;
  if (pad->size() % 2 != 0 || n > rank)
    return emitError(ctx.loc)
           << "pad: " << pad->size() << " values do not fit rank " << rank;
  SmallVector<int64_t> low(rank, 0), high(rank, 0);
  for (int64_t i = 0; i < n; ++i) {
    low[rank - n + i] = (*pad)[2 * i];
    high[rank - n + i] = (*pad)[2 * i + 1];
  }
  PadMode padMode;
  if (*mode == "constant")
    padMode = PadMode::Constant;
  else if (*mode == "reflect")
    padMode = PadMode::Reflect;
  else if (*mode == "replicate")
    padMode = PadMode::Replicate;
  else
    return emitError(ctx.loc) << "unsupported pad mode '" << *mode << "'";
  return ctx.setResult(
      0, buildPad(ctx.b, ctx.loc, *x, low, high, padMode, *value));
}

LogicalResult importBandPart(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<int64_t> lower = ctx.getInt("lower", -1),
                     upper = ctx.getInt("upper", -1);
  if (failed(x) || failed(lower) || failed(upper))
    return failure();
  OpFoldResult minDiag, maxDiag;
  if (*lower >= 0)
    minDiag = ctx.b.getIndexAttr(-*lower);
  if (*upper >= 0)
    maxDiag = ctx.b.getIndexAttr(*upper);
  return ctx.setResult(0, buildBandPart(ctx.b, ctx.loc, *x, minDiag, maxDiag));
}

/// The element type an op declares for output `i` (f32 if undeclared).
FailureOr<Type> declaredElementType(OpContext &ctx, unsigned i) {
  if (int(i) >= ctx.op.outputs_size() || !ctx.op.outputs(i).has_type())
    return Type(ctx.b.getF32Type());
  FailureOr<RankedTensorType> type = convertValueType(
      ctx.loc, ctx.b.getContext(), ctx.op.outputs(i).type(), "output");
  if (failed(type))
    return failure();
  return type->getElementType();
}

/// fill(shape, value = 0.0): shape must be a compile-time constant.
LogicalResult importFill(OpContext &ctx) {
  FailureOr<SmallVector<int64_t>> shape = ctx.getInts("shape");
  FailureOr<double> value = ctx.getFloat("value", 0.0);
  FailureOr<Type> et = declaredElementType(ctx, 0);
  if (failed(shape) || failed(value) || failed(et))
    return failure();
  for (int64_t s : *shape)
    if (s < 0)
      return emitError(ctx.loc) << "fill: negative extent " << s;
  TypedAttr attr = isa<FloatType>(*et)
                       ? TypedAttr(ctx.b.getFloatAttr(*et, *value))
                       : TypedAttr(ctx.b.getIntegerAttr(*et, int64_t(*value)));
  Value v = arith::ConstantOp::create(ctx.b, ctx.loc, attr);
  return ctx.setResult(
      0, buildFull(ctx.b, ctx.loc,
                   getAsIndexOpFoldResult(ctx.b.getContext(), *shape), *et, v));
}

/// range_1d(end, start, step), all compile-time constants.
LogicalResult importRange1D(OpContext &ctx) {
  FailureOr<double> end = ctx.getFloat("end"), start = ctx.getFloat("start"),
                    step = ctx.getFloat("step");
  FailureOr<Type> et = declaredElementType(ctx, 0);
  if (failed(end) || failed(start) || failed(step) || failed(et))
    return failure();
  FailureOr<DenseElementsAttr> attr =
      buildRangeAttr(ctx.loc, *et, *start, *end, *step);
  if (failed(attr))
    return failure();
  return ctx.setResult(0, buildConstant(ctx.b, ctx.loc, *attr));
}

//===--- Constants and control flow ---------------------------------------===//

/// const: the value is attribute `val`. String constants (e.g. pad_type)
/// are only compile-time parameters and get no SSA value.
LogicalResult importConst(OpContext &ctx) {
  auto it = ctx.op.attributes().find("val");
  if (it == ctx.op.attributes().end())
    return emitError(ctx.loc) << "const has no 'val' attribute";
  const mil::Value &val = it->second;
  if (ctx.numOutputs() != 1)
    return emitError(ctx.loc) << "const must have one output";
  const std::string &name = ctx.op.outputs(0).name();
  if (val.has_immediatevalue() && val.immediatevalue().has_tensor() &&
      val.immediatevalue().tensor().has_strings())
    return ctx.importer.define(ctx.loc, name, {Value(), &val});
  FailureOr<Value> value = ctx.importer.materialize(val, ctx.loc, name);
  if (failed(value))
    return failure();
  return ctx.setConstantResult(0, *value, &val);
}

/// The i1 scalar held by a boolean tensor of one element.
FailureOr<Value> extractPredicate(OpContext &ctx, Value pred, StringRef what) {
  auto t = dyn_cast<RankedTensorType>(pred.getType());
  if (!t || !t.getElementType().isInteger(1) || !t.hasStaticShape() ||
      t.getNumElements() != 1)
    return emitError(ctx.loc)
           << what << " must be a bool scalar, got " << pred.getType();
  SmallVector<Value> zeros(t.getRank(),
                           arith::ConstantIndexOp::create(ctx.b, ctx.loc, 0));
  return tensor::ExtractOp::create(ctx.b, ctx.loc, pred, zeros).getResult();
}

/// The declared types of the op's outputs.
FailureOr<SmallVector<Type>> declaredOutputTypes(OpContext &ctx) {
  SmallVector<Type> types;
  for (const mil::NamedValueType &output : ctx.op.outputs()) {
    FailureOr<RankedTensorType> type =
        convertValueType(ctx.importer.locFor(output.name()), ctx.b.getContext(),
                         output.type(), "output '" + output.name() + "'");
    if (failed(type))
      return failure();
    types.push_back(*type);
  }
  return types;
}

/// Casts `values` to `types` (cast-compatible) for a region terminator.
FailureOr<SmallVector<Value>> castTo(OpContext &ctx, ValueRange values,
                                     TypeRange types, StringRef what) {
  SmallVector<Value> out;
  for (auto [i, v, t] : llvm::enumerate(values, types)) {
    if (v.getType() == t) {
      out.push_back(v);
      continue;
    }
    if (!tensor::CastOp::areCastCompatible(v.getType(), t))
      return emitError(ctx.loc) << what << " value " << i << " has type "
                                << v.getType() << ", expected " << t;
    out.push_back(tensor::CastOp::create(ctx.b, ctx.loc, t, v));
  }
  return out;
}

/// cond(pred): blocks[0] runs when pred is true, blocks[1] otherwise; both
/// return the op's outputs.
LogicalResult importCond(OpContext &ctx) {
  FailureOr<Value> pred = ctx.input("pred");
  if (failed(pred))
    return failure();
  if (ctx.op.blocks_size() != 2)
    return emitError(ctx.loc)
           << "cond needs 2 blocks, got " << ctx.op.blocks_size();
  for (int k = 0; k < 2; ++k)
    if (ctx.op.blocks(k).outputs_size() != ctx.op.outputs_size())
      return emitError(ctx.loc)
             << "cond " << (k == 0 ? "true" : "false") << " block returns "
             << ctx.op.blocks(k).outputs_size() << " values but the op has "
             << ctx.op.outputs_size() << " outputs";
  FailureOr<Value> cond = extractPredicate(ctx, *pred, "cond predicate");
  FailureOr<SmallVector<Type>> types = declaredOutputTypes(ctx);
  if (failed(cond) || failed(types))
    return failure();
  auto ifOp = scf::IfOp::create(ctx.b, ctx.loc, *types, *cond,
                                /*withElseRegion=*/true);
  for (int k = 0; k < 2; ++k) {
    OpBuilder::InsertionGuard guard(ctx.b);
    Block *block = k == 0 ? ifOp.thenBlock() : ifOp.elseBlock();
    // Drop the implicit terminator of result-less ifs; we add our own.
    if (!block->empty())
      block->back().erase();
    ctx.b.setInsertionPointToEnd(block);
    FailureOr<SmallVector<Value>> outputs =
        ctx.importer.importBlock(ctx.op.blocks(k), {}, ctx.loc);
    if (failed(outputs))
      return failure();
    FailureOr<SmallVector<Value>> yielded =
        castTo(ctx, *outputs, *types, "cond block output");
    if (failed(yielded))
      return failure();
    scf::YieldOp::create(ctx.b, ctx.loc, *yielded);
  }
  for (unsigned i = 0; i < ifOp.getNumResults(); ++i)
    if (failed(ctx.setResult(i, ifOp.getResult(i))))
      return failure();
  return success();
}

/// while_loop(loop_vars): blocks[0] (the condition) and blocks[1] (the
/// body) take the loop variables as block inputs; the condition returns a
/// bool scalar, the body the next loop variables; the op's outputs are the
/// final loop variables.
LogicalResult importWhileLoop(OpContext &ctx) {
  FailureOr<SmallVector<Value>> vars = ctx.inputs("loop_vars");
  if (failed(vars))
    return failure();
  if (ctx.op.blocks_size() != 2)
    return emitError(ctx.loc)
           << "while_loop needs 2 blocks, got " << ctx.op.blocks_size();
  const mil::Block &condBlock = ctx.op.blocks(0), &body = ctx.op.blocks(1);
  size_t n = vars->size();
  if (size_t(condBlock.inputs_size()) != n || size_t(body.inputs_size()) != n)
    return emitError(ctx.loc) << "while_loop blocks must take the " << n
                              << " loop variables as inputs";
  if (condBlock.outputs_size() != 1)
    return emitError(ctx.loc)
           << "while_loop condition block returns " << condBlock.outputs_size()
           << " values, expected 1";
  if (size_t(body.outputs_size()) != n)
    return emitError(ctx.loc)
           << "while_loop body block returns " << body.outputs_size()
           << " values but there are " << n << " loop variables";
  if (size_t(ctx.op.outputs_size()) != n)
    return emitError(ctx.loc)
           << "while_loop declares " << ctx.op.outputs_size()
           << " outputs but there are " << n << " loop variables";
  // Loop-carried types: the body's declared input types (which may relax
  // shapes the body changes), else the initial values' types.
  SmallVector<Type> types;
  for (auto [input, init] : llvm::zip(body.inputs(), *vars)) {
    if (!input.has_type()) {
      types.push_back(init.getType());
      continue;
    }
    FailureOr<RankedTensorType> t =
        convertValueType(ctx.importer.locFor(input.name()), ctx.b.getContext(),
                         input.type(), "loop variable '" + input.name() + "'");
    if (failed(t))
      return failure();
    types.push_back(*t);
  }
  FailureOr<SmallVector<Value>> inits =
      castTo(ctx, *vars, types, "while_loop initial");
  if (failed(inits))
    return failure();
  auto whileOp = scf::WhileOp::create(ctx.b, ctx.loc, types, *inits);
  SmallVector<Location> locs(n, ctx.loc);
  {
    OpBuilder::InsertionGuard guard(ctx.b);
    Block *before = ctx.b.createBlock(&whileOp.getBefore(), {}, types, locs);
    FailureOr<SmallVector<Value>> c =
        ctx.importer.importBlock(condBlock, before->getArguments(), ctx.loc);
    if (failed(c))
      return failure();
    FailureOr<Value> flag =
        extractPredicate(ctx, c->front(), "while_loop condition");
    if (failed(flag))
      return failure();
    scf::ConditionOp::create(ctx.b, ctx.loc, *flag, before->getArguments());
  }
  {
    OpBuilder::InsertionGuard guard(ctx.b);
    Block *after = ctx.b.createBlock(&whileOp.getAfter(), {}, types, locs);
    FailureOr<SmallVector<Value>> next =
        ctx.importer.importBlock(body, after->getArguments(), ctx.loc);
    if (failed(next))
      return failure();
    FailureOr<SmallVector<Value>> yielded =
        castTo(ctx, *next, types, "while_loop body output");
    if (failed(yielded))
      return failure();
    scf::YieldOp::create(ctx.b, ctx.loc, *yielded);
  }
  for (unsigned i = 0; i < n; ++i)
    if (failed(ctx.setResult(i, whileOp.getResult(i))))
      return failure();
  return success();
}

} // namespace

const llvm::StringMap<OpHandler> &getOpHandlers() {
  static const llvm::StringMap<OpHandler> handlers = {
      {"abs", importUnary<UnaryOpKind::Abs>},
      {"add", importBinary<BinaryOpKind::Add>},
      {"avg_pool", importAvgPool},
      {"band_part", importBandPart},
      {"batch_norm", importBatchNorm},
      {"cast", importCast},
      {"ceil", importActivation<PointwiseKind::Ceil>},
      {"clip", importClip},
      {"concat", importConcat},
      {"cond", importCond},
      {"const", importConst},
      {"conv", importConv},
      {"conv_transpose", importConvTranspose},
      {"cos", importActivation<PointwiseKind::Cos>},
      {"equal", importCompare<CompareKind::Equal>},
      {"erf", importUnary<UnaryOpKind::Erf>},
      {"exp", importUnary<UnaryOpKind::Exp>},
      {"expand_dims", importExpandDims},
      {"fill", importFill},
      {"floor", importActivation<PointwiseKind::Floor>},
      {"floor_div", importFloorDiv},
      {"gather", importGather},
      {"gather_along_axis", importGatherAlongAxis},
      {"gelu", importGelu},
      {"greater", importCompare<CompareKind::Greater>},
      {"greater_equal", importCompare<CompareKind::GreaterEqual>},
      {"identity", importIdentity},
      {"instance_norm", importInstanceNorm},
      {"layer_norm", importLayerNorm},
      {"leaky_relu", importLeakyRelu},
      {"less", importCompare<CompareKind::Less>},
      {"less_equal", importCompare<CompareKind::LessEqual>},
      {"linear", importLinear},
      {"log", importLog},
      {"logical_and", importLogical<LogicalKind::And>},
      {"logical_not", importLogicalNot},
      {"logical_or", importLogical<LogicalKind::Or>},
      {"logical_xor", importLogical<LogicalKind::Xor>},
      {"matmul", importMatMul},
      {"max_pool", importMaxPool},
      {"maximum", importBinary<BinaryOpKind::Max>},
      {"minimum", importBinary<BinaryOpKind::Min>},
      {"mul", importBinary<BinaryOpKind::Mul>},
      {"not_equal", importCompare<CompareKind::NotEqual>},
      {"pad", importPad},
      {"pow", importBinary<BinaryOpKind::Pow>},
      {"range_1d", importRange1D},
      {"real_div", importBinary<BinaryOpKind::Div>},
      {"reduce_max", importReduce<ReduceKind::Max>},
      {"reduce_mean", importReduce<ReduceKind::Mean>},
      {"reduce_min", importReduce<ReduceKind::Min>},
      {"reduce_prod", importReduce<ReduceKind::Prod>},
      {"reduce_sum", importReduce<ReduceKind::Sum>},
      {"relu", importUnary<UnaryOpKind::Relu>},
      {"relu6", importRelu6},
      {"reshape", importReshape},
      {"round", importActivation<PointwiseKind::Round>},
      {"rsqrt", importRsqrt},
      {"select", importSelect},
      {"sigmoid", importUnary<UnaryOpKind::Sigmoid>},
      {"sign", importActivation<PointwiseKind::Sign>},
      {"silu", importActivation<PointwiseKind::Silu>},
      {"sin", importActivation<PointwiseKind::Sin>},
      {"slice_by_index", importSliceByIndex},
      {"slice_by_size", importSliceBySize},
      {"softmax", importSoftmax},
      {"softplus", importActivation<PointwiseKind::Softplus>},
      {"split", importSplit},
      {"sqrt", importUnary<UnaryOpKind::Sqrt>},
      {"squeeze", importSqueeze},
      {"sub", importBinary<BinaryOpKind::Sub>},
      {"tanh", importUnary<UnaryOpKind::Tanh>},
      {"tile", importTile},
      {"transpose", importTranspose},
      {"upsample_nearest_neighbor", importUpsampleNearest},
      {"while_loop", importWhileLoop},
  };
  return handlers;
}

} // namespace mlprog::mil_import
