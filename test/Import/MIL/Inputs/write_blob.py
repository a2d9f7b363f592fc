"""Writes a Core ML weight.bin (blob storage v2) holding two blobs:
  offset 64:  float32 [2, 3] = 0..5     (data at 128, 24 bytes)
  offset 192: float16 [4]    = 1..4     (data at 256, 8 bytes)
and optionally corrupts it:
  --corrupt sentinel | dtype | size-past-eof | offset-past-eof |
            offset-overflow | truncate | version | unaligned-data
and optionally fills fields pre-iOS18 writers leave uninitialized:
  --garbage   padding of the byte-sized blobs, reserved header and metadata
              fields (readers must ignore them)
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
parser.add_argument("--garbage", action="store_true")
args = parser.parse_args()

w = BlobWriter()
assert w.add(np.arange(6, dtype=np.float32).reshape(2, 3)) == 64
assert w.add(np.arange(1, 5, dtype=np.float16)) == 192
data = bytearray(w.bytes())
if args.garbage:
    for meta in (64, 192):
        # 13376768496: what a public feature-extractor package carries.
        struct.pack_into("<Q", data, meta + 24, 13376768496)
        struct.pack_into("<QQQQ", data, meta + 32, *([0xA5A5A5A5A5A5A5A5] * 4))
    struct.pack_into("<7Q", data, 8, *([0x5A5A5A5A5A5A5A5A] * 7))
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
