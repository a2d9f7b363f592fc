"""Writes a small ONNX model for the math-family importer tests.

usage: make_math_model.py NAME OUT.onnx   (NAME: see MODELS below)
"""
import sys

from onnx import TensorProto, helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64


def model(nodes, inputs, outputs, opset=13):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", opset)])


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def log_softmax(opset):
    # Opset < 13 coerces to 2-D at axis 1: reduce over dims 1 and 2.
    return lambda: model(
        [helper.make_node("LogSoftmax", ["x"], ["y"], name="ls")],
        [vi("x", F, [2, 3, 4])], [vi("y", F, [2, 3, 4])], opset)


def hardmax_opset11():
    # Coerced to [2, 12], one-hot of the first maximum, reshaped back.
    return model([helper.make_node("Hardmax", ["x"], ["y"], name="hm")],
                 [vi("x", F, [2, 3, 4])], [vi("y", F, [2, 3, 4])], 11)


def reduce_sum_runtime_axes():
    # Axes are a graph input: [3, 2, 2] -> [3, 2] is axis 1 or axis 2, both
    # are built and the run-time axes pick one.
    return model([helper.make_node("ReduceSum", ["x", "axes"], ["y"],
                                   name="rs", keepdims=0)],
                 [vi("x", F, [3, 2, 2]), vi("axes", I64, [1])],
                 [vi("y", F, [3, 2])])


def cumsum_runtime_axis():
    return model([helper.make_node("CumSum", ["x", "axis"], ["y"], name="cs",
                                   exclusive=1, reverse=1)],
                 [vi("x", F, [2, 3]), vi("axis", I64, [])],
                 [vi("y", F, [2, 3])], 14)


def cast_uint8():
    # uint8 -> float is an unsigned conversion; float -> uint8 fptoui.
    return model([helper.make_node("Cast", ["x"], ["f"], name="c1", to=F),
                  helper.make_node("Cast", ["f"], ["y"], name="c2",
                                   to=TensorProto.UINT8)],
                 [vi("x", TensorProto.UINT8, [4])],
                 [vi("y", TensorProto.UINT8, [4])])


def mod_floor():
    # fmod = 0 on integers: the remainder takes the divisor's sign.
    return model([helper.make_node("Mod", ["a", "b"], ["y"], name="m")],
                 [vi("a", TensorProto.INT32, [4]),
                  vi("b", TensorProto.INT32, [4])],
                 [vi("y", TensorProto.INT32, [4])])


def einsum_diagonal():
    return model([helper.make_node("Einsum", ["x"], ["y"], name="e",
                                   equation="...ii->...i")],
                 [vi("x", F, [3, 5, 5])], [vi("y", F, [3, 5])], 12)


MODELS = {
    "log_softmax_opset11": log_softmax(11),
    "log_softmax_opset13": log_softmax(13),
    "hardmax_opset11": hardmax_opset11,
    "reduce_sum_runtime_axes": reduce_sum_runtime_axes,
    "cumsum_runtime_axis": cumsum_runtime_axis,
    "cast_uint8": cast_uint8,
    "mod_floor": mod_floor,
    "einsum_diagonal": einsum_diagonal,
}

if __name__ == "__main__":
    import onnx
    onnx.save(MODELS[sys.argv[1]](), sys.argv[2])
