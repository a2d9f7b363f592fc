//===- ResampleOps.cpp - MIL upsampling -----------------------------------===//
//
// upsample_nearest_neighbor.
//
// Handlers read the op's named arguments and compile-time parameters
// (supplying the MIL spec defaults, iOS15+ semantics) and call the shared
// builders in mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlprog/Import/Common/Resample.h"

using namespace mlir;

namespace mlprog::mil_import {
namespace {

LogicalResult importUpsampleNearest(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<double> sh = ctx.getFloat("scale_factor_height", 1.0),
                    sw = ctx.getFloat("scale_factor_width", 1.0);
  if (failed(x) || failed(sh) || failed(sw))
    return failure();
  return ctx.setResult(0, buildUpsampleNearest(ctx.b, ctx.loc, *x, *sh, *sw));
}

} // namespace

void registerResampleOps(OpTable &table) {
  table.add({
      {"upsample_nearest_neighbor", importUpsampleNearest},
  });
}

} // namespace mlprog::mil_import
