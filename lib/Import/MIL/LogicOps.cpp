//===- LogicOps.cpp - MIL comparisons, logic, select ----------------------===//
//
// Comparisons, logical ops and select.
//
// Handlers read the op's named arguments and compile-time parameters
// (supplying the MIL spec defaults, iOS15+ semantics) and call the shared
// builders in mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlprog/Import/Common/Logic.h"

using namespace mlir;

namespace mlprog::mil_import {
namespace {

template <CompareKind Kind> LogicalResult importCompare(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), y = ctx.input("y");
  if (failed(x) || failed(y))
    return failure();
  return ctx.setResult(0, buildCompare(ctx.b, ctx.loc, Kind, *x, *y));
}

template <LogicalKind Kind> LogicalResult importLogical(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), y = ctx.input("y");
  if (failed(x) || failed(y))
    return failure();
  return ctx.setResult(0, buildLogical(ctx.b, ctx.loc, Kind, *x, *y));
}

LogicalResult importLogicalNot(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildLogicalNot(ctx.b, ctx.loc, *x));
}

LogicalResult importSelect(OpContext &ctx) {
  FailureOr<Value> cond = ctx.input("cond"), a = ctx.input("a"),
                   b = ctx.input("b");
  if (failed(cond) || failed(a) || failed(b))
    return failure();
  return ctx.setResult(0, buildSelect(ctx.b, ctx.loc, *cond, *a, *b));
}

} // namespace

void registerLogicOps(OpTable &table) {
  table.add({
      {"equal", importCompare<CompareKind::Equal>},
      {"greater", importCompare<CompareKind::Greater>},
      {"greater_equal", importCompare<CompareKind::GreaterEqual>},
      {"less", importCompare<CompareKind::Less>},
      {"less_equal", importCompare<CompareKind::LessEqual>},
      {"logical_and", importLogical<LogicalKind::And>},
      {"logical_not", importLogicalNot},
      {"logical_or", importLogical<LogicalKind::Or>},
      {"logical_xor", importLogical<LogicalKind::Xor>},
      {"not_equal", importCompare<CompareKind::NotEqual>},
      {"select", importSelect},
  });
}

} // namespace mlprog::mil_import
