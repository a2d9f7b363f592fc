//===- ControlFlowOps.cpp - ONNX If, Loop, Scan ---------------------------===//
//
// Control flow maps onto scf: If -> scf.if, Loop -> scf.while, Scan ->
// scf.for, with each ONNX subgraph imported (through the graph importer)
// into the op's region. Subgraphs read values of the enclosing graphs
// directly (SSA dominance replaces ONNX's outer-scope capture).
//
// The types an ONNX subgraph produces are only known once it is imported,
// and a loop body's results may be less static than its initial values
// (e.g. a tensor that grows every iteration). Each handler therefore builds
// its op, compares what the subgraph produced with the region's types, and
// if they differ rebuilds it with the join of both (extents that disagree
// become dynamic), a bounded number of times.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlprog/Import/Common/Sequence.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <functional>
#include <optional>

using namespace mlir;

namespace mlprog::onnx_import {
namespace {

/// How often a loop is rebuilt with relaxed types before giving up.
constexpr int kMaxAttempts = 4;

/// Whether `t` is a statically shaped one-element tensor.
bool isSingleElement(RankedTensorType t) {
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

//===--- If ---------------------------------------------------------------===//

/// If (opset 1-16): `then_branch` or `else_branch` (graphs without inputs,
/// reading outer values) runs depending on the one-element bool `cond`;
/// lowered to scf.if. Outputs whose shapes differ between the branches get
/// the joined type (differing extents dynamic); branches producing
/// different ranks are unsupported. Sequences are their tensors (an empty
/// one of unknown element type takes the other branch's shape); an
/// optional output also yields its presence flag.
LogicalResult importIf(NodeContext &ctx) {
  FailureOr<const onnx::GraphProto *> thenGraph = getGraph(ctx, "then_branch");
  FailureOr<const onnx::GraphProto *> elseGraph = getGraph(ctx, "else_branch");
  FailureOr<Value> condTensor = ctx.input(0);
  if (failed(thenGraph) || failed(elseGraph) || failed(condTensor))
    return failure();
  if ((*thenGraph)->output_size() != ctx.node.output_size() ||
      (*elseGraph)->output_size() != ctx.node.output_size())
    return emitError(ctx.loc) << "If branches must produce the node's "
                              << ctx.node.output_size() << " outputs";
  // A condition known at import time (rank and shape tests of exported
  // function bodies) imports only the branch taken, so its shapes stay
  // static.
  if (DenseElementsAttr c = ctx.optionalConstantInput(0);
      c && c.getNumElements() == 1 && c.getElementType().isInteger(1)) {
    bool taken = *c.getValues<bool>().begin();
    FailureOr<SmallVector<Value>> out =
        importSubgraph(ctx, taken ? **thenGraph : **elseGraph, {});
    if (failed(out))
      return failure();
    for (auto [i, v] : llvm::enumerate(*out))
      if (failed(ctx.setResult(i, v)))
        return failure();
    return success();
  }
  FailureOr<Value> cond = extractScalar(ctx, *condTensor, "If condition");
  if (failed(cond))
    return failure();
  // Import both branches into a result-less scf.if, then move them into
  // one with the joined result types.
  auto probe = scf::IfOp::create(ctx.b, ctx.loc, TypeRange(), *cond,
                                 /*addThenBlock=*/true, /*addElseBlock=*/true);
  SmallVector<SmallVector<Value>> outputs;
  for (auto [block, graph] : {std::pair(probe.thenBlock(), *thenGraph),
                              std::pair(probe.elseBlock(), *elseGraph)}) {
    OpBuilder::InsertionGuard guard(ctx.b);
    ctx.b.setInsertionPointToEnd(block);
    FailureOr<SmallVector<Value>> out = importSubgraph(ctx, *graph, {});
    if (failed(out)) {
      probe.erase();
      return failure();
    }
    outputs.push_back(*out);
  }
  int numOutputs = ctx.node.output_size();
  Block *blocks[2] = {probe.thenBlock(), probe.elseBlock()};
  const onnx::GraphProto *graphs[2] = {*thenGraph, *elseGraph};
  // Outputs that are optionals in either branch, and both branches' flags.
  SmallVector<int> optionalOutputs;
  SmallVector<Value> flags[2];
  SmallVector<bool> untyped;
  for (int i = 0; i < numOutputs; ++i) {
    Value f0 = ctx.presenceOf(graphs[0]->output(i).name());
    Value f1 = ctx.presenceOf(graphs[1]->output(i).name());
    if (f0 || f1) {
      optionalOutputs.push_back(i);
      flags[0].push_back(f0);
      flags[1].push_back(f1);
    }
    bool u0 = ctx.isUntypedSequence(outputs[0][i]);
    bool u1 = ctx.isUntypedSequence(outputs[1][i]);
    untyped.push_back(u0 && u1);
    if (u0 == u1)
      continue;
    // The untyped empty sequence becomes an empty one of the other's type.
    int br = u0 ? 0 : 1;
    auto other = dyn_cast<RankedTensorType>(outputs[1 - br][i].getType());
    if (!other || other.getRank() < 1) {
      probe.erase();
      return emitError(ctx.loc) << "If output " << i << " is a sequence in "
                                << "one branch only";
    }
    OpBuilder::InsertionGuard guard(ctx.b);
    ctx.b.setInsertionPointToEnd(blocks[br]);
    FailureOr<Value> empty =
        emptyGrowable(ctx.b, ctx.loc,
                      RankedTensorType::get(other.getShape().drop_front(),
                                            other.getElementType()));
    if (failed(empty)) {
      probe.erase();
      return failure();
    }
    outputs[br][i] = *empty;
  }
  // Outputs that are ragged sequences in either branch: both branches
  // yield shapes tables (after the presence flags).
  SmallVector<int> raggedOutputs;
  SmallVector<Value> shapes[2];
  for (int i = 0; i < numOutputs; ++i) {
    if (!ctx.raggedShapes(outputs[0][i]) && !ctx.raggedShapes(outputs[1][i]))
      continue;
    raggedOutputs.push_back(i);
    for (int br = 0; br < 2; ++br) {
      Value s = ctx.raggedShapes(outputs[br][i]);
      if (!s) {
        OpBuilder::InsertionGuard guard(ctx.b);
        ctx.b.setInsertionPointToEnd(blocks[br]);
        FailureOr<RaggedSequence> r =
            buildRaggedFromUniform(ctx.b, ctx.loc, outputs[br][i]);
        if (failed(r)) {
          probe.erase();
          return failure();
        }
        s = r->shapes;
      }
      shapes[br].push_back(s);
    }
    if (shapes[0].back().getType() != shapes[1].back().getType()) {
      probe.erase();
      return emitError(ctx.loc) << "unsupported If output " << i
                                << ": sequences whose elements differ in rank";
    }
  }
  SmallVector<Type> types = typesOf(outputs[0]);
  if (failed(joinInto(ctx, types, typesOf(outputs[1]), "If output"))) {
    probe.erase();
    return failure();
  }
  for (int br = 0; br < 2; ++br) {
    OpBuilder::InsertionGuard guard(ctx.b);
    ctx.b.setInsertionPointToEnd(blocks[br]);
    SmallVector<Value> yielded;
    for (auto [v, t] : llvm::zip(outputs[br], types))
      yielded.push_back(castTo(ctx.b, ctx.loc, v, t));
    for (Value f : flags[br])
      yielded.push_back(f ? f
                          : arith::ConstantIntOp::create(ctx.b, ctx.loc,
                                                         ctx.b.getI1Type(), 1));
    llvm::append_range(yielded, shapes[br]);
    scf::YieldOp::create(ctx.b, ctx.loc, yielded);
  }
  types.append(optionalOutputs.size(), ctx.b.getI1Type());
  for (Value s : shapes[0])
    types.push_back(s.getType());
  auto ifOp = scf::IfOp::create(ctx.b, ctx.loc, types, *cond,
                                /*addThenBlock=*/false,
                                /*addElseBlock=*/false);
  ifOp.getThenRegion().takeBody(probe.getThenRegion());
  ifOp.getElseRegion().takeBody(probe.getElseRegion());
  probe.erase();
  for (int i = 0; i < numOutputs; ++i) {
    if (failed(ctx.setResult(i, ifOp.getResult(i))))
      return failure();
    if (untyped[i])
      ctx.markUntypedSequence(ifOp.getResult(i));
  }
  for (auto [j, i] : llvm::enumerate(optionalOutputs))
    ctx.setOutputPresence(i, ifOp.getResult(numOutputs + j));
  for (auto [j, i] : llvm::enumerate(raggedOutputs))
    ctx.setRaggedShapes(
        ifOp.getResult(i),
        ifOp.getResult(numOutputs + optionalOutputs.size() + j));
  return success();
}

//===--- Loop -------------------------------------------------------------===//

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
                                bool needStatic = true) {
  for (auto [k, t] : llvm::enumerate(types)) {
    auto ranked = dyn_cast<RankedTensorType>(t);
    if (!ranked || (needStatic && !ranked.hasStaticShape()))
      return emitError(ctx.loc)
             << "unsupported scan output " << k << " of dynamic type " << t;
  }
  return success();
}

/// Loop (opset 1-16): runs `body` while `iteration < M` (if the trip count M
/// is given) and the loop-carried condition holds (if `cond` is given).
/// The body takes (iteration number: int64 0-d, condition: bool 0-d,
/// loop-carried values...) and returns (condition, loop-carried values...,
/// scan outputs...); the node returns the final loop-carried values and
/// the scan outputs stacked along a new leading axis. Lowered to
/// scf.while. Sequences are carried as their tensors (an empty one of
/// unknown element type takes the shape the body gives it); scan outputs
/// of dynamic shape, or without M, grow by one element per iteration.
/// Unsupported: a loop with neither M nor cond (unbounded), optional
/// loop-carried values.
LogicalResult importLoop(NodeContext &ctx) {
  FailureOr<const onnx::GraphProto *> bodyOr = getGraph(ctx, "body");
  if (failed(bodyOr))
    return failure();
  const onnx::GraphProto &body = **bodyOr;
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  Value tripCount, cond;
  if (Value m = ctx.optionalInput(0)) {
    FailureOr<Value> v = extractScalar(ctx, m, "Loop trip count M");
    if (failed(v))
      return failure();
    tripCount = *v;
    if (!tripCount.getType().isInteger(64))
      return emitError(loc) << "Loop trip count M must be int64";
  }
  if (Value c = ctx.optionalInput(1)) {
    FailureOr<Value> v = extractScalar(ctx, c, "Loop condition");
    if (failed(v))
      return failure();
    cond = *v;
  }
  if (!tripCount && !cond)
    return emitError(loc) << "unsupported Loop without trip count and "
                             "condition (an unbounded loop)";
  int numCarried = std::max(0, ctx.node.input_size() - 2);
  if (body.input_size() != numCarried + 2 ||
      body.output_size() < numCarried + 1)
    return emitError(loc) << "Loop body must take " << numCarried + 2
                          << " inputs and return at least " << numCarried + 1
                          << " outputs";
  int numScan = body.output_size() - 1 - numCarried;
  SmallVector<Value> inits;
  SmallVector<bool> untyped;
  // The shapes tables of ragged carried sequences (null for other values),
  // carried after the scan outputs.
  SmallVector<Value> initShapes;
  for (int i = 0; i < numCarried; ++i) {
    FailureOr<Value> v = ctx.input(i + 2);
    if (failed(v))
      return failure();
    if (ctx.inputPresence(i + 2))
      return emitError(loc) << "unsupported optional Loop-carried value " << i;
    inits.push_back(*v);
    untyped.push_back(ctx.isUntypedSequence(*v));
    initShapes.push_back(ctx.raggedShapes(*v));
  }

  Type i64 = b.getI64Type(), i1 = b.getI1Type();
  Value zero = arith::ConstantIntOp::create(b, loc, i64, 0);
  Value one = arith::ConstantIntOp::create(b, loc, i64, 1);
  Value initCond = cond ? cond : arith::ConstantIntOp::create(b, loc, i1, 1);
  Value count;
  if (tripCount) {
    Value nonNegative = arith::MaxSIOp::create(b, loc, tripCount, zero);
    count = arith::IndexCastOp::create(b, loc, b.getIndexType(), nonNegative);
  }

  SmallVector<Type> carriedTypes = typesOf(inits);
  SmallVector<Type> scanTypes; // known once the body was imported once
  bool haveScanTypes = numScan == 0;
  // Whether a scan output grows per iteration rather than filling a
  // preallocated [M, element dims] tensor.
  auto growable = [&](Type t) {
    return !count || !cast<RankedTensorType>(t).hasStaticShape();
  };
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    SmallVector<Value> whileInits = {zero, initCond};
    for (auto [v, t] : llvm::zip(inits, carriedTypes))
      whileInits.push_back(castTo(b, loc, v, t));
    if (haveScanTypes)
      for (Type t : scanTypes) {
        auto et = cast<RankedTensorType>(t);
        if (!growable(t)) {
          whileInits.push_back(emptyAccumulator(b, loc, et, count, 0));
          continue;
        }
        FailureOr<Value> acc = emptyGrowable(b, loc, et);
        if (failed(acc))
          return failure();
        whileInits.push_back(*acc);
      }
    // Where each ragged carried value's shapes table is carried.
    SmallVector<int> shapesArg(numCarried, -1);
    for (int i = 0; i < numCarried; ++i)
      if (initShapes[i]) {
        shapesArg[i] = whileInits.size();
        whileInits.push_back(initShapes[i]);
      }
    SmallVector<Type> types = typesOf(whileInits);
    SmallVector<Location> locs(types.size(), loc);
    auto whileOp = scf::WhileOp::create(b, loc, types, whileInits);
    {
      OpBuilder::InsertionGuard guard(b);
      Block *before = b.createBlock(&whileOp.getBefore(), {}, types, locs);
      Value keepGoing = before->getArgument(1);
      if (tripCount) {
        Value inRange =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                  before->getArgument(0), tripCount);
        keepGoing = arith::AndIOp::create(b, loc, keepGoing, inRange);
      }
      scf::ConditionOp::create(b, loc, keepGoing, before->getArguments());
    }
    // Imports the body and yields; failure() on error, false to rebuild.
    auto buildBody = [&]() -> FailureOr<bool> {
      OpBuilder::InsertionGuard guard(b);
      Block *after = b.createBlock(&whileOp.getAfter(), {}, types, locs);
      Value iteration = after->getArgument(0);
      // The spec's iteration number and condition are 0-d; torch.onnx
      // declares them [1] in the body (mvit's pooling), and the body's
      // declaration decides, as it does for onnxruntime.
      auto asDeclared = [&](int i, Value scalar) -> Value {
        if (i < body.input_size() &&
            body.input(i).type().tensor_type().has_shape() &&
            body.input(i).type().tensor_type().shape().dim_size() == 1)
          return tensor::FromElementsOp::create(
              b, loc, RankedTensorType::get({1}, scalar.getType()),
              ValueRange{scalar});
        return makeScalarTensor(b, loc, scalar);
      };
      SmallVector<Value> bodyInputs = {asDeclared(0, iteration),
                                       asDeclared(1, after->getArgument(1))};
      for (int i = 0; i < numCarried; ++i) {
        bodyInputs.push_back(after->getArgument(i + 2));
        if (untyped[i])
          ctx.markUntypedSequence(after->getArgument(i + 2));
        if (shapesArg[i] >= 0)
          ctx.setRaggedShapes(after->getArgument(i + 2),
                              after->getArgument(shapesArg[i]));
      }
      FailureOr<SmallVector<Value>> outputs =
          importSubgraph(ctx, body, bodyInputs);
      if (failed(outputs))
        return failure();
      ArrayRef<Value> out = *outputs;
      ValueRange carriedOut(out.slice(1, numCarried));
      ValueRange scanOut(out.slice(1 + numCarried, numScan));
      // A sequence the body makes ragged is carried ragged from the start.
      bool retyped = false;
      for (int i = 0; i < numCarried; ++i) {
        Value bodyShapes = ctx.raggedShapes(carriedOut[i]);
        if (initShapes[i] || !bodyShapes)
          continue;
        OpBuilder before(whileOp);
        RaggedSequence init;
        if (untyped[i]) {
          auto data = cast<RankedTensorType>(carriedOut[i].getType());
          init = buildRaggedEmpty(before, loc, data.getElementType(),
                                  data.getRank() - 1);
        } else {
          FailureOr<RaggedSequence> r =
              buildRaggedFromUniform(before, loc, inits[i]);
          if (failed(r))
            return failure();
          init = *r;
        }
        inits[i] = init.data;
        initShapes[i] = init.shapes;
        carriedTypes[i] = init.data.getType();
        untyped[i] = false;
        retyped = true;
      }
      // An empty sequence of unknown element type starts as an empty
      // sequence of the elements the body inserts.
      for (int i = 0; i < numCarried; ++i) {
        if (!untyped[i] || ctx.isUntypedSequence(carriedOut[i]))
          continue;
        auto seqType = dyn_cast<RankedTensorType>(carriedOut[i].getType());
        if (!seqType || seqType.getRank() < 1)
          return emitError(loc) << "Loop-carried sequence " << i
                                << " is not a sequence in the body";
        OpBuilder before(whileOp);
        FailureOr<Value> init =
            emptyGrowable(before, loc,
                          RankedTensorType::get(seqType.getShape().drop_front(),
                                                seqType.getElementType()));
        if (failed(init))
          return failure();
        inits[i] = *init;
        carriedTypes[i] = init->getType();
        untyped[i] = false;
        retyped = true;
      }
      FailureOr<bool> changed = joinInto(
          ctx, carriedTypes, TypeRange(carriedOut), "Loop-carried value");
      if (failed(changed) ||
          failed(checkScanElements(ctx, TypeRange(scanOut), false)))
        return failure();
      *changed |= retyped;
      SmallVector<Type> observedScan = typesOf(scanOut);
      if (haveScanTypes && observedScan != scanTypes)
        return emitError(loc) << "unsupported Loop scan output whose type "
                                 "changes between iterations";
      if (*changed || !haveScanTypes) {
        scanTypes = observedScan;
        haveScanTypes = true;
        return false;
      }
      FailureOr<Value> nextCond =
          extractScalar(ctx, out[0], "Loop body condition");
      if (failed(nextCond))
        return failure();
      SmallVector<Value> yielded = {
          arith::AddIOp::create(b, loc, iteration, one), *nextCond};
      for (auto [v, t] : llvm::zip(carriedOut, carriedTypes))
        yielded.push_back(castTo(b, loc, v, t));
      SmallVector<Value> yieldedShapes;
      for (int i = 0; i < numCarried; ++i) {
        if (shapesArg[i] < 0)
          continue;
        Value shapes = ctx.raggedShapes(carriedOut[i]);
        if (!shapes) {
          FailureOr<RaggedSequence> r =
              buildRaggedFromUniform(b, loc, carriedOut[i]);
          if (failed(r))
            return failure();
          shapes = r->shapes;
        }
        Type t = types[shapesArg[i]];
        if (shapes.getType() != t)
          return emitError(loc) << "unsupported Loop-carried sequence " << i
                                << " whose elements differ in rank (" << t
                                << " and " << shapes.getType() << ")";
        yieldedShapes.push_back(shapes);
      }
      Value position =
          arith::IndexCastOp::create(b, loc, b.getIndexType(), iteration);
      for (auto [k, element] : llvm::enumerate(scanOut)) {
        Value acc = after->getArgument(2 + numCarried + k);
        if (!growable(scanTypes[k])) {
          yielded.push_back(
              insertSlice(b, loc, element, acc, position, /*axis=*/0));
          continue;
        }
        FailureOr<Value> grown =
            buildSequenceInsert(b, loc, acc, element, OpFoldResult());
        if (failed(grown))
          return failure();
        yielded.push_back(castTo(b, loc, *grown, acc.getType()));
      }
      llvm::append_range(yielded, yieldedShapes);
      scf::YieldOp::create(b, loc, yielded);
      return true;
    };
    FailureOr<bool> built = buildBody();
    if (failed(built) || !*built) {
      whileOp.erase();
      if (failed(built))
        return failure();
      continue;
    }
    for (int i = 0; i < numCarried; ++i) {
      if (failed(ctx.setResult(i, whileOp.getResult(2 + i))))
        return failure();
      if (untyped[i])
        ctx.markUntypedSequence(whileOp.getResult(2 + i));
      if (shapesArg[i] >= 0)
        ctx.setRaggedShapes(whileOp.getResult(2 + i),
                            whileOp.getResult(shapesArg[i]));
    }
    // The condition may stop the loop early: keep the slices written.
    Value done = arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                            whileOp.getResult(0));
    for (int k = 0; k < numScan; ++k) {
      Value acc = whileOp.getResult(2 + numCarried + k);
      SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, acc);
      sizes[0] = done;
      int64_t rank = rankOf(acc);
      SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
      SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
      Value stacked =
          tensor::ExtractSliceOp::create(b, loc, acc, offsets, sizes, strides);
      if (failed(ctx.setResult(numCarried + k, stacked)))
        return failure();
    }
    return success();
  }
  return emitError(loc) << "unsupported Loop: loop-carried types did not "
                           "settle after "
                        << kMaxAttempts << " attempts";
}

//===--- Scan -------------------------------------------------------------===//

/// The outputs of one Scan body run (the next states, then one element per
/// scan output) from its inputs (the states, then one slice per scan
/// input).
using ScanBodyFn =
    llvm::function_ref<FailureOr<SmallVector<Value>>(ValueRange inputs)>;

/// One scan loop: `states` are carried, `scans` sliced along `inAxes`
/// (reversed where `inDirs` is 1) for `length` iterations; each of the
/// `outAxes.size()` scan outputs stacks its elements along its axis in
/// `outAxes` (not yet normalized: the element ranks are known only once the
/// body is imported), reversed where `outDirs` is 1, in `extent` rows
/// (static where known, so that statically shaped elements stack into a
/// static type). With `padded` (Scan-8's sequence_lens) `length` may be
/// shorter than `extent`: the rows past it are zeros.
struct ScanLoop {
  SmallVector<Value> states, scans;
  SmallVector<int64_t> inAxes, inDirs, outAxes, outDirs;
  Value length;
  OpFoldResult extent;
  bool padded = false;
  /// The extents, known before the loop, of scan output k's elements of
  /// run-time type `et` (or none): such outputs are preallocated rather
  /// than grown.
  std::function<std::optional<SmallVector<OpFoldResult>>(unsigned k,
                                                         RankedTensorType et)>
      elementSizes;
};

/// `acc` filled with zeros.
Value fillZeros(OpBuilder &b, Location loc, Value acc) {
  Type elementType = cast<RankedTensorType>(acc.getType()).getElementType();
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
  return linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{acc})
      .getResult(0);
}

/// Builds `loop` as an scf.for whose body `body` builds, and returns the
/// final states followed by the stacked scan outputs. Scan outputs whose
/// elements have a run-time shape (and no `elementSizes`) grow by one
/// element per iteration.
FailureOr<SmallVector<Value>>
buildScanLoop(NodeContext &ctx, const ScanLoop &loop, ScanBodyFn body) {
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  ArrayRef<Value> states = loop.states, scans = loop.scans;
  int numState = states.size();
  int numScanOut = loop.outAxes.size();
  Value length = loop.length;
  OpFoldResult extent = loop.extent;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value last = arith::SubIOp::create(b, loc, length, one);

  SmallVector<Type> stateTypes = typesOf(states);
  SmallVector<Type> scanTypes;
  SmallVector<int64_t> outAxes;
  bool haveScanTypes = numScanOut == 0;
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    SmallVector<Value> inits;
    for (auto [v, t] : llvm::zip(states, stateTypes))
      inits.push_back(castTo(b, loc, v, t));
    SmallVector<bool> preallocated;
    if (haveScanTypes)
      for (auto [k, t, axis] : llvm::enumerate(scanTypes, outAxes)) {
        auto et = cast<RankedTensorType>(t);
        std::optional<SmallVector<OpFoldResult>> sizes;
        if (et.hasStaticShape())
          sizes = getAsIndexOpFoldResult(b.getContext(), et.getShape());
        else if (loop.elementSizes)
          sizes = loop.elementSizes(k, et);
        preallocated.push_back(sizes.has_value());
        if (sizes) {
          Value acc = emptyAccumulator(b, loc, et.getElementType(), *sizes,
                                       extent, axis);
          // Rows past a shorter length are defined as zeros.
          if (loop.padded)
            acc = fillZeros(b, loc, acc);
          inits.push_back(acc);
          continue;
        }
        if (loop.padded)
          return emitError(loc) << "unsupported Scan-8 with sequence_lens "
                                   "and a scan output of run-time shape "
                                << t;
        // Elements of run-time shape: a sequence [n, element dims] that
        // grows by one element per iteration, moved to `axis` at the end.
        FailureOr<Value> acc = emptyGrowable(b, loc, et);
        if (failed(acc))
          return failure();
        inits.push_back(*acc);
      }
    auto forOp = scf::ForOp::create(b, loc, zero, length, one, inits);
    auto buildBody = [&]() -> FailureOr<bool> {
      OpBuilder::InsertionGuard guard(b);
      Block *block = forOp.getBody();
      if (!block->empty())
        block->back().erase();
      b.setInsertionPointToEnd(block);
      Value iv = forOp.getInductionVar();
      Value reversed = arith::SubIOp::create(b, loc, last, iv);
      SmallVector<Value> bodyInputs;
      for (int i = 0; i < numState; ++i)
        bodyInputs.push_back(forOp.getRegionIterArg(i));
      for (auto [j, scan] : llvm::enumerate(scans)) {
        int64_t axis = loop.inAxes[j];
        auto type = cast<RankedTensorType>(scan.getType());
        int64_t rank = type.getRank();
        SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
        offsets[axis] = loop.inDirs[j] ? reversed : iv;
        SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, scan);
        sizes[axis] = b.getIndexAttr(1);
        SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
        SmallVector<int64_t> shape(type.getShape());
        shape.erase(shape.begin() + axis);
        auto sliceType = RankedTensorType::get(shape, type.getElementType());
        bodyInputs.push_back(tensor::ExtractSliceOp::create(
            b, loc, sliceType, scan, offsets, sizes, strides));
      }
      FailureOr<SmallVector<Value>> outputs = body(bodyInputs);
      if (failed(outputs))
        return failure();
      ArrayRef<Value> out = *outputs;
      ValueRange stateOut(out.take_front(numState));
      ValueRange scanOut(out.drop_front(numState));
      FailureOr<bool> changed =
          joinInto(ctx, stateTypes, TypeRange(stateOut), "Scan state value");
      if (failed(changed))
        return failure();
      for (auto [k, t] : llvm::enumerate(TypeRange(scanOut)))
        if (!isa<RankedTensorType>(t))
          return emitError(loc)
                 << "unsupported scan output " << k << " of type " << t;
      SmallVector<Type> observedScan = typesOf(scanOut);
      if (haveScanTypes && observedScan != scanTypes)
        return emitError(loc) << "unsupported Scan output whose type "
                                 "changes between iterations";
      if (*changed || !haveScanTypes) {
        scanTypes = observedScan;
        outAxes.clear();
        for (auto [axis, v] : llvm::zip(loop.outAxes, scanOut)) {
          FailureOr<int64_t> a = normalizeAxis(ctx, axis, rankOf(v) + 1);
          if (failed(a))
            return failure();
          outAxes.push_back(*a);
        }
        haveScanTypes = true;
        return false;
      }
      SmallVector<Value> yielded;
      for (auto [v, t] : llvm::zip(stateOut, stateTypes))
        yielded.push_back(castTo(b, loc, v, t));
      for (auto [k, element] : llvm::enumerate(scanOut)) {
        Value acc = forOp.getRegionIterArg(numState + k);
        if (preallocated[k]) {
          yielded.push_back(insertSlice(b, loc, element, acc,
                                        loop.outDirs[k] ? reversed : iv,
                                        outAxes[k]));
          continue;
        }
        // Reversed outputs are built front to back by inserting first.
        FailureOr<Value> grown = buildSequenceInsert(
            b, loc, acc, element,
            loop.outDirs[k] ? OpFoldResult(b.getIndexAttr(0)) : OpFoldResult());
        if (failed(grown))
          return failure();
        yielded.push_back(castTo(b, loc, *grown, acc.getType()));
      }
      scf::YieldOp::create(b, loc, yielded);
      return true;
    };
    FailureOr<bool> built = buildBody();
    if (failed(built) || !*built) {
      forOp.erase();
      if (failed(built))
        return failure();
      continue;
    }
    SmallVector<Value> results;
    for (unsigned i = 0; i < forOp.getNumResults(); ++i) {
      Value r = forOp.getResult(i);
      int k = int(i) - numState;
      if (k >= 0 && !preallocated[k] && outAxes[k] != 0) {
        // [n, element dims] -> n at the output axis.
        int64_t rank = rankOf(r);
        SmallVector<int64_t> perm;
        for (int64_t d = 1; d < rank; ++d) {
          if (d - 1 == outAxes[k])
            perm.push_back(0);
          perm.push_back(d);
        }
        if (int64_t(perm.size()) < rank)
          perm.push_back(0);
        FailureOr<Value> moved = buildTranspose(b, loc, r, perm);
        if (failed(moved))
          return failure();
        r = *moved;
      }
      results.push_back(r);
    }
    return results;
  }
  return emitError(loc) << "unsupported Scan: state types did not settle "
                           "after "
                        << kMaxAttempts << " attempts";
}

/// The `n` entries of Scan's integer list attribute `name` (all 0 when
/// absent); with `values`, each an axis normalized against the rank of its
/// value.
FailureOr<SmallVector<int64_t>> readScanInts(NodeContext &ctx, StringRef name,
                                             size_t n, ValueRange values = {}) {
  SmallVector<int64_t> ints = ctx.getInts(name);
  if (ints.empty())
    ints.assign(n, 0);
  if (ints.size() != n)
    return emitError(ctx.loc) << "Scan " << name << " needs " << n
                              << " entries, got " << ints.size();
  for (auto [axis, v] : llvm::zip(ints, values)) {
    FailureOr<int64_t> a = normalizeAxis(ctx, axis, rankOf(v));
    if (failed(a))
      return failure();
    axis = *a;
  }
  return ints;
}

/// The number of state variables of a Scan with `numInputs` inputs (past
/// Scan-8's sequence_lens), `numScanInputs` of them scanned: a located
/// error unless 1 <= num_scan_inputs <= inputs and the body takes every
/// input and returns at least the states.
FailureOr<int> getScanStateCount(NodeContext &ctx, const onnx::GraphProto &body,
                                 int numInputs, int64_t numScanInputs) {
  if (numScanInputs < 1 || numScanInputs > numInputs)
    return emitError(ctx.loc) << "Scan num_scan_inputs must be in [1, "
                              << numInputs << "], got " << numScanInputs;
  int numState = numInputs - int(numScanInputs);
  if (body.input_size() != numInputs || body.output_size() < numState)
    return emitError(ctx.loc)
           << "Scan body must take " << numInputs
           << " inputs and return at least " << numState << " outputs";
  return numState;
}

/// Scan-8: a batch of scans. Inputs are (sequence_lens?, initial states
/// [batch, ...], scan inputs [batch, sequence, ...]); batch b runs `body`
/// over the first sequence_lens[b] (default: all) slices of its scan inputs
/// along axis 1 (reversed per `directions`), and the node returns the
/// final states [batch, ...] and the scan outputs [batch, max sequence,
/// ...] (rows past a batch's length are zeros; the spec leaves them
/// undefined). Built as an outer scan over the batch whose body is the
/// inner scan; sequence lengths are clamped to [0, max sequence].
LogicalResult importScan8(NodeContext &ctx, const onnx::GraphProto &body,
                          int64_t numScanInputs) {
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  int numInputs = ctx.node.input_size() - 1;
  FailureOr<int> stateCount =
      getScanStateCount(ctx, body, numInputs, numScanInputs);
  if (failed(stateCount))
    return failure();
  int numState = *stateCount;
  int numScanOut = body.output_size() - numState;
  ScanLoop batch;
  for (int i = 0; i < numInputs; ++i) {
    FailureOr<Value> v = ctx.input(i + 1);
    if (failed(v))
      return failure();
    int64_t minRank = i < numState ? 1 : 2;
    if (rankOf(*v) < minRank)
      return emitError(loc) << "Scan-8 input " << i + 1 << " needs rank "
                            << minRank << " or more (a leading batch axis"
                            << (minRank == 2 ? " and a sequence axis" : "")
                            << "), got " << v->getType();
    batch.scans.push_back(*v);
  }
  FailureOr<SmallVector<int64_t>> directions =
      readScanInts(ctx, "directions", numScanInputs);
  if (failed(directions))
    return failure();
  Value lens = ctx.optionalInput(0);
  if (lens) {
    auto t = dyn_cast<RankedTensorType>(lens.getType());
    if (!t || t.getRank() != 1 || !t.getElementType().isInteger(64))
      return emitError(loc) << "Scan-8 sequence_lens must be a 1-D int64 "
                               "tensor, got "
                            << lens.getType();
    batch.scans.push_back(lens);
  }
  Value first = batch.scans[numState];
  batch.extent = tensor::getMixedSize(b, loc, first, 0);
  batch.length = getValueOrCreateConstantIndexOp(b, loc, batch.extent);
  OpFoldResult maxExtent = tensor::getMixedSize(b, loc, first, 1);
  Value maxLength = getValueOrCreateConstantIndexOp(b, loc, maxExtent);
  batch.inAxes.assign(batch.scans.size(), 0);
  batch.inDirs.assign(batch.scans.size(), 0);
  batch.outAxes.assign(numState + numScanOut, 0);
  batch.outDirs.assign(numState + numScanOut, 0);

  // A batch's scan outputs are [maximum sequence, element dims]: with
  // static element dims they are preallocated (growing them would leave an
  // accumulator whose empty initial type canonicalization folds into the
  // loop).
  batch.elementSizes =
      [&](unsigned k,
          RankedTensorType et) -> std::optional<SmallVector<OpFoldResult>> {
    if (int(k) < numState || et.getRank() < 1 ||
        llvm::any_of(et.getShape().drop_front(), ShapedType::isDynamic))
      return std::nullopt;
    SmallVector<OpFoldResult> sizes{maxExtent};
    for (int64_t d : et.getShape().drop_front())
      sizes.push_back(b.getIndexAttr(d));
    return sizes;
  };
  auto scanOneBatch = [&](ValueRange slices) -> FailureOr<SmallVector<Value>> {
    ScanLoop inner;
    inner.states.assign(slices.begin(), slices.begin() + numState);
    inner.scans.assign(slices.begin() + numState, slices.begin() + numInputs);
    inner.inAxes.assign(numScanInputs, 0);
    inner.inDirs = *directions;
    inner.outAxes.assign(numScanOut, 0);
    inner.outDirs.assign(numScanOut, 0);
    inner.length = maxLength;
    inner.extent = maxExtent;
    if (lens) {
      Value n = tensor::ExtractOp::create(b, loc, slices.back(), ValueRange{});
      n = arith::IndexCastOp::create(b, loc, b.getIndexType(), n);
      n = arith::MaxSIOp::create(b, loc, n,
                                 arith::ConstantIndexOp::create(b, loc, 0));
      inner.length = arith::MinSIOp::create(b, loc, n, maxLength);
      inner.padded = true;
    }
    return buildScanLoop(ctx, inner, [&](ValueRange inputs) {
      return importSubgraph(ctx, body, inputs);
    });
  };
  FailureOr<SmallVector<Value>> results =
      buildScanLoop(ctx, batch, scanOneBatch);
  if (failed(results))
    return failure();
  for (auto [i, r] : llvm::enumerate(*results))
    if (failed(ctx.setResult(i, r)))
      return failure();
  return success();
}

/// Scan (opset 9-16): iterates `body` over slices of the `num_scan_inputs`
/// last inputs along `scan_input_axes` (default 0; `scan_input_directions`
/// 1 = reverse), carrying the first inputs as state; the body returns the
/// next state and one element per scan output, which the node stacks along
/// `scan_output_axes` (reversed per `scan_output_directions`). Lowered to
/// scf.for over the sequence length (the extent of the first scan input).
/// Scan outputs whose elements have a run-time shape grow by one element
/// per iteration. Scan-8 (batched, with sequence_lens) is importScan8.
LogicalResult importScan(NodeContext &ctx) {
  Location loc = ctx.loc;
  FailureOr<const onnx::GraphProto *> bodyOr = getGraph(ctx, "body");
  if (failed(bodyOr))
    return failure();
  const onnx::GraphProto &body = **bodyOr;
  int64_t numScanInputs = ctx.getInt("num_scan_inputs", 0);
  if (ctx.opset < 9)
    return importScan8(ctx, body, numScanInputs);
  int numInputs = ctx.node.input_size();
  FailureOr<int> stateCount =
      getScanStateCount(ctx, body, numInputs, numScanInputs);
  if (failed(stateCount))
    return failure();
  int numState = *stateCount;
  int numScanOut = body.output_size() - numState;
  ScanLoop loop;
  for (int i = 0; i < numInputs; ++i) {
    FailureOr<Value> v = ctx.input(i);
    if (failed(v))
      return failure();
    (i < numState ? loop.states : loop.scans).push_back(*v);
  }
  FailureOr<SmallVector<int64_t>> inAxes =
      readScanInts(ctx, "scan_input_axes", loop.scans.size(), loop.scans);
  FailureOr<SmallVector<int64_t>> inDirs =
      readScanInts(ctx, "scan_input_directions", loop.scans.size());
  FailureOr<SmallVector<int64_t>> outDirs =
      readScanInts(ctx, "scan_output_directions", numScanOut);
  // Output axes are normalized once the element ranks are known.
  FailureOr<SmallVector<int64_t>> outAxes =
      readScanInts(ctx, "scan_output_axes", numScanOut);
  if (failed(inAxes) || failed(inDirs) || failed(outDirs) || failed(outAxes))
    return failure();
  loop.inAxes = *inAxes;
  loop.inDirs = *inDirs;
  loop.outDirs = *outDirs;
  loop.outAxes = *outAxes;
  loop.extent = tensor::getMixedSize(ctx.b, loc, loop.scans[0], loop.inAxes[0]);
  loop.length = getValueOrCreateConstantIndexOp(ctx.b, loc, loop.extent);
  FailureOr<SmallVector<Value>> results =
      buildScanLoop(ctx, loop, [&](ValueRange inputs) {
        return importSubgraph(ctx, body, inputs);
      });
  if (failed(results))
    return failure();
  for (auto [i, r] : llvm::enumerate(*results))
    if (failed(ctx.setResult(i, r)))
      return failure();
  return success();
}

} // namespace

void registerControlFlowOps(OpTable &table) {
  table.add({
      {"If", importIf},
      {"Loop", importLoop},
      {"Scan", importScan},
  });
}

} // namespace mlprog::onnx_import
