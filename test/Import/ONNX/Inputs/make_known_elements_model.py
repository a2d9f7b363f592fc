#!/usr/bin/env python3
"""Writes an ONNX model whose Reshape targets are shapes computed at run time
with partly known elements, as torch.onnx exports a linear layer over
[batch, seq, hidden]:

- y = Reshape(h, Concat([-1], Unsqueeze(Gather(Shape(ids), 1)),
  Unsqueeze(Squeeze(Slice(Shape(h), -1, INT64_MAX))))) on h [1, seq, 16]:
  the last extent is h's static 16, the others are run-time;
- z = Reshape(h, Concat([0], [-1], Slice(Shape(h), -1) * 1)): a 0 copies
  h's static extent 1, so z is [1, ?, 16].

Usage: make_known_elements_model.py OUT_DIR
Writes OUT_DIR/model.onnx, the inputs in_0.npy (ids [1, 5]) and in_1.npy
(h [1, 5, 16]), and numpy's results ref_0.npy, ref_1.npy.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)

    def c(name, value):
        return helper.make_node("Constant", [], [name],
                                value=numpy_helper.from_array(
                                    np.asarray(value)))
    nodes = [
        c("minus_one", np.array([-1], np.int64)),
        c("one", np.array(1, np.int64)),
        c("zero", np.array([0], np.int64)),
        c("unit", np.array([1], np.int64)),
        c("axes0", np.array([0], np.int64)),
        c("last", np.array([-1], np.int64)),
        c("end", np.array([2**63 - 1], np.int64)),
        helper.make_node("Shape", ["ids"], ["ids_shape"]),
        helper.make_node("Gather", ["ids_shape", "one"], ["seq"]),
        helper.make_node("Unsqueeze", ["seq", "axes0"], ["seq_1d"]),
        helper.make_node("Shape", ["h"], ["h_shape"]),
        helper.make_node("Slice", ["h_shape", "last", "end", "axes0"],
                         ["hidden"]),
        helper.make_node("Squeeze", ["hidden", "axes0"], ["hidden_0d"]),
        helper.make_node("Unsqueeze", ["hidden_0d", "axes0"], ["hidden_1d"]),
        helper.make_node("Concat", ["minus_one", "seq_1d", "hidden_1d"],
                         ["y_shape"], axis=0),
        helper.make_node("Reshape", ["h", "y_shape"], ["y"]),
        helper.make_node("Mul", ["hidden", "unit"], ["hidden_times_1"]),
        helper.make_node("Concat", ["zero", "minus_one", "hidden_times_1"],
                         ["z_shape"], axis=0),
        helper.make_node("Reshape", ["h", "z_shape"], ["z"]),
    ]
    graph = helper.make_graph(
        nodes, "known_elements",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, "seq"]),
         helper.make_tensor_value_info("h", TensorProto.FLOAT,
                                       [1, "seq", 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       ["a", "b", "c"]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT,
                                       ["d", "e", "f"])])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "model.onnx"))
    rng = np.random.default_rng(0)
    ids = rng.integers(0, 100, (1, 5)).astype(np.int64)
    h = rng.standard_normal((1, 5, 16)).astype(np.float32)
    for i, a in enumerate([ids, h]):
        np.save(os.path.join(out, "in_%d.npy" % i), a)
    np.save(os.path.join(out, "ref_0.npy"), h.reshape(-1, 5, 16))
    np.save(os.path.join(out, "ref_1.npy"), h.reshape(1, -1, 16))


if __name__ == "__main__":
    main()
