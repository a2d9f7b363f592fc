#!/usr/bin/env python3
"""Writes small ONNX models of opsets 18-28 (IR version 10), with their
inputs and numpy references. Debian's onnx 1.12 knows neither these opsets
nor the newer ops, so the nodes are made by hand and not checked here.

Usage: make_opset_models.py NAME OUT_DIR
  reduce_runtime  ReduceSum-18 (keepdims) and ReduceMean-18 (no keepdims) of
                  x [?, 3, 4] over run-time axes [0, -1]; ReduceMax-20 of a
                  bool tensor over axis 1.
Writes OUT_DIR/model.onnx, the inputs OUT_DIR/in_<i>.npy and the numpy
results OUT_DIR/ref_<i>.npy.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper

F, B, I64 = TensorProto.FLOAT, TensorProto.BOOL, TensorProto.INT64


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def save(out, nodes, inputs, outputs, feeds, refs, opset, inits=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs,
                              initializer=list(inits))
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    with open(os.path.join(out, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    for i, a in enumerate(feeds):
        np.save(os.path.join(out, f"in_{i}.npy"), a)
    for i, a in enumerate(refs):
        np.save(os.path.join(out, f"ref_{i}.npy"), a)


def reduce_runtime(out):
    x = np.random.RandomState(0).randn(2, 3, 4).astype(np.float32)
    axes = np.array([0, -1], np.int64)
    flags = np.array([[True, False, True], [False, False, False]])
    ax1 = helper.make_tensor("ax1", I64, [1], [1])
    save(out,
         [helper.make_node("ReduceSum", ["x", "axes"], ["s"], keepdims=1),
          helper.make_node("ReduceMean", ["x", "axes"], ["m"], keepdims=0),
          helper.make_node("ReduceMax", ["b", "ax1"], ["any"], keepdims=0)],
         [vi("x", F, ["n", 3, 4]), vi("axes", I64, [2]), vi("b", B, [2, 3])],
         [vi("s", F, [1, 3, 1]), vi("m", F, [3]), vi("any", B, [2])],
         [x, axes, flags],
         [x.sum(axis=(0, 2), keepdims=True), x.mean(axis=(0, 2)),
          flags.max(axis=1)], 20, [ax1])


MODELS = {
    "reduce_runtime": reduce_runtime,
}

if __name__ == "__main__":
    os.makedirs(sys.argv[2], exist_ok=True)
    MODELS[sys.argv[1]](sys.argv[2])
