//===- CreationOps.cpp - ONNX constants and tensor creation ---------------===//
//
// Handlers for the ops that make a tensor from attributes or shapes:
// Constant, ConstantOfShape, Range, EyeLike, OneHot and Trilu.
//
// Handlers only read operands and attributes (with the ONNX operator spec's
// defaults for the model's opset) and call the shared builders in
// mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"
#include "NodeContext.h"
#include "TensorConversion.h"

#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/Import/Common/Creation.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace mlprog::onnx_import {

namespace {

/// The tensor of a Constant node: `value`, or (opset 12+) value_float(s),
/// value_int(s), value_string(s). Sparse constants are not supported.
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
  auto stringType = StringType::get(b.getContext());
  if (const onnx::AttributeProto *a = ctx.attribute("value_string"))
    return DenseElementsAttr(DenseStringElementsAttr::get(
        RankedTensorType::get({}, stringType), {StringRef(a->s())}));
  if (const onnx::AttributeProto *a = ctx.attribute("value_strings")) {
    SmallVector<StringRef> v(a->strings().begin(), a->strings().end());
    return DenseElementsAttr(DenseStringElementsAttr::get(
        RankedTensorType::get({int64_t(v.size())}, stringType), v));
  }
  return emitError(ctx.loc) << "unsupported Constant value attribute (only "
                               "value, value_float(s), value_int(s) and "
                               "value_string(s) are implemented)";
}

/// Constant: an arith.constant whose value later nodes (Reshape) may read.
LogicalResult importConstant(NodeContext &ctx) {
  FailureOr<DenseElementsAttr> value = getConstantValue(ctx);
  if (failed(value))
    return failure();
  // Strings are built from string constants and never folded.
  if (isa<DenseStringElementsAttr>(*value))
    return ctx.setResult(0, buildConstant(ctx.b, ctx.loc, *value));
  ctx.setConstantResult(0, buildConstant(ctx.b, ctx.loc, *value), *value);
  return success();
}

/// ConstantOfShape (opset 9+): `value` (a one-element tensor, default float
/// 0) broadcast to the shape in input 0; folded for constant shapes.
LogicalResult importConstantOfShape(NodeContext &ctx) {
  DenseElementsAttr value;
  if (const onnx::AttributeProto *a = ctx.attribute("value")) {
    FailureOr<DenseElementsAttr> v = convertTensor(ctx.loc, a->t());
    if (failed(v))
      return failure();
    if (v->getNumElements() != 1)
      return emitError(ctx.loc) << "ConstantOfShape value must have one "
                                   "element";
    value = *v;
  } else {
    value = DenseElementsAttr::get(
        RankedTensorType::get({1}, ctx.b.getF32Type()), 0.0f);
  }
  Attribute scalar = value.getValues<Attribute>()[0];
  if (std::optional<SmallVector<int64_t>> shape = constantInts(ctx, 0)) {
    if (llvm::any_of(*shape, [](int64_t d) { return d < 0; }))
      return emitError(ctx.loc) << "ConstantOfShape: negative extent";
    return setFolded(
        ctx, 0,
        DenseElementsAttr::get(
            RankedTensorType::get(*shape, value.getElementType()), scalar));
  }
  FailureOr<Value> shape = ctx.input(0);
  if (failed(shape))
    return failure();
  auto st = cast<RankedTensorType>(shape->getType());
  if (st.getRank() != 1 || st.isDynamicDim(0))
    return emitError(ctx.loc)
           << "unsupported ConstantOfShape with a shape of unknown length";
  SmallVector<OpFoldResult> sizes = shapeSizesInput(ctx, 0, *shape);
  if (std::optional<SmallVector<int64_t>> out = ctx.staticOutputShape(0);
      out && out->size() == sizes.size())
    sizes = getAsIndexOpFoldResult(ctx.b.getContext(), *out);
  Value fill =
      arith::ConstantOp::create(ctx.b, ctx.loc, cast<TypedAttr>(scalar));
  return ctx.setResult(
      0, buildFull(ctx.b, ctx.loc, sizes, value.getElementType(), fill));
}

/// Range (opset 11+): folded for constant operands, else computed at run
/// time.
LogicalResult importRange(NodeContext &ctx) {
  FailureOr<Value> s = ctx.input(0), l = ctx.input(1), d = ctx.input(2);
  if (failed(s) || failed(l) || failed(d))
    return failure();
  DenseElementsAttr cs = ctx.optionalConstantInput(0),
                    cl = ctx.optionalConstantInput(1),
                    cd = ctx.optionalConstantInput(2);
  if (cs && cl && cd) {
    auto scalar = [](DenseElementsAttr a) -> double {
      Attribute v = a.getValues<Attribute>()[0];
      if (auto f = dyn_cast<FloatAttr>(v))
        return f.getValueAsDouble();
      return double(cast<IntegerAttr>(v).getInt());
    };
    FailureOr<DenseElementsAttr> r = buildRangeAttr(
        ctx.loc, cs.getElementType(), scalar(cs), scalar(cl), scalar(cd));
    if (failed(r))
      return failure();
    return setFolded(ctx, 0, *r);
  }
  // One-element tensors of rank 1 (what exported function bodies pass)
  // stand for the scalars the spec asks for.
  for (FailureOr<Value> *v : {&s, &l, &d}) {
    auto t = dyn_cast<RankedTensorType>((*v)->getType());
    if (t && t.getRank() > 0 && t.hasStaticShape() && t.getNumElements() == 1)
      *v = buildReshape(ctx.b, ctx.loc, **v, {});
    if (failed(*v))
      return failure();
  }
  return ctx.setResult(0, buildRangeDynamic(ctx.b, ctx.loc, *s, *l, *d));
}

/// EyeLike (opset 9+): ones on diagonal k of a 2-D static shape, of `dtype`
/// (default: the input's element type); a compile-time constant.
LogicalResult importEyeLike(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  if (type.getRank() != 2 || !type.hasStaticShape())
    return emitError(ctx.loc)
           << "unsupported EyeLike of " << type << " (needs static 2-D)";
  Type et = type.getElementType();
  if (const onnx::AttributeProto *a = ctx.attribute("dtype")) {
    FailureOr<Type> t = convertElementType(ctx.loc, a->i());
    if (failed(t))
      return failure();
    et = *t;
  }
  if (!et.isIntOrFloat())
    return emitError(ctx.loc) << "unsupported EyeLike element type " << et;
  int64_t k = ctx.getInt("k", 0);
  auto rt = RankedTensorType::get(type.getShape(), et);
  TypedAttr one = isa<FloatType>(et) ? TypedAttr(ctx.b.getFloatAttr(et, 1.0))
                                     : TypedAttr(ctx.b.getIntegerAttr(et, 1));
  TypedAttr zero = ctx.b.getZeroAttr(et);
  SmallVector<Attribute> vals;
  for (int64_t i = 0; i < type.getDimSize(0); ++i)
    for (int64_t j = 0; j < type.getDimSize(1); ++j)
      vals.push_back(j - i == k ? one : zero);
  return setFolded(ctx, 0, DenseElementsAttr::get(rt, vals));
}

/// Trilu (opset 14+): upper (default 1) or lower triangle, diagonal offset
/// k from optional input 1 (a constant or a run-time scalar).
LogicalResult importTrilu(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  OpFoldResult k = ctx.b.getIndexAttr(0);
  if (ctx.hasInput(1)) {
    if (std::optional<SmallVector<int64_t>> c = constantInts(ctx, 1)) {
      if (c->size() != 1)
        return emitError(ctx.loc) << "Trilu: k must be a scalar";
      k = ctx.b.getIndexAttr((*c)[0]);
    } else {
      FailureOr<Value> kv = ctx.input(1);
      if (failed(kv))
        return failure();
      Value e = tensor::ExtractOp::create(
          ctx.b, ctx.loc, *kv,
          SmallVector<Value>(
              rankOf(*kv), arith::ConstantIndexOp::create(ctx.b, ctx.loc, 0)));
      k = arith::IndexCastOp::create(ctx.b, ctx.loc, ctx.b.getIndexType(), e)
              .getResult();
    }
  }
  bool upper = ctx.getInt("upper", 1);
  return ctx.setResult(0, buildBandPart(ctx.b, ctx.loc, *x,
                                        upper ? k : OpFoldResult(),
                                        upper ? OpFoldResult() : k));
}

/// OneHot (opset 9+): depth a scalar (a constant, or read at run time,
/// giving a dynamic extent typed with the output shape ONNX gives), values
/// [off, on], axis -1 by default (in [-r-1, r]).
LogicalResult importOneHot(NodeContext &ctx) {
  FailureOr<Value> idx = ctx.input(0), values = ctx.input(2);
  if (failed(idx) || failed(values))
    return failure();
  OpFoldResult n;
  if (DenseElementsAttr depth = ctx.optionalConstantInput(1)) {
    if (depth.getNumElements() != 1)
      return emitError(ctx.loc) << "OneHot: depth must have one element";
    Attribute d = depth.getValues<Attribute>()[0];
    int64_t v = isa<FloatAttr>(d)
                    ? int64_t(cast<FloatAttr>(d).getValueAsDouble())
                    : cast<IntegerAttr>(d).getInt();
    if (v < 0)
      return emitError(ctx.loc) << "OneHot: negative depth " << v;
    n = ctx.b.getIndexAttr(v);
  } else {
    FailureOr<Value> d = scalarIndexInput(ctx, 1, "depth", /*allowFloat=*/true);
    if (failed(d))
      return failure();
    n = *d;
  }
  Value indices = *idx;
  Type it = getElementTypeOrSelf(indices.getType());
  if (isa<FloatType>(it)) {
    // Float indices truncate toward zero (the reference casts to int64).
    FailureOr<Value> conv =
        buildConvertElementType(ctx.b, ctx.loc, indices, ctx.b.getI64Type());
    if (failed(conv))
      return failure();
    indices = *conv;
  }
  int64_t rank = rankOf(indices) + 1;
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.getInt("axis", -1), rank);
  if (failed(axis))
    return failure();
  auto vt = cast<RankedTensorType>(values->getType());
  if (vt.getRank() != 1 || vt.getDimSize(0) != 2)
    return emitError(ctx.loc) << "OneHot values must be [off, on]";
  Value zero = arith::ConstantIndexOp::create(ctx.b, ctx.loc, 0);
  Value one = arith::ConstantIndexOp::create(ctx.b, ctx.loc, 1);
  Value off = tensor::ExtractOp::create(ctx.b, ctx.loc, *values, zero);
  Value on = tensor::ExtractOp::create(ctx.b, ctx.loc, *values, one);
  FailureOr<Value> r =
      buildOneHotDynamic(ctx.b, ctx.loc, indices, n, *axis, off, on);
  if (failed(r))
    return failure();
  return ctx.setResult(0,
                       refineToShape(ctx.b, ctx.loc, *r, outputHint(ctx, 0)));
}

} // namespace

void registerCreationOps(OpTable &table) {
  table.add({
      {"Constant", importConstant},
      {"ConstantOfShape", importConstantOfShape},
      {"EyeLike", importEyeLike},
      {"OneHot", importOneHot},
      {"Range", importRange},
      {"Trilu", importTrilu},
  });
}

} // namespace mlprog::onnx_import
