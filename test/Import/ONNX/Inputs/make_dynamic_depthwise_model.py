#!/usr/bin/env python3
"""Writes two depthwise 3x3 convolutions in a row on x [N, 4, 5, 5] with a
symbolic batch N (as in mobilenet_v3 and efficientnet exported with a
dynamic batch), the input for N = 3 and the numpy result.

Usage: make_dynamic_depthwise_model.py OUT_DIR
Writes OUT_DIR/model.onnx, OUT_DIR/in_0.npy, OUT_DIR/ref_0.npy.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def depthwise(x, w, b):
    n, c, h, wd = x.shape
    p = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)])
    y = np.zeros_like(x)
    for i in range(3):
        for j in range(3):
            y += p[:, :, i:i + h, j:j + wd] * w[:, 0, i, j][None, :, None,
                                                             None]
    return y + b[None, :, None, None]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(0)
    w1 = rng.standard_normal((4, 1, 3, 3)).astype(np.float32)
    w2 = rng.standard_normal((4, 1, 3, 3)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    attrs = dict(group=4, kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    nodes = [helper.make_node("Conv", ["x", "w1", "b"], ["h"], **attrs),
             helper.make_node("Conv", ["h", "w2", "b"], ["y"], **attrs)]
    graph = helper.make_graph(
        nodes, "dw",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4, 5, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4, 5, 5])],
        [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2"),
         numpy_helper.from_array(b, "b")])
    onnx.save(helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17)]), os.path.join(out, "model.onnx"))
    x = rng.standard_normal((3, 4, 5, 5)).astype(np.float32)
    np.save(os.path.join(out, "in_0.npy"), x)
    np.save(os.path.join(out, "ref_0.npy"),
            depthwise(depthwise(x, w1, b), w2, b).astype(np.float32))


if __name__ == "__main__":
    main()
