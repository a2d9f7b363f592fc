#!/usr/bin/env python3
"""Writes a one-Conv ONNX model (f32, the filter and the optional bias as
initializers) and its result computed with numpy in float64:

  y[n, f, oh, ow] = bias[f] + sum_{c, kh, kw} w[f, c, kh, kw] *
                    x[n, g * C / G + c, oh * stride + kh - pad,
                      ow * stride + kw - pad]

with g = f / (F / G), the group of feature f (GROUPS G, default 1; G = C = F
is a depthwise convolution).

Usage: make_conv_model.py OUT_DIR N C H W F KH KW STRIDE PAD BIAS [GROUPS]
Writes OUT_DIR/model.onnx, OUT_DIR/in_0.npy (x), OUT_DIR/ref_0.npy (y).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out = sys.argv[1]
    n, c, h, w_, f, kh, kw, stride, pad, bias = (int(v) for v in sys.argv[2:12])
    groups = int(sys.argv[12]) if len(sys.argv) > 12 else 1
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(n + 3 * c + 5 * h + 7 * f + kh + stride)
    x = rng.standard_normal((n, c, h, w_)).astype(np.float32)
    w = rng.standard_normal((f, c // groups, kh, kw)).astype(np.float32)
    b = rng.standard_normal(f).astype(np.float32)
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh = (h + 2 * pad - kh) // stride + 1
    ow = (w_ + 2 * pad - kw) // stride + 1
    y = np.zeros((n, f, oh, ow))
    for i in range(kh):
        for j in range(kw):
            window = xp[:, :, i:i + stride * oh:stride, j:j + stride * ow:stride]
            for g in range(groups):
                fs = slice(g * f // groups, (g + 1) * f // groups)
                cs = slice(g * c // groups, (g + 1) * c // groups)
                y[:, fs] += np.einsum("nchw,fc->nfhw", window[:, cs],
                                      w[fs, :, i, j])
    if bias:
        y += b.astype(np.float64)[None, :, None, None]
    inputs = ["x", "w"] + (["b"] if bias else [])
    initializers = [numpy_helper.from_array(w, "w")]
    if bias:
        initializers.append(numpy_helper.from_array(b, "b"))
    node = helper.make_node("Conv", inputs, ["y"], kernel_shape=[kh, kw],
                            strides=[stride, stride], pads=[pad] * 4,
                            group=groups)
    graph = helper.make_graph(
        [node], "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, y.shape)],
        initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, os.path.join(out, "model.onnx"))
    np.save(os.path.join(out, "in_0.npy"), x)
    np.save(os.path.join(out, "ref_0.npy"), y.astype(np.float32))


if __name__ == "__main__":
    main()
