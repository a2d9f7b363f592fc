//===- GraphImporter.cpp - TorchScript graph -> ml_program ----------------===//
//
// Walks a (call-inlined) TorchScript graph and maps its structure onto
// ml_program: graph inputs become function arguments, module attributes
// become globals, prim::If/prim::Loop become scf.if/scf.for/scf.while (or
// are folded/unrolled when their condition or trip count is known and the
// body needs import-time values such as lists), lists and tuples are
// import-time sequences, and every aten op goes through the handler table of
// OpHandlers.cpp to the shared builders.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"

#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/Import/Common/Elementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"

#include <torch/csrc/jit/frontend/source_range.h>
#include <torch/csrc/jit/ir/constants.h>

#include <cmath>
#include <functional>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;
namespace jit = torch::jit;

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

Type mlprog::torchscript::convertScalarType(MLIRContext *ctx,
                                            c10::ScalarType type) {
  Builder b(ctx);
  switch (type) {
  case c10::ScalarType::Float:
    return b.getF32Type();
  case c10::ScalarType::Double:
    return b.getF64Type();
  case c10::ScalarType::Half:
    return b.getF16Type();
  case c10::ScalarType::BFloat16:
    return b.getBF16Type();
  case c10::ScalarType::Long:
    return b.getI64Type();
  case c10::ScalarType::Int:
    return b.getI32Type();
  case c10::ScalarType::Short:
    return b.getI16Type();
  case c10::ScalarType::Char:
    return b.getI8Type();
  case c10::ScalarType::Bool:
    return b.getI1Type();
  default:
    return Type();
  }
}

std::optional<c10::ScalarType> mlprog::torchscript::toScalarType(Type t) {
  if (t.isF32())
    return c10::ScalarType::Float;
  if (t.isF64())
    return c10::ScalarType::Double;
  if (t.isF16())
    return c10::ScalarType::Half;
  if (t.isBF16())
    return c10::ScalarType::BFloat16;
  if (t.isInteger(64))
    return c10::ScalarType::Long;
  if (t.isInteger(32))
    return c10::ScalarType::Int;
  if (t.isInteger(16))
    return c10::ScalarType::Short;
  if (t.isInteger(8))
    return c10::ScalarType::Char;
  if (t.isInteger(1))
    return c10::ScalarType::Bool;
  return std::nullopt;
}

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

static Type scalarMLIRType(MLIRContext *ctx, TSValue::Kind kind) {
  Builder b(ctx);
  switch (kind) {
  case TSValue::Kind::Int:
    return b.getI64Type();
  case TSValue::Kind::Float:
    return b.getF64Type();
  case TSValue::Kind::Bool:
    return b.getI1Type();
  default:
    return Type();
  }
}

//===----------------------------------------------------------------------===//
// Importer: values
//===----------------------------------------------------------------------===//

Importer::Importer(ModuleOp module, const TorchScriptImportOptions &options,
                   StringRef fileName)
    : b(module.getContext()), ctx(module.getContext()), module(module),
      options(options), fileName(fileName.str()),
      fileLoc(FileLineColLoc::get(module.getContext(), fileName, 0, 0)) {}

Location Importer::loc(Node *node) {
  std::string name;
  if (node->outputs().size() > 0 && node->output(0)->hasDebugName())
    name = "%" + node->output(0)->debugName();
  else
    name = node->kind().toQualString();
  try {
    if (auto flc = node->sourceRange().file_line_col()) {
      auto [file, line, col] = *flc;
      if (!file.empty())
        return NameLoc::get(
            StringAttr::get(ctx, name),
            FileLineColLoc::get(ctx, file, unsigned(line), unsigned(col) + 1));
    }
  } catch (const std::exception &) {
    // A source range without text: fall back to the value name.
  }
  return NameLoc::get(StringAttr::get(ctx, name), fileLoc);
}

TSValue &Importer::get(jit::Value *v) { return values[v]; }

LogicalResult Importer::set(Node *node, unsigned i, TSValue value) {
  values[node->output(i)] = std::move(value);
  return success();
}

LogicalResult Importer::setTensor(Node *node, unsigned i,
                                  FailureOr<Value> value) {
  if (failed(value))
    return failure();
  return set(node, i, TSValue::tensor(*value));
}

LogicalResult Importer::unsupported(Node *node, const Twine &what) {
  return emitError(loc(node)) << "unsupported " << what;
}

Value Importer::scalarValue(const TSValue &v, Location l) {
  if (v.value)
    return v.value;
  if (v.intConst)
    return arith::ConstantOp::create(b, l, b.getI64IntegerAttr(*v.intConst));
  if (v.floatConst)
    return arith::ConstantOp::create(b, l, b.getF64FloatAttr(*v.floatConst));
  if (v.boolConst)
    return arith::ConstantOp::create(b, l, b.getBoolAttr(*v.boolConst));
  return Value();
}

Value Importer::scalarAs(const TSValue &v, Type type, Location l) {
  if (!v.value) {
    if (std::optional<double> d = v.asDouble()) {
      if (isa<FloatType>(type))
        return arith::ConstantOp::create(b, l, b.getFloatAttr(type, *d));
      if (type.isInteger(1))
        return arith::ConstantOp::create(b, l, b.getBoolAttr(*d != 0));
      if (v.floatConst) // float -> int truncates toward zero
        return arith::ConstantOp::create(
            b, l, b.getIntegerAttr(type, int64_t(std::trunc(*d))));
      return arith::ConstantOp::create(
          b, l, b.getIntegerAttr(type, v.intConst ? *v.intConst : int64_t(*d)));
    }
  }
  Value s = scalarValue(v, l);
  return s ? buildConvertScalar(b, l, s, type) : Value();
}

FailureOr<Value> Importer::asTensor(const TSValue &v, Location l) {
  if (v.isTensor())
    return v.value;
  if (v.isScalar()) {
    Value s = scalarValue(v, l);
    return tensor::FromElementsOp::create(
               b, l, RankedTensorType::get({}, s.getType()), s)
        .getResult();
  }
  return emitError(l) << "expected a tensor or number";
}

FailureOr<Value> Importer::tensorOf(const TSValue &v, Type et, Location l) {
  if (v.isTensor())
    return buildConvertElementType(b, l, v.value, et);
  if (v.isScalar()) {
    Value s = scalarAs(v, et, l);
    return tensor::FromElementsOp::create(b, l, RankedTensorType::get({}, et),
                                          s)
        .getResult();
  }
  return emitError(l) << "expected a tensor or number";
}

/// Category of an element type for promotion: 0 bool, 1 int, 2 float.
static int category(Type t) {
  if (t.isInteger(1))
    return 0;
  return isa<FloatType>(t) ? 2 : 1;
}

Type Importer::promote(ArrayRef<const TSValue *> operands) {
  // Three tiers: dimensioned tensors, zero-dim tensors, scalars.
  Type tiers[3];
  auto combine = [](Type a, Type bt) -> Type {
    if (!a)
      return bt;
    int ca = category(a), cb = category(bt);
    if (ca != cb)
      return ca > cb ? a : bt;
    return a.getIntOrFloatBitWidth() >= bt.getIntOrFloatBitWidth() ? a : bt;
  };
  for (const TSValue *v : operands) {
    if (v->isTensor()) {
      auto t = cast<RankedTensorType>(v->value.getType());
      int tier = v->wrappedNumber ? 2 : t.getRank() == 0 ? 1 : 0;
      Type et = t.getElementType();
      if (v->wrappedNumber) // wrapped numbers count as int64/double/bool
        et = category(et) == 2   ? Type(b.getF64Type())
             : category(et) == 1 ? Type(b.getI64Type())
                                 : Type(b.getI1Type());
      tiers[tier] = combine(tiers[tier], et);
    } else if (v->kind == TSValue::Kind::Int) {
      tiers[2] = combine(tiers[2], b.getI64Type());
    } else if (v->kind == TSValue::Kind::Float) {
      tiers[2] = combine(tiers[2], b.getF64Type());
    } else if (v->kind == TSValue::Kind::Bool) {
      tiers[2] = combine(tiers[2], b.getI1Type());
    }
  }
  Type result;
  for (int tier = 0; tier < 3; ++tier) {
    Type t = tiers[tier];
    if (!t)
      continue;
    if (!result) {
      // Only dimensioned/zero-dim tensors fix the width; a lone scalar tier
      // gives the default dtypes (float32 for floats).
      result = tier == 2 && category(t) == 2 ? Type(b.getF32Type()) : t;
      continue;
    }
    if (category(t) > category(result))
      result = category(t) == 2 ? (tier == 2 ? Type(b.getF32Type()) : t)
                                : (tier == 2 ? Type(b.getI64Type()) : t);
  }
  return result ? result : Type(b.getF32Type());
}

FailureOr<Value> Importer::tensorInput(Node *node, unsigned i) {
  TSValue &v = get(node->input(i));
  if (!v.isTensor() && !v.isScalar())
    return emitError(loc(node)) << "expected a tensor for argument " << i
                                << " of " << node->kind().toQualString();
  return asTensor(v, loc(node));
}

FailureOr<int64_t> Importer::intInput(Node *node, unsigned i) {
  TSValue &v = get(node->input(i));
  if (v.intConst)
    return *v.intConst;
  if (v.boolConst)
    return int64_t(*v.boolConst);
  return emitError(loc(node)) << "unsupported non-constant int argument " << i
                              << " of " << node->kind().toQualString();
}

FailureOr<double> Importer::numberInput(Node *node, unsigned i) {
  TSValue &v = get(node->input(i));
  if (std::optional<double> d = v.asDouble())
    return *d;
  return emitError(loc(node)) << "unsupported non-constant number argument "
                              << i << " of " << node->kind().toQualString();
}

FailureOr<bool> Importer::boolInput(Node *node, unsigned i) {
  TSValue &v = get(node->input(i));
  if (v.boolConst)
    return *v.boolConst;
  if (v.intConst)
    return *v.intConst != 0;
  return emitError(loc(node)) << "unsupported non-constant bool argument " << i
                              << " of " << node->kind().toQualString();
}

FailureOr<SmallVector<int64_t>> Importer::intListInput(Node *node, unsigned i) {
  TSValue &v = get(node->input(i));
  SmallVector<int64_t> result;
  if (v.intConst) {
    result.push_back(*v.intConst);
    return result;
  }
  if (v.elems) {
    for (const TSValue &e : *v.elems) {
      if (!e.intConst)
        return emitError(loc(node))
               << "unsupported non-constant int list argument " << i << " of "
               << node->kind().toQualString();
      result.push_back(*e.intConst);
    }
    return result;
  }
  return emitError(loc(node)) << "expected an int list for argument " << i
                              << " of " << node->kind().toQualString();
}

FailureOr<std::vector<TSValue>> Importer::listInput(Node *node, unsigned i) {
  TSValue &v = get(node->input(i));
  if (!v.elems)
    return emitError(loc(node)) << "expected a list for argument " << i
                                << " of " << node->kind().toQualString();
  return *v.elems;
}

bool Importer::isNoneInput(Node *node, unsigned i) {
  return i >= node->inputs().size() || get(node->input(i)).isNone();
}

FailureOr<Type> Importer::dtypeInput(Node *node, unsigned i) {
  if (isNoneInput(node, i))
    return Type();
  FailureOr<int64_t> d = intInput(node, i);
  if (failed(d))
    return failure();
  Type t = convertScalarType(ctx, c10::ScalarType(*d));
  if (!t)
    return emitError(loc(node))
           << "unsupported dtype " << c10::toString(c10::ScalarType(*d));
  return t;
}

//===----------------------------------------------------------------------===//
// Importer: globals and constants
//===----------------------------------------------------------------------===//

std::string Importer::uniqueSymbol(StringRef name) {
  std::string base;
  for (char c : name)
    base += llvm::isAlnum(c) || c == '_' || c == '.' ? c : '_';
  if (base.empty() || !(llvm::isAlpha(base[0]) || base[0] == '_'))
    base = "_" + base;
  std::string symbol = base;
  for (unsigned i = 1; !symbols.insert(symbol).second; ++i)
    symbol = base + "_" + std::to_string(i);
  return symbol;
}

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
  if (attr->getNumElements() <= options.maxInlineConstantElements)
    return TSValue::tensor(arith::ConstantOp::create(b, l, *attr));
  // Large constants (the weights of frozen modules) become immutable
  // globals.
  std::string symbol;
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(module.getBody());
    symbol = uniqueSymbol(name.empty() ? "constant" : name);
    GlobalOp::create(b, l, symbol, attr->getType(), /*is_mutable=*/false, *attr,
                     b.getStringAttr("private"));
  }
  return TSValue::tensor(GlobalLoadConstOp::create(
      b, l, attr->getType(), FlatSymbolRefAttr::get(ctx, symbol)));
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
  info.symbol = uniqueSymbol(path);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  GlobalOp::create(b, l, info.symbol, info.type, info.isMutable, init,
                   b.getStringAttr("private"));
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
  if (sv.getType() != (*g)->type) {
    if (!tensor::CastOp::areCastCompatible(sv.getType(), (*g)->type))
      return emitError(l) << "unsupported store of " << sv.getType()
                          << " to attribute '" << path << "' of type "
                          << (*g)->type;
    sv = tensor::CastOp::create(b, l, (*g)->type, sv);
  }
  GlobalStoreOp::create(b, l, FlatSymbolRefAttr::get(ctx, (*g)->symbol), sv);
  return success();
}

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

/// True when output 0 of `node` aliases one of its inputs (a view).
static bool isView(Node *node) {
  const c10::FunctionSchema *schema = node->maybeSchema();
  if (!schema || schema->returns().empty())
    return false;
  const c10::AliasInfo *info = schema->returns()[0].alias_info();
  return info && !info->isWrite();
}

LogicalResult Importer::importInPlace(Node *node, OpHandler handler) {
  Location l = loc(node);
  jit::Value *self = node->input(0);
  std::string name = node->kind().toQualString();
  // Value semantics are only sound when no other value shares the mutated
  // storage: `self` must not be a view, nor have live views.
  if (isView(self->node()))
    return emitError(l) << "unsupported in-place op '" << name
                        << "' on a view of another tensor (aliasing cannot "
                           "be resolved)";
  for (const jit::Use &use : self->uses()) {
    if (use.user == node || !isView(use.user))
      continue;
    for (const jit::Use &viewUse : use.user->output()->uses())
      if (viewUse.user->isAfter(node))
        return emitError(l) << "unsupported in-place op '" << name
                            << "' on a tensor whose view is used afterwards "
                               "(aliasing cannot be resolved)";
  }
  TSValue &current = get(self);
  if (current.isTensor() &&
      current.value.getParentRegion() != b.getInsertionBlock()->getParent())
    return emitError(l) << "unsupported in-place op '" << name
                        << "' inside a loop or branch on a tensor defined "
                           "outside it";
  if (failed(handler(*this, node)))
    return failure();
  TSValue result = get(node->output(0));
  if (!result.isTensor())
    return failure();
  // Keep the dtype of `self` (in-place results do not promote).
  Type et = getElementTypeOrSelf(current.value.getType());
  if (getElementTypeOrSelf(result.value.getType()) != et) {
    FailureOr<Value> c = buildConvertElementType(b, l, result.value, et);
    if (failed(c))
      return failure();
    result.value = *c;
    set(node, 0, result);
  }
  values[self] = result;
  return writeBack(self, result.value, l);
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

  const llvm::StringMap<OpHandler> &handlers = getOpHandlers();
  std::string qual = kind.toQualString();
  std::string overload;
  if (const c10::FunctionSchema *schema = node->maybeSchema())
    overload = schema->overload_name();
  auto find = [&](const std::string &base) -> OpHandler {
    if (!overload.empty()) {
      auto it = handlers.find(base + "." + overload);
      if (it != handlers.end())
        return it->second;
    }
    // An out= overload also writes its result into an operand; the
    // functional handler would drop that write.
    if (overload == "out")
      return nullptr;
    auto it = handlers.find(base);
    return it == handlers.end() ? nullptr : it->second;
  };
  if (OpHandler h = find(qual))
    return h(*this, node);
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
  if (index < options.inputShapes.size() &&
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
  if (index < options.inputDtypes.size() &&
      !options.inputDtypes[index].empty()) {
    et = parseDtype(ctx, options.inputDtypes[index]);
    if (!et)
      return emitError(l) << "unknown dtype '" << options.inputDtypes[index]
                          << "' in --input-dtypes";
  } else if (tt->scalarType()) {
    et = convertScalarType(ctx, *tt->scalarType());
    if (!et)
      return emitError(l) << "unsupported input dtype "
                          << c10::toString(*tt->scalarType());
  } else {
    et = b.getF32Type();
  }
  return Type(RankedTensorType::get(*shape, et));
}

TSValue Importer::argumentValue(const c10::TypePtr &type, Value arg) {
  TSValue::Kind sk = scalarKind(type);
  if (sk == TSValue::Kind::None)
    return TSValue::tensor(arg);
  Value s = tensor::ExtractOp::create(b, arg.getLoc(), arg, ValueRange{});
  return TSValue::scalar(sk, s);
}

LogicalResult
Importer::importGraph(jit::Graph &graph, StringRef name,
                      c10::intrusive_ptr<c10::ivalue::Object> self) {
  auto inputs = graph.inputs();
  size_t first = 0;
  if (self && !inputs.empty() &&
      inputs[0]->type()->kind() == c10::TypeKind::ClassType) {
    objectOf[inputs[0]] = self;
    TSValue t;
    t.kind = TSValue::Kind::Object;
    t.object = self;
    values[inputs[0]] = t;
    first = 1;
  }
  collectWrites(graph.block());
  // Tuple inputs are flattened into one argument per tensor or number.
  SmallVector<Type> argTypes;
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
  if (!options.inputShapes.empty() &&
      options.inputShapes.size() != argTypes.size())
    return emitError(fileLoc)
           << "--input-shapes lists " << options.inputShapes.size()
           << " shapes but method '" << name << "' has " << argTypes.size()
           << " tensor inputs";
  b.setInsertionPointToEnd(module.getBody());
  symbols.insert(name);
  auto func = FuncOp::create(
      b, NameLoc::get(StringAttr::get(ctx, name), fileLoc), name,
      b.getFunctionType(argTypes, {}), nullptr, nullptr, nullptr);
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
  if (failed(importBlock(graph.block())))
    return failure();
  SmallVector<Value> results;
  for (jit::Value *out : graph.outputs()) {
    TSValue &v = get(out);
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
  func.setFunctionTypeAttr(
      TypeAttr::get(b.getFunctionType(argTypes, resultTypes)));
  return success();
}
