"""Writes the weights of extern-globals.mlir: a safetensors bundle (written
here independently of our C++ writer, following the format spec) and a raw
blob file, plus malformed variants for the error cases."""
import json
import struct
import sys

import numpy as np


def safetensors(path, tensors, header_extra=None, truncate=0):
    header, data = {}, b""
    for name, array in tensors.items():
        dtype = {np.float32: "F32", np.int64: "I64"}[array.dtype.type]
        header[name] = {"dtype": dtype, "shape": list(array.shape),
                        "data_offsets": [len(data), len(data) + array.nbytes]}
        data += array.tobytes()
    header.update(header_extra or {})
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    blob = struct.pack("<Q", len(text)) + text + data
    with open(path, "wb") as f:
        f.write(blob[:len(blob) - truncate])


out = sys.argv[1]
w = np.arange(6, dtype=np.float32).reshape(2, 3)
b = np.array([10, 20, 30], dtype=np.float32)
safetensors(f"{out}/bundle.safetensors", {"w": w, "b": b})
with open(f"{out}/blob.bin", "wb") as f:
    f.write(b"\0" * 16 + np.array([1, 2, 3], dtype=np.float32).tobytes())
# Malformed bundles.
safetensors(f"{out}/truncated.safetensors", {"w": w, "b": b}, truncate=4)
safetensors(f"{out}/wrong-shape.safetensors",
            {"w": w.reshape(3, 2), "b": b})
with open(f"{out}/not-json.safetensors", "wb") as f:
    f.write(struct.pack("<Q", 4) + b"{]]]")
with open(f"{out}/huge-header.safetensors", "wb") as f:
    f.write(struct.pack("<Q", 1 << 62) + b"{}")
