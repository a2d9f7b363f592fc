//===- TensorOps.cpp - ONNX shape, indexing and data-movement ops ---===//
//
// Handlers only read operands and attributes (with the ONNX operator spec's
// defaults for the model's opset) and call the shared builders in
// mlprog/Import/Common; semantics belong in the builders.
//
// Shape computations (Shape -> Gather/Slice/Concat -> Reshape/Expand/...)
// are folded at import time when every input is a compile-time constant:
// the handler then records the result with setConstantResult so that later
// nodes see a constant. Otherwise the builders emit run-time computations;
// where an op's result shape depends on a run-time tensor, the static shape
// ONNX shape inference gives the output is used when there is one.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"
#include "TensorConversion.h"

#include "mlprog/Import/Common/Conv.h"
#include "mlprog/Import/Common/Creation.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Pool.h"
#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace mlprog::onnx_import {
namespace {

//===--- Compile-time values ----------------------------------------------===//

/// Constants with more elements than this are not folded (shape
/// computations are tiny; this keeps weights out of the folder).
constexpr int64_t kFoldLimit = 1 << 16;

/// Entries of an integer constant, sign-extended.
SmallVector<int64_t> intValues(DenseElementsAttr a) {
  SmallVector<int64_t> v;
  for (const APInt &x : a.getValues<APInt>())
    v.push_back(x.getSExtValue());
  return v;
}

/// Records output `i` as the compile-time value `value`.
LogicalResult setFolded(NodeContext &ctx, unsigned i, DenseElementsAttr value) {
  ctx.setConstantResult(i, buildConstant(ctx.b, ctx.loc, value), value);
  return success();
}

bool foldable(DenseElementsAttr a) {
  return a && (a.isSplat() || a.getNumElements() <= kFoldLimit);
}

SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// result[idx] = src.flat[srcFlat(idx)] for every multi-index of `outShape`.
DenseElementsAttr foldMap(DenseElementsAttr src, ArrayRef<int64_t> outShape,
                          function_ref<int64_t(ArrayRef<int64_t>)> srcFlat) {
  auto type = RankedTensorType::get(outShape, src.getElementType());
  if (src.isSplat())
    return DenseElementsAttr::get(type, src.getSplatValue<Attribute>());
  SmallVector<Attribute> in(src.getValues<Attribute>());
  int64_t n = type.getNumElements();
  SmallVector<Attribute> out;
  out.reserve(n);
  SmallVector<int64_t> idx(outShape.size(), 0);
  for (int64_t f = 0; f < n; ++f) {
    out.push_back(in[srcFlat(idx)]);
    for (int64_t d = int64_t(idx.size()) - 1; d >= 0; --d) {
      if (++idx[d] < outShape[d])
        break;
      idx[d] = 0;
    }
  }
  return DenseElementsAttr::get(type, out);
}

/// Static shape of a value, or nullopt.
std::optional<SmallVector<int64_t>> staticShapeOf(Value v) {
  auto t = cast<RankedTensorType>(v.getType());
  if (!t.hasStaticShape())
    return std::nullopt;
  return SmallVector<int64_t>(t.getShape());
}

/// A static shape from a constant input or, failing that, from ONNX shape
/// inference of output `out`; nullopt if neither is known.
std::optional<SmallVector<int64_t>> constantInts(NodeContext &ctx, unsigned i) {
  if (DenseElementsAttr a = ctx.optionalConstantInput(i))
    if (a.getElementType().isSignlessInteger())
      return intValues(a);
  return std::nullopt;
}

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

//===--- Run-time arguments -----------------------------------------------===//

/// Input `i`, an argument read at run time (axes, starts, pads, split
/// sizes): a located error unless it is a 1-D signless-integer tensor of
/// static length.
FailureOr<Value> argumentTensor(NodeContext &ctx, unsigned i, StringRef what) {
  FailureOr<Value> v = ctx.input(i);
  if (failed(v))
    return failure();
  auto t = dyn_cast<RankedTensorType>(v->getType());
  if (!t || t.getRank() != 1 || t.isDynamicDim(0) ||
      !t.getElementType().isSignlessInteger())
    return emitError(ctx.loc)
           << ctx.node.op_type() << ": " << what
           << " must be a 1-D integer tensor of static length, got "
           << v->getType();
  return *v;
}

/// Static length of a 1-D tensor checked by argumentTensor.
int64_t lengthOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getDimSize(0);
}

/// The one element of input `i` (a scalar or a one-element tensor of an
/// integer or, when `allowFloat`, a float type, read at run time and
/// truncated toward zero) as an index.
FailureOr<Value> scalarIndexInput(NodeContext &ctx, unsigned i, StringRef what,
                                  bool allowFloat) {
  FailureOr<Value> v = ctx.input(i);
  if (failed(v))
    return failure();
  auto t = dyn_cast<RankedTensorType>(v->getType());
  Type et = t ? t.getElementType() : Type();
  if (!t || !t.hasStaticShape() || t.getNumElements() != 1 ||
      !(et.isSignlessInteger() || (allowFloat && isa<FloatType>(et))))
    return emitError(ctx.loc)
           << ctx.node.op_type() << ": " << what << " must be a one-element "
           << (allowFloat ? "numeric" : "integer") << " tensor, got "
           << v->getType();
  Value zero = arith::ConstantIndexOp::create(ctx.b, ctx.loc, 0);
  Value e = tensor::ExtractOp::create(ctx.b, ctx.loc, *v,
                                      SmallVector<Value>(t.getRank(), zero));
  if (isa<FloatType>(et))
    e = arith::FPToSIOp::create(ctx.b, ctx.loc, ctx.b.getI64Type(), e);
  return Value(
      arith::IndexCastOp::create(ctx.b, ctx.loc, ctx.b.getIndexType(), e));
}

/// The shape ONNX gives output `i`, or empty (a hint for refineToShape).
SmallVector<int64_t> outputHint(NodeContext &ctx, unsigned i) {
  std::optional<SmallVector<int64_t>> s = ctx.staticOutputShape(i);
  return s ? *s : SmallVector<int64_t>();
}

//===--- Shape queries ----------------------------------------------------===//

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
  SmallVector<Value> elems;
  for (int64_t d = start; d < start + n; ++d)
    elems.push_back(arith::IndexCastOp::create(
        ctx.b, ctx.loc, ctx.b.getI64Type(),
        tensor::DimOp::create(ctx.b, ctx.loc, *x, d)));
  return ctx.setResult(0, Value(tensor::FromElementsOp::create(
                              ctx.b, ctx.loc, resultType, elems)));
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

//===--- Reshapes ---------------------------------------------------------===//

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
  return ctx.setResult(
      0, buildExpandToSizes(ctx.b, ctx.loc, *x,
                            extractShapeSizes(ctx.b, ctx.loc, *shape)));
}

//===--- Slicing and gathering --------------------------------------------===//

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
    if (ShapedType::isDynamic(extent))
      return emitError(ctx.loc)
             << "unsupported Split of a dynamic extent into equal parts";
    if (parts <= 0)
      return emitError(ctx.loc) << "Split: no outputs";
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

//===--- Creation ---------------------------------------------------------===//

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
  SmallVector<OpFoldResult> sizes = extractShapeSizes(ctx.b, ctx.loc, *shape);
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

//===--- Rearrangements ---------------------------------------------------===//

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

/// SpaceToDepth: blocksize.
LogicalResult importSpaceToDepth(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(
      0, buildSpaceToDepth(ctx.b, ctx.loc, *x, ctx.getInt("blocksize", 0)));
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

/// The Pad mode attribute; a located error for unknown modes.
FailureOr<PadMode> padMode(NodeContext &ctx) {
  std::string mode = ctx.getString("mode", "constant");
  if (mode == "constant")
    return PadMode::Constant;
  if (mode == "reflect")
    return PadMode::Reflect;
  if (mode == "edge")
    return PadMode::Replicate;
  return emitError(ctx.loc) << "unsupported Pad mode '" << mode << "'";
}

/// The padded axes of Pad (input 3, opset 18+, a constant), normalized; all
/// dims without it.
FailureOr<SmallVector<int64_t>> padAxes(NodeContext &ctx, int64_t rank) {
  SmallVector<int64_t> axes;
  if (!ctx.hasInput(3)) {
    for (int64_t d = 0; d < rank; ++d)
      axes.push_back(d);
    return axes;
  }
  std::optional<SmallVector<int64_t>> a = constantInts(ctx, 3);
  if (!a)
    return emitError(ctx.loc) << "unsupported Pad with run-time axes";
  for (int64_t ax : *a) {
    FailureOr<int64_t> n = normalizeAxis(ctx, ax, rank);
    if (failed(n))
      return failure();
    axes.push_back(*n);
  }
  return axes;
}

/// Pad (opset 11+) whose pads or constant_value are read at run time, or
/// whose pads are negative (cropping): a run-time pad typed with the output
/// shape ONNX gives, where it gives one.
LogicalResult importPadDynamic(NodeContext &ctx, Value x) {
  int64_t rank = rankOf(x);
  FailureOr<SmallVector<int64_t>> axes = padAxes(ctx, rank);
  FailureOr<PadMode> mode = padMode(ctx);
  FailureOr<Value> pads = argumentTensor(ctx, 1, "pads");
  if (failed(axes) || failed(mode) || failed(pads))
    return failure();
  int64_t na = axes->size();
  if (lengthOf(*pads) != 2 * na)
    return emitError(ctx.loc)
           << "Pad: expected " << 2 * na << " pads, got " << lengthOf(*pads);
  SmallVector<OpFoldResult> p = extractShapeSizes(ctx.b, ctx.loc, *pads);
  SmallVector<OpFoldResult> low(rank, ctx.b.getIndexAttr(0)),
      high(rank, ctx.b.getIndexAttr(0));
  for (int64_t i = 0; i < na; ++i) {
    low[(*axes)[i]] = p[i];
    high[(*axes)[i]] = p[i + na];
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

/// Pad: mode constant (default), reflect or edge; pads as an attribute
/// (before opset 11, `value` the fill) or input 1 (11+, with the fill in
/// optional input 2 and, since 18, the padded axes in input 3). Pads or a
/// fill read at run time, and negative pads (cropping), go through
/// importPadDynamic.
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
    if (!c || llvm::any_of(*c, [](int64_t p) { return p < 0; }))
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

//===--- Sliding windows --------------------------------------------------===//

/// GlobalMaxPool: max over all spatial dims, giving [N, C, 1, ..., 1].
LogicalResult importGlobalMaxPool(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  auto type = cast<RankedTensorType>(x->getType());
  if (type.getRank() < 3)
    return emitError(ctx.loc) << "GlobalMaxPool needs rank >= 3";
  SmallVector<int64_t> kernel(type.getShape().drop_front(2));
  return ctx.setResult(0, buildMaxPool(ctx.b, ctx.loc, *x, kernel, {}, false,
                                       ctx.isUnsignedInput(0)));
}

/// ConvTranspose (opset 1+): group, strides, dilations, pads,
/// output_padding; output_shape or auto_pad SAME_* derive the pads (ONNX
/// rule: SAME_UPPER puts the odd padding element at the end).
LogicalResult importConvTranspose(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), w = ctx.input(1);
  if (failed(x) || failed(w))
    return failure();
  auto xt = cast<RankedTensorType>(x->getType());
  auto wt = cast<RankedTensorType>(w->getType());
  int64_t n = wt.getRank() - 2;
  if (n < 1 || xt.getRank() != n + 2 || !wt.hasStaticShape())
    return emitError(ctx.loc) << "ConvTranspose: invalid input/weight ranks";
  SmallVector<int64_t> kernel(wt.getShape().drop_front(2));
  WindowParams p;
  p.strides = ctx.getInts("strides");
  p.dilations = ctx.getInts("dilations");
  if (p.strides.empty())
    p.strides.assign(n, 1);
  if (p.dilations.empty())
    p.dilations.assign(n, 1);
  SmallVector<int64_t> outPad = ctx.getInts("output_padding");
  if (outPad.empty())
    outPad.assign(n, 0);
  SmallVector<int64_t> pads = ctx.getInts("pads");
  if (pads.empty())
    pads.assign(2 * n, 0);
  if (int64_t(p.strides.size()) != n || int64_t(p.dilations.size()) != n ||
      int64_t(outPad.size()) != n || int64_t(pads.size()) != 2 * n)
    return emitError(ctx.loc) << "ConvTranspose: attribute lengths do not "
                                 "match the kernel";
  std::string autoPad = ctx.getString("auto_pad", "NOTSET");
  SmallVector<int64_t> outShape = ctx.getInts("output_shape");
  if (int64_t(outShape.size()) == n + 2)
    outShape.erase(outShape.begin(), outShape.begin() + 2);
  if (outShape.empty() && (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER"))
    for (int64_t i = 0; i < n; ++i)
      outShape.push_back(xt.getDimSize(i + 2) * p.strides[i]);
  if (!outShape.empty()) {
    if (int64_t(outShape.size()) != n)
      return emitError(ctx.loc) << "ConvTranspose: output_shape has "
                                << outShape.size() << " entries";
    for (int64_t i = 0; i < n; ++i) {
      int64_t in = xt.getDimSize(i + 2);
      if (ShapedType::isDynamic(in))
        return emitError(ctx.loc) << "unsupported ConvTranspose output_shape "
                                     "with dynamic spatial extents";
      int64_t total = p.strides[i] * (in - 1) + outPad[i] +
                      (kernel[i] - 1) * p.dilations[i] + 1 - outShape[i];
      if (total < 0) {
        // The output is larger than the full result: extend at the end.
        outPad[i] -= total;
        total = 0;
      }
      bool upper = autoPad == "SAME_UPPER";
      pads[i] = upper ? total / 2 : total - total / 2;
      pads[i + n] = total - pads[i];
    }
  } else if (autoPad != "NOTSET" && autoPad != "VALID") {
    return emitError(ctx.loc) << "invalid auto_pad '" << autoPad << "'";
  } else if (autoPad == "VALID") {
    pads.assign(2 * n, 0);
  }
  p.padsBegin.assign(pads.begin(), pads.begin() + n);
  p.padsEnd.assign(pads.begin() + n, pads.end());
  return ctx.setResult(0, buildConvTranspose(ctx.b, ctx.loc, *x, *w,
                                             ctx.optionalInput(2), p,
                                             ctx.getInt("group", 1), outPad));
}

} // namespace

void registerTensorOpHandlers(OpHandlerTable &table) {
  static const std::pair<const char *, OpHandler> handlers[] = {
      {"Concat", importConcat},
      {"ConstantOfShape", importConstantOfShape},
      {"ConvTranspose", importConvTranspose},
      {"DepthToSpace", importDepthToSpace},
      {"Expand", importExpand},
      {"EyeLike", importEyeLike},
      {"Flatten", importFlatten},
      {"Gather", importGather},
      {"GatherElements", importGatherElements},
      {"GatherND", importGatherND},
      {"GlobalMaxPool", importGlobalMaxPool},
      {"OneHot", importOneHot},
      {"Pad", importPad},
      {"Range", importRange},
      {"Reshape", importReshape},
      {"ReverseSequence", importReverseSequence},
      {"Shape", importShape},
      {"Size", importSize},
      {"Slice", importSlice},
      {"SpaceToDepth", importSpaceToDepth},
      {"Split", importSplit},
      {"Squeeze", importSqueeze},
      {"Tile", importTile},
      {"TopK", importTopK},
      {"Transpose", importTranspose},
      {"Trilu", importTrilu},
      {"Unsqueeze", importUnsqueeze},
  };
  for (const auto &[name, handler] : handlers)
    table[name] = handler;
}

} // namespace mlprog::onnx_import
