#!/usr/bin/env python3
"""Writes a model whose If condition is known at import time.

Usage: make_if_const_model.py OUT_DIR
The condition is Equal(Size(shape), 4) on a constant-length shape input, as
exported function bodies test ranks (AffineGrid's body). The then branch
splits the shape into four one-element tensors and returns x * 2; the else
branch returns x reshaped by a computed shape of another rank, which could
not be imported statically. Writes OUT_DIR/model.onnx, input_0.npy,
input_1.npy and reference_0.npy (for run_graph_model.py).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def main():
    out = sys.argv[1]
    four = helper.make_tensor("four", TensorProto.INT64, [], [4])
    two = helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])
    then_graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "two"], ["y_then"])], "then", [],
        [helper.make_tensor_value_info("y_then", TensorProto.FLOAT, None)])
    else_graph = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape"], ["y_else"])], "else", [],
        [helper.make_tensor_value_info("y_else", TensorProto.FLOAT, None)])
    nodes = [
        helper.make_node("Size", ["shape"], ["n"]),
        helper.make_node("Equal", ["n", "four"], ["is4"]),
        helper.make_node("If", ["is4"], ["y"], then_branch=then_graph,
                         else_branch=else_graph),
    ]
    graph = helper.make_graph(
        nodes, "if_const",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("shape", TensorProto.INT64, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
        initializer=[four, two])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 16)])
    os.makedirs(out, exist_ok=True)
    onnx.save(model, os.path.join(out, "model.onnx"))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.save(os.path.join(out, "input_0.npy"), x)
    np.save(os.path.join(out, "input_1.npy"), np.array([1, 2, 3, 1], np.int64))
    np.save(os.path.join(out, "reference_0.npy"), x * 2)


if __name__ == "__main__":
    main()
