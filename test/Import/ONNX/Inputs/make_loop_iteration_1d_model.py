#!/usr/bin/env python3
"""Writes an ONNX Loop whose body declares its iteration number [1] (the
spec says 0-d; torch.onnx writes [1], as in torchvision's mvit_v2_s) and
slices x[i:i+1] with it: y = concat of x[0:1], x[1:2], x[2:3] = x.

Usage: make_loop_iteration_1d_model.py OUT_DIR
Writes OUT_DIR/model.onnx, in_0.npy (x [3, 2]) and ref_0.npy.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    one = numpy_helper.from_array(np.array([1], np.int64), "one")
    axes = numpy_helper.from_array(np.array([0], np.int64), "axes")
    body = helper.make_graph(
        [helper.make_node("Add", ["i", "one"], ["end"]),
         helper.make_node("Slice", ["x", "i", "end", "axes"], ["row"]),
         helper.make_node("Identity", ["cond"], ["cond_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, [1]),
         helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         ],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("row", TensorProto.FLOAT, [1, 2])],
        [one, axes])
    trip = numpy_helper.from_array(np.array(3, np.int64), "trip")
    cond = numpy_helper.from_array(np.array(True), "cond0")
    graph = helper.make_graph(
        [helper.make_node("Loop", ["trip", "cond0"], ["rows"], body=body),
         helper.make_node("Reshape", ["rows", "shape"], ["y"])],
        "loop_iteration_1d",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 2])],
        [trip, cond, numpy_helper.from_array(np.array([3, 2], np.int64),
                                             "shape")])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 16)])
    onnx.save(model, os.path.join(out, "model.onnx"))
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    np.save(os.path.join(out, "in_0.npy"), x)
    np.save(os.path.join(out, "ref_0.npy"), x)


if __name__ == "__main__":
    main()
