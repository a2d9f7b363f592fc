//===- ConstantFolding.cpp - Import-time evaluation of size arithmetic ----===//
//
// A traced graph computes with sizes through zero-dim tensors:
// `prim::NumToTensor(aten::size(x, 2))`, then `aten::remainder`,
// `aten::rsub`, ... and back to a number with `aten::Int` (torchvision's
// swin_t computes its window padding so). When every input of such an aten
// node is known at import time, the node is run by the linked libtorch's own
// kernel (its JIT operation, as torch's constant propagation does) and its
// results become constants: the padding, and every extent that follows
// from it, stays static.
//
// Only zero-dim tensors are folded (the scalar arithmetic of traced
// graphs); computations on whole tensors are left to the op handlers.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <ATen/ATen.h>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;
namespace jit = torch::jit;

/// The value of `v` as a zero-dim CPU tensor when `v` is a zero-dim tensor
/// whose element is a constant (an `arith.constant` splat, or a
/// `tensor.from_elements` of one); nothing otherwise.
static std::optional<at::Tensor> constantZeroDimTensor(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || type.getRank() != 0)
    return std::nullopt;
  std::optional<c10::ScalarType> dtype = toScalarType(type.getElementType());
  if (!dtype)
    return std::nullopt;
  Value source = v;
  if (auto fromElements = v.getDefiningOp<tensor::FromElementsOp>())
    source = fromElements.getElements()[0];
  Attribute attr;
  if (!matchPattern(source, m_Constant(&attr)))
    return std::nullopt;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr))
    attr = dense.getSplatValue<Attribute>();
  auto options = at::TensorOptions().dtype(*dtype);
  if (auto integer = dyn_cast<IntegerAttr>(attr)) {
    if (type.getElementType().isInteger(1))
      return at::scalar_tensor(c10::Scalar(!integer.getValue().isZero()),
                               options);
    return at::scalar_tensor(
        c10::Scalar(int64_t(integer.getValue().getSExtValue())), options);
  }
  if (auto real = dyn_cast<FloatAttr>(attr))
    return at::scalar_tensor(c10::Scalar(real.getValueAsDouble()), options);
  return std::nullopt;
}

/// The import-time value of `v` as an interpreter value, when it is known
/// and of a kind the folder takes (zero-dim constant tensors, known
/// numbers, None, strings).
static std::optional<c10::IValue> knownIValue(const TSValue &v) {
  switch (v.kind) {
  case TSValue::Kind::None:
    return c10::IValue();
  case TSValue::Kind::Int:
    if (v.intConst)
      return c10::IValue(*v.intConst);
    return std::nullopt;
  case TSValue::Kind::Float:
    if (v.floatConst)
      return c10::IValue(*v.floatConst);
    return std::nullopt;
  case TSValue::Kind::Bool:
    if (v.boolConst)
      return c10::IValue(*v.boolConst);
    return std::nullopt;
  case TSValue::Kind::Str:
    return c10::IValue(v.str);
  case TSValue::Kind::Tensor: {
    std::optional<at::Tensor> t = constantZeroDimTensor(v.value);
    if (!t)
      return std::nullopt;
    if (v.wrappedNumber)
      t->unsafeGetTensorImpl()->set_wrapped_number(true);
    return c10::IValue(*t);
  }
  default:
    return std::nullopt;
  }
}

LogicalResult Importer::foldZeroDimNode(Node *node, bool &handled) {
  handled = false;
  if (!node->kind().is_aten() || node->isNondeterministic())
    return success();
  const c10::FunctionSchema *schema = node->maybeSchema();
  if (!schema || schema->is_mutable() || node->outputs().empty())
    return success();
  bool anyTensor = false;
  torch::jit::Stack stack;
  for (jit::Value *in : node->inputs()) {
    const TSValue &v = get(in);
    anyTensor |= v.isTensor();
    std::optional<c10::IValue> iv = knownIValue(v);
    if (!iv)
      return success();
    stack.push_back(std::move(*iv));
  }
  if (!anyTensor)
    return success();
  for (jit::Value *out : node->outputs()) {
    c10::TypeKind k = out->type()->kind();
    if (k != c10::TypeKind::TensorType && k != c10::TypeKind::IntType &&
        k != c10::TypeKind::FloatType && k != c10::TypeKind::BoolType)
      return success();
  }
  // The kernel may reject the arguments (the handler then reports it with
  // a location) or have none on the CPU: not folded either way.
  try {
    jit::Operation op = node->getOperation();
    op(stack);
  } catch (const std::exception &) {
    return success();
  }
  if (stack.size() != node->outputs().size())
    return success();
  for (const c10::IValue &iv : stack)
    if (!(iv.isInt() || iv.isDouble() || iv.isBool() ||
          (iv.isTensor() && iv.toTensor().dim() == 0 &&
           convertScalarType(ctx, iv.toTensor().scalar_type()))))
      return success();
  handled = true;
  Location l = loc(node);
  for (auto [i, iv] : llvm::enumerate(stack)) {
    TSValue r;
    if (iv.isInt()) {
      r = TSValue::ofInt(iv.toInt());
    } else if (iv.isDouble()) {
      r = TSValue::ofFloat(iv.toDouble());
    } else if (iv.isBool()) {
      r = TSValue::ofBool(iv.toBool());
    } else {
      FailureOr<TSValue> t = tensorConstant(iv.toTensor(), l, "");
      if (failed(t))
        return failure();
      r = *t;
    }
    if (failed(set(node, i, r)))
      return failure();
  }
  return success();
}
