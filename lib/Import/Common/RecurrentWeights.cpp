//===- RecurrentWeights.cpp - Recurrent activations and weight packing ----===//
//
// What the recurrent importers share before buildRecurrent: parsing the
// activation names of ONNX RNN/GRU/LSTM (and the MIL spellings), and packing
// another format's gate order into the layout buildRecurrent takes.
//
//===----------------------------------------------------------------------===//

#include "Utils.h"
#include "mlprog/Import/Common/Recurrent.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

using ActKind = RecurrentActivation::Kind;

std::optional<RecurrentActivation>
RecurrentActivation::parse(llvm::StringRef name) {
  std::optional<ActKind> kind =
      llvm::StringSwitch<std::optional<ActKind>>(name.lower())
          .Case("relu", ActKind::Relu)
          .Case("tanh", ActKind::Tanh)
          .Case("sigmoid", ActKind::Sigmoid)
          .Case("affine", ActKind::Affine)
          .Case("leakyrelu", ActKind::LeakyRelu)
          .Case("thresholdedrelu", ActKind::ThresholdedRelu)
          .Case("scaledtanh", ActKind::ScaledTanh)
          .Case("hardsigmoid", ActKind::HardSigmoid)
          .Case("elu", ActKind::Elu)
          .Case("softsign", ActKind::Softsign)
          .Case("softplus", ActKind::Softplus)
          .Default(std::nullopt);
  if (!kind)
    return std::nullopt;
  RecurrentActivation act;
  act.kind = *kind;
  switch (*kind) {
  case ActKind::LeakyRelu:
    act.alpha = 0.01;
    break;
  case ActKind::HardSigmoid:
    act.alpha = 0.2;
    act.beta = 0.5;
    break;
  case ActKind::ThresholdedRelu:
  case ActKind::Elu:
  case ActKind::Affine:
    act.alpha = 1.0;
    break;
  case ActKind::ScaledTanh:
    act.alpha = 1.0;
    act.beta = 1.0;
    break;
  default:
    break;
  }
  return act;
}

bool RecurrentActivation::usesAlpha() const {
  switch (kind) {
  case ActKind::Affine:
  case ActKind::LeakyRelu:
  case ActKind::ThresholdedRelu:
  case ActKind::ScaledTanh:
  case ActKind::HardSigmoid:
  case ActKind::Elu:
    return true;
  default:
    return false;
  }
}

bool RecurrentActivation::usesBeta() const {
  return kind == ActKind::Affine || kind == ActKind::ScaledTanh ||
         kind == ActKind::HardSigmoid;
}

FailureOr<Value> mlprog::buildGateReorder(OpBuilder &b, Location loc, Value v,
                                          int64_t axis,
                                          ArrayRef<int64_t> order) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  int64_t gates = order.size();
  if (!type || axis < 0 || axis >= type.getRank() || gates == 0)
    return emitError(loc) << "gate reorder: axis " << axis
                          << " out of range for " << v.getType();
  int64_t extent = type.getDimSize(axis);
  if (ShapedType::isDynamic(extent) || extent % gates != 0)
    return emitError(loc) << "gate reorder: extent "
                          << (ShapedType::isDynamic(extent)
                                  ? std::string("?")
                                  : std::to_string(extent))
                          << " of dim " << axis << " of " << v.getType()
                          << " does not hold " << gates << " equal gates";
  SmallVector<int64_t> sorted(order);
  llvm::sort(sorted);
  for (int64_t i = 0; i < gates; ++i)
    if (sorted[i] != i)
      return emitError(loc) << "gate reorder: order is not a permutation";
  bool identity = llvm::equal(order, llvm::seq<int64_t>(0, gates));
  if (identity)
    return v;
  int64_t size = extent / gates;
  int64_t rank = type.getRank();
  SmallVector<Value> blocks;
  for (int64_t g : order) {
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
    offsets[axis] = b.getIndexAttr(g * size);
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v);
    sizes[axis] = b.getIndexAttr(size);
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    blocks.push_back(
        tensor::ExtractSliceOp::create(b, loc, v, offsets, sizes, strides));
  }
  return buildConcat(b, loc, blocks, axis);
}

FailureOr<RecurrentDirectionWeights> mlprog::buildRecurrentDirectionWeights(
    OpBuilder &b, Location loc, Value w, Value r, Value inputBias,
    Value recurrentBias, Value peepholes, ArrayRef<int64_t> gateOrder,
    ArrayRef<int64_t> peepholeOrder) {
  auto repack = [&](Value v, ArrayRef<int64_t> order) -> FailureOr<Value> {
    FailureOr<Value> reordered = buildGateReorder(b, loc, v, 0, order);
    if (failed(reordered))
      return failure();
    return buildUnsqueeze(b, loc, *reordered, 0);
  };
  RecurrentDirectionWeights out;
  FailureOr<Value> wp = repack(w, gateOrder);
  FailureOr<Value> rp = repack(r, gateOrder);
  if (failed(wp) || failed(rp))
    return failure();
  out.w = *wp;
  out.r = *rp;
  if (inputBias || recurrentBias) {
    Value any = inputBias ? inputBias : recurrentBias;
    auto type = dyn_cast<RankedTensorType>(any.getType());
    if (!type || type.getRank() != 1)
      return emitError(loc)
             << "recurrent bias must be a 1-D tensor, got " << any.getType();
    Value zeros = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(type, b.getZeroAttr(type.getElementType())));
    FailureOr<Value> packed = buildConcat(
        b, loc,
        {inputBias ? inputBias : zeros, recurrentBias ? recurrentBias : zeros},
        0);
    if (failed(packed))
      return failure();
    // Each half reordered: the [2*G*H] vector is 2*G blocks.
    SmallVector<int64_t> order(gateOrder);
    for (int64_t g : gateOrder)
      order.push_back(g + static_cast<int64_t>(gateOrder.size()));
    FailureOr<Value> bp = repack(*packed, order);
    if (failed(bp))
      return failure();
    out.b = *bp;
  }
  if (peepholes) {
    FailureOr<Value> pp = repack(peepholes, peepholeOrder);
    if (failed(pp))
      return failure();
    out.peepholes = *pp;
  }
  return out;
}
