//===- ControlFlowOps.cpp - MIL cond and while_loop -----------------------===//
//
// cond and while_loop become scf.if and scf.while; their blocks are
// imported by ProgramImporter::importBlock.
//
// Handlers read the op's named arguments and compile-time parameters
// (supplying the MIL spec defaults, iOS15+ semantics) and call the shared
// builders in mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace mlprog::mil_import {
namespace {

/// The i1 scalar held by a boolean tensor of one element.
FailureOr<Value> extractPredicate(OpContext &ctx, Value pred, StringRef what) {
  auto t = dyn_cast<RankedTensorType>(pred.getType());
  if (!t || !t.getElementType().isInteger(1) || !t.hasStaticShape() ||
      t.getNumElements() != 1)
    return emitError(ctx.loc)
           << what << " must be a bool scalar, got " << pred.getType();
  SmallVector<Value> zeros(t.getRank(),
                           arith::ConstantIndexOp::create(ctx.b, ctx.loc, 0));
  return tensor::ExtractOp::create(ctx.b, ctx.loc, pred, zeros).getResult();
}

/// The declared types of the op's outputs.
FailureOr<SmallVector<Type>> declaredOutputTypes(OpContext &ctx) {
  SmallVector<Type> types;
  for (const mil::NamedValueType &output : ctx.op.outputs()) {
    FailureOr<RankedTensorType> type =
        convertValueType(ctx.importer.locFor(output.name()), ctx.b.getContext(),
                         output.type(), "output '" + output.name() + "'");
    if (failed(type))
      return failure();
    types.push_back(*type);
  }
  return types;
}

/// Casts `values` to `types` (cast-compatible) for a region terminator.
FailureOr<SmallVector<Value>> castTo(OpContext &ctx, ValueRange values,
                                     TypeRange types, StringRef what) {
  SmallVector<Value> out;
  for (auto [i, v, t] : llvm::enumerate(values, types)) {
    if (v.getType() == t) {
      out.push_back(v);
      continue;
    }
    if (!tensor::CastOp::areCastCompatible(v.getType(), t))
      return emitError(ctx.loc) << what << " value " << i << " has type "
                                << v.getType() << ", expected " << t;
    out.push_back(tensor::CastOp::create(ctx.b, ctx.loc, t, v));
  }
  return out;
}

/// cond(pred): blocks[0] runs when pred is true, blocks[1] otherwise; both
/// return the op's outputs.
LogicalResult importCond(OpContext &ctx) {
  FailureOr<Value> pred = ctx.input("pred");
  if (failed(pred))
    return failure();
  if (ctx.op.blocks_size() != 2)
    return emitError(ctx.loc)
           << "cond needs 2 blocks, got " << ctx.op.blocks_size();
  for (int k = 0; k < 2; ++k)
    if (ctx.op.blocks(k).outputs_size() != ctx.op.outputs_size())
      return emitError(ctx.loc)
             << "cond " << (k == 0 ? "true" : "false") << " block returns "
             << ctx.op.blocks(k).outputs_size() << " values but the op has "
             << ctx.op.outputs_size() << " outputs";
  FailureOr<Value> cond = extractPredicate(ctx, *pred, "cond predicate");
  FailureOr<SmallVector<Type>> types = declaredOutputTypes(ctx);
  if (failed(cond) || failed(types))
    return failure();
  auto ifOp = scf::IfOp::create(ctx.b, ctx.loc, *types, *cond,
                                /*withElseRegion=*/true);
  for (int k = 0; k < 2; ++k) {
    OpBuilder::InsertionGuard guard(ctx.b);
    Block *block = k == 0 ? ifOp.thenBlock() : ifOp.elseBlock();
    // Drop the implicit terminator of result-less ifs; we add our own.
    if (!block->empty())
      block->back().erase();
    ctx.b.setInsertionPointToEnd(block);
    FailureOr<SmallVector<Value>> outputs =
        ctx.importer.importBlock(ctx.op.blocks(k), {}, ctx.loc);
    if (failed(outputs))
      return failure();
    FailureOr<SmallVector<Value>> yielded =
        castTo(ctx, *outputs, *types, "cond block output");
    if (failed(yielded))
      return failure();
    scf::YieldOp::create(ctx.b, ctx.loc, *yielded);
  }
  for (unsigned i = 0; i < ifOp.getNumResults(); ++i)
    if (failed(ctx.setResult(i, ifOp.getResult(i))))
      return failure();
  return success();
}

/// while_loop(loop_vars): blocks[0] (the condition) and blocks[1] (the
/// body) take the loop variables as block inputs; the condition returns a
/// bool scalar, the body the next loop variables; the op's outputs are the
/// final loop variables.
LogicalResult importWhileLoop(OpContext &ctx) {
  FailureOr<SmallVector<Value>> vars = ctx.inputs("loop_vars");
  if (failed(vars))
    return failure();
  if (ctx.op.blocks_size() != 2)
    return emitError(ctx.loc)
           << "while_loop needs 2 blocks, got " << ctx.op.blocks_size();
  const mil::Block &condBlock = ctx.op.blocks(0), &body = ctx.op.blocks(1);
  size_t n = vars->size();
  if (size_t(condBlock.inputs_size()) != n || size_t(body.inputs_size()) != n)
    return emitError(ctx.loc) << "while_loop blocks must take the " << n
                              << " loop variables as inputs";
  if (condBlock.outputs_size() != 1)
    return emitError(ctx.loc)
           << "while_loop condition block returns " << condBlock.outputs_size()
           << " values, expected 1";
  if (size_t(body.outputs_size()) != n)
    return emitError(ctx.loc)
           << "while_loop body block returns " << body.outputs_size()
           << " values but there are " << n << " loop variables";
  if (size_t(ctx.op.outputs_size()) != n)
    return emitError(ctx.loc)
           << "while_loop declares " << ctx.op.outputs_size()
           << " outputs but there are " << n << " loop variables";
  // Loop-carried types: the body's declared input types (which may relax
  // shapes the body changes), else the initial values' types.
  SmallVector<Type> types;
  for (auto [input, init] : llvm::zip(body.inputs(), *vars)) {
    if (!input.has_type()) {
      types.push_back(init.getType());
      continue;
    }
    FailureOr<RankedTensorType> t =
        convertValueType(ctx.importer.locFor(input.name()), ctx.b.getContext(),
                         input.type(), "loop variable '" + input.name() + "'");
    if (failed(t))
      return failure();
    types.push_back(*t);
  }
  FailureOr<SmallVector<Value>> inits =
      castTo(ctx, *vars, types, "while_loop initial");
  if (failed(inits))
    return failure();
  auto whileOp = scf::WhileOp::create(ctx.b, ctx.loc, types, *inits);
  SmallVector<Location> locs(n, ctx.loc);
  {
    OpBuilder::InsertionGuard guard(ctx.b);
    Block *before = ctx.b.createBlock(&whileOp.getBefore(), {}, types, locs);
    FailureOr<SmallVector<Value>> c =
        ctx.importer.importBlock(condBlock, before->getArguments(), ctx.loc);
    if (failed(c))
      return failure();
    FailureOr<Value> flag =
        extractPredicate(ctx, c->front(), "while_loop condition");
    if (failed(flag))
      return failure();
    scf::ConditionOp::create(ctx.b, ctx.loc, *flag, before->getArguments());
  }
  {
    OpBuilder::InsertionGuard guard(ctx.b);
    Block *after = ctx.b.createBlock(&whileOp.getAfter(), {}, types, locs);
    FailureOr<SmallVector<Value>> next =
        ctx.importer.importBlock(body, after->getArguments(), ctx.loc);
    if (failed(next))
      return failure();
    FailureOr<SmallVector<Value>> yielded =
        castTo(ctx, *next, types, "while_loop body output");
    if (failed(yielded))
      return failure();
    scf::YieldOp::create(ctx.b, ctx.loc, *yielded);
  }
  for (unsigned i = 0; i < n; ++i)
    if (failed(ctx.setResult(i, whileOp.getResult(i))))
      return failure();
  return success();
}

} // namespace

void registerControlFlowOps(OpTable &table) {
  table.add({
      {"cond", importCond},
      {"while_loop", importWhileLoop},
  });
}

} // namespace mlprog::mil_import
