#!/usr/bin/env python3
"""Writes small ONNX models (and inputs/references) for the shape-op tests.

Usage: make_tensor_models.py NAME OUT_DIR
  shape_fold       Shape -> Gather -> Unsqueeze -> Concat -> Reshape on a
                   static [2, 3, 4] input (folds to a static reshape).
  reshape_dynamic  the same chain on a [N, 3, 4] input (N symbolic): the
                   shape is computed at run time.
Writes OUT_DIR/model.onnx, OUT_DIR/x.npy and OUT_DIR/ref.npy (numpy result).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def chain(batch):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 12])
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Constant", [], ["i0"],
                         value=helper.make_tensor("i0", TensorProto.INT64,
                                                  [], [0])),
        helper.make_node("Gather", ["s", "i0"], ["n"], axis=0),
        helper.make_node("Constant", [], ["ax"],
                         value=helper.make_tensor("ax", TensorProto.INT64,
                                                  [1], [0])),
        helper.make_node("Unsqueeze", ["n", "ax"], ["n1"]),
        helper.make_node("Constant", [], ["m1"],
                         value=helper.make_tensor("m1", TensorProto.INT64,
                                                  [1], [-1])),
        helper.make_node("Concat", ["n1", "m1"], ["shape"], axis=0),
        helper.make_node("Reshape", ["x", "shape"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "g", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def main():
    name, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    model = chain(2 if name == "shape_fold" else "N")
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "model.onnx"))
    x = np.arange(5 * 3 * 4, dtype=np.float32).reshape(5, 3, 4)
    if name == "shape_fold":
        x = x[:2]
    np.save(os.path.join(out, "x.npy"), x)
    np.save(os.path.join(out, "ref.npy"), x.reshape(x.shape[0], -1))


if __name__ == "__main__":
    main()
