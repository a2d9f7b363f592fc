#!/usr/bin/env python3
"""Runs PyTorch's OpInfo database through mlprog's TorchScript importer.

The suite is `op_db` of torch.testing._internal.common_methods_invocations
(the OpInfo of every op PyTorch tests itself with: 621 entries in torch
1.13, more in 2.x). For each OpInfo and each sample that
`op.sample_inputs("cpu", dtype)` makes (seeded with 0 per op, so sample N
is the same sample on every run of one torch version), a small
torch.nn.Module calls `op.op` on the sample's tensors, the non-tensor
arguments baked in as constants; it is traced with torch.jit.trace,
imported in-process with `mlprog.import_torchscript`, JIT-compiled
(`mlprog.compile`, -O0 by default) and called, and every output is compared
with eager PyTorch: the OpInfo's own float tolerances where it defines any
(the widest of its toleranceOverride entries for the dtype), else
torch.testing's defaults; integers and bools exactly; shapes and dtypes
exactly; NaNs must match.

A case (`op[.variant]/dtype/N`) is

  passed          every output matched;
  failed          an output differs (values, shape, dtype or count);
  unsupported     the importer refused the program with "unsupported ..."
                  (a feature it does not implement);
  error           any other mlprog error (import, compile or run);
  crash, timeout  the worker process died or hung in the case (each worker
                  runs a chunk of ops; after a crash it resumes after the
                  case that crashed);
  not-scriptable  torch itself cannot make a faithful TorchScript of the
                  sample (trace or save fails, the trace's results differ
                  from eager, a non-tensor result, or eager raises): not
                  counted;
  out-of-scope    the sample's inputs or results are complex: not counted.

Whole ops can be out of scope (OUT_OF_SCOPE below: random sampling,
uninitialized memory, sparse, complex-only, resizing an input in place);
OpInfo's in-place and out= variants are not run (only `op.op`). Neither is
counted. The acceptance figure is the share of in-scope ops (ops with at
least one counted float32 sample) that pass all their counted float32
samples; the share of passing samples is printed too.

Expected outcomes: the expected-failures list (--xfail, default
test/Import/TorchScript/opinfo-xfail.txt; one `case-id<TAB>status<TAB>reason`
line per counted case that does not pass, for the torch version named in
its header). A counted case that does not pass and is not listed is a
REGRESSION (exit status 1); a listed case that passes is an unexpected
pass (update the list). Sample numbers depend on the torch version: under
another torch than the list's, use --no-xfail or write a list of its own.

Run it with a Python whose torch is the libtorch build the mlprog module
links (two builds in one process crash): the project's .venv (torch 2.9.1,
scripts/requirements/torch.txt), with PYTHONPATH=build/python (set from
--build-dir). torch.testing needs the `expecttest` package (.venv has it);
without it a stand-in is used.

  full suite:        .venv/bin/python scripts/torch_opinfo_conformance.py -j2
  fast subset (CI):  .venv/bin/python scripts/torch_opinfo_conformance.py --ci-subset
  after a change (full run; rewrites the list, the CI subset and the page):
      .venv/bin/python scripts/torch_opinfo_conformance.py -j2 --write-xfail
          --write-coverage docs/torchscript-op-coverage.md --results-dir DIR
  report on a stopped run:  ... --no-run --results-dir DIR [--write-...]
"""
import argparse
import collections
import concurrent.futures
import faulthandler
import glob
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
import types
import unittest
import warnings

from conformance_common import (add_suite_arguments, check_against_xfail,
                                check_build_dir, load_xfail, read_jsonl)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
XFAIL = os.path.join(ROOT, "test", "Import", "TorchScript", "opinfo-xfail.txt")
CI_SUBSET = os.path.join(ROOT, "test", "Import", "TorchScript",
                         "opinfo-ci-subset.txt")
COUNTED = ("passed", "failed", "unsupported", "error", "crash", "timeout")
NOT_COUNTED = ("not-scriptable", "out-of-scope")

# Ops an inference compiler cannot have, by OpInfo name (variants included):
# (regex, reason). Not run, not counted; listed on the coverage page.
OUT_OF_SCOPE = [
    (r"bernoulli|multinomial|normal|normal\.number_mean|normal\.in_place|"
     r"uniform|rand_like|randn|randn_like|randint|randint_like|cauchy|"
     r"exponential|geometric|log_normal",
     "random sampling"),
    (r"nn\.functional\.(dropout|dropout2d|dropout3d|alpha_dropout|"
     r"feature_alpha_dropout\.with_train|rrelu|fractional_max_pool[23]d)",
     "random in the samples' (training) mode"),
    (r"svd_lowrank|pca_lowrank", "randomized algorithm"),
    (r"empty|empty_like|new_empty|new_empty_strided|empty_strided|"
     r"empty_permuted",
     "uninitialized memory: no defined result"),
    (r".*_backward", "autograd-only (a backward kernel)"),
    (r"to_sparse|sparse\..*", "sparse tensors"),
    (r"complex|polar|view_as_complex|chalf|.*\.complex",
     "complex-only"),
    (r"resize_|resize_as_", "resizes its input in place (storage)"),
    (r"jiterator_.*", "CUDA-only (jiterator)"),
]


def out_of_scope(key):
    for pattern, reason in OUT_OF_SCOPE:
        if re.fullmatch(pattern, key):
            return reason
    return None


# --------------------------------------------------------------------------
# torch side (worker processes and the op listing)

def load_op_db():
    """op_db, importable without expecttest and without common_utils
    parsing this script's command line."""
    try:
        import expecttest  # noqa: F401
    except ImportError:
        stub = types.ModuleType("expecttest")
        stub.TestCase = unittest.TestCase
        stub.ACCEPT = False
        sys.modules["expecttest"] = stub
    argv = sys.argv
    sys.argv = argv[:1]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from torch.testing._internal.common_methods_invocations import \
                op_db
    finally:
        sys.argv = argv
    return op_db


def op_key(op):
    return op.name + ("." + op.variant_test_name
                      if op.variant_test_name else "")


def torch_dtype(name):
    import torch
    return getattr(torch, name)


def op_tolerance(op, dtype):
    """(rtol, atol): the widest of the OpInfo's toleranceOverride entries
    for `dtype` (any test), else torch.testing's defaults; None: exact."""
    import torch
    from torch.testing._internal.common_device_type import toleranceOverride
    rtol = atol = None
    for info in list(op.decorators) + list(op.skips):
        for dec in getattr(info, "decorators", [info]):
            if isinstance(dec, toleranceOverride) and dtype in dec.d:
                tol = dec.d[dtype]
                rtol = max(rtol or 0.0, tol.rtol)
                atol = max(atol or 0.0, tol.atol)
    return rtol, atol


DEFAULT_TOL = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5),
               "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}


class _Slot:
    """Where a flattened input tensor goes back into the arguments."""

    def __init__(self, index):
        self.index = index


def _flatten(value, tensors):
    import torch
    if isinstance(value, torch.Tensor):
        tensors.append(value)
        return _Slot(len(tensors) - 1)
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        items = [_flatten(v, tensors) for v in value]
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        return {k: _flatten(v, tensors) for k, v in value.items()}
    return value


def _rebuild(value, tensors):
    if isinstance(value, _Slot):
        return tensors[value.index]
    if isinstance(value, list):
        return [_rebuild(v, tensors) for v in value]
    if isinstance(value, tuple):
        return tuple(_rebuild(v, tensors) for v in value)
    if isinstance(value, dict):
        return {k: _rebuild(v, tensors) for k, v in value.items()}
    return value


def _results(value, out):
    """The tensors of an op's result, in order; raises TypeError on a
    non-tensor result (None is skipped)."""
    import torch
    if isinstance(value, torch.Tensor):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _results(v, out)
    elif value is not None:
        raise TypeError(f"non-tensor result {type(value).__name__}")
    return out


def make_module(fn, structure):
    import torch

    class OpInfoCase(torch.nn.Module):
        def forward(self, *tensors):
            a, args, kwargs = _rebuild(structure, tensors)
            results = _results(fn(a, *args, **kwargs), [])
            return results[0] if len(results) == 1 else tuple(results)

    return OpInfoCase()


def _clones(tensors):
    return [t.clone() for t in tensors]


def compare(got, want, tol):
    """None if numpy `got` matches torch `want`, else what differs."""
    import numpy as np
    import torch
    got = np.asarray(got)
    want_np = want.detach().resolve_conj().resolve_neg()
    if want_np.dtype == torch.bfloat16:
        want_np = want_np.float()
        if got.dtype.name == "bfloat16":
            got = got.astype(np.float32)
    want_np = want_np.numpy()
    if tuple(got.shape) != tuple(want_np.shape):
        return f"shape {tuple(got.shape)} != expected {tuple(want_np.shape)}"
    if got.dtype != want_np.dtype:
        return f"dtype {got.dtype} != expected {want_np.dtype}"
    if want_np.dtype.kind in "biu":
        if not np.array_equal(got, want_np):
            bad = int(np.count_nonzero(got != want_np))
            return f"values differ ({bad} of {got.size} elements)"
        return None
    rtol, atol = tol
    g, w = got.astype(np.float64), want_np.astype(np.float64)
    close = np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
    if not close.all():
        diff = np.where(close, 0.0, np.abs(g - w))
        err = np.nanmax(diff) if np.isfinite(diff).any() else float("nan")
        return (f"values differ ({int(close.size - close.sum())} of "
                f"{close.size} elements, max abs error {err:.3g}, "
                f"rtol {rtol:g}, atol {atol:g})")
    return None


def _torch_close(got, want, tol):
    """Trace-vs-eager check, in torch."""
    import torch
    if got.shape != want.shape or got.dtype != want.dtype:
        return False
    if want.is_complex() or not want.is_floating_point():
        return bool(torch.equal(got, want))
    rtol, atol = tol
    return bool(torch.isclose(got.double(), want.double(), rtol=rtol,
                              atol=atol, equal_nan=True).all())


def _first_error(stage, message):
    m = re.search(r"error: (.*)", message)
    return f"{stage}: " + (m.group(1) if m else message.strip()[:300])


def run_case(op, sample, dtype_name, opt_level):
    """(status, detail) of one sample."""
    import torch
    import mlprog
    tensors = []
    structure = _flatten((sample.input, list(sample.args),
                          dict(sample.kwargs)), tensors)
    if any(t.is_complex() for t in tensors):
        return "out-of-scope", "complex input"
    if any(t.layout != torch.strided for t in tensors):
        return "out-of-scope", "non-strided (sparse) input"
    module = make_module(op.op, structure)
    try:
        with torch.no_grad():
            expected = module(*_clones(tensors))
    except Exception as e:
        return "not-scriptable", f"eager: {type(e).__name__}: {e}"[:300]
    expected = _results(expected, [])
    if any(t.is_complex() for t in expected):
        return "out-of-scope", "complex result"
    tol = op_tolerance(op, torch_dtype(dtype_name))
    if tol == (None, None):
        tol = DEFAULT_TOL.get(dtype_name, (1.3e-6, 1e-5))
    try:
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            traced = torch.jit.trace(module, tuple(_clones(tensors)),
                                     check_trace=False, strict=False)
            replay = _results(traced(*_clones(tensors)), [])
    except Exception as e:
        return "not-scriptable", \
            f"torch.jit.trace: {type(e).__name__}: {e}"[:300]
    if len(replay) != len(expected) or not all(
            _torch_close(r, x, tuple(10 * t for t in tol)
                         if x.is_floating_point() else tol)
            for r, x in zip(replay, expected)):
        return "not-scriptable", "the trace's results differ from eager"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module_ir = mlprog.import_torchscript(
                traced, example_inputs=tensors)
    except mlprog.Error as e:
        text = str(e)
        if re.search(r"error: unsupported ", text):
            return "unsupported", _first_error("import", text)
        return "error", _first_error("import", text)
    except Exception as e:  # torch.jit.save of the trace
        return "not-scriptable", f"save: {type(e).__name__}: {e}"[:300]
    try:
        exe = mlprog.compile(module_ir, opt_level=opt_level, progress=False)
    except mlprog.Error as e:
        return "error", _first_error("compile", str(e))
    try:
        got = exe(*tensors)
    except mlprog.Error as e:
        return "error", _first_error("run", str(e))
    except (TypeError, ValueError) as e:
        return "error", f"run: {e}"[:300]
    if got is None:
        got = ()
    elif not isinstance(got, tuple):
        got = (got,)
    if len(got) != len(expected):
        return "failed", f"{len(got)} results, expected {len(expected)}"
    for i, (g, w) in enumerate(zip(got, expected)):
        why = compare(g, w, tol)
        if why:
            return "failed", f"result {i}: {why}"
    return "passed", ""


def worker(job_path):
    """Runs one chunk of ops (a JSON job file), appending JSON lines."""
    import torch
    with open(job_path) as f:
        job = json.load(f)
    torch.set_num_threads(1)
    ops = {op_key(op): op for op in load_op_db()}
    select = set(job["select"]) if job["select"] is not None else None
    skip = set(job["skip"])
    out = open(job["results"], "a")

    def write(entry):
        out.write(json.dumps(entry) + "\n")
        out.flush()

    for key in job["ops"]:
        op = ops[key]
        for dtype_name in job["dtypes"]:
            dtype = torch_dtype(dtype_name)
            if dtype not in op.supported_dtypes("cpu"):
                continue
            torch.manual_seed(0)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    samples = list(op.sample_inputs("cpu", dtype))
            except Exception as e:
                write({"id": f"{key}/{dtype_name}/samples", "op": key,
                       "dtype": dtype_name, "status": "not-scriptable",
                       "detail": f"sample_inputs: {type(e).__name__}: "
                       f"{e}"[:300]})
                continue
            for i, sample in enumerate(samples):
                case = f"{key}/{dtype_name}/{i}"
                if case in skip or (select is not None and
                                    case not in select):
                    continue
                write({"id": case, "status": "started"})
                faulthandler.dump_traceback_later(job["timeout"], exit=True)
                try:
                    status, detail = run_case(op, sample, dtype_name,
                                              job["opt_level"])
                except Exception as e:
                    status, detail = "error", \
                        f"harness: {type(e).__name__}: {e}"[:300]
                faulthandler.cancel_dump_traceback_later()
                write({"id": case, "op": key, "dtype": dtype_name,
                       "status": status,
                       "detail": detail.replace("\n", " ")[:400]})
    out.close()


# --------------------------------------------------------------------------
# driver

def case_op(case):
    return case.rsplit("/", 2)[0]


def case_dtype(case):
    return case.rsplit("/", 2)[1]


def run_chunk(index, keys, args, work, select):
    """Runs a chunk of ops in worker processes; after a crash or a
    timeout, records the case that was running and resumes after it.
    Returns (results by id, error or None)."""
    results_path = os.path.join(work, f"opinfo-{index:03d}.jsonl")
    job_path = os.path.join(work, f"opinfo-{index:03d}.job")
    if os.path.exists(results_path):
        os.remove(results_path)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.join(args.build_dir, "python")] +
        ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["OMP_NUM_THREADS"] = "1"
    done = {}
    crashed = {}
    for _ in range(200):
        with open(job_path, "w") as f:
            json.dump({"ops": keys, "dtypes": args.dtype_list,
                       "select": select, "skip": sorted(done),
                       "results": results_path, "timeout": args.timeout,
                       "opt_level": args.opt_level}, f)
        proc = subprocess.run([sys.executable, os.path.abspath(__file__),
                               "--worker", job_path], env=env,
                              capture_output=True, text=True)
        started = None
        for entry in read_jsonl(results_path):
            if entry["status"] == "started":
                started = entry["id"]
            else:
                done[entry["id"]] = entry
                started = None
        if proc.returncode == 0 and started is None:
            os.remove(job_path)
            return done, None
        if started is None:
            os.remove(job_path)
            return done, (f"worker exit {proc.returncode} outside a case: " +
                          proc.stderr.strip()[-300:])
        why = "timeout" if "Timeout" in proc.stderr else "crash"
        entry = {"id": started, "op": case_op(started),
                 "dtype": case_dtype(started), "status": why,
                 "detail": why if why == "timeout" else
                 f"crash (exit {proc.returncode})"}
        done[started] = entry
        crashed[started] = entry
        with open(results_path, "a") as f:
            f.write(json.dumps(entry) + "\n")
    return done, "too many crashes"


def write_xfail(path, results, version):
    with open(path, "w") as f:
        f.write("# PyTorch OpInfo cases that do not pass on mlprog (written "
                "by scripts/torch_opinfo_conformance.py --write-xfail).\n"
                f"# torch {version}\n"
                "# case-id<TAB>status<TAB>reason\n")
        for case in sorted(results, key=case_sort_key):
            r = results[case]
            if r["status"] in COUNTED and r["status"] != "passed":
                why = re.sub(r" \(aten::.*", "", r["detail"])[:160]
                f.write(f"{case}\t{r['status']}\t{why}\n")


def case_sort_key(case):
    key, dtype, index = case.rsplit("/", 2)
    return (key, dtype, int(index) if index.isdigit() else -1)


def write_ci_subset(path, results, per_op=2):
    """The first `per_op` passing samples of every op (each dtype)."""
    picked = collections.defaultdict(list)
    for case in sorted(results, key=case_sort_key):
        if results[case]["status"] == "passed":
            group = (case_op(case), case_dtype(case))
            if len(picked[group]) < per_op:
                picked[group].append(case)
    with open(path, "w") as f:
        for group in sorted(picked):
            f.write("\n".join(picked[group]) + "\n")


def reason_key(detail):
    """A failure reason without the numbers that differ from case to case."""
    text = re.sub(r"\(aten::.*", "", detail)
    text = re.sub(r"tensor<[^>]*>", "tensor<...>", text)
    text = re.sub(r"\(\d+ of \d+ elements.*\)", "", text)
    text = re.sub(r"\(\d+(, \d+)*,?\)|\(\)", "(...)", text)
    text = re.sub(r"\b\d+\b", "N", text)
    return text.strip()[:160]


def summarize(results, dtype):
    """Per op: Counter of statuses and the first non-passing detail."""
    per_op = collections.defaultdict(collections.Counter)
    first = {}
    for case in sorted(results, key=case_sort_key):
        r = results[case]
        if case_dtype(case) != dtype:
            continue
        key = case_op(case)
        per_op[key][r["status"]] += 1
        if r["status"] in COUNTED and r["status"] != "passed" and \
                key not in first:
            first[key] = f"{r['status']}: {r['detail']}"
    return per_op, first


def figures(results, dtype):
    per_op, _ = summarize(results, dtype)
    ops_in = ops_pass = 0
    samples = collections.Counter()
    for key, c in per_op.items():
        counted = sum(c[s] for s in COUNTED)
        samples.update(c)
        if counted:
            ops_in += 1
            ops_pass += c["passed"] == counted
    counted = sum(samples[s] for s in COUNTED)
    return ops_pass, ops_in, samples["passed"], counted, samples


def pct(a, b):
    return 100.0 * a / max(b, 1)


def op_group(key):
    for prefix, title in (("nn.functional.", "torch.nn.functional"),
                          ("linalg.", "torch.linalg"),
                          ("special.", "torch.special"),
                          ("fft.", "torch.fft"),
                          ("masked.", "masked reductions (torch.masked)")):
        if key.startswith(prefix):
            return title
    return "torch and Tensor ops"


COVERAGE_HEADER = """# TorchScript op coverage: PyTorch's OpInfo database

Generated by `scripts/torch_opinfo_conformance.py --write-coverage` from
PyTorch {version}'s OpInfo database (`op_db` of
`torch.testing._internal.common_methods_invocations`, the samples PyTorch
tests its own ops with): each sample becomes a one-op module, traced with
`torch.jit.trace`, imported with `mlprog.import_torchscript`, JIT-compiled
(`mlprog.compile`, -O{opt}) and compared with eager PyTorch (the OpInfo's
own tolerances where it defines any, else torch.testing's float32 defaults;
integers and bools exactly; dtypes and shapes exactly). Samples torch itself
cannot trace faithfully (**not scriptable**) and samples with complex
inputs or results are not counted. Status per op: **pass** (every counted
sample passes), **partial**, **unsupported** (none passes, the importer
reports a feature as unsupported), **fail** (none passes),
**not scriptable** (no sample could be counted).

"""


def write_coverage(path, results, args, version, command, skipped_ops,
                   not_run):
    dtype = "float32"
    per_op, first = summarize(results, dtype)
    ops_pass, ops_in, s_pass, s_in, samples = figures(results, dtype)
    with open(path, "w") as f:
        f.write(COVERAGE_HEADER.format(version=version, opt=args.opt_level))
        f.write(f"**{ops_pass} of {ops_in} in-scope ops pass all their "
                f"float32 samples ({pct(ops_pass, ops_in):.1f}%); "
                f"{s_pass} of {s_in} float32 samples pass "
                f"({pct(s_pass, s_in):.1f}%)**: "
                + ", ".join(f"{samples[s]} {s}" for s in COUNTED[1:]) +
                f"; not counted: {samples['not-scriptable']} not "
                f"scriptable, {samples['out-of-scope']} complex. "
                f"Command: `{command}`.\n\n")
        for d in args.dtype_list:
            if d == dtype:
                continue
            p, n, sp, sn, _ = figures(results, d)
            f.write(f"{d}: {p} of {n} ops pass all their samples "
                    f"({pct(p, n):.1f}%), {sp} of {sn} samples "
                    f"({pct(sp, sn):.1f}%).\n\n")
        if not_run:
            f.write("Not run to the end (the figures leave these out):\n\n")
            for name, why in sorted(not_run.items()):
                f.write(f"- {name}: {why}\n")
            f.write("\n")
        reasons = collections.Counter()
        for case, r in results.items():
            if case_dtype(case) == dtype and r["status"] in COUNTED and \
                    r["status"] != "passed":
                reasons[(r["status"], reason_key(r["detail"]))] += 1
        f.write("## Most common reasons (float32 samples)\n\n"
                "| samples | status | reason |\n| --- | --- | --- |\n")
        for (status, why), n in reasons.most_common(30):
            why = why.replace("|", "\\|")
            f.write(f"| {n} | {status} | {why} |\n")
        f.write("\n")
        groups = collections.defaultdict(list)
        for key in sorted(per_op):
            groups[op_group(key)].append(key)
        for title in sorted(groups):
            f.write(f"## {title}\n\n| op | status | passed | unsupported | "
                    "failed | error | not scriptable | first failure |\n"
                    "| --- | --- | --- | --- | --- | --- | --- | --- |\n")
            for key in groups[title]:
                c = per_op[key]
                n = sum(c[s] for s in COUNTED)
                if not n:
                    status = "not scriptable"
                elif c["passed"] == n:
                    status = "pass"
                elif c["passed"]:
                    status = "partial"
                elif c["unsupported"]:
                    status = "unsupported"
                else:
                    status = "fail"
                why = first.get(key, "").replace("|", "\\|")[:160]
                f.write(f"| `{key}` | {status} | {c['passed']}/{n} | "
                        f"{c['unsupported']} | {c['failed']} | "
                        f"{c['error'] + c['crash'] + c['timeout']} | "
                        f"{c['not-scriptable'] + c['out-of-scope']} | "
                        f"{why} |\n")
            f.write("\n")
        f.write("## Out of scope (not run, not counted)\n\n"
                "OpInfo's in-place and `out=` variants are not run (only "
                "`op.op`): TorchScript programs for inference are "
                "value-semantic here.\n\n| op | reason |\n| --- | --- |\n")
        for key, why in sorted(skipped_ops.items()):
            f.write(f"| `{key}` | {why} |\n")
        f.write("\n")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        worker(sys.argv[2])
        return 0
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    add_suite_arguments(parser, root=ROOT, xfail=XFAIL, ci_subset=CI_SUBSET,
                        timeout=60, unit="chunk's")
    parser.add_argument("--filter", default="",
                        help="only ops whose name (op[.variant]) matches "
                        "this regex (re.search)")
    parser.add_argument("--dtypes", default="float32",
                        help="comma-separated sample dtypes (default "
                        "float32; e.g. float32,int64,bool): an op runs a "
                        "dtype's samples where its CPU dtypes include it")
    parser.add_argument("--chunk", type=int, default=0,
                        help="ops per worker process (default: 8, or an "
                        "even split over -j with --ci-subset)")
    args = parser.parse_args()
    args.dtype_list = [d.strip() for d in args.dtypes.split(",") if d.strip()]
    if (args.write_xfail or args.write_coverage) and \
            (args.filter or args.ci_subset):
        parser.error("--write-xfail/--write-coverage need a full run")
    check_build_dir(parser, args)

    import torch
    start = time.time()
    op_db = load_op_db()
    keys, skipped_ops = [], {}
    for op in op_db:
        key = op_key(op)
        if args.filter and not re.search(args.filter, key):
            continue
        why = out_of_scope(key)
        if why is None and not any(
                torch_dtype(d) in op.supported_dtypes("cpu")
                for d in args.dtype_list):
            why = f"no CPU kernel for {args.dtypes}"
        if why:
            skipped_ops[key] = why
        elif key not in keys:
            keys.append(key)
    select = None
    if args.ci_subset:
        with open(CI_SUBSET) as f:
            select = [l.strip() for l in f if l.strip()]
        wanted = {case_op(c) for c in select}
        keys = [k for k in keys if k in wanted]

    results, not_run = {}, {}
    if args.no_run:
        for path in sorted(glob.glob(os.path.join(args.results_dir,
                                                  "opinfo-*.jsonl"))):
            raw = read_jsonl(path)
            for e in raw:
                if e["status"] != "started":
                    results[e["id"]] = e
            started = [e["id"] for e in raw if e["status"] == "started"]
            if started and started[-1] not in results:
                not_run[os.path.basename(path)] = \
                    f"stopped in {started[-1]}"
    else:
        chunk = args.chunk or (max(1, math.ceil(len(keys) / args.jobs))
                               if args.ci_subset else 8)
        chunks = [keys[i:i + chunk] for i in range(0, len(keys), chunk)]
        with tempfile.TemporaryDirectory(prefix="opinfo-") as tmp, \
                concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            work = args.results_dir or tmp
            os.makedirs(work, exist_ok=True)
            for old in glob.glob(os.path.join(work, "opinfo-*")):
                os.remove(old)
            futures = {pool.submit(run_chunk, i, c, args, work, select): c
                       for i, c in enumerate(chunks)}
            for n, future in enumerate(
                    concurrent.futures.as_completed(futures)):
                done, error = future.result()
                results.update(done)
                c = futures[future]
                if error:
                    not_run[f"{c[0]} .. {c[-1]}"] = error
                counts = collections.Counter(r["status"]
                                             for r in done.values())
                print(f"[{n + 1}/{len(chunks)}] {c[0]} .. {c[-1]}: " +
                      ", ".join(f"{counts[s]} {s}"
                                for s in COUNTED + NOT_COUNTED
                                if counts[s]) +
                      (f" (stopped: {error})" if error else "") +
                      f" [{time.time() - start:.0f} s]", flush=True)

    listed, listed_version = ({}, None) if args.no_xfail else \
        load_xfail(args.xfail, "torch")
    if listed_version and listed_version != torch.__version__:
        print(f"warning: {args.xfail} was written under torch "
              f"{listed_version}, this is torch {torch.__version__}: sample "
              "numbers differ; use --no-xfail or a list of this version's")
    failing = tuple(s for s in COUNTED if s != "passed")
    regressions, unexpected = check_against_xfail(
        results, listed, failing, args.verbose, key=case_sort_key)
    if args.ci_subset:
        for case in sorted(set(select) - set(results), key=case_sort_key):
            print(f"REGRESSION (not run): {case}")
            regressions.append(case)
        for case in sorted(set(select) & set(results), key=case_sort_key):
            if results[case]["status"] in NOT_COUNTED:
                print(f"REGRESSION ({results[case]['status']}): {case}")
                regressions.append(case)

    for d in args.dtype_list:
        ops_pass, ops_in, s_pass, s_in, samples = figures(results, d)
        print(f"{d}: {ops_pass} of {ops_in} in-scope ops pass all their "
              f"samples ({pct(ops_pass, ops_in):.1f}%); {s_pass} of {s_in} "
              f"samples pass ({pct(s_pass, s_in):.1f}%): " +
              ", ".join(f"{samples[s]} {s}" for s in COUNTED[1:]) +
              f"; not counted: {samples['not-scriptable']} not scriptable, "
              f"{samples['out-of-scope']} out of scope")
    print(f"{len(skipped_ops)} ops out of scope or without a CPU kernel; "
          f"{len(not_run)} chunks not run to the end; "
          f"{len(regressions)} regressions, {len(unexpected)} unexpected "
          f"passes; {time.time() - start:.0f} s")
    if args.write_xfail:
        write_xfail(args.xfail, results, torch.__version__)
        write_ci_subset(CI_SUBSET, results)
    if args.write_coverage:
        command = ".venv/bin/python scripts/torch_opinfo_conformance.py " + \
            " ".join(a for a in sys.argv[1:])
        write_coverage(args.write_coverage, results, args, torch.__version__,
                       command, skipped_ops, not_run)
    return 1 if regressions and not args.write_xfail else 0


if __name__ == "__main__":
    sys.exit(main())
