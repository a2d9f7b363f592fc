"""Writes a small ONNX model for the quantization-family importer tests.

usage: make_quant_model.py NAME OUT.onnx   (NAME: see MODELS below)
"""
import sys

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
    "matmul_integer": matmul_integer,
    "cast_bf16": cast_bf16,
}

if __name__ == "__main__":
    import onnx
    onnx.save(MODELS[sys.argv[1]](), sys.argv[2])
