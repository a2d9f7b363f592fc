//===- RecurrentOps.cpp - aten RNN, GRU and LSTM layers and cells ---------===//
//
// `lstm`, `gru`, `rnn_tanh`, `rnn_relu` (multi-layer, bidirectional,
// batch_first, with or without biases) and the single-step cells
// `lstm_cell`, `gru_cell`, `rnn_tanh_cell`, `rnn_relu_cell`, on
// buildRecurrent (Common/Recurrent.h).
//
// PyTorch stacks the gates of its weights as LSTM i, f, g, o and GRU r, z,
// n; they are repacked into the builder's (ONNX's) i, o, f, c and z, r, h
// with buildGateReorder. PyTorch's GRU applies the reset gate after the
// recurrent product (ONNX linear_before_reset = 1).
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "HandlerUtils.h"

#include "mlprog/Import/Common/Creation.h"
#include "mlprog/Import/Common/Recurrent.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// The cell of an aten recurrent op, from its name.
struct CellSpec {
  RecurrentCellKind cell;
  /// rnn_relu / rnn_relu_cell.
  bool relu = false;
  int64_t gates;
  /// Block i of the builder's layout is block gateOrder[i] of PyTorch's.
  SmallVector<int64_t> gateOrder;
};

CellSpec cellSpec(Node *n) {
  std::string name = n->kind().toUnqualString();
  if (name.rfind("lstm", 0) == 0)
    return {RecurrentCellKind::LSTM, false, 4, {0, 3, 1, 2}};
  if (name.rfind("gru", 0) == 0)
    return {RecurrentCellKind::GRU, false, 3, {1, 0, 2}};
  return {RecurrentCellKind::RNN, name.rfind("rnn_relu", 0) == 0, 1, {0}};
}

RecurrentOptions optionsFor(const CellSpec &spec, int64_t hidden) {
  RecurrentOptions opt;
  opt.cell = spec.cell;
  opt.hiddenSize = hidden;
  opt.linearBeforeReset = spec.cell == RecurrentCellKind::GRU;
  if (spec.relu)
    opt.activations = {{RecurrentActivation::Kind::Relu}};
  return opt;
}

/// Checks PyTorch's w_ih [G*H, in], w_hh [G*H, H], b_ih and b_hh [G*H]
/// (either may be null) and repacks them.
FailureOr<RecurrentDirectionWeights>
packDirection(Im &im, Node *n, const CellSpec &spec, Value wIh, Value wHh,
              Value bIh, Value bHh, int64_t hidden) {
  Location l = im.loc(n);
  int64_t gh = spec.gates * hidden;
  auto checkShape = [&](Value v, StringRef what,
                        ArrayRef<int64_t> expected) -> LogicalResult {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (t && t.getShape() == expected && isa<FloatType>(t.getElementType()))
      return success();
    InFlightDiagnostic diag = emitError(l) << n->kind().toQualString() << ": "
                                           << what << " must be a float [";
    llvm::interleaveComma(expected, diag);
    diag << "] tensor (hidden size " << hidden << "), got " << v.getType();
    return diag;
  };
  auto wType = dyn_cast<RankedTensorType>(wIh.getType());
  if (!wType || wType.getRank() != 2 || wType.isDynamicDim(1))
    return emitError(l) << n->kind().toQualString()
                        << ": w_ih must be a static 2-D tensor, got "
                        << wIh.getType();
  if (failed(checkShape(wIh, "w_ih", {gh, wType.getDimSize(1)})) ||
      failed(checkShape(wHh, "w_hh", {gh, hidden})) ||
      (bIh && failed(checkShape(bIh, "b_ih", {gh}))) ||
      (bHh && failed(checkShape(bHh, "b_hh", {gh}))))
    return failure();
  return buildRecurrentDirectionWeights(im.b, l, wIh, wHh, bIh, bHh, Value(),
                                        spec.gateOrder, {});
}

/// Hidden size H from w_hh [G*H, H].
FailureOr<int64_t> hiddenSizeOf(Im &im, Node *n, Value wHh) {
  auto t = dyn_cast<RankedTensorType>(wHh.getType());
  if (!t || t.getRank() != 2 || t.isDynamicDim(1) || t.getDimSize(1) <= 0)
    return emitError(im.loc(n))
           << n->kind().toQualString()
           << ": w_hh must be a static 2-D tensor, got " << wHh.getType();
  return t.getDimSize(1);
}

/// The states of input 1: LSTM's hx is a list [h, c] (c returned second),
/// the other cells' a tensor h (c null).
FailureOr<std::pair<Value, Value>> initialStates(Im &im, Node *n, bool isLstm) {
  Location l = im.loc(n);
  if (!isLstm) {
    FailureOr<Value> h = im.tensorInput(n, 1);
    if (failed(h))
      return failure();
    return std::make_pair(*h, Value());
  }
  FailureOr<std::vector<TSValue>> hx = im.listInput(n, 1);
  if (failed(hx))
    return failure();
  if (hx->size() != 2)
    return emitError(l) << n->kind().toQualString()
                        << ": hx must hold h and c, got " << hx->size()
                        << " tensors";
  FailureOr<Value> h = im.asTensor((*hx)[0], l);
  FailureOr<Value> c = im.asTensor((*hx)[1], l);
  if (failed(h) || failed(c))
    return failure();
  return std::make_pair(*h, *c);
}

/// Stacks the directions' operands along dim 0 (null when absent).
FailureOr<RecurrentOperands>
stackDirections(Im &im, Location l, ArrayRef<RecurrentDirectionWeights> dirs) {
  RecurrentOperands ops;
  SmallVector<Value> ws, rs, bs;
  for (const RecurrentDirectionWeights &d : dirs) {
    ws.push_back(d.w);
    rs.push_back(d.r);
    if (d.b)
      bs.push_back(d.b);
  }
  FailureOr<Value> w = buildConcat(im.b, l, ws, 0);
  FailureOr<Value> r = buildConcat(im.b, l, rs, 0);
  if (failed(w) || failed(r))
    return failure();
  ops.w = *w;
  ops.r = *r;
  if (!bs.empty()) {
    FailureOr<Value> b = buildConcat(im.b, l, bs, 0);
    if (failed(b))
      return failure();
    ops.b = *b;
  }
  return ops;
}

/// Y [seq, D, batch, H] -> [seq, batch, D * H] (directions concatenated
/// along the features, as PyTorch's output).
FailureOr<Value> mergeDirections(Im &im, Location l, Value y, int64_t dirs) {
  SmallVector<int64_t> sizes(dirs, 1);
  FailureOr<SmallVector<Value>> parts = buildSplit(im.b, l, y, 1, sizes);
  if (failed(parts))
    return failure();
  SmallVector<Value> squeezed;
  for (Value p : *parts) {
    FailureOr<Value> s = buildSqueeze(im.b, l, p, {1});
    if (failed(s))
      return failure();
    squeezed.push_back(*s);
  }
  if (squeezed.size() == 1)
    return squeezed.front();
  return buildConcat(im.b, l, squeezed, 2);
}

/// lstm.input(input, Tensor[] hx, Tensor[] params, bool has_biases, int
/// num_layers, float dropout, bool train, bool bidirectional, bool
/// batch_first) -> (output, h_n, c_n); gru.input / rnn_tanh.input /
/// rnn_relu.input(input, Tensor hx, params, ...) -> (output, h_n).
///
/// input [seq, batch, in] ([batch, seq, in] with batch_first); hx (h_0 and,
/// for LSTM, c_0) [num_layers * D, batch, H] whatever batch_first says;
/// params per layer and direction (forward first): w_ih, w_hh[, b_ih,
/// b_hh]. output [seq, batch, D * H] (batch first with batch_first).
/// Errors: the packed-sequence overloads (`.data`), LSTM projections
/// (proj_size), dropout between layers in training mode, bad shapes.
LogicalResult recurrentLayer(Im &im, Node *n) {
  Location l = im.loc(n);
  CellSpec spec = cellSpec(n);
  bool isLstm = spec.cell == RecurrentCellKind::LSTM;
  std::string name = n->kind().toQualString();
  // The .data overloads (PackedSequence) take the tensor batch_sizes as
  // input 1, before hx: LSTM's hx is a list, the others' a tensor.
  bool packed =
      n->inputs().size() == 9 && im.get(n->input(isLstm ? 1 : 2)).isTensor();
  if (n->inputs().size() != 9 || packed)
    return im.unsupported(n, name + " on a packed sequence (.data overload; "
                                    "pad the sequence instead)");
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<std::vector<TSValue>> params = im.listInput(n, 2);
  FailureOr<bool> hasBiases = im.boolInput(n, 3);
  FailureOr<int64_t> numLayers = im.intInput(n, 4);
  FailureOr<double> dropout = im.numberInput(n, 5);
  FailureOr<bool> train = im.boolInput(n, 6);
  FailureOr<bool> bidirectional = im.boolInput(n, 7);
  FailureOr<bool> batchFirst = im.boolInput(n, 8);
  if (failed(x) || failed(params) || failed(hasBiases) || failed(numLayers) ||
      failed(dropout) || failed(train) || failed(bidirectional) ||
      failed(batchFirst))
    return failure();
  if (*train && *dropout != 0 && *numLayers > 1)
    return im.unsupported(n, name + " with dropout in training mode (random)");
  int64_t dirs = *bidirectional ? 2 : 1;
  int64_t perDir = *hasBiases ? 4 : 2;
  if (*numLayers <= 0)
    return emitError(l) << name << ": num_layers must be positive, got "
                        << *numLayers;
  if (int64_t(params->size()) != *numLayers * dirs * perDir) {
    if (isLstm && int64_t(params->size()) == *numLayers * dirs * (perDir + 1))
      return im.unsupported(n, "LSTM with projections (proj_size > 0)");
    return emitError(l) << name << ": expected " << *numLayers * dirs * perDir
                        << " weight tensors, got " << params->size();
  }
  SmallVector<Value> weights;
  for (const TSValue &p : *params) {
    FailureOr<Value> t = im.asTensor(p, l);
    if (failed(t))
      return failure();
    weights.push_back(*t);
  }
  FailureOr<std::pair<Value, Value>> states = initialStates(im, n, isLstm);
  if (failed(states))
    return failure();
  auto [h0, c0] = *states;
  if (rankOf(*x) != 3)
    return emitError(l) << name << ": input must be 3-D, got " << x->getType();
  FailureOr<int64_t> hidden = hiddenSizeOf(im, n, weights[1]);
  if (failed(hidden))
    return failure();
  for (Value *s : {&h0, &c0}) {
    if (!*s)
      continue;
    auto t = cast<RankedTensorType>(s->getType());
    if (t.getRank() != 3 ||
        (!t.isDynamicDim(0) && t.getDimSize(0) != *numLayers * dirs))
      return emitError(l) << name << ": initial states must be ["
                          << *numLayers * dirs << ", batch, " << *hidden
                          << "], got " << s->getType();
    // A run-time first extent (state kept in a global with a bounding type)
    // is layers x directions, which torch checks before the call.
    if (t.isDynamicDim(0)) {
      SmallVector<int64_t> shape(t.getShape());
      shape[0] = *numLayers * dirs;
      *s = tensor::CastOp::create(
          im.b, l, RankedTensorType::get(shape, t.getElementType()), *s);
    }
  }
  SmallVector<int64_t> stateSplit(*numLayers, dirs);
  FailureOr<SmallVector<Value>> hs = buildSplit(im.b, l, h0, 0, stateSplit);
  if (failed(hs))
    return failure();
  SmallVector<Value> cs;
  if (c0) {
    FailureOr<SmallVector<Value>> split =
        buildSplit(im.b, l, c0, 0, stateSplit);
    if (failed(split))
      return failure();
    cs = *split;
  }

  Value seq = *x;
  if (*batchFirst) {
    FailureOr<Value> t = buildTranspose(im.b, l, seq, {1, 0, 2});
    if (failed(t))
      return failure();
    seq = *t;
  }
  RecurrentOptions opt = optionsFor(spec, *hidden);
  opt.direction = *bidirectional ? RecurrentDirection::Bidirectional
                                 : RecurrentDirection::Forward;
  SmallVector<Value> hOut, cOut;
  for (int64_t layer = 0; layer < *numLayers; ++layer) {
    SmallVector<RecurrentDirectionWeights> dw;
    for (int64_t d = 0; d < dirs; ++d) {
      ArrayRef<Value> p =
          ArrayRef(weights).slice((layer * dirs + d) * perDir, perDir);
      FailureOr<RecurrentDirectionWeights> packed =
          packDirection(im, n, spec, p[0], p[1], *hasBiases ? p[2] : Value(),
                        *hasBiases ? p[3] : Value(), *hidden);
      if (failed(packed))
        return failure();
      dw.push_back(*packed);
    }
    FailureOr<RecurrentOperands> ops = stackDirections(im, l, dw);
    if (failed(ops))
      return failure();
    ops->x = seq;
    ops->initialH = (*hs)[layer];
    if (c0)
      ops->initialC = cs[layer];
    FailureOr<RecurrentResults> res = buildRecurrent(im.b, l, *ops, opt);
    if (failed(res))
      return failure();
    FailureOr<Value> y = mergeDirections(im, l, res->y, dirs);
    if (failed(y))
      return failure();
    seq = *y;
    hOut.push_back(res->yH);
    if (res->yC)
      cOut.push_back(res->yC);
  }
  Value out = seq;
  if (*batchFirst) {
    FailureOr<Value> t = buildTranspose(im.b, l, out, {1, 0, 2});
    if (failed(t))
      return failure();
    out = *t;
  }
  FailureOr<Value> hN = buildConcat(im.b, l, hOut, 0);
  if (failed(hN) || failed(im.setTensor(n, 0, out)) ||
      failed(im.setTensor(n, 1, hN)))
    return failure();
  if (!isLstm)
    return success();
  return im.setTensor(n, 2, buildConcat(im.b, l, cOut, 0));
}

/// lstm_cell(input [B, in], Tensor[] hx (h, c [B, H]), w_ih, w_hh, b_ih?,
/// b_hh?) -> (h', c'); gru_cell / rnn_tanh_cell / rnn_relu_cell(input, hx
/// [B, H], w_ih, w_hh, b_ih?, b_hh?) -> h'. Unbatched 1-D inputs and states
/// are accepted as well.
LogicalResult recurrentCell(Im &im, Node *n) {
  Location l = im.loc(n);
  CellSpec spec = cellSpec(n);
  bool isLstm = spec.cell == RecurrentCellKind::LSTM;
  std::string name = n->kind().toQualString();
  if (n->inputs().size() < 4)
    return emitError(l) << name << " expects at least 4 inputs";
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<Value> wIh = im.tensorInput(n, 2), wHh = im.tensorInput(n, 3);
  if (failed(x) || failed(wIh) || failed(wHh))
    return failure();
  Value bIh, bHh;
  for (auto [i, slot] : llvm::enumerate(SmallVector<Value *>{&bIh, &bHh})) {
    unsigned arg = 4 + i;
    if (n->inputs().size() <= arg || im.isNoneInput(n, arg))
      continue;
    FailureOr<Value> t = im.tensorInput(n, arg);
    if (failed(t))
      return failure();
    *slot = *t;
  }
  FailureOr<std::pair<Value, Value>> states = initialStates(im, n, isLstm);
  if (failed(states))
    return failure();
  auto [h0, c0] = *states;
  int64_t rank = rankOf(*x);
  if (rank != 1 && rank != 2)
    return emitError(l) << name << ": input must be 1-D or 2-D, got "
                        << x->getType();
  for (Value s : {h0, c0})
    if (s && rankOf(s) != rank)
      return emitError(l) << name << ": states must have the input's rank, "
                          << "got " << s.getType();
  FailureOr<int64_t> hidden = hiddenSizeOf(im, n, *wHh);
  if (failed(hidden))
    return failure();
  FailureOr<RecurrentDirectionWeights> dw =
      packDirection(im, n, spec, *wIh, *wHh, bIh, bHh, *hidden);
  if (failed(dw))
    return failure();
  // One step: input [1, B, in], states [1, B, H].
  auto lift = [&](Value v) -> FailureOr<Value> {
    if (rank == 1) {
      FailureOr<Value> u = buildUnsqueeze(im.b, l, v, 0);
      if (failed(u))
        return failure();
      v = *u;
    }
    return buildUnsqueeze(im.b, l, v, 0);
  };
  RecurrentOperands ops;
  ops.w = dw->w;
  ops.r = dw->r;
  ops.b = dw->b;
  FailureOr<Value> xs = lift(*x), hs = lift(h0);
  if (failed(xs) || failed(hs))
    return failure();
  ops.x = *xs;
  ops.initialH = *hs;
  if (c0) {
    FailureOr<Value> cl = lift(c0);
    if (failed(cl))
      return failure();
    ops.initialC = *cl;
  }
  RecurrentOptions opt = optionsFor(spec, *hidden);
  opt.computeSequence = false;
  FailureOr<RecurrentResults> res = buildRecurrent(im.b, l, ops, opt);
  if (failed(res))
    return failure();
  SmallVector<int64_t> drop =
      rank == 1 ? SmallVector<int64_t>{0, 1} : SmallVector<int64_t>{0};
  if (failed(im.setTensor(n, 0, buildSqueeze(im.b, l, res->yH, drop))))
    return failure();
  if (!isLstm)
    return success();
  return im.setTensor(n, 1, buildSqueeze(im.b, l, res->yC, drop));
}

} // namespace

void mlprog::torchscript::registerRecurrentOps(OpTable &table) {
  table.add({
      {"aten::lstm", recurrentLayer},
      {"aten::gru", recurrentLayer},
      {"aten::rnn_tanh", recurrentLayer},
      {"aten::rnn_relu", recurrentLayer},
      {"aten::lstm_cell", recurrentCell},
      {"aten::gru_cell", recurrentCell},
      {"aten::rnn_tanh_cell", recurrentCell},
      {"aten::rnn_relu_cell", recurrentCell},
  });
}
