//===- LogicOps.cpp - aten comparisons, logic, where ----------------------===//
//
// Comparisons, logical and bitwise boolean ops, `where` and `masked_fill`.
//
// One handler per aten op (overloads told apart by the node's schema): it
// reads the arguments at the schema's positions, applies torch's type
// promotion, and calls the shared builders in mlprog/Import/Common.
// Semantics belong in the builders, not here.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "HandlerUtils.h"

#include "mlprog/Import/Common/Logic.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

template <CompareKind K> LogicalResult compare(Im &im, Node *n) {
  FailureOr<std::pair<Value, Value>> xy = promotedPair(im, n);
  if (failed(xy))
    return failure();
  return im.setTensor(n, 0,
                      buildCompare(im.b, im.loc(n), K, xy->first, xy->second));
}

template <LogicalKind K> LogicalResult logical(Im &im, Node *n) {
  Location l = im.loc(n);
  Type i1 = im.b.getI1Type();
  FailureOr<Value> x = im.tensorOf(im.get(n->input(0)), i1, l);
  FailureOr<Value> y = im.tensorOf(im.get(n->input(1)), i1, l);
  if (failed(x) || failed(y))
    return failure();
  return im.setTensor(n, 0, buildLogical(im.b, l, K, *x, *y));
}

LogicalResult logicalNot(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorOf(im.get(n->input(0)), im.b.getI1Type(), l);
  if (failed(x))
    return failure();
  return im.setTensor(n, 0, buildLogicalNot(im.b, l, *x));
}

/// bitwise_and/or/xor and `&`, `|`, `^` on tensors: bitwise on the
/// promoted integer (or bool) dtype.
template <LogicalKind K> LogicalResult bitwise(Im &im, Node *n) {
  FailureOr<std::pair<Value, Value>> xy = promotedPair(im, n);
  if (failed(xy))
    return failure();
  if (!elemOf(xy->first).isSignlessInteger())
    return emitError(im.loc(n))
           << n->kind().toQualString() << " needs integer or bool operands, "
           << "got " << xy->first.getType();
  return im.setTensor(n, 0,
                      buildBitwise(im.b, im.loc(n), K, xy->first, xy->second));
}

/// bitwise_not: `not` on bool, the complement on integers.
LogicalResult bitwiseNot(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  if (failed(x))
    return failure();
  if (!elemOf(*x).isSignlessInteger())
    return emitError(im.loc(n))
           << "bitwise_not needs an integer or bool tensor, got "
           << x->getType();
  return im.setTensor(n, 0, buildBitwiseNot(im.b, im.loc(n), *x));
}

LogicalResult where(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> c = im.tensorOf(im.get(n->input(0)), im.b.getI1Type(), l);
  const TSValue &a = im.get(n->input(1)), &bv = im.get(n->input(2));
  Type et = im.promote({&a, &bv});
  FailureOr<Value> x = im.tensorOf(a, et, l), y = im.tensorOf(bv, et, l);
  if (failed(c) || failed(x) || failed(y))
    return failure();
  return im.setTensor(n, 0, buildSelect(im.b, l, *c, *x, *y));
}

LogicalResult maskedFill(Im &im, Node *n) {
  Location l = im.loc(n);
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<Value> m = im.tensorOf(im.get(n->input(1)), im.b.getI1Type(), l);
  if (failed(x) || failed(m))
    return failure();
  FailureOr<Value> v = im.tensorOf(im.get(n->input(2)), elemOf(*x), l);
  if (failed(v))
    return failure();
  return im.setTensor(n, 0, buildSelect(im.b, l, *m, *v, *x));
}

} // namespace

void mlprog::torchscript::registerLogicOps(OpTable &table) {
  table.add({
      {"aten::eq", compare<CompareKind::Equal>},
      {"aten::ne", compare<CompareKind::NotEqual>},
      {"aten::lt", compare<CompareKind::Less>},
      {"aten::le", compare<CompareKind::LessEqual>},
      {"aten::gt", compare<CompareKind::Greater>},
      {"aten::ge", compare<CompareKind::GreaterEqual>},
      {"aten::logical_and", logical<LogicalKind::And>},
      {"aten::logical_or", logical<LogicalKind::Or>},
      {"aten::logical_xor", logical<LogicalKind::Xor>},
      {"aten::logical_not", logicalNot},
      {"aten::__and__", bitwise<LogicalKind::And>},
      {"aten::__or__", bitwise<LogicalKind::Or>},
      {"aten::__xor__", bitwise<LogicalKind::Xor>},
      {"aten::bitwise_and", bitwise<LogicalKind::And>},
      {"aten::bitwise_or", bitwise<LogicalKind::Or>},
      {"aten::bitwise_xor", bitwise<LogicalKind::Xor>},
      {"aten::bitwise_not", bitwiseNot},
      {"aten::where.self", where},
      {"aten::where.ScalarSelf", where},
      {"aten::where.ScalarOther", where},
      {"aten::where.Scalar", where},
      {"aten::masked_fill", maskedFill},
  });
}
