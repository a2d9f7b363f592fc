//===- CreationOps.cpp - MIL constants and tensor creation ----------------===//
//
// const, fill, range_1d and band_part.
//
// Handlers read the op's named arguments and compile-time parameters
// (supplying the MIL spec defaults, iOS15+ semantics) and call the shared
// builders in mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlprog/Import/Common/Creation.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
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

} // namespace

void registerCreationOps(OpTable &table) {
  table.add({
      {"band_part", importBandPart},
      {"const", importConst},
      {"fill", importFill},
      {"range_1d", importRange1D},
  });
}

} // namespace mlprog::mil_import
