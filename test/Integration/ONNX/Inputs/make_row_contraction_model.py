#!/usr/bin/env python3
"""Writes a model with the contractions of a decoding step: a linear layer
y = x W over a sequence of unknown length (W [64, 200] an initializer: 6
panels of 32 columns and 8 more) and attention's product of probabilities
with values, z = p v (p [12, ?, 40], v [12, 40, 64] inputs), then inputs
for ROWS rows and the numpy results.

Usage: make_row_contraction_model.py OUT_DIR ROWS
Writes OUT_DIR/model.onnx, OUT_DIR/in_0.npy (x), OUT_DIR/in_1.npy (p),
OUT_DIR/in_2.npy (v), OUT_DIR/ref_0.npy (y), OUT_DIR/ref_1.npy (z).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out, rows = sys.argv[1], int(sys.argv[2])
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(rows)
    w = rng.standard_normal((64, 200)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"]),
         helper.make_node("MatMul", ["p", "v"], ["z"])],
        "rows",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["s", 64]),
         helper.make_tensor_value_info("p", TensorProto.FLOAT, [12, "s", 40]),
         helper.make_tensor_value_info("v", TensorProto.FLOAT, [12, 40, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["s", 200]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, [12, "s", 64])],
        [numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, os.path.join(out, "model.onnx"))
    x = rng.standard_normal((rows, 64)).astype(np.float32)
    p = rng.standard_normal((12, rows, 40)).astype(np.float32)
    v = rng.standard_normal((12, 40, 64)).astype(np.float32)
    for i, value in enumerate((x, p, v)):
        np.save(os.path.join(out, f"in_{i}.npy"), value)
    np.save(os.path.join(out, "ref_0.npy"),
            (x.astype(np.float64) @ w).astype(np.float32))
    np.save(os.path.join(out, "ref_1.npy"),
            (p.astype(np.float64) @ v).astype(np.float32))


if __name__ == "__main__":
    main()
