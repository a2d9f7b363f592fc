#!/usr/bin/env python3
"""Runs ONNX's backend test data through mlprog and compares the outputs.

For every test case directory (model.onnx + test_data_set_*/{input,output}_*.pb)
under the chosen suites of libonnx-testdata, imports the model with
`mlprog-translate --import-onnx`, runs it with `mlprog-run` on each data set,
and compares every output with the expected one (numpy.allclose with
--rtol/--atol; NaNs must match). A case is

  passed   every data set matches;
  skipped  the importer rejects the model with an error starting
           "error: unsupported " -- the importer's wording for any feature
           it does not implement (an op, an attribute value, an element or
           value type, a rank, a domain);
  failed   anything else: any other import error (the importer calls a
           valid test model malformed), a compile or run error, a
           mismatch, a crash or a timeout.

Prints one line per failure, per-suite counts, and a final
`N passed, M failed, K skipped` line. Exit status 1 if any case failed.
"""
import argparse
import concurrent.futures
import glob
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

SUITES = ["node", "pytorch-converted", "pytorch-operator", "simple"]
# The first error the importer reports says what is not implemented.
UNSUPPORTED_RE = re.compile(r"error: (unsupported .*)")


def read_tensor(path):
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor)


def compare(got, want, rtol, atol):
    if got.shape != want.shape:
        return f"shape {got.shape} != expected {want.shape}"
    if want.dtype == np.bool_ or np.issubdtype(want.dtype, np.integer):
        if not np.array_equal(got.astype(want.dtype), want):
            return "integer/bool values differ"
        return None
    g, w = got.astype(np.float64), want.astype(np.float64)
    if not np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True):
        err = np.nanmax(np.abs(g - w)) if g.size else 0.0
        return f"values differ (max abs error {err:.3e})"
    return None


def run_case(case_dir, tools, rtol, atol, timeout):
    """Returns (status, detail) for one test case."""
    translate, run = tools
    with tempfile.TemporaryDirectory() as tmp:
        mlir = os.path.join(tmp, "model.mlir")
        try:
            proc = subprocess.run(
                [translate, "--import-onnx",
                 os.path.join(case_dir, "model.onnx"), "-o", mlir],
                capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return "failed", "import timed out"
        if proc.returncode != 0:
            error = first_error(proc.stderr)
            m = UNSUPPORTED_RE.search(error)
            if m and proc.returncode == 1:
                return "skipped", m.group(1)[:200]
            return "failed", "import: " + error
        for data_set in sorted(glob.glob(os.path.join(case_dir,
                                                      "test_data_set_*"))):
            status, detail = run_data_set(run, mlir, data_set, tmp, rtol,
                                          atol, timeout)
            if status != "passed":
                return status, detail
    return "passed", ""


def run_data_set(run, mlir, data_set, tmp, rtol, atol, timeout):
    inputs = sorted(glob.glob(os.path.join(data_set, "input_*.pb")),
                    key=index_of)
    outputs = sorted(glob.glob(os.path.join(data_set, "output_*.pb")),
                     key=index_of)
    cmd = [run, mlir, "--output-dir", os.path.join(tmp, "out")]
    for i, path in enumerate(inputs):
        npy = os.path.join(tmp, f"input_{i}.npy")
        np.save(npy, read_tensor(path))
        cmd += ["--input", npy]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return "failed", "run timed out"
    if proc.returncode != 0:
        return "failed", "run: " + first_error(proc.stderr)
    for i, path in enumerate(outputs):
        got_path = os.path.join(tmp, "out", f"output_{i}.npy")
        if not os.path.exists(got_path):
            return "failed", f"output {i} missing"
        problem = compare(np.load(got_path), read_tensor(path), rtol, atol)
        if problem:
            return "failed", f"output {i}: {problem}"
    return "passed", ""


def index_of(path):
    return int(re.search(r"_(\d+)\.pb$", path).group(1))


def first_error(stderr):
    # Prefer a diagnostic ("...: error: ...") over warnings that merely
    # mention an error.
    for marker in (" error: ", "error"):
        for line in stderr.splitlines():
            if marker in line:
                return line.strip()[:400]
    lines = stderr.strip().splitlines()
    return lines[-1][:200] if lines else "no message"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--build-dir", default=os.path.join(here, "..", "build"))
    parser.add_argument("--data-dir", default="/usr/share/libonnx-testdata/data")
    parser.add_argument("--suite", action="append", choices=SUITES,
                        help="suite to run (repeatable; default: all)")
    parser.add_argument("--filter", default="",
                        help="only cases whose name contains this regex")
    parser.add_argument("--rtol", type=float, default=1e-3)
    parser.add_argument("--atol", type=float, default=1e-5)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count())
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print every case, not only failures")
    args = parser.parse_args()

    bin_dir = os.path.join(args.build_dir, "bin")
    tools = (os.path.join(bin_dir, "mlprog-translate"),
             os.path.join(bin_dir, "mlprog-run"))
    for tool in tools:
        if not os.access(tool, os.X_OK):
            sys.exit(f"onnx_conformance: {tool} not found; build first")
    cases = []
    for suite in args.suite or SUITES:
        for case_dir in sorted(glob.glob(os.path.join(args.data_dir, suite,
                                                      "*"))):
            name = f"{suite}/{os.path.basename(case_dir)}"
            if (os.path.exists(os.path.join(case_dir, "model.onnx"))
                    and re.search(args.filter, name)):
                cases.append((suite, name, case_dir))

    counts = {}
    totals = {"passed": 0, "failed": 0, "skipped": 0}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {pool.submit(run_case, case_dir, tools, args.rtol,
                               args.atol, args.timeout): (suite, name)
                   for suite, name, case_dir in cases}
        results = []
        for future in concurrent.futures.as_completed(futures):
            suite, name = futures[future]
            status, detail = future.result()
            results.append((suite, name, status, detail))
    for suite, name, status, detail in sorted(results):
        if status == "failed" or args.verbose:
            print(f"{status.upper():8} {name}: {detail}")
        counts.setdefault(suite, {"passed": 0, "failed": 0, "skipped": 0})
        counts[suite][status] += 1
        totals[status] += 1
    for suite, c in counts.items():
        print(f"  {suite:18} {c['passed']:4} passed, {c['failed']:4} failed, "
              f"{c['skipped']:4} skipped")
    print(f"onnx-conformance: {totals['passed']} passed, {totals['failed']} "
          f"failed, {totals['skipped']} skipped")
    return 1 if totals["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
