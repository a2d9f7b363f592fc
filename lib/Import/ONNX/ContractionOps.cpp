//===- ContractionOps.cpp - ONNX matmul, gemm, einsum, det ----------------===//
//
// Handlers for the contractions (MatMul, Gemm, Einsum) and Det.
//
// Handlers only read operands and attributes (with the ONNX operator spec's
// defaults for the model's opset) and call the shared builders in
// mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"
#include "NodeContext.h"

#include "mlprog/Import/Common/LinearAlgebra.h"

using namespace mlir;

namespace mlprog::onnx_import {

namespace {

/// MatMul (numpy.matmul).
LogicalResult importMatMul(NodeContext &ctx) {
  FailureOr<Value> a = ctx.input(0), b = ctx.input(1);
  if (failed(a) || failed(b))
    return failure();
  return ctx.setResult(0, buildMatMul(ctx.b, ctx.loc, *a, *b));
}

/// Gemm: alpha = beta = 1.0, transA = transB = 0 by default; C optional
/// since opset 11.
LogicalResult importGemm(NodeContext &ctx) {
  FailureOr<Value> a = ctx.input(0), b = ctx.input(1);
  if (failed(a) || failed(b))
    return failure();
  return ctx.setResult(
      0, buildGemm(ctx.b, ctx.loc, *a, *b, ctx.optionalInput(2),
                   ctx.getFloat("alpha", 1.0), ctx.getFloat("beta", 1.0),
                   ctx.getInt("transA", 0), ctx.getInt("transB", 0)));
}

/// Einsum (opset 12+).
LogicalResult importEinsum(NodeContext &ctx) {
  FailureOr<SmallVector<Value>> in = allInputs(ctx);
  if (failed(in))
    return failure();
  return ctx.setResult(
      0, buildEinsum(ctx.b, ctx.loc, ctx.getString("equation", ""), *in));
}

/// Det (opset 11): determinants of the trailing square matrices.
LogicalResult importDet(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(0, buildDeterminant(ctx.b, ctx.loc, *x));
}

} // namespace

void registerContractionOps(OpTable &table) {
  table.add({
      {"Det", importDet},
      {"Einsum", importEinsum},
      {"Gemm", importGemm},
      {"MatMul", importMatMul},
  });
}

} // namespace mlprog::onnx_import
