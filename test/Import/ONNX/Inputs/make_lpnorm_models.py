#!/usr/bin/env python3
"""Writes ONNX LpNormalization models with bad attributes for lpnorm.test.

Usage: make_lpnorm_models.py NAME OUT_DIR
  bad_p     LpNormalization with p = 3 on x [2, 3].
  bad_axis  LpNormalization with axis = 2 on x [2, 3].
Writes OUT_DIR/model.onnx.
"""
import os
import sys

import onnx
from onnx import TensorProto, helper


def main():
    name, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    attrs = {"bad_p": {"p": 3}, "bad_axis": {"axis": 2}}.get(name)
    if attrs is None:
        sys.exit("unknown model " + name)
    node = helper.make_node("LpNormalization", ["x"], ["y"], **attrs)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(model, os.path.join(out, "model.onnx"))


if __name__ == "__main__":
    main()
