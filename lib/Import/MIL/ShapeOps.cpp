//===- ShapeOps.cpp - MIL shape and layout ops ----------------------------===//
//
// reshape, transpose, concat, expand_dims, squeeze, tile and pad.
//
// Handlers read the op's named arguments and compile-time parameters
// (supplying the MIL spec defaults, iOS15+ semantics) and call the shared
// builders in mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"
#include "Importer.h"

#include "mlprog/Import/Common/Shape.h"

using namespace mlir;

namespace mlprog::mil_import {
namespace {

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

} // namespace

void registerShapeOps(OpTable &table) {
  table.add({
      {"concat", importConcat},
      {"expand_dims", importExpandDims},
      {"pad", importPad},
      {"reshape", importReshape},
      {"squeeze", importSqueeze},
      {"tile", importTile},
      {"transpose", importTranspose},
  });
}

} // namespace mlprog::mil_import
