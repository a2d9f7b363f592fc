"""Writes ONNX models with the 8-, 4- and 2-bit element types (float8,
float4, int4/uint4, int2/uint2) and .npy inputs for them.

usage: make_narrow_models.py NAME OUT_DIR   (NAME: see MODELS below)

Built from raw TensorProto fields so that it runs with onnx 1.12, whose
helpers do not know these types (TensorProto.DataType 17-26 of onnx.proto).
Inputs are .npy files under mlprog's convention for these types (the
ml_dtypes name as 'descr', one byte per element), written without ml_dtypes.
"""
import os
import sys

import numpy as np

from onnx import TensorProto, helper

FLOAT = TensorProto.FLOAT
FLOAT8E4M3FN, FLOAT8E5M2FNUZ = 17, 20
UINT4, INT4, FLOAT4E2M1, FLOAT8E8M0, UINT2, INT2 = 21, 22, 23, 24, 25, 26


def model(nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs,
                              initializer=list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)])
    m.ir_version = 11
    return m


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def tensor(name, elem, dims, raw=None, int32=None):
    t = TensorProto()
    t.name, t.data_type = name, elem
    t.dims.extend(dims)
    if raw is not None:
        t.raw_data = bytes(raw)
    else:
        t.int32_data.extend(int32)
    return t


def initializers():
    # int4 [7, -8, -1, 0, 3] packed low nibble first in raw_data; uint4
    # [1, 2, 15] packed in int32_data; int2 [1, -2, -1, 0, 1] four to a
    # byte; float8e4m3fn [1, -2] as int32_data bit patterns; float4e2m1
    # [0.5, 1, -6] packed; float8e8m0 [1]. Each is cast to float.
    inits = [
        tensor("w_i4", INT4, [5], raw=[0x87, 0x0F, 0x03]),
        tensor("w_u4", UINT4, [3], int32=[0x21, 0x0F]),
        tensor("w_i2", INT2, [5], raw=[0x39, 0x01]),
        tensor("w_f8", FLOAT8E4M3FN, [2], int32=[0x38, 0xC0]),
        tensor("w_f4", FLOAT4E2M1, [3], raw=[0x21, 0x0F]),
        tensor("w_e8m0", FLOAT8E8M0, [1], raw=[0x7F]),
    ]
    names = [t.name for t in inits]
    nodes = [helper.make_node("Cast", [n], ["o" + n[1:]], name="cast" + n[1:],
                              to=FLOAT) for n in names]
    outputs = [vi("o" + t.name[1:], FLOAT, list(t.dims)) for t in inits]
    return model(nodes, [], outputs, inits), {}


def short_int4():
    # Five int4 values need three bytes; two is an error.
    t = tensor("w", INT4, [5], raw=[0x87, 0x0F])
    return model([helper.make_node("Cast", ["w"], ["y"], name="c", to=FLOAT)],
                 [], [vi("y", FLOAT, [5])], [t]), {}


def write_npy(path, descr, shape, payload):
    with open(path, "wb") as f:
        np.lib.format.write_array_header_1_0(
            f, {"descr": descr, "fortran_order": False, "shape": shape})
        f.write(bytes(payload))


def boundary():
    # Every type in and out through Identity, and Cast float -> float8e5m2fnuz
    # without saturation (overflow and -0 -> 0x80 / 0x00) and with it.
    types = [("f8", FLOAT8E4M3FN, "float8_e4m3fn", [0x38, 0xC0, 0x7F]),
             ("u4", UINT4, "uint4", [15, 1, 0]),
             ("i4", INT4, "int4", [0x0F, 7, 8]),
             ("u2", UINT2, "uint2", [3, 2, 1]),
             ("i2", INT2, "int2", [3, 1, 2]),
             ("f4", FLOAT4E2M1, "float4_e2m1fn", [0x0F, 0x01, 0x08]),
             ("e8", FLOAT8E8M0, "float8_e8m0fnu", [0x7F, 0x00, 0xFF])]
    nodes = [helper.make_node("Identity", ["x" + n], ["y" + n], name="id" + n)
             for n, _, _, _ in types]
    nodes.append(helper.make_node("Cast", ["xf"], ["sat"], name="sat",
                                  to=FLOAT8E5M2FNUZ))
    nodes.append(helper.make_node("Cast", ["xf"], ["nosat"], name="nosat",
                                  to=FLOAT8E5M2FNUZ, saturate=0))
    inputs = [vi("x" + n, t, [3]) for n, t, _, _ in types]
    inputs.append(vi("xf", FLOAT, [4]))
    outputs = [vi("y" + n, t, [3]) for n, t, _, _ in types]
    outputs += [vi("sat", FLOAT8E5M2FNUZ, [4]), vi("nosat", FLOAT8E5M2FNUZ, [4])]
    npys = {f"x{n}.npy": (descr, (3,), payload)
            for n, _, descr, payload in types}
    npys["xf.npy"] = np.array([1e6, -0.0, 0.3, -np.inf], np.float32)
    return model(nodes, inputs, outputs), npys


MODELS = {f.__name__: f for f in [initializers, short_int4, boundary]}

if __name__ == "__main__":
    name, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    m, npys = MODELS[name]()
    with open(os.path.join(out, "model.onnx"), "wb") as f:
        f.write(m.SerializeToString())
    for file, spec in npys.items():
        if isinstance(spec, np.ndarray):
            np.save(os.path.join(out, file), spec)
        else:
            write_npy(os.path.join(out, file), *spec)
