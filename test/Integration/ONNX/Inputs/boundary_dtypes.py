"""Inputs and checks of Integration/ONNX/boundary-dtypes.test.

usage: boundary_dtypes.py write DIR       writes DIR/<input>.npy
       boundary_dtypes.py check DIR OUT   prints each OUT/output_I.npy's
                                          dtype and values, after checking
                                          them against numpy

bfloat16 needs no ml_dtypes here: inputs are written as uint16 bit patterns
under mlprog's 'bfloat16' descr (g.npy) and as the 2-byte void np.save
writes for an ml_dtypes.bfloat16 array (g_void.npy); outputs are read back
as bit patterns.
"""
import ast
import os
import sys

import numpy as np

A = np.array([100, 200, 255, 0], np.uint8)
B = np.array([100, 0, 1, 0], np.uint8)
W = np.array([65535, 40000], np.uint16)
S = np.array([-100, 100], np.int8)
H = np.array([0.5, -1.5], np.float16)
G_BITS = np.array([0x3fc0, 0xc000], "<u2")  # bfloat16 1.5, -2.0
P = np.array([True, False])


def write(d):
    for name, array in {"a": A, "b": B, "w": W, "s": S, "h": H,
                        "p": P}.items():
        np.save(os.path.join(d, name + ".npy"), array)
    np.save(os.path.join(d, "s4.npy"), A.view(np.int8))
    with open(os.path.join(d, "g.npy"), "wb") as f:
        np.lib.format.write_array_header_1_0(
            f, {"descr": "bfloat16", "fortran_order": False, "shape": (2,)})
        f.write(G_BITS.tobytes())
    np.save(os.path.join(d, "g_void.npy"), G_BITS.view("V2"))


def load_bf16_bits(path):
    """The bit patterns of a .npy file whose descr is 'bfloat16'."""
    with open(path, "rb") as f:
        assert np.lib.format.read_magic(f) == (1, 0)
        size = int.from_bytes(f.read(2), "little")
        header = ast.literal_eval(f.read(size).decode("latin1"))
        assert header["descr"] == "bfloat16", header
        return np.frombuffer(f.read(), "<u2").reshape(header["shape"])


def check(out):
    want = [(A + B), W, S, H, None, ~P]
    for i, w in enumerate(want):
        path = os.path.join(out, f"output_{i}.npy")
        if w is None:
            bits = load_bf16_bits(path)
            np.testing.assert_array_equal(bits, G_BITS)
            print(f"output {i}: bfloat16 bits {[hex(b) for b in bits]}")
            continue
        got = np.load(path)
        assert got.dtype == w.dtype, (i, got.dtype, w.dtype)
        np.testing.assert_array_equal(got, w)
        print(f"output {i}: {got.dtype} {got}")


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
    else:
        check(sys.argv[3])
