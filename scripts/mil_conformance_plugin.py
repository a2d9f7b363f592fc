"""pytest plugin: runs coremltools' own MIL op tests on mlprog.

Loaded by scripts/mil_conformance.py (`pytest -p mil_conformance_plugin`),
never on its own. coremltools' op tests build each case's program with the
MIL Builder, convert it with `ct.convert(..., convert_to="mlprogram")` and
hand the model, the inputs and the expected outputs (computed with numpy,
scipy or PIL by the test) to
`coremltools.converters.mil.testing_utils.compare_backend`, which predicts
with Core ML on macOS and does nothing elsewhere. This plugin replaces that
function: it saves the model as an `.mlpackage`, imports it with
`mlprog.import_mil`, JIT-compiles it, calls `main` with the inputs in the
model description's order and compares every output with the expected one
under the test's own tolerances (widened for fp16 programs exactly as
`compare_backend` widens them; an fp16 output is allowed at least one fp16
ulp, 2^-10 relative, since its rounding alone can be that far from an
expected value the test computed in fp32; so is any output whose expected
value the test computed in fp16).

Each test's verdict is appended, as one JSON object per line, to the file
named by MLPROG_MIL_RESULTS:

  {"id": nodeid, "status": S, "detail": text, "ops": [MIL op types]}

with S one of
  passed       mlprog ran every prediction the test asked for, all matched;
  unsupported  the importer refused the program with an "unsupported ..."
               error (a feature it does not implement);
  failed       any other import, compile or run error, or a mismatch;
  n/a          the test never reached a prediction: a type-inference or
               frontend-only test, a case coremltools skips, or a case that
               failed inside coremltools before it got to one (its own
               converter refusing the program on Linux).
"""
import faulthandler
import json
import os
import re
import shutil
import tempfile

import numpy as np
import pytest

import mlprog

_RESULTS = os.environ.get("MLPROG_MIL_RESULTS")
_OPT_LEVEL = int(os.environ.get("MLPROG_MIL_OPT_LEVEL", "0"))
# Seconds one test may take before the process dumps its stack and exits
# (the driver records the test as a timeout and goes on with the rest).
_TIMEOUT = float(os.environ.get("MLPROG_MIL_TIMEOUT", "120"))
# Files of test ids, one per line: run only these / never these.
_SELECT = os.environ.get("MLPROG_MIL_SELECT")
_DESELECT = os.environ.get("MLPROG_MIL_DESELECT")
# "fp32" or "fp16": only the backends of that precision.
_PRECISION = os.environ.get("MLPROG_MIL_PRECISION")
_WORK = tempfile.mkdtemp(prefix="mlprog-mil-conformance-")
# A folder: each saved case whose weights are all inline also leaves its
# `model.mlmodel` there (at most 64 KiB, named after the test id), as seeds
# for the fuzz-mil target (fuzz/make_corpus.py copies them).
_KEEP_MODELS = os.environ.get("MLPROG_MIL_KEEP_MODELS")

# Per test: what the replacement compare_backend saw.
_state = {}


class _Verdict(Exception):
    """Stops a test at mlprog's first error or mismatch."""

    def __init__(self, status, detail):
        super().__init__(detail)
        self.status = status
        self.detail = detail


def _program_ops(mlmodel):
    """The MIL op types of the model's main function (nested blocks too)."""
    ops = set()

    def visit(block):
        for op in block.operations:
            ops.add(op.type)
            for nested in op.blocks:
                visit(nested)

    spec = mlmodel.get_spec()
    for fn in spec.mlProgram.functions.values():
        for block in fn.block_specializations.values():
            visit(block)
    return sorted(ops)


def _unsupported(message):
    return re.search(r"error: unsupported ", message) is not None


def _first_error(stage, message):
    """`stage: <first diagnostic>` without the temporary package's path."""
    m = re.search(r"error: (.*)", message)
    return f"{stage}: " + (m.group(1) if m else message.strip()[:200])


def _keep_model(package):
    """Copies the package's model.mlmodel into _KEEP_MODELS when it names
    no weight blob (so the fuzz target can import it from its bytes)."""
    data = os.path.join(package, "Data", "com.apple.CoreML")
    blob = os.path.join(data, "weights", "weight.bin")
    model = os.path.join(data, "model.mlmodel")
    if os.path.exists(blob) and os.path.getsize(blob) > 64:
        return
    if not os.path.exists(model) or os.path.getsize(model) > 65536:
        return
    test = os.environ.get("PYTEST_CURRENT_TEST", "case").split(" ")[0]
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", test.split("ops/tests/")[-1])
    os.makedirs(_KEEP_MODELS, exist_ok=True)
    shutil.copyfile(model, os.path.join(_KEEP_MODELS, name[:180] + ".mlmodel"))


def _executable(mlmodel):
    """Imports and compiles the model once per test (state lives in it)."""
    cached = _state.get("exe")
    if cached is not None and cached[0] is mlmodel:
        return cached[1]
    path = os.path.join(_WORK, "case.mlpackage")
    shutil.rmtree(path, ignore_errors=True)
    mlmodel.save(path)
    if _KEEP_MODELS:
        _keep_model(path)
    try:
        module = mlprog.import_mil(path)
    except mlprog.Error as e:
        status = "unsupported" if _unsupported(str(e)) else "failed"
        raise _Verdict(status, _first_error("import", str(e)))
    try:
        exe = mlprog.compile(module, opt_level=_OPT_LEVEL, progress=False)
    except mlprog.Error as e:
        raise _Verdict("failed", _first_error("compile", str(e)))
    _state["exe"] = (mlmodel, exe)
    return exe


def _bind(value, entry):
    """`value` as the dtype mlprog's signature entry expects, reshaped as
    Core ML's prediction does when only unit dimensions differ (the
    converter gives a rank-0 input the shape (1,))."""
    array = np.asarray(value)
    dtype = entry.get("dtype")
    if dtype and array.dtype != np.dtype(dtype):
        array = array.astype(dtype)
    shape = entry.get("shape")
    if shape is not None and None not in shape and \
            tuple(shape) != array.shape and \
            [d for d in shape if d != 1] == [d for d in array.shape if d != 1]:
        array = array.reshape(shape)
    return array


def compare_backend(mlmodel, input_key_values, expected_outputs,
                    dtype="fp32", atol=1e-04, rtol=1e-05,
                    also_compare_shapes=True, state=None,
                    allow_mismatch_ratio=0.0):
    """mlprog's stand-in for coremltools' Core ML prediction check."""
    _state["reached"] = True
    _state["ops"] = _program_ops(mlmodel)
    exe = _executable(mlmodel)
    spec = mlmodel.get_spec()
    fn = exe.main
    signature = fn.signature
    names = [i.name for i in spec.description.input]
    missing = [n for n in names if n not in input_key_values]
    if missing:
        raise _Verdict("failed", f"no value for input {missing[0]}")
    try:
        args = [_bind(input_key_values[n], e)
                for n, e in zip(names, signature["inputs"])]
        results = fn(*args)
    except mlprog.Error as e:
        raise _Verdict("failed", _first_error("run", str(e)))
    except (TypeError, ValueError) as e:
        raise _Verdict("failed", f"run: {e}")
    if not isinstance(results, tuple):
        results = (results,)
    out_names = [o.name for o in spec.description.output]
    got = dict(zip(out_names, results))
    if dtype == "fp16":
        atol = max(atol * 100.0, 5e-1)
        rtol = max(rtol * 100.0, 5e-2)
    for name, expected in (expected_outputs or {}).items():
        if name not in got:
            raise _Verdict("failed", f"no output {name}")
        actual = np.asarray(got[name])
        expected = np.asarray(expected)
        if also_compare_shapes and actual.shape != expected.shape:
            raise _Verdict("failed", f"output {name}: shape {actual.shape}, "
                           f"expected {expected.shape}")
        if expected.dtype.kind in "fc" or actual.dtype.kind in "fc":
            # An fp16 output cannot come closer to an fp32 expected value
            # than its own rounding, and an expected value the test computed
            # in fp16 (numpy keeps `fp16_array + 1` in fp16) carries that
            # rounding itself: at least one fp16 ulp (2^-10) relative.
            out_rtol = max(rtol, 2.0 ** -10) \
                if np.float16 in (actual.dtype, expected.dtype) else rtol
            close = np.isclose(actual.astype(np.float64),
                               expected.astype(np.float64),
                               atol=atol, rtol=out_rtol, equal_nan=True)
        else:
            close = actual.astype(np.int64) == expected.astype(np.int64)
        bad = int(np.size(close) - np.count_nonzero(close))
        if bad and bad / max(np.size(close), 1) > allow_mismatch_ratio:
            diff = np.abs(actual.astype(np.float64) -
                          expected.astype(np.float64))
            raise _Verdict("failed", f"output {name}: {bad} of "
                           f"{np.size(close)} elements differ (max abs "
                           f"{np.nanmax(diff) if diff.size else 0:.3g})")
    _state["compared"] = _state.get("compared", 0) + 1


def make_state(mlmodel):
    """mlprog's stand-in for `MLModel.make_state` (macOS 15+ only): a Core ML
    state lives in the compiled program's mutable globals, zeros when the
    program is compiled, so a fresh state is a fresh compile."""
    cached = _state.get("exe")
    if cached is not None and cached[0] is mlmodel:
        _state.pop("exe")
    return object()


def pytest_configure(config):
    import coremltools.converters.mil.mil.ops.tests.testing_utils as op_utils
    import coremltools.converters.mil.testing_utils as utils
    from coremltools.models import MLModel
    utils.compare_backend = compare_backend
    op_utils.compare_backend = compare_backend
    MLModel.make_state = make_state


# Test ids are pytest's node ids relative to coremltools' op test folder
# (`iOS15/test_x.py::TestY::test_z[...]`). pytest runs from the folder above
# (converters/mil), whose conftest.py names the parameters (`backend=...`).
_PREFIX = "mil/ops/tests/"


def _test_id(item):
    """The id, on one line: parameters printed as numpy arrays hold line
    breaks, which are written as the two characters `\\n`."""
    nodeid = item.nodeid
    nodeid = nodeid[len(_PREFIX):] if nodeid.startswith(_PREFIX) else nodeid
    return nodeid.replace("\n", "\\n")


def _read_ids(path):
    with open(path) as f:
        return {line.strip() for line in f if line.strip()}


def pytest_collection_modifyitems(session, config, items):
    keep = _read_ids(_SELECT) if _SELECT else None
    drop = _read_ids(_DESELECT) if _DESELECT else set()
    chosen, dropped = [], []
    for item in items:
        test_id = _test_id(item)
        wanted = (keep is None or test_id in keep) and \
            test_id not in drop and \
            "backend='neuralnetwork'" not in test_id and \
            (not _PRECISION or f"precision='{_PRECISION}'" in test_id
             or "precision=" not in test_id)
        (chosen if wanted else dropped).append(item)
    items[:] = chosen
    config.hook.pytest_deselected(items=dropped)


def pytest_runtest_setup(item):
    _state.clear()
    _write({"id": _test_id(item), "status": "started"})
    faulthandler.dump_traceback_later(_TIMEOUT, exit=True)


def pytest_runtest_teardown(item):
    faulthandler.cancel_dump_traceback_later()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" and not (report.when == "setup" and
                                      report.skipped):
        return
    if report.when == "setup":
        _record(_test_id(item), "n/a", "skipped by coremltools")
        return
    verdict = call.excinfo.value if call.excinfo else None
    if isinstance(verdict, _Verdict):
        _record(_test_id(item), verdict.status, verdict.detail)
    elif not _state.get("reached"):
        detail = "no prediction"
        if call.excinfo is not None:
            detail = "coremltools: " + call.excinfo.typename
        _record(_test_id(item), "n/a", detail)
    elif call.excinfo is not None:
        _record(_test_id(item), "failed",
                f"{call.excinfo.typename}: {str(call.excinfo.value)[:200]}")
    else:
        _record(_test_id(item), "passed", "")
    _state.pop("exe", None)


def _record(nodeid, status, detail):
    _write({"id": nodeid, "status": status,
            "detail": detail.replace("\n", " ")[:300],
            "ops": _state.get("ops", [])})


def _write(entry):
    if not _RESULTS:
        return
    with open(_RESULTS, "a") as f:
        f.write(json.dumps(entry) + "\n")
        f.flush()


def pytest_unconfigure(config):
    shutil.rmtree(_WORK, ignore_errors=True)
