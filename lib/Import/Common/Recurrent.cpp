//===- Recurrent.cpp - RNN, GRU and LSTM layer builders -------------------===//
//
// One scf.for per direction walks the sequence; its iter_args are the hidden
// state [batch, H], for LSTM the cell state [batch, H], and the output
// sequence Y [seq, D, batch, H] into which each step's hidden state is
// inserted. Weights are sliced per direction and transposed once, before the
// loop, so each step is two linalg.matmul ops and elementwise gate math.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Import/Common/Recurrent.h"
#include "Utils.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/LinearAlgebra.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/StringSwitch.h"

#include <limits>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

using ActKind = RecurrentActivation::Kind;

namespace {

StringRef cellName(RecurrentCellKind cell) {
  switch (cell) {
  case RecurrentCellKind::RNN:
    return "RNN";
  case RecurrentCellKind::GRU:
    return "GRU";
  case RecurrentCellKind::LSTM:
    return "LSTM";
  }
  return "";
}

int64_t numGates(RecurrentCellKind cell) {
  switch (cell) {
  case RecurrentCellKind::RNN:
    return 1;
  case RecurrentCellKind::GRU:
    return 3;
  case RecurrentCellKind::LSTM:
    return 4;
  }
  return 1;
}

int64_t numActivations(RecurrentCellKind cell) {
  switch (cell) {
  case RecurrentCellKind::RNN:
    return 1;
  case RecurrentCellKind::GRU:
    return 2;
  case RecurrentCellKind::LSTM:
    return 3;
  }
  return 1;
}

SmallVector<RecurrentActivation> defaultActivations(RecurrentCellKind cell) {
  auto make = [](ActKind k) {
    RecurrentActivation a;
    a.kind = k;
    return a;
  };
  switch (cell) {
  case RecurrentCellKind::RNN:
    return {make(ActKind::Tanh)};
  case RecurrentCellKind::GRU:
    return {make(ActKind::Sigmoid), make(ActKind::Tanh)};
  case RecurrentCellKind::LSTM:
    return {make(ActKind::Sigmoid), make(ActKind::Tanh), make(ActKind::Tanh)};
  }
  return {};
}

/// Formats a shape for diagnostics, `?` for dynamic extents.
std::string shapeString(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (i)
      s += ", ";
    s += ShapedType::isDynamic(d) ? "?" : std::to_string(d);
  }
  return s + "]";
}

/// Emits the gate math of one layer.
class LayerBuilder {
public:
  LayerBuilder(OpBuilder &b, Location loc, const RecurrentOptions &opt,
               Type elt)
      : b(b), loc(loc), opt(opt), elt(elt), hidden(opt.hiddenSize) {}

  /// Checks the operands (already in seq-major layout) against the options.
  LogicalResult verify(const RecurrentOperands &ops, int64_t numDirs);

  /// Runs direction `dir` (0 forward or the only one, 1 reverse) over the
  /// sequence; returns the final states and updates `y` (may be null).
  LogicalResult runDirection(const RecurrentOperands &ops, int64_t dir,
                             bool reverse, ArrayRef<RecurrentActivation> acts,
                             Value &y, Value &finalH, Value &finalC);

private:
  OpBuilder &b;
  Location loc;
  const RecurrentOptions &opt;
  Type elt;
  int64_t hidden;

  InFlightDiagnostic error() {
    return emitError(loc) << cellName(opt.cell) << ": ";
  }
  /// `v[dir]` of a [D, ...] tensor, the leading dim dropped.
  Value sliceDir(Value v, int64_t dir);
  /// Columns [offset, offset + size) of the last dim of a 1-D or 2-D tensor.
  Value sliceLast(Value v, int64_t offset, int64_t size);
  /// `x[t]` of a [seq, batch, input] tensor as [batch, input].
  Value sliceStep(Value x, Value t, OpFoldResult batch);
  /// The loop-carried state `state` [batch, H] as a slice whose extents are
  /// `batch` (read before the loop) rather than `tensor.dim` of the block
  /// argument: linalg ops in the loop then get bounds that are valid affine
  /// symbols when lowered to affine loops.
  Value viewState(Value state, OpFoldResult batch) {
    if (isa<Attribute>(batch))
      return state;
    SmallVector<OpFoldResult> offsets(2, b.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes = {batch, b.getIndexAttr(hidden)};
    SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(b, loc, state, offsets, sizes,
                                          strides);
  }
  FailureOr<Value> add(Value x, Value y) {
    return buildElementwiseBinary(b, loc, BinaryOpKind::Add, x, y);
  }
  FailureOr<Value> mul(Value x, Value y) {
    return buildElementwiseBinary(b, loc, BinaryOpKind::Mul, x, y);
  }
  /// Adds `y` to `x` unless `y` is null.
  FailureOr<Value> addOpt(Value x, Value y) { return y ? add(x, y) : x; }
  /// Clip (if set) then activation, on a gate pre-activation.
  FailureOr<Value> activate(const RecurrentActivation &act, Value x);
  /// `valid ? fresh : old` per batch row, valid = `lens[b] > t`; `old` null
  /// means 0.
  FailureOr<Value> mask(Value lens2d, Value t, Value fresh, Value old);
  Value castTo(Value v, Type type) {
    return v.getType() == type ? v : tensor::CastOp::create(b, loc, type, v);
  }
};

LogicalResult LayerBuilder::verify(const RecurrentOperands &ops,
                                   int64_t numDirs) {
  int64_t gates = numGates(opt.cell);
  auto x = cast<RankedTensorType>(ops.x.getType());
  int64_t batch = x.getDimSize(1), input = x.getDimSize(2);
  // Each expected extent; kDynamic means "anything".
  auto check = [&](Value v, StringRef name,
                   ArrayRef<int64_t> expected) -> LogicalResult {
    if (!v)
      return success();
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || type.getRank() != int64_t(expected.size()))
      return error() << name << " must have rank " << expected.size()
                     << ", got " << v.getType();
    if (name != "sequence_lens" && type.getElementType() != elt)
      return error() << name << " must have element type " << elt << ", got "
                     << type.getElementType();
    for (auto [got, want] : llvm::zip(type.getShape(), expected))
      if (!ShapedType::isDynamic(got) && !ShapedType::isDynamic(want) &&
          got != want)
        return error() << name << " must have shape " << shapeString(expected)
                       << " (num_directions " << numDirs << ", hidden_size "
                       << hidden << "), got " << v.getType();
    return success();
  };
  if (failed(check(ops.w, "W", {numDirs, gates * hidden, input})) ||
      failed(check(ops.r, "R", {numDirs, gates * hidden, hidden})) ||
      failed(check(ops.b, "B", {numDirs, 2 * gates * hidden})) ||
      failed(check(ops.sequenceLens, "sequence_lens", {batch})) ||
      failed(check(ops.initialH, "initial_h", {numDirs, batch, hidden})) ||
      failed(check(ops.initialC, "initial_c", {numDirs, batch, hidden})) ||
      failed(check(ops.peepholes, "P", {numDirs, 3 * hidden})))
    return failure();
  if (ops.sequenceLens && !cast<RankedTensorType>(ops.sequenceLens.getType())
                               .getElementType()
                               .isSignlessInteger())
    return error() << "sequence_lens must be an integer tensor, got "
                   << ops.sequenceLens.getType();
  return success();
}

Value LayerBuilder::sliceDir(Value v, int64_t dir) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  offsets[0] = b.getIndexAttr(dir);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v);
  sizes[0] = b.getIndexAttr(1);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  auto resultType = RankedTensorType::get(type.getShape().drop_front(),
                                          type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, resultType, v, offsets, sizes,
                                        strides);
}

Value LayerBuilder::sliceLast(Value v, int64_t offset, int64_t size) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  offsets.back() = b.getIndexAttr(offset);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v);
  sizes.back() = b.getIndexAttr(size);
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, v, offsets, sizes, strides);
}

Value LayerBuilder::sliceStep(Value x, Value t, OpFoldResult batch) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<OpFoldResult> offsets = {t, b.getIndexAttr(0), b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), batch,
                                     tensor::getMixedSize(b, loc, x, 2)};
  SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
  auto resultType = RankedTensorType::get(type.getShape().drop_front(),
                                          type.getElementType());
  return tensor::ExtractSliceOp::create(b, loc, resultType, x, offsets, sizes,
                                        strides);
}

FailureOr<Value> LayerBuilder::activate(const RecurrentActivation &act,
                                        Value x) {
  if (opt.clip) {
    FailureOr<Value> clipped = buildClamp(b, loc, x, -*opt.clip, *opt.clip);
    if (failed(clipped))
      return failure();
    x = *clipped;
  }
  double alpha = act.alpha, beta = act.beta;
  switch (act.kind) {
  case ActKind::Relu:
    return buildElementwiseUnary(b, loc, UnaryOpKind::Relu, x);
  case ActKind::Tanh:
    return buildElementwiseUnary(b, loc, UnaryOpKind::Tanh, x);
  case ActKind::Sigmoid:
    return buildElementwiseUnary(b, loc, UnaryOpKind::Sigmoid, x);
  case ActKind::Affine:
    return buildBroadcastedGeneric(
        b, loc, {x}, elt, [&](OpBuilder &nb, Location l, ValueRange args) {
          Value scaled = arith::MulFOp::create(nb, l, args[0],
                                               createScalar(nb, l, elt, alpha));
          return Value(arith::AddFOp::create(nb, l, scaled,
                                             createScalar(nb, l, elt, beta)));
        });
  case ActKind::ScaledTanh:
    return buildBroadcastedGeneric(
        b, loc, {x}, elt, [&](OpBuilder &nb, Location l, ValueRange args) {
          Value scaled = arith::MulFOp::create(nb, l, args[0],
                                               createScalar(nb, l, elt, beta));
          Value t = math::TanhOp::create(nb, l, scaled);
          return Value(
              arith::MulFOp::create(nb, l, t, createScalar(nb, l, elt, alpha)));
        });
  case ActKind::LeakyRelu:
    return buildLeakyRelu(b, loc, x, alpha);
  case ActKind::ThresholdedRelu:
    return buildParamActivation(b, loc, ParamActivationKind::ThresholdedRelu, x,
                                alpha);
  case ActKind::HardSigmoid:
    return buildParamActivation(b, loc, ParamActivationKind::HardSigmoid, x,
                                alpha, beta);
  case ActKind::Elu:
    return buildElu(b, loc, x, alpha);
  case ActKind::Softsign:
    return buildPointwise(b, loc, PointwiseKind::Softsign, x);
  case ActKind::Softplus:
    return buildSoftplus(b, loc, x, 1.0,
                         std::numeric_limits<double>::infinity());
  }
  return failure();
}

FailureOr<Value> LayerBuilder::mask(Value lens2d, Value t, Value fresh,
                                    Value old) {
  Type lenType = cast<RankedTensorType>(lens2d.getType()).getElementType();
  Value tLen = arith::IndexCastOp::create(b, loc, lenType, t);
  SmallVector<Value> operands = {lens2d, fresh};
  if (old)
    operands.push_back(old);
  Type type = elt;
  FailureOr<Value> result = buildBroadcastedGeneric(
      b, loc, operands, elt, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value valid = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sgt,
                                            args[0], tLen);
        Value other = old ? args[2] : createScalar(nb, l, type, 0.0);
        return Value(arith::SelectOp::create(nb, l, valid, args[1], other));
      });
  if (failed(result))
    return failure();
  return castTo(*result, fresh.getType());
}

LogicalResult LayerBuilder::runDirection(const RecurrentOperands &ops,
                                         int64_t dir, bool reverse,
                                         ArrayRef<RecurrentActivation> acts,
                                         Value &y, Value &finalH,
                                         Value &finalC) {
  RecurrentCellKind cell = opt.cell;
  int64_t gates = numGates(cell), h = hidden;
  bool isLSTM = cell == RecurrentCellKind::LSTM;
  bool isGRU = cell == RecurrentCellKind::GRU;

  // Loop-invariant operands: transposed weights, summed biases, peepholes.
  FailureOr<Value> wT = buildTranspose(b, loc, sliceDir(ops.w, dir), {1, 0});
  FailureOr<Value> rT = buildTranspose(b, loc, sliceDir(ops.r, dir), {1, 0});
  if (failed(wT) || failed(rT))
    return failure();
  // RNN/LSTM: one bias [G*H]. GRU: bias for z, r [2H]; Wb_h and Rb_h apart.
  Value bias, wbH, rbH, rTzr, rTh;
  if (ops.b) {
    Value bd = sliceDir(ops.b, dir);
    Value wb = sliceLast(bd, 0, gates * h),
          rb = sliceLast(bd, gates * h, gates * h);
    if (isGRU) {
      FailureOr<Value> zr =
          add(sliceLast(wb, 0, 2 * h), sliceLast(rb, 0, 2 * h));
      if (failed(zr))
        return failure();
      bias = *zr;
      wbH = sliceLast(wb, 2 * h, h);
      rbH = sliceLast(rb, 2 * h, h);
    } else {
      FailureOr<Value> sum = add(wb, rb);
      if (failed(sum))
        return failure();
      bias = *sum;
    }
  }
  if (isGRU) {
    rTzr = sliceLast(*rT, 0, 2 * h);
    rTh = sliceLast(*rT, 2 * h, h);
  }
  Value pI, pO, pF;
  if (ops.peepholes) {
    Value pd = sliceDir(ops.peepholes, dir);
    pI = sliceLast(pd, 0, h);
    pO = sliceLast(pd, h, h);
    pF = sliceLast(pd, 2 * h, h);
  }
  Value lens2d;
  if (ops.sequenceLens)
    lens2d = insertUnitDim(b, loc, ops.sequenceLens, 1);

  // Initial states, cast to the loop's state type [batch, H].
  auto xType = cast<RankedTensorType>(ops.x.getType());
  auto stateType = RankedTensorType::get({xType.getDimSize(1), h}, elt);
  // Read once, outside the loop: sizes inside it derive from this value
  // (see viewState).
  OpFoldResult batch = tensor::getMixedSize(b, loc, ops.x, 1);
  SmallVector<OpFoldResult> stateSizes = {batch, b.getIndexAttr(h)};
  auto initialState = [&](Value given) {
    if (given)
      return castTo(sliceDir(given, dir), stateType);
    return castTo(createFilled(b, loc, stateSizes, b.getFloatAttr(elt, 0.0)),
                  stateType);
  };
  SmallVector<Value> inits = {initialState(ops.initialH)};
  if (isLSTM)
    inits.push_back(initialState(ops.initialC));
  if (y)
    inits.push_back(y);

  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value seqLen = tensor::DimOp::create(b, loc, ops.x, 0);
  Value last = arith::SubIOp::create(b, loc, seqLen, one);

  // Gate math fails only on malformed operands, which verify() rejected; a
  // failure inside the body is still reported and the loop discarded.
  bool bodyFailed = false;
  auto forOp = scf::ForOp::create(
      b, loc, zero, seqLen, one, inits,
      [&](OpBuilder &nb, Location l, Value iv, ValueRange args) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToEnd(nb.getInsertionBlock());
        auto step = [&]() -> FailureOr<SmallVector<Value>> {
          Value t = reverse ? arith::SubIOp::create(b, loc, last, iv) : iv;
          Value hPrev = viewState(args[0], batch);
          Value cPrev = isLSTM ? viewState(args[1], batch) : Value();
          FailureOr<Value> xw =
              buildMatMul(b, loc, sliceStep(ops.x, t, batch), *wT);
          if (failed(xw))
            return failure();
          Value hNew, cNew;
          if (isGRU) {
            // z, r = f(Xt W_zr^T + Ht-1 R_zr^T + Wb_zr + Rb_zr).
            FailureOr<Value> hr = buildMatMul(b, loc, hPrev, rTzr);
            if (failed(hr))
              return failure();
            FailureOr<Value> zr = add(sliceLast(*xw, 0, 2 * h), *hr);
            if (failed(zr) || failed(zr = addOpt(*zr, bias)) ||
                failed(zr = activate(acts[0], *zr)))
              return failure();
            Value z = sliceLast(*zr, 0, h), r = sliceLast(*zr, h, h);
            // The candidate's recurrent term, before or after the reset.
            FailureOr<Value> rec;
            if (opt.linearBeforeReset) {
              rec = buildMatMul(b, loc, hPrev, rTh);
              if (failed(rec) || failed(rec = addOpt(*rec, rbH)) ||
                  failed(rec = mul(r, *rec)))
                return failure();
            } else {
              FailureOr<Value> reset = mul(r, hPrev);
              if (failed(reset))
                return failure();
              rec = buildMatMul(b, loc, *reset, rTh);
              if (failed(rec) || failed(rec = addOpt(*rec, rbH)))
                return failure();
            }
            FailureOr<Value> cand = add(sliceLast(*xw, 2 * h, h), *rec);
            if (failed(cand) || failed(cand = addOpt(*cand, wbH)) ||
                failed(cand = activate(acts[1], *cand)))
              return failure();
            // Ht = (1 - z) * cand + z * Ht-1 = cand + z * (Ht-1 - cand).
            FailureOr<Value> ht = buildBroadcastedGeneric(
                b, loc, {z, *cand, hPrev}, elt,
                [](OpBuilder &bb, Location ll, ValueRange a) {
                  Value diff = arith::SubFOp::create(bb, ll, a[2], a[1]);
                  Value scaled = arith::MulFOp::create(bb, ll, a[0], diff);
                  return Value(arith::AddFOp::create(bb, ll, a[1], scaled));
                });
            if (failed(ht))
              return failure();
            hNew = *ht;
          } else {
            FailureOr<Value> hr = buildMatMul(b, loc, hPrev, *rT);
            if (failed(hr))
              return failure();
            FailureOr<Value> pre = add(*xw, *hr);
            if (failed(pre) || failed(pre = addOpt(*pre, bias)))
              return failure();
            if (!isLSTM) {
              FailureOr<Value> ht = activate(acts[0], *pre);
              if (failed(ht))
                return failure();
              hNew = *ht;
            } else {
              // Gates i, o, f, c; peepholes i, f read Ct-1, o reads Ct.
              Value gi = sliceLast(*pre, 0, h), go = sliceLast(*pre, h, h);
              Value gf = sliceLast(*pre, 2 * h, h);
              Value gc = sliceLast(*pre, 3 * h, h);
              auto peep = [&](Value g, Value p, Value c) -> FailureOr<Value> {
                if (!p)
                  return g;
                FailureOr<Value> pc = mul(c, p);
                if (failed(pc))
                  return failure();
                return add(g, *pc);
              };
              FailureOr<Value> it = peep(gi, pI, cPrev);
              if (failed(it) || failed(it = activate(acts[0], *it)))
                return failure();
              FailureOr<Value> ft;
              if (opt.inputForget) {
                ft = buildBroadcastedGeneric(
                    b, loc, {*it}, elt,
                    [&](OpBuilder &bb, Location ll, ValueRange a) {
                      return Value(arith::SubFOp::create(
                          bb, ll, createScalar(bb, ll, elt, 1.0), a[0]));
                    });
              } else {
                ft = peep(gf, pF, cPrev);
                if (succeeded(ft))
                  ft = activate(acts[0], *ft);
              }
              FailureOr<Value> ct = activate(acts[1], gc);
              if (failed(ft) || failed(ct))
                return failure();
              // Ct = f * Ct-1 + i * c~.
              FailureOr<Value> cell = buildBroadcastedGeneric(
                  b, loc, {*ft, cPrev, *it, *ct}, elt,
                  [](OpBuilder &bb, Location ll, ValueRange a) {
                    Value keep = arith::MulFOp::create(bb, ll, a[0], a[1]);
                    Value write = arith::MulFOp::create(bb, ll, a[2], a[3]);
                    return Value(arith::AddFOp::create(bb, ll, keep, write));
                  });
              if (failed(cell))
                return failure();
              if (opt.cellClip) {
                cell = buildClamp(b, loc, *cell, -*opt.cellClip, *opt.cellClip);
                if (failed(cell))
                  return failure();
              }
              cNew = castTo(*cell, stateType);
              FailureOr<Value> ot = peep(go, pO, cNew);
              if (failed(ot) || failed(ot = activate(acts[0], *ot)))
                return failure();
              FailureOr<Value> hc = activate(acts[2], cNew);
              if (failed(hc))
                return failure();
              FailureOr<Value> ht = mul(*ot, *hc);
              if (failed(ht))
                return failure();
              hNew = *ht;
            }
          }
          hNew = castTo(hNew, stateType);
          // Rows past a batch entry's sequence length keep their state and
          // give zero outputs.
          Value yRow = hNew;
          if (lens2d) {
            FailureOr<Value> row = mask(lens2d, t, hNew, Value());
            FailureOr<Value> hm = mask(lens2d, t, hNew, hPrev);
            if (failed(row) || failed(hm))
              return failure();
            yRow = *row;
            hNew = *hm;
            if (isLSTM) {
              FailureOr<Value> cm = mask(lens2d, t, cNew, cPrev);
              if (failed(cm))
                return failure();
              cNew = *cm;
            }
          }
          SmallVector<Value> results = {hNew};
          if (isLSTM)
            results.push_back(cNew);
          if (y) {
            Value acc = args.back();
            // Core ML's reverse layers list their states in step order.
            Value row = reverse && opt.reverseOutputInStepOrder &&
                                opt.direction == RecurrentDirection::Reverse
                            ? iv
                            : t;
            SmallVector<OpFoldResult> offsets = {
                row, b.getIndexAttr(dir), b.getIndexAttr(0), b.getIndexAttr(0)};
            SmallVector<OpFoldResult> sizes = {
                b.getIndexAttr(1), b.getIndexAttr(1), batch, b.getIndexAttr(h)};
            SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
            results.push_back(tensor::InsertSliceOp::create(
                b, loc, yRow, acc, offsets, sizes, strides));
          }
          return results;
        };
        FailureOr<SmallVector<Value>> results = step();
        if (failed(results)) {
          bodyFailed = true;
          scf::YieldOp::create(b, loc, args);
          return;
        }
        scf::YieldOp::create(b, loc, *results);
      });
  if (bodyFailed) {
    forOp.erase();
    return failure();
  }
  finalH = forOp.getResult(0);
  if (isLSTM)
    finalC = forOp.getResult(1);
  if (y)
    y = forOp.getResults().back();
  return success();
}

/// Stacks per-direction states [batch, H] into [D, batch, H].
Value stackDirections(OpBuilder &b, Location loc, ArrayRef<Value> states) {
  auto type = cast<RankedTensorType>(states[0].getType());
  SmallVector<OpFoldResult> sizes = {
      b.getIndexAttr(states.size()), tensor::getMixedSize(b, loc, states[0], 0),
      tensor::getMixedSize(b, loc, states[0], 1)};
  Value acc = createEmpty(b, loc, sizes, type.getElementType());
  for (auto [d, s] : llvm::enumerate(states)) {
    SmallVector<OpFoldResult> offsets = {b.getIndexAttr(d), b.getIndexAttr(0),
                                         b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sliceSizes = {b.getIndexAttr(1), sizes[1],
                                            sizes[2]};
    SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
    acc = tensor::InsertSliceOp::create(b, loc, s, acc, offsets, sliceSizes,
                                        strides);
  }
  return acc;
}

} // namespace

FailureOr<RecurrentResults>
mlprog::buildRecurrent(OpBuilder &b, Location loc,
                       const RecurrentOperands &operands,
                       const RecurrentOptions &options) {
  StringRef name = cellName(options.cell);
  if (!operands.x || !operands.w || !operands.r)
    return emitError(loc) << name << ": X, W and R are required";
  FailureOr<RankedTensorType> xType = getRankedType(loc, operands.x, "X");
  if (failed(xType))
    return failure();
  Type elt = xType->getElementType();
  if (!isa<FloatType>(elt))
    return emitError(loc) << name << ": X must be a float tensor, got "
                          << operands.x.getType();
  // f16/bf16 layers run in f32 and round their outputs once, as Core ML,
  // PyTorch and onnxruntime do on CPUs: rounding the carried state to 11 or
  // 8 bits at every step would compound (MIL rnn/gru/lstm of fp16 inputs
  // were off by more than one fp16 ulp against coremltools' references).
  if (elt.isF16() || elt.isBF16()) {
    RecurrentOperands wide = operands;
    for (Value *v : {&wide.x, &wide.w, &wide.r, &wide.b, &wide.initialH,
                     &wide.initialC, &wide.peepholes}) {
      auto t = *v ? dyn_cast<RankedTensorType>(v->getType()) : nullptr;
      if (!t || !(t.getElementType().isF16() || t.getElementType().isBF16()))
        continue;
      FailureOr<Value> w = buildConvertElementType(b, loc, *v, b.getF32Type());
      if (failed(w))
        return failure();
      *v = *w;
    }
    FailureOr<RecurrentResults> r = buildRecurrent(b, loc, wide, options);
    if (failed(r))
      return failure();
    for (Value *v : {&r->y, &r->yH, &r->yC}) {
      if (!*v)
        continue;
      FailureOr<Value> n = buildConvertElementType(b, loc, *v, elt);
      if (failed(n))
        return failure();
      *v = *n;
    }
    return r;
  }
  if (xType->getRank() != 3)
    return emitError(loc) << name << ": X must have rank 3, got "
                          << operands.x.getType();
  if (options.hiddenSize <= 0)
    return emitError(loc) << name << ": hidden_size must be positive, got "
                          << options.hiddenSize;
  if (options.cell != RecurrentCellKind::LSTM &&
      (operands.initialC || operands.peepholes))
    return emitError(loc) << name
                          << ": initial_c and P are for LSTM cells only";
  if (options.cellClip &&
      (options.cell != RecurrentCellKind::LSTM || !(*options.cellClip > 0)))
    return emitError(loc) << name
                          << ": a cell clip needs an LSTM cell and a "
                             "positive threshold";
  int64_t numDirs =
      options.direction == RecurrentDirection::Bidirectional ? 2 : 1;
  int64_t perDir = numActivations(options.cell);
  SmallVector<RecurrentActivation> acts = options.activations;
  if (acts.empty())
    acts = defaultActivations(options.cell);
  if (int64_t(acts.size()) == perDir && numDirs == 2)
    acts.append(SmallVector<RecurrentActivation>(acts));
  if (int64_t(acts.size()) != perDir * numDirs)
    return emitError(loc) << name << ": expected " << perDir * numDirs
                          << " activations, got " << options.activations.size();

  // Work in the seq-major layout.
  RecurrentOperands ops = operands;
  auto toSeqMajor = [&](Value &v) -> LogicalResult {
    if (!v || !options.batchFirst)
      return success();
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || type.getRank() != 3)
      return success(); // verify() reports the rank.
    FailureOr<Value> t = buildTranspose(b, loc, v, {1, 0, 2});
    if (failed(t))
      return failure();
    v = *t;
    return success();
  };
  if (failed(toSeqMajor(ops.x)) || failed(toSeqMajor(ops.initialH)) ||
      failed(toSeqMajor(ops.initialC)))
    return failure();

  LayerBuilder layer(b, loc, options, elt);
  if (failed(layer.verify(ops, numDirs)))
    return failure();

  Value y;
  if (options.computeSequence) {
    auto x = cast<RankedTensorType>(ops.x.getType());
    SmallVector<OpFoldResult> sizes = {tensor::getMixedSize(b, loc, ops.x, 0),
                                       b.getIndexAttr(numDirs),
                                       tensor::getMixedSize(b, loc, ops.x, 1),
                                       b.getIndexAttr(options.hiddenSize)};
    y = createEmpty(b, loc, sizes, x.getElementType());
  }
  SmallVector<Value> finalH, finalC;
  for (int64_t d = 0; d < numDirs; ++d) {
    bool reverse = d == 1 || options.direction == RecurrentDirection::Reverse;
    Value h, c;
    if (failed(layer.runDirection(ops, d, reverse,
                                  ArrayRef(acts).slice(d * perDir, perDir), y,
                                  h, c)))
      return failure();
    finalH.push_back(h);
    if (c)
      finalC.push_back(c);
  }

  RecurrentResults results;
  results.y = y;
  results.yH = stackDirections(b, loc, finalH);
  if (!finalC.empty())
    results.yC = stackDirections(b, loc, finalC);
  if (options.batchFirst) {
    auto permute = [&](Value &v, ArrayRef<int64_t> perm) -> LogicalResult {
      if (!v)
        return success();
      FailureOr<Value> t = buildTranspose(b, loc, v, perm);
      if (failed(t))
        return failure();
      v = *t;
      return success();
    };
    if (failed(permute(results.y, {2, 0, 1, 3})) ||
        failed(permute(results.yH, {1, 0, 2})) ||
        failed(permute(results.yC, {1, 0, 2})))
      return failure();
  }
  return results;
}
