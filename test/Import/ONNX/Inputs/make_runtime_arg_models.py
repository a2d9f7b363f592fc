#!/usr/bin/env python3
"""Writes small ONNX models whose op arguments are graph inputs (run-time
values), with their inputs and numpy references.

Usage: make_runtime_arg_models.py NAME OUT_DIR
  slice      Slice of x [4, 6] with run-time starts/ends/axes/steps (a
             negative step on axis 1); the result extents are symbolic.
  unsqueeze  Unsqueeze of x [3, 4] with run-time axes [-1, 0]; the result
             has rank 4 and symbolic extents.
  pad        Pad (constant mode) of x [3, 4] with run-time pads that crop
             one side (a negative pad) and a run-time fill value.
  bcast_add  Add of x [a, b] and y [c, d, e] (every extent symbolic), fed
             [1, 4] and [2, 3, 1]: both stretch at run time to [2, 3, 4].
  bcast_matmul MatMul of [p, q, 2, 3] by [r, s, 3, 4], fed [2, 1, 2, 3] and
             [1, 3, 3, 4]: the batch dims stretch at run time.
  split_dynamic Split of x [n, m] (symbolic) into [2, 3] along axis 1,
             the pieces concatenated in reverse order; fed [3, 5].
  split_equal_dynamic Split-18 (num_outputs 3) of x [n] (symbolic), fed
             [7]: pieces of 3, 3 and 1 at run time, concatenated in reverse.
  bad_axes   Unsqueeze whose axes input is a float tensor (an error).
  bad_starts Slice whose starts input is 2-D (an error).
Writes OUT_DIR/model.onnx, the inputs OUT_DIR/in_<i>.npy and the numpy
result OUT_DIR/ref.npy (not for the error models).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def save(out, nodes, inputs, outputs, feeds, ref, check=True, opset=13):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", opset)])
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "model.onnx"))
    for i, a in enumerate(feeds):
        np.save(os.path.join(out, f"in_{i}.npy"), a)
    if ref is not None:
        np.save(os.path.join(out, "ref.npy"), ref)


def arg(values):
    return np.array(values, dtype=np.int64)


def main():
    name, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    x34 = np.arange(12, dtype=np.float32).reshape(3, 4)
    if name == "slice":
        feeds = [x, arg([1, -1]), arg([100, 0]), arg([0, 1]), arg([2, -2])]
        inputs = [vi("x", TensorProto.FLOAT, [4, 6])] + [
            vi(n, TensorProto.INT64, [2])
            for n in ("starts", "ends", "axes", "steps")]
        save(out, [helper.make_node("Slice",
                                    ["x", "starts", "ends", "axes", "steps"],
                                    ["y"])],
             inputs, [vi("y", TensorProto.FLOAT, ["a", "b"])], feeds,
             x[1:100:2, -1:0:-2])
    elif name == "unsqueeze":
        save(out, [helper.make_node("Unsqueeze", ["x", "axes"], ["y"])],
             [vi("x", TensorProto.FLOAT, [3, 4]),
              vi("axes", TensorProto.INT64, [2])],
             [vi("y", TensorProto.FLOAT, ["a", "b", "c", "d"])],
             [x34, arg([-1, 0])], x34.reshape(1, 3, 4, 1))
    elif name == "pad":
        fill = np.array(7.5, dtype=np.float32)
        save(out, [helper.make_node("Pad", ["x", "pads", "v"], ["y"])],
             [vi("x", TensorProto.FLOAT, [3, 4]),
              vi("pads", TensorProto.INT64, [4]),
              vi("v", TensorProto.FLOAT, [])],
             [vi("y", TensorProto.FLOAT, ["a", "b"])],
             [x34, arg([1, -1, 2, 2]), fill],
             np.pad(x34[:, 1:], ((1, 2), (0, 2)), constant_values=7.5))
    elif name == "bcast_add":
        a = np.arange(4, dtype=np.float32).reshape(1, 4)
        b = np.arange(6, dtype=np.float32).reshape(2, 3, 1) * 10
        save(out, [helper.make_node("Add", ["x", "y"], ["z"])],
             [vi("x", TensorProto.FLOAT, ["a", "b"]),
              vi("y", TensorProto.FLOAT, ["c", "d", "e"])],
             [vi("z", TensorProto.FLOAT, ["c", "d", "f"])], [a, b], a + b)
    elif name == "bcast_matmul":
        rng = np.random.default_rng(0)
        a = rng.standard_normal((2, 1, 2, 3)).astype(np.float32)
        b = rng.standard_normal((1, 3, 3, 4)).astype(np.float32)
        save(out, [helper.make_node("MatMul", ["x", "y"], ["z"])],
             [vi("x", TensorProto.FLOAT, ["p", "q", 2, 3]),
              vi("y", TensorProto.FLOAT, ["r", "s", 3, 4])],
             [vi("z", TensorProto.FLOAT, ["t", "u", 2, 4])], [a, b], a @ b)
    elif name == "split_dynamic":
        x35 = np.arange(15, dtype=np.float32).reshape(3, 5)
        split = helper.make_tensor("split", TensorProto.INT64, [2], [2, 3])
        graph_nodes = [
            helper.make_node("Constant", [], ["sizes"], value=split),
            helper.make_node("Split", ["x", "sizes"], ["p0", "p1"], axis=1),
            helper.make_node("Concat", ["p1", "p0"], ["y"], axis=1)]
        save(out, graph_nodes, [vi("x", TensorProto.FLOAT, ["n", "m"])],
             [vi("y", TensorProto.FLOAT, ["n", 5])], [x35],
             np.concatenate([x35[:, 2:], x35[:, :2]], axis=1))
    elif name == "split_equal_dynamic":
        x7 = np.arange(7, dtype=np.float32)
        graph_nodes = [
            helper.make_node("Split", ["x"], ["p0", "p1", "p2"], axis=0,
                             num_outputs=3),
            helper.make_node("Concat", ["p2", "p1", "p0"], ["y"], axis=0)]
        # libonnx 1.12's checker does not know opset 18; onnx 1.23's does.
        save(out, graph_nodes, [vi("x", TensorProto.FLOAT, ["n"])],
             [vi("y", TensorProto.FLOAT, ["n"])], [x7],
             np.concatenate([x7[6:], x7[3:6], x7[:3]]), check=False, opset=18)
    elif name == "bad_axes":
        save(out, [helper.make_node("Unsqueeze", ["x", "axes"], ["y"])],
             [vi("x", TensorProto.FLOAT, [3, 4]),
              vi("axes", TensorProto.FLOAT, [2])],
             [vi("y", TensorProto.FLOAT, [1, 3, 4, 1])], [], None,
             check=False)
    elif name == "bad_starts":
        save(out, [helper.make_node("Slice", ["x", "s", "e"], ["y"])],
             [vi("x", TensorProto.FLOAT, [4, 6]),
              vi("s", TensorProto.INT64, [1, 2]),
              vi("e", TensorProto.INT64, [2])],
             [vi("y", TensorProto.FLOAT, [4, 6])], [], None, check=False)
    else:
        sys.exit(f"unknown model {name}")


if __name__ == "__main__":
    main()
