//===- ContractionOps.cpp - MIL matmul and linear -------------------------===//
//
// matmul (with transpose_x/transpose_y), linear and
// scaled_dot_product_attention.
//
// Handlers read the op's named arguments and compile-time parameters
// (supplying the MIL spec defaults, iOS15+ semantics) and call the shared
// builders in mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"
#include "Importer.h"

#include "mlprog/Import/Common/Attention.h"
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

/// scaled_dot_product_attention(query [B.., L, E], key [B.., S, E],
/// value [B.., S, EV], attn_mask) (iOS18): softmax(Q K^T / sqrt(E) + mask)
/// V with a bool mask (true = attend) or a float one (added). Rank-3
/// inputs are read as one head; ranks above 4 are unsupported.
LogicalResult importScaledDotProductAttention(OpContext &ctx) {
  FailureOr<Value> q = ctx.input("query"), k = ctx.input("key"),
                   v = ctx.input("value");
  FailureOr<Value> mask = ctx.optionalInput("attn_mask");
  if (failed(q) || failed(k) || failed(v) || failed(mask))
    return failure();
  int64_t rank = rankOf(*q);
  if (rank < 3 || rank > 4 || rankOf(*k) != rank || rankOf(*v) != rank)
    return emitError(ctx.loc) << "unsupported scaled_dot_product_attention of "
                                 "rank "
                              << rank << " (3 or 4 are implemented)";
  if (rank == 3) {
    for (Value *t : {&*q, &*k, &*v}) {
      FailureOr<Value> u = buildUnsqueeze(ctx.b, ctx.loc, *t, 1);
      if (failed(u))
        return failure();
      *t = *u;
    }
    if (*mask && rankOf(*mask) == 3) {
      FailureOr<Value> u = buildUnsqueeze(ctx.b, ctx.loc, *mask, 1);
      if (failed(u))
        return failure();
      *mask = *u;
    }
  }
  FailureOr<AttentionResult> r =
      buildAttention(ctx.b, ctx.loc, *q, *k, *v, *mask, Value(), Value(),
                     Value(), AttentionOptions());
  if (failed(r))
    return failure();
  Value out = r->output;
  if (rank == 3) {
    FailureOr<Value> s = buildSqueeze(ctx.b, ctx.loc, out, {1});
    if (failed(s))
      return failure();
    out = *s;
  }
  return ctx.setResult(0, out);
}

} // namespace

void registerContractionOps(OpTable &table) {
  table.add({
      {"linear", importLinear},
      {"matmul", importMatMul},
      {"scaled_dot_product_attention", importScaledDotProductAttention},
  });
}

} // namespace mlprog::mil_import
