//===- CreationOps.cpp - MIL constants and tensor creation ----------------===//
//
// const, fill, fill_like, one_hot, range_1d and band_part.
//
// Handlers read the op's named arguments and compile-time parameters
// (supplying the MIL spec defaults, iOS15+ semantics) and call the shared
// builders in mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"
#include "Importer.h"

#include "mlprog/Import/Common/Creation.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace mlprog::mil_import {
namespace {

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

/// range_1d(end, start, step): a constant when all three are compile-time
/// values, else computed at run time (e.g. up to a list_length).
LogicalResult importRange1D(OpContext &ctx) {
  if (!ctx.peekConstant("end") || !ctx.peekConstant("start") ||
      !ctx.peekConstant("step")) {
    FailureOr<Value> end = ctx.input("end"), start = ctx.input("start"),
                     step = ctx.input("step");
    if (failed(end) || failed(start) || failed(step))
      return failure();
    for (Value v : {*end, *start, *step}) {
      auto t = cast<RankedTensorType>(v.getType());
      if (t.getRank() != 0 ||
          t.getElementType() !=
              cast<RankedTensorType>(end->getType()).getElementType())
        return emitError(ctx.loc) << "range_1d end, start and step must be "
                                     "scalars of one type, got "
                                  << t;
    }
    return ctx.setResult(
        0, buildRangeDynamic(ctx.b, ctx.loc, *start, *end, *step));
  }
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

/// A scalar of element type `et` holding `value` (float or integer).
Value scalarOf(OpContext &ctx, Type et, double value) {
  TypedAttr attr = isa<FloatType>(et)
                       ? TypedAttr(ctx.b.getFloatAttr(et, value))
                       : TypedAttr(ctx.b.getIntegerAttr(et, int64_t(value)));
  return arith::ConstantOp::create(ctx.b, ctx.loc, attr);
}

/// fill_like(ref_tensor, value = 0.0) (iOS16): ref_tensor's shape, value's
/// dtype (the declared output type).
LogicalResult importFillLike(OpContext &ctx) {
  FailureOr<Value> ref = ctx.input("ref_tensor");
  FailureOr<double> value = ctx.getFloat("value", 0.0);
  FailureOr<Type> et = declaredElementType(ctx, 0);
  if (failed(ref) || failed(value) || failed(et))
    return failure();
  return ctx.setResult(0, buildFull(ctx.b, ctx.loc,
                                    tensor::getMixedSizes(ctx.b, ctx.loc, *ref),
                                    *et, scalarOf(ctx, *et, *value)));
}

/// one_hot(indices, one_hot_vector_size, axis = -1, on_value = 1,
/// off_value = 0): the new dim at axis (in [-rank - 1, rank]); the size may
/// be computed at run time.
LogicalResult importOneHot(OpContext &ctx) {
  FailureOr<Value> indices = ctx.input("indices");
  FailureOr<int64_t> axis = ctx.getInt("axis", -1);
  FailureOr<double> on = ctx.getFloat("on_value", 1.0),
                    off = ctx.getFloat("off_value", 0.0);
  FailureOr<Type> et = declaredElementType(ctx, 0);
  if (failed(indices) || failed(axis) || failed(on) || failed(off) ||
      failed(et))
    return failure();
  int64_t rank = cast<RankedTensorType>(indices->getType()).getRank();
  int64_t ax = *axis < 0 ? *axis + rank + 1 : *axis;
  if (ax < 0 || ax > rank)
    return emitError(ctx.loc)
           << "one_hot: axis " << *axis << " out of range for rank " << rank;
  Value onV = scalarOf(ctx, *et, *on), offV = scalarOf(ctx, *et, *off);
  if (std::optional<SmallVector<int64_t>> depth =
          foldedInts(ctx, "one_hot_vector_size")) {
    if (depth->size() != 1 || depth->front() < 0)
      return emitError(ctx.loc)
             << "one_hot: one_hot_vector_size must be a non-negative scalar";
    return ctx.setResult(0, buildOneHot(ctx.b, ctx.loc, *indices,
                                        depth->front(), ax, offV, onV));
  }
  FailureOr<Value> depth = ctx.input("one_hot_vector_size");
  if (failed(depth))
    return failure();
  auto dtype = cast<RankedTensorType>(depth->getType());
  if (dtype.getNumElements() != 1)
    return emitError(ctx.loc) << "one_hot: one_hot_vector_size must be a "
                                 "scalar, got "
                              << dtype;
  Value d = tensor::ExtractOp::create(
      ctx.b, ctx.loc, *depth,
      SmallVector<Value>(dtype.getRank(),
                         arith::ConstantIndexOp::create(ctx.b, ctx.loc, 0)));
  d = arith::IndexCastOp::create(ctx.b, ctx.loc, ctx.b.getIndexType(), d);
  return ctx.setResult(
      0, buildOneHotDynamic(ctx.b, ctx.loc, *indices, d, ax, offV, onV));
}

} // namespace

void registerCreationOps(OpTable &table) {
  table.add({
      {"band_part", importBandPart},
      {"const", importConst},
      {"fill", importFill},
      {"fill_like", importFillLike},
      {"one_hot", importOneHot},
      {"range_1d", importRange1D},
  });
}

} // namespace mlprog::mil_import
