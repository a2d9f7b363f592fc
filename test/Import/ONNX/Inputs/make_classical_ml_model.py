#!/usr/bin/env python3
"""Writes a model of ai.onnx.ml ops only (no default-domain opset), as
sklearn-onnx writes them: Binarizer (threshold 0.5) of x [2, 5], then
ArrayFeatureExtractor of its columns [4, 0, -1] (a negative index counts
from the end); and ArrayFeatureExtractor of a 1-D v [5] at [[1], [3]],
which gives [1, 2].

Usage: make_classical_ml_model.py OUT_DIR
Writes OUT_DIR/model.onnx, OUT_DIR/in_0.npy, OUT_DIR/in_1.npy and the numpy
results OUT_DIR/ref_0.npy and OUT_DIR/ref_1.npy.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    ml = "ai.onnx.ml"
    nodes = [
        helper.make_node("Binarizer", ["x"], ["bin"], domain=ml,
                         threshold=0.5),
        helper.make_node("ArrayFeatureExtractor", ["bin", "cols"], ["y"],
                         domain=ml),
        helper.make_node("ArrayFeatureExtractor", ["v", "at"], ["w"],
                         domain=ml),
    ]
    inits = [numpy_helper.from_array(np.array([4, 0, -1], np.int64), "cols"),
             numpy_helper.from_array(np.array([[1], [3]], np.int64), "at")]
    graph = helper.make_graph(
        nodes, "classical_ml",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5]),
         helper.make_tensor_value_info("v", TensorProto.FLOAT, [5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("w", TensorProto.FLOAT, [1, 2])],
        inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid(ml, 1)])
    onnx.save(model, os.path.join(out, "model.onnx"))
    x = np.array([[0.1, 0.5, 0.7, -2.0, 3.0], [1.0, 0.2, 0.6, 0.5, -1.0]],
                 np.float32)
    v = np.arange(5, dtype=np.float32) * 10
    np.save(os.path.join(out, "in_0.npy"), x)
    np.save(os.path.join(out, "in_1.npy"), v)
    np.save(os.path.join(out, "ref_0.npy"),
            (x > 0.5).astype(np.float32)[:, [4, 0, 4]])
    np.save(os.path.join(out, "ref_1.npy"), v[[1, 3]].reshape(1, 2))


if __name__ == "__main__":
    main()
