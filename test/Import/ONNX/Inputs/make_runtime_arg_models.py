#!/usr/bin/env python3
"""Writes small ONNX models whose op arguments are graph inputs (run-time
values), with their inputs and numpy references.

Usage: make_runtime_arg_models.py NAME OUT_DIR
  slice      Slice of x [4, 6] with run-time starts/ends/axes/steps (a
             negative step on axis 1); the result extents are symbolic.
  unsqueeze  Unsqueeze of x [3, 4] with run-time axes [-1, 0]; the result
             has rank 4 and symbolic extents.
  pad        Pad (constant mode) of x [3, 4] with run-time pads that crop
             one side (a negative pad) and a run-time fill value.
  bad_axes   Unsqueeze whose axes input is a float tensor (an error).
  bad_starts Slice whose starts input is 2-D (an error).
Writes OUT_DIR/model.onnx, the inputs OUT_DIR/in_<i>.npy and the numpy
result OUT_DIR/ref.npy (not for the error models).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def save(out, nodes, inputs, outputs, feeds, ref, check=True):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 13)])
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "model.onnx"))
    for i, a in enumerate(feeds):
        np.save(os.path.join(out, f"in_{i}.npy"), a)
    if ref is not None:
        np.save(os.path.join(out, "ref.npy"), ref)


def arg(values):
    return np.array(values, dtype=np.int64)


def main():
    name, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    x34 = np.arange(12, dtype=np.float32).reshape(3, 4)
    if name == "slice":
        feeds = [x, arg([1, -1]), arg([100, 0]), arg([0, 1]), arg([2, -2])]
        inputs = [vi("x", TensorProto.FLOAT, [4, 6])] + [
            vi(n, TensorProto.INT64, [2])
            for n in ("starts", "ends", "axes", "steps")]
        save(out, [helper.make_node("Slice",
                                    ["x", "starts", "ends", "axes", "steps"],
                                    ["y"])],
             inputs, [vi("y", TensorProto.FLOAT, ["a", "b"])], feeds,
             x[1:100:2, -1:0:-2])
    elif name == "unsqueeze":
        save(out, [helper.make_node("Unsqueeze", ["x", "axes"], ["y"])],
             [vi("x", TensorProto.FLOAT, [3, 4]),
              vi("axes", TensorProto.INT64, [2])],
             [vi("y", TensorProto.FLOAT, ["a", "b", "c", "d"])],
             [x34, arg([-1, 0])], x34.reshape(1, 3, 4, 1))
    elif name == "pad":
        fill = np.array(7.5, dtype=np.float32)
        save(out, [helper.make_node("Pad", ["x", "pads", "v"], ["y"])],
             [vi("x", TensorProto.FLOAT, [3, 4]),
              vi("pads", TensorProto.INT64, [4]),
              vi("v", TensorProto.FLOAT, [])],
             [vi("y", TensorProto.FLOAT, ["a", "b"])],
             [x34, arg([1, -1, 2, 2]), fill],
             np.pad(x34[:, 1:], ((1, 2), (0, 2)), constant_values=7.5))
    elif name == "bad_axes":
        save(out, [helper.make_node("Unsqueeze", ["x", "axes"], ["y"])],
             [vi("x", TensorProto.FLOAT, [3, 4]),
              vi("axes", TensorProto.FLOAT, [2])],
             [vi("y", TensorProto.FLOAT, [1, 3, 4, 1])], [], None,
             check=False)
    elif name == "bad_starts":
        save(out, [helper.make_node("Slice", ["x", "s", "e"], ["y"])],
             [vi("x", TensorProto.FLOAT, [4, 6]),
              vi("s", TensorProto.INT64, [1, 2]),
              vi("e", TensorProto.INT64, [2])],
             [vi("y", TensorProto.FLOAT, [4, 6])], [], None, check=False)
    else:
        sys.exit(f"unknown model {name}")


if __name__ == "__main__":
    main()
