#!/usr/bin/env python3
"""Writes small ONNX Resize models (and inputs/references) for resize.test.

Usage: make_resize_models.py NAME OUT_DIR
  bilinear  Resize-13, linear, half_pixel, constant scales [1, 1, 2, 1.5] of
            a [1, 2, 3, 4] input; reference: torch bilinear interpolation
            (align_corners=False, which is ONNX's half_pixel).
  dynamic   Resize-13, nearest (asymmetric, floor), constant scales
            [1, 1, 2, 3] of an [N, 2, H, W] input: the output extents are
            computed at run time; reference: numpy repeat.
  bad_mode  Resize with mode "area" (not an ONNX mode).
  bad_nearest_mode  Resize with nearest_mode "round_half_even".
Writes OUT_DIR/model.onnx and, for the runnable ones, OUT_DIR/x.npy and
OUT_DIR/ref.npy.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def resize_model(in_shape, out_shape, scales, opset=13, **attrs):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, in_shape)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, out_shape)
    s = helper.make_tensor("scales", TensorProto.FLOAT, [len(scales)], scales)
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], **attrs)
    graph = helper.make_graph([node], "g", [x], [y], initializer=[s])
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", opset)])


def main():
    name, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(0)
    if name == "bilinear":
        model = resize_model([1, 2, 3, 4], [1, 2, 6, 6], [1, 1, 2, 1.5],
                             mode="linear")
        x = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
        import torch
        ref = torch.nn.functional.interpolate(
            torch.from_numpy(x), size=(6, 6), mode="bilinear",
            align_corners=False).numpy()
    elif name == "dynamic":
        model = resize_model(["N", 2, "H", "W"], ["N", 2, None, None],
                             [1, 1, 2, 3], mode="nearest",
                             coordinate_transformation_mode="asymmetric",
                             nearest_mode="floor")
        x = rng.standard_normal((2, 2, 3, 5)).astype(np.float32)
        ref = x.repeat(2, axis=2).repeat(3, axis=3)
    elif name == "bad_mode":
        model = resize_model([1, 1, 2, 2], [1, 1, 4, 4], [1, 1, 2, 2],
                             mode="area")
        x = ref = None
    elif name == "bad_nearest_mode":
        model = resize_model([1, 1, 2, 2], [1, 1, 4, 4], [1, 1, 2, 2],
                             nearest_mode="round_half_even")
        x = ref = None
    else:
        sys.exit("unknown model " + name)
    onnx.save(model, os.path.join(out, "model.onnx"))
    if x is not None:
        np.save(os.path.join(out, "x.npy"), x)
        np.save(os.path.join(out, "ref.npy"), ref)


if __name__ == "__main__":
    main()
