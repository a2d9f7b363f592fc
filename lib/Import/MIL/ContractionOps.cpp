//===- ContractionOps.cpp - MIL matmul and linear -------------------------===//
//
// matmul (with transpose_x/transpose_y) and linear.
//
// Handlers read the op's named arguments and compile-time parameters
// (supplying the MIL spec defaults, iOS15+ semantics) and call the shared
// builders in mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"
#include "Importer.h"

#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/LinearAlgebra.h"
#include "mlprog/Import/Common/Shape.h"

using namespace mlir;

namespace mlprog::mil_import {
namespace {

/// Swaps the last two dims of `x` (rank >= 2).
FailureOr<Value> transposeLast2(OpContext &ctx, Value x) {
  int64_t rank = rankOf(x);
  if (rank < 2)
    return x;
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    perm.push_back(d);
  std::swap(perm[rank - 1], perm[rank - 2]);
  return buildTranspose(ctx.b, ctx.loc, x, perm);
}

LogicalResult importMatMul(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), y = ctx.input("y");
  FailureOr<bool> tx = ctx.getBool("transpose_x", false),
                  ty = ctx.getBool("transpose_y", false);
  if (failed(x) || failed(y) || failed(tx) || failed(ty))
    return failure();
  if (*tx && failed(x = transposeLast2(ctx, *x)))
    return failure();
  if (*ty && failed(y = transposeLast2(ctx, *y)))
    return failure();
  return ctx.setResult(0, buildMatMul(ctx.b, ctx.loc, *x, *y));
}

/// linear(x, weight [Dout, Din], bias [Dout]): x @ weight^T + bias.
LogicalResult importLinear(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), w = ctx.input("weight");
  FailureOr<Value> bias = ctx.optionalInput("bias");
  if (failed(x) || failed(w) || failed(bias))
    return failure();
  if (rankOf(*w) != 2)
    return emitError(ctx.loc)
           << "linear weight must be 2-D, got " << w->getType();
  FailureOr<Value> wt = buildTranspose(ctx.b, ctx.loc, *w, {1, 0});
  if (failed(wt))
    return failure();
  FailureOr<Value> y = buildMatMul(ctx.b, ctx.loc, *x, *wt);
  if (failed(y) || !*bias)
    return ctx.setResult(0, y);
  return ctx.setResult(
      0, buildElementwiseBinary(ctx.b, ctx.loc, BinaryOpKind::Add, *y, *bias));
}

} // namespace

void registerContractionOps(OpTable &table) {
  table.add({
      {"linear", importLinear},
      {"matmul", importMatMul},
  });
}

} // namespace mlprog::mil_import
