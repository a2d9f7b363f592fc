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
  sweep     Resize-13 with constant scales/sizes/roi over 3-D, 4-D and 5-D
            inputs: trilinear, 1-D cubic, every coordinate transformation
            mode of the ONNX 1.12 reference, nearest modes, exclude_outside,
            extrapolation; references: onnx's own reference implementation
            (onnx.backend.test.case.node.resize.interpolate_nd).
  aspect    Resize-18, nearest, constant sizes [7, 2] over axes [-1, 2] of a
            [1, 2, 4, 5] input with keep_aspect_ratio_policy not_smaller:
            one scale max(2/4, 7/5) for both axes, output [1, 2, 6, 7];
            reference: numpy, as onnx's reference implementation computes it.
  bad_axes_range  Resize-18 with axes [2, 4] on a 4-D input.
  bad_axes_repeated  Resize-18 with axes [3, -1] on a 4-D input.
  bad_mode  Resize with mode "area" (not an ONNX mode).
  bad_nearest_mode  Resize with nearest_mode "round_half_even".
Writes OUT_DIR/model.onnx and, for the runnable ones, OUT_DIR/x.npy and
OUT_DIR/ref.npy (gridsample: x.npy, grid.npy, ref_K.npy per output K; roialign: x.npy,
rois.npy, idx.npy, ref_K.npy; sweep: x3.npy, x4.npy, x5.npy, ref_K.npy).
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


SWEEP = [
    # (input, mode, attributes, scales, sizes, roi)
    ("x5", "linear", {}, [1, 1, 1.5, 0.7, 2], None, None),
    ("x4", "cubic", dict(coordinate_transformation_mode="asymmetric",
                         exclude_outside=1, cubic_coeff_a=-0.5),
     [1, 1, 0.6, 1.7], None, None),
    ("x4", "nearest", dict(nearest_mode="round_prefer_ceil"),
     [1, 1, 0.5, 1.3], None, None),
    ("x4", "linear", dict(coordinate_transformation_mode="align_corners"),
     None, [2, 3, 9, 4], None),
    ("x4", "nearest", dict(coordinate_transformation_mode="tf_crop_and_resize",
                           extrapolation_value=2.5),
     None, [2, 3, 6, 5], [0, 0, -0.2, 0.1, 1, 1, 0.9, 1.3]),
    ("x4", "linear", dict(coordinate_transformation_mode="tf_crop_and_resize"),
     None, [2, 3, 4, 6], [0, 0, 0.1, 0.2, 1, 1, 0.8, 0.7]),
    ("x4", "linear", dict(coordinate_transformation_mode="pytorch_half_pixel"),
     None, [2, 3, 1, 10], None),
    ("x3", "cubic", {}, [1, 1, 2.5], None, None),
    ("x4", "nearest", dict(coordinate_transformation_mode="align_corners",
                           nearest_mode="floor"), [1, 1, 2, 0.5], None, None),
    ("x4", "cubic", dict(coordinate_transformation_mode="align_corners"),
     None, [2, 3, 3, 11], None),
    ("x4", "nearest", dict(coordinate_transformation_mode="asymmetric",
                           nearest_mode="ceil"), None, [2, 3, 12, 3], None),
    ("x4", "linear", dict(exclude_outside=1), [1, 1, 0.4, 2.2], None, None),
]


def sweep(out, rng):
    from onnx.backend.test.case.node import resize as reference
    xs = {"x3": rng.standard_normal((2, 3, 9)).astype(np.float32),
          "x4": rng.standard_normal((2, 3, 5, 7)).astype(np.float32),
          "x5": rng.standard_normal((1, 2, 4, 5, 6)).astype(np.float32)}
    inputs = [helper.make_tensor_value_info(k, TensorProto.FLOAT,
                                            list(v.shape))
              for k, v in xs.items()]
    nodes, outputs, inits = [], [], []
    for k, (x, mode, attrs, scales, sizes, roi) in enumerate(SWEEP):
        names = [x, "", "", ""]
        if roi is not None:
            names[1] = "roi%d" % k
            inits.append(helper.make_tensor(names[1], TensorProto.FLOAT,
                                            [len(roi)], roi))
        if scales is not None:
            names[2] = "scales%d" % k
            inits.append(helper.make_tensor(names[2], TensorProto.FLOAT,
                                            [len(scales)], scales))
        else:
            names[3] = "sizes%d" % k
            inits.append(helper.make_tensor(names[3], TensorProto.INT64,
                                            [len(sizes)], sizes))
        while names[-1] == "":
            names.pop()
        nodes.append(helper.make_node("Resize", names, ["y%d" % k],
                                      mode=mode, **attrs))
        if mode == "nearest":
            rounding = attrs.get("nearest_mode", "round_prefer_floor")
            coeffs = lambda r, m=rounding: reference.nearest_coeffs(r, m)
        elif mode == "linear":
            coeffs = reference.linear_coeffs
        else:
            a = attrs.get("cubic_coeff_a", -0.75)
            coeffs = lambda r, a=a: reference.cubic_coeffs(r, a)
        # (float weights: the reference divides them in place for
        # exclude_outside, which fails on its integer [0, 1] weights)
        ref = reference.interpolate_nd(
            xs[x], lambda r, c=coeffs: np.asarray(c(r), np.float64), output_size=sizes,
            scale_factors=None if scales is None else np.array(scales,
                                                               np.float32),
            roi=None if roi is None else np.array(roi, np.float32),
            coordinate_transformation_mode=attrs.get(
                "coordinate_transformation_mode", "half_pixel"),
            exclude_outside=bool(attrs.get("exclude_outside", 0)),
            extrapolation_value=attrs.get("extrapolation_value", 0.0),
        ).astype(np.float32)
        outputs.append(helper.make_tensor_value_info(
            "y%d" % k, TensorProto.FLOAT, list(ref.shape)))
        np.save(os.path.join(out, "ref_%d.npy" % k), ref)
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 13)])
    onnx.save(model, os.path.join(out, "model.onnx"))
    for k, v in xs.items():
        np.save(os.path.join(out, k + ".npy"), v)


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
    elif name == "sweep":
        sweep(out, rng)
        return
    elif name == "aspect":
        x = rng.standard_normal((1, 2, 4, 5)).astype(np.float32)
        sizes = helper.make_tensor("sizes", TensorProto.INT64, [2], [7, 2])
        node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"],
                                axes=[-1, 2],
                                keep_aspect_ratio_policy="not_smaller")
        graph = helper.make_graph(
            [node], "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                           list(x.shape))],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                           [1, 2, "h", "w"])],
            initializer=[sizes])
        model = helper.make_model(
            graph, opset_imports=[helper.make_opsetid("", 18)])
        # half_pixel, round_prefer_floor, scale 1.4 on both axes (the onnx
        # reference's arithmetic; Debian's onnx 1.12 has no Resize-18).
        def src(n_in, n_out, scale=1.4):
            c = (np.arange(n_out) + 0.5) / scale - 0.5
            return np.clip(np.ceil(c - 0.5), 0, n_in - 1).astype(np.int64)
        ref = x[:, :, src(4, 6)][:, :, :, src(5, 7)]
    elif name in ("bad_axes_range", "bad_axes_repeated"):
        axes = [2, 4] if name == "bad_axes_range" else [3, -1]
        model = resize_model([1, 1, 2, 2], [1, 1, 4, 4], [2, 2], opset=18,
                             axes=axes)
        x = ref = None
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
