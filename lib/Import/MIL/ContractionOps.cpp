//===- ContractionOps.cpp - MIL matmul and linear -------------------------===//
//
// matmul (with transpose_x/transpose_y), linear, einsum and
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

/// `v` converted to element type `et`.
FailureOr<Value> convertTo(OpContext &ctx, Value v, Type et) {
  if (!v || typeOf(v).getElementType() == et)
    return v;
  return buildConvertElementType(ctx.b, ctx.loc, v, et);
}

/// matmul(x, y, transpose_x, transpose_y). iOS17 lets the const operand
/// have another dtype; the product has the declared output's.
LogicalResult importMatMul(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x"), y = ctx.input("y");
  FailureOr<bool> tx = ctx.getBool("transpose_x", false),
                  ty = ctx.getBool("transpose_y", false);
  if (failed(x) || failed(y) || failed(tx) || failed(ty))
    return failure();
  if (typeOf(*x).getElementType() != typeOf(*y).getElementType()) {
    if (!ctx.numOutputs())
      return emitError(ctx.loc) << "matmul declares no output";
    FailureOr<RankedTensorType> out = convertValueType(
        ctx.loc, ctx.b.getContext(), ctx.op.outputs(0).type(), "matmul output");
    if (failed(out) || failed(x = convertTo(ctx, *x, out->getElementType())) ||
        failed(y = convertTo(ctx, *y, out->getElementType())))
      return failure();
  }
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
  // iOS17: weight and bias may have another dtype than x (and the result).
  Type et = typeOf(*x).getElementType();
  if (failed(w = convertTo(ctx, *w, et)) ||
      failed(bias = convertTo(ctx, *bias, et)))
    return failure();
  FailureOr<Value> wt = buildTranspose(ctx.b, ctx.loc, *w, {1, 0});
  if (failed(wt))
    return failure();
  FailureOr<Value> y = buildMatMul(ctx.b, ctx.loc, *x, *wt);
  if (failed(y) || !*bias)
    return ctx.setResult(0, y);
  return ctx.setResult(
      0, buildElementwiseBinary(ctx.b, ctx.loc, BinaryOpKind::Add, *y, *bias));
}

/// einsum(values = (x, y), equation): the iOS15 forms "nchw,nwhu->nchu"
/// (rank 4) and "chw,whr->chr" (rank 3) under any letters, where an extent
/// 1 of n or h (dims -4 and -2) broadcasts to the other operand's.
LogicalResult importEinsum(OpContext &ctx) {
  FailureOr<SmallVector<Value>> values = ctx.inputs("values");
  FailureOr<std::string> equation = ctx.getString("equation");
  if (failed(values) || failed(equation))
    return failure();
  if (values->size() != 2)
    return emitError(ctx.loc)
           << "einsum takes two values, got " << values->size();
  Value x = (*values)[0], y = (*values)[1];
  int64_t rank = rankOf(x);
  if (rankOf(y) != rank || (rank != 3 && rank != 4))
    return emitError(ctx.loc)
           << "unsupported einsum of " << x.getType() << " and " << y.getType()
           << " (two operands of rank 3 or 4)";
  // Expand dims -2 (and -4) to the larger static extent where one is 1.
  SmallVector<int64_t> xShape(rank, -1), yShape(rank, -1);
  bool expandX = false, expandY = false;
  for (int64_t d = rank == 4 ? 0 : rank - 2; d < rank; d += 2) {
    int64_t xd = typeOf(x).getDimSize(d), yd = typeOf(y).getDimSize(d);
    if (xd == 1 && yd != 1 && !ShapedType::isDynamic(yd)) {
      xShape[d] = yd;
      expandX = true;
    } else if (yd == 1 && xd != 1 && !ShapedType::isDynamic(xd)) {
      yShape[d] = xd;
      expandY = true;
    }
  }
  FailureOr<Value> xe =
      expandX ? buildExpand(ctx.b, ctx.loc, x, xShape) : FailureOr<Value>(x);
  FailureOr<Value> ye =
      expandY ? buildExpand(ctx.b, ctx.loc, y, yShape) : FailureOr<Value>(y);
  if (failed(xe) || failed(ye))
    return failure();
  return ctx.setResult(
      0, buildEinsum(ctx.b, ctx.loc, *equation, ValueRange{*xe, *ye}));
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
      {"einsum", importEinsum},
      {"linear", importLinear},
      {"matmul", importMatMul},
      {"scaled_dot_product_attention", importScaledDotProductAttention},
  });
}

} // namespace mlprog::mil_import
