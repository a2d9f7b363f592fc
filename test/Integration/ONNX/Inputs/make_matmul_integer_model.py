#!/usr/bin/env python3
"""Writes a model of two MatMulIntegers of u8 activations and an i8 weight
initializer W [K, N], with scalar zero points, and their numpy results in
int32 (exact):
  y = MatMulInteger(a, W, a_zero, w_zero)   a [M, K] u8 input, a_zero an
      input, w_zero = -3 (nonzero: the row sums of a enter the result)
  z = MatMulInteger(a, W, a_zero)           no weight zero point
The values span the whole u8 and i8 ranges, so a sum that lost a bit in
f32 or saturated would show.

Usage: make_matmul_integer_model.py OUT_DIR M K N
Writes OUT_DIR/model.onnx, OUT_DIR/in_0.npy (a), OUT_DIR/in_1.npy
(a_zero), OUT_DIR/ref_0.npy (y), OUT_DIR/ref_1.npy (z).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out = sys.argv[1]
    m, k, n = (int(v) for v in sys.argv[2:5])
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(m * 1000 + k + n)
    w = rng.integers(-128, 128, (k, n), dtype=np.int8)
    w[0, :] = -128  # extremes in every column
    w[1, :] = 127
    w_zero = np.array(-3, dtype=np.int8)
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["a", "w", "a_zero", "w_zero"],
                          ["y"]),
         helper.make_node("MatMulInteger", ["a", "w", "a_zero"], ["z"])],
        "matmul_integer",
        [helper.make_tensor_value_info("a", TensorProto.UINT8, [m, k]),
         helper.make_tensor_value_info("a_zero", TensorProto.UINT8, [])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [m, n]),
         helper.make_tensor_value_info("z", TensorProto.INT32, [m, n])],
        [numpy_helper.from_array(w, "w"),
         numpy_helper.from_array(w_zero, "w_zero")])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, os.path.join(out, "model.onnx"))
    a = rng.integers(0, 256, (m, k), dtype=np.uint8)
    a[:, :4] = 255
    a_zero = np.array(131, dtype=np.uint8)
    np.save(os.path.join(out, "in_0.npy"), a)
    np.save(os.path.join(out, "in_1.npy"), a_zero)
    wide_a = a.astype(np.int64) - int(a_zero)
    y = wide_a @ (w.astype(np.int64) - int(w_zero))
    z = wide_a @ w.astype(np.int64)
    np.save(os.path.join(out, "ref_0.npy"), y.astype(np.int32))
    np.save(os.path.join(out, "ref_1.npy"), z.astype(np.int32))


if __name__ == "__main__":
    main()
