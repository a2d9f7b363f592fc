"""Writes RNN/GRU/LSTM test models with inputs and numpy references.

usage: make_recurrent_models.py CASE OUT_DIR

Writes OUT_DIR/model.onnx, OUT_DIR/input_<i>.npy and, for valid models,
OUT_DIR/reference_<i>.npy computed by the reference implementation below
(written from the ONNX operator pages, independent of the importer), in the
layout run_graph_model.py reads. Cases cover what ONNX's own node tests do
not: both directions, sequence_lens, initial states, clip, parametric
activations, GRU linear_before_reset, LSTM input_forget, layout 1 and
dynamic batch/sequence extents.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
DEFAULT_ACTS = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"],
                "LSTM": ["Sigmoid", "Tanh", "Tanh"]}


def activation(name, alpha, beta):
    name = name.lower()
    if name == "tanh":
        return np.tanh
    if name == "sigmoid":
        return lambda x: 1 / (1 + np.exp(-x))
    if name == "relu":
        return lambda x: np.maximum(x, 0)
    if name == "leakyrelu":
        return lambda x: np.where(x >= 0, x, alpha * x)
    if name == "hardsigmoid":
        return lambda x: np.clip(alpha * x + beta, 0, 1)
    if name == "affine":
        return lambda x: alpha * x + beta
    if name == "scaledtanh":
        return lambda x: alpha * np.tanh(beta * x)
    if name == "softsign":
        return lambda x: x / (1 + np.abs(x))
    if name == "elu":
        return lambda x: np.where(x >= 0, x, alpha * (np.exp(x) - 1))
    raise ValueError(name)


def reference(op, attrs, X, W, R, B=None, lens=None, h0=None, c0=None,
              P=None):
    """ONNX RNN/GRU/LSTM in float64: returns Y, Y_h (and Y_c)."""
    H = attrs["hidden_size"]
    layout = attrs.get("layout", 0)
    direction = attrs.get("direction", "forward")
    D = 2 if direction == "bidirectional" else 1
    clip = attrs.get("clip")
    if layout == 1:
        X = X.transpose(1, 0, 2)
        h0 = None if h0 is None else h0.transpose(1, 0, 2)
        c0 = None if c0 is None else c0.transpose(1, 0, 2)
    S, N, _ = X.shape
    names = attrs.get("activations", DEFAULT_ACTS[op] * D)
    if len(names) == len(DEFAULT_ACTS[op]) and D == 2:
        names = names * 2
    alphas = list(attrs.get("activation_alpha", []))
    betas = list(attrs.get("activation_beta", []))
    defaults = {"leakyrelu": (0.01, 0), "hardsigmoid": (0.2, 0.5),
                "affine": (1, 0), "scaledtanh": (1, 1), "elu": (1, 0)}
    acts = []
    for name in names:
        alpha, beta = defaults.get(name.lower(), (0, 0))
        if name.lower() in ("leakyrelu", "hardsigmoid", "affine", "scaledtanh",
                            "elu") and alphas:
            alpha = alphas.pop(0)
        if name.lower() in ("hardsigmoid", "affine", "scaledtanh") and betas:
            beta = betas.pop(0)
        acts.append(activation(name, alpha, beta))
    per = len(DEFAULT_ACTS[op])

    def clipped(x):
        return x if clip is None else np.clip(x, -clip, clip)

    G = GATES[op]
    Y = np.zeros((S, D, N, H))
    Yh = np.zeros((D, N, H))
    Yc = np.zeros((D, N, H))
    for d in range(D):
        f = acts[d * per:(d + 1) * per]
        w, r = W[d], R[d]
        b = B[d] if B is not None else np.zeros(2 * G * H)
        wb, rb = b[:G * H], b[G * H:]
        h = h0[d].copy() if h0 is not None else np.zeros((N, H))
        c = c0[d].copy() if c0 is not None else np.zeros((N, H))
        p = P[d] if P is not None else np.zeros(3 * H)
        reverse = d == 1 or direction == "reverse"
        for step in range(S):
            t = S - 1 - step if reverse else step
            x = X[t]
            if op == "RNN":
                hn = f[0](clipped(x @ w.T + h @ r.T + wb + rb))
                cn = c
            elif op == "GRU":
                g = x @ w.T + wb
                z = f[0](clipped(g[:, :H] + h @ r[:H].T + rb[:H]))
                rr = f[0](clipped(g[:, H:2 * H] + h @ r[H:2 * H].T
                                  + rb[H:2 * H]))
                if attrs.get("linear_before_reset", 0):
                    rec = rr * (h @ r[2 * H:].T + rb[2 * H:])
                else:
                    rec = (rr * h) @ r[2 * H:].T + rb[2 * H:]
                cand = f[1](clipped(g[:, 2 * H:] + rec))
                hn = (1 - z) * cand + z * h
                cn = c
            else:
                g = x @ w.T + h @ r.T + wb + rb
                i = f[0](clipped(g[:, :H] + p[:H] * c))
                if attrs.get("input_forget", 0):
                    fg = 1 - i
                else:
                    fg = f[0](clipped(g[:, 2 * H:3 * H] + p[2 * H:] * c))
                cn = fg * c + i * f[1](clipped(g[:, 3 * H:]))
                o = f[0](clipped(g[:, H:2 * H] + p[H:2 * H] * cn))
                hn = o * f[2](cn)
            valid = np.ones((N, 1), bool) if lens is None else \
                (lens > t).reshape(N, 1)
            Y[t, d] = np.where(valid, hn, 0)
            h = np.where(valid, hn, h)
            c = np.where(valid, cn, c)
        Yh[d], Yc[d] = h, c
    if layout == 1:
        Y = Y.transpose(2, 0, 1, 3)
        Yh = Yh.transpose(1, 0, 2)
        Yc = Yc.transpose(1, 0, 2)
    return Y, Yh, Yc


# name: (op, attrs, seq, batch, input, optional inputs, dynamic, opset)
CASES = {
    "rnn_bidir_lens": ("RNN", dict(hidden_size=4, direction="bidirectional"),
                       5, 3, 2, ["B", "sequence_lens", "initial_h"], False, 14),
    "rnn_relu_reverse": ("RNN", dict(hidden_size=3, direction="reverse",
                                     activations=["Relu"]), 4, 2, 3, ["B"],
                         False, 7),
    "gru_lbr_bidir": ("GRU", dict(hidden_size=5, direction="bidirectional",
                                  linear_before_reset=1), 4, 2, 3,
                      ["B", "sequence_lens", "initial_h"], False, 14),
    "gru_acts_clip": ("GRU", dict(hidden_size=3, clip=0.5,
                                  activations=["HardSigmoid", "LeakyRelu"],
                                  activation_alpha=[0.3, 0.1],
                                  activation_beta=[0.4]), 3, 2, 2, ["B"],
                      False, 14),
    "lstm_bidir_batchfirst": ("LSTM", dict(hidden_size=4, layout=1,
                                           direction="bidirectional"),
                              5, 3, 2, ["B", "sequence_lens", "initial_h",
                                        "initial_c", "P"], False, 14),
    "lstm_input_forget": ("LSTM", dict(hidden_size=3, input_forget=1,
                                       activations=["Sigmoid", "Affine",
                                                    "ScaledTanh"],
                                       activation_alpha=[0.5, 1.5],
                                       activation_beta=[0.1, 0.7]),
                          3, 2, 4, ["B", "initial_h", "initial_c"], False,
                          14),
    "lstm_dynamic": ("LSTM", dict(hidden_size=4), 6, 3, 5,
                     ["B", "sequence_lens", "initial_h", "initial_c"], True,
                     14),
}


def make_case(name, out):
    op, attrs, S, N, I, optional, dynamic, opset = CASES[name]
    H = attrs["hidden_size"]
    D = 2 if attrs.get("direction") == "bidirectional" else 1
    G = GATES[op]
    layout = attrs.get("layout", 0)
    rng = np.random.default_rng(len(name))
    f32 = lambda *s: rng.uniform(-1, 1, s).astype(np.float32)
    values = {
        "X": f32(N, S, I) if layout else f32(S, N, I),
        "W": f32(D, G * H, I), "R": f32(D, G * H, H), "B": f32(D, 2 * G * H),
        "sequence_lens": rng.integers(1, S + 1, N).astype(np.int32),
        "initial_h": f32(N, D, H) if layout else f32(D, N, H),
        "initial_c": f32(N, D, H) if layout else f32(D, N, H),
        "P": f32(D, 3 * H),
    }
    order = ["X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c",
             "P"]
    used = [n for n in order if n in ["X", "W", "R"] + optional]
    last = max(order.index(n) for n in used)
    node_inputs = [n if n in used else "" for n in order[:last + 1]]
    outputs = ["Y", "Y_h"] + (["Y_c"] if op == "LSTM" else [])
    node = helper.make_node(op, node_inputs, outputs, **attrs)

    def info(n, arr, elem):
        shape = list(arr.shape)
        if dynamic and n in ("X", "sequence_lens", "initial_h", "initial_c"):
            # Batch (and for X the sequence) extents are symbolic.
            sym = {"X": ["seq", "batch", None], "sequence_lens": ["batch"],
                   "initial_h": [None, "batch", None],
                   "initial_c": [None, "batch", None]}[n]
            shape = [s or v for s, v in zip(sym, shape)]
        return helper.make_tensor_value_info(n, elem, shape)

    graph_inputs = [info(n, values[n], TensorProto.INT32 if
                         n == "sequence_lens" else TensorProto.FLOAT)
                    for n in used]
    args = {n: values[n].astype(np.float64) if n != "sequence_lens"
            else values[n] for n in used}
    refs = reference(op, attrs, args["X"], args["W"], args["R"],
                     args.get("B"), args.get("sequence_lens"),
                     args.get("initial_h"), args.get("initial_c"),
                     args.get("P"))
    graph_outputs = []
    for o, ref in zip(outputs, refs):
        shape = list(ref.shape)
        if dynamic:  # layout 0: Y [seq, D, batch, H], Y_h/Y_c [D, batch, H]
            shape = ["seq", shape[1], "batch", shape[3]] if o == "Y" else \
                [shape[0], "batch", shape[2]]
        graph_outputs.append(
            helper.make_tensor_value_info(o, TensorProto.FLOAT, shape))
    graph = helper.make_graph([node], name, graph_inputs, graph_outputs)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(model)
    os.makedirs(out, exist_ok=True)
    onnx.save(model, os.path.join(out, "model.onnx"))
    for i, n in enumerate(used):
        np.save(os.path.join(out, f"input_{i}.npy"), values[n])
    for i, _ in enumerate(outputs):
        np.save(os.path.join(out, f"reference_{i}.npy"),
                refs[i].astype(np.float32))


def make_bad_w(out):
    """An LSTM whose W has 3*H rows instead of 4*H."""
    X = helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 1, 3])
    W = helper.make_tensor_value_info("W", TensorProto.FLOAT, [1, 12, 3])
    R = helper.make_tensor_value_info("R", TensorProto.FLOAT, [1, 16, 4])
    Y = helper.make_tensor_value_info("Y_h", TensorProto.FLOAT, [1, 1, 4])
    node = helper.make_node("LSTM", ["X", "W", "R"], ["", "Y_h"],
                            name="bad_lstm", hidden_size=4)
    graph = helper.make_graph([node], "bad_w", [X, W, R], [Y])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 14)])
    os.makedirs(out, exist_ok=True)
    onnx.save(model, os.path.join(out, "model.onnx"))


def main():
    name, out = sys.argv[1], sys.argv[2]
    if name == "bad_w":
        make_bad_w(out)
    else:
        make_case(name, out)


if __name__ == "__main__":
    main()
