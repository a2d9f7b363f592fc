"""Writes the inputs of runtime-bounds.pbtxt (`write DIR`) or compares its
outputs with numpy (`check DIR`): slice_by_size, slice_by_index (squeeze and
end masks) and slice_update whose begin is the run-time input `b`, and a
reshape to the run-time shape `s`."""
import sys

import numpy as np

x = np.arange(12, dtype=np.float32).reshape(2, 6)
b = np.array([1, 0], np.int32)
s = np.array([3, 4], np.int32)
mode, out = sys.argv[1], sys.argv[2]
if mode == "write":
    for name, v in (("x", x), ("b", b), ("s", s)):
        np.save(f"{out}/{name}.npy", v)
    sys.exit(0)
updated = x.copy()
updated[1:2, 0:2] = 1
expected = [x[1:2, 0:3], x[1, 0:], updated, x.reshape(3, 4)]
bad = 0
for i, e in enumerate(expected):
    got = np.load(f"{out}/output_{i}.npy")
    if got.shape != e.shape or not np.array_equal(got, e):
        print(f"MISMATCH output_{i}: {got} vs {e}")
        bad += 1
if not bad:
    print(f"ALL {len(expected)} MATCH")
