"""The four example programs of the TorchScript IR description (add/mul/tanh,
`if`, `for` loop, LSTM cell in a simple LSTM loop): writes each as a
torch.jit.save archive (NAME.pt) and as inlined IR text (NAME.ir), with
inputs (NAME.input_I.npy) and eager PyTorch outputs (NAME.reference_I.npy).

Usage: seed_examples.py OUT_DIR
"""
import os
import sys
from typing import List, Tuple

import numpy as np
import torch


def f(a, b):
    c = a + b
    d = c * c
    e = torch.tanh(d * c)
    return d + (e + e)


def g(a, b, c: bool):
    d = a + b
    if c:
        e = d + d
    else:
        e = b + d
    return e


def h(x):
    z = x
    for i in range(x.size(0)):
        z = z * z
    return z


def lstm_cell(input, hidden: Tuple[torch.Tensor, torch.Tensor], w_ih, w_hh,
              b_ih, b_hh) -> Tuple[torch.Tensor, torch.Tensor]:
    hx, cx = hidden
    gates = torch.mm(input, w_ih.t()) + torch.mm(hx, w_hh.t()) + b_ih + b_hh
    ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
    ingate = torch.sigmoid(ingate)
    forgetgate = torch.sigmoid(forgetgate)
    cellgate = torch.tanh(cellgate)
    outgate = torch.sigmoid(outgate)
    cy = (forgetgate * cx) + (ingate * cellgate)
    hy = outgate * torch.tanh(cy)
    return hy, cy


def simple_lstm(input, hidden: Tuple[torch.Tensor, torch.Tensor], wih, whh,
                bih, bhh) -> Tuple[torch.Tensor, torch.Tensor]:
    outputs: List[torch.Tensor] = []
    inputs = input.unbind(0)
    for seq_idx in range(len(inputs)):
        hidden = lstm_cell(inputs[seq_idx], hidden, wih, whh, bih, bhh)
        hy, _ = hidden
        outputs.append(hy)
    return hidden


out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(0)
r = lambda *s: rng.uniform(-1, 1, size=s).astype(np.float32)
examples = {
    "addmul": (f, [r(2, 3), r(2, 3)], [r(2, 3), r(2, 3)]),
    "if": (g, [r(4), r(4), True], [r(4), r(4), np.array(True)]),
    "for": (h, [r(3, 4) * 0.9], None),
    "lstm": (simple_lstm, [r(5, 2, 3), (r(2, 4), r(2, 4)), r(16, 3),
                           r(16, 4), r(16), r(16)], None),
}
for name, (fn, args, _) in examples.items():
    scripted = torch.jit.script(fn)
    torch.jit.save(scripted, os.path.join(out, name + ".pt"))
    graph = scripted.inlined_graph
    torch._C._jit_pass_dce(graph)
    open(os.path.join(out, name + ".ir"), "w").write(str(graph))
    flat = []
    for a in args:
        flat += list(a) if isinstance(a, tuple) else [a]
    for i, a in enumerate(flat):
        np.save(os.path.join(out, "%s.input_%d.npy" % (name, i)), np.array(a))
    targs = [tuple(torch.from_numpy(t) for t in a) if isinstance(a, tuple)
             else torch.from_numpy(a) if isinstance(a, np.ndarray) else a
             for a in args]
    res = fn(*targs)
    res = res if isinstance(res, tuple) else (res,)
    for i, t in enumerate(res):
        np.save(os.path.join(out, "%s.reference_%d.npy" % (name, i)),
                t.numpy())
