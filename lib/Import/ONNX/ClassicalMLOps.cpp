//===- ClassicalMLOps.cpp - ai.onnx.ml ops
//---------------------------------===//
//
// Handlers for the numeric ops of the ai.onnx.ml domain; the semantics are
// in mlprog/Import/Common/ClassicalML.h.
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"
#include "mlprog/Import/Common/ClassicalML.h"

using namespace mlir;

namespace mlprog::onnx_import {
namespace {

/// Binarizer (ai.onnx.ml 1): `threshold` (default 0).
LogicalResult importBinarizer(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(
      0, buildBinarizer(ctx.b, ctx.loc, *x, ctx.getFloat("threshold", 0.0)));
}

/// ArrayFeatureExtractor (ai.onnx.ml 1): X and the int64 indices Y.
LogicalResult importArrayFeatureExtractor(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), indices = ctx.input(1);
  if (failed(x) || failed(indices))
    return failure();
  return ctx.setResult(
      0, buildArrayFeatureExtractor(ctx.b, ctx.loc, *x, *indices));
}

} // namespace

void registerClassicalMLOps(OpTable &table) {
  table.add({
      {"ai.onnx.ml::ArrayFeatureExtractor", importArrayFeatureExtractor},
      {"ai.onnx.ml::Binarizer", importBinarizer},
  });
}

} // namespace mlprog::onnx_import
