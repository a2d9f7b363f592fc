//===- ShapeOps.cpp - MIL shape and layout ops ----------------------------===//
//
// reshape, transpose, concat, expand_dims, squeeze, tile, pad, shape,
// stack, reverse, reverse_sequence, flatten2d, reshape_like, the block moves
// (depth_to_space, space_to_depth, pixel_shuffle, pixel_unshuffle,
// space_to_batch, batch_to_space) and sliding_windows.
//
// Handlers read the op's named arguments and compile-time parameters
// (supplying the MIL spec defaults, iOS15+ semantics) and call the shared
// builders in mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"
#include "Importer.h"

#include "mlprog/Import/Common/Creation.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;

namespace mlprog::mil_import {
namespace {

/// reshape(x, shape): one -1 is inferred, 0 copies the input extent. A
/// shape computed at run time (or one leaving several extents unknown) is
/// applied at run time, typed with the declared output shape.
LogicalResult importReshape(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  if (failed(x))
    return failure();
  std::optional<SmallVector<int64_t>> shape = foldedInts(ctx, "shape");
  RankedTensorType declared = declaredType(ctx, 0);
  ArrayRef<int64_t> hint = declared ? declared.getShape() : ArrayRef<int64_t>();
  if (!shape) {
    FailureOr<Value> shapeTensor = ctx.input("shape");
    if (failed(shapeTensor))
      return failure();
    if (rankOf(*shapeTensor) != 1 ||
        ShapedType::isDynamic(typeOf(*shapeTensor).getDimSize(0)))
      return emitError(ctx.loc) << "reshape: shape must be a 1-D tensor of "
                                   "static length, got "
                                << shapeTensor->getType();
    return ctx.setResult(
        0, buildReshapeToShapeTensor(ctx.b, ctx.loc, *x, *shapeTensor,
                                     /*allowZero=*/false, hint));
  }
  FailureOr<SmallVector<int64_t>> resolved = resolveReshapeShape(
      ctx.loc, typeOf(*x).getShape(), *shape, /*allowZero=*/false);
  if (failed(resolved))
    return failure();
  if (llvm::count_if(*resolved, ShapedType::isDynamic) > 1) {
    Value shapeTensor = arith::ConstantOp::create(
        ctx.b, ctx.loc,
        DenseElementsAttr::get(
            RankedTensorType::get({int64_t(shape->size())}, ctx.b.getI64Type()),
            ArrayRef<int64_t>(*shape)));
    return ctx.setResult(
        0, buildReshapeToShapeTensor(ctx.b, ctx.loc, *x, shapeTensor,
                                     /*allowZero=*/false, *resolved));
  }
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
  // coremltools' type inference takes scalars as length-1 vectors (any
  // axis): its TorchScript frontend concatenates a run-time position with
  // constants into slice bounds this way.
  if (!values->empty() &&
      llvm::all_of(*values, [](Value v) { return rankOf(v) == 0; }))
    return ctx.setResult(0, buildStack(ctx.b, ctx.loc, *values, 0));
  if (!*interleave || values->empty())
    return ctx.setResult(0, buildConcat(ctx.b, ctx.loc, *values, *axis));
  // Interleaved (inputs of one shape): slice i of input k lands at
  // i * n + k, i.e. stack after `axis` and merge the two dims.
  FailureOr<int64_t> ax = normalizeAxis(ctx, *axis, rankOf((*values)[0]));
  if (failed(ax))
    return failure();
  FailureOr<Value> stacked = buildStack(ctx.b, ctx.loc, *values, *ax + 1);
  if (failed(stacked))
    return failure();
  return ctx.setResult(
      0, buildCollapseDims(ctx.b, ctx.loc, *stacked, *ax, *ax + 1));
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
  // Unit dims one at a time, in ascending result position: any number of
  // dynamic extents stays (a reshape allows one).
  Value result = *x;
  for (int64_t d = 0; d < outRank; ++d) {
    if (!unit[d])
      continue;
    FailureOr<Value> expanded = buildUnsqueeze(ctx.b, ctx.loc, result, d);
    if (failed(expanded))
      return failure();
    result = *expanded;
  }
  return ctx.setResult(0, result);
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
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    if (drop[d])
      dims.push_back(d);
  if (dims.empty())
    return ctx.setResult(0, *x);
  return ctx.setResult(0, buildSqueeze(ctx.b, ctx.loc, *x, dims));
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

/// shape(x): the extents of x as int32 (a constant when static).
LogicalResult importShape(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildShapeOf(ctx.b, ctx.loc, *x, ctx.b.getI32Type()));
}

LogicalResult importStack(OpContext &ctx) {
  FailureOr<SmallVector<Value>> values = ctx.inputs("values");
  FailureOr<int64_t> axis = ctx.getInt("axis");
  if (failed(values) || failed(axis))
    return failure();
  if (values->empty())
    return emitError(ctx.loc) << "stack needs at least one value";
  FailureOr<int64_t> ax =
      normalizeAxis(ctx, *axis, rankOf(values->front()) + 1);
  if (failed(ax))
    return failure();
  return ctx.setResult(0, buildStack(ctx.b, ctx.loc, *values, *ax));
}

/// reverse(x, axes): every axis when `axes` is absent.
LogicalResult importReverse(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  if (failed(x))
    return failure();
  int64_t rank = rankOf(*x);
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < rank; ++d)
    all.push_back(d);
  FailureOr<SmallVector<int64_t>> axes = ctx.getInts("axes", all);
  if (failed(axes))
    return failure();
  for (int64_t &a : *axes) {
    FailureOr<int64_t> ax = normalizeAxis(ctx, a, rank);
    if (failed(ax))
      return failure();
    a = *ax;
  }
  return ctx.setResult(0, buildReverse(ctx.b, ctx.loc, *x, *axes));
}

/// reverse_sequence(x, lengths, seq_axis = 0, batch_axis = 0).
LogicalResult importReverseSequence(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), lengths = ctx.input("lengths");
  FailureOr<int64_t> seqAxis = ctx.getInt("seq_axis", 0),
                     batchAxis = ctx.getInt("batch_axis", 0);
  if (failed(x) || failed(lengths) || failed(seqAxis) || failed(batchAxis))
    return failure();
  int64_t rank = rankOf(*x);
  FailureOr<int64_t> seq = normalizeAxis(ctx, *seqAxis, rank),
                     batch = normalizeAxis(ctx, *batchAxis, rank);
  if (failed(seq) || failed(batch))
    return failure();
  if (*seq == *batch)
    return emitError(ctx.loc)
           << "reverse_sequence: seq_axis and batch_axis are both " << *seq;
  return ctx.setResult(
      0, buildReverseSequence(ctx.b, ctx.loc, *x, *lengths, *batch, *seq));
}

/// flatten2d(x, axis = 1): [prod(x.shape[:axis]), prod(x.shape[axis:])].
LogicalResult importFlatten2d(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<int64_t> axis = ctx.getInt("axis", 1);
  if (failed(x) || failed(axis))
    return failure();
  int64_t rank = rankOf(*x);
  int64_t ax = *axis < 0 ? *axis + rank : *axis;
  if (ax < 0 || ax > rank)
    return emitError(ctx.loc)
           << "flatten2d: axis " << *axis << " out of range for rank " << rank;
  return ctx.setResult(0, buildFlatten(ctx.b, ctx.loc, *x, ax));
}

/// reshape_like(x, ref_tensors, begins, ends, end_masks): the target shape
/// concatenates ref_tensors[i].shape[begins[i]:ends[i]] (to the end where
/// end_masks[i]).
LogicalResult importReshapeLike(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<SmallVector<Value>> refs = ctx.inputs("ref_tensors");
  FailureOr<SmallVector<int64_t>> begins = getTupleInts(ctx, "begins"),
                                  ends = getTupleInts(ctx, "ends"),
                                  masks = getTupleInts(ctx, "end_masks");
  if (failed(x) || failed(refs) || failed(begins) || failed(ends) ||
      failed(masks))
    return failure();
  size_t n = refs->size();
  if (begins->size() != n || ends->size() != n || masks->size() != n)
    return emitError(ctx.loc) << "reshape_like: begins, ends and end_masks "
                                 "need one entry per reference tensor ("
                              << n << ")";
  SmallVector<int64_t> shape;
  for (size_t i = 0; i < n; ++i) {
    ArrayRef<int64_t> ref = typeOf((*refs)[i]).getShape();
    int64_t rank = ref.size();
    int64_t bgn = (*begins)[i] < 0 ? (*begins)[i] + rank : (*begins)[i];
    int64_t end = (*masks)[i]      ? rank
                  : (*ends)[i] < 0 ? (*ends)[i] + rank
                                   : (*ends)[i];
    if (bgn < 0 || end > rank || bgn > end)
      return emitError(ctx.loc) << "reshape_like: [" << (*begins)[i] << ", "
                                << (*ends)[i] << ") does not fit rank " << rank;
    shape.append(ref.begin() + bgn, ref.begin() + end);
  }
  if (llvm::count_if(shape, ShapedType::isDynamic) > 1)
    return emitError(ctx.loc) << "unsupported reshape_like to a shape with "
                                 "several dynamic extents";
  return ctx.setResult(0, buildReshape(ctx.b, ctx.loc, *x, shape));
}

/// depth_to_space(x, block_size): TensorFlow's (DCR) channel order.
LogicalResult importDepthToSpace(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<int64_t> bs = ctx.getInt("block_size");
  if (failed(x) || failed(bs))
    return failure();
  return ctx.setResult(
      0, buildDepthToSpace(ctx.b, ctx.loc, *x, *bs, /*crd=*/false));
}

/// space_to_depth(x, block_size): TensorFlow's (DCR) channel order.
LogicalResult importSpaceToDepth(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<int64_t> bs = ctx.getInt("block_size");
  if (failed(x) || failed(bs))
    return failure();
  return ctx.setResult(
      0, buildSpaceToDepth(ctx.b, ctx.loc, *x, *bs, /*crd=*/false));
}

/// pixel_shuffle(x, upscale_factor): PyTorch's (CRD) channel order.
LogicalResult importPixelShuffle(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<int64_t> f = ctx.getInt("upscale_factor");
  if (failed(x) || failed(f))
    return failure();
  return ctx.setResult(0,
                       buildDepthToSpace(ctx.b, ctx.loc, *x, *f, /*crd=*/true));
}

/// pixel_unshuffle(x, downscale_factor): PyTorch's (CRD) channel order.
LogicalResult importPixelUnshuffle(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<int64_t> f = ctx.getInt("downscale_factor");
  if (failed(x) || failed(f))
    return failure();
  return ctx.setResult(0,
                       buildSpaceToDepth(ctx.b, ctx.loc, *x, *f, /*crd=*/true));
}

/// Reads the [M, 2] (begin, end) pairs of parameter `name`.
static LogicalResult getPairs(OpContext &ctx, StringRef name, size_t m,
                              SmallVectorImpl<int64_t> &begin,
                              SmallVectorImpl<int64_t> &end) {
  FailureOr<SmallVector<int64_t>> v = ctx.getInts(name);
  if (failed(v))
    return failure();
  if (v->size() != 2 * m)
    return emitError(ctx.loc) << "parameter '" << name << "' needs " << m
                              << " x 2 values, got " << v->size();
  for (size_t i = 0; i < m; ++i) {
    begin.push_back((*v)[2 * i]);
    end.push_back((*v)[2 * i + 1]);
  }
  return success();
}

/// space_to_batch(x, block_shape, paddings [M, 2]).
LogicalResult importSpaceToBatch(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<SmallVector<int64_t>> block = ctx.getInts("block_shape");
  SmallVector<int64_t> begin, end;
  if (failed(x) || failed(block) ||
      failed(getPairs(ctx, "paddings", block->size(), begin, end)))
    return failure();
  return ctx.setResult(
      0, buildSpaceToBatch(ctx.b, ctx.loc, *x, *block, begin, end));
}

/// batch_to_space(x, block_shape, crops [M, 2]).
LogicalResult importBatchToSpace(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<SmallVector<int64_t>> block = ctx.getInts("block_shape");
  SmallVector<int64_t> begin, end;
  if (failed(x) || failed(block) ||
      failed(getPairs(ctx, "crops", block->size(), begin, end)))
    return failure();
  return ctx.setResult(
      0, buildBatchToSpace(ctx.b, ctx.loc, *x, *block, begin, end));
}

/// sliding_windows(x, axis, size, stride = 1).
LogicalResult importSlidingWindows(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<int64_t> axis = ctx.getInt("axis"), size = ctx.getInt("size"),
                     stride = ctx.getInt("stride", 1);
  if (failed(x) || failed(axis) || failed(size) || failed(stride))
    return failure();
  FailureOr<int64_t> ax = normalizeAxis(ctx, *axis, rankOf(*x));
  if (failed(ax))
    return failure();
  return ctx.setResult(
      0, buildSlidingWindows(ctx.b, ctx.loc, *x, *ax, *size, *stride));
}

} // namespace

void registerShapeOps(OpTable &table) {
  table.add({
      {"batch_to_space", importBatchToSpace},
      {"concat", importConcat},
      {"depth_to_space", importDepthToSpace},
      {"expand_dims", importExpandDims},
      {"flatten2d", importFlatten2d},
      {"pad", importPad},
      {"pixel_shuffle", importPixelShuffle},
      {"pixel_unshuffle", importPixelUnshuffle},
      {"reshape", importReshape},
      {"reshape_like", importReshapeLike},
      {"reverse", importReverse},
      {"reverse_sequence", importReverseSequence},
      {"shape", importShape},
      {"sliding_windows", importSlidingWindows},
      {"space_to_batch", importSpaceToBatch},
      {"space_to_depth", importSpaceToDepth},
      {"squeeze", importSqueeze},
      {"stack", importStack},
      {"tile", importTile},
      {"transpose", importTranspose},
  });
}

} // namespace mlprog::mil_import
