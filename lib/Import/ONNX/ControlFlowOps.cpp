//===- ControlFlowOps.cpp - ONNX If and Loop ------------------------------===//
//
// Control flow maps onto scf: If -> scf.if, Loop -> scf.while (Scan ->
// scf.for lives in ScanOps.cpp), with each ONNX subgraph imported (through the
// graph importer) into the op's region. Subgraphs read values of the enclosing
// graphs directly (SSA dominance replaces ONNX's outer-scope capture).
//
// The types an ONNX subgraph produces are only known once it is imported,
// and a loop body's results may be less static than its initial values
// (e.g. a tensor that grows every iteration). Each handler therefore builds
// its op, compares what the subgraph produced with the region's types, and
// if they differ rebuilds it with the join of both (extents that disagree
// become dynamic), a bounded number of times.
//
//===----------------------------------------------------------------------===//

#include "ControlFlowUtils.h"
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

using namespace controlflow;

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
          // The body's element extents: those it keeps static through an
          // iteration stay static in the carried type (joined below).
          auto data = cast<RankedTensorType>(carriedOut[i].getType());
          init = buildRaggedEmpty(
              before, loc,
              RankedTensorType::get(data.getShape().drop_front(),
                                    data.getElementType()));
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

} // namespace

void registerControlFlowOps(OpTable &table) {
  table.add({
      {"If", importIf},
      {"Loop", importLoop},
      {"Scan", controlflow::importScan},
  });
}

} // namespace mlprog::onnx_import
