"""Compares the mlprog-run outputs in DIR/<run>/ of opt-levels.mlir with
numpy in float64. Usage: check-opt-levels.py DIR RUN...; the inputs are
DIR/{a,b,x,w}.npy."""
import os
import sys

import numpy as np

root, runs = sys.argv[1], sys.argv[2:]
a, b, x, w = (np.load(os.path.join(root, n + ".npy")).astype(np.float64)
              for n in "abxw")
matmul = a @ b
# conv[f, y, x] = sum over c, i, j of w[f, c, i, j] * x[c, y + i, x + j].
conv = np.zeros((1, 16, 7, 7))
for i in range(3):
    for j in range(3):
        conv[0] += np.einsum("fc,cyx->fyx", w[:, :, i, j], x[0, :, i:i + 7, j:j + 7])
for run in runs:
    for k, ref in enumerate([matmul, conv]):
        got = np.load(os.path.join(root, run, "output_%d.npy" % k))
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4,
                                   err_msg="%s output %d" % (run, k))
print("ok", *runs)
