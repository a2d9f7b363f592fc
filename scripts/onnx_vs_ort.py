#!/usr/bin/env python3
"""Runs any ONNX model with mlprog and with onnxruntime and compares them.

  .venv/bin/python scripts/onnx_vs_ort.py MODEL.onnx [--input NAME=FILE.npy]...
      [--input-shapes 1x3x224x224,... | --run-shapes 3x16,...]
      [--input-constants sr=16000,...] [--seed N] [--rtol R] [--atol A] [-O N]
      [--threads N] [--mcpu CPU --mattr FEATURES] [--build-dir build] [--keep DIR]

The first thing to run when a model fails: it says at which step (import,
compile and run, or the comparison) and prints the error or, per output,
shape, dtype and the largest absolute and relative differences.

Inputs: each graph input that is not an initializer gets the array given by
`--input NAME=FILE.npy`, else a seeded random one of its declared dtype
(floats from a standard normal, integers in [0, 10), bools at random) and
shape. Extents the model leaves symbolic or unknown come from
`--input-shapes` (the mlprog-translate option, which mlprog's import also
gets: pinned extents make static code) or `--run-shapes` (the same spelling,
for the inputs only: mlprog's import keeps the dynamic extents, to test
dynamic code), else 1. `--input-constants`
binds scalar inputs to numbers (mlprog-translate's option: mlprog imports
them as constants, onnxruntime is fed them).

mlprog: `mlprog-translate --import-onnx` (with --input-shapes and
--weights-dir next to the model), then `mlprog-run` at `-O` (default 2).
`--threads`, `--mcpu` and `--mattr` go to mlprog-run (`--mcpu=haswell
--mattr=+avx2,+fma` runs the AVX2 code on an AVX-512 machine).
onnxruntime: an InferenceSession with all graph optimizations on the CPU.
An output matches when shape and dtype are equal and numpy.allclose(mlprog,
onnxruntime, rtol, atol) holds (default 1e-4 and 1e-5); integer and bool
outputs must be equal. Exit status: 0 all outputs match, 1 a mismatch or an
mlprog error, 2 bad arguments or onnxruntime refusing the model.

Runs in the project's .venv (onnx, onnxruntime, numpy;
scripts/setup-venv.sh); mlprog runs as the tools of --build-dir, in their own
processes. docs/importers/onnx.md, "When a model fails", shows its output.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def parse_shapes(text):
    """--input-shapes text -> list of lists (None: unknown)."""
    if not text:
        return []
    shapes = []
    for item in text.split(","):
        item = item.strip()
        if item in ("", "scalar"):
            shapes.append([])
            continue
        shapes.append([None if d.strip() == "?" else int(d)
                       for d in item.split("x")])
    return shapes


def graph_inputs(model):
    """The graph inputs that are not initializers, in order."""
    initializers = {t.name for t in model.graph.initializer}
    return [i for i in model.graph.input if i.name not in initializers]


def make_input(info, pinned, rng, np, helper):
    """A seeded random array for graph input `info`."""
    tensor = info.type.tensor_type
    if not info.type.HasField("tensor_type"):
        raise SystemExit(f"onnx_vs_ort: input '{info.name}' is not a tensor; "
                         "give it with --input")
    dtype = helper.tensor_dtype_to_np_dtype(tensor.elem_type)
    dims = [d.dim_value if d.HasField("dim_value") else None
            for d in tensor.shape.dim]
    if pinned is not None:
        if len(pinned) != len(dims) and tensor.HasField("shape"):
            raise SystemExit(f"onnx_vs_ort: --input-shapes gives rank "
                             f"{len(pinned)} for '{info.name}' of rank "
                             f"{len(dims)}")
        dims = [p if p is not None else d for p, d in
                zip(pinned, dims or [None] * len(pinned))]
    shape = [1 if d is None else d for d in dims]
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(shape).astype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, 10, shape).astype(dtype)
    raise SystemExit(f"onnx_vs_ort: input '{info.name}' has dtype {dtype}; "
                     "give it with --input")


def run(command):
    """Runs `command`; returns (ok, stderr text)."""
    result = subprocess.run(command, capture_output=True, text=True)
    return result.returncode == 0, result.stderr.strip()


def compare(name, got, want, rtol, atol, np):
    """One line for output `name`, and whether it matches."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return (f"{name}: MISMATCH shape/dtype {got.shape} {got.dtype} vs "
                f"onnxruntime {want.shape} {want.dtype}"), False
    if got.size == 0:
        return f"{name}: match (empty {got.shape} {got.dtype})", True
    if not np.issubdtype(got.dtype, np.floating):
        equal = int((got == want).sum())
        ok = equal == got.size
        return (f"{name}: {'match' if ok else 'MISMATCH'} {got.shape} "
                f"{got.dtype}, {equal} of {got.size} elements equal"), ok
    g, w = got.astype(np.float64), want.astype(np.float64)
    nan_ok = bool((np.isnan(g) == np.isnan(w)).all())
    finite = ~(np.isnan(g) | np.isnan(w))
    diff = np.abs(g - w)[finite]
    abs_err = float(diff.max()) if diff.size else 0.0
    rel_err = float((diff / np.maximum(np.abs(w[finite]), 1e-30)).max()) \
        if diff.size else 0.0
    ok = nan_ok and bool(np.allclose(g, w, rtol=rtol, atol=atol,
                                     equal_nan=True))
    return (f"{name}: {'match' if ok else 'MISMATCH'} {got.shape} {got.dtype}, "
            f"max abs diff {abs_err:.3g}, max rel diff {rel_err:.3g}"), ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     usage=__doc__.split("\n\n")[1].strip())
    parser.add_argument("model")
    parser.add_argument("--input", action="append", default=[],
                        metavar="NAME=FILE.npy")
    parser.add_argument("--input-shapes", default="")
    parser.add_argument("--run-shapes", default="",
                        help="shapes of the generated inputs only, same "
                        "spelling as --input-shapes; the import keeps the "
                        "model's dynamic extents")
    parser.add_argument("--input-constants", default="")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rtol", type=float, default=1e-4)
    parser.add_argument("--atol", type=float, default=1e-5)
    parser.add_argument("-O", dest="opt_level", type=int, default=2)
    parser.add_argument("--threads", type=int)
    parser.add_argument("--mcpu")
    parser.add_argument("--mattr")
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--keep", help="folder for the .mlir, inputs and "
                        "outputs (default: a temporary one)")
    args = parser.parse_args()

    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import helper

    model = onnx.load(args.model, load_external_data=False)
    inputs = graph_inputs(model)
    given = {}
    for item in args.input:
        name, _, path = item.partition("=")
        if not path:
            parser.error(f"--input {item}: expected NAME=FILE.npy")
        given[name] = np.load(path)
    unknown = set(given) - {i.name for i in inputs}
    if unknown:
        parser.error("--input names no graph input: " + ", ".join(sorted(
            unknown)) + " (inputs: " + ", ".join(i.name for i in inputs) + ")")
    try:
        shapes = parse_shapes(args.input_shapes)
    except ValueError:
        parser.error(f"malformed --input-shapes '{args.input_shapes}'")
    if args.run_shapes and shapes:
        parser.error("--run-shapes and --input-shapes exclude each other")
    if args.run_shapes:
        try:
            shapes = parse_shapes(args.run_shapes)
        except ValueError:
            parser.error(f"malformed --run-shapes '{args.run_shapes}'")
    if shapes and len(shapes) != len(inputs):
        parser.error(f"--input-shapes/--run-shapes gives {len(shapes)} "
                     f"shape(s) for {len(inputs)} input(s)")
    constants = {}
    for item in filter(None, args.input_constants.split(",")):
        name, _, value = item.partition("=")
        match = [i for i in inputs if i.name == name.strip()]
        if not value or not match:
            parser.error(f"--input-constants {item}: expected NAME=VALUE "
                         "naming a graph input")
        dtype = helper.tensor_dtype_to_np_dtype(
            match[0].type.tensor_type.elem_type)
        dims = [1] * len(match[0].type.tensor_type.shape.dim)
        constants[name.strip()] = np.full(dims, float(value)).astype(dtype)
    rng = np.random.default_rng(args.seed)
    feed = {}
    for k, info in enumerate(inputs):
        feed[info.name] = constants.get(info.name, given.get(info.name))
        if feed[info.name] is None:
            feed[info.name] = make_input(info, shapes[k] if shapes else None,
                                         rng, np, helper)
    print(f"model {args.model}: opset "
          f"{max((o.version for o in model.opset_import if o.domain in ('', 'ai.onnx')), default='?')}, "
          f"IR {model.ir_version}, {len(model.graph.node)} nodes")
    for name, array in feed.items():
        print(f"  input {name}: {array.shape} {array.dtype}")

    options = ort.SessionOptions()
    options.graph_optimization_level = \
        ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    try:
        session = ort.InferenceSession(args.model, options,
                                       providers=["CPUExecutionProvider"])
        want = session.run(None, feed)
    except Exception as e:  # onnxruntime raises its own exception types
        print(f"onnxruntime refused the model or the inputs: {e}")
        return 2
    names = [o.name for o in session.get_outputs()]

    bin_dir = os.path.join(args.build_dir, "bin")
    with tempfile.TemporaryDirectory(prefix="onnx-vs-ort-") as tmp:
        work = args.keep or tmp
        os.makedirs(work, exist_ok=True)
        mlir = os.path.join(work, "model.mlir")
        translate = [os.path.join(bin_dir, "mlprog-translate"), "--import-onnx",
                     args.model, "-o", mlir]
        if args.input_shapes:
            translate.append("--input-shapes=" + args.input_shapes)
        if args.input_constants:
            translate.append("--input-constants=" + args.input_constants)
        ok, err = run(translate)
        if not ok:
            print(f"mlprog: import failed:\n{err}")
            return 1
        command = [os.path.join(bin_dir, "mlprog-run"), mlir,
                   f"-O{args.opt_level}", "--output-dir",
                   os.path.join(work, "out")]
        if args.threads:
            command.append(f"--threads={args.threads}")
        if args.mcpu:
            command.append(f"--mcpu={args.mcpu}")
        if args.mattr:
            command.append(f"--mattr={args.mattr}")
        for k, info in enumerate(inputs):
            if info.name in constants:
                continue
            path = os.path.join(work, f"input{k}.npy")
            np.save(path, feed[info.name])
            command += ["--input", path]
        ok, err = run(command)
        if not ok:
            print(f"mlprog: compile and run failed:\n{err}")
            return 1
        got = [np.load(os.path.join(work, "out", f"output_{k}.npy"))
               for k in range(len(names))]

    all_ok = True
    for name, g, w in zip(names, got, want):
        line, ok = compare(name, g, np.asarray(w), args.rtol, args.atol, np)
        print("  " + line)
        all_ok &= ok
    print("all outputs match onnxruntime" if all_ok else
          "mlprog differs from onnxruntime")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
