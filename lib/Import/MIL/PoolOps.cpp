//===- PoolOps.cpp - MIL pooling ops --------------------------------------===//
//
// max_pool, avg_pool and l2_pool.
//
// Handlers read the op's named arguments and compile-time parameters
// (supplying the MIL spec defaults, iOS15+ semantics) and call the shared
// builders in mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"
#include "Importer.h"

#include "mlprog/Import/Common/Conv.h"
#include "mlprog/Import/Common/Pool.h"

using namespace mlir;

namespace mlprog::mil_import {
namespace {

LogicalResult importMaxPool(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<SmallVector<int64_t>> kernel = ctx.getInts("kernel_sizes");
  FailureOr<bool> ceilMode = ctx.getBool("ceil_mode", false);
  if (failed(x) || failed(kernel) || failed(ceilMode))
    return failure();
  FailureOr<WindowParams> params =
      getWindowParams(ctx, *x, *kernel, /*hasDilations=*/false);
  if (failed(params))
    return failure();
  return ctx.setResult(
      0, buildMaxPool(ctx.b, ctx.loc, *x, *kernel, *params, *ceilMode));
}

LogicalResult importAvgPool(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<SmallVector<int64_t>> kernel = ctx.getInts("kernel_sizes");
  FailureOr<bool> ceilMode = ctx.getBool("ceil_mode", false);
  FailureOr<bool> exclude = ctx.getBool("exclude_padding_from_average", false);
  if (failed(x) || failed(kernel) || failed(ceilMode) || failed(exclude))
    return failure();
  FailureOr<WindowParams> params =
      getWindowParams(ctx, *x, *kernel, /*hasDilations=*/false);
  if (failed(params))
    return failure();
  return ctx.setResult(0, buildAveragePool(ctx.b, ctx.loc, *x, *kernel, *params,
                                           *ceilMode, !*exclude));
}

/// l2_pool(x, kernel_sizes, strides, pad_type, pad, ceil_mode = False):
/// the square root of the window's sum of squares, padding counting 0.
LogicalResult importL2Pool(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<SmallVector<int64_t>> kernel = ctx.getInts("kernel_sizes");
  FailureOr<bool> ceilMode = ctx.getBool("ceil_mode", false);
  if (failed(x) || failed(kernel) || failed(ceilMode))
    return failure();
  FailureOr<WindowParams> params =
      getWindowParams(ctx, *x, *kernel, /*hasDilations=*/false);
  if (failed(params))
    return failure();
  return ctx.setResult(0, buildLpPool(ctx.b, ctx.loc, *x, *kernel, *params,
                                      *ceilMode, /*p=*/2.0));
}

} // namespace

void registerPoolOps(OpTable &table) {
  table.add({
      {"avg_pool", importAvgPool},
      {"l2_pool", importL2Pool},
      {"max_pool", importMaxPool},
  });
}

} // namespace mlprog::mil_import
