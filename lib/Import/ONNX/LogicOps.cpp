//===- LogicOps.cpp - ONNX comparisons, logic and predicates --------------===//
//
// Handlers for comparisons (Equal, Less, ...), logical ops (And, Or, Xor,
// Not), Where and the IsNaN/IsInf predicates.
//
// Handlers only read operands and attributes (with the ONNX operator spec's
// defaults for the model's opset) and call the shared builders in
// mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"
#include "NodeContext.h"

#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Logic.h"

using namespace mlir;

namespace mlprog::onnx_import {

namespace {

/// Equal, Less, LessOrEqual, Greater, GreaterOrEqual (opset 7+
/// broadcasting; integers compare unsigned for unsigned ONNX types).
/// A comparison of two one-element integer constants (the rank and shape
/// tests of exported function bodies), or null.
template <CompareKind Kind> DenseElementsAttr foldIntCompare(NodeContext &ctx) {
  DenseElementsAttr l = ctx.optionalConstantInput(0),
                    r = ctx.optionalConstantInput(1);
  if (!l || !r || l.getNumElements() != 1 || r.getNumElements() != 1 ||
      l.getElementType() != r.getElementType() ||
      !l.getElementType().isSignlessInteger() || ctx.isUnsignedInput(0))
    return {};
  int64_t a = (*l.getValues<APInt>().begin()).getSExtValue();
  int64_t c = (*r.getValues<APInt>().begin()).getSExtValue();
  bool v = Kind == CompareKind::Equal          ? a == c
           : Kind == CompareKind::Greater      ? a > c
           : Kind == CompareKind::GreaterEqual ? a >= c
           : Kind == CompareKind::Less         ? a < c
           : Kind == CompareKind::LessEqual    ? a <= c
                                               : a != c;
  auto lt = cast<RankedTensorType>(l.getType()),
       rt = cast<RankedTensorType>(r.getType());
  auto shape = lt.getRank() >= rt.getRank() ? lt.getShape() : rt.getShape();
  return DenseElementsAttr::get(
      RankedTensorType::get(shape, IntegerType::get(l.getContext(), 1)), v);
}

template <CompareKind Kind> LogicalResult importCompare(NodeContext &ctx) {
  FailureOr<Value> lhs = ctx.input(0), rhs = ctx.input(1);
  if (failed(lhs) || failed(rhs))
    return failure();
  if (DenseElementsAttr folded = foldIntCompare<Kind>(ctx))
    return setFolded(ctx, 0, folded);
  return ctx.setResult(0, buildCompare(ctx.b, ctx.loc, Kind, *lhs, *rhs,
                                       ctx.isUnsignedInput(0)));
}

/// And, Or, Xor on bool tensors (opset 7+ broadcasting); with `Bitwise`
/// BitwiseAnd, BitwiseOr, BitwiseXor (opset 18) on integer tensors.
template <LogicalKind Kind, bool Bitwise = false>
LogicalResult importLogical(NodeContext &ctx) {
  FailureOr<Value> lhs = ctx.input(0), rhs = ctx.input(1);
  if (failed(lhs) || failed(rhs))
    return failure();
  return ctx.setResult(0, Bitwise
                              ? buildBitwise(ctx.b, ctx.loc, Kind, *lhs, *rhs)
                              : buildLogical(ctx.b, ctx.loc, Kind, *lhs, *rhs));
}

/// Not on a bool tensor.
LogicalResult importNot(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  // A known condition stays known (torch's `if x.numel() != 0` exports
  // Not(Equal(Size(x), 0)), which decides an If at import).
  DenseElementsAttr c = ctx.optionalConstantInput(0);
  if (foldable(c) && c.getElementType().isInteger(1) &&
      c.getNumElements() <= kFoldLimit) {
    SmallVector<bool> out;
    for (bool v : c.getValues<bool>())
      out.push_back(!v);
    return setFolded(ctx, 0, DenseElementsAttr::get(c.getType(), out));
  }
  return ctx.setResult(0, buildLogicalNot(ctx.b, ctx.loc, *x));
}

/// BitwiseNot (opset 18) on an integer tensor.
LogicalResult importBitwiseNot(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildBitwiseNot(ctx.b, ctx.loc, *x));
}

/// Where (opset 9+; three-way broadcasting).
LogicalResult importWhere(NodeContext &ctx) {
  FailureOr<Value> c = ctx.input(0), x = ctx.input(1), y = ctx.input(2);
  if (failed(c) || failed(x) || failed(y))
    return failure();
  return ctx.setResult(0, buildSelect(ctx.b, ctx.loc, *c, *x, *y));
}

/// IsNaN (opset 9+).
LogicalResult importIsNaN(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildIsNaN(ctx.b, ctx.loc, *x));
}

/// IsInf (opset 10+; detect_positive = detect_negative = 1 by default).
LogicalResult importIsInf(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildIsInf(ctx.b, ctx.loc, *x,
                                     ctx.getInt("detect_positive", 1),
                                     ctx.getInt("detect_negative", 1)));
}

} // namespace

void registerLogicOps(OpTable &table) {
  table.add({
      {"And", importLogical<LogicalKind::And>},
      {"BitwiseAnd", importLogical<LogicalKind::And, true>},
      {"BitwiseNot", importBitwiseNot},
      {"BitwiseOr", importLogical<LogicalKind::Or, true>},
      {"BitwiseXor", importLogical<LogicalKind::Xor, true>},
      {"Equal", importCompare<CompareKind::Equal>},
      {"Greater", importCompare<CompareKind::Greater>},
      {"GreaterOrEqual", importCompare<CompareKind::GreaterEqual>},
      {"IsInf", importIsInf},
      {"IsNaN", importIsNaN},
      {"Less", importCompare<CompareKind::Less>},
      {"LessOrEqual", importCompare<CompareKind::LessEqual>},
      {"Not", importNot},
      {"Or", importLogical<LogicalKind::Or>},
      {"Where", importWhere},
      {"Xor", importLogical<LogicalKind::Xor>},
  });
}

} // namespace mlprog::onnx_import
