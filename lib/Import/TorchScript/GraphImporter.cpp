//===- GraphImporter.cpp - TorchScript graph -> ml_program ----------------===//
//
// Walks a (call-inlined) TorchScript graph and maps its structure onto
// ml_program: graph inputs become function arguments, module attributes
// become globals, prim::If/prim::Loop become scf.if/scf.for/scf.while (or
// are folded/unrolled when their condition or trip count is known and the
// body needs import-time values such as lists), lists and tuples are
// import-time sequences, and every aten op goes through the handler table of
// OpTable.cpp to the shared builders. Values.cpp, Globals.cpp and
// ControlFlow.cpp hold the other concerns.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "HandlerUtils.h"

#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/Import/Common/Elementwise.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"

#include "llvm/ADT/StringSet.h"

#include <functional>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;
namespace jit = torch::jit;

Importer::Importer(ModuleOp module, const TorchScriptImportOptions &options,
                   StringRef fileName)
    : b(module.getContext()), ctx(module.getContext()), module(module),
      options(options), fileName(fileName.str()),
      fileLoc(FileLineColLoc::get(module.getContext(), fileName, 0, 0)) {}

//===----------------------------------------------------------------------===//
// Importer: nodes
//===----------------------------------------------------------------------===//

LogicalResult Importer::importBlock(jit::Block *block) {
  for (Node *node : block->nodes())
    if (failed(importNode(node)))
      return failure();
  return success();
}

/// True when `kind` names an in-place aten op (`aten::add_`).
static bool isInPlaceName(c10::Symbol kind) {
  std::string name = kind.toUnqualString();
  return kind.is_aten() && name.size() > 1 && name.back() == '_' &&
         name[name.size() - 2] != '_';
}

/// The ops that only move, select or copy elements: a uint8 tensor may
/// flow through them, and their results are uint8 when input 0 (a tensor or
/// a list of tensors) is.
static const llvm::StringSet<> &uint8Movers() {
  static const llvm::StringSet<> ops = {"clone",
                                        "contiguous",
                                        "detach",
                                        "alias",
                                        "view",
                                        "reshape",
                                        "_unsafe_view",
                                        "flatten",
                                        "unsqueeze",
                                        "squeeze",
                                        "permute",
                                        "transpose",
                                        "t",
                                        "expand",
                                        "expand_as",
                                        "slice",
                                        "select",
                                        "narrow",
                                        "cat",
                                        "stack",
                                        "flip",
                                        "roll",
                                        "gather",
                                        "index_select",
                                        "unbind",
                                        "split",
                                        "chunk",
                                        "movedim",
                                        "repeat",
                                        "tile",
                                        "view_as",
                                        "reshape_as",
                                        "broadcast_to",
                                        "numpy_T",
                                        "ravel"};
  return ops;
}

/// Whether input `v` (a tensor, or a list of tensors) holds uint8 tensors.
static bool holdsUint8(Importer &im, jit::Value *v) {
  if (im.isUint8(v))
    return true;
  TSValue &t = im.get(v);
  return t.elems && llvm::any_of(*t.elems, [&](const TSValue &e) {
           return e.isTensor() && im.unsignedValues.contains(e.value);
         });
}

/// uint8 tensors are signless i8 values: only the ops that move elements
/// (uint8Movers) and those that convert them (to, byte, type_as: their
/// handlers read the sign) or make them may take or make them; the others
/// would read 200 as -56.
static LogicalResult checkUint8Operands(Importer &im, Node *node) {
  static const llvm::StringSet<> converters = {
      "to", "_to_copy", "byte", "type_as", "_batch_norm_with_update"};
  StringRef name = node->kind().toUnqualString();
  if (!node->kind().is_aten() || uint8Movers().contains(name) ||
      converters.contains(name))
    return success();
  bool any = llvm::any_of(node->outputs(),
                          [&](jit::Value *v) { return im.isUint8(v); });
  for (jit::Value *v : node->inputs())
    any = any || holdsUint8(im, v);
  if (any)
    return im.unsupported(node, "uint8 operand of '" +
                                    std::string(node->kind().toQualString()) +
                                    "'");
  return success();
}

/// Marks the results of a uint8Movers op on uint8 input as uint8.
static void propagateUint8(Importer &im, Node *node) {
  if (!node->kind().is_aten() || node->inputs().empty() ||
      !uint8Movers().contains(node->kind().toUnqualString()) ||
      !holdsUint8(im, node->input(0)))
    return;
  for (jit::Value *out : node->outputs()) {
    TSValue &t = im.get(out);
    if (t.isTensor())
      im.unsignedValues.insert(t.value);
    else if (t.elems)
      for (const TSValue &e : *t.elems)
        if (e.isTensor())
          im.unsignedValues.insert(e.value);
  }
}

bool Importer::isUint8(jit::Value *v) {
  if (auto t = v->type()->cast<c10::TensorType>())
    if (t->scalarType() == c10::ScalarType::Byte)
      return true;
  auto it = values.find(v);
  return it != values.end() && it->second.isTensor() &&
         unsignedValues.contains(it->second.value);
}

bool mlprog::torchscript::isViewNode(Node *node) {
  const c10::FunctionSchema *schema = node->maybeSchema();
  if (!schema || schema->returns().empty())
    return false;
  const c10::AliasInfo *info = schema->returns()[0].alias_info();
  return info && !info->isWrite();
}

/// Views that an in-place op may write through: their value is a
/// tensor.extract_slice of their base (or the base itself: detach and alias,
/// as in F.embedding's `embedding_renorm_(weight.detach(), ...)`), whose
/// inverse is a tensor.insert_slice.
static bool isWritableView(Node *node) {
  return node->kind() == c10::aten::slice ||
         node->kind() == c10::aten::select ||
         node->kind() == c10::aten::detach || node->kind() == c10::aten::alias;
}

/// The value of `base` after its view `view` (whose value was `oldView`
/// before the write, `oldBase` the base's) took the value `newView`: the
/// inverse of the tensor.extract_slice that made the view.
static FailureOr<Value> insertIntoBase(OpBuilder &b, Location loc,
                                       Value oldView, Value newView,
                                       Value oldBase, StringRef viewName) {
  auto castTo = [&](Value v, Type type) {
    return v.getType() == type
               ? v
               : tensor::CastOp::create(b, loc, type, v).getResult();
  };
  if (oldView == oldBase)
    return castTo(newView, oldBase.getType());
  auto slice = oldView.getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice || slice.getSource() != oldBase)
    return emitError(loc) << "unsupported in-place write through '" << viewName
                          << "' (the view is not a strided slice of its base)";
  return tensor::InsertSliceOp::create(b, loc, castTo(newView, slice.getType()),
                                       oldBase, slice.getMixedOffsets(),
                                       slice.getMixedSizes(),
                                       slice.getMixedStrides())
      .getResult();
}

LogicalResult Importer::importInPlace(Node *node, OpHandler handler) {
  Location l = loc(node);
  std::string name = node->kind().toQualString();
  // `self` and the tensors it is a view of (slice/select chains such as
  // `cache[:, p]`), ending at the tensor that owns the storage.
  SmallVector<jit::Value *> chain{node->input(0)};
  while (isViewNode(chain.back()->node())) {
    Node *view = chain.back()->node();
    if (!isWritableView(view))
      return emitError(l) << "unsupported in-place op '" << name << "' on a '"
                          << view->kind().toQualString()
                          << "' view of another tensor (aliasing cannot be "
                             "resolved)";
    chain.push_back(view->input(0));
  }
  // Value semantics are only sound when no other value shares the mutated
  // storage: no other view of the chain may be read afterwards.
  for (jit::Value *v : chain) {
    for (const jit::Use &use : v->uses()) {
      // A view taken after the write reads the updated value.
      if (use.user == node || !isViewNode(use.user) ||
          llvm::is_contained(chain, use.user->output()) ||
          use.user->isAfter(node))
        continue;
      for (const jit::Use &viewUse : use.user->output()->uses())
        if (viewUse.user->isAfter(node))
          return emitError(l) << "unsupported in-place op '" << name
                              << "' on a tensor whose view is used "
                                 "afterwards (aliasing cannot be resolved)";
    }
  }
  SmallVector<Value> before;
  for (jit::Value *v : chain) {
    TSValue &current = get(v);
    if (!current.isTensor())
      return emitError(l) << "unsupported in-place op '" << name
                          << "' on a value that is not a tensor";
    if (current.value.getParentRegion() != b.getInsertionBlock()->getParent())
      return emitError(l) << "unsupported in-place op '" << name
                          << "' inside a loop or branch on a tensor defined "
                             "outside it";
    before.push_back(current.value);
  }
  if (failed(handler(*this, node)))
    return failure();
  TSValue result = get(node->output(0));
  if (!result.isTensor())
    return failure();
  // Keep the dtype of `self` (in-place results do not promote).
  Type et = getElementTypeOrSelf(before.front().getType());
  if (getElementTypeOrSelf(result.value.getType()) != et) {
    FailureOr<Value> c = buildConvertElementType(b, l, result.value, et);
    if (failed(c))
      return failure();
    result.value = *c;
    set(node, 0, result);
  }
  values[chain.front()] = result;
  Value updated = result.value;
  for (size_t i = 0; i + 1 < chain.size(); ++i) {
    FailureOr<Value> base =
        insertIntoBase(b, l, before[i], updated, before[i + 1],
                       chain[i]->node()->kind().toQualString());
    if (failed(base))
      return failure();
    updated = *base;
    values[chain[i + 1]] = TSValue::tensor(updated);
  }
  // The views' old values are usually dead now; a dead extract_slice would
  // still read the old buffer (and keep a global's load from being updated
  // in place, docs/state.md).
  for (Value old : ArrayRef(before).drop_back())
    if (auto slice = old.getDefiningOp<tensor::ExtractSliceOp>())
      if (slice->use_empty())
        slice->erase();
  return writeBack(chain.back(), updated, l);
}

LogicalResult Importer::importNode(Node *node) {
  c10::Symbol kind = node->kind();
  if (kind == c10::prim::Constant)
    return importConstant(node);
  if (kind == c10::prim::GetAttr)
    return importGetAttr(node);
  if (kind == c10::prim::SetAttr)
    return importSetAttr(node);
  if (kind == c10::prim::If)
    return importIf(node);
  if (kind == c10::prim::Loop)
    return importLoop(node);
  bool handled = false;
  if (failed(importPrim(node, handled)))
    return failure();
  if (handled)
    return success();
  if (failed(importScalarOp(node, handled)))
    return failure();
  if (handled)
    return success();
  if (failed(foldZeroDimNode(node, handled)))
    return failure();
  if (handled)
    return success();

  const OpTable &table = getOpTable();
  std::string qual = kind.toQualString();
  if (failed(checkUint8Operands(*this, node)))
    return failure();
  std::string overload;
  if (const c10::FunctionSchema *schema = node->maybeSchema())
    overload = schema->overload_name();
  auto find = [&](const std::string &base) -> OpHandler {
    if (!overload.empty())
      if (OpHandler h = table.lookup(base + "." + overload))
        return h;
    // An out= overload also writes its result into an operand; the
    // functional handler would drop that write.
    if (overload == "out")
      return nullptr;
    return table.lookup(base);
  };
  if (OpHandler h = find(qual)) {
    if (failed(h(*this, node)))
      return failure();
    propagateUint8(*this, node);
    return success();
  }
  if (isInPlaceName(kind)) {
    std::string functional = qual.substr(0, qual.size() - 1);
    if (OpHandler h = find(functional))
      return importInPlace(node, h);
  }
  std::string schemaText;
  if (const c10::FunctionSchema *schema = node->maybeSchema()) {
    std::ostringstream os;
    os << *schema;
    schemaText = " (" + os.str() + ")";
  }
  return emitError(loc(node))
         << "unsupported TorchScript op '" << qual << "'" << schemaText;
}

//===----------------------------------------------------------------------===//
// Importer: function
//===----------------------------------------------------------------------===//

/// Torch dtype names accepted by --input-dtypes.
static Type parseDtype(MLIRContext *ctx, StringRef name) {
  Builder b(ctx);
  return llvm::StringSwitch<Type>(name)
      .Cases({"float32", "float", "f32"}, b.getF32Type())
      .Cases({"float64", "double", "f64"}, b.getF64Type())
      .Cases({"float16", "half", "f16"}, b.getF16Type())
      .Cases({"bfloat16", "bf16"}, b.getBF16Type())
      .Cases({"int64", "long", "i64"}, b.getI64Type())
      .Cases({"int32", "int", "i32"}, b.getI32Type())
      .Cases({"int16", "short", "i16"}, b.getI16Type())
      .Cases({"int8", "i8"}, b.getI8Type())
      .Cases({"uint8", "u8"}, b.getI8Type())
      .Cases({"bool", "i1"}, b.getI1Type())
      .Default(Type());
}

/// The TSValue kind of a non-tensor scalar torch type, or None.
static TSValue::Kind scalarKind(const c10::TypePtr &type) {
  switch (type->kind()) {
  case c10::TypeKind::IntType:
    return TSValue::Kind::Int;
  case c10::TypeKind::FloatType:
    return TSValue::Kind::Float;
  case c10::TypeKind::BoolType:
    return TSValue::Kind::Bool;
  default:
    return TSValue::Kind::None;
  }
}

FailureOr<Type> Importer::inputType(jit::Value *input, const c10::TypePtr &type,
                                    unsigned index) {
  Location l =
      NameLoc::get(StringAttr::get(ctx, "%" + input->debugName()), fileLoc);
  TSValue::Kind sk = scalarKind(type);
  if (sk != TSValue::Kind::None)
    return Type(RankedTensorType::get({}, scalarMLIRType(ctx, sk)));
  auto tt = type->cast<c10::TensorType>();
  if (!tt)
    return emitError(l) << "unsupported input type " << type->repr_str()
                        << " (inputs must be tensors or numbers)";
  std::optional<SmallVector<int64_t>> shape;
  if (inputOptions && index < options.inputShapes.size() &&
      !(options.inputShapes[index].size() == 1 &&
        options.inputShapes[index][0] == -2))
    shape = SmallVector<int64_t>(options.inputShapes[index].begin(),
                                 options.inputShapes[index].end());
  else if (tt->sizes().size()) {
    shape.emplace();
    for (size_t d = 0; d < *tt->sizes().size(); ++d) {
      c10::optional<int64_t> s = tt->sizes()[d];
      shape->push_back(s ? *s : ShapedType::kDynamic);
    }
  }
  if (!shape)
    return emitError(l) << "input '" << input->debugName() << "' (#" << index
                        << ") has no shape: annotate it in the IR or pass "
                           "--input-shapes";
  Type et;
  bool isUnsigned = false;
  if (inputOptions && index < options.inputDtypes.size() &&
      !options.inputDtypes[index].empty()) {
    et = parseDtype(ctx, options.inputDtypes[index]);
    if (!et)
      return emitError(l) << "unknown dtype '" << options.inputDtypes[index]
                          << "' in --input-dtypes";
    isUnsigned = StringRef(options.inputDtypes[index]).starts_with("u");
  } else if (tt->scalarType()) {
    et = convertScalarType(ctx, *tt->scalarType());
    isUnsigned = *tt->scalarType() == c10::ScalarType::Byte;
    if (!et)
      return emitError(l) << "unsupported input dtype "
                          << c10::toString(*tt->scalarType());
  } else {
    et = b.getF32Type();
  }
  if (unsignedArgs.size() <= index)
    unsignedArgs.resize(index + 1, false);
  unsignedArgs[index] = isUnsigned;
  return Type(RankedTensorType::get(*shape, et));
}

TSValue Importer::argumentValue(const c10::TypePtr &type, Value arg) {
  TSValue::Kind sk = scalarKind(type);
  if (sk == TSValue::Kind::None)
    return TSValue::tensor(arg);
  Value s = tensor::ExtractOp::create(b, arg.getLoc(), arg, ValueRange{});
  return TSValue::scalar(sk, s);
}

/// Whether the first input of `graph` is bound to `self` (a method's
/// `self`).
static bool bindsSelf(jit::Graph &graph,
                      const c10::intrusive_ptr<c10::ivalue::Object> &self) {
  return self && !graph.inputs().empty() &&
         graph.inputs()[0]->type()->kind() == c10::TypeKind::ClassType;
}

void Importer::collectGraphWrites(
    jit::Graph &graph, c10::intrusive_ptr<c10::ivalue::Object> self) {
  if (bindsSelf(graph, self))
    objectOf[graph.inputs()[0]] = self;
  collectWrites(graph.block());
}

LogicalResult
Importer::importGraph(jit::Graph &graph, StringRef name,
                      c10::intrusive_ptr<c10::ivalue::Object> self,
                      bool useInputOptions) {
  auto inputs = graph.inputs();
  size_t first = 0;
  collectGraphWrites(graph, self);
  if (bindsSelf(graph, self)) {
    TSValue t;
    t.kind = TSValue::Kind::Object;
    t.object = self;
    values[inputs[0]] = t;
    first = 1;
  }
  inputOptions = useInputOptions;
  // Tuple inputs are flattened into one argument per tensor or number.
  SmallVector<Type> argTypes;
  unsignedArgs.clear();
  std::function<LogicalResult(jit::Value *, const c10::TypePtr &)> addArg =
      [&](jit::Value *input, const c10::TypePtr &type) -> LogicalResult {
    if (auto tuple = type->cast<c10::TupleType>()) {
      for (const c10::TypePtr &e : tuple->elements())
        if (failed(addArg(input, e)))
          return failure();
      return success();
    }
    FailureOr<Type> t = inputType(input, type, argTypes.size());
    if (failed(t))
      return failure();
    argTypes.push_back(*t);
    return success();
  };
  for (size_t i = first; i < inputs.size(); ++i)
    if (failed(addArg(inputs[i], inputs[i]->type())))
      return failure();
  if (inputOptions && !options.inputShapes.empty() &&
      options.inputShapes.size() != argTypes.size())
    return emitError(fileLoc)
           << "--input-shapes lists " << options.inputShapes.size()
           << " shapes but method '" << name << "' has " << argTypes.size()
           << " tensor inputs";
  b.setInsertionPointToEnd(module.getBody());
  programBuilder.reserveSymbol(name);
  FuncOp func = ProgramBuilder::createFunc(
      b, NameLoc::get(StringAttr::get(ctx, name), fileLoc), name,
      b.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToStart(entry);
  unsigned argIndex = 0;
  std::function<TSValue(const c10::TypePtr &)> bindArg =
      [&](const c10::TypePtr &type) -> TSValue {
    if (auto tuple = type->cast<c10::TupleType>()) {
      std::vector<TSValue> elems;
      for (const c10::TypePtr &e : tuple->elements())
        elems.push_back(bindArg(e));
      return TSValue::list(std::move(elems), TSValue::Kind::Tuple);
    }
    return argumentValue(type, entry->getArgument(argIndex++));
  };
  for (size_t i = first; i < inputs.size(); ++i)
    values[inputs[i]] = bindArg(inputs[i]->type());
  for (auto [i, isUnsigned] : llvm::enumerate(unsignedArgs))
    if (isUnsigned)
      unsignedValues.insert(entry->getArgument(i));
  if (failed(importBlock(graph.block())))
    return failure();
  SmallVector<Value> results;
  for (jit::Value *out : graph.outputs()) {
    TSValue &v = get(out);
    // A method returning None (`reset`) has no results.
    if (v.isNone() && graph.outputs().size() == 1)
      continue;
    if (v.isScalar()) {
      results.push_back(*asTensor(v, fileLoc));
      continue;
    }
    if (v.kind == TSValue::Kind::List) {
      // A list result is returned as its elements.
      for (const TSValue &e : *v.elems)
        if (failed(flatten(e, results, fileLoc)))
          return emitError(fileLoc) << "unsupported list result element";
      continue;
    }
    SmallVector<Value> flat;
    if (failed(flatten(v, flat, fileLoc)))
      return emitError(fileLoc)
             << "unsupported result of type " << out->type()->repr_str()
             << " (results must be tensors, numbers or tuples of them)";
    for (Value f : flat)
      results.push_back(
          isa<RankedTensorType>(f.getType())
              ? f
              : tensor::FromElementsOp::create(
                    b, fileLoc, RankedTensorType::get({}, f.getType()), f)
                    .getResult());
  }
  ReturnOp::create(b, fileLoc, results);
  SmallVector<Type> resultTypes;
  for (Value r : results)
    resultTypes.push_back(r.getType());
  ProgramBuilder::setResultTypes(func, resultTypes);
  SmallVector<bool> unsignedResults;
  for (Value r : results)
    unsignedResults.push_back(unsignedValues.contains(r));
  ProgramBuilder::markUnsigned(func, unsignedArgs, unsignedResults);
  return success();
}
