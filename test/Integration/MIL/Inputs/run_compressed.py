"""Imports and runs every case make_compressed.py wrote in DIR (listed in
DIR/cases.txt) with mlprog-translate and mlprog-run (from PATH), compares
output 0 with the numpy reference, and prints 'CASE: MATCH' or
'CASE: FAIL <why>' per case, then 'ALL <n> MATCH' or exits with status 1.

Usage: run_compressed.py DIR [--rtol R] [--atol A]
"""

import argparse
import os
import subprocess
import sys

import numpy as np

parser = argparse.ArgumentParser()
parser.add_argument("dir")
parser.add_argument("--rtol", type=float, default=1e-5)
parser.add_argument("--atol", type=float, default=1e-6)
args = parser.parse_args()

with open(os.path.join(args.dir, "cases.txt")) as fh:
    names = [line.strip() for line in fh if line.strip()]
bad = 0
for name in names:
    base = os.path.join(args.dir, name)
    out = base + ".out"
    os.makedirs(out, exist_ok=True)
    steps = [["mlprog-translate", "--import-mil", base + ".mlpackage",
              "-o", base + ".mlir"],
             ["mlprog-run", base + ".mlir", "--input", base + ".input.npy",
              "--output-dir", out]]
    why = None
    for step in steps:
        r = subprocess.run(step, capture_output=True, text=True)
        if r.returncode != 0:
            why = "%s: %s" % (step[0], r.stderr.strip().splitlines()[-1:])
            break
    if why is None:
        got = np.load(os.path.join(out, "output_0.npy"))
        want = np.load(base + ".reference.npy")
        if got.shape != want.shape or got.dtype != want.dtype:
            why = "shape/dtype %s %s vs %s %s" % (got.shape, got.dtype,
                                                   want.shape, want.dtype)
        elif not np.allclose(got, want, rtol=args.rtol, atol=args.atol):
            why = "max abs error %g" % np.max(np.abs(got - want))
    if why:
        bad += 1
        print("%s: FAIL %s" % (name, why))
    else:
        print("%s: MATCH" % name)
if bad:
    sys.exit(1)
print("ALL %d MATCH" % len(names))
