"""Writes a Core ML weight.bin (blob storage v2) holding two blobs:
  offset 64:  float32 [2, 3] = 0..5     (data at 128, 24 bytes)
  offset 192: float16 [4]    = 1..4     (data at 256, 8 bytes)
and optionally corrupts it:
  --corrupt sentinel | dtype | size-past-eof | offset-past-eof |
            offset-overflow | truncate | version | unaligned-data
"""

import argparse
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mil_writer import BlobWriter  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("path")
parser.add_argument("--corrupt", default="")
args = parser.parse_args()

w = BlobWriter()
assert w.add(np.arange(6, dtype=np.float32).reshape(2, 3)) == 64
assert w.add(np.arange(1, 5, dtype=np.float16)) == 192
data = bytearray(w.bytes())
if args.corrupt == "sentinel":
    struct.pack_into("<I", data, 64, 0x12345678)
elif args.corrupt == "dtype":
    struct.pack_into("<I", data, 64 + 4, 99)
elif args.corrupt == "size-past-eof":
    struct.pack_into("<Q", data, 64 + 8, 1 << 20)
elif args.corrupt == "offset-past-eof":
    struct.pack_into("<Q", data, 64 + 16, 1 << 40)
elif args.corrupt == "offset-overflow":
    struct.pack_into("<Q", data, 64 + 16, (1 << 64) - 64)
elif args.corrupt == "unaligned-data":
    struct.pack_into("<Q", data, 64 + 16, 130)
elif args.corrupt == "version":
    struct.pack_into("<I", data, 4, 7)
elif args.corrupt == "truncate":
    data = data[:200]
os.makedirs(os.path.dirname(os.path.abspath(args.path)), exist_ok=True)
with open(args.path, "wb") as f:
    f.write(data)
