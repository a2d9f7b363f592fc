#!/usr/bin/env python3
"""Writes a QDQ model as onnxruntime's quantize_static writes one, and its
result computed exactly with numpy:

  xq = QuantizeLinear(x, sx, zx)                 u8 activations
  y  = Conv(DequantizeLinear(xq, sx, zx),        or Gemm with transB = 1
            DequantizeLinear(wq, sw), bias)      i8 weight initializer,
                                                 sw one or one per channel

x is made of exact multiples of sx, so that QuantizeLinear rounds nothing
and the reference is bias + sx * sw[f] * sum (q - zx) w in float64. The
bytes span the whole u8 and i8 ranges.

Usage: make_qdq_conv_model.py OUT_DIR conv N C H W F KH KW STRIDE PAD
       make_qdq_conv_model.py OUT_DIR gemm M K N
Writes OUT_DIR/model.onnx, OUT_DIR/in_0.npy (x), OUT_DIR/ref_0.npy (y).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out, kind = sys.argv[1], sys.argv[2]
    dims = [int(v) for v in sys.argv[3:]]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(sum(dims) * 7 + len(dims))
    sx, zx = np.float32(0.03125), np.uint8(131)
    if kind == "conv":
        n, c, h, w_, f, kh, kw, stride, pad = dims
        x_shape, w_shape = [n, c, h, w_], [f, c, kh, kw]
        sw = (rng.integers(1, 9, f) / 512.0).astype(np.float32)
    else:
        m, k, f = dims
        x_shape, w_shape = [m, k], [f, k]
        sw = np.array(0.0078125, dtype=np.float32)
    q = rng.integers(0, 256, x_shape).astype(np.uint8)
    q.reshape(-1)[:4] = [0, 255, 0, 255]
    wq = rng.integers(-128, 128, w_shape).astype(np.int8)
    wq.reshape(-1)[:2] = [-128, 127]
    bias = rng.standard_normal(f).astype(np.float32)
    x = ((q.astype(np.float32) - np.float32(zx)) * sx).astype(np.float32)

    inits = [numpy_helper.from_array(np.array(sx), "sx"),
             numpy_helper.from_array(np.array(zx), "zx"),
             numpy_helper.from_array(wq, "wq"),
             numpy_helper.from_array(sw, "sw"),
             numpy_helper.from_array(bias, "bias")]
    nodes = [helper.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "sx", "zx"], ["xd"]),
             helper.make_node("DequantizeLinear", ["wq", "sw"], ["wd"],
                              axis=0)]
    qx = q.astype(np.int64) - int(zx)
    wide = wq.astype(np.int64)
    if kind == "conv":
        nodes.append(helper.make_node(
            "Conv", ["xd", "wd", "bias"], ["y"], kernel_shape=[kh, kw],
            strides=[stride, stride], pads=[pad] * 4))
        oh = (h + 2 * pad - kh) // stride + 1
        ow = (w_ + 2 * pad - kw) // stride + 1
        padded = np.pad(qx, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
        acc = np.zeros((n, f, oh, ow), dtype=np.int64)
        for i in range(kh):
            for j in range(kw):
                window = padded[:, :, i:i + stride * oh:stride,
                                j:j + stride * ow:stride]
                acc += np.einsum("nchw,fc->nfhw", window, wide[:, :, i, j])
        scale = float(sx) * sw.astype(np.float64).reshape(1, f, 1, 1)
        ref = acc * scale + bias.astype(np.float64).reshape(1, f, 1, 1)
        y_shape = [n, f, oh, ow]
    else:
        nodes.append(helper.make_node("Gemm", ["xd", "wd", "bias"], ["y"],
                                      transB=1))
        ref = (qx @ wide.T) * float(sx) * float(sw) + bias.astype(np.float64)
        y_shape = [m, f]
    graph = helper.make_graph(
        nodes, "qdq_" + kind,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)],
        inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 7
    onnx.save(model, os.path.join(out, "model.onnx"))
    np.save(os.path.join(out, "in_0.npy"), x)
    np.save(os.path.join(out, "ref_0.npy"), ref.astype(np.float32))


if __name__ == "__main__":
    main()
