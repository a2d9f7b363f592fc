"""Checks mlprog's run-time decompression of every constexpr_* op of a
real Core ML package against coremltools' own (the ops'
materialized_val_inference on the program coremltools loads).

Writes OUT/reduced.mlpackage: a copy of the package's program whose main function keeps only the constexpr ops and returns their
outputs; imports it (weights read from the package by --weights-dir) and runs it with mlprog-translate / mlprog-run (from PATH)
and prints one line per op with the max abs error, then 'ALL <n> MATCH'
(exit 1 otherwise). Prints 'SKIP: <why>' and exits 0 when the package is
absent (public models live outside the repository).

Usage: check_package_constexpr.py PACKAGE OUT [--rtol R] [--atol A]
"""

import argparse
import logging
import os
import shutil
import subprocess
import sys
import warnings

warnings.filterwarnings("ignore")
logging.disable(logging.WARNING)

import numpy as np  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("package")
parser.add_argument("out")
parser.add_argument("--rtol", type=float, default=1e-3)
parser.add_argument("--atol", type=float, default=1e-6)
args = parser.parse_args()
if not os.path.isdir(args.package):
    print("SKIP: %s is absent" % args.package)
    sys.exit(0)

import coremltools as ct  # noqa: E402
from coremltools.converters.mil.frontend.milproto.load import load  # noqa: E402
from coremltools.models.utils import load_spec  # noqa: E402

data = os.path.join("Data", "com.apple.CoreML")
spec = load_spec(args.package)
weights = os.path.join(args.package, data, "weights")
prog = load(spec, spec.specificationVersion, weights)
expected = {}
for op in prog.functions["main"].operations:
    if op.op_type.startswith("constexpr_"):
        val = op.materialized_val_inference()
        expected[op.outputs[0].name] = val[-1] if isinstance(val, tuple) else val

# The reduced program: constexpr ops only, their outputs returned.
fn = spec.mlProgram.functions["main"]
block = fn.block_specializations[fn.opset]
keep = [o for o in block.operations if o.type.startswith("constexpr_")]
names = [o.outputs[-1].name for o in keep]
del block.operations[:]
block.operations.extend(keep)
del block.outputs[:]
block.outputs.extend(names)
del fn.inputs[:]
reduced = os.path.join(args.out, "reduced.mlpackage")
shutil.rmtree(reduced, ignore_errors=True)
os.makedirs(os.path.join(reduced, data))
shutil.copy(os.path.join(args.package, "Manifest.json"), reduced)
with open(os.path.join(reduced, data, "model.mlmodel"), "wb") as fh:
    fh.write(spec.SerializeToString())

mlir = os.path.join(args.out, "reduced.mlir")
# The blobs are read where they are (--weights-dir), not copied.
for step in (["mlprog-translate", "--import-mil", reduced, "-o", mlir,
              "--weights-dir", os.path.join(args.package, data)],
             ["mlprog-run", mlir, "--output-dir", args.out]):
    r = subprocess.run(step, capture_output=True, text=True)
    if r.returncode:
        sys.exit("%s failed: %s" % (step[0], r.stderr.strip()))
bad = 0
for i, name in enumerate(names):
    got = np.load(os.path.join(args.out, "output_%d.npy" % i))
    want = np.asarray(expected[name])
    ok = got.shape == want.shape and np.allclose(
        got.astype(np.float64), want.astype(np.float64), rtol=args.rtol,
        atol=args.atol)
    err = (np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)))
           if got.shape == want.shape else float("nan"))
    print("%s %s %s: %s (max abs error %.3g)" % (
        keep[i].type, name, "x".join(map(str, want.shape)),
        "MATCH" if ok else "MISMATCH", err))
    bad += not ok
if bad:
    sys.exit(1)
print("ALL %d MATCH" % len(names))
