//===- RecurrentOps.cpp - MIL recurrent layers ----------------------------===//
//
// lstm, gru and rnn (iOS15 semantics; iOS17 adds fp16, iOS18 gru adds
// reset_after and input_bias), mapped onto buildRecurrent.
//
// MIL lays a layer out differently from ONNX, whose layout the shared
// builder takes; the weights are constants, so the handlers repack them
// once, outside the loop:
//   - gate order: lstm rows i, f, o, z (ONNX i, o, f, c), peepholes i, f, o
//     (ONNX i, o, f); gru rows r, o, z (ONNX z, r, h);
//   - weights are 2-D [G*H, I] / [G*H, H] per direction (ONNX [D, G*H, ...]);
//     a bidirectional lstm names the reverse direction's `*_back`;
//   - `bias` is one [G*H] vector (input and recurrent biases summed; iOS18
//     gru: the recurrent ones, with `input_bias` the input ones);
//   - states are [batch, D*H] (forward units first), outputs
//     [seq or 1, batch, D*H];
//   - a "reverse" layer lists its outputs in step order, and `clip` clamps
//     the lstm cell state (RecurrentOptions::reverseOutputInStepOrder and
//     cellClip).
// The semantics follow coremltools' op definitions and the numpy references
// of its op tests (mil/ops/tests/iOS14/test_recurrent.py).
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"
#include "Importer.h"

#include "mlprog/Import/Common/Recurrent.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace mlprog::mil_import {
namespace {

/// What differs between lstm, gru and rnn.
struct CellSpec {
  RecurrentCellKind kind;
  llvm::StringLiteral name;
  /// Gates per direction.
  int64_t gates;
  /// Block order of ONNX's gates in MIL's rows.
  llvm::ArrayRef<int64_t> gateOrder;
};

constexpr int64_t kLstmOrder[] = {0, 2, 1, 3};      // i f o z -> i o f c
constexpr int64_t kLstmPeepholeOrder[] = {0, 2, 1}; // i f o -> i o f
constexpr int64_t kGruOrder[] = {2, 0, 1};          // r o z -> z r h
constexpr int64_t kRnnOrder[] = {0};

/// The MIL activation `param` (default `dflt`): relu, tanh, sigmoid,
/// linear (x), scaled_tanh (tanh with alpha = beta = 1), hard_sigmoid (or
/// sigmoid_hard: clamp(0.2 x + 0.5, 0, 1)).
FailureOr<RecurrentActivation> getActivation(OpContext &ctx,
                                             const CellSpec &spec,
                                             StringRef param, StringRef dflt) {
  FailureOr<std::string> name = ctx.getString(param, dflt.str());
  if (failed(name))
    return failure();
  StringRef onnxName = llvm::StringSwitch<StringRef>(*name)
                           .Case("relu", "relu")
                           .Case("tanh", "tanh")
                           .Case("sigmoid", "sigmoid")
                           .Case("linear", "affine")
                           .Case("scaled_tanh", "scaledtanh")
                           .Case("hard_sigmoid", "hardsigmoid")
                           .Case("sigmoid_hard", "hardsigmoid")
                           .Default("");
  std::optional<RecurrentActivation> act =
      onnxName.empty() ? std::nullopt : RecurrentActivation::parse(onnxName);
  if (!act)
    return emitError(ctx.loc)
           << spec.name << ": unsupported " << param << " '" << *name
           << "' (expected relu, tanh, sigmoid, linear, scaled_tanh or "
              "hard_sigmoid)";
  return *act;
}

/// A zero vector [n] of `elt`.
Value zeros(OpContext &ctx, int64_t n, Type elt) {
  auto type = RankedTensorType::get({n}, elt);
  return arith::ConstantOp::create(
      ctx.b, ctx.loc, DenseElementsAttr::get(type, ctx.b.getZeroAttr(elt)));
}

/// Checks one direction's weights against the MIL shapes and repacks them.
/// `suffix` is "" or "_back"; `inputBias` is the iOS18 gru's.
FailureOr<RecurrentDirectionWeights>
repackDirection(OpContext &ctx, const CellSpec &spec, StringRef suffix,
                int64_t hidden, int64_t inputSize, Type elt) {
  std::string wName = ("weight_ih" + suffix).str();
  std::string rName = ("weight_hh" + suffix).str();
  std::string bName = ("bias" + suffix).str();
  std::string pName = ("peephole" + suffix).str();
  FailureOr<Value> w = ctx.input(wName), r = ctx.input(rName);
  FailureOr<Value> bias = ctx.optionalInput(bName);
  FailureOr<Value> peephole = spec.kind == RecurrentCellKind::LSTM
                                  ? ctx.optionalInput(pName)
                                  : FailureOr<Value>(Value());
  FailureOr<Value> inputBias = spec.kind == RecurrentCellKind::GRU
                                   ? ctx.optionalInput("input_bias")
                                   : FailureOr<Value>(Value());
  if (failed(w) || failed(r) || failed(bias) || failed(peephole) ||
      failed(inputBias))
    return failure();
  int64_t gh = spec.gates * hidden;
  // Each operand's expected MIL shape; kDynamic in the input size when x
  // leaves it unknown.
  auto check = [&](Value v, StringRef name,
                   ArrayRef<int64_t> expected) -> LogicalResult {
    if (!v)
      return success();
    RankedTensorType t = typeOf(v);
    bool ok =
        t.getRank() == int64_t(expected.size()) && t.getElementType() == elt;
    for (auto [got, want] : llvm::zip(t.getShape(), expected))
      ok = ok && (ShapedType::isDynamic(want) || got == want);
    if (ok)
      return success();
    InFlightDiagnostic diag = emitError(ctx.loc)
                              << spec.name << ": " << name << " must be [";
    llvm::interleaveComma(expected, diag, [&](int64_t d) {
      if (ShapedType::isDynamic(d))
        diag << "?";
      else
        diag << d;
    });
    diag << "] of " << elt << " (hidden size " << hidden << "), got "
         << v.getType();
    return diag;
  };
  if (failed(check(*w, wName, {gh, inputSize})) ||
      failed(check(*r, rName, {gh, hidden})) ||
      failed(check(*bias, bName, {gh})) ||
      failed(check(*inputBias, "input_bias", {gh})) ||
      failed(check(*peephole, pName, {3 * hidden})))
    return failure();

  // ONNX B = [Wb, Rb]. MIL's `bias` is the sum (lstm, rnn, gru before
  // iOS18) or the recurrent bias next to `input_bias` (iOS18 gru); either
  // way the builder adds both halves where MIL adds its one bias, except
  // in the gru candidate with reset_after, where Rb is gated by r.
  return buildRecurrentDirectionWeights(ctx.b, ctx.loc, *w, *r, *inputBias,
                                        *bias, *peephole, spec.gateOrder,
                                        kLstmPeepholeOrder);
}

/// Stacks the directions' [1, ...] operands along dim 0; null if every
/// direction lacks it, zeros of `zeroShape` for a direction that lacks it.
FailureOr<Value> stackDirections(OpContext &ctx, ArrayRef<Value> dirs,
                                 int64_t extent, Type elt) {
  if (llvm::all_of(dirs, [](Value v) { return !v; }))
    return Value();
  if (dirs.size() == 1)
    return dirs[0];
  SmallVector<Value> filled;
  for (Value v : dirs) {
    if (!v) {
      FailureOr<Value> z =
          buildUnsqueeze(ctx.b, ctx.loc, zeros(ctx, extent, elt), 0);
      if (failed(z))
        return failure();
      v = *z;
    }
    filled.push_back(v);
  }
  return buildConcat(ctx.b, ctx.loc, filled, 0);
}

/// A MIL state [batch, D*H] as ONNX's [D, batch, H].
FailureOr<Value> stateToOnnx(OpContext &ctx, Value state, int64_t dirs,
                             int64_t hidden) {
  RankedTensorType t = typeOf(state);
  if (dirs == 1)
    return buildUnsqueeze(ctx.b, ctx.loc, state, 0);
  SmallVector<OpFoldResult> sizes = {
      tensor::getMixedSize(ctx.b, ctx.loc, state, 0), ctx.b.getIndexAttr(dirs),
      ctx.b.getIndexAttr(hidden)};
  auto split = tensor::ExpandShapeOp::create(
      ctx.b, ctx.loc,
      RankedTensorType::get({t.getDimSize(0), dirs, hidden},
                            t.getElementType()),
      state, SmallVector<ReassociationIndices>{{0}, {1, 2}}, sizes);
  return buildTranspose(ctx.b, ctx.loc, split, {1, 0, 2});
}

/// ONNX's [..., D, batch, H] (rank 3 or 4) as MIL's [..., batch, D*H].
FailureOr<Value> resultToMil(OpContext &ctx, Value v) {
  int64_t rank = rankOf(v);
  SmallVector<int64_t> perm = rank == 4 ? SmallVector<int64_t>{0, 2, 1, 3}
                                        : SmallVector<int64_t>{1, 0, 2};
  FailureOr<Value> t = buildTranspose(ctx.b, ctx.loc, v, perm);
  if (failed(t))
    return failure();
  SmallVector<ReassociationIndices> merge;
  for (int64_t d = 0; d < rank - 2; ++d)
    merge.push_back({d});
  merge.push_back({rank - 2, rank - 1});
  return tensor::CollapseShapeOp::create(ctx.b, ctx.loc, *t, merge).getResult();
}

LogicalResult importRecurrent(OpContext &ctx, const CellSpec &spec) {
  bool isLSTM = spec.kind == RecurrentCellKind::LSTM;
  FailureOr<Value> x = ctx.input("x"), wHH = ctx.input("weight_hh");
  FailureOr<Value> initialH = ctx.optionalInput("initial_h");
  FailureOr<Value> initialC =
      isLSTM ? ctx.optionalInput("initial_c") : FailureOr<Value>(Value());
  FailureOr<std::string> direction =
      ctx.getString("direction", std::string("forward"));
  FailureOr<bool> outputSequence = ctx.getBool("output_sequence", false);
  FailureOr<bool> resetAfter = spec.kind == RecurrentCellKind::GRU
                                   ? ctx.getBool("reset_after", false)
                                   : FailureOr<bool>(false);
  if (failed(x) || failed(wHH) || failed(initialH) || failed(initialC) ||
      failed(direction) || failed(outputSequence) || failed(resetAfter))
    return failure();
  RankedTensorType xt = typeOf(*x), rt = typeOf(*wHH);
  if (xt.getRank() != 3 || !isa<FloatType>(xt.getElementType()))
    return emitError(ctx.loc) << spec.name
                              << ": x must be a float [seq, batch, input] "
                                 "tensor, got "
                              << x->getType();
  if (rt.getRank() != 2 || rt.isDynamicDim(1) || rt.getDimSize(1) < 1 ||
      rt.getDimSize(0) != spec.gates * rt.getDimSize(1))
    return emitError(ctx.loc)
           << spec.name << ": weight_hh must be [" << spec.gates
           << "*H, H] with a static H, got " << wHH->getType();
  int64_t hidden = rt.getDimSize(1);
  Type elt = xt.getElementType();

  RecurrentOptions opt;
  opt.cell = spec.kind;
  opt.hiddenSize = hidden;
  opt.computeSequence = *outputSequence;
  opt.linearBeforeReset = *resetAfter;
  if (*direction == "forward") {
    opt.direction = RecurrentDirection::Forward;
  } else if (*direction == "reverse") {
    opt.direction = RecurrentDirection::Reverse;
    opt.reverseOutputInStepOrder = true;
  } else if (*direction == "bidirectional" && isLSTM) {
    opt.direction = RecurrentDirection::Bidirectional;
  } else {
    return emitError(ctx.loc) << spec.name << ": unsupported direction '"
                              << *direction << "' (expected forward, reverse"
                              << (isLSTM ? " or bidirectional)"
                                         : " or, for lstm only, "
                                           "bidirectional)");
  }
  int64_t dirs = opt.direction == RecurrentDirection::Bidirectional ? 2 : 1;

  // Activations: lstm f (gates), g (cell), h (output); gru f (z, r), g
  // (candidate); rnn f.
  SmallVector<std::pair<StringRef, StringRef>> acts;
  if (spec.kind == RecurrentCellKind::RNN)
    acts = {{"activation", "tanh"}};
  else if (spec.kind == RecurrentCellKind::GRU)
    acts = {{"recurrent_activation", "sigmoid"}, {"activation", "tanh"}};
  else
    acts = {{"recurrent_activation", "sigmoid"},
            {"cell_activation", "tanh"},
            {"activation", "tanh"}};
  for (auto [param, dflt] : acts) {
    FailureOr<RecurrentActivation> act = getActivation(ctx, spec, param, dflt);
    if (failed(act))
      return failure();
    opt.activations.push_back(*act);
  }
  if (isLSTM && ctx.has("clip")) {
    FailureOr<double> clip = ctx.getFloat("clip");
    if (failed(clip))
      return failure();
    if (!(*clip > 0))
      return emitError(ctx.loc)
             << spec.name << ": clip must be positive, got " << *clip;
    opt.cellClip = *clip;
  }

  SmallVector<RecurrentDirectionWeights> weights;
  for (int64_t d = 0; d < dirs; ++d) {
    StringRef suffix = d ? "_back" : "";
    if (d && (!ctx.has("weight_ih_back") || !ctx.has("weight_hh_back")))
      return emitError(ctx.loc)
             << spec.name
             << ": a bidirectional layer needs weight_ih_back and "
                "weight_hh_back";
    FailureOr<RecurrentDirectionWeights> dw =
        repackDirection(ctx, spec, suffix, hidden, xt.getDimSize(2), elt);
    if (failed(dw))
      return failure();
    weights.push_back(*dw);
  }
  auto gather = [&](Value RecurrentDirectionWeights::*field) {
    SmallVector<Value> out;
    for (const RecurrentDirectionWeights &dw : weights)
      out.push_back(dw.*field);
    return out;
  };
  RecurrentOperands ops;
  ops.x = *x;
  FailureOr<Value> w =
      stackDirections(ctx, gather(&RecurrentDirectionWeights::w), 0, elt);
  FailureOr<Value> r =
      stackDirections(ctx, gather(&RecurrentDirectionWeights::r), 0, elt);
  FailureOr<Value> b = stackDirections(
      ctx, gather(&RecurrentDirectionWeights::b), 2 * spec.gates * hidden, elt);
  FailureOr<Value> p = stackDirections(
      ctx, gather(&RecurrentDirectionWeights::peepholes), 3 * hidden, elt);
  if (failed(w) || failed(r) || failed(b) || failed(p))
    return failure();
  ops.w = *w;
  ops.r = *r;
  ops.b = *b;
  ops.peepholes = *p;

  // States [batch, D*H].
  for (auto [given, target, name] :
       {std::make_tuple(*initialH, &ops.initialH, "initial_h"),
        std::make_tuple(*initialC, &ops.initialC, "initial_c")}) {
    if (!given)
      continue;
    RankedTensorType st = typeOf(given);
    if (st.getRank() != 2 || st.getElementType() != elt ||
        (!st.isDynamicDim(1) && st.getDimSize(1) != dirs * hidden) ||
        (!st.isDynamicDim(0) && !xt.isDynamicDim(1) &&
         st.getDimSize(0) != xt.getDimSize(1)))
      return emitError(ctx.loc)
             << spec.name << ": " << name << " must be [batch, "
             << dirs * hidden << "] of " << elt << ", got " << given.getType();
    FailureOr<Value> onnx = stateToOnnx(ctx, given, dirs, hidden);
    if (failed(onnx))
      return failure();
    *target = *onnx;
  }

  FailureOr<RecurrentResults> res = buildRecurrent(ctx.b, ctx.loc, ops, opt);
  if (failed(res))
    return failure();
  FailureOr<Value> yH = resultToMil(ctx, res->yH);
  if (failed(yH))
    return failure();
  FailureOr<Value> y = *outputSequence ? resultToMil(ctx, res->y)
                                       : buildUnsqueeze(ctx.b, ctx.loc, *yH, 0);
  if (failed(y) || failed(ctx.setResult(0, *y)) ||
      failed(ctx.setResult(1, *yH)))
    return failure();
  if (!isLSTM)
    return success();
  return ctx.setResult(2, resultToMil(ctx, res->yC));
}

LogicalResult importLstm(OpContext &ctx) {
  return importRecurrent(ctx, {RecurrentCellKind::LSTM, "lstm", 4, kLstmOrder});
}

LogicalResult importGru(OpContext &ctx) {
  return importRecurrent(ctx, {RecurrentCellKind::GRU, "gru", 3, kGruOrder});
}

LogicalResult importRnn(OpContext &ctx) {
  return importRecurrent(ctx, {RecurrentCellKind::RNN, "rnn", 1, kRnnOrder});
}

} // namespace

void registerRecurrentOps(OpTable &table) {
  table.add({
      {"lstm", importLstm},
      {"gru", importGru},
      {"rnn", importRnn},
  });
}

} // namespace mlprog::mil_import
