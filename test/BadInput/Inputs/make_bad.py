"""Writes one malformed input file for the bad-input suite.

usage: make_bad.py CASE OUT   (CASE: a function name below, '-' for '_')

Each case starts from a small valid file of its format and breaks one thing,
so the error a test expects is the one the case is about.
"""
import json
import os
import struct
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


# ---------------------------------------------------------------- ONNX ----
def _onnx():
    import onnx
    from onnx import TensorProto, helper
    return onnx, TensorProto, helper


def _onnx_model(nodes, inputs, outputs, inits=(), check=False):
    onnx, TensorProto, helper = _onnx()
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model.SerializeToString()


def _relu_model():
    onnx, T, helper = _onnx()
    return _onnx_model([helper.make_node("Relu", ["x"], ["y"], name="r")],
                       [helper.make_tensor_value_info("x", T.FLOAT, [2, 3])],
                       [helper.make_tensor_value_info("y", T.FLOAT, [2, 3])])


def _init_model(init):
    """y = x + init, where `init` is a TensorProto named 'w'."""
    onnx, T, helper = _onnx()
    return _onnx_model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                       [helper.make_tensor_value_info("x", T.FLOAT, [2, 3])],
                       [helper.make_tensor_value_info("y", T.FLOAT, [2, 3])],
                       [init])


def _raw_tensor(dims, raw=b""):
    onnx, T, helper = _onnx()
    t = onnx.TensorProto()
    t.name = "w"
    t.data_type = T.FLOAT
    t.dims.extend(dims)
    t.raw_data = raw
    return t


def onnx_truncated():
    data = _init_model(_raw_tensor([2, 3], np.ones(6, np.float32).tobytes()))
    return data[:len(data) // 2]


def onnx_wrong_magic():
    return b"\x89PNG\r\n\x1a\n" + b"\0" * 64


def onnx_negative_dim():
    return _init_model(_raw_tensor([2, -3], b"\0"))


def onnx_giant_dim():
    return _init_model(_raw_tensor([1 << 60, 4], b"\0"))


def onnx_overflow_dims():
    return _init_model(_raw_tensor([1 << 32, 1 << 32, 1 << 32]))


def onnx_over_limit():
    # 4 MB of float32 declared (data absent): refused by --max-tensor-bytes
    # before the size of the data is even compared.
    return _init_model(_raw_tensor([1000, 1000], b"\0"))


def onnx_short_raw_data():
    return _init_model(_raw_tensor([2, 3], b"\0" * 10))


def onnx_cycle():
    onnx, T, helper = _onnx()
    return _onnx_model(
        [helper.make_node("Relu", ["b"], ["a"], name="first"),
         helper.make_node("Relu", ["a"], ["b"], name="second"),
         helper.make_node("Add", ["x", "b"], ["y"], name="add")],
        [helper.make_tensor_value_info("x", T.FLOAT, [2])],
        [helper.make_tensor_value_info("y", T.FLOAT, [2])])


def onnx_undefined_input():
    onnx, T, helper = _onnx()
    return _onnx_model(
        [helper.make_node("Add", ["x", "nowhere"], ["y"], name="add")],
        [helper.make_tensor_value_info("x", T.FLOAT, [2])],
        [helper.make_tensor_value_info("y", T.FLOAT, [2])])


def onnx_duplicate_output():
    onnx, T, helper = _onnx()
    return _onnx_model(
        [helper.make_node("Relu", ["x"], ["y"], name="one"),
         helper.make_node("Neg", ["x"], ["y"], name="two")],
        [helper.make_tensor_value_info("x", T.FLOAT, [2])],
        [helper.make_tensor_value_info("y", T.FLOAT, [2])])


def onnx_duplicate_initializer():
    onnx, T, helper = _onnx()
    w = _raw_tensor([2, 3], b"\0" * 24)
    return _onnx_model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                       [helper.make_tensor_value_info("x", T.FLOAT, [2, 3])],
                       [helper.make_tensor_value_info("y", T.FLOAT, [2, 3])],
                       [w, w])


def onnx_duplicate_input():
    onnx, T, helper = _onnx()
    return _onnx_model([helper.make_node("Add", ["x", "x"], ["y"], name="add")],
                       [helper.make_tensor_value_info("x", T.FLOAT, [2, 3]),
                        helper.make_tensor_value_info("x", T.FLOAT, [4])],
                       [helper.make_tensor_value_info("y", T.FLOAT, [2, 3])])


def onnx_type_mismatch():
    onnx, T, helper = _onnx()
    return _onnx_model(
        [helper.make_node("Add", ["x", "i"], ["y"], name="add")],
        [helper.make_tensor_value_info("x", T.FLOAT, [2]),
         helper.make_tensor_value_info("i", T.INT64, [2])],
        [helper.make_tensor_value_info("y", T.FLOAT, [2])])


def onnx_shape_mismatch():
    onnx, T, helper = _onnx()
    return _onnx_model(
        [helper.make_node("Add", ["x", "z"], ["y"], name="add")],
        [helper.make_tensor_value_info("x", T.FLOAT, [2, 3]),
         helper.make_tensor_value_info("z", T.FLOAT, [4])],
        [helper.make_tensor_value_info("y", T.FLOAT, [2, 3])])


def onnx_negative_input_dim():
    onnx, T, helper = _onnx()
    return _onnx_model([helper.make_node("Relu", ["x"], ["y"], name="r")],
                       [helper.make_tensor_value_info("x", T.FLOAT, [2, -5])],
                       [helper.make_tensor_value_info("y", T.FLOAT, [2, 5])])


def onnx_unproduced_output():
    onnx, T, helper = _onnx()
    return _onnx_model([helper.make_node("Relu", ["x"], ["y"], name="r")],
                       [helper.make_tensor_value_info("x", T.FLOAT, [2])],
                       [helper.make_tensor_value_info("y", T.FLOAT, [2]),
                        helper.make_tensor_value_info("z", T.FLOAT, [2])])


def onnx_old_opset_unproduced_output():
    """Opset 5 (upgraded by libonnx's version converter) with a graph output
    that no node produces: the converter dereferenced a null value for it
    (found by fuzz-onnx)."""
    onnx, T, helper = _onnx()
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="r")], "g",
        [helper.make_tensor_value_info("x", T.FLOAT, [2])],
        [helper.make_tensor_value_info("y", T.FLOAT, [2]),
         helper.make_tensor_value_info("h", T.FLOAT, [2])])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 5)])
    model.ir_version = 8
    return model.SerializeToString()


def onnx_valid():
    return _relu_model()


# ----------------------------------------------------------------- npy ----
def _npy(header, data=b"", major=1, length=None):
    text = header.encode("latin1")
    text += b" " * ((64 - (10 + len(text) + 1) % 64) % 64) + b"\n"
    n = len(text) if length is None else length
    prefix = b"\x93NUMPY" + bytes([major, 0])
    prefix += struct.pack("<H", n) if major == 1 else struct.pack("<I", n)
    return prefix + text + data


def npy_truncated_header():
    return _npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }")[:30]


def npy_bad_version():
    return _npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                b"\0" * 8, major=9)


def npy_header_past_end():
    return _npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                b"", length=60000)


def npy_negative_dim():
    return _npy("{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 2), }")


def npy_overflow_dims():
    return _npy("{'descr': '<f4', 'fortran_order': False, "
                "'shape': (4294967296, 4294967296), }")


def npy_giant_dim():
    return _npy("{'descr': '<f8', 'fortran_order': False, "
                "'shape': (99999999999999999999,), }")


def npy_over_limit():
    return _npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1000, 1000), }")


def npy_truncated_data():
    return _npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }",
                b"\0" * 12)


def npy_big_endian():
    return _npy("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 4), }",
                b"\0" * 32)


def npy_structured():
    return _npy("{'descr': [('a', '<f4')], 'fortran_order': False, "
                "'shape': (2,), }", b"\0" * 8)


def npy_unterminated_dict():
    return _npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4")


def npy_wrong_magic():
    return b"\x93NUMPX" + _npy("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (2, 4), }", b"\0" * 32)[6:]


def npy_f32_2x3():
    return _npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                b"\0" * 24)


def npy_i32():
    return _npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 4), }",
                b"\0" * 32)


def npy_f32_rank1():
    return _npy("{'descr': '<f4', 'fortran_order': False, 'shape': (8,), }",
                b"\0" * 32)


def npy_f32():
    return _npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }",
                b"\0" * 32)


# --------------------------------------------------------- safetensors ----
def _st(header, data=b"", length=None):
    text = json.dumps(header).encode()
    n = len(text) if length is None else length
    return struct.pack("<Q", n) + text + data


def st_short():
    return b"\x10\0\0"


def st_header_past_end():
    return _st({"w": {"dtype": "F32", "shape": [2, 4],
                      "data_offsets": [0, 32]}}, b"\0" * 32, length=1 << 40)


def st_header_length_overflow():
    return _st({}, b"", length=(1 << 64) - 1)


def st_not_json():
    return struct.pack("<Q", 6) + b"{'w': " + b"\0" * 32


def st_negative_dim():
    return _st({"w": {"dtype": "F32", "shape": [2, -4],
                      "data_offsets": [0, 32]}}, b"\0" * 32)


def st_overflow_dims():
    return _st({"w": {"dtype": "F32", "shape": [1 << 32, 1 << 32],
                      "data_offsets": [0, 32]}}, b"\0" * 32)


def st_offsets_past_end():
    return _st({"w": {"dtype": "F32", "shape": [2, 4],
                      "data_offsets": [0, 1 << 40]}}, b"\0" * 32)


def st_offsets_overflow():
    return _st({"w": {"dtype": "F32", "shape": [2, 4],
                      "data_offsets": [(1 << 64) - 8, 24]}}, b"\0" * 32)


def st_size_mismatch():
    return _st({"w": {"dtype": "F32", "shape": [2, 4],
                      "data_offsets": [0, 16]}}, b"\0" * 32)


def st_unknown_dtype():
    return _st({"w": {"dtype": "F31", "shape": [2, 4],
                      "data_offsets": [0, 32]}}, b"\0" * 32)


def st_over_limit():
    return _st({"w": {"dtype": "F32", "shape": [1000, 1000],
                      "data_offsets": [0, 4000000]}}, b"\0" * 32)


def st_missing_key():
    return _st({"v": {"dtype": "F32", "shape": [2, 4],
                      "data_offsets": [0, 32]}}, b"\0" * 32)


def st_duplicate_key():
    # json.dumps cannot write a key twice: splice the text.
    entry = '{"dtype": "F32", "shape": [2, 4], "data_offsets": [0, 32]}'
    text = ('{"w": %s, "w": %s}' % (entry, entry)).encode()
    return struct.pack("<Q", len(text)) + text + b"\0" * 32


def st_wrong_shape():
    return _st({"w": {"dtype": "F32", "shape": [4, 2],
                      "data_offsets": [0, 32]}}, b"\0" * 32)


# ---------------------------------------------------------- weight.bin ----
def _blob(count=1, version=2, sentinel=0xDEADBEEF, dtype=2, size=32,
          offset=128, padding=0, data=b"\0" * 32):
    head = struct.pack("<II", count, version) + b"\0" * 56
    meta = struct.pack("<IIQQQ", sentinel, dtype, size, offset, padding)
    meta += b"\0" * (64 - len(meta))
    return head + meta + data


def blob_header_only():
    return _blob()[:40]


def blob_count_overflow():
    return _blob(count=0xFFFFFFFF)


def blob_size_overflow():
    return _blob(size=(1 << 64) - 1)


def blob_offset_overflow():
    return _blob(offset=(1 << 64) - 64)


def blob_over_limit():
    return _blob(size=4000000, data=b"\0" * 4000000)


def blob_bad_padding():
    return _blob(padding=3)


def blob_bad_sentinel():
    return _blob(sentinel=0xDEADBEEE)


def blob_valid():
    return _blob()


CASES = {name: fn for name, fn in globals().items()
         if callable(fn) and not name.startswith("_") and
         name.split("_")[0] in ("onnx", "npy", "st", "blob")}

if __name__ == "__main__":
    case, out = sys.argv[1].replace("-", "_"), sys.argv[2]
    with open(out, "wb") as f:
        f.write(CASES[case]())
