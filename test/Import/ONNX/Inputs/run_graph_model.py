"""Imports, runs and checks a model written by make_graph_models.py.

usage: run_graph_model.py BIN_DIR MODEL_DIR [--unsupported-in NODE]

Imports MODEL_DIR/model.onnx with mlprog-translate, runs it with mlprog-run
on MODEL_DIR/input_*.npy and compares every output with reference_*.npy
(rtol 1e-5, atol 1e-6), printing "output I: MATCH" per output. With
--unsupported-in NODE, an import that fails is accepted only if its error
is "unsupported ONNX op ... in node 'NODE/...'" -- an op of the expansion
of NODE (a function body) that no handler implements yet -- and prints
"UNSUPPORTED-IN-BODY" instead.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

import numpy as np


def main():
    p = argparse.ArgumentParser()
    p.add_argument("bin_dir")
    p.add_argument("model_dir")
    p.add_argument("--unsupported-in")
    a = p.parse_args()
    d = a.model_dir
    mlir = os.path.join(d, "model.mlir")
    proc = subprocess.run([os.path.join(a.bin_dir, "mlprog-translate"),
                           "--import-onnx", os.path.join(d, "model.onnx"),
                           "-o", mlir], capture_output=True, text=True)
    if proc.returncode != 0:
        pattern = (r"error: unsupported ONNX op '[^']+' in node '"
                   + re.escape(a.unsupported_in or "\0") + "/")
        if a.unsupported_in and re.search(pattern, proc.stderr):
            print("UNSUPPORTED-IN-BODY")
            return 0
        sys.exit("import failed: " + proc.stderr)
    inputs = sorted(glob.glob(os.path.join(d, "input_*.npy")))
    cmd = [os.path.join(a.bin_dir, "mlprog-run"), mlir, "--output-dir",
           os.path.join(d, "out")]
    for path in inputs:
        cmd += ["--input", path]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit("run failed: " + proc.stderr)
    status = 0
    for ref in sorted(glob.glob(os.path.join(d, "reference_*.npy"))):
        i = re.search(r"_(\d+)\.npy$", ref).group(1)
        got = np.load(os.path.join(d, "out", f"output_{i}.npy"))
        want = np.load(ref)
        if np.issubdtype(want.dtype, np.integer):
            # mlprog-run writes the declared dtype; a reference may use
            # another integer type for the same values.
            got = got.astype(want.dtype)
        ok = got.shape == want.shape and np.allclose(got, want, rtol=1e-5,
                                                      atol=1e-6)
        print(f"output {i}: {'MATCH' if ok else 'MISMATCH'} shape "
              f"{got.shape} want {want.shape}")
        status |= not ok
    return status


if __name__ == "__main__":
    sys.exit(main())
