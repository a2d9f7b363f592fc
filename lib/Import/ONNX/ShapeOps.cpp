//===- ShapeOps.cpp - ONNX shape and layout ops ---------------------------===//
//
// Handlers for the ops that query or change a shape or layout: Shape, Size,
// Reshape, Flatten, (Un)Squeeze, Transpose, Concat, Expand, Tile,
// DepthToSpace, SpaceToDepth, Pad.
//
// Shape computations (Shape -> Gather/Slice/Concat -> Reshape/Expand/...)
// are folded at import time when every input is a compile-time constant:
// the handler then records the result with setConstantResult so that later
// nodes see a constant. Otherwise the builders emit run-time computations;
// where an op's result shape depends on a run-time tensor, the static shape
// ONNX shape inference gives the output is used when there is one.
//
// Handlers only read operands and attributes (with the ONNX operator spec's
// defaults for the model's opset) and call the shared builders in
// mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"
#include "NodeContext.h"

#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace mlprog::onnx_import {

namespace {

/// Reshape of a constant (same element count).
DenseElementsAttr foldReshape(DenseElementsAttr a, ArrayRef<int64_t> shape) {
  return a.reshape(RankedTensorType::get(shape, a.getElementType()));
}

/// Emits `x` reshaped to the static `shape`, folding constants.
LogicalResult setReshaped(NodeContext &ctx, unsigned i, Value x,
                          ArrayRef<int64_t> shape, DenseElementsAttr c) {
  if (foldable(c) && llvm::none_of(shape, ShapedType::isDynamic))
    return setFolded(ctx, i, foldReshape(c, shape));
  return ctx.setResult(i, buildReshape(ctx.b, ctx.loc, x, shape));
}

/// Shape (opset 1+; start/end since 15, clamped, negative from the back):
/// a constant for static input shapes, else tensor.dim at run time.
LogicalResult importShape(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank();
  auto clampDim = [&](int64_t v) {
    if (v < 0)
      v += rank;
    return std::min(std::max<int64_t>(v, 0), rank);
  };
  int64_t start = clampDim(ctx.getInt("start", 0));
  int64_t end = clampDim(ctx.getInt("end", rank));
  int64_t n = std::max<int64_t>(end - start, 0);
  auto resultType = RankedTensorType::get({n}, ctx.b.getI64Type());
  ArrayRef<int64_t> dims = type.getShape().slice(start, n);
  if (llvm::none_of(dims, ShapedType::isDynamic))
    return setFolded(ctx, 0, DenseElementsAttr::get(resultType, dims));
  FailureOr<Value> shape = buildShapeOf(ctx.b, ctx.loc, *x, ctx.b.getI64Type());
  if (failed(shape) || (start == 0 && n == rank))
    return ctx.setResult(0, shape);
  SliceDim dim;
  dim.start = start;
  dim.stop = start + n;
  return ctx.setResult(0, buildSlice(ctx.b, ctx.loc, *shape, {dim}));
}

/// Size: the element count as an int64 scalar.
LogicalResult importSize(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  auto resultType = RankedTensorType::get({}, ctx.b.getI64Type());
  if (type.hasStaticShape())
    return setFolded(
        ctx, 0,
        DenseElementsAttr::get(resultType, int64_t(type.getNumElements())));
  Value n = arith::ConstantIndexOp::create(ctx.b, ctx.loc, 1);
  for (int64_t d = 0; d < type.getRank(); ++d)
    n = arith::MulIOp::create(ctx.b, ctx.loc, n,
                              tensor::DimOp::create(ctx.b, ctx.loc, *x, d));
  Value v = arith::IndexCastOp::create(ctx.b, ctx.loc, ctx.b.getI64Type(), n);
  return ctx.setResult(0, Value(tensor::FromElementsOp::create(
                              ctx.b, ctx.loc, resultType, ValueRange{v})));
}

/// The result extents of a Reshape of `x` to a computed shape whose
/// elements are partly known (GraphState::knownElements): a positive
/// element is that extent, a 0 copies x's static extent (unless
/// `allowZero`), and a -1 is computed when every other extent and x's
/// shape are static; kDynamic elsewhere. Nothing when no element is known.
static std::optional<SmallVector<int64_t>>
knownReshapeExtents(NodeContext &ctx, Value x, bool allowZero) {
  std::optional<SmallVector<int64_t>> known = ctx.knownInputElements(1);
  if (!known)
    return std::nullopt;
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> extents;
  int64_t inferred = -1;
  for (auto [i, e] : llvm::enumerate(*known)) {
    if (e > 0)
      extents.push_back(e);
    else if (e == 0 && !allowZero && int64_t(i) < type.getRank())
      extents.push_back(type.getDimSize(i));
    else if (e == -1 && inferred < 0)
      inferred = i, extents.push_back(ShapedType::kDynamic);
    else
      extents.push_back(ShapedType::kDynamic);
  }
  if (inferred >= 0 && type.hasStaticShape()) {
    int64_t rest = 1;
    for (auto [i, e] : llvm::enumerate(extents))
      if (int64_t(i) != inferred)
        rest = ShapedType::isDynamic(e) || rest == ShapedType::kDynamic
                   ? ShapedType::kDynamic
                   : rest * e;
    if (!ShapedType::isDynamic(rest) && rest > 0 &&
        type.getNumElements() % rest == 0)
      extents[inferred] = type.getNumElements() / rest;
  }
  return extents;
}

/// Reshape: the target shape is input 1 (opset 5+; an attribute before); 0
/// copies the input extent unless allowzero (14+), one -1 is inferred. A
/// run-time shape is resolved at run time (tensor.reshape), typed with the
/// shape ONNX inference gives the output where it has one.
LogicalResult importReshape(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  bool allowZero = ctx.getInt("allowzero", 0);
  SmallVector<int64_t> requested;
  if (ctx.opset < 5) {
    requested = ctx.getInts("shape");
  } else if (std::optional<SmallVector<int64_t>> c = constantInts(ctx, 1)) {
    requested = *c;
  } else {
    FailureOr<Value> shape = ctx.input(1);
    if (failed(shape))
      return failure();
    std::optional<SmallVector<int64_t>> out = ctx.staticOutputShape(0);
    if (out && cast<RankedTensorType>(x->getType()).hasStaticShape())
      return ctx.setResult(0, buildReshape(ctx.b, ctx.loc, *x, *out));
    if (!out)
      out = knownReshapeExtents(ctx, *x, allowZero);
    return ctx.setResult(
        0, buildReshapeToShapeTensor(ctx.b, ctx.loc, *x, *shape, allowZero,
                                     out ? ArrayRef<int64_t>(*out)
                                         : ArrayRef<int64_t>()));
  }
  FailureOr<SmallVector<int64_t>> resolved = resolveReshapeShape(
      ctx.loc, cast<RankedTensorType>(x->getType()).getShape(), requested,
      allowZero);
  if (failed(resolved))
    return failure();
  // A constant shape that copies (0) several dynamic input extents, e.g.
  // [0, 0, -1] on [?, ?, 2, 8]: the extents are read at run time.
  if (ctx.opset >= 5 && llvm::count_if(*resolved, ShapedType::isDynamic) > 1) {
    FailureOr<Value> shape = ctx.input(1);
    if (failed(shape))
      return failure();
    return ctx.setResult(0,
                         buildReshapeToShapeTensor(ctx.b, ctx.loc, *x, *shape,
                                                   allowZero, *resolved));
  }
  return setReshaped(ctx, 0, *x, *resolved, ctx.optionalConstantInput(0));
}

/// Flatten: axis = 1 by default, in [-rank, rank] since opset 11.
LogicalResult importFlatten(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.getInt("axis", 1),
                                          rankOf(*x), /*inclusiveEnd=*/true);
  if (failed(axis))
    return failure();
  DenseElementsAttr c = ctx.optionalConstantInput(0);
  if (foldable(c)) {
    ArrayRef<int64_t> s = c.getType().getShape();
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < int64_t(s.size()); ++d)
      (d < *axis ? outer : inner) *= s[d];
    return setFolded(ctx, 0, foldReshape(c, {outer, inner}));
  }
  return ctx.setResult(0, buildFlatten(ctx.b, ctx.loc, *x, *axis));
}

/// The axes of Squeeze/Unsqueeze: attribute before opset 13, optional input
/// since (a constant here; see hasRuntimeAxes).
FailureOr<SmallVector<int64_t>> getAxes(NodeContext &ctx, unsigned input) {
  if (ctx.opset < 13)
    return ctx.getInts("axes");
  if (!ctx.hasInput(input))
    return SmallVector<int64_t>();
  if (std::optional<SmallVector<int64_t>> c = constantInts(ctx, input))
    return *c;
  return emitError(ctx.loc)
         << "unsupported " << ctx.node.op_type() << " with run-time axes";
}

/// Whether the axes of Squeeze/Unsqueeze are a run-time input (opset 13+).
bool hasRuntimeAxes(NodeContext &ctx, unsigned input) {
  return ctx.opset >= 13 && ctx.hasInput(input) && !constantInts(ctx, input);
}

/// Unsqueeze: inserts unit dims at `axes` (positions in the output, in
/// [-r', r'), any order). Axes given at run time (opset 13+) give a result
/// of rank r + len(axes) whose shape is computed at run time.
LogicalResult importUnsqueeze(NodeContext &ctx) {
  if (hasRuntimeAxes(ctx, 1)) {
    FailureOr<Value> x = ctx.input(0), axes = ctx.input(1);
    if (failed(x) || failed(axes))
      return failure();
    return ctx.setResult(0, buildUnsqueezeDynamic(ctx.b, ctx.loc, *x, *axes,
                                                  outputHint(ctx, 0)));
  }
  FailureOr<Value> x = ctx.input(0);
  FailureOr<SmallVector<int64_t>> axes = getAxes(ctx, 1);
  if (failed(x) || failed(axes))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t outRank = type.getRank() + axes->size();
  SmallVector<bool> isNew(outRank, false);
  for (int64_t a : *axes) {
    FailureOr<int64_t> n = normalizeAxis(ctx, a, outRank);
    if (failed(n))
      return failure();
    if (isNew[*n])
      return emitError(ctx.loc) << "Unsqueeze: repeated axis " << a;
    isNew[*n] = true;
  }
  SmallVector<int64_t> shape;
  for (int64_t d = 0, s = 0; d < outRank; ++d)
    shape.push_back(isNew[d] ? 1 : type.getDimSize(s++));
  DenseElementsAttr c = ctx.optionalConstantInput(0);
  if (foldable(c))
    return setFolded(ctx, 0, foldReshape(c, shape));
  Value v = *x;
  for (int64_t d = 0; d < outRank; ++d) {
    if (!isNew[d])
      continue;
    FailureOr<Value> u = buildUnsqueeze(ctx.b, ctx.loc, v, d);
    if (failed(u))
      return failure();
    v = *u;
  }
  return ctx.setResult(0, v);
}

/// Squeeze: removes the listed dims (which must be 1; a dynamic extent is
/// asserted to be 1), or every static unit dim without axes. Axes given at
/// run time (opset 13+) give a result of rank r - len(axes) whose shape is
/// computed at run time.
LogicalResult importSqueeze(NodeContext &ctx) {
  if (hasRuntimeAxes(ctx, 1)) {
    FailureOr<Value> x = ctx.input(0), axes = ctx.input(1);
    if (failed(x) || failed(axes))
      return failure();
    return ctx.setResult(
        0, buildSqueezeDynamic(ctx.b, ctx.loc, *x, *axes, outputHint(ctx, 0)));
  }
  FailureOr<Value> x = ctx.input(0);
  FailureOr<SmallVector<int64_t>> axes = getAxes(ctx, 1);
  if (failed(x) || failed(axes))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  int64_t rank = type.getRank();
  SmallVector<bool> drop(rank, false);
  if (axes->empty()) {
    for (int64_t d = 0; d < rank; ++d)
      drop[d] = type.getDimSize(d) == 1;
  }
  for (int64_t a : *axes) {
    FailureOr<int64_t> n = normalizeAxis(ctx, a, rank);
    if (failed(n))
      return failure();
    int64_t e = type.getDimSize(*n);
    if (e != 1 && !ShapedType::isDynamic(e))
      return emitError(ctx.loc)
             << "Squeeze: dim " << *n << " has extent " << e << ", not 1";
    drop[*n] = true;
  }
  SmallVector<int64_t> shape, unitShape;
  for (int64_t d = 0; d < rank; ++d) {
    unitShape.push_back(drop[d] ? 1 : type.getDimSize(d));
    if (!drop[d])
      shape.push_back(type.getDimSize(d));
  }
  DenseElementsAttr c = ctx.optionalConstantInput(0);
  if (foldable(c))
    return setFolded(ctx, 0, foldReshape(c, shape));
  Value v = *x;
  auto unitType = RankedTensorType::get(unitShape, type.getElementType());
  if (unitType != type)
    v = tensor::CastOp::create(ctx.b, ctx.loc, unitType, v);
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d)
    if (drop[d])
      dims.push_back(d);
  return ctx.setResult(0, buildSqueeze(ctx.b, ctx.loc, v, dims));
}

/// Transpose: perm defaults to reversing the dims.
LogicalResult importTranspose(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  int64_t rank = rankOf(*x);
  SmallVector<int64_t> perm = ctx.getInts("perm");
  if (perm.empty())
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  DenseElementsAttr c = ctx.optionalConstantInput(0);
  if (foldable(c) && int64_t(perm.size()) == rank &&
      llvm::all_of(perm, [&](int64_t p) { return p >= 0 && p < rank; })) {
    ArrayRef<int64_t> s = c.getType().getShape();
    SmallVector<int64_t> strides = stridesOf(s), out;
    for (int64_t p : perm)
      out.push_back(s[p]);
    return setFolded(ctx, 0, foldMap(c, out, [&](ArrayRef<int64_t> idx) {
                       int64_t f = 0;
                       for (int64_t d = 0; d < rank; ++d)
                         f += idx[d] * strides[perm[d]];
                       return f;
                     }));
  }
  return ctx.setResult(0, buildTranspose(ctx.b, ctx.loc, *x, perm));
}

/// Concat: axis is required (opset 4+), negative since opset 11.
LogicalResult importConcat(NodeContext &ctx) {
  if (!ctx.attribute("axis"))
    return emitError(ctx.loc) << "Concat needs an 'axis' attribute";
  SmallVector<Value> inputs;
  SmallVector<DenseElementsAttr> consts;
  for (int i = 0; i < ctx.node.input_size(); ++i) {
    FailureOr<Value> v = ctx.input(i);
    if (failed(v))
      return failure();
    inputs.push_back(*v);
    consts.push_back(ctx.optionalConstantInput(i));
  }
  if (inputs.empty())
    return emitError(ctx.loc) << "Concat needs at least one input";
  int64_t rank = rankOf(inputs[0]);
  FailureOr<int64_t> axis = normalizeAxis(ctx, ctx.getInt("axis", 0), rank);
  if (failed(axis))
    return failure();
  if (llvm::all_of(consts, [](DenseElementsAttr c) {
        return c && c.getNumElements() <= kFoldLimit;
      })) {
    // Row-major: concatenate per outer index along axis-and-inner blocks.
    ArrayRef<int64_t> s0 = consts[0].getType().getShape();
    int64_t outer = 1;
    for (int64_t d = 0; d < *axis; ++d)
      outer *= s0[d];
    SmallVector<SmallVector<Attribute>> vals;
    SmallVector<int64_t> blocks;
    SmallVector<int64_t> shape(s0);
    shape[*axis] = 0;
    for (DenseElementsAttr c : consts) {
      if (c.getType().getRank() != rank)
        return emitError(ctx.loc) << "Concat inputs differ in rank";
      vals.emplace_back(c.getValues<Attribute>());
      blocks.push_back(outer ? c.getNumElements() / std::max<int64_t>(outer, 1)
                             : 0);
      shape[*axis] += c.getType().getDimSize(*axis);
    }
    SmallVector<Attribute> out;
    for (int64_t o = 0; o < outer; ++o)
      for (auto [v, blk] : llvm::zip(vals, blocks))
        out.append(v.begin() + o * blk, v.begin() + (o + 1) * blk);
    auto type = RankedTensorType::get(shape, consts[0].getElementType());
    if (int64_t(out.size()) == type.getNumElements())
      return setFolded(ctx, 0, DenseElementsAttr::get(type, out));
  }
  return ctx.setResult(0, buildConcat(ctx.b, ctx.loc, inputs, *axis));
}

/// Expand (opset 8+): bidirectional broadcast of input 0 with the shape in
/// input 1 (a constant, or a run-time tensor).
LogicalResult importExpand(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  if (std::optional<SmallVector<int64_t>> shape = constantInts(ctx, 1)) {
    int64_t rank = std::max<int64_t>(shape->size(), type.getRank());
    SmallVector<int64_t> target;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t sd = d - (rank - int64_t(shape->size()));
      int64_t xd = d - (rank - type.getRank());
      int64_t s = sd >= 0 ? (*shape)[sd] : 1;
      int64_t in = xd >= 0 ? type.getDimSize(xd) : 1;
      target.push_back(s == 1 ? in : s);
    }
    DenseElementsAttr c = ctx.optionalConstantInput(0);
    if (c && c.isSplat() && type.hasStaticShape() &&
        llvm::none_of(target, ShapedType::isDynamic))
      return setFolded(ctx, 0,
                       DenseElementsAttr::get(
                           RankedTensorType::get(target, type.getElementType()),
                           c.getSplatValue<Attribute>()));
    return ctx.setResult(0, buildExpand(ctx.b, ctx.loc, *x, target));
  }
  FailureOr<Value> shape = ctx.input(1);
  if (failed(shape))
    return failure();
  if (std::optional<SmallVector<int64_t>> out = ctx.staticOutputShape(0))
    return ctx.setResult(0, buildExpand(ctx.b, ctx.loc, *x, *out));
  auto st = cast<RankedTensorType>(shape->getType());
  if (st.getRank() != 1 || st.isDynamicDim(0))
    return emitError(ctx.loc)
           << "unsupported Expand with a shape of unknown length";
  return ctx.setResult(0, buildExpandToSizes(ctx.b, ctx.loc, *x,
                                             shapeSizesInput(ctx, 1, *shape)));
}

/// Tile: repeats from input 1 (a constant, or a run-time tensor when shape
/// inference gives the output a static shape).
LogicalResult importTile(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  SmallVector<int64_t> reps;
  if (std::optional<SmallVector<int64_t>> c = constantInts(ctx, 1)) {
    reps = *c;
  } else if (std::optional<SmallVector<int64_t>> out = ctx.staticOutputShape(0);
             out && type.hasStaticShape() &&
             int64_t(out->size()) == type.getRank()) {
    for (auto [o, i] : llvm::zip(*out, type.getShape())) {
      if (i == 0 || o % i)
        return emitError(ctx.loc) << "unsupported Tile with run-time repeats";
      reps.push_back(o / i);
    }
  } else {
    return emitError(ctx.loc) << "unsupported Tile with run-time repeats";
  }
  return ctx.setResult(0, buildTile(ctx.b, ctx.loc, *x, reps));
}

/// DepthToSpace: blocksize, mode DCR (default) or CRD (opset 11+).
LogicalResult importDepthToSpace(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  std::string mode = ctx.getString("mode", "DCR");
  if (mode != "DCR" && mode != "CRD")
    return emitError(ctx.loc) << "DepthToSpace: invalid mode '" << mode << "'";
  return ctx.setResult(0, buildDepthToSpace(ctx.b, ctx.loc, *x,
                                            ctx.getInt("blocksize", 0),
                                            mode == "CRD"));
}

/// SpaceToDepth: blocksize; mode DCR (default) or CRD from opset 28.
LogicalResult importSpaceToDepth(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  std::string mode = ctx.opset >= 28 ? ctx.getString("mode", "DCR") : "DCR";
  if (mode != "DCR" && mode != "CRD")
    return emitError(ctx.loc) << "SpaceToDepth: invalid mode '" << mode << "'";
  return ctx.setResult(0, buildSpaceToDepth(ctx.b, ctx.loc, *x,
                                            ctx.getInt("blocksize", 0),
                                            mode == "CRD"));
}

/// The Pad mode attribute; a located error for unknown modes.
FailureOr<PadMode> padMode(NodeContext &ctx) {
  std::string mode = ctx.getString("mode", "constant");
  if (mode == "constant")
    return PadMode::Constant;
  if (mode == "reflect")
    return PadMode::Reflect;
  if (mode == "edge")
    return PadMode::Replicate;
  if (mode == "wrap" && ctx.opset >= 19)
    return PadMode::Wrap;
  return emitError(ctx.loc) << "unsupported Pad mode '" << mode << "'";
}

/// Whether Pad's axes (input 3, opset 18+) are given and read at run time.
bool hasRuntimePadAxes(NodeContext &ctx) {
  return ctx.hasInput(3) && !constantInts(ctx, 3);
}

/// The padded axes of Pad (input 3, opset 18+, a constant), normalized; all
/// dims without it. Errors: an axis out of range or repeated.
FailureOr<SmallVector<int64_t>> padAxes(NodeContext &ctx, int64_t rank) {
  if (!ctx.hasInput(3))
    return llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::optional<SmallVector<int64_t>> a = constantInts(ctx, 3);
  if (!a)
    return emitError(ctx.loc) << "unsupported Pad with run-time axes";
  return normalizeDistinctAxes(ctx, *a, rank);
}

/// Pad (opset 11+) whose pads or constant_value are read at run time, or
/// whose pads are negative (cropping): a run-time pad typed with the output
/// shape ONNX gives, where it gives one.
LogicalResult importPadDynamic(NodeContext &ctx, Value x) {
  int64_t rank = rankOf(x);
  FailureOr<PadMode> mode = padMode(ctx);
  FailureOr<Value> pads = argumentTensor(ctx, 1, "pads");
  if (failed(mode) || failed(pads))
    return failure();
  SmallVector<OpFoldResult> p = extractShapeSizes(ctx.b, ctx.loc, *pads);
  SmallVector<OpFoldResult> low(rank, ctx.b.getIndexAttr(0)),
      high(rank, ctx.b.getIndexAttr(0));
  if (hasRuntimePadAxes(ctx)) {
    FailureOr<Value> axes = ctx.input(3);
    if (failed(axes) ||
        failed(spreadPadWidths(ctx.b, ctx.loc, rank, p, *axes, low, high)))
      return failure();
  } else {
    FailureOr<SmallVector<int64_t>> axes = padAxes(ctx, rank);
    if (failed(axes))
      return failure();
    int64_t na = axes->size();
    if (lengthOf(*pads) != 2 * na)
      return emitError(ctx.loc)
             << "Pad: expected " << 2 * na << " pads, got " << lengthOf(*pads);
    for (int64_t i = 0; i < na; ++i) {
      low[(*axes)[i]] = p[i];
      high[(*axes)[i]] = p[i + na];
    }
  }
  Value fill;
  if (ctx.hasInput(2)) {
    FailureOr<Value> v = ctx.input(2);
    if (failed(v))
      return failure();
    auto vt = dyn_cast<RankedTensorType>(v->getType());
    Type et = cast<RankedTensorType>(x.getType()).getElementType();
    if (!vt || !vt.hasStaticShape() || vt.getNumElements() != 1 ||
        vt.getElementType() != et)
      return emitError(ctx.loc) << "Pad: constant_value must be one element "
                                   "of the input's type "
                                << et << ", got " << v->getType();
    Value zero = arith::ConstantIndexOp::create(ctx.b, ctx.loc, 0);
    fill = tensor::ExtractOp::create(ctx.b, ctx.loc, *v,
                                     SmallVector<Value>(vt.getRank(), zero));
  }
  return ctx.setResult(0, buildPadDynamic(ctx.b, ctx.loc, x, low, high, *mode,
                                          fill, outputHint(ctx, 0)));
}

/// CenterCropPad (opset 18): input, shape (one extent per axis, constant
/// or run-time); attribute axes (default: all dims).
LogicalResult importCenterCropPad(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), shape = ctx.input(1);
  if (failed(x) || failed(shape))
    return failure();
  int64_t rank = rankOf(*x);
  SmallVector<int64_t> axes = ctx.getInts("axes");
  if (axes.empty())
    axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  for (int64_t &a : axes) {
    FailureOr<int64_t> n = normalizeAxis(ctx, a, rank);
    if (failed(n))
      return failure();
    a = *n;
  }
  return ctx.setResult(0, buildCenterCropPad(ctx.b, ctx.loc, *x, *shape, axes));
}

/// Pad: mode constant (default), reflect, edge or (19+) wrap; pads as an
/// attribute (before opset 11, `value` the fill) or input 1 (11+, with the
/// fill in optional input 2 and, since 18, the padded axes in input 3).
/// Pads, a fill or axes read at run time, and negative pads (cropping), go
/// through importPadDynamic.
LogicalResult importPad(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  int64_t rank = rankOf(*x);
  SmallVector<int64_t> pads;
  double value = 0.0;
  if (ctx.opset < 11) {
    pads = ctx.getInts("pads");
    value = ctx.getFloat("value", 0.0);
  } else {
    std::optional<SmallVector<int64_t>> c = constantInts(ctx, 1);
    if (!c || llvm::any_of(*c, [](int64_t p) { return p < 0; }) ||
        hasRuntimePadAxes(ctx))
      return importPadDynamic(ctx, *x);
    pads = *c;
    if (ctx.hasInput(2)) {
      DenseElementsAttr v = ctx.optionalConstantInput(2);
      if (!v)
        return importPadDynamic(ctx, *x);
      if (v.getNumElements() != 1)
        return emitError(ctx.loc) << "Pad: constant_value must have one "
                                     "element";
      Attribute a = v.getValues<Attribute>()[0];
      if (auto f = dyn_cast<FloatAttr>(a))
        value = f.getValueAsDouble();
      else if (auto i = dyn_cast<IntegerAttr>(a))
        value = double(i.getInt());
      else
        return emitError(ctx.loc) << "unsupported Pad constant_value";
    }
  }
  FailureOr<SmallVector<int64_t>> axes = padAxes(ctx, rank);
  if (failed(axes))
    return failure();
  int64_t na = axes->size();
  if (int64_t(pads.size()) != 2 * na)
    return emitError(ctx.loc)
           << "Pad: expected " << 2 * na << " pads, got " << pads.size();
  SmallVector<int64_t> low(rank, 0), high(rank, 0);
  for (int64_t i = 0; i < na; ++i) {
    low[(*axes)[i]] = pads[i];
    high[(*axes)[i]] = pads[i + na];
  }
  if (llvm::any_of(pads, [](int64_t p) { return p < 0; }))
    return emitError(ctx.loc) << "unsupported Pad with negative pads";
  FailureOr<PadMode> m = padMode(ctx);
  if (failed(m))
    return failure();
  return ctx.setResult(0, buildPad(ctx.b, ctx.loc, *x, low, high, *m, value));
}

} // namespace

void registerShapeOps(OpTable &table) {
  table.add({
      {"Concat", importConcat},
      {"DepthToSpace", importDepthToSpace},
      {"Expand", importExpand},
      {"Flatten", importFlatten},
      {"CenterCropPad", importCenterCropPad},
      {"Pad", importPad},
      {"Reshape", importReshape},
      {"Shape", importShape},
      {"Size", importSize},
      {"SpaceToDepth", importSpaceToDepth},
      {"Squeeze", importSqueeze},
      {"Tile", importTile},
      {"Transpose", importTranspose},
      {"Unsqueeze", importUnsqueeze},
  });
}

} // namespace mlprog::onnx_import
