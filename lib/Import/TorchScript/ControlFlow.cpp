//===- ControlFlow.cpp - TorchScript prim::If and prim::Loop --------------===//
//
// prim::If and prim::Loop become scf.if / scf.for / scf.while, or are
// folded / unrolled when their condition or trip count is known and the body
// needs import-time values such as lists.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"

#include <torch/csrc/jit/ir/constants.h>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;
namespace jit = torch::jit;

//===----------------------------------------------------------------------===//
// Importer: control flow
//===----------------------------------------------------------------------===//

LogicalResult Importer::flatten(const TSValue &v, SmallVectorImpl<Value> &out,
                                Location l) {
  if (v.isTensor()) {
    out.push_back(v.value);
    return success();
  }
  if (v.isScalar()) {
    out.push_back(scalarValue(v, l));
    return success();
  }
  if (v.kind == TSValue::Kind::Tuple) {
    for (const TSValue &e : *v.elems)
      if (failed(flatten(e, out, l)))
        return failure();
    return success();
  }
  return failure();
}

/// Rebuilds a TSValue of the same structure as `like` from flat values.
static TSValue unflatten(const TSValue &like, ValueRange &flat) {
  if (like.kind == TSValue::Kind::Tuple) {
    std::vector<TSValue> elems;
    for (const TSValue &e : *like.elems)
      elems.push_back(unflatten(e, flat));
    return TSValue::list(std::move(elems), TSValue::Kind::Tuple);
  }
  Value v = flat.front();
  flat = flat.drop_front();
  if (like.isTensor()) {
    TSValue t = TSValue::tensor(v);
    t.wrappedNumber = like.wrappedNumber;
    return t;
  }
  return TSValue::scalar(like.kind, v);
}

FailureOr<std::vector<TSValue>>
Importer::importSubBlock(jit::Block *block, ArrayRef<TSValue> args) {
  for (auto [input, arg] : llvm::zip(block->inputs(), args))
    values[input] = arg;
  if (failed(importBlock(block)))
    return failure();
  std::vector<TSValue> results;
  for (jit::Value *out : block->outputs())
    results.push_back(get(out));
  return results;
}

/// True when `block` (directly) raises.
static bool raises(jit::Block *block) {
  for (Node *n : block->nodes())
    if (n->kind() == c10::prim::RaiseException)
      return true;
  return false;
}

/// The most specific type both `a` and `b` can be cast to, or null.
static Type joinTypes(Type a, Type b) {
  if (a == b)
    return a;
  auto ta = dyn_cast<RankedTensorType>(a), tb = dyn_cast<RankedTensorType>(b);
  if (!ta || !tb || ta.getRank() != tb.getRank() ||
      ta.getElementType() != tb.getElementType())
    return Type();
  SmallVector<int64_t> shape;
  for (auto [x, y] : llvm::zip(ta.getShape(), tb.getShape()))
    shape.push_back(x == y ? x : ShapedType::kDynamic);
  return RankedTensorType::get(shape, ta.getElementType());
}

LogicalResult Importer::importIf(Node *node) {
  Location l = loc(node);
  TSValue &cond = get(node->input(0));
  jit::Block *thenBlock = node->blocks()[0], *elseBlock = node->blocks()[1];
  // Known conditions, and branches that only raise (exceptions are assumed
  // not to happen), import one branch inline.
  std::optional<bool> taken = cond.boolConst;
  if (!taken && cond.intConst)
    taken = *cond.intConst != 0;
  if (!taken && raises(thenBlock) && !raises(elseBlock))
    taken = false;
  if (!taken && raises(elseBlock) && !raises(thenBlock))
    taken = true;
  if (taken) {
    jit::Block *block = *taken ? thenBlock : elseBlock;
    if (raises(block))
      return emitError(l) << "unsupported: the program raises an exception "
                             "here unconditionally";
    FailureOr<std::vector<TSValue>> results = importSubBlock(block, {});
    if (failed(results))
      return failure();
    for (auto [i, r] : llvm::enumerate(*results))
      set(node, i, r);
    return success();
  }
  if (cond.kind != TSValue::Kind::Bool)
    return unsupported(node, "prim::If condition that is not a bool");
  Value c = scalarValue(cond, l);
  // Import both branches into a result-less scf.if, then rebuild it with the
  // joined result types.
  auto tmp = scf::IfOp::create(b, l, TypeRange{}, c, /*withElse=*/true);
  std::vector<TSValue> branchResults[2];
  SmallVector<Value> flat[2];
  for (int i = 0; i < 2; ++i) {
    OpBuilder::InsertionGuard guard(b);
    Block *body = i == 0 ? tmp.thenBlock() : tmp.elseBlock();
    body->getTerminator()->erase();
    b.setInsertionPointToEnd(body);
    FailureOr<std::vector<TSValue>> r =
        importSubBlock(i == 0 ? thenBlock : elseBlock, {});
    if (failed(r))
      return failure();
    branchResults[i] = *r;
  }
  // Outputs that are equal import-time constants (None, same ints) need no
  // scf result.
  SmallVector<int> resultIndex(node->outputs().size(), -1);
  SmallVector<Type> types;
  for (unsigned o = 0; o < node->outputs().size(); ++o) {
    TSValue &t = branchResults[0][o], &e = branchResults[1][o];
    if (t.isNone() && e.isNone()) {
      set(node, o, TSValue::none());
      continue;
    }
    bool tensorish = (t.isTensor() && e.isTensor()) ||
                     (t.isScalar() && e.isScalar() && t.kind == e.kind);
    if (!tensorish)
      return emitError(l) << "unsupported prim::If output " << o
                          << " that is not a tensor or number in both "
                             "branches";
    for (int i = 0; i < 2; ++i) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToEnd(i == 0 ? tmp.thenBlock() : tmp.elseBlock());
      TSValue &v = branchResults[i][o];
      flat[i].push_back(v.isTensor() ? v.value : scalarValue(v, l));
    }
    Type joined = joinTypes(flat[0].back().getType(), flat[1].back().getType());
    if (!joined)
      return emitError(l) << "unsupported prim::If output " << o
                          << " with types " << flat[0].back().getType()
                          << " and " << flat[1].back().getType();
    resultIndex[o] = types.size();
    types.push_back(joined);
  }
  auto ifOp = scf::IfOp::create(b, l, types, c, /*withElse=*/true);
  for (int i = 0; i < 2; ++i) {
    Region &from = i == 0 ? tmp.getThenRegion() : tmp.getElseRegion();
    Region &to = i == 0 ? ifOp.getThenRegion() : ifOp.getElseRegion();
    to.getBlocks().clear();
    to.takeBody(from);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(&to.front());
    SmallVector<Value> yields;
    for (auto [v, t] : llvm::zip(flat[i], types))
      yields.push_back(v.getType() == t
                           ? v
                           : tensor::CastOp::create(b, l, t, v).getResult());
    scf::YieldOp::create(b, l, yields);
  }
  tmp.erase();
  for (unsigned o = 0; o < node->outputs().size(); ++o) {
    if (resultIndex[o] < 0)
      continue;
    const TSValue &like = branchResults[0][o];
    Value r = ifOp.getResult(resultIndex[o]);
    set(node, o,
        like.isTensor() ? TSValue::tensor(r) : TSValue::scalar(like.kind, r));
  }
  return success();
}

/// True when `inner` is `outer` or nested in it.
static bool isWithin(jit::Block *inner, jit::Block *outer) {
  for (jit::Block *b = inner; b;
       b = b->owningNode() ? b->owningNode()->owningBlock() : nullptr)
    if (b == outer)
      return true;
  return false;
}

/// True when `body` (recursively) reads a list defined outside it: lists
/// exist only at import time, so indexing one with the loop counter or
/// appending to it needs the loop unrolled.
static bool usesOuterLists(jit::Block *body, jit::Block *block) {
  for (Node *n : block->nodes()) {
    for (jit::Value *v : n->inputs())
      if (v->type()->kind() == c10::TypeKind::ListType &&
          !isWithin(v->node()->owningBlock(), body) &&
          !(v->node()->kind() == c10::prim::Param &&
            isWithin(v->node()->owningBlock(), body)))
        return true;
    for (jit::Block *sub : n->blocks())
      if (usesOuterLists(body, sub))
        return true;
  }
  return false;
}
static bool needsImportTimeValues(jit::Block *body) {
  return usesOuterLists(body, body);
}

LogicalResult Importer::unrollLoop(Node *node, int64_t tripCount) {
  Location l = loc(node);
  jit::Block *body = node->blocks()[0];
  std::vector<TSValue> carried;
  for (unsigned i = 2; i < node->inputs().size(); ++i)
    carried.push_back(get(node->input(i)));
  for (int64_t it = 0; it < tripCount; ++it) {
    std::vector<TSValue> args = {TSValue::ofInt(it)};
    args.insert(args.end(), carried.begin(), carried.end());
    FailureOr<std::vector<TSValue>> r = importSubBlock(body, args);
    if (failed(r))
      return failure();
    TSValue &cond = (*r)[0];
    carried.assign(r->begin() + 1, r->end());
    if (cond.boolConst && !*cond.boolConst)
      break;
    if (!cond.boolConst)
      return emitError(l) << "unsupported loop with a data-dependent "
                             "condition that needs import-time values";
  }
  for (auto [i, v] : llvm::enumerate(carried))
    set(node, i, v);
  return success();
}

LogicalResult Importer::importLoop(Node *node) {
  Location l = loc(node);
  jit::Block *body = node->blocks()[0];
  TSValue &maxTrip = get(node->input(0));
  TSValue &initCond = get(node->input(1));
  // A for-loop: constant-true initial and iteration conditions.
  bool isFor = initCond.boolConst && *initCond.boolConst;
  if (isFor) {
    Node *condDef = body->outputs()[0]->node();
    c10::optional<c10::IValue> c = condDef->kind() == c10::prim::Constant
                                       ? jit::toIValue(body->outputs()[0])
                                       : c10::nullopt;
    isFor = c && c->isBool() && c->toBool();
  }
  if (initCond.boolConst && !*initCond.boolConst) {
    for (unsigned i = 2; i < node->inputs().size(); ++i)
      set(node, i - 2, get(node->input(i)));
    return success();
  }
  std::vector<TSValue> init;
  for (unsigned i = 2; i < node->inputs().size(); ++i)
    init.push_back(get(node->input(i)));
  SmallVector<Value> flatInit;
  bool flattenable = true;
  for (const TSValue &v : init)
    flattenable &= succeeded(flatten(v, flatInit, l));
  bool knownTrips = maxTrip.intConst.has_value();
  if (knownTrips && (!flattenable || needsImportTimeValues(body))) {
    if (*maxTrip.intConst > 4096)
      return unsupported(node, "loop of " + std::to_string(*maxTrip.intConst) +
                                   " iterations over import-time values "
                                   "(lists)");
    return unrollLoop(node, std::max<int64_t>(*maxTrip.intConst, 0));
  }
  if (!flattenable || needsImportTimeValues(body))
    return unsupported(node, "loop over lists, tuples of lists or optional "
                             "values with a trip count unknown at import "
                             "time");
  Value trips = scalarAs(maxTrip, b.getI64Type(), l);
  // Two attempts: the carried types may generalize (static -> dynamic
  // extents) after one iteration.
  SmallVector<Type> types;
  for (Value v : flatInit)
    types.push_back(v.getType());
  for (int attempt = 0; attempt < 2; ++attempt) {
    SmallVector<Value> inits;
    for (auto [v, t] : llvm::zip(flatInit, types))
      inits.push_back(v.getType() == t
                          ? v
                          : tensor::CastOp::create(b, l, t, v).getResult());
    Operation *loopOp;
    SmallVector<Value> yielded;
    Block *bodyBlock;
    Value iv64;
    SmallVector<Value> bodyArgs;
    if (isFor) {
      Value zero = arith::ConstantIndexOp::create(b, l, 0);
      Value one = arith::ConstantIndexOp::create(b, l, 1);
      Value ub = arith::IndexCastOp::create(b, l, b.getIndexType(), trips);
      auto forOp = scf::ForOp::create(b, l, zero, ub, one, inits);
      loopOp = forOp;
      bodyBlock = forOp.getBody();
      if (!bodyBlock->empty())
        bodyBlock->getTerminator()->erase();
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(bodyBlock);
      iv64 = arith::IndexCastOp::create(b, l, b.getI64Type(),
                                        forOp.getInductionVar());
      bodyArgs.assign(forOp.getRegionIterArgs().begin(),
                      forOp.getRegionIterArgs().end());
    } else {
      // scf.while over (cond, i, carried...): continue while cond && i < max.
      SmallVector<Value> whileInits = {
          scalarAs(initCond, b.getI1Type(), l),
          arith::ConstantOp::create(b, l, b.getI64IntegerAttr(0))};
      whileInits.append(inits);
      SmallVector<Type> whileTypes;
      for (Value v : whileInits)
        whileTypes.push_back(v.getType());
      auto whileOp = scf::WhileOp::create(b, l, whileTypes, whileInits);
      loopOp = whileOp;
      SmallVector<Location> locs(whileTypes.size(), l);
      Block *before = b.createBlock(&whileOp.getBefore(), {}, whileTypes, locs);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToEnd(before);
        Value inRange = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt,
                                              before->getArgument(1), trips);
        Value go = arith::AndIOp::create(b, l, before->getArgument(0), inRange);
        scf::ConditionOp::create(b, l, go, before->getArguments());
      }
      bodyBlock = b.createBlock(&whileOp.getAfter(), {}, whileTypes, locs);
      b.setInsertionPointAfter(whileOp);
      iv64 = bodyBlock->getArgument(1);
      bodyArgs.assign(bodyBlock->args_begin() + 2, bodyBlock->args_end());
    }
    SmallVector<Type> yieldTypes;
    bool ok = true;
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToEnd(bodyBlock);
      std::vector<TSValue> args = {TSValue::scalar(TSValue::Kind::Int, iv64)};
      ValueRange flatArgs(bodyArgs);
      for (const TSValue &v : init)
        args.push_back(unflatten(v, flatArgs));
      FailureOr<std::vector<TSValue>> r = importSubBlock(body, args);
      if (failed(r))
        return failure();
      SmallVector<Value> next;
      for (unsigned i = 1; i < r->size(); ++i)
        if (failed(flatten((*r)[i], next, l)))
          return emitError(l) << "unsupported loop-carried value " << i - 1
                              << " changing kind inside the loop";
      for (auto [v, t] : llvm::zip(next, types)) {
        if (v.getType() == t) {
          yielded.push_back(v);
          continue;
        }
        Type joined = joinTypes(v.getType(), t);
        if (!joined) {
          loopOp->erase();
          return emitError(l) << "unsupported loop-carried value changing "
                                 "type from "
                              << t << " to " << v.getType();
        }
        ok &= joined == t;
        yielded.push_back(
            joined == t ? tensor::CastOp::create(b, l, t, v).getResult() : v);
        yieldTypes.push_back(joined);
      }
      if (ok) {
        if (isFor) {
          scf::YieldOp::create(b, l, yielded);
        } else {
          SmallVector<Value> ys = {
              scalarAs((*r)[0], b.getI1Type(), l),
              arith::AddIOp::create(
                  b, l, iv64,
                  arith::ConstantOp::create(b, l, b.getI64IntegerAttr(1)))};
          ys.append(yielded);
          scf::YieldOp::create(b, l, ys);
        }
      }
    }
    if (!ok) {
      // Generalize the carried types and rebuild.
      loopOp->erase();
      unsigned k = 0;
      for (auto [i, v] : llvm::enumerate(yielded)) {
        (void)v;
        if (k < yieldTypes.size() && joinTypes(types[i], yielded[i].getType()))
          types[i] = joinTypes(types[i], yielded[i].getType());
      }
      if (attempt == 1)
        return emitError(l) << "unsupported loop-carried types that do not "
                               "settle";
      continue;
    }
    ValueRange results = loopOp->getResults();
    if (!isFor)
      results = results.drop_front(2);
    for (auto [i, v] : llvm::enumerate(init))
      set(node, i, unflatten(v, results));
    return success();
  }
  return failure();
}
