"""Imports and runs Dropout-13 with run-time ratio and training_mode inputs
and checks its outputs against the operator's definition.

usage: check_dropout.py BIN_DIR OUT_DIR

The mask is random, so the training-mode checks are the definition's
properties rather than numbers: output == where(mask, x / (1 - ratio), 0),
the kept fraction near 1 - ratio (4096 draws: within 0.03, about four
standard deviations), ratio 0 keeps everything and ratio 1 nothing, the
mask is the same on every run, and another `seed` draws another mask. In
inference mode output == x and the mask is all true. Prints one
"<case>: OK" or "<case>: FAIL <why>" line per case.
"""
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def make(path, seed):
    node = helper.make_node("Dropout", ["x", "r", "t"], ["y", "mask"],
                            name="drop", seed=seed)
    graph = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [64, 64]),
         helper.make_tensor_value_info("r", TensorProto.FLOAT, []),
         helper.make_tensor_value_info("t", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [64, 64]),
         helper.make_tensor_value_info("mask", TensorProto.BOOL, [64, 64])])
    onnx.save(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def main():
    bin_dir, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    x = np.random.default_rng(0).standard_normal((64, 64)).astype(np.float32)
    np.save(os.path.join(out, "x.npy"), x)

    def run(seed, ratio, training, tag):
        onnx_path = os.path.join(out, f"seed{seed}.onnx")
        mlir = os.path.join(out, f"seed{seed}.mlir")
        if not os.path.exists(mlir):
            make(onnx_path, seed)
            subprocess.run([os.path.join(bin_dir, "mlprog-translate"),
                            "--import-onnx", onnx_path, "-o", mlir],
                           check=True)
        np.save(os.path.join(out, "r.npy"), np.array(ratio, np.float32))
        np.save(os.path.join(out, "t.npy"), np.array(training))
        res = os.path.join(out, tag)
        subprocess.run([os.path.join(bin_dir, "mlprog-run"), mlir,
                        "--input", os.path.join(out, "x.npy"),
                        "--input", os.path.join(out, "r.npy"),
                        "--input", os.path.join(out, "t.npy"),
                        "--output-dir", res], check=True)
        return (np.load(os.path.join(res, "output_0.npy")),
                np.load(os.path.join(res, "output_1.npy")))

    def report(case, problem):
        print(f"{case}: " + (f"FAIL {problem}" if problem else "OK"))

    y, m = run(0, 0.5, False, "inference")
    report("inference", None if np.array_equal(y, x) and m.all()
           else "output != x or a false mask element")
    y, m = run(0, 0.0, True, "ratio0")
    report("ratio 0", None if np.array_equal(y, x) and m.all()
           else "output != x or a false mask element")
    y, m = run(0, 1.0, True, "ratio1")
    report("ratio 1", None if not y.any() and not m.any()
           else "an element kept")
    for ratio in (0.25, 0.75):
        y, m = run(0, ratio, True, f"ratio{ratio}")
        want = np.where(m, x * np.float32(1 / (1 - ratio)), 0)
        kept = m.mean()
        problem = None
        if not np.allclose(y, want, rtol=1e-6, atol=0):
            problem = "output != where(mask, x / (1 - ratio), 0)"
        elif abs(kept - (1 - ratio)) > 0.03:
            problem = f"kept fraction {kept:.3f}, expected {1 - ratio}"
        report(f"ratio {ratio}", problem)
        if ratio == 0.75:
            again = run(0, ratio, True, "again")[1]
            report("same mask every run",
                   None if np.array_equal(again, m) else "masks differ")
            other = run(7, ratio, True, "seed7")[1]
            overlap = (other == m).mean()
            # Independent masks agree on 0.75^2 + 0.25^2 = 62.5% of elements.
            report("seed 7 draws another mask",
                   None if abs(overlap - 0.625) < 0.03
                   else f"masks agree on {overlap:.3f} of elements")


if __name__ == "__main__":
    main()
