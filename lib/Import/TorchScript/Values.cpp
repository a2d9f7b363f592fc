//===- Values.cpp - TorchScript values, dtypes, promotion -----------------===//
//
// The import-time values of a TorchScript graph (TSValue): dtype conversion,
// reading node inputs as tensors, scalars and lists, materializing scalars,
// and torch's type promotion.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"

#include "mlprog/Import/Common/Elementwise.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Diagnostics.h"

#include <torch/csrc/jit/frontend/source_range.h>

#include <cmath>

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
  // uint8 is a signless i8 too; handlers that read it as a number check
  // the JIT type (isUint8).
  case c10::ScalarType::Byte:
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

Type mlprog::torchscript::scalarMLIRType(MLIRContext *ctx, TSValue::Kind kind) {
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
