//===- ReductionOps.cpp - MIL reductions and softmax ----------------------===//
//
// The reduce_* ops and softmax.
//
// Handlers read the op's named arguments and compile-time parameters
// (supplying the MIL spec defaults, iOS15+ semantics) and call the shared
// builders in mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlprog/Import/Common/Reduction.h"

using namespace mlir;

namespace mlprog::mil_import {
namespace {

LogicalResult importSoftmax(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<int64_t> axis = ctx.getInt("axis", -1);
  if (failed(x) || failed(axis))
    return failure();
  return ctx.setResult(0, buildSoftmax(ctx.b, ctx.loc, *x, {*axis}));
}

template <ReduceKind Kind> LogicalResult importReduce(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<SmallVector<int64_t>> axes =
      ctx.getInts("axes", SmallVector<int64_t>());
  FailureOr<bool> keepDims = ctx.getBool("keep_dims", false);
  if (failed(x) || failed(axes) || failed(keepDims))
    return failure();
  return ctx.setResult(0,
                       buildReduce(ctx.b, ctx.loc, Kind, *x, *axes, *keepDims));
}

} // namespace

void registerReductionOps(OpTable &table) {
  table.add({
      {"reduce_max", importReduce<ReduceKind::Max>},
      {"reduce_mean", importReduce<ReduceKind::Mean>},
      {"reduce_min", importReduce<ReduceKind::Min>},
      {"reduce_prod", importReduce<ReduceKind::Prod>},
      {"reduce_sum", importReduce<ReduceKind::Sum>},
      {"softmax", importSoftmax},
  });
}

} // namespace mlprog::mil_import
