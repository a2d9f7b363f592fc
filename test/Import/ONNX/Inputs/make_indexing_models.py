#!/usr/bin/env python3
"""Writes small ONNX models (and inputs/references) for the indexing tests.

Usage: make_indexing_models.py NAME OUT_DIR
  scatter_elements  ScatterElements(axis=1, reduction=add) on data [N, 5]
                    (N symbolic) with negative, duplicate and out-of-range
                    indices (the last are skipped).
  nonzero           NonZero of a float [N, 3] input (N symbolic).
  unique            Unique(axis=0, sorted=1) of a uint8 [N, 2] input (N
                    symbolic; values above 127 must sort as unsigned), all
                    four outputs (ref.npy, ref_1.npy .. ref_3.npy).
  scatter_float_indices  ScatterElements with float indices (bad input).
  scatter_rank_mismatch  ScatterElements with indices of rank 1 for data of
                         rank 2 (bad input).
Writes OUT_DIR/model.onnx and, for the first two, OUT_DIR/{x,i,u}.npy
inputs and OUT_DIR/ref.npy (the numpy result).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def model(nodes, inputs, outputs, opset=16):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", opset)])


def scatter_elements(out):
    f, i64 = TensorProto.FLOAT, TensorProto.INT64
    m = model([helper.make_node("ScatterElements", ["x", "i", "u"], ["y"],
                                axis=1, reduction="add")],
              [helper.make_tensor_value_info("x", f, ["N", 5]),
               helper.make_tensor_value_info("i", i64, ["N", 3]),
               helper.make_tensor_value_info("u", f, ["N", 3])],
              [helper.make_tensor_value_info("y", f, ["N", 5])])
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    i = np.array([[0, -1, 0], [2, 2, -5], [4, 7, -6], [-2, -2, -2]],
                 dtype=np.int64)
    u = rng.standard_normal((4, 3)).astype(np.float32)
    ref = x.copy()
    for r in range(i.shape[0]):
        for c in range(i.shape[1]):
            # Out-of-range indices are skipped (Scatter.h).
            if -5 <= i[r, c] < 5:
                ref[r, i[r, c] % 5] += u[r, c]
    np.save(os.path.join(out, "i.npy"), i)
    np.save(os.path.join(out, "u.npy"), u)
    return m, x, ref


def nonzero(out):
    m = model([helper.make_node("NonZero", ["x"], ["y"])],
              [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                             ["N", 3])],
              [helper.make_tensor_value_info("y", TensorProto.INT64,
                                             [2, None])], opset=13)
    x = np.array([[0, 1.5, 0], [2, 0, -3], [0, 0, 0], [np.nan, 4, 0]],
                 dtype=np.float32)
    return m, x, np.array(np.nonzero(x), dtype=np.int64)


def unique(out):
    u8, i64 = TensorProto.UINT8, TensorProto.INT64
    m = model([helper.make_node("Unique", ["x"], ["y", "i", "inv", "c"],
                                axis=0, sorted=1)],
              [helper.make_tensor_value_info("x", u8, ["N", 2])],
              [helper.make_tensor_value_info("y", u8, [None, 2]),
               helper.make_tensor_value_info("i", i64, [None]),
               helper.make_tensor_value_info("inv", i64, ["N"]),
               helper.make_tensor_value_info("c", i64, [None])], opset=11)
    x = np.array([[200, 1], [3, 4], [200, 1], [10, 250], [3, 4], [10, 5]],
                 dtype=np.uint8)
    y, i, inv, c = np.unique(x, axis=0, return_index=True,
                             return_inverse=True, return_counts=True)
    for k, r in enumerate((i, inv.reshape(-1), c), start=1):
        np.save(os.path.join(out, f"ref_{k}.npy"), r.astype(np.int64))
    return m, x, y


def bad_scatter(indices_type, indices_shape):
    f = TensorProto.FLOAT
    return model([helper.make_node("ScatterElements", ["x", "i", "u"], ["y"],
                                   name="bad_scatter")],
                 [helper.make_tensor_value_info("x", f, [2, 3]),
                  helper.make_tensor_value_info("i", indices_type,
                                                indices_shape),
                  helper.make_tensor_value_info("u", f, indices_shape)],
                 [helper.make_tensor_value_info("y", f, [2, 3])])


def main():
    name, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    if name in ("scatter_elements", "nonzero", "unique"):
        m, x, ref = globals()[name](out)
        np.save(os.path.join(out, "x.npy"), x)
        np.save(os.path.join(out, "ref.npy"), ref)
    elif name == "scatter_float_indices":
        m = bad_scatter(TensorProto.FLOAT, [2, 2])
    elif name == "scatter_rank_mismatch":
        m = bad_scatter(TensorProto.INT64, [2])
    else:
        sys.exit(f"unknown model {name}")
    onnx.save(m, os.path.join(out, "model.onnx"))


if __name__ == "__main__":
    main()
