//===- CausalConv.cpp - Causal depthwise convolution with state -----------===//
//
// buildCausalConvWithState: the state-carrying depthwise 1-D convolution of
// recurrent and state-space models (Mamba, RWKV-style token shifts), built
// from concat, the shared convolution and the SiLU activation.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"
#include "mlprog/Import/Common/Conv.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

FailureOr<CausalConvResult>
mlprog::buildCausalConvWithState(OpBuilder &b, Location loc, Value input,
                                 Value weight, Value bias, Value pastState,
                                 bool silu) {
  auto xt = dyn_cast<RankedTensorType>(input.getType());
  auto wt = dyn_cast<RankedTensorType>(weight.getType());
  if (!xt || !wt || xt.getRank() != 3 || wt.getRank() != 3)
    return emitError(loc) << "causal conv: expected input [B, C, L] and "
                             "weight [C, 1, K]";
  int64_t c = xt.getDimSize(1), k = wt.getDimSize(2);
  if (ShapedType::isDynamic(c) || ShapedType::isDynamic(k) || k < 1)
    return emitError(loc)
           << "unsupported causal conv with a dynamic channel count or "
              "kernel size";
  if (wt.getDimSize(0) != c || wt.getDimSize(1) != 1)
    return emitError(loc) << "causal conv: weight " << wt << " does not match "
                          << c << " channels";
  Type et = xt.getElementType();
  SmallVector<OpFoldResult> stateSizes = {
      tensor::getMixedSizes(b, loc, input)[0], b.getIndexAttr(c),
      b.getIndexAttr(k - 1)};
  if (pastState) {
    auto pt = dyn_cast<RankedTensorType>(pastState.getType());
    if (!pt || pt.getRank() != 3 || pt.getElementType() != et ||
        (!pt.isDynamicDim(1) && pt.getDimSize(1) != c) ||
        (!pt.isDynamicDim(2) && pt.getDimSize(2) != k - 1))
      return emitError(loc) << "causal conv: past state " << pastState.getType()
                            << " is not [B, " << c << ", " << k - 1 << "]";
  } else {
    pastState = createFilled(b, loc, stateSizes, b.getZeroAttr(et));
  }
  Value padded = input;
  if (k > 1) {
    FailureOr<Value> cat = buildConcat(b, loc, {pastState, input}, 2);
    if (failed(cat))
      return failure();
    padded = *cat;
  }
  WindowParams params{{1}, {1}, {0}, {0}};
  FailureOr<Value> conv = buildConv(b, loc, padded, weight, bias, params, c);
  if (failed(conv))
    return failure();
  Value output = *conv;
  if (silu) {
    FailureOr<Value> act =
        buildParamActivation(b, loc, ParamActivationKind::Swish, output, 1.0);
    if (failed(act))
      return failure();
    output = *act;
  }
  // The last K - 1 steps of the prefixed sequence (none for K = 1).
  if (k == 1)
    return CausalConvResult{output, createEmpty(b, loc, stateSizes, et)};
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, padded);
  SmallVector<OpFoldResult> offsets(3, b.getIndexAttr(0));
  OpFoldResult total = sizes[2];
  if (auto st = getConstantIntValue(total)) {
    offsets[2] = b.getIndexAttr(*st - (k - 1));
  } else {
    IndexMath m{b, loc};
    offsets[2] = m.sub(cast<Value>(total), m.c(k - 1));
  }
  sizes[2] = b.getIndexAttr(k - 1);
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  Value present =
      tensor::ExtractSliceOp::create(b, loc, padded, offsets, sizes, strides);
  return CausalConvResult{output, present};
}
