#!/usr/bin/env python3
"""Writes small ONNX models (and inputs/references) for the shape-op tests.

Usage: make_tensor_models.py NAME OUT_DIR
  shape_fold       Shape -> Gather -> Unsqueeze -> Concat -> Reshape on a
                   static [2, 3, 4] input (folds to a static reshape).
  reshape_dynamic  the same chain on a [N, 3, 4] input (N symbolic): the
                   shape is computed at run time.
  rearrange        TopK(k=2, smallest), Trilu(lower, k=-1) and
                   DepthToSpace(CRD) of one [2, 4, 2, 3] input.
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


def rearrange(out):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4, 2, 3])
    outs = [
        helper.make_tensor_value_info("v", TensorProto.FLOAT, [2, 4, 2, 2]),
        helper.make_tensor_value_info("i", TensorProto.INT64, [2, 4, 2, 2]),
        helper.make_tensor_value_info("t", TensorProto.FLOAT, [2, 4, 2, 3]),
        helper.make_tensor_value_info("d", TensorProto.FLOAT, [2, 1, 4, 6]),
    ]
    k = helper.make_tensor("k", TensorProto.INT64, [1], [2])
    m1 = helper.make_tensor("m1", TensorProto.INT64, [], [-1])
    nodes = [
        helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=-1, largest=0),
        helper.make_node("Trilu", ["x", "m1"], ["t"], upper=0),
        helper.make_node("DepthToSpace", ["x"], ["d"], blocksize=2,
                         mode="CRD"),
    ]
    graph = helper.make_graph(nodes, "g", [x], outs, initializer=[k, m1])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 14)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "model.onnx"))
    rng = np.random.default_rng(0)
    # Distinct values: TopK's tie order is then unambiguous.
    x = rng.permutation(48).astype(np.float32).reshape(2, 4, 2, 3)
    np.save(os.path.join(out, "x.npy"), x)
    order = np.argsort(x, axis=-1, kind="stable")[..., :2]
    np.save(os.path.join(out, "ref_v.npy"), np.take_along_axis(x, order, -1))
    np.save(os.path.join(out, "ref_i.npy"), order.astype(np.int64))
    np.save(os.path.join(out, "ref_t.npy"), np.tril(x, -1))
    n, c, h, w = x.shape
    d = x.reshape(n, c // 4, 2, 2, h, w).transpose(0, 1, 4, 2, 5, 3)
    np.save(os.path.join(out, "ref_d.npy"), d.reshape(n, c // 4, h * 2, w * 2))


def main():
    name, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    if name == "rearrange":
        return rearrange(out)
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
