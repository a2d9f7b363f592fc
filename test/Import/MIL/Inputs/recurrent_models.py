"""Writes MIL programs with lstm, gru, rnn and dynamic-extent conv, their
inputs and numpy references:

  recurrent_models.py layers OUT   every lstm/gru/rnn variant, static shapes
  recurrent_models.py dynamic OUT --length L
                                   conv (custom pad, stride 2; "same") on a
                                   [1, 4, ?] input, then an lstm over the
                                   dynamic sequence (silero-vad's layout)
  recurrent_models.py errors OUT   malformed layers, one program each

OUT gets program.pbtxt (encode with `protoc --encode=mlprog.mil.Program`),
input_<i>.npy and reference_<i>.npy (errors: <case>.pbtxt only).

The references are written here from the MIL op definitions and the numpy
references of coremltools' op tests (mil/ops/tests/iOS14/test_recurrent.py),
not from mlprog's ONNX layout: lstm gate rows i, f, o, z and peepholes i, f,
o; gru rows r, o, z; `clip` clamps the lstm cell state; a "reverse" layer
lists its outputs in step order; a bidirectional lstm keeps each output at
the position of the input it read, forward units first.
"""

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mil_writer import Program, S  # noqa: E402

RNG = np.random.default_rng(11)


def rand(*shape, scale=0.5):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def act(name, x):
    if name == "sigmoid":
        return 1.0 / (1.0 + np.exp(-x))
    if name in ("tanh", "scaled_tanh"):
        return np.tanh(x)
    if name == "relu":
        return np.maximum(x, 0.0)
    if name == "linear":
        return x
    if name == "hard_sigmoid":
        return np.clip(0.2 * x + 0.5, 0.0, 1.0)
    raise ValueError(name)


def lstm_dir(x, h, c, w, r, b, p, reverse, acts, clip):
    """One direction; returns states in step order and the final h, c."""
    ra, ca, oa = acts
    hidden = r.shape[1]
    b = np.zeros(4 * hidden) if b is None else b
    p = np.zeros(3 * hidden) if p is None else p
    pi, pf, po = np.split(p, 3)
    out = []
    steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    for t in steps:
        g = x[t] @ w.T + h @ r.T + b
        gi, gf, go, gz = np.split(g, 4, axis=1)
        i = act(ra, gi + c * pi)
        f = act(ra, gf + c * pf)
        z = act(ca, gz)
        c = f * c + i * z
        if clip is not None:
            c = np.clip(c, -clip, clip)
        o = act(ra, go + c * po)
        h = o * act(oa, c)
        out.append(h)
    return np.stack(out), h, c


def gru_dir(x, h, w, r, b, reverse, acts, input_bias=None, reset_after=False):
    ra, a = acts
    hidden = r.shape[1]
    b = np.zeros(3 * hidden) if b is None else b
    ib = np.zeros(3 * hidden) if input_bias is None else input_bias
    wr, wo, wz = np.split(w, 3)
    rr, ro, rz = np.split(r, 3)
    br, bo, bz = np.split(b, 3)
    ibr, ibo, ibz = np.split(ib, 3)
    out = []
    steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    for t in steps:
        xt = x[t]
        z = act(ra, xt @ wz.T + ibz + h @ rz.T + bz)
        rg = act(ra, xt @ wr.T + ibr + h @ rr.T + br)
        if reset_after:
            o = act(a, xt @ wo.T + ibo + rg * (h @ ro.T + bo))
        else:
            o = act(a, xt @ wo.T + ibo + (rg * h) @ ro.T + bo)
        h = (1 - z) * o + z * h
        out.append(h)
    return np.stack(out), h


def rnn_dir(x, h, w, r, b, reverse, a):
    b = np.zeros(r.shape[0]) if b is None else b
    out = []
    steps = range(x.shape[0] - 1, -1, -1) if reverse else range(x.shape[0])
    for t in steps:
        h = act(a, x[t] @ w.T + h @ r.T + b)
        out.append(h)
    return np.stack(out), h


def f32(*arrays):
    return [np.asarray(a, np.float32) for a in arrays]


def seq_output(steps, output_sequence):
    return steps if output_sequence else steps[-1:]


def add_lstm(prog, x, h0, c0, hidden, direction="forward",
             output_sequence=False, bias=True, peephole=False, clip=None,
             acts=("sigmoid", "tanh", "tanh"), name=None, shapes=None):
    """Appends an lstm on Vars x, h0, c0 ([b, D*H]); returns its outputs."""
    inp = x.value.shape[2]
    dirs = 2 if direction == "bidirectional" else 1
    params = []
    for _ in range(dirs):
        params.append((rand(4 * hidden, inp), rand(4 * hidden, hidden),
                       rand(4 * hidden) if bias else None,
                       rand(3 * hidden) if peephole else None))
    hv, cv = h0.value, c0.value
    if dirs == 1:
        w, r, b, p = params[0]
        steps, h, c = lstm_dir(x.value, hv, cv, w, r, b, p,
                               direction == "reverse", acts, clip)
        y = seq_output(steps, output_sequence)
    else:
        sf, hf, cf = lstm_dir(x.value, hv[:, :hidden], cv[:, :hidden],
                              *params[0], False, acts, clip)
        sb, hb, cb = lstm_dir(x.value, hv[:, hidden:], cv[:, hidden:],
                              *params[1], True, acts, clip)
        sb = sb[::-1]  # aligned with the input positions
        y = (np.concatenate([sf, sb], -1) if output_sequence else
             np.concatenate([hf, hb], -1)[None])
        h, c = np.concatenate([hf, hb], -1), np.concatenate([cf, cb], -1)
    args = dict(x=x, initial_h=h0, initial_c=c0,
                weight_ih=prog.const(params[0][0]),
                weight_hh=prog.const(params[0][1]),
                direction=S(direction), output_sequence=output_sequence,
                recurrent_activation=S(acts[0]), cell_activation=S(acts[1]),
                activation=S(acts[2]))
    if bias:
        args["bias"] = prog.const(params[0][2])
    if peephole:
        args["peephole"] = prog.const(params[0][3])
    if clip is not None:
        args["clip"] = np.float32(clip)
    if dirs == 2:
        args["weight_ih_back"] = prog.const(params[1][0])
        args["weight_hh_back"] = prog.const(params[1][1])
        if bias:
            args["bias_back"] = prog.const(params[1][2])
        if peephole:
            args["peephole_back"] = prog.const(params[1][3])
    return prog.multi_op("lstm", f32(y, h, c), name=name, shapes=shapes,
                         **args)


def add_gru(prog, x, h0, hidden, direction="forward", output_sequence=False,
            bias=True, acts=("sigmoid", "tanh"), reset_after=None,
            input_bias=False):
    inp = x.value.shape[2]
    w, r = rand(3 * hidden, inp), rand(3 * hidden, hidden)
    b = rand(3 * hidden) if bias else None
    ib = rand(3 * hidden) if input_bias else None
    steps, h = gru_dir(x.value, h0.value, w, r, b, direction == "reverse",
                       acts, ib, bool(reset_after))
    args = dict(x=x, initial_h=h0, weight_ih=prog.const(w),
                weight_hh=prog.const(r), direction=S(direction),
                output_sequence=output_sequence,
                recurrent_activation=S(acts[0]), activation=S(acts[1]))
    if bias:
        args["bias"] = prog.const(b)
    if input_bias:
        args["input_bias"] = prog.const(ib)
    if reset_after is not None:
        args["reset_after"] = reset_after
    return prog.multi_op("gru", f32(seq_output(steps, output_sequence), h),
                         **args)


def add_rnn(prog, x, h0, hidden, direction="forward", output_sequence=False,
            bias=True, activation="tanh"):
    inp = x.value.shape[2]
    w, r = rand(hidden, inp), rand(hidden, hidden)
    b = rand(hidden) if bias else None
    steps, h = rnn_dir(x.value, h0.value, w, r, b, direction == "reverse",
                       activation)
    args = dict(x=x, initial_h=h0, weight_ih=prog.const(w),
                weight_hh=prog.const(r), direction=S(direction),
                output_sequence=output_sequence, activation=S(activation))
    if bias:
        args["bias"] = prog.const(b)
    return prog.multi_op("rnn", f32(seq_output(steps, output_sequence), h),
                         **args)


def write(out, prog, outputs):
    with open(os.path.join(out, "program.pbtxt"), "w") as f:
        f.write(prog.program_text(outputs))
    for i, v in enumerate(prog.inputs):
        np.save(os.path.join(out, "input_%d.npy" % i), v.value)
    for i, v in enumerate(outputs):
        np.save(os.path.join(out, "reference_%d.npy" % i), v.value)


def layers(out):
    seq, batch, inp, hidden = 5, 2, 3, 4
    prog = Program(opset="CoreML8")
    x = prog.input("x", rand(seq, batch, inp, scale=1.0))
    h1 = prog.input("h1", rand(batch, hidden))
    c1 = prog.input("c1", rand(batch, hidden))
    h2 = prog.input("h2", rand(batch, 2 * hidden))
    c2 = prog.input("c2", rand(batch, 2 * hidden))
    outputs = []
    # lstm: peepholes, a cell clip that bites, MIL's other activations.
    outputs += add_lstm(prog, x, h1, c1, hidden, output_sequence=True,
                        peephole=True, clip=0.3,
                        acts=("hard_sigmoid", "tanh", "scaled_tanh"))
    outputs += add_lstm(prog, x, h1, c1, hidden, direction="reverse",
                        output_sequence=True, bias=False,
                        acts=("sigmoid", "linear", "relu"))
    outputs += add_lstm(prog, x, h1, c1, hidden, direction="reverse")
    outputs += add_lstm(prog, x, h2, c2, hidden, direction="bidirectional",
                        output_sequence=True, peephole=True)
    outputs += add_lstm(prog, x, h2, c2, hidden, direction="bidirectional")
    outputs += add_gru(prog, x, h1, hidden, output_sequence=True)
    outputs += add_gru(prog, x, h1, hidden, direction="reverse",
                       output_sequence=True, bias=False,
                       acts=("tanh", "sigmoid"))
    outputs += add_gru(prog, x, h1, hidden, direction="reverse")
    # iOS18: reset_after with input_bias (PyTorch's GRU), and without.
    outputs += add_gru(prog, x, h1, hidden, output_sequence=True,
                       reset_after=True, input_bias=True)
    outputs += add_gru(prog, x, h1, hidden, reset_after=False,
                       input_bias=True)
    outputs += add_rnn(prog, x, h1, hidden, output_sequence=True,
                       activation="relu")
    outputs += add_rnn(prog, x, h1, hidden, direction="reverse",
                       output_sequence=True, bias=False)
    outputs += add_rnn(prog, x, h1, hidden, direction="reverse",
                       activation="sigmoid")
    write(out, prog, outputs)


def conv1d(x, w, b, stride, pad):
    xp = np.pad(x, ((0, 0), (0, 0), pad))
    k = w.shape[2]
    n_out = (xp.shape[2] - k) // stride + 1
    cols = np.stack([xp[:, :, i * stride:i * stride + k]
                     for i in range(n_out)], axis=2)  # [N, C, O, K]
    return np.einsum("ncok,fck->nfo", cols, w) + b[None, :, None]


def dynamic(out, length):
    hidden = 5
    prog = Program(opset="CoreML5")
    # x from its own generator: the weights (from RNG) are the same for
    # every length, so one imported program serves them all.
    xv = np.random.default_rng(length).standard_normal(
        (1, 4, length)).astype(np.float32)
    x = prog.input("x", xv, shape=(1, 4, None))
    h0 = prog.input("h0", rand(1, hidden))
    c0 = prog.input("c0", rand(1, hidden))
    w1, b1 = rand(6, 4, 3), rand(6)
    y1 = conv1d(xv, w1, b1, 2, (1, 1)).astype(np.float32)
    [v1] = prog.multi_op("conv", [y1], shapes=[(1, 6, None)], x=x,
                         weight=prog.const(w1), bias=prog.const(b1),
                         strides=np.array([2], np.int32),
                         pad_type=S("custom"), pad=np.array([1, 1], np.int32))
    w2 = rand(6, 6, 3)
    y2 = conv1d(y1, w2, np.zeros(6), 1, (1, 1)).astype(np.float32)
    [v2] = prog.multi_op("conv", [y2], shapes=[(1, 6, None)], x=v1,
                         weight=prog.const(w2), pad_type=S("same"))
    seq = np.transpose(y2, (2, 0, 1))
    [v3] = prog.multi_op("transpose", [seq], shapes=[(None, 1, 6)], x=v2,
                         perm=np.array([2, 0, 1], np.int32))
    outs = add_lstm(prog, v3, h0, c0, hidden, output_sequence=True,
                    shapes=[(None, 1, hidden), None, None])
    write(out, prog, [v1, v2] + outs)


def errors(out):
    """One malformed variant of a small lstm per file."""
    seq, batch, inp, hidden = 2, 1, 3, 2

    def lstm_program(name, **over):
        prog = Program()
        x = prog.input("x", rand(seq, batch, inp))
        h0 = prog.input("h0", rand(batch, hidden))
        c0 = prog.input("c0", rand(batch, hidden))
        args = dict(x=x, initial_h=h0, initial_c=c0,
                    weight_ih=prog.const(rand(4 * hidden, inp)),
                    weight_hh=prog.const(rand(4 * hidden, hidden)))
        for k, v in over.items():
            if v is None:
                args.pop(k)
            elif isinstance(v, np.ndarray) and v.ndim > 0:
                args[k] = prog.const(v)
            else:
                args[k] = v
        op_type = args.pop("op_type", "lstm")
        zeros = np.zeros((1, batch, hidden), np.float32)
        outs = prog.multi_op(op_type, [zeros[0:1], zeros[0], zeros[0]]
                             if op_type == "lstm" else [zeros[0:1], zeros[0]],
                             name="layer", **args)
        with open(os.path.join(out, name + ".pbtxt"), "w") as f:
            f.write(prog.program_text(outs))

    lstm_program("ok")
    lstm_program("weight-hh-shape", weight_hh=rand(4 * hidden, hidden + 1))
    lstm_program("weight-ih-shape", weight_ih=rand(4 * hidden, inp + 1))
    lstm_program("bias-shape", bias=rand(3 * hidden))
    lstm_program("activation", cell_activation=S("swish"))
    lstm_program("direction", direction=S("sideways"))
    lstm_program("missing-back", direction=S("bidirectional"))
    lstm_program("clip", clip=np.float32(-1.0))
    lstm_program("state-shape", initial_h=rand(batch, hidden + 1))
    lstm_program("gru-bidirectional", op_type="gru", initial_c=None,
                 weight_ih=rand(3 * hidden, inp),
                 weight_hh=rand(3 * hidden, hidden),
                 direction=S("bidirectional"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=["layers", "dynamic", "errors"])
    parser.add_argument("out")
    parser.add_argument("--length", type=int, default=9)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.what == "layers":
        layers(args.out)
    elif args.what == "dynamic":
        dynamic(args.out, args.length)
    else:
        errors(args.out)


if __name__ == "__main__":
    main()
