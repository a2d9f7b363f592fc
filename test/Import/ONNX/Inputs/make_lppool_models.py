#!/usr/bin/env python3
"""Writes small ONNX LpPool-18 models (and inputs/references) for lppool.test.

Usage: make_lppool_models.py NAME OUT_DIR
  p3      LpPool, p = 3, kernel [2, 2], pads [1, 0, 0, 1], strides [1, 2] of
          x [1, 2, 3, 4]; reference: numpy (sum of |x|^3 over the window,
          padding contributing 0, to the power 1/3).
  bad_p   LpPool with p = 0.
Writes OUT_DIR/model.onnx and, for p3, OUT_DIR/x.npy and OUT_DIR/ref.npy.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def lppool_model(p, out_shape):
    node = helper.make_node("LpPool", ["x"], ["y"], kernel_shape=[2, 2],
                            pads=[1, 0, 0, 1], strides=[1, 2], p=p)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)])
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", 18)])


def main():
    name, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    x = ref = None
    if name == "p3":
        model = lppool_model(3, [1, 2, 3, 2])
        x = np.random.default_rng(0).standard_normal((1, 2, 3, 4)).astype(
            np.float32)
        padded = np.pad(np.abs(x.astype(np.float64)) ** 3,
                        ((0, 0), (0, 0), (1, 0), (0, 1)))
        ref = np.zeros((1, 2, 3, 2))
        for i in range(3):
            for j in range(2):
                ref[:, :, i, j] = padded[:, :, i:i + 2,
                                         2 * j:2 * j + 2].sum(axis=(2, 3))
        ref = (ref ** (1.0 / 3)).astype(np.float32)
    elif name == "bad_p":
        model = lppool_model(0, [1, 2, 3, 2])
    else:
        sys.exit("unknown model " + name)
    onnx.save(model, os.path.join(out, "model.onnx"))
    if x is not None:
        np.save(os.path.join(out, "x.npy"), x)
        np.save(os.path.join(out, "ref.npy"), ref)


if __name__ == "__main__":
    main()
