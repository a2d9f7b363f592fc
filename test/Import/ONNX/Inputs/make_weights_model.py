#!/usr/bin/env python3
"""Writes an ONNX model whose initializers straddle mlprog-translate's
weights threshold (1024 bytes), with an input and the numpy result.

Usage: make_weights_model.py OUT_DIR

  y = (x @ w + b) * s + h(cast)   x [2, 64] f32
  w [64, 32] f32 (8192 bytes), h [32] f16 (64 bytes), s [32] f32 (128
  bytes), b [32] f32 (128 bytes), z [32, 64] uint8 (2048 bytes, read by a
  Cast to f32 and a MatMul from the left: y2 = z_f32 @ x^T).

Writes OUT_DIR/model.onnx, OUT_DIR/in_0.npy, OUT_DIR/ref_0.npy and
OUT_DIR/ref_1.npy.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 64)).astype(np.float32)
    w = rng.standard_normal((64, 32)).astype(np.float32)
    b = rng.standard_normal(32).astype(np.float32)
    s = rng.standard_normal(32).astype(np.float32)
    h = rng.standard_normal(32).astype(np.float16)
    z = rng.integers(0, 256, (32, 64)).astype(np.uint8)
    inits = [numpy_helper.from_array(a, n)
             for a, n in [(w, "w"), (b, "b"), (s, "s"), (h, "h"), (z, "z")]]
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["xw"]),
        helper.make_node("Add", ["xw", "b"], ["xwb"]),
        helper.make_node("Mul", ["xwb", "s"], ["scaled"]),
        helper.make_node("Cast", ["h"], ["h32"], to=TensorProto.FLOAT),
        helper.make_node("Add", ["scaled", "h32"], ["y"]),
        helper.make_node("Cast", ["z"], ["z32"], to=TensorProto.FLOAT),
        helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0]),
        helper.make_node("MatMul", ["z32", "xt"], ["y2"]),
    ]
    graph = helper.make_graph(
        nodes, "weights", [helper.make_tensor_value_info(
            "x", TensorProto.FLOAT, [2, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 32]),
         helper.make_tensor_value_info("y2", TensorProto.FLOAT, [32, 2])],
        inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "model.onnx"))
    np.save(os.path.join(out, "in_0.npy"), x)
    y = (x @ w + b) * s + h.astype(np.float32)
    np.save(os.path.join(out, "ref_0.npy"), y.astype(np.float32))
    y2 = z.astype(np.float32) @ x.T
    np.save(os.path.join(out, "ref_1.npy"), y2.astype(np.float32))


if __name__ == "__main__":
    main()
