"""Writes a small ONNX model for the quantization-family importer tests.

usage: make_quant_model.py NAME OUT.onnx   (NAME: see MODELS below)
       make_quant_model.py NAME OUT_DIR    (NAME: see EXEC_MODELS below)

An EXEC_MODELS case writes OUT_DIR/model.onnx, input_*.npy and the numpy
reference outputs reference_*.npy for Inputs/run_graph_model.py.
"""
import os
import sys

import numpy as np

from onnx import TensorProto, helper

F = TensorProto.FLOAT
U8 = TensorProto.UINT8
I8 = TensorProto.INT8


def model(nodes, inputs, outputs, opset=13):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", opset)])


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def quantize_axis(scale_len):
    # Per-axis int8 quantization along axis 1 of a [1, 3, 2, 2] input.
    def build():
        return model([helper.make_node("QuantizeLinear", ["x", "s", "zp"],
                                       ["y"], name="q", axis=1)],
                     [vi("x", F, [1, 3, 2, 2]), vi("s", F, [scale_len]),
                      vi("zp", I8, [scale_len])],
                     [vi("y", I8, [1, 3, 2, 2])])
    return build


def quantize_default_uint8():
    # No zero point: uint8 output, saturating to [0, 255].
    return model([helper.make_node("QuantizeLinear", ["x", "s"], ["y"],
                                   name="q")],
                 [vi("x", F, [4]), vi("s", F, [])], [vi("y", U8, [4])], 10)


def dequantize_axis():
    return model([helper.make_node("DequantizeLinear", ["x", "s", "zp"],
                                   ["y"], name="dq", axis=0)],
                 [vi("x", U8, [3, 2]), vi("s", F, [3]), vi("zp", U8, [3])],
                 [vi("y", F, [3, 2])])


def dequantize_blocked(block_size):
    # Opset 21 blocks of `block_size` along axis 1 of a [2, 6] input.
    def build():
        n = 6 // block_size if 6 % block_size == 0 else 6 // block_size + 1
        return model([helper.make_node("DequantizeLinear", ["x", "s", "zp"],
                                       ["y"], name="dq", axis=1,
                                       block_size=block_size)],
                     [vi("x", I8, [2, 6]), vi("s", F, [2, n]),
                      vi("zp", I8, [2, n])],
                     [vi("y", F, [2, 6])], 21)
    return build


def matmul_integer():
    # uint8 A with a per-row zero point, int8 B with a per-tensor one.
    return model([helper.make_node("MatMulInteger", ["a", "b", "az", "bz"],
                                   ["y"], name="mmi")],
                 [vi("a", U8, [4, 3]), vi("b", I8, [3, 2]), vi("az", U8, [4]),
                  vi("bz", I8, [])],
                 [vi("y", TensorProto.INT32, [4, 2])], 10)


def cast_bf16():
    return model([helper.make_node("Cast", ["x"], ["b"], name="c1",
                                   to=TensorProto.BFLOAT16),
                  helper.make_node("Cast", ["b"], ["y"], name="c2", to=F)],
                 [vi("x", F, [4])], [vi("y", F, [4])])


MODELS = {
    "quantize_axis": quantize_axis(3),
    "quantize_axis_mismatch": quantize_axis(4),
    "quantize_default_uint8": quantize_default_uint8,
    "dequantize_axis": dequantize_axis,
    "dequantize_blocked": dequantize_blocked(3),
    "dequantize_blocked_partial": dequantize_blocked(4),
    "matmul_integer": matmul_integer,
    "cast_bf16": cast_bf16,
}

def quantize(x, scale, zp, lo, hi):
    """ONNX QuantizeLinear: round half to even, add zp, saturate."""
    return np.clip(np.rint(x / scale) + zp, lo, hi)


def quantize_exec():
    # uint8 per-tensor: ties round to even, saturation at both ends; int8
    # per-axis (axis 0 of [2, 4]) with a negative zero point.
    x = np.array([0.5, 1.5, 2.5, -0.5, 3.49, 1000.0, -1000.0, 7.0],
                 np.float32)
    s, zp = np.float32(1.0), np.uint8(3)
    x2 = np.array([[1.0, -2.5, 300.0, -300.0], [0.25, 0.75, -0.25, 2.0]],
                  np.float32)
    s2 = np.array([0.5, 0.25], np.float32)
    zp2 = np.array([-2, 5], np.int8)
    m = model([helper.make_node("QuantizeLinear", ["x", "s", "zp"], ["y"],
                                name="q"),
               helper.make_node("QuantizeLinear", ["x2", "s2", "zp2"], ["y2"],
                                name="q2", axis=0),
               helper.make_node("DequantizeLinear", ["y2", "s2", "zp2"],
                                ["d2"], name="dq2", axis=0)],
              [vi("x", F, [8]), vi("s", F, []), vi("zp", U8, []),
               vi("x2", F, [2, 4]), vi("s2", F, [2]), vi("zp2", I8, [2])],
              [vi("y", U8, [8]), vi("y2", I8, [2, 4]), vi("d2", F, [2, 4])])
    y = quantize(x, s, zp, 0, 255).astype(np.uint8)
    y2 = quantize(x2, s2[:, None], zp2[:, None], -128, 127).astype(np.int8)
    d2 = ((y2.astype(np.int32) - zp2[:, None]) * s2[:, None]).astype(
        np.float32)
    return m, [x, s, zp, x2, s2, zp2], [y, y2, d2]


def qlinear_matmul_exec():
    # uint8 a (per-tensor), int8 b with per-column scale and zero point.
    rng = np.random.default_rng(0)
    a = rng.integers(0, 256, (3, 5)).astype(np.uint8)
    b = rng.integers(-128, 128, (5, 4)).astype(np.int8)
    a_s, a_zp = np.array([0.02], np.float32), np.array([128], np.uint8)
    b_s = np.array([0.01, 0.02, 0.03, 0.04], np.float32)
    b_zp = np.array([0, 1, -1, 2], np.int8)
    y_s, y_zp = np.float32(0.05), np.uint8(100)
    m = model([helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs",
                                                  "bz", "ys", "yz"], ["y"],
                                name="qmm")],
              [vi("a", U8, [3, 5]), vi("as", F, [1]), vi("az", U8, [1]),
               vi("b", I8, [5, 4]), vi("bs", F, [4]), vi("bz", I8, [4]),
               vi("ys", F, []), vi("yz", U8, [])],
              [vi("y", U8, [3, 4])], 10)
    acc = (a.astype(np.int32) - a_zp) @ (b.astype(np.int32) - b_zp)
    y = quantize(acc.astype(np.float32) * (a_s * b_s / y_s), 1.0, y_zp, 0,
                 255).astype(np.uint8)
    return m, [a, a_s, a_zp, b, b_s, b_zp, y_s, y_zp], [y]


EXEC_MODELS = {
    "quantize_exec": quantize_exec,
    "qlinear_matmul_exec": qlinear_matmul_exec,
}

if __name__ == "__main__":
    import onnx
    if sys.argv[1] in EXEC_MODELS:
        out = sys.argv[2]
        os.makedirs(out, exist_ok=True)
        m, inputs, refs = EXEC_MODELS[sys.argv[1]]()
        onnx.save(m, os.path.join(out, "model.onnx"))
        for i, v in enumerate(inputs):
            np.save(os.path.join(out, f"input_{i}.npy"), np.asarray(v))
        for i, v in enumerate(refs):
            np.save(os.path.join(out, f"reference_{i}.npy"), v)
    else:
        onnx.save(MODELS[sys.argv[1]](), sys.argv[2])
