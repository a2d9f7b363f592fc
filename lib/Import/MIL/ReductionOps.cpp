//===- ReductionOps.cpp - MIL reductions and softmax ----------------------===//
//
// The reduce_* ops (sum ... prod, arg max/min, norms, log-sum(-exp)) and
// softmax.
//
// Handlers read the op's named arguments and compile-time parameters
// (supplying the MIL spec defaults, iOS15+ semantics) and call the shared
// builders in mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "mlprog/Import/Common/Elementwise.h"
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

template <NormReduceKind Kind> LogicalResult importNormReduce(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<SmallVector<int64_t>> axes =
      ctx.getInts("axes", SmallVector<int64_t>());
  FailureOr<bool> keepDims = ctx.getBool("keep_dims", false);
  if (failed(x) || failed(axes) || failed(keepDims))
    return failure();
  return ctx.setResult(
      0, buildNormReduce(ctx.b, ctx.loc, Kind, *x, *axes, *keepDims));
}

/// reduce_argmax / reduce_argmin(x, axis = -1, keep_dims = false,
/// output_dtype = "int32" | "uint16" (iOS17)): the first extreme index.
template <bool IsMax> LogicalResult importArgReduce(OpContext &ctx) {
  FailureOr<Value> x = ctx.input("x");
  FailureOr<int64_t> axis = ctx.getInt("axis", -1);
  FailureOr<bool> keepDims = ctx.getBool("keep_dims", false);
  FailureOr<std::string> dtype =
      ctx.getString("output_dtype", std::string("int32"));
  if (failed(x) || failed(axis) || failed(keepDims) || failed(dtype))
    return failure();
  unsigned width = llvm::StringSwitch<unsigned>(*dtype)
                       .Case("int32", 32)
                       .Case("uint16", 16)
                       .Default(0);
  if (!width)
    return emitError(ctx.loc)
           << "invalid output_dtype '" << *dtype << "' (int32 or uint16)";
  FailureOr<Value> index =
      buildArgReduce(ctx.b, ctx.loc, *x, *axis, *keepDims, IsMax);
  if (failed(index))
    return failure();
  return ctx.setResult(0, buildConvertElementType(ctx.b, ctx.loc, *index,
                                                  ctx.b.getIntegerType(width),
                                                  false, width == 16));
}

} // namespace

void registerReductionOps(OpTable &table) {
  table.add({
      {"reduce_argmax", importArgReduce<true>},
      {"reduce_argmin", importArgReduce<false>},
      {"reduce_l1_norm", importNormReduce<NormReduceKind::L1>},
      {"reduce_l2_norm", importNormReduce<NormReduceKind::L2>},
      {"reduce_log_sum", importNormReduce<NormReduceKind::LogSum>},
      {"reduce_log_sum_exp", importNormReduce<NormReduceKind::LogSumExp>},
      {"reduce_max", importReduce<ReduceKind::Max>},
      {"reduce_mean", importReduce<ReduceKind::Mean>},
      {"reduce_min", importReduce<ReduceKind::Min>},
      {"reduce_prod", importReduce<ReduceKind::Prod>},
      {"reduce_sum", importReduce<ReduceKind::Sum>},
      {"reduce_sum_square", importNormReduce<NormReduceKind::SumSquare>},
      {"softmax", importSoftmax},
  });
}

} // namespace mlprog::mil_import
