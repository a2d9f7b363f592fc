"""Compares every DIR/output_<i>.npy with DIR/reference_<i>.npy (same dtype
and shape; numbers within rtol/atol, booleans and integers exactly) and
prints one line per output, then 'ALL <n> MATCH' or exits with status 1."""

import argparse
import glob
import os
import sys

import numpy as np

parser = argparse.ArgumentParser()
parser.add_argument("dir")
parser.add_argument("--rtol", type=float, default=1e-4)
parser.add_argument("--atol", type=float, default=1e-5)
args = parser.parse_args()

count = len(glob.glob(os.path.join(args.dir, "reference_*.npy")))
bad = 0
for i in range(count):
    ref = np.load(os.path.join(args.dir, "reference_%d.npy" % i))
    path = os.path.join(args.dir, "output_%d.npy" % i)
    if not os.path.exists(path):
        print("output %d: missing" % i)
        bad += 1
        continue
    out = np.load(path)
    ok = out.dtype == ref.dtype and out.shape == ref.shape
    if ok and ref.dtype.kind == "f":
        ok = np.allclose(out, ref, rtol=args.rtol, atol=args.atol)
    elif ok:
        ok = np.array_equal(out, ref)
    print("output %d: %s %s %s" % (i, out.dtype, out.shape,
                                    "ok" if ok else "MISMATCH"))
    if not ok:
        print("  expected %s %s\n%s\n  got\n%s" % (ref.dtype, ref.shape, ref, out))
        bad += 1
if bad or count == 0:
    sys.exit(1)
print("ALL %d MATCH" % count)
