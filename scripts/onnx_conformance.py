#!/usr/bin/env python3
"""Runs ONNX's backend test data through mlprog and compares the outputs.

Two versions of the tests (--onnx-version): Debian's libonnx-testdata
(1.12; suites node, pytorch-converted, pytorch-operator, simple) and the node
tests of onnx 1.23 from the project's .venv (generated on first use into
BUILD/onnx-testdata-1.23 by scripts/gen-onnx-node-tests.py). Run it with the
.venv's Python (.venv/bin/python; scripts/setup-venv.sh makes it).

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
`N passed, M failed, K skipped` line.

Expected outcomes: the expected-failures list (--xfail, default
test/Import/ONNX/conformance-xfail.txt; one `suite/test status reason` line
per case that does not pass) says which cases are known not to pass. With
the list, a listed case's failure is expected, an unlisted case that does not
pass is a REGRESSION (exit status 1), and a listed case that passes is
reported as an unexpected pass (update the list). Without a list (--no-xfail)
every failure makes the exit status 1.

  full suite (all four suites, CI's list semantics):
      .venv/bin/python scripts/onnx_conformance.py -j2 [--onnx-version 1.23]
  fast subset (what scripts/test.sh runs): for every op, one or two of
  the cases using it that are expected to pass:
      .venv/bin/python scripts/onnx_conformance.py --ci-subset [--onnx-version 1.23]
  regenerate the list and the op coverage page after a change (a full
  run; --filter, --suite and --ci-subset are refused with these):
      .venv/bin/python scripts/onnx_conformance.py -j2 --onnx-version V
          --write-xfail test/Import/ONNX/conformance-xfail[-1.23].txt
          --write-coverage docs/onnx-op-coverage.md   (V's section)
"""
import argparse
import ast
import collections
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

# The backend test data each ONNX version is run from.
VERSIONS = {
    "1.12": {
        "suites": ["node", "pytorch-converted", "pytorch-operator", "simple"],
        "data_dir": lambda build: "/usr/share/libonnx-testdata/data",
        "generate": False,
        "xfail": "conformance-xfail.txt",
        "source": "Debian's `libonnx-testdata` (onnx 1.12, opsets up to 17)",
    },
    "1.23": {
        "suites": ["node"],
        "data_dir": lambda build: os.path.join(build, "onnx-testdata-1.23"),
        "generate": True,
        "xfail": "conformance-xfail-1.23.txt",
        "source": "the node tests of onnx 1.23 (PyPI, in `.venv`; opsets up "
                  "to 28), written by `scripts/gen-onnx-node-tests.py`",
    },
}
# The first error the importer reports says what is not implemented.
UNSUPPORTED_RE = re.compile(r"error: (unsupported .*)")


def read_tensor(path):
    tensor = onnx.TensorProto()
    with open(path, "rb") as f:
        tensor.ParseFromString(f.read())
    return numpy_helper.to_array(tensor)


# bfloat16 tensors: numpy has no bfloat16 dtype. mlprog-run reads and
# writes them as .npy files whose header says 'descr': 'bfloat16' (see
# include/mlprog/Formats/Npy.h); here they are held as '<u2' arrays of bit
# patterns. The ONNX test data stores them as uint16 bit patterns too (or as
# BFLOAT16 tensors, which numpy_helper widens to float32). Outputs are
# compared as the float32 values the bit patterns stand for, with the usual
# tolerances (one bfloat16 ulp is 2**-8 relative, well above --rtol, so a
# different rounding still shows).
BF16 = onnx.TensorProto.BFLOAT16


def to_bf16_bits(array):
    """bfloat16 bit patterns of test data for a bfloat16 value."""
    if array.dtype == np.uint16:
        return array
    return (np.asarray(array, np.float32).view(np.uint32) >> 16).astype(
        np.uint16)


def bf16_bits_to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


# The 8-, 4- and 2-bit types (float8_*, float4_e2m1fn, [u]int4, [u]int2):
# numpy_helper gives ml_dtypes arrays, one byte per element, which np.save
# cannot write so that they read back (it writes '<V1' or '<f1'). mlprog-run
# reads and writes them as .npy files whose 'descr' is the ml_dtypes name
# (include/mlprog/Formats/Npy.h), which np.load understands once ml_dtypes is
# imported. Outputs are compared bit for bit (NaN signs and -0 included).
NARROW_DTYPES = {"float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
                 "float8_e5m2fnuz", "float8_e8m0fnu", "float4_e2m1fn", "int4",
                 "uint4", "int2", "uint2"}


def is_narrow(dtype):
    return dtype.name in NARROW_DTYPES


# STRING tensors: numpy_helper gives object arrays of str; mlprog-run reads
# and writes numpy's fixed-width unicode dtype '<U<n>' (UTF-32; see
# include/mlprog/Formats/Npy.h, DType::Str). Outputs compare element by
# element as Python strings.
def is_string(dtype):
    return dtype == object or dtype.kind in "US"


def as_str_array(array):
    return np.array([v.decode("utf-8") if isinstance(v, bytes) else str(v)
                     for v in np.asarray(array, dtype=object).ravel()],
                    dtype=str).reshape(np.shape(array))


def save_npy(path, array, elem_type):
    if is_string(array.dtype):
        np.save(path, as_str_array(array))
        return
    if is_narrow(array.dtype):
        with open(path, "wb") as f:
            np.lib.format.write_array_header_1_0(
                f, {"descr": array.dtype.name, "fortran_order": False,
                    "shape": array.shape})
            f.write(np.ascontiguousarray(array).tobytes())
        return
    if elem_type != BF16:
        np.save(path, array)
        return
    # np.ascontiguousarray would make a 0-d array 1-d.
    bits = np.array(to_bf16_bits(array), dtype="<u2", order="C")
    with open(path, "wb") as f:
        np.lib.format.write_array_header_1_0(
            f, {"descr": "bfloat16", "fortran_order": False,
                "shape": bits.shape})
        f.write(bits.tobytes())


def load_npy(path):
    """(array, is_bf16); bfloat16 files come back as '<u2' bit patterns."""
    with open(path, "rb") as f:
        major, _ = np.lib.format.read_magic(f)
        try:
            header = (np.lib.format.read_array_header_1_0(f) if major == 1
                      else np.lib.format.read_array_header_2_0(f))
        except ValueError:
            f.seek(8)
            size = int.from_bytes(f.read(2 if major == 1 else 4), "little")
            header = ast.literal_eval(f.read(size).decode("latin1"))
            if header.get("descr") != "bfloat16":
                raise
            shape = tuple(header["shape"])
            bits = np.frombuffer(f.read(), dtype="<u2")
            return bits[:int(np.prod(shape))].reshape(shape), True
    array = np.load(path)
    # Once ml_dtypes is imported (onnx >= 1.15 does), numpy reads the
    # 'bfloat16' descr itself.
    if array.dtype.name == "bfloat16":
        return array.view("<u2"), True
    return array, False


def graph_io_types(case_dir):
    """ONNX TypeProtos of the model's non-initializer inputs and of its
    outputs, in order."""
    m = onnx.load(os.path.join(case_dir, "model.onnx"),
                  load_external_data=False)
    inits = {i.name for i in m.graph.initializer}
    return ([i.type for i in m.graph.input if i.name not in inits],
            [o.type for o in m.graph.output])


# Sequences and optionals (docs/importers/onnx.md, "Sequences and
# optionals"): mlprog passes a sequence of tensors whose element shape the
# model declares static as one stacked tensor [n, element dims], any other
# sequence as a ragged one: two arrays, the elements zero padded to the
# largest extents [n, max extents...] and their int64 shapes [n, rank]; an
# optional output as its element (an empty optional sequence as an empty
# sequence) and an optional input as its element followed by a bool
# presence flag (an empty one as the placeholder of its type: zeros, or an
# empty sequence). The test data holds SequenceProto and OptionalProto
# messages; a stacked sequence whose elements differ in shape, a ragged one
# whose elements differ in rank, or an empty optional whose placeholder's
# shape the type does not say, skips the case as unsupported.
class Unsupported(Exception):
    pass


def read_value(path, type_proto):
    """The test value in `path`: an array, a list (sequence) or None (an
    empty optional), read as `type_proto` says (a tensor when None)."""
    kind = type_proto.WhichOneof("value") if type_proto else "tensor_type"
    cls = {"sequence_type": onnx.SequenceProto,
           "optional_type": onnx.OptionalProto}.get(kind, onnx.TensorProto)
    proto = cls()
    with open(path, "rb") as f:
        proto.ParseFromString(f.read())
    if kind == "sequence_type":
        return numpy_helper.to_list(proto)
    if kind == "optional_type":
        return numpy_helper.to_optional(proto)
    return numpy_helper.to_array(proto)


def element_tensor_type(type_proto):
    """The tensor TypeProto.Tensor inside optional/sequence types, or None."""
    while type_proto is not None:
        kind = type_proto.WhichOneof("value")
        if kind == "tensor_type":
            return type_proto.tensor_type
        if kind == "sequence_type":
            type_proto = type_proto.sequence_type.elem_type
        elif kind == "optional_type":
            type_proto = type_proto.optional_type.elem_type
        else:
            return None
    return None


def is_sequence(type_proto):
    while type_proto is not None:
        kind = type_proto.WhichOneof("value")
        if kind == "sequence_type":
            return True
        if kind != "optional_type":
            return False
        type_proto = type_proto.optional_type.elem_type
    return False


def stack_sequence(values, type_proto, what):
    """The stacked tensor [n, element dims] of a list of arrays."""
    if values and any(v.shape != values[0].shape for v in values):
        raise Unsupported(f"unsupported sequence whose elements differ in "
                          f"shape ({what})")
    if values:
        return np.stack(values)
    tensor = element_tensor_type(type_proto)
    if tensor is None or not tensor.HasField("shape"):
        raise Unsupported(f"unsupported empty sequence of unknown element "
                          f"shape ({what})")
    dims = [d.dim_value if d.HasField("dim_value") else 0
            for d in tensor.shape.dim]
    dtype = onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type)
    return np.zeros([0] + dims, dtype)


def is_ragged(type_proto):
    """Whether a sequence (or optional sequence) of `type_proto` crosses
    the boundary ragged: its element shape is undeclared or not static."""
    if not is_sequence(type_proto):
        return False
    tensor = element_tensor_type(type_proto)
    return (tensor is None or not tensor.HasField("shape")
            or any(not d.HasField("dim_value") for d in tensor.shape.dim))


def pad_sequence(values, type_proto, what):
    """The ragged form (data, shapes) of a list of arrays: the arrays zero
    padded to the largest extents and stacked, and their shapes."""
    tensor = element_tensor_type(type_proto)
    if values:
        rank = values[0].ndim
        if any(v.ndim != rank for v in values):
            raise Unsupported(f"unsupported sequence whose elements differ "
                              f"in rank ({what})")
        dtype = values[0].dtype
    else:
        if tensor is None or not tensor.HasField("shape"):
            raise Unsupported(f"unsupported empty sequence of unknown "
                              f"element rank ({what})")
        rank = len(tensor.shape.dim)
        dtype = onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type)
    shapes = np.array([v.shape for v in values], np.int64).reshape(
        len(values), rank)
    extents = shapes.max(axis=0) if values else np.zeros(rank, np.int64)
    data = np.zeros([len(values)] + list(extents), dtype)
    for k, v in enumerate(values):
        data[(k,) + tuple(slice(0, e) for e in v.shape)] = v
    return data, shapes


def unpad_sequence(data, shapes):
    """The list of arrays of a ragged (data, shapes) pair."""
    return [data[(k,) + tuple(slice(0, int(e)) for e in row)]
            for k, row in enumerate(shapes)]


def is_optional(type_proto):
    return (type_proto is not None
            and type_proto.WhichOneof("value") == "optional_type")


def optional_placeholder(type_proto, what):
    """The element mlprog is passed for an empty optional input of
    `type_proto`: an empty sequence, or zeros of the tensor's shape."""
    if is_sequence(type_proto):
        return stack_sequence([], type_proto, what)
    tensor = element_tensor_type(type_proto)
    if tensor is None or not tensor.HasField("shape"):
        raise Unsupported(f"unsupported empty optional of unknown shape "
                          f"({what})")
    dims = [d.dim_value if d.HasField("dim_value") else 0
            for d in tensor.shape.dim]
    return np.zeros(dims, onnx.helper.tensor_dtype_to_np_dtype(
        tensor.elem_type))


def to_boundary(value, type_proto, what):
    """The array mlprog passes for a test value (see read_value)."""
    if isinstance(value, list):
        return stack_sequence(value, type_proto, what)
    if value is None:
        if is_sequence(type_proto):
            return stack_sequence([], type_proto, what)
        raise Unsupported(f"unsupported empty optional ({what})")
    return value


def compare(got, want, rtol, atol):
    """None if `got` matches `want`, else what differs. The dtype must be
    exactly the expected one (a signedness or width mismatch fails);
    bfloat16 outputs arrive here as the float32 values of both bit patterns
    (see run_data_set). Integers and bools must be equal, floats close, the
    8-, 4- and 2-bit types (see is_narrow) identical bit for bit."""
    if got.shape != want.shape:
        return f"shape {got.shape} != expected {want.shape}"
    if is_string(want.dtype):
        if not is_string(got.dtype):
            return f"dtype {got.dtype} != expected strings"
        g, w = as_str_array(got).ravel(), as_str_array(want).ravel()
        bad = [i for i in range(w.size) if g[i] != w[i]]
        if bad:
            return (f"strings differ at {len(bad)} element(s), first "
                    f"{g[bad[0]]!r} != expected {w[bad[0]]!r}")
        return None
    if got.dtype != want.dtype:
        return f"dtype {got.dtype} != expected {want.dtype}"
    if is_narrow(want.dtype):
        if not np.array_equal(got.view(np.uint8), want.view(np.uint8)):
            return "bit patterns differ"
        return None
    if want.dtype == np.bool_ or np.issubdtype(want.dtype, np.integer):
        if not np.array_equal(got, want):
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
        try:
            io_types = graph_io_types(case_dir)
        except Exception:  # the importer accepted it; types are a nicety
            io_types = ([], [])
        for data_set in sorted(glob.glob(os.path.join(case_dir,
                                                      "test_data_set_*"))):
            try:
                status, detail = run_data_set(run, mlir, data_set, tmp,
                                              rtol, atol, timeout, io_types)
            except Unsupported as e:
                status, detail = "skipped", str(e)
            if status != "passed":
                return status, detail
    return "passed", ""


def run_data_set(run, mlir, data_set, tmp, rtol, atol, timeout,
                 io_types=((), ())):
    inputs = sorted(glob.glob(os.path.join(data_set, "input_*.pb")),
                    key=index_of)
    outputs = sorted(glob.glob(os.path.join(data_set, "output_*.pb")),
                     key=index_of)
    input_types, output_types = io_types
    type_of = lambda types, i: types[i] if i < len(types) else None
    cmd = run + [mlir, "--output-dir", os.path.join(tmp, "out")]
    for i, path in enumerate(inputs):
        npy = os.path.join(tmp, f"input_{i}.npy")
        t = type_of(input_types, i)
        value = read_value(path, t)
        present = value is not None
        tensor = element_tensor_type(t)
        if is_ragged(t):
            data, shapes = pad_sequence(value or [], t, f"input {i}")
            save_npy(npy, data, tensor.elem_type if tensor else 0)
            shapes_npy = os.path.join(tmp, f"input_{i}_shapes.npy")
            np.save(shapes_npy, shapes)
            cmd += ["--input", npy, "--input", shapes_npy]
        else:
            if is_optional(t) and not present:
                value = optional_placeholder(t, f"input {i}")
            value = to_boundary(value, t, f"input {i}")
            save_npy(npy, value, tensor.elem_type if tensor else 0)
            cmd += ["--input", npy]
        if is_optional(t):
            flag = os.path.join(tmp, f"input_{i}_present.npy")
            np.save(flag, np.array(present))
            cmd += ["--input", flag]
    # Expected outputs mlprog cannot produce skip the case before it runs.
    # Each expected output, and the index of mlprog's result that holds it
    # (a ragged sequence output is two results: data, shapes).
    wanted, result_index, r = [], [], 0
    for i, path in enumerate(outputs):
        t = type_of(output_types, i)
        value = read_value(path, t)
        result_index.append(r)
        if is_ragged(t):
            wanted.append((value or [], "ragged"))
            r += 2
            continue
        wanted.append(
            (to_boundary(value, t, f"output {i}"), isinstance(value, list)
             or (value is None and is_sequence(t))))
        r += 1
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return "failed", "run timed out"
    if proc.returncode != 0:
        return "failed", "run: " + first_error(proc.stderr)
    for i, path in enumerate(outputs):
        got_path = os.path.join(tmp, "out", f"output_{result_index[i]}.npy")
        if not os.path.exists(got_path):
            return "failed", f"output {i} missing"
        got, got_bf16 = load_npy(got_path)
        want, sequence = wanted[i]
        if sequence == "ragged":
            shapes_path = os.path.join(tmp, "out",
                                       f"output_{result_index[i] + 1}.npy")
            if not os.path.exists(shapes_path):
                return "failed", f"output {i}: shapes missing"
            elements = unpad_sequence(got, load_npy(shapes_path)[0])
            if len(elements) != len(want):
                return "failed", (f"output {i}: a sequence of "
                                  f"{len(elements)} elements, expected "
                                  f"{len(want)}")
            for k, (g, w) in enumerate(zip(elements, want)):
                if got_bf16:
                    g, w = bf16_bits_to_f32(g), bf16_bits_to_f32(
                        to_bf16_bits(w))
                problem = compare(g, w, rtol, atol)
                if problem:
                    return "failed", f"output {i} element {k}: {problem}"
            continue
        if sequence and got.shape[:1] != want.shape[:1]:
            return "failed", (f"output {i}: a sequence of {got.shape[0]} "
                              f"elements, expected {want.shape[0]}")
        if got_bf16:
            got, want = bf16_bits_to_f32(got), bf16_bits_to_f32(
                to_bf16_bits(want))
        problem = compare(got, want, rtol, atol)
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


def model_ops(case_dir):
    """(opset, sorted default-domain op types of the graph and subgraphs)."""
    try:
        m = onnx.load(os.path.join(case_dir, "model.onnx"),
                      load_external_data=False)
    except Exception:  # a corrupt model has no ops to attribute
        return None, []
    opset = next((o.version for o in m.opset_import
                  if o.domain in ("", "ai.onnx")), None)
    ops = set()

    def walk(graph):
        for node in graph.node:
            ops.add(node.op_type if node.domain in ("", "ai.onnx")
                    else f"{node.domain}::{node.op_type}")
            for attr in node.attribute:
                if attr.HasField("g"):
                    walk(attr.g)
                for g in attr.graphs:
                    walk(g)
    walk(m.graph)
    return opset, sorted(ops)


def read_xfail(path):
    """{case name: (status, reason)} from an expected-failures list."""
    expected = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            expected[parts[0]] = (parts[1] if len(parts) > 1 else "failed",
                                  parts[2] if len(parts) > 2 else "")
    return expected


def write_xfail(path, results, version):
    with open(path, "w") as f:
        f.write("# ONNX backend test cases expected not to pass, with the "
                "outcome and reason\n# of the last full run. Generated by\n"
                f"#   scripts/onnx_conformance.py -j2 --onnx-version {version} "
                f"--write-xfail {os.path.relpath(path)}\n# Every case not "
                "listed here must pass (scripts/onnx_conformance.py fails "
                "otherwise).\n")
        for suite, name, status, detail in sorted(results):
            if status != "passed":
                reason = " ".join(detail.split())[:160]
                f.write(f"{name} {status} {reason}\n")


def pick_ci_subset(cases, expected, per_op=2):
    """For every op with an expected-to-pass case, up to `per_op` such cases
    (node suite first, the shortest names first)."""
    chosen, counts = set(), collections.Counter()
    ordered = sorted(cases, key=lambda c: (c[0] != "node", len(c[1]), c[1]))
    for suite, name, case_dir in ordered:
        if name in expected:
            continue
        _, ops = model_ops(case_dir)
        if any(counts[op] < per_op for op in ops):
            chosen.add(name)
            for op in ops:
                counts[op] += 1
    return [c for c in cases if c[1] in chosen]


def coverage_section(cases, results, version):
    """The coverage table of one ONNX version's run: per op, the opsets of
    the test models using it, how many of them pass, and why the others do
    not."""
    status_of = {name: (status, detail) for _, name, status, detail in results}
    ops = {}
    for suite, name, case_dir in cases:
        if name not in status_of or name.endswith("_expanded"):
            continue
        opset, op_types = model_ops(case_dir)
        for op in op_types:
            entry = ops.setdefault(op, {"opsets": set(), "passed": 0,
                                        "total": 0,
                                        "reasons": collections.Counter()})
            if opset:
                entry["opsets"].add(opset)
            entry["total"] += 1
            status, detail = status_of[name]
            if status == "passed":
                entry["passed"] += 1
            else:
                reason = re.sub(r" in node '.*", "", detail)
                reason = re.sub(r"'[^']*' of tensor|\(max abs .*", "", reason)
                entry["reasons"][f"{status}: {reason[:90]}"] += 1
    totals = collections.Counter(s for _, _, s, _ in results)
    lines = [
        f"<!-- BEGIN onnx {version} -->",
        f"## ONNX {version}",
        "",
        f"From {VERSIONS[version]['source']}. Generated by "
        f"`scripts/onnx_conformance.py -j2 --onnx-version {version} "
        "--write-xfail ... --write-coverage docs/onnx-op-coverage.md`.",
        "",
        f"Cases run: {sum(totals.values())} ({totals['passed']} passed, "
        f"{totals['failed']} failed, {totals['skipped']} skipped).",
        "",
        "| op | opsets in tests | status | passed / models | notes |",
        "| --- | --- | --- | --- | --- |",
    ]
    for op in sorted(ops, key=str.lower):
        e = ops[op]
        opsets = sorted(e["opsets"])
        span = (f"{opsets[0]}-{opsets[-1]}" if len(opsets) > 1
                else (str(opsets[0]) if opsets else "?"))
        status = ("pass" if e["passed"] == e["total"] else
                  "partial" if e["passed"] else "unsupported")
        note = ""
        if e["reasons"]:
            reason, n = e["reasons"].most_common(1)[0]
            note = f"{reason} ({n}x)".replace("|", "\\|")
        lines.append(f"| {op} | {span} | {status} | {e['passed']} / "
                     f"{e['total']} | {note} |")
    lines.append(f"<!-- END onnx {version} -->")
    return "\n".join(lines) + "\n"


COVERAGE_HEADER = """# ONNX op coverage

Generated by `scripts/onnx_conformance.py --write-coverage` from ONNX's
backend test data, one section per ONNX version (each full run rewrites its
own section); do not edit by hand. An op counts every test model (except
`*_expanded` ones) whose graph uses it, so a model with several ops counts
for each. Status: **pass** (every such model passes), **partial** (some do),
**unsupported** (none does).

"""


def write_coverage(path, cases, results, version):
    """Writes (or replaces) `version`'s section of the op coverage page,
    keeping the other versions' sections."""
    sections = {}
    if os.path.exists(path):
        text = open(path).read()
        for m in re.finditer(r"<!-- BEGIN onnx (\S+) -->.*?"
                             r"<!-- END onnx \1 -->\n", text, re.S):
            sections[m.group(1)] = m.group(0)
    sections[version] = coverage_section(cases, results, version)
    with open(path, "w") as f:
        f.write(COVERAGE_HEADER)
        f.write("\n".join(sections[v] for v in sorted(sections)))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--build-dir", default=os.path.join(here, "..", "build"))
    parser.add_argument("--onnx-version", choices=sorted(VERSIONS),
                        default="1.12",
                        help="whose backend tests: Debian's libonnx-testdata "
                        "(1.12, four suites) or the node tests of the onnx "
                        "package in .venv (1.23, generated into the build "
                        "directory by scripts/gen-onnx-node-tests.py)")
    parser.add_argument("--data-dir", default=None,
                        help="test data root (default: the version's)")
    parser.add_argument("--suite", action="append",
                        choices=sorted({s for v in VERSIONS.values()
                                        for s in v["suites"]}),
                        help="suite to run (repeatable; default: all of the "
                        "version's)")
    parser.add_argument("--filter", default="",
                        help="only cases whose name contains this regex")
    parser.add_argument("--rtol", type=float, default=1e-3)
    parser.add_argument("--atol", type=float, default=1e-5)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("-O", "--opt-level", type=int, choices=range(4),
                        default=None, metavar="N",
                        help="mlprog-run's -O level (default: its own, -O2)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count())
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print every case, not only failures")
    parser.add_argument("--xfail", default=None,
                        help="expected-failures list (default: the "
                        "version's, test/Import/ONNX/conformance-xfail"
                        "[-1.23].txt)")
    parser.add_argument("--no-xfail", action="store_true",
                        help="ignore the expected-failures list: every "
                        "failure fails the run")
    parser.add_argument("--ci-subset", action="store_true",
                        help="run only one or two expected-to-pass cases "
                        "per op (the fast subset CI runs)")
    parser.add_argument("--write-xfail", metavar="FILE",
                        help="write the cases that did not pass as an "
                        "expected-failures list")
    parser.add_argument("--write-coverage", metavar="FILE",
                        help="write the op coverage page (markdown)")
    args = parser.parse_args()
    version = VERSIONS[args.onnx_version]
    if args.xfail is None:
        args.xfail = os.path.join(here, "..", "test", "Import", "ONNX",
                                  version["xfail"])
    if args.data_dir is None:
        args.data_dir = version["data_dir"](args.build_dir)
        if version["generate"]:
            subprocess.run([sys.executable, os.path.join(
                here, "gen-onnx-node-tests.py"), args.data_dir], check=True)
    bad_suites = set(args.suite or []) - set(version["suites"])
    if bad_suites:
        sys.exit(f"onnx_conformance: onnx {args.onnx_version} has no suite "
                 f"{', '.join(sorted(bad_suites))}")

    bin_dir = os.path.join(args.build_dir, "bin")
    tools = (os.path.join(bin_dir, "mlprog-translate"),
             os.path.join(bin_dir, "mlprog-run"))
    for tool in tools:
        if not os.access(tool, os.X_OK):
            sys.exit(f"onnx_conformance: {tool} not found; build first")
    run_cmd = [tools[1]]
    if args.opt_level is not None:
        run_cmd.append(f"-O{args.opt_level}")
    tools = (tools[0], run_cmd)
    cases = []
    for suite in args.suite or version["suites"]:
        for case_dir in sorted(glob.glob(os.path.join(args.data_dir, suite,
                                                      "*"))):
            name = f"{suite}/{os.path.basename(case_dir)}"
            if (os.path.exists(os.path.join(case_dir, "model.onnx"))
                    and re.search(args.filter, name)):
                cases.append((suite, name, case_dir))

    if ((args.write_xfail or args.write_coverage)
            and (args.filter or args.suite or args.ci_subset)):
        sys.exit("onnx_conformance: --write-xfail/--write-coverage need the "
                 "full run (no --filter, --suite or --ci-subset)")
    expected = None
    if not args.no_xfail and os.path.exists(args.xfail):
        expected = read_xfail(args.xfail)
    if args.ci_subset:
        if expected is None:
            sys.exit("onnx_conformance: --ci-subset needs the expected-"
                     "failures list " + args.xfail)
        cases = pick_ci_subset(cases, expected)

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
    regressions, unexpected = [], []
    for suite, name, status, detail in sorted(results):
        if expected is not None:
            if status != "passed" and name not in expected:
                regressions.append(name)
                print(f"REGRESSION {name}: {status}: {detail}")
            elif status == "passed" and name in expected:
                unexpected.append(name)
                print(f"UNEXPECTED-PASS {name} (listed as "
                      f"{expected[name][0]}; remove it from the list)")
            elif status == "failed" or args.verbose:
                print(f"{status.upper():8} {name}: {detail}")
        elif status == "failed" or args.verbose:
            print(f"{status.upper():8} {name}: {detail}")
        counts.setdefault(suite, {"passed": 0, "failed": 0, "skipped": 0})
        counts[suite][status] += 1
        totals[status] += 1
    for suite, c in counts.items():
        print(f"  {suite:18} {c['passed']:4} passed, {c['failed']:4} failed, "
              f"{c['skipped']:4} skipped")
    if args.write_xfail:
        write_xfail(args.write_xfail, results, args.onnx_version)
    if args.write_coverage:
        write_coverage(args.write_coverage, cases, results, args.onnx_version)
    if expected is not None:
        print(f"onnx-conformance: {len(regressions)} regressions, "
              f"{len(unexpected)} unexpected passes (expected-failures list "
              f"{os.path.relpath(args.xfail)})")
    print(f"onnx-conformance: {totals['passed']} passed, {totals['failed']} "
          f"failed, {totals['skipped']} skipped")
    if expected is not None and not args.write_xfail:
        return 1 if regressions else 0
    return 1 if totals["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
