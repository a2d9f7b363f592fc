"""Prints each tensor of a safetensors bundle (name, dtype, shape, values),
parsed here independently of our C++ reader, and checks the format rules
the reference implementation enforces (contiguous data, header padding)."""
import json
import struct
import sys

import numpy as np

DTYPES = {"F32": np.float32, "F64": np.float64, "F16": np.float16,
          "I64": np.int64, "I32": np.int32, "I8": np.int8, "U8": np.uint8,
          "BOOL": np.bool_}
data = open(sys.argv[1], "rb").read()
(n,) = struct.unpack("<Q", data[:8])
header = json.loads(data[8:8 + n])
assert (8 + n) % 8 == 0, "data section not 8-byte aligned"
body = data[8 + n:]
end = 0
for name, info in sorted(header.items(), key=lambda kv: kv[1]["data_offsets"]
                         if kv[0] != "__metadata__" else [-1]):
    if name == "__metadata__":
        continue
    begin, stop = info["data_offsets"]
    assert begin == end, "hole in the data section"
    end = stop
    array = np.frombuffer(body[begin:stop], dtype=DTYPES[info["dtype"]])
    array = array.reshape(info["shape"])
    print(name, info["dtype"], list(array.shape), array.flatten().tolist())
assert end == len(body), "trailing bytes"
