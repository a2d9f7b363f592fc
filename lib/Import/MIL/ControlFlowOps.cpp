//===- ControlFlowOps.cpp - MIL cond and while_loop -----------------------===//
//
// cond and while_loop become scf.if and scf.while; their blocks are
// imported by ProgramImporter::importBlock. MIL lists (ListOps.cpp) pass
// through both as their sequence tensors [length, element dims].
//
// Handlers read the op's named arguments and compile-time parameters
// (supplying the MIL spec defaults, iOS15+ semantics) and call the shared
// builders in mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlprog/Import/Common/Sequence.h"

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

/// The declared types of the op's outputs: a tensor type, or for a MIL
/// list the sequence tensor type [?, element dims] (`isList` set).
FailureOr<SmallVector<Type>> declaredOutputTypes(OpContext &ctx,
                                                 SmallVector<bool> &isList) {
  SmallVector<Type> types;
  for (const mil::NamedValueType &output : ctx.op.outputs()) {
    Location loc = ctx.importer.locFor(output.name());
    std::string what = "output '" + output.name() + "'";
    isList.push_back(output.type().has_listtype());
    FailureOr<RankedTensorType> type =
        isList.back()
            ? convertListElementType(loc, ctx.b.getContext(), output.type(),
                                     what)
            : convertValueType(loc, ctx.b.getContext(), output.type(), what);
    if (failed(type))
      return failure();
    types.push_back(isList.back() ? getSequenceType(*type, ShapedType::kDynamic)
                                  : Type(*type));
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

/// The tensors of the outputs of a block, where output i must be a list
/// exactly when `isList[i]`; a list whose element shape is still unknown is
/// made from `declared[i]` (materializeList).
FailureOr<SmallVector<Value>>
blockValues(OpContext &ctx, ArrayRef<NamedValue> outputs, ArrayRef<bool> isList,
            ArrayRef<const mil::ValueType *> declared, StringRef what) {
  SmallVector<Value> values;
  for (auto [i, output] : llvm::enumerate(outputs)) {
    if (bool(output.list) != isList[i])
      return emitError(ctx.loc)
             << what << " " << i << " is a "
             << (output.list ? "list" : "tensor") << " but a "
             << (isList[i] ? "list" : "tensor") << " is expected";
    FailureOr<NamedValue> made = materializeList(ctx, output, declared[i],
                                                 (what + " " + Twine(i)).str());
    if (failed(made))
      return failure();
    values.push_back(made->value);
  }
  return values;
}

/// A static tensor type of MIL type `type`, or null (no error) if it is
/// not one.
RankedTensorType staticTensorType(OpContext &ctx, const mil::ValueType &type) {
  if (!type.has_tensortype() || type.tensortype().datatype() == mil::STRING)
    return {};
  for (const mil::Dimension &dim : type.tensortype().dimensions())
    if (!dim.has_constant())
      return {};
  FailureOr<RankedTensorType> t =
      convertValueType(ctx.loc, ctx.b.getContext(), type, "value");
  return succeeded(t) ? *t : RankedTensorType();
}

/// The element type that the first list_write/list_scatter (at the top
/// level of `body`) on the list named `list` gives it: the declared type of
/// the value written, or the type of a value from an enclosing scope; null
/// when there is no such write or the type is not static. This fixes lists
/// with a symbolic elem_shape that enter a loop before their first write.
RankedTensorType elementFromFirstWrite(OpContext &ctx, const mil::Block &body,
                                       StringRef list) {
  llvm::StringMap<const mil::ValueType *> declared;
  for (const mil::NamedValueType &input : body.inputs())
    declared[input.name()] = &input.type();
  for (const mil::Operation &op : body.operations()) {
    bool scatter = op.type() == "list_scatter";
    auto ls = op.inputs().find("ls"), value = op.inputs().find("value");
    if ((scatter || op.type() == "list_write") && ls != op.inputs().end() &&
        value != op.inputs().end() && ls->second.arguments_size() == 1 &&
        ls->second.arguments(0).name() == list &&
        value->second.arguments_size() == 1) {
      const mil::Argument::Binding &v = value->second.arguments(0);
      RankedTensorType t;
      if (v.has_value()) {
        t = staticTensorType(ctx, v.value().type());
      } else if (const mil::ValueType *type = declared.lookup(v.name())) {
        t = staticTensorType(ctx, *type);
      } else if (const NamedValue *outer = ctx.importer.lookup(v.name());
                 outer && outer->value && !outer->list) {
        t = cast<RankedTensorType>(outer->value.getType());
      }
      if (!t || !t.hasStaticShape() || (scatter && t.getRank() < 1))
        return {};
      return scatter ? RankedTensorType::get(t.getShape().drop_front(),
                                             t.getElementType())
                     : t;
    }
    for (const mil::NamedValueType &output : op.outputs())
      declared[output.name()] = &output.type();
  }
  return {};
}

/// cond(pred): blocks[0] runs when pred is true, blocks[1] otherwise; both
/// return the op's outputs (tensors or lists).
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
  SmallVector<bool> isList;
  FailureOr<SmallVector<Type>> types = declaredOutputTypes(ctx, isList);
  if (failed(cond) || failed(types))
    return failure();
  SmallVector<const mil::ValueType *> declared;
  for (const mil::NamedValueType &output : ctx.op.outputs())
    declared.push_back(&output.type());
  auto ifOp = scf::IfOp::create(ctx.b, ctx.loc, *types, *cond,
                                /*withElseRegion=*/true);
  // A list result grows if it may have grown in either branch.
  SmallVector<bool> dynamicLength(isList.size(), false);
  // The types each branch computes, before the casts to `types`.
  SmallVector<Type> computed[2];
  for (int k = 0; k < 2; ++k) {
    OpBuilder::InsertionGuard guard(ctx.b);
    Block *block = k == 0 ? ifOp.thenBlock() : ifOp.elseBlock();
    // Drop the implicit terminator of result-less ifs; we add our own.
    if (!block->empty())
      block->back().erase();
    ctx.b.setInsertionPointToEnd(block);
    FailureOr<SmallVector<NamedValue>> outputs =
        ctx.importer.importBlock(ctx.op.blocks(k), {}, ctx.loc);
    if (failed(outputs))
      return failure();
    FailureOr<SmallVector<Value>> values =
        blockValues(ctx, *outputs, isList, declared, "cond block output");
    if (failed(values))
      return failure();
    for (auto [i, output] : llvm::enumerate(*outputs))
      if (output.list && output.list->dynamicLength)
        dynamicLength[i] = true;
    computed[k] = llvm::to_vector(ValueRange(*values).getTypes());
    FailureOr<SmallVector<Value>> yielded =
        castTo(ctx, *values, *types, "cond block output");
    if (failed(yielded))
      return failure();
    scf::YieldOp::create(ctx.b, ctx.loc, *yielded);
  }
  // A list the branches compute with one type (e.g. both of static length)
  // keeps it: drop the casts to the declared [?, ...] type.
  for (unsigned i = 0; i < ifOp.getNumResults(); ++i) {
    if (!isList[i] || computed[0][i] != computed[1][i] ||
        computed[0][i] == (*types)[i])
      continue;
    for (Block *block : {ifOp.thenBlock(), ifOp.elseBlock()}) {
      Operation *yield = block->getTerminator();
      auto castOp = yield->getOperand(i).getDefiningOp<tensor::CastOp>();
      if (!castOp)
        continue;
      yield->setOperand(i, castOp.getSource());
      if (castOp->use_empty())
        castOp->erase();
    }
    ifOp.getResult(i).setType(computed[0][i]);
  }
  for (unsigned i = 0; i < ifOp.getNumResults(); ++i) {
    NamedValue result{ifOp.getResult(i)};
    if (isList[i])
      result.list = ListInfo{dynamicLength[i]};
    if (failed(ctx.setNamedResult(i, result)))
      return failure();
  }
  return success();
}

/// while_loop(loop_vars): blocks[0] (the condition) and blocks[1] (the
/// body) take the loop variables as block inputs; the condition returns a
/// bool scalar, the body the next loop variables; the op's outputs are the
/// final loop variables. A list loop variable is carried as its sequence
/// tensor, with a dynamic length when the list may grow.
LogicalResult importWhileLoop(OpContext &ctx) {
  FailureOr<SmallVector<NamedValue>> vars = ctx.namedInputs("loop_vars");
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
  // Loop-carried types: for tensors, the body's declared input types (which
  // may relax shapes the body changes), else the initial values' types; for
  // lists, the initial sequence's type, of dynamic length if it may grow.
  SmallVector<Type> types;
  SmallVector<Value> initValues;
  SmallVector<bool> isList;
  SmallVector<const mil::ValueType *> declared;
  for (auto [i, input, init] : llvm::enumerate(body.inputs(), *vars)) {
    declared.push_back(input.has_type() ? &input.type() : nullptr);
    isList.push_back(bool(init.list));
    if (init.list) {
      FailureOr<NamedValue> made = materializeList(
          ctx, init, declared.back(), "loop variable '" + input.name() + "'",
          init.value ? RankedTensorType()
                     : elementFromFirstWrite(ctx, body, input.name()));
      if (failed(made))
        return failure();
      auto t = cast<RankedTensorType>(made->value.getType());
      if (init.list->dynamicLength)
        t = getSequenceType(RankedTensorType::get(t.getShape().drop_front(),
                                                  t.getElementType()),
                            ShapedType::kDynamic);
      types.push_back(t);
      initValues.push_back(made->value);
      continue;
    }
    initValues.push_back(init.value);
    if (!input.has_type()) {
      types.push_back(init.value.getType());
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
      castTo(ctx, initValues, types, "while_loop initial");
  if (failed(inits))
    return failure();
  auto whileOp = scf::WhileOp::create(ctx.b, ctx.loc, types, *inits);
  SmallVector<Location> locs(n, ctx.loc);
  // The block inputs: tensors, or lists with the loop variables' ListInfo.
  auto blockInputs = [&](Block *block) {
    SmallVector<NamedValue> inputs;
    for (auto [arg, var] : llvm::zip(block->getArguments(), *vars)) {
      inputs.push_back({arg});
      if (var.list)
        inputs.back().list = ListInfo{var.list->dynamicLength};
    }
    return inputs;
  };
  {
    OpBuilder::InsertionGuard guard(ctx.b);
    Block *before = ctx.b.createBlock(&whileOp.getBefore(), {}, types, locs);
    FailureOr<SmallVector<NamedValue>> c =
        ctx.importer.importBlock(condBlock, blockInputs(before), ctx.loc);
    if (failed(c))
      return failure();
    if (c->front().list)
      return emitError(ctx.loc) << "while_loop condition must be a bool "
                                   "scalar, got a list";
    FailureOr<Value> flag =
        extractPredicate(ctx, c->front().value, "while_loop condition");
    if (failed(flag))
      return failure();
    scf::ConditionOp::create(ctx.b, ctx.loc, *flag, before->getArguments());
  }
  {
    OpBuilder::InsertionGuard guard(ctx.b);
    Block *after = ctx.b.createBlock(&whileOp.getAfter(), {}, types, locs);
    FailureOr<SmallVector<NamedValue>> next =
        ctx.importer.importBlock(body, blockInputs(after), ctx.loc);
    if (failed(next))
      return failure();
    FailureOr<SmallVector<Value>> values =
        blockValues(ctx, *next, isList, declared, "while_loop body output");
    if (failed(values))
      return failure();
    FailureOr<SmallVector<Value>> yielded =
        castTo(ctx, *values, types, "while_loop body output");
    if (failed(yielded))
      return failure();
    scf::YieldOp::create(ctx.b, ctx.loc, *yielded);
  }
  for (unsigned i = 0; i < n; ++i) {
    NamedValue result{whileOp.getResult(i)};
    if (isList[i])
      result.list = ListInfo{(*vars)[i].list->dynamicLength};
    if (failed(ctx.setNamedResult(i, result)))
      return failure();
  }
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
