"""Writes DFT/STFT test models with inputs and numpy.fft references.

usage: make_signal_models.py CASE OUT_DIR

Writes OUT_DIR/model.onnx, input_<i>.npy and reference_<i>.npy for
run_graph_model.py. Cases cover what ONNX's node tests do not: onesided
output, a dft_length that pads or truncates, complex input, an inverse
along another axis, and STFT with a constant frame step and no window.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def complex_of(x):
    return x[..., 0] + 1j * x[..., 1] if x.shape[-1] == 2 else x[..., 0]


def stack(z):
    return np.stack([z.real, z.imag], -1).astype(np.float32)


def main():
    name, out = sys.argv[1], sys.argv[2]
    rng = np.random.default_rng(7)
    inits, inputs, attrs, node_inputs = [], {}, {}, ["x"]
    if name == "dft_onesided_pad":
        x = rng.standard_normal((2, 6, 1)).astype(np.float32)
        inits.append(helper.make_tensor("len", TensorProto.INT64, [], [9]))
        node_inputs.append("len")
        attrs = dict(axis=1, onesided=1)
        ref = stack(np.fft.rfft(complex_of(x), n=9, axis=1))
        op = "DFT"
    elif name == "dft_complex_truncate":
        x = rng.standard_normal((2, 3, 7, 2)).astype(np.float32)
        inits.append(helper.make_tensor("len", TensorProto.INT64, [], [5]))
        node_inputs.append("len")
        attrs = dict(axis=2)
        ref = stack(np.fft.fft(complex_of(x)[:, :, :5], axis=2))
        op = "DFT"
    elif name == "dft_inverse_axis":
        x = rng.standard_normal((3, 4, 5, 2)).astype(np.float32)
        attrs = dict(axis=-2, inverse=1)  # the 5-sample axis
        ref = stack(np.fft.ifft(complex_of(x), axis=2))
        op = "DFT"
    elif name == "stft_constant_step":
        x = rng.standard_normal((2, 40, 1)).astype(np.float32)
        inits += [helper.make_tensor("step", TensorProto.INT64, [], [6]),
                  helper.make_tensor("flen", TensorProto.INT64, [], [10])]
        node_inputs += ["step", "", "flen"]
        attrs = dict(onesided=0)
        frames = (40 - 10) // 6 + 1
        sig = complex_of(x)
        ref = stack(np.stack([np.fft.fft(sig[:, f * 6:f * 6 + 10], axis=1)
                              for f in range(frames)], 1))
        op = "STFT"
    else:
        sys.exit("unknown case " + name)
    node = helper.make_node(op, node_inputs, ["y"], **attrs)
    graph = helper.make_graph(
        [node], name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ref.shape)],
        initializer=inits)
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    os.makedirs(out, exist_ok=True)
    onnx.save(model, os.path.join(out, "model.onnx"))
    np.save(os.path.join(out, "input_0.npy"), x)
    np.save(os.path.join(out, "reference_0.npy"), ref)


if __name__ == "__main__":
    main()
