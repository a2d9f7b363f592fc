//===- Recurrent.h - RNN, GRU and LSTM layer builders -----------*- C++ -*-===//
//
// Format-independent builders for recurrent layers (simple RNN, GRU, LSTM),
// lowered to an scf.for over the sequence whose iter_args carry the hidden
// (and cell) state and the stacked outputs. Each step is a linalg.matmul of
// the step's input and of the previous hidden state with the (pre-
// transposed) weights plus elementwise gate math from the Elementwise,
// Pointwise and ElementwiseMath builders.
//
// Weights use ONNX's packed layout (gates stacked along the rows of W and R,
// directions along dim 0); importers of other formats (aten::lstm, MIL
// lstm) repack into it.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_RECURRENT_H
#define MLPROG_IMPORT_COMMON_RECURRENT_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlprog {

/// Which recurrent cell a layer uses.
enum class RecurrentCellKind {
  /// Ht = f(Xt W^T + Ht-1 R^T + Wb + Rb); one gate.
  RNN,
  /// Gates z, r, h (in that order in W, R, B). Two activations f, g.
  GRU,
  /// Gates i, o, f, c (in that order in W, R, B); peepholes i, o, f. Three
  /// activations f, g, h.
  LSTM,
};

/// Direction(s) in which a layer walks the sequence.
enum class RecurrentDirection { Forward, Reverse, Bidirectional };

/// Activation functions a recurrent cell may apply (ONNX RNN/GRU/LSTM
/// `activations`), with their parameters.
struct RecurrentActivation {
  enum class Kind {
    Relu,
    Tanh,
    Sigmoid,
    /// alpha * x + beta.
    Affine,
    /// x >= 0 ? x : alpha * x.
    LeakyRelu,
    /// x > alpha ? x : 0.
    ThresholdedRelu,
    /// alpha * tanh(beta * x).
    ScaledTanh,
    /// max(0, min(1, alpha * x + beta)).
    HardSigmoid,
    /// x >= 0 ? x : alpha * (exp(x) - 1).
    Elu,
    /// x / (1 + |x|).
    Softsign,
    /// log(1 + exp(x)).
    Softplus,
  };
  Kind kind = Kind::Tanh;
  double alpha = 0.0;
  double beta = 0.0;

  /// Parses an ONNX activation name (case-insensitive); nullopt if unknown.
  /// The parameters get the defaults of the ONNX operators of the same name
  /// (LeakyRelu 0.01, ThresholdedRelu 1, HardSigmoid 0.2/0.5, Elu 1,
  /// Affine 1/0, ScaledTanh 1/1).
  static std::optional<RecurrentActivation> parse(llvm::StringRef name);
  /// Whether the function takes an alpha (resp. beta) parameter.
  bool usesAlpha() const;
  bool usesBeta() const;
};

/// Attributes of a recurrent layer.
struct RecurrentOptions {
  RecurrentCellKind cell = RecurrentCellKind::LSTM;
  RecurrentDirection direction = RecurrentDirection::Forward;
  /// Number of hidden units H.
  int64_t hiddenSize = 0;
  /// Layout 1 (batch first): X is [batch, seq, input], initial states are
  /// [batch, dirs, H], Y is [batch, seq, dirs, H] and Y_h/Y_c [batch, dirs,
  /// H]. Layout 0: X [seq, batch, input], states [dirs, batch, H], Y [seq,
  /// dirs, batch, H].
  bool batchFirst = false;
  /// Activations, per direction (forward first): 1 (RNN), 2 (GRU: f, g) or
  /// 3 (LSTM: f, g, h) each; either that many (reused for the reverse
  /// direction) or twice that many for a bidirectional layer.
  llvm::SmallVector<RecurrentActivation> activations;
  /// Clamps every gate pre-activation to [-clip, clip] (ONNX `clip`).
  std::optional<double> clip;
  /// LSTM: clamps the cell state Ct to [-cellClip, cellClip] after each
  /// update, before the output gate's peephole and the output activation
  /// read it; the clamped state is carried to the next step and returned as
  /// Y_c. Gate pre-activations are unchanged. Spec: MIL lstm `clip`, Core ML
  /// LSTMParams.cellClipThreshold.
  std::optional<double> cellClip;
  /// Reverse direction only (not bidirectional): row k of Y holds the state
  /// after the k-th step taken, i.e. after reading x[seq - 1 - k], so Y is in
  /// the order the layer walked (MIL lstm/gru/rnn with direction "reverse").
  /// By default (ONNX) each state sits at the position of the x it read.
  bool reverseOutputInStepOrder = false;
  /// GRU: apply R_h (and Rb_h) before multiplying by the reset gate.
  bool linearBeforeReset = false;
  /// LSTM: couple the input and forget gates (f = 1 - i).
  bool inputForget = false;
  /// Whether to build the full output sequence Y (otherwise `y` is null).
  bool computeSequence = true;
};

/// Operands of a recurrent layer; null means absent. With D directions, G
/// gates (1, 3, 4) and hidden size H:
///   x            [seq, batch, input] (see batchFirst), float
///   w            [D, G*H, input]
///   r            [D, G*H, H]
///   b            [D, 2*G*H] (input biases Wb, then recurrent biases Rb);
///                absent: 0
///   sequenceLens [batch] signless integer; absent: every sequence is full.
///                Steps t >= len[b] leave batch b's state unchanged and give
///                zero rows of Y (for the reverse direction, batch b starts
///                at step len[b] - 1).
///   initialH     [D, batch, H] (see batchFirst); absent: 0
///   initialC     [D, batch, H], LSTM only; absent: 0
///   peepholes    [D, 3*H] (P_i, P_o, P_f), LSTM only; absent: 0
struct RecurrentOperands {
  mlir::Value x, w, r, b, sequenceLens, initialH, initialC, peepholes;
};

/// Results of a recurrent layer: Y [seq, D, batch, H] (null unless
/// computeSequence), Y_h [D, batch, H] and, for LSTM, Y_c [D, batch, H] (in
/// the batch-first layout when batchFirst).
struct RecurrentResults {
  mlir::Value y, yH, yC;
};

/// Reorders the gate blocks of `v` along `axis` (in [0, rank)): the static
/// extent of `axis` holds order.size() equal blocks, and block i of the
/// result is block order[i] of `v`. Repacks another format's gate order into
/// the one RecurrentCellKind documents (e.g. MIL lstm's i, f, o, z rows with
/// order {0, 2, 1, 3} give ONNX's i, o, f, c).
/// Errors: a dynamic or indivisible extent, an order that is not a
/// permutation.
mlir::FailureOr<mlir::Value> buildGateReorder(mlir::OpBuilder &b,
                                              mlir::Location loc, mlir::Value v,
                                              int64_t axis,
                                              llvm::ArrayRef<int64_t> order);

/// One direction's operands in the layout of RecurrentOperands, each with a
/// leading unit dim: w [1, G*H, in], r [1, G*H, H], b [1, 2*G*H] (null when
/// both biases were absent) and peepholes [1, 3*H] (null when absent).
struct RecurrentDirectionWeights {
  mlir::Value w, r, b, peepholes;
};

/// Packs one direction's weights, given in another format's gate order, into
/// the layout buildRecurrent takes: block i of each result is block
/// gateOrder[i] of the operand (as buildGateReorder), for both halves of
/// the bias.
///   w [G*H, in], r [G*H, H]    PyTorch's w_ih/w_hh, MIL's weight_ih/hh
///   inputBias, recurrentBias  [G*H] each; either may be null (zeros; both
///                             null: no bias). A format with one summed
///                             bias passes it as either half.
///   peepholes [3*H] reordered by peepholeOrder, or null.
/// The caller checks the shapes (its own names belong in the message).
/// Errors: those of buildGateReorder.
mlir::FailureOr<RecurrentDirectionWeights> buildRecurrentDirectionWeights(
    mlir::OpBuilder &b, mlir::Location loc, mlir::Value w, mlir::Value r,
    mlir::Value inputBias, mlir::Value recurrentBias, mlir::Value peepholes,
    llvm::ArrayRef<int64_t> gateOrder, llvm::ArrayRef<int64_t> peepholeOrder);

/// Builds a recurrent layer. Dynamic seq and batch extents are supported
/// (the loop runs to `tensor.dim` of X).
///
/// Errors (located at `loc`): non-float or mismatched element types, ranks
/// other than those above, static extents that contradict D, G, H or the
/// input size, a wrong number of activations, peepholes or initial cell for
/// a non-LSTM cell, a non-positive hidden size.
/// Spec: ONNX RNN/GRU/LSTM (opsets 7 and 14).
mlir::FailureOr<RecurrentResults>
buildRecurrent(mlir::OpBuilder &b, mlir::Location loc,
               const RecurrentOperands &operands,
               const RecurrentOptions &options);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_RECURRENT_H
