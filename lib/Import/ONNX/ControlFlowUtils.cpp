//===- ControlFlowUtils.cpp - Helpers of the ONNX control-flow ops --------===//
//
// What If, Loop and Scan share: joining the types a subgraph produces with
// the region's, casts, scalars, subgraph import, and scan accumulators.
//
//===----------------------------------------------------------------------===//

#include "ControlFlowUtils.h"

#include "mlprog/Import/Common/Sequence.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace mlprog::onnx_import::controlflow {

/// Whether `t` is a statically shaped one-element tensor.
static bool isSingleElement(RankedTensorType t) {
  return t.hasStaticShape() && t.getNumElements() == 1;
}

/// The least static tensor type both `a` and `b` cast to: same rank and
/// element type, extents that differ dynamic; null if there is none. Two
/// one-element tensors of different ranks (a scalar and a [1], as branches
/// of exported function bodies produce) join to the higher rank.
Type joinTypes(Type a, Type b) {
  if (a == b)
    return a;
  auto ra = dyn_cast<RankedTensorType>(a), rb = dyn_cast<RankedTensorType>(b);
  if (ra && rb && ra.getElementType() == rb.getElementType() &&
      ra.getRank() != rb.getRank() && isSingleElement(ra) &&
      isSingleElement(rb))
    return ra.getRank() > rb.getRank() ? ra : rb;
  if (!ra || !rb || ra.getRank() != rb.getRank() ||
      ra.getElementType() != rb.getElementType())
    return Type();
  SmallVector<int64_t> shape;
  for (auto [x, y] : llvm::zip(ra.getShape(), rb.getShape()))
    shape.push_back(x == y ? x : ShapedType::kDynamic);
  return RankedTensorType::get(shape, ra.getElementType());
}

/// Joins `observed` into `types` elementwise; false (after a located
/// error) when some pair has no join.
FailureOr<bool> joinInto(NodeContext &ctx, SmallVectorImpl<Type> &types,
                         TypeRange observed, StringRef what) {
  bool changed = false;
  for (auto [i, t, o] : llvm::enumerate(types, observed)) {
    Type joined = joinTypes(t, o);
    if (!joined)
      return emitError(ctx.loc)
             << "unsupported " << what << " " << i << ": the subgraph "
             << "produces " << o << " where " << t << " is expected";
    changed |= joined != t;
    t = joined;
  }
  return changed;
}

SmallVector<Type> typesOf(ValueRange values) {
  return SmallVector<Type>(values.getTypes());
}

/// Casts `v` to `type` if it is not of that type already (a one-element
/// tensor of another rank is reshaped; see joinTypes).
Value castTo(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  auto from = cast<RankedTensorType>(v.getType());
  auto to = cast<RankedTensorType>(type);
  if (from.getRank() != to.getRank()) {
    FailureOr<Value> r = buildReshape(b, loc, v, to.getShape());
    if (succeeded(r))
      return *r;
  }
  return tensor::CastOp::create(b, loc, type, v);
}

/// An empty sequence of elements of type `element` (extents it leaves
/// dynamic are 0), typed with a dynamic length: the start of a sequence
/// that grows by one element per iteration.
FailureOr<Value> emptyGrowable(OpBuilder &b, Location loc,
                               RankedTensorType element) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t d : element.getShape())
    sizes.push_back(b.getIndexAttr(ShapedType::isDynamic(d) ? 0 : d));
  FailureOr<Value> empty =
      buildSequenceEmpty(b, loc, element, b.getIndexAttr(0), sizes);
  if (failed(empty))
    return failure();
  return castTo(b, loc, *empty, getSequenceType(element, ShapedType::kDynamic));
}

/// The single element of a one-element tensor (ONNX scalars such as If's
/// condition and Loop's trip count are 0-d or 1-element tensors).
FailureOr<Value> extractScalar(NodeContext &ctx, Value tensor, StringRef what) {
  auto type = dyn_cast<RankedTensorType>(tensor.getType());
  if (!type || (type.hasStaticShape() && type.getNumElements() != 1))
    return emitError(ctx.loc)
           << what << " must be a one-element tensor, got " << tensor.getType();
  Value zero = arith::ConstantIndexOp::create(ctx.b, ctx.loc, 0);
  SmallVector<Value> indices(type.getRank(), zero);
  return tensor::ExtractOp::create(ctx.b, ctx.loc, tensor, indices).getResult();
}

/// A 0-d tensor holding scalar `v`.
Value makeScalarTensor(OpBuilder &b, Location loc, Value v) {
  return tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({}, v.getType()), ValueRange{v});
}

FailureOr<SmallVector<Value>> importSubgraph(NodeContext &ctx,
                                             const onnx::GraphProto &graph,
                                             ValueRange inputs) {
  if (!ctx.importSubgraph)
    return emitError(ctx.loc) << "unsupported subgraph in this context";
  return (*ctx.importSubgraph)(graph, inputs);
}

/// Reads the GRAPH attribute `name`; a located error if it is absent.
FailureOr<const onnx::GraphProto *> getGraph(NodeContext &ctx, StringRef name) {
  if (const onnx::GraphProto *g = ctx.getGraph(name))
    return g;
  return emitError(ctx.loc) << "missing graph attribute '" << name << "'";
}

/// The sizes of `v` with a unit extent inserted at `axis`.
SmallVector<OpFoldResult> sizesWithUnit(OpBuilder &b, Location loc, Value v,
                                        int64_t axis) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v);
  sizes.insert(sizes.begin() + axis, b.getIndexAttr(1));
  return sizes;
}

/// Writes `element` into `acc` as slice `position` along `axis`.
Value insertSlice(OpBuilder &b, Location loc, Value element, Value acc,
                  Value position, int64_t axis) {
  int64_t rank = rankOf(acc);
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  offsets[axis] = position;
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  return tensor::InsertSliceOp::create(b, loc, element, acc, offsets,
                                       sizesWithUnit(b, loc, element, axis),
                                       strides);
}

/// An empty accumulator of `elementType` for `count` scan output elements
/// of `elementSizes` (each static where known) along `axis`.
Value emptyAccumulator(OpBuilder &b, Location loc, Type elementType,
                       ArrayRef<OpFoldResult> elementSizes, OpFoldResult count,
                       int64_t axis) {
  SmallVector<OpFoldResult> sizes(elementSizes);
  sizes.insert(sizes.begin() + axis, count);
  return tensor::EmptyOp::create(b, loc, sizes, elementType);
}

/// An empty accumulator for `count` elements of the statically shaped
/// `elementType` along `axis`.
Value emptyAccumulator(OpBuilder &b, Location loc, RankedTensorType elementType,
                       OpFoldResult count, int64_t axis) {
  return emptyAccumulator(
      b, loc, elementType.getElementType(),
      getAsIndexOpFoldResult(b.getContext(), elementType.getShape()), count,
      axis);
}

/// Scan outputs must be ranked tensors; Scan's, statically shaped ones
/// (`needStatic`).
LogicalResult checkScanElements(NodeContext &ctx, TypeRange types,
                                bool needStatic) {
  for (auto [k, t] : llvm::enumerate(types)) {
    auto ranked = dyn_cast<RankedTensorType>(t);
    if (!ranked || (needStatic && !ranked.hasStaticShape()))
      return emitError(ctx.loc)
             << "unsupported scan output " << k << " of dynamic type " << t;
  }
  return success();
}

} // namespace mlprog::onnx_import::controlflow
