#!/usr/bin/env python3
"""Writes an ONNX model of Einsums that are batched matrix products, as
torchvision's maxvit_t writes its attention, and numpy's results:

- y0 = einsum("bghid,bghjd->bghij", q, k): q [n, 3, 2, 5, 4], k [n, 3, 2, 6, 4]
- y1 = einsum("bghij,bghjd->bghid", y0, v): v [n, 3, 2, 6, 4]
  (n a dynamic batch, 2 in the inputs written)
- y2 = einsum("ij,bjk->bki", w, u): w [5, 4], u [2, 4, 3] (the row label of
  the first operand last in the output, a batch only in the second: not a
  matrix product of this form, left to the generic contraction)
- y3 = einsum("bkj,bik->bji", u, t): t [2, 7, 4] (operands in the other
  order)

Usage: make_einsum_matmul_model.py OUT_DIR
Writes OUT_DIR/model.onnx, inputs in_{0..5}.npy (q, k, v, w, u, t in
graph order) and ref_{0..3}.npy.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    shapes = {"q": [2, 3, 2, 5, 4], "k": [2, 3, 2, 6, 4], "v": [2, 3, 2, 6, 4],
              "w": [5, 4], "u": [2, 4, 3], "t": [2, 7, 4]}
    eqs = [("bghid,bghjd->bghij", ["q", "k"]),
           ("bghij,bghjd->bghid", ["y0", "v"]),
           ("ij,bjk->bki", ["w", "u"]),
           ("bkj,bik->bji", ["u", "t"])]
    nodes = [helper.make_node("Einsum", ins, ["y%d" % i], equation=eq)
             for i, (eq, ins) in enumerate(eqs)]
    f = TensorProto.FLOAT
    graph = helper.make_graph(
        nodes, "einsum_matmul",
        [helper.make_tensor_value_info(n, f, ["n"] + s[1:] if n in "qkv"
                                       else s)
         for n, s in shapes.items()],
        [helper.make_tensor_value_info("y%d" % i, f, ["y%d_%d" % (i, d)
                                                       for d in range(r)])
         for i, r in enumerate([5, 5, 3, 3])])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "model.onnx"))
    rng = np.random.default_rng(0)
    values = {}
    for i, (n, s) in enumerate(shapes.items()):
        values[n] = rng.standard_normal(s).astype(np.float32)
        np.save(os.path.join(out, "in_%d.npy" % i), values[n])
    for i, (eq, ins) in enumerate(eqs):
        values["y%d" % i] = np.einsum(eq, *[values[n] for n in ins])
        np.save(os.path.join(out, "ref_%d.npy" % i), values["y%d" % i])


if __name__ == "__main__":
    main()
