#!/usr/bin/env python3
"""Writes one ONNX model with the ops whose extents detectors make large or
dynamic, its inputs and numpy references (detection-ops.test).

Usage: make_detection_ops.py OUT_DIR

  TopK a: [1200, 2] float with many ties, axis 0 (not the last), largest,
          k = 700 (a static extent over the rank-count limit: merge sort).
  TopK b: [n] float (n symbolic, 2000 at run time), smallest, constant k = 40.
  TopK c: [3, m] int32 with ties (m symbolic, 1500), largest, k read at run
          time (1500: a full sort).
  ConvTranspose: [b, 2, 4, 4] (b symbolic, 3 at run time) with a [2, 3, 3, 3]
          filter and bias, strides 2, pads 1, output_padding 1 (Mask R-CNN's
          mask head runs its ConvTranspose over the run-time detections).
Writes OUT_DIR/model.onnx, OUT_DIR/{xa,xb,xc,k,y}.npy and OUT_DIR/ref_{0..6}.npy
(the outputs in order).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T, helper as h, numpy_helper


def topk_ref(x, k, axis, largest):
    """Sorted top k along axis, ties by ascending position."""
    key = -x.astype(np.float64) if largest else x.astype(np.float64)
    order = np.argsort(key, axis=axis, kind="stable")
    order = np.take(order, np.arange(k), axis=axis)
    return np.take_along_axis(x, order, axis), order.astype(np.int64)


def conv_transpose_ref(y, w, bias, stride, pad, out_pad):
    n, c, hh, ww = y.shape
    f, k = w.shape[1], w.shape[2]
    oh = (hh - 1) * stride - 2 * pad + k + out_pad
    ow = (ww - 1) * stride - 2 * pad + k + out_pad
    full = np.zeros((n, f, (hh - 1) * stride + k + out_pad,
                     (ww - 1) * stride + k + out_pad), np.float64)
    for i in range(hh):
        for j in range(ww):
            full[:, :, i * stride:i * stride + k, j * stride:j * stride + k] += \
                np.einsum("nc,cfyx->nfyx", y[:, :, i, j], w)
    out = full[:, :, pad:pad + oh, pad:pad + ow] + bias[None, :, None, None]
    return out.astype(np.float32)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(0)
    w = rng.standard_normal((2, 3, 3, 3)).astype(np.float32)
    bias = rng.standard_normal(3).astype(np.float32)
    inits = [numpy_helper.from_array(np.array([700], np.int64), "ka"),
             numpy_helper.from_array(np.array([40], np.int64), "kb"),
             numpy_helper.from_array(w, "w"),
             numpy_helper.from_array(bias, "bias")]
    nodes = [
        h.make_node("TopK", ["xa", "ka"], ["va", "ia"], axis=0, largest=1),
        h.make_node("TopK", ["xb", "kb"], ["vb", "ib"], axis=0, largest=0),
        h.make_node("TopK", ["xc", "k"], ["vc", "ic"], axis=1, largest=1),
        h.make_node("ConvTranspose", ["y", "w", "bias"], ["z"],
                    strides=[2, 2], pads=[1, 1, 1, 1],
                    output_padding=[1, 1]),
    ]
    inputs = [h.make_tensor_value_info("xa", T.FLOAT, [1200, 2]),
              h.make_tensor_value_info("xb", T.FLOAT, ["n"]),
              h.make_tensor_value_info("xc", T.INT32, [3, "m"]),
              h.make_tensor_value_info("k", T.INT64, [1]),
              h.make_tensor_value_info("y", T.FLOAT, ["b", 2, 4, 4])]
    outputs = [h.make_tensor_value_info("va", T.FLOAT, [700, 2]),
               h.make_tensor_value_info("ia", T.INT64, [700, 2]),
               h.make_tensor_value_info("vb", T.FLOAT, [40]),
               h.make_tensor_value_info("ib", T.INT64, [40]),
               h.make_tensor_value_info("vc", T.INT32, [3, "kc"]),
               h.make_tensor_value_info("ic", T.INT64, [3, "kc"]),
               h.make_tensor_value_info("z", T.FLOAT, ["b", 3, 8, 8])]
    graph = h.make_graph(nodes, "g", inputs, outputs, initializer=inits)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "model.onnx"))

    xa = np.round(rng.standard_normal((1200, 2)) * 3).astype(np.float32)
    xb = rng.standard_normal(2000).astype(np.float32)
    xc = rng.integers(-20, 20, (3, 1500)).astype(np.int32)
    k = np.array([1500], np.int64)
    y = rng.standard_normal((3, 2, 4, 4)).astype(np.float32)
    for name, v in [("xa", xa), ("xb", xb), ("xc", xc), ("k", k), ("y", y)]:
        np.save(os.path.join(out, name + ".npy"), v)
    refs = [*topk_ref(xa, 700, 0, True), *topk_ref(xb, 40, 0, False),
            *topk_ref(xc, 1500, 1, True),
            conv_transpose_ref(y, w, bias, 2, 1, 1)]
    for i, r in enumerate(refs):
        np.save(os.path.join(out, "ref_%d.npy" % i), r)


if __name__ == "__main__":
    main()
