//===- SliceGatherOps.cpp - ONNX slice, gather, scatter -------------------===//
//
// Handlers for Slice, Split, Gather(Elements, ND), the Scatter family,
// NonZero, Compress, TopK, ReverseSequence and NonMaxSuppression. Constant
// inputs are folded as in ShapeOps.cpp; out-of-range scatter indices are
// skipped by the builders (never written out of bounds).
//
// Handlers only read operands and attributes (with the ONNX operator spec's
// defaults for the model's opset) and call the shared builders in
// mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"
#include "NodeContext.h"

#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"
#include "mlprog/Import/Common/Statistics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace mlprog::onnx_import {

namespace {

/// Slice (opset 10+) whose starts, ends, axes or steps are read at run
/// time: each dim's bounds are selected from the entries naming it (a
/// constant axis picks its dim at import time), and the slice is a run-time
/// gather typed with the output shape ONNX gives, where it gives one.
LogicalResult importSliceDynamic(NodeContext &ctx, Value x) {
  int64_t rank = rankOf(x);
  FailureOr<Value> starts = argumentTensor(ctx, 1, "starts"),
                   ends = argumentTensor(ctx, 2, "ends");
  if (failed(starts) || failed(ends))
    return failure();
  int64_t n = lengthOf(*starts);
  auto readOptional = [&](unsigned i, StringRef what, int64_t dflt,
                          SmallVector<OpFoldResult> &out) -> LogicalResult {
    if (!ctx.hasInput(i)) {
      for (int64_t j = 0; j < n; ++j)
        out.push_back(ctx.b.getIndexAttr(dflt < 0 ? j : dflt));
      return success();
    }
    FailureOr<Value> v = argumentTensor(ctx, i, what);
    if (failed(v))
      return failure();
    if (lengthOf(*v) != n)
      return emitError(ctx.loc) << "Slice: " << what << " has " << lengthOf(*v)
                                << " entries, starts has " << n;
    // Constant axes (a Constant of the enclosing graph, as torch.onnx's
    // tensor_split Loop body slices with) keep every other dim whole and
    // its extent static; only run-time ones are selected at run time.
    if (std::optional<SmallVector<int64_t>> c = constantInts(ctx, i)) {
      for (int64_t entry : *c)
        out.push_back(ctx.b.getIndexAttr(entry));
      return success();
    }
    out = extractShapeSizes(ctx.b, ctx.loc, *v);
    return success();
  };
  if (lengthOf(*ends) != n)
    return emitError(ctx.loc) << "Slice: starts and ends differ in length";
  SmallVector<OpFoldResult> axes, steps;
  // Default axes are [0, n): marked by dflt < 0.
  if (failed(readOptional(3, "axes", -1, axes)) ||
      failed(readOptional(4, "steps", 1, steps)))
    return failure();
  if (!ctx.hasInput(3) && n > rank)
    return emitError(ctx.loc) << "Slice: " << n << " starts for rank " << rank;
  SmallVector<OpFoldResult> s = extractShapeSizes(ctx.b, ctx.loc, *starts),
                            e = extractShapeSizes(ctx.b, ctx.loc, *ends);
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  auto value = [&](OpFoldResult v) {
    return getValueOrCreateConstantIndexOp(b, loc, v);
  };
  SmallVector<DynamicSliceDim> dims(rank);
  for (int64_t j = 0; j < n; ++j) {
    if (std::optional<int64_t> a = getConstantIntValue(axes[j])) {
      FailureOr<int64_t> d = normalizeAxis(ctx, *a, rank);
      if (failed(d))
        return failure();
      std::optional<int64_t> st = getConstantIntValue(steps[j]);
      if (st && *st == 0)
        return emitError(ctx.loc) << "Slice: step 0";
      dims[*d] = {value(s[j]), value(e[j]), value(steps[j])};
      continue;
    }
    // A run-time axis: every dim takes this entry's bounds if it is named.
    Value a = value(axes[j]);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value r = arith::ConstantIndexOp::create(b, loc, rank);
    Value neg =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, a, zero);
    a = arith::SelectOp::create(b, loc, neg,
                                arith::AddIOp::create(b, loc, a, r), a);
    for (int64_t d = 0; d < rank; ++d) {
      DynamicSliceDim &dim = dims[d];
      if (!dim.start) {
        dim.start = arith::ConstantIndexOp::create(b, loc, 0);
        dim.stop = arith::ConstantIndexOp::create(
            b, loc, std::numeric_limits<int64_t>::max());
        dim.step = arith::ConstantIndexOp::create(b, loc, 1);
      }
      Value named =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, a,
                                arith::ConstantIndexOp::create(b, loc, d));
      dim.start =
          arith::SelectOp::create(b, loc, named, value(s[j]), dim.start);
      dim.stop = arith::SelectOp::create(b, loc, named, value(e[j]), dim.stop);
      dim.step =
          arith::SelectOp::create(b, loc, named, value(steps[j]), dim.step);
    }
  }
  return ctx.setResult(0,
                       buildSliceDynamic(b, loc, x, dims, outputHint(ctx, 0)));
}

/// Slice: opset 1-9 starts/ends/axes attributes; opset 10+ inputs starts,
/// ends, axes, steps (constants here, else importSliceDynamic). Python
/// semantics: negative positions count from the end, out-of-range ones
/// clamp, negative steps walk backwards.
LogicalResult importSlice(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  int64_t rank = rankOf(*x);
  SmallVector<int64_t> starts, ends, axes, steps;
  if (ctx.opset < 10) {
    starts = ctx.getInts("starts");
    ends = ctx.getInts("ends");
    axes = ctx.getInts("axes");
  } else {
    std::optional<SmallVector<int64_t>> s = constantInts(ctx, 1),
                                        e = constantInts(ctx, 2), a, st;
    if (ctx.hasInput(3))
      a = constantInts(ctx, 3);
    if (ctx.hasInput(4))
      st = constantInts(ctx, 4);
    if (!s || !e || (ctx.hasInput(3) && !a) || (ctx.hasInput(4) && !st))
      return importSliceDynamic(ctx, *x);
    starts = *s;
    ends = *e;
    if (a)
      axes = *a;
    if (st)
      steps = *st;
  }
  if (axes.empty())
    for (int64_t d = 0; d < int64_t(starts.size()); ++d)
      axes.push_back(d);
  if (steps.empty())
    steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return emitError(ctx.loc) << "Slice: starts, ends, axes and steps differ "
                                 "in length";
  SmallVector<SliceDim> dims(rank);
  for (auto [s, e, a, st] : llvm::zip(starts, ends, axes, steps)) {
    FailureOr<int64_t> axis = normalizeAxis(ctx, a, rank);
    if (failed(axis))
      return failure();
    if (st == 0)
      return emitError(ctx.loc) << "Slice: step 0";
    dims[*axis] = SliceDim{s, e, st};
  }
  DenseElementsAttr c = ctx.optionalConstantInput(0);
  if (foldable(c)) {
    // Fold through the builder's own index arithmetic: resolve each dim.
    ArrayRef<int64_t> shape = c.getType().getShape();
    SmallVector<int64_t> begin, size, step;
    for (auto [d, sd] : llvm::enumerate(dims)) {
      ResolvedSlice r = resolveSlice(sd, shape[d]);
      begin.push_back(r.start);
      size.push_back(r.size);
      step.push_back(r.step);
    }
    SmallVector<int64_t> strides = stridesOf(shape);
    return setFolded(ctx, 0, foldMap(c, size, [&](ArrayRef<int64_t> idx) {
                       int64_t f = 0;
                       for (size_t d = 0; d < idx.size(); ++d)
                         f += (begin[d] + idx[d] * step[d]) * strides[d];
                       return f;
                     }));
  }
  return ctx.setResult(0, buildSlice(ctx.b, ctx.loc, *x, dims));
}

/// Gather (numpy.take along `axis`, default 0; negative indices wrap).
LogicalResult importGather(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), idx = ctx.input(1);
  if (failed(x) || failed(idx))
    return failure();
  int64_t rank = rankOf(*x);
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.getInt("axis", 0), rank);
  if (failed(axis))
    return failure();
  DenseElementsAttr c = ctx.optionalConstantInput(0),
                    ci = ctx.optionalConstantInput(1);
  if (foldable(c) && ci && ci.getNumElements() <= kFoldLimit &&
      ci.getElementType().isSignlessInteger()) {
    ArrayRef<int64_t> s = c.getType().getShape();
    ArrayRef<int64_t> is = ci.getType().getShape();
    SmallVector<int64_t> ivals = intValues(ci), out;
    int64_t n = s[*axis];
    for (int64_t &v : ivals) {
      if (v < -n || v >= n)
        return emitError(ctx.loc)
               << "Gather: index " << v << " out of range for extent " << n;
      v = v < 0 ? v + n : v;
    }
    out.append(s.begin(), s.begin() + *axis);
    out.append(is.begin(), is.end());
    out.append(s.begin() + *axis + 1, s.end());
    SmallVector<int64_t> strides = stridesOf(s), istrides = stridesOf(is);
    int64_t ri = is.size();
    return setFolded(ctx, 0, foldMap(c, out, [&](ArrayRef<int64_t> o) {
                       int64_t f = 0, fi = 0;
                       for (int64_t d = 0; d < *axis; ++d)
                         f += o[d] * strides[d];
                       for (int64_t k = 0; k < ri; ++k)
                         fi += o[*axis + k] * istrides[k];
                       f += ivals[fi] * strides[*axis];
                       for (int64_t d = *axis + 1; d < rank; ++d)
                         f += o[d + ri - 1] * strides[d];
                       return f;
                     }));
  }
  return ctx.setResult(0, buildGather(ctx.b, ctx.loc, *x, *idx, *axis));
}

/// GatherElements (opset 11+): numpy.take_along_axis.
LogicalResult importGatherElements(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), idx = ctx.input(1);
  if (failed(x) || failed(idx))
    return failure();
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", 0), rankOf(*x));
  if (failed(axis))
    return failure();
  return ctx.setResult(0,
                       buildGatherAlongAxis(ctx.b, ctx.loc, *x, *idx, *axis));
}

/// GatherND (opset 11+, batch_dims since 12).
LogicalResult importGatherND(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), idx = ctx.input(1);
  if (failed(x) || failed(idx))
    return failure();
  return ctx.setResult(
      0, buildGatherND(ctx.b, ctx.loc, *x, *idx, ctx.getInt("batch_dims", 0)));
}

/// Split (opset 13+) with sizes read at run time: one piece per output, each
/// typed with the shape ONNX gives that output where it gives one.
LogicalResult importSplitDynamic(NodeContext &ctx, Value x, int64_t axis) {
  FailureOr<Value> split = argumentTensor(ctx, 1, "split");
  if (failed(split))
    return failure();
  if (lengthOf(*split) != ctx.node.output_size())
    return emitError(ctx.loc) << "Split: " << lengthOf(*split) << " sizes for "
                              << ctx.node.output_size() << " outputs";
  FailureOr<SmallVector<Value>> pieces = buildSplitDynamic(
      ctx.b, ctx.loc, x, axis, extractShapeSizes(ctx.b, ctx.loc, *split));
  if (failed(pieces))
    return failure();
  for (auto [i, p] : llvm::enumerate(*pieces))
    if (failed(ctx.setResult(
            i, refineToShape(ctx.b, ctx.loc, p, outputHint(ctx, i)))))
      return failure();
  return success();
}

/// Split of a dynamic extent E into `parts` equal pieces at run time: each
/// ceil(E / parts) long, the last one what is left (ONNX Split-18).
static LogicalResult importSplitEqualDynamic(NodeContext &ctx, Value x,
                                             int64_t axis, int64_t parts) {
  if (parts != ctx.node.output_size())
    return emitError(ctx.loc) << "Split: num_outputs " << parts << " but "
                              << ctx.node.output_size() << " outputs";
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  Value extent = tensor::DimOp::create(b, loc, x, axis);
  Value n = arith::ConstantIndexOp::create(b, loc, parts);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value piece = arith::CeilDivUIOp::create(b, loc, extent, n);
  SmallVector<OpFoldResult> sizes;
  for (int64_t i = 0; i < parts; ++i) {
    Value start = arith::MulIOp::create(
        b, loc, piece, arith::ConstantIndexOp::create(b, loc, i));
    Value left = arith::MaxSIOp::create(
        b, loc, arith::SubIOp::create(b, loc, extent, start), zero);
    sizes.push_back(arith::MinSIOp::create(b, loc, piece, left).getResult());
  }
  FailureOr<SmallVector<Value>> pieces =
      buildSplitDynamic(b, loc, x, axis, sizes);
  if (failed(pieces))
    return failure();
  for (auto [i, p] : llvm::enumerate(*pieces))
    if (failed(ctx.setResult(i, refineToShape(b, loc, p, outputHint(ctx, i)))))
      return failure();
  return success();
}

/// Split: sizes from the `split` attribute (before 13) or input 1 (13+; a
/// constant, else importSplitDynamic), else equal parts over the outputs
/// (num_outputs in opset 18: the last piece may be smaller).
LogicalResult importSplit(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", 0), type.getRank());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> sizes;
  if (ctx.opset < 13) {
    sizes = ctx.getInts("split");
  } else if (ctx.hasInput(1)) {
    std::optional<SmallVector<int64_t>> c = constantInts(ctx, 1);
    if (!c)
      return importSplitDynamic(ctx, *x, *axis);
    sizes = *c;
  }
  int64_t extent = type.getDimSize(*axis);
  if (sizes.empty()) {
    int64_t parts = ctx.getInt("num_outputs", ctx.node.output_size());
    if (parts <= 0)
      return emitError(ctx.loc) << "Split: no outputs";
    if (ShapedType::isDynamic(extent))
      return importSplitEqualDynamic(ctx, *x, *axis, parts);
    int64_t piece = (extent + parts - 1) / parts;
    for (int64_t i = 0, left = extent; i < parts; ++i) {
      sizes.push_back(std::min(piece, left));
      left -= sizes.back();
    }
  }
  if (int64_t(sizes.size()) != ctx.node.output_size())
    return emitError(ctx.loc) << "Split: " << sizes.size() << " sizes for "
                              << ctx.node.output_size() << " outputs";
  FailureOr<SmallVector<Value>> pieces =
      buildSplit(ctx.b, ctx.loc, *x, *axis, sizes);
  if (failed(pieces))
    return failure();
  for (auto [i, p] : llvm::enumerate(*pieces))
    if (failed(ctx.setResult(i, p)))
      return failure();
  return success();
}

/// ReverseSequence (opset 10+): batch_axis 1, time_axis 0 by default.
LogicalResult importReverseSequence(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), lens = ctx.input(1);
  if (failed(x) || failed(lens))
    return failure();
  return ctx.setResult(0, buildReverseSequence(ctx.b, ctx.loc, *x, *lens,
                                               ctx.getInt("batch_axis", 1),
                                               ctx.getInt("time_axis", 0)));
}

/// TopK (opset 10+; k as input, largest/sorted since 11): sorted results
/// (sorted = 0 leaves the order unspecified, so sorted is valid). A k read
/// at run time gives a dynamic extent, typed with the output shapes ONNX
/// gives; k larger than the extent is undefined behaviour.
LogicalResult importTopK(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  FailureOr<int64_t> axis =
      normalizeAxis(ctx, ctx.getInt("axis", -1), rankOf(*x));
  if (failed(axis))
    return failure();
  bool largest = ctx.getInt("largest", 1);
  FailureOr<std::pair<Value, Value>> r;
  std::optional<SmallVector<int64_t>> c;
  if (ctx.opset < 10)
    c = SmallVector<int64_t>{ctx.getInt("k", 0)};
  else
    c = constantInts(ctx, 1);
  if (c) {
    if (c->size() != 1)
      return emitError(ctx.loc) << "TopK: k must have one element";
    r = buildTopK(ctx.b, ctx.loc, *x, (*c)[0], *axis, largest);
  } else {
    FailureOr<Value> k = scalarIndexInput(ctx, 1, "k", /*allowFloat=*/false);
    if (failed(k))
      return failure();
    r = buildTopKDynamic(ctx.b, ctx.loc, *x, *k, *axis, largest);
  }
  if (failed(r) ||
      failed(ctx.setResult(
          0, refineToShape(ctx.b, ctx.loc, r->first, outputHint(ctx, 0)))))
    return failure();
  return ctx.setResult(
      1, refineToShape(ctx.b, ctx.loc, r->second, outputHint(ctx, 1)));
}

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

/// Unique (opset 11): the distinct elements (or slices along `axis`),
/// ascending when `sorted` (default 1), else in first-occurrence order; the
/// optional outputs are the first indices, the inverse indices and the
/// counts (int64).
LogicalResult importUnique(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  std::optional<int64_t> axis;
  if (ctx.attribute("axis"))
    axis = ctx.getInt("axis", 0);
  UniqueOrder order = ctx.getInt("sorted", 1) ? UniqueOrder::Sorted
                                              : UniqueOrder::FirstOccurrence;
  FailureOr<UniqueResult> r =
      buildUnique(ctx.b, ctx.loc, *x, axis, order, ctx.isUnsignedInput(0));
  if (failed(r))
    return failure();
  Value outs[] = {r->values, r->firstIndices, r->inverseIndices, r->counts};
  for (auto [i, v] : llvm::enumerate(outs))
    if (ctx.hasOutput(i) && failed(ctx.setResult(i, v)))
      return failure();
  return success();
}

} // namespace

void registerSliceGatherOps(OpTable &table) {
  table.add({
      {"Compress", importCompress},
      {"Gather", importGather},
      {"GatherElements", importGatherElements},
      {"GatherND", importGatherND},
      {"NonMaxSuppression", importNonMaxSuppression},
      {"NonZero", importNonZero},
      {"ReverseSequence", importReverseSequence},
      {"Scatter", importScatterElements},
      {"ScatterElements", importScatterElements},
      {"ScatterND", importScatterND},
      {"Slice", importSlice},
      {"Split", importSplit},
      {"TopK", importTopK},
      {"Unique", importUnique},
  });
}

} // namespace mlprog::onnx_import
