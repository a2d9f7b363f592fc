#!/usr/bin/env python3
"""Writes small ONNX Resize models (and inputs/references) for resize.test.

Usage: make_resize_models.py NAME OUT_DIR
  bilinear  Resize-13, linear, half_pixel, constant scales [1, 1, 2, 1.5] of
            a [1, 2, 3, 4] input; reference: torch bilinear interpolation
            (align_corners=False, which is ONNX's half_pixel).
  dynamic   Resize-13, nearest (asymmetric, floor), constant scales
            [1, 1, 2, 3] of an [N, 2, H, W] input: the output extents are
            computed at run time; reference: numpy repeat.
  gridsample  GridSample-16 of a [2, 3, 4, 5] input at a [2, 3, 4, 2] grid
            with values in [-1.6, 1.6], one node per mode x padding_mode x
            align_corners (18 outputs); references: torch grid_sample.
  roialign  RoiAlign-16 (avg) of a [2, 3, 8, 9] input over 6 boxes (some
            partly outside, one degenerate) for half_pixel and
            output_half_pixel, sampling_ratio 2 and adaptive (0), spatial
            scale 0.5 (4 outputs); references: torchvision roi_align.
  bad_mode  Resize with mode "area" (not an ONNX mode).
  bad_nearest_mode  Resize with nearest_mode "round_half_even".
Writes OUT_DIR/model.onnx and, for the runnable ones, OUT_DIR/x.npy and
OUT_DIR/ref.npy (gridsample: x.npy, grid.npy, ref_K.npy per output K; roialign: x.npy,
rois.npy, idx.npy, ref_K.npy).
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


def gridsample(out, rng):
    import torch
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    grid = rng.uniform(-1.6, 1.6, (2, 3, 4, 2)).astype(np.float32)
    # Exact pixel centres and edges too (ties for nearest, borders).
    grid[0, 0, :, 0] = [-1.0, 1.0, 0.0, 0.25]
    grid[0, 0, :, 1] = [-1.0, 1.0, -0.5, 0.5]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                            list(x.shape)),
              helper.make_tensor_value_info("grid", TensorProto.FLOAT,
                                            list(grid.shape))]
    nodes, outputs, k = [], [], 0
    for mode in ["bilinear", "nearest", "bicubic"]:
        for padding in ["zeros", "border", "reflection"]:
            for align in [0, 1]:
                name = "y%d" % k
                nodes.append(helper.make_node(
                    "GridSample", ["x", "grid"], [name], mode=mode,
                    padding_mode=padding, align_corners=align))
                outputs.append(helper.make_tensor_value_info(
                    name, TensorProto.FLOAT, [2, 3, 3, 4]))
                ref = torch.nn.functional.grid_sample(
                    torch.from_numpy(x), torch.from_numpy(grid), mode=mode,
                    padding_mode=padding, align_corners=bool(align)).numpy()
                np.save(os.path.join(out, "ref_%d.npy" % k), ref)
                k += 1
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 16)])
    onnx.save(model, os.path.join(out, "model.onnx"))
    np.save(os.path.join(out, "x.npy"), x)
    np.save(os.path.join(out, "grid.npy"), grid)


def roialign(out, rng):
    import torch
    import torchvision
    x = rng.standard_normal((2, 3, 8, 9)).astype(np.float32)
    rois = np.array([[0, 0, 10, 12], [3.3, 1.7, 15.2, 9.9],
                     [-4, -3, 6, 5], [12, 10, 20, 19], [5, 5, 5.4, 5.2],
                     [1, 0, 19, 17.5]],
                    np.float32)
    idx = np.array([0, 1, 1, 0, 1, 0], np.int64)
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                            list(x.shape)),
              helper.make_tensor_value_info("rois", TensorProto.FLOAT,
                                            list(rois.shape)),
              helper.make_tensor_value_info("idx", TensorProto.INT64,
                                            list(idx.shape))]
    boxes = torch.from_numpy(np.concatenate([idx[:, None], rois], 1))
    nodes, outputs, k = [], [], 0
    for transform in ["half_pixel", "output_half_pixel"]:
        for ratio in [2, 0]:
            name = "y%d" % k
            nodes.append(helper.make_node(
                "RoiAlign", ["x", "rois", "idx"], [name],
                coordinate_transformation_mode=transform, output_height=3,
                output_width=4, sampling_ratio=ratio, spatial_scale=0.5))
            outputs.append(helper.make_tensor_value_info(
                name, TensorProto.FLOAT, [6, 3, 3, 4]))
            ref = torchvision.ops.roi_align(
                torch.from_numpy(x), boxes.float(), (3, 4), 0.5,
                ratio if ratio > 0 else -1,
                aligned=transform == "half_pixel").numpy()
            np.save(os.path.join(out, "ref_%d.npy" % k), ref)
            k += 1
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 16)])
    onnx.save(model, os.path.join(out, "model.onnx"))
    np.save(os.path.join(out, "x.npy"), x)
    np.save(os.path.join(out, "rois.npy"), rois)
    np.save(os.path.join(out, "idx.npy"), idx)


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
    elif name == "gridsample":
        gridsample(out, rng)
        return
    elif name == "roialign":
        roialign(out, rng)
        return
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
