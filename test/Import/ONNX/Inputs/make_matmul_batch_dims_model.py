#!/usr/bin/env python3
"""Writes an ONNX model of MatMuls with several batch dimensions, the
first of them dynamic (a batch of unknown size), and numpy's results:

- o0 = x @ y, [n, 3, 2, 49, 40] x [n, 3, 2, 40, 32] (mvit-style attention
  with heads split in two dimensions);
- o1 = x @ v, v [3, 2, 40, 32] broadcast along the batch;
- o2 = x @ w, w a [40, 32] initializer (a weight);
- o3 = p @ q, [n, 4, 8, 16] x [n, 4, 16, 8];
- o4 = s @ t, [n, h, 8, 16] x [n, h, 16, 8] (two dynamic batch dims);
- o5 = p @ k, k a [16, 8] initializer;
- o6 = x6 @ y6, [n, 2, 3, 2, 8, 16] x [n, 2, 3, 2, 16, 8].

Usage: make_matmul_batch_dims_model.py OUT_DIR
Writes OUT_DIR/model.onnx, inputs in_b{1,3}_{0..8}.npy (n = 1 and 3; h = 3
and 2) and references ref_b{1,3}_{0..6}.npy (numpy.matmul, which is ONNX
MatMul).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(0)
    w = rng.standard_normal((40, 32)).astype(np.float32)
    k = rng.standard_normal((16, 8)).astype(np.float32)
    inputs = [("x", ["n", 3, 2, 49, 40]), ("y", ["n", 3, 2, 40, 32]),
              ("v", [3, 2, 40, 32]), ("p", ["n", 4, 8, 16]),
              ("q", ["n", 4, 16, 8]), ("s", ["n", "h", 8, 16]),
              ("t", ["n", "h", 16, 8]), ("x6", ["n", 2, 3, 2, 8, 16]),
              ("y6", ["n", 2, 3, 2, 16, 8])]
    products = [("x", "y"), ("x", "v"), ("x", "w"), ("p", "q"), ("s", "t"),
                ("p", "k"), ("x6", "y6")]
    nodes = [helper.make_node("MatMul", [a, b], ["o%d" % i])
             for i, (a, b) in enumerate(products)]
    f = TensorProto.FLOAT
    graph = helper.make_graph(
        nodes, "matmul_batch_dims",
        [helper.make_tensor_value_info(name, f, shape)
         for name, shape in inputs],
        [helper.make_tensor_value_info("o%d" % i, f, None)
         for i in range(len(products))],
        initializer=[numpy_helper.from_array(w, "w"),
                     numpy_helper.from_array(k, "k")])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    model = onnx.shape_inference.infer_shapes(model)
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "model.onnx"))
    for n, h in ((1, 3), (3, 2)):
        values = {"w": w, "k": k}
        for i, (name, shape) in enumerate(inputs):
            dims = [n if d == "n" else h if d == "h" else d for d in shape]
            values[name] = rng.standard_normal(dims).astype(np.float32)
            np.save(os.path.join(out, "in_b%d_%d.npy" % (n, i)), values[name])
        for i, (a, b) in enumerate(products):
            np.save(os.path.join(out, "ref_b%d_%d.npy" % (n, i)),
                    np.matmul(values[a], values[b]))


if __name__ == "__main__":
    main()
