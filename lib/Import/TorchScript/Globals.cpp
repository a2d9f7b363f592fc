//===- Globals.cpp - TorchScript attributes, constants, globals -----------===//
//
// Module attributes and large constants become ml_program globals (mutable
// when any imported method writes them: SetAttr, in-place updates of
// buffers, also through slice/select views); prim::Constant, prim::GetAttr
// and prim::SetAttr. See docs/state.md.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"

#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"

#include <torch/csrc/jit/ir/constants.h>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;
namespace jit = torch::jit;

//===----------------------------------------------------------------------===//
// Importer: globals and constants
//===----------------------------------------------------------------------===//

/// Converts a CPU tensor to a dense attribute of its dtype.
static FailureOr<DenseElementsAttr>
tensorAttr(MLIRContext *ctx, const at::Tensor &tensor, Location loc) {
  Type et = convertScalarType(ctx, tensor.scalar_type());
  if (!et)
    return emitError(loc) << "unsupported tensor dtype "
                          << c10::toString(tensor.scalar_type());
  at::Tensor t = tensor.detach().to(at::kCPU).contiguous();
  SmallVector<int64_t> shape(t.sizes().begin(), t.sizes().end());
  auto type = RankedTensorType::get(shape, et);
  if (et.isInteger(1)) {
    SmallVector<bool> bits;
    const bool *data = t.data_ptr<bool>();
    bits.assign(data, data + t.numel());
    return DenseElementsAttr::get(type, ArrayRef<bool>(bits));
  }
  ArrayRef<char> raw(static_cast<const char *>(t.data_ptr()),
                     size_t(t.numel()) * t.element_size());
  return DenseElementsAttr::getFromRawBuffer(type, raw);
}

FailureOr<TSValue> Importer::tensorConstant(const at::Tensor &t, Location l,
                                            StringRef name) {
  FailureOr<DenseElementsAttr> attr = tensorAttr(ctx, t, l);
  if (failed(attr))
    return failure();
  if (attr->getNumElements() <= options.maxInlineConstantElements) {
    Value c = arith::ConstantOp::create(b, l, *attr);
    if (t.scalar_type() == at::ScalarType::Byte)
      unsignedValues.insert(c);
    return TSValue::tensor(c);
  }
  // Large constants (the weights of frozen modules) become immutable
  // globals.
  std::string symbol;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    symbol = programBuilder
                 .createGlobal(b, l, name.empty() ? "constant" : name,
                               attr->getType(), *attr)
                 .getSymName()
                 .str();
  }
  Value loaded = ProgramBuilder::loadConstGlobal(b, l, attr->getType(), symbol);
  if (t.scalar_type() == at::ScalarType::Byte)
    unsignedValues.insert(loaded);
  return TSValue::tensor(loaded);
}

/// The shape of the empty value of `bounding`: no rows (`len()` 0), the
/// other extents as the bounding type has them (0 where dynamic).
static SmallVector<int64_t> emptyShape(RankedTensorType bounding) {
  SmallVector<int64_t> shape;
  for (auto [i, extent] : llvm::enumerate(bounding.getShape()))
    shape.push_back(i == 0 || ShapedType::isDynamic(extent) ? 0 : extent);
  return shape;
}

/// The bounding type of a mutable attribute that holds values of types `a`
/// and `b`: extents that differ become dynamic. A value with no elements
/// and another rank (the `torch.zeros(0)` that stateful modules such as
/// silero-vad store to mean "no state yet", tested with `len()`) counts as
/// the other value with no rows: the first extent becomes dynamic, the
/// others stay (it is held as the empty tensor of emptyShape). Null when
/// the ranks differ otherwise or the element types differ.
static RankedTensorType joinStateTypes(RankedTensorType a, RankedTensorType b) {
  if (a.getElementType() != b.getElementType())
    return {};
  if (a.getRank() != b.getRank()) {
    auto isEmpty = [](RankedTensorType t) {
      return t.hasStaticShape() && t.getNumElements() == 0;
    };
    if (isEmpty(a) == isEmpty(b))
      return {};
    RankedTensorType full = isEmpty(a) ? b : a;
    if (full.getRank() == 0)
      return {};
    SmallVector<int64_t> shape(full.getShape());
    shape[0] = ShapedType::kDynamic;
    return RankedTensorType::get(shape, full.getElementType());
  }
  SmallVector<int64_t> shape;
  for (auto [x, y] : llvm::zip(a.getShape(), b.getShape()))
    shape.push_back(x == y ? x : ShapedType::kDynamic);
  return RankedTensorType::get(shape, a.getElementType());
}

/// `value` (of a type joinStateTypes accepts) as a value of `bounding`:
/// a tensor.cast, or, for an empty value of another rank, the empty tensor
/// of emptyShape(bounding).
static Value castToBoundingType(OpBuilder &b, Location l, Value value,
                                RankedTensorType bounding) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type == bounding)
    return value;
  if (type.getRank() != bounding.getRank()) {
    Value empty = tensor::EmptyOp::create(b, l, emptyShape(bounding),
                                          bounding.getElementType());
    return tensor::CastOp::create(b, l, bounding, empty);
  }
  return tensor::CastOp::create(b, l, bounding, value);
}

FailureOr<Importer::GlobalInfo *> Importer::globalFor(const AttrKey &key,
                                                      const c10::IValue &value,
                                                      const std::string &path,
                                                      Location l) {
  auto it = globals.find(key);
  if (it != globals.end())
    return &it->second;
  GlobalInfo info;
  info.isMutable = writtenAttrs.count(key) != 0;
  Attribute init;
  if (value.isTensor()) {
    FailureOr<DenseElementsAttr> attr = tensorAttr(ctx, value.toTensor(), l);
    if (failed(attr))
      return failure();
    init = *attr;
    info.type = cast<RankedTensorType>(attr->getType());
    auto bounding = globalBoundingTypes.find(path);
    if (info.isMutable && bounding != globalBoundingTypes.end()) {
      // The initial value keeps its static shape; an empty one of another
      // rank is the empty tensor of the bounding type's rank.
      if (info.type.getRank() != bounding->second.getRank())
        init = DenseElementsAttr::get(
            RankedTensorType::get(emptyShape(bounding->second),
                                  info.type.getElementType()),
            ArrayRef<Attribute>());
      info.type = bounding->second;
    }
  } else if (value.isInt() || value.isDouble() || value.isBool()) {
    info.kind = value.isInt()      ? TSValue::Kind::Int
                : value.isDouble() ? TSValue::Kind::Float
                                   : TSValue::Kind::Bool;
    Type et = scalarMLIRType(ctx, info.kind);
    info.type = RankedTensorType::get({}, et);
    if (value.isInt())
      init =
          DenseElementsAttr::get(info.type, b.getI64IntegerAttr(value.toInt()));
    else if (value.isDouble())
      init = DenseElementsAttr::get(info.type,
                                    b.getF64FloatAttr(value.toDouble()));
    else
      init = DenseElementsAttr::get(info.type, b.getBoolAttr(value.toBool()));
  } else {
    return emitError(l) << "unsupported attribute '" << path << "' of type "
                        << value.tagKind();
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  info.symbol =
      programBuilder.createGlobal(b, l, path, info.type, init, info.isMutable)
          .getSymName()
          .str();
  return &globals.emplace(key, std::move(info)).first->second;
}

/// Follows GetAttr chains from objects known at import time, collecting the
/// attributes the program writes (prim::SetAttr, in-place ops on attribute
/// tensors, running statistics of training-mode batch norm), which become
/// mutable globals.
void Importer::collectWrites(jit::Block *block) {
  for (Node *node : block->nodes()) {
    for (jit::Block *sub : node->blocks())
      collectWrites(sub);
    if (node->kind() == c10::prim::GetAttr) {
      auto obj = objectOf.find(node->input(0));
      if (obj == objectOf.end())
        continue;
      std::string name = node->s(c10::attr::name);
      c10::IValue attr = obj->second->getAttr(name);
      if (attr.isObject())
        objectOf[node->output()] = attr.toObject();
      else
        attrOfValue[node->output()] = AttrKey(obj->second.get(), name);
      continue;
    }
    if (node->kind() == c10::prim::SetAttr) {
      auto obj = objectOf.find(node->input(0));
      if (obj != objectOf.end())
        writtenAttrs.insert(
            AttrKey(obj->second.get(), node->s(c10::attr::name)));
      continue;
    }
    auto markWritten = [&](jit::Value *v) {
      // A write through a view (`cache[:, p] = k`) writes the viewed tensor.
      while (isViewNode(v->node()))
        v = v->node()->input(0);
      auto it = attrOfValue.find(v);
      if (it != attrOfValue.end())
        writtenAttrs.insert(it->second);
    };
    if (node->kind() == c10::aten::batch_norm ||
        node->kind() == c10::aten::instance_norm) {
      // Running stats are updated unless `training` is a constant false.
      c10::optional<c10::IValue> training = jit::toIValue(node->input(5));
      if (!training || !training->isBool() || training->toBool()) {
        markWritten(node->input(3));
        markWritten(node->input(4));
      }
      continue;
    }
    const c10::FunctionSchema *schema = node->maybeSchema();
    if (!schema)
      continue;
    for (auto [i, arg] : llvm::enumerate(schema->arguments()))
      if (arg.alias_info() && arg.alias_info()->isWrite() &&
          i < node->inputs().size())
        markWritten(node->input(i));
  }
}

LogicalResult Importer::writeBack(jit::Value *v, Value newValue, Location l) {
  auto it = attrOfValue.find(v);
  if (it == attrOfValue.end())
    return success();
  auto g = globals.find(it->second);
  if (g == globals.end() || !g->second.isMutable)
    return emitError(l) << "internal: attribute '" << it->second.second
                        << "' written but not mutable";
  if (newValue.getType() != g->second.type) {
    if (!tensor::CastOp::areCastCompatible(newValue.getType(), g->second.type))
      return emitError(l) << "cannot store " << newValue.getType()
                          << " to attribute '" << it->second.second
                          << "' of type " << g->second.type;
    newValue = tensor::CastOp::create(b, l, g->second.type, newValue);
  }
  GlobalStoreOp::create(b, l, FlatSymbolRefAttr::get(ctx, g->second.symbol),
                        newValue);
  // Every read of the attribute in this graph names the same storage, so
  // the reads imported so far see the write from here on (reads imported
  // later load the global again).
  for (auto &[read, key] : attrOfValue) {
    if (key != it->second || read == v ||
        read->owningGraph() != v->owningGraph())
      continue;
    auto bound = values.find(read);
    if (bound != values.end() && bound->second.isTensor() &&
        bound->second.value.getParentRegion() == newValue.getParentRegion())
      bound->second = TSValue::tensor(newValue);
  }
  values[v] = TSValue::tensor(newValue);
  return success();
}

FailureOr<TSValue> Importer::importIValue(const c10::IValue &iv, Location l,
                                          StringRef name) {
  if (iv.isNone())
    return TSValue::none();
  if (iv.isInt())
    return TSValue::ofInt(iv.toInt());
  if (iv.isDouble())
    return TSValue::ofFloat(iv.toDouble());
  if (iv.isBool())
    return TSValue::ofBool(iv.toBool());
  if (iv.isString()) {
    TSValue t;
    t.kind = TSValue::Kind::Str;
    t.str = iv.toStringRef();
    return t;
  }
  if (iv.isDevice()) {
    TSValue t;
    t.kind = TSValue::Kind::Device;
    t.str = iv.toDevice().str();
    return t;
  }
  if (iv.isTensor())
    return tensorConstant(iv.toTensor(), l, name);
  if (iv.isList() || iv.isTuple() || iv.isIntList() || iv.isDoubleList() ||
      iv.isBoolList() || iv.isTensorList()) {
    std::vector<TSValue> elems;
    auto add = [&](const c10::IValue &e) -> LogicalResult {
      FailureOr<TSValue> v = importIValue(e, l, name);
      if (failed(v))
        return failure();
      elems.push_back(*v);
      return success();
    };
    if (iv.isTuple()) {
      for (const c10::IValue &e : iv.toTupleRef().elements())
        if (failed(add(e)))
          return failure();
      return TSValue::list(std::move(elems), TSValue::Kind::Tuple);
    }
    for (const c10::IValue &e : iv.toListRef())
      if (failed(add(e)))
        return failure();
    return TSValue::list(std::move(elems));
  }
  if (iv.isObject()) {
    TSValue t;
    t.kind = TSValue::Kind::Object;
    t.object = iv.toObject();
    return t;
  }
  return emitError(l) << "unsupported constant of kind " << iv.tagKind();
}

LogicalResult Importer::importConstant(Node *node) {
  Location l = loc(node);
  c10::optional<c10::IValue> iv = jit::toIValue(node->output());
  if (!iv)
    return unsupported(node, "prim::Constant");
  std::string name =
      node->output()->hasDebugName() ? node->output()->debugName() : "constant";
  FailureOr<TSValue> v = importIValue(*iv, l, name);
  if (failed(v))
    return failure();
  return set(node, 0, *v);
}

LogicalResult Importer::importGetAttr(Node *node) {
  Location l = loc(node);
  TSValue &objv = get(node->input(0));
  if (objv.kind != TSValue::Kind::Object || !objv.object)
    return unsupported(node, "prim::GetAttr on a value that is not a module "
                             "known at import time");
  std::string name = node->s(c10::attr::name);
  std::string path = objv.path.empty() ? name : objv.path + "." + name;
  c10::intrusive_ptr<c10::ivalue::Object> obj = objv.object;
  c10::IValue attr = obj->getAttr(name);
  AttrKey key(obj.get(), name);
  if (attr.isObject()) {
    TSValue t;
    t.kind = TSValue::Kind::Object;
    t.object = attr.toObject();
    t.path = path;
    return set(node, 0, t);
  }
  bool isWritten = writtenAttrs.count(key) != 0;
  bool isState =
      attr.isTensor() ||
      (isWritten && (attr.isInt() || attr.isDouble() || attr.isBool()));
  if (!isState) {
    FailureOr<TSValue> v = importIValue(attr, l, path);
    if (failed(v))
      return failure();
    return set(node, 0, *v);
  }
  FailureOr<GlobalInfo *> g = globalFor(key, attr, path, l);
  if (failed(g))
    return failure();
  attrOfValue[node->output()] = key;
  auto symbol = FlatSymbolRefAttr::get(ctx, (*g)->symbol);
  Value v =
      (*g)->isMutable
          ? GlobalLoadOp::create(b, l, (*g)->type, symbol).getResult()
          : GlobalLoadConstOp::create(b, l, (*g)->type, symbol).getResult();
  if ((*g)->kind == TSValue::Kind::Tensor)
    return set(node, 0, TSValue::tensor(v));
  Value s = tensor::ExtractOp::create(b, l, v, ValueRange{});
  return set(node, 0, TSValue::scalar((*g)->kind, s));
}

LogicalResult Importer::importSetAttr(Node *node) {
  Location l = loc(node);
  TSValue &objv = get(node->input(0));
  if (objv.kind != TSValue::Kind::Object || !objv.object)
    return unsupported(node, "prim::SetAttr on a value that is not a module "
                             "known at import time");
  std::string name = node->s(c10::attr::name);
  std::string path = objv.path.empty() ? name : objv.path + "." + name;
  AttrKey key(objv.object.get(), name);
  FailureOr<GlobalInfo *> g =
      globalFor(key, objv.object->getAttr(name), path, l);
  if (failed(g))
    return failure();
  TSValue &v = get(node->input(1));
  FailureOr<Value> stored =
      (*g)->kind == TSValue::Kind::Tensor
          ? (v.isTensor() ? FailureOr<Value>(v.value)
                          : FailureOr<Value>(emitError(l)
                                             << "unsupported "
                                                "non-tensor value stored to "
                                                "tensor attribute '"
                                             << path << "'"))
          : tensorOf(v, (*g)->type.getElementType(), l);
  if (failed(stored))
    return failure();
  Value sv = *stored;
  auto storedType = cast<RankedTensorType>(sv.getType());
  RankedTensorType joined = joinStateTypes((*g)->type, storedType);
  if (!joined)
    return emitError(l) << "unsupported store of " << sv.getType()
                        << " to attribute '" << path << "' of type "
                        << (*g)->type;
  if (joined != (*g)->type) {
    // Widened: the import is repeated with the bounding type (see
    // globalBoundingTypes); this store is left out meanwhile.
    RankedTensorType &w = widenedGlobals[path];
    w = w ? joinStateTypes(w, joined) : joined;
    if (!w)
      return emitError(l) << "unsupported store of " << sv.getType()
                          << " to attribute '" << path << "' of type "
                          << (*g)->type;
    return success();
  }
  sv = castToBoundingType(b, l, sv, (*g)->type);
  GlobalStoreOp::create(b, l, FlatSymbolRefAttr::get(ctx, (*g)->symbol), sv);
  return success();
}
