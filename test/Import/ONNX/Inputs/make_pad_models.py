#!/usr/bin/env python3
"""Writes small ONNX Pad-18/19 models (and inputs/references) for pad-axes.test.

Usage: make_pad_models.py NAME OUT_DIR
  wrap      Pad-19, mode wrap, constant pads [1, 2, 2, 3] (as wide as the
            extents; wider ones are periodic here, while numpy.pad's wrap
            then repeats differently) of x [2, 3]; reference:
            numpy.pad(mode="wrap").
  bad_axes_range     Pad-18 with constant axes [0, 2] on a 2-D input.
  bad_axes_repeated  Pad-18 with constant axes [1, -1] on a 2-D input.
Writes OUT_DIR/model.onnx and, for wrap, OUT_DIR/x.npy and OUT_DIR/ref.npy.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def pad_model(pads, axes, opset, **attrs):
    inits = [helper.make_tensor("pads", TensorProto.INT64, [len(pads)], pads)]
    names = ["x", "pads"]
    if axes is not None:
        inits.append(helper.make_tensor("axes", TensorProto.INT64,
                                        [len(axes)], axes))
        names += ["", "axes"]
    node = helper.make_node("Pad", names, ["y"], **attrs)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                    [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["h", "w"])],
        initializer=inits)
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", opset)])


def main():
    name, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    x = ref = None
    if name == "wrap":
        model = pad_model([1, 2, 2, 3], None, 19, mode="wrap")
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        ref = np.pad(x, ((1, 2), (2, 3)), mode="wrap")
    elif name == "bad_axes_range":
        model = pad_model([1, 1, 1, 1], [0, 2], 18)
    elif name == "bad_axes_repeated":
        model = pad_model([1, 1, 1, 1], [1, -1], 18)
    else:
        sys.exit("unknown model " + name)
    onnx.save(model, os.path.join(out, "model.onnx"))
    if x is not None:
        np.save(os.path.join(out, "x.npy"), x)
        np.save(os.path.join(out, "ref.npy"), ref)


if __name__ == "__main__":
    main()
