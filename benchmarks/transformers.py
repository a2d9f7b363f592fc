#!/usr/bin/env python3
"""Model latency: mlprog against onnxruntime, in one process.

    /usr/bin/python3 benchmarks/transformers.py [--build build] [--quick]
        [--models transformers|cnn|int8|all|NAME,...] [--threads 1,2]
        [--batch N] [--reps N] [--json FILE]

Models (`--models` takes names and group names, comma-separated; the
default is the transformers group):

  transformers  bert, gpt, vit_b_16, bert_base, gpt2_small
  cnn           resnet18, resnet50, mobilenet_v2, mobilenet_v3_large,
                efficientnet_b0, convnext_tiny (torchvision, 224x224)
  int8          resnet50_int8 (resnet50 quantized by onnxruntime's
                `quantize_static`, QDQ format, uint8 activations, int8
                weights, 4 seeded random calibration batches) and
                bert_base_int8 (bert_base quantized by `quantize_dynamic`,
                int8 weights)

Stages, because the two peers live in different Python environments:

1. Debian's Python (torch 1.13, torchvision) exports each model to ONNX with
   random weights (seed 0) and records PyTorch eager's latency and output
   (1 thread: torch.set_num_threads(1), its OpenBLAS limited to one thread
   by threadpoolctl, pinned to one core).
2. For the int8 models, the project's `.venv` Python quantizes the exported
   float model with `onnxruntime.quantization`.
3. `mlprog-translate --import-onnx` and `mlprog-compile` (the default -O2
   CPU pipeline) compile each ONNX file into a shared library with the C ABI
   of include/mlprog-c/Model.h. A model that fails to import or compile is
   reported as a failed row with the first line of the tool's error.
4. The `.venv` Python (onnxruntime, scripts/requirements) loads that library
   with ctypes and runs it alternately with onnxruntime (all graph
   optimizations) in the same process, a fresh one for each thread count
   (the 1-thread one pinned to one core): same inputs, same thread count
   (`MLPROG_NUM_THREADS` and `intra_op_num_threads`), medians. Our time
   includes the copy of the results out of the library. With more than one
   thread, onnxruntime's pool does not spin between calls
   (`session.intra_op.allow_spinning=0`), ours keeps its default (idle
   threads spin for 1 ms, `KMP_BLOCKTIME=1`, then sleep), and every timed
   call follows an untimed 2 ms pause, so neither pool's spinning takes the
   cores the other needs.

Outputs are compared before timing (max abs error): a float model's with
PyTorch's, an int8 model's with onnxruntime's output for the same quantized
model, also given in steps of the output's quantization where a
DequantizeLinear makes it. They differ by some steps: onnxruntime's fused
integer kernels round in another order, a value that lands one step away
carries that through the following layers, and onnxruntime's own
unoptimized session differs from its optimized one as much. For an int8
model, the PyTorch eager time is the float model's.
"""

import argparse
import contextlib
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time

import peers

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Every model's name and its description in the table.
DESCRIPTIONS = {
    "bert": "BERT-style encoder (d 256, 4 layers, 4 heads, seq 64)",
    "gpt": "GPT-style decoder (d 128, 2 layers, causal, seq 64, vocab 1000)",
    "vit_b_16": "torchvision vit_b_16 (224x224)",
    "bert_base": "BERT-base encoder (d 768, 12 layers, 12 heads, seq 128)",
    "gpt2_small": "GPT-2-small shape (d 768, 12 layers, 12 heads, causal, "
                  "seq 128, vocab 50257)",
    "resnet18": "torchvision resnet18 (224x224)",
    "resnet50": "torchvision resnet50 (224x224)",
    "mobilenet_v2": "torchvision mobilenet_v2 (224x224)",
    "mobilenet_v3_large": "torchvision mobilenet_v3_large (224x224)",
    "efficientnet_b0": "torchvision efficientnet_b0 (224x224)",
    "convnext_tiny": "torchvision convnext_tiny (224x224)",
    "resnet50_int8": "resnet50 int8 (quantize_static, QDQ)",
    "bert_base_int8": "BERT-base encoder int8 (quantize_dynamic)",
}
# An int8 model: the float model it quantizes and onnxruntime's method.
INT8 = {"resnet50_int8": ("resnet50", "static"),
        "bert_base_int8": ("bert_base", "dynamic")}
GROUPS = {
    "transformers": ["bert", "gpt", "vit_b_16", "bert_base", "gpt2_small"],
    "cnn": ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_large",
            "efficientnet_b0", "convnext_tiny"],
    "int8": list(INT8),
}
GROUPS["all"] = GROUPS["transformers"] + GROUPS["cnn"] + GROUPS["int8"]


def expand_models(spec):
    """The model names of the comma-separated `spec`, group names expanded
    in place; a ValueError names an unknown one."""
    names = []
    for item in spec.split(","):
        if item not in GROUPS and item not in DESCRIPTIONS:
            raise ValueError("unknown model '%s' (models: %s; groups: %s)" % (
                item, ", ".join(DESCRIPTIONS), ", ".join(GROUPS)))
        names += GROUPS.get(item, [item])
    return names


def build_gpt(vocab, d, layers, heads, t):
    """A pre-norm causal decoder over token ids (GPT-2's layout, built from
    nn.TransformerEncoderLayer with a causal mask)."""
    import torch
    import torch.nn as nn

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(vocab, d)
            self.pos = nn.Embedding(t, d)
            layer = nn.TransformerEncoderLayer(
                d, heads, 4 * d, dropout=0.0, activation="gelu",
                batch_first=True, norm_first=True)
            self.enc = nn.TransformerEncoder(layer, layers)
            self.ln = nn.LayerNorm(d)
            self.head = nn.Linear(d, vocab, bias=False)
            self.register_buffer(
                "mask", torch.triu(torch.full((t, t), float("-inf")), 1))

        def forward(self, ids):
            t = ids.shape[1]
            x = self.tok(ids) + self.pos(torch.arange(t))
            return self.head(self.ln(self.enc(x, mask=self.mask[:t, :t])))
    return GPT().eval()


def build_model(name, batch=1):
    """The float model `name` in eval mode with random weights (seed 0;
    torchvision's builders without pretrained weights, nothing downloaded)
    and an input of batch `batch`."""
    import torch
    import torch.nn as nn
    torch.manual_seed(0)
    if name in ("bert", "bert_base"):
        d, heads, layers, seq = ((256, 4, 4, 64) if name == "bert"
                                 else (768, 12, 12, 128))
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0,
                                           activation="gelu", batch_first=True)
        model = nn.TransformerEncoder(layer, layers).eval()
        return model, torch.randn(batch, seq, d)
    if name in ("gpt", "gpt2_small"):
        vocab, d, layers, heads, t = ((1000, 128, 2, 4, 64) if name == "gpt"
                                      else (50257, 768, 12, 12, 128))
        return (build_gpt(vocab, d, layers, heads, t),
                torch.randint(0, vocab, (batch, t)))
    import torchvision
    model = getattr(torchvision.models, name)()
    if name == "vit_b_16":
        # torchvision zero-initializes the head: make the output informative.
        nn.init.normal_(model.heads.head.weight, std=0.02)
    calibrate_batch_norms(model, (4, 3, 224, 224))
    return model.eval(), torch.randn(batch, 3, 224, 224)


def calibrate_batch_norms(model, shape):
    """Sets the running statistics of every BatchNorm of `model` to those of
    a random batch of `shape` (its own seed: the caller's random stream is
    left as it was; one forward pass in training mode), so that the
    activations keep their scale: with random weights and the default
    statistics (mean 0, variance 1), mobilenet's and efficientnet's logits
    shrink to 1e-9 .. 1e-14 and a max abs error says nothing."""
    import torch
    norms = [m for m in model.modules()
             if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not norms:
        return
    for norm in norms:
        norm.reset_running_stats()
        norm.momentum = None  # a cumulative average: this batch's statistics
    model.train()
    with torch.no_grad():
        model(torch.randn(shape, generator=torch.Generator().manual_seed(1)))


def first_error_line(text):
    """The first line of `text` that names an error, else its first
    non-empty line."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return next((line for line in lines if "error" in line.lower()),
                lines[0] if lines else "no message")


def timed(cmd):
    """Wall seconds of the subprocess `cmd`; a RuntimeError with the tool's
    name and its first error line if it fails."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode:
        raise RuntimeError("%s: %s" % (os.path.basename(cmd[0]),
                                       first_error_line(proc.stderr)))
    return time.perf_counter() - start


def export_stage(args, work):
    """Stage 1 (Debian's Python, torch): ONNX export, PyTorch eager's output
    and latency. An int8 model's float model is written to NAME.fp32.onnx,
    which the quantize stage turns into the row's NAME.onnx."""
    import numpy as np
    import torch
    torch.set_num_threads(1)
    blas_limit = peers.limit_blas_threads(1)  # noqa: F841 (held to the end)
    peers.pin_for(1)
    print("PyTorch eager's BLAS and OpenMP libraries (1 thread, pinned):")
    for line in peers.blas_report():
        print("  " + line)
    rows = []
    for name in args.models:
        model, x = build_model(INT8.get(name, (name,))[0], args.batch)
        row = {"model": name, "batch": args.batch,
               "onnx": os.path.join(work, name + ".onnx")}
        path = row["onnx"]
        if name in INT8:
            path = row["float_onnx"] = os.path.join(work, name + ".fp32.onnx")
        # Export with autograd on: torch 1.13's no_grad fast path of
        # nn.MultiheadAttention has no ONNX export.
        torch.onnx.export(model, (x,), path, opset_version=14,
                          input_names=["x"], output_names=["y"])
        with torch.no_grad():
            ref = model(x).numpy()
            times = []
            for _ in range(args.reps):
                start = time.perf_counter()
                model(x)
                times.append(time.perf_counter() - start)
        np.save(os.path.join(work, name + "_x.npy"), x.numpy())
        np.save(os.path.join(work, name + "_y.npy"), ref)
        row["torch_eager_ms_1t"] = 1e3 * sorted(times)[len(times) // 2]
        rows.append(row)
        print("%s: exported" % name, flush=True)
    peers.pin_for(0)
    return rows


def quantize_stage(rows):
    """Stage 2 (.venv, onnxruntime): quantizes each int8 row's float model
    into the row's ONNX file, as INT8 says: `quantize_static` (QDQ, uint8
    activations, int8 weights, after `quant_pre_process`, calibrated on 4
    seeded random batches of the input's shape) or `quantize_dynamic` (int8
    weights, also after `quant_pre_process`). A failure marks the row with
    its error."""
    import logging
    import numpy as np
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat,
                                          QuantType, quantize_dynamic,
                                          quantize_static)
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Batches(CalibrationDataReader):
        """`count` seeded random inputs `x` of `shape`."""

        def __init__(self, shape, count=4):
            rng = np.random.default_rng(0)
            self.data = iter([{"x": rng.standard_normal(shape).astype(
                np.float32)} for _ in range(count)])

        def get_next(self):
            return next(self.data, None)

    logging.disable(logging.WARNING)  # the tools' advice and progress
    for row in rows:
        if row["model"] not in INT8:
            continue
        start = time.perf_counter()
        try:
            # Pre-processing folds the exporter's Transpose of each weight
            # into an initializer: without it quantize_dynamic quantized 4
            # of BERT-base's 72 MatMuls.
            pre = row["onnx"] + ".pre.onnx"
            quant_pre_process(row["float_onnx"], pre)
            if INT8[row["model"]][1] == "dynamic":
                quantize_dynamic(pre, row["onnx"],
                                 weight_type=QuantType.QInt8)
            else:
                x = np.load(os.path.join(os.path.dirname(row["onnx"]),
                                         row["model"] + "_x.npy"))
                quantize_static(pre, row["onnx"], Batches(x.shape),
                                quant_format=QuantFormat.QDQ,
                                activation_type=QuantType.QUInt8,
                                weight_type=QuantType.QInt8)
        except Exception as error:  # whatever the tools raise
            row["error"] = "quantization: " + first_error_line(str(error))
            print("%s: %s" % (row["model"], row["error"]), flush=True)
            continue
        print("%s: quantized in %.1f s" % (row["model"],
                                           time.perf_counter() - start),
              flush=True)


def compile_stage(args, rows):
    """Stage 3: `mlprog-translate --import-onnx` and `mlprog-compile` of each
    row's ONNX file into the row's library; a failure marks the row with
    the tool's first error line instead."""
    bindir = os.path.join(os.path.abspath(args.build), "bin")
    for row in rows:
        if "error" in row:
            continue
        mlir, lib = row["onnx"] + ".mlir", row["onnx"] + ".so"
        try:
            row["import_s"] = timed([os.path.join(bindir, "mlprog-translate"),
                                     "--import-onnx", row["onnx"], "-o",
                                     mlir])
            row["compile_s"] = timed([os.path.join(bindir, "mlprog-compile"),
                                      mlir, "-o", lib])
        except RuntimeError as error:
            # The model's folder is a temporary one: name the file alone.
            row["error"] = str(error).replace(
                os.path.dirname(row["onnx"]) + os.sep, "")
            print("%s: failed: %s" % (row["model"], error), flush=True)
            continue
        row["library"] = lib
        print("%s: imported in %.1f s, compiled in %.1f s" %
              (row["model"], row["import_s"], row["compile_s"]), flush=True)


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("rank", ctypes.c_int32), ("dtype", ctypes.c_int32)]


DTYPES = {"bool": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4,
          "uint8": 5, "uint16": 6, "uint32": 7, "uint64": 8, "float16": 9,
          "float32": 11, "float64": 12}


class Library:
    """An mlprog-compile library called through its C ABI."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(path)
        self.lib.mlprog_model_find_entry.restype = ctypes.c_int32
        self.entry = self.lib.mlprog_model_find_entry(b"main")
        if self.entry < 0:
            self.entry = 0

    def __call__(self, x):
        import numpy as np
        x = np.ascontiguousarray(x)
        shape = (ctypes.c_int64 * x.ndim)(*x.shape)
        inputs = (Tensor * 1)(Tensor(x.ctypes.data, shape, x.ndim,
                                     DTYPES[x.dtype.name]))
        results = (Tensor * 1)()
        error = ctypes.create_string_buffer(1024)
        if self.lib.mlprog_model_run(self.entry, inputs, 1, results, 1, error,
                                     ctypes.c_size_t(1024)):
            raise RuntimeError(error.value.decode())
        r = results[0]
        dims = [r.shape[i] for i in range(r.rank)]
        count = int(np.prod(dims)) if dims else 1
        out = np.ctypeslib.as_array(
            ctypes.cast(r.data, ctypes.POINTER(ctypes.c_float)),
            shape=(count,)).reshape(dims).copy()
        self.lib.mlprog_tensor_release(ctypes.byref(results[0]))
        return out


def ort_session(path, threads):
    """An onnxruntime CPU session of the ONNX file `path`: all graph
    optimizations, `threads` intra-op threads, one inter-op thread."""
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = \
        ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if threads > 1:
        # Its pool would otherwise spin on the cores our next call needs
        # (ours spins for 1 ms and `alternate` pauses 2 ms).
        options.add_session_config_entry(
            "session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(path, options,
                                providers=["CPUExecutionProvider"])


def alternate(runs, reps, threads):
    """Median milliseconds of each callable of the dict `runs`, called in
    turn `reps` times; with more than one thread, every timed call follows
    an untimed 2 ms pause."""
    times = {name: [] for name in runs}
    for _ in range(reps):
        for name, run in runs.items():
            if threads > 1:
                time.sleep(0.002)
            start = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - start)
    return {k: 1e3 * sorted(v)[len(v) // 2] for k, v in times.items()}


def output_step(path):
    """The scale of the DequantizeLinear that makes the ONNX model `path`'s
    first output (one quantization step of it), or None."""
    import onnx
    from onnx import numpy_helper
    graph = onnx.load(path).graph
    node = next((n for n in graph.node if n.op_type == "DequantizeLinear"
                 and graph.output[0].name in n.output), None)
    scale = next((t for t in graph.initializer
                  if node is not None and t.name == node.input[1]), None)
    return None if scale is None else float(numpy_helper.to_array(scale))


def run_row(args, row, threads):
    """One row's latencies: its library and onnxruntime on the same model,
    alternately, after comparing their outputs."""
    import numpy as np
    import onnxruntime as ort
    work = os.path.dirname(row["onnx"])
    x = np.load(os.path.join(work, row["model"] + "_x.npy"))
    ref = np.load(os.path.join(work, row["model"] + "_y.npy"))
    session = ort_session(row["onnx"], threads)
    feed = {session.get_inputs()[0].name: x}
    ours = Library(row["library"])
    theirs = session.run(None, feed)[0]
    int8 = row["model"] in INT8
    # An int8 model is compared with onnxruntime's int8 output; both
    # peers' float outputs with PyTorch's.
    err = float(np.abs(ours(x) - (theirs if int8 else ref)).max())
    runs = {"ours": lambda: ours(x), "ort": lambda: session.run(None, feed)}
    # Untimed rounds first: the first calls of a process's first model
    # (thread pools starting, pages first touched) ran at half speed, and
    # with 10 repetitions they moved the median (BERT-style at 2 threads:
    # 3.52 ms in a full run, 1.52-1.56 alone).
    alternate(runs, 5, threads)
    med = alternate(runs, args.reps, threads)
    return dict(row, threads=threads, ours_ms=med["ours"], ort_ms=med["ort"],
                ratio=med["ours"] / med["ort"], max_abs_err=err,
                ort_max_abs_err=float(np.abs(theirs - ref).max()),
                output_step=output_step(row["onnx"]) if int8 else None,
                ort_version=ort.__version__)


def run_stage(args, rows, threads):
    """Stage 4 (.venv): every compiled row at `threads` threads (pinned to
    one core for 1); a row whose library or onnxruntime fails is returned
    with the error."""
    os.environ["MLPROG_NUM_THREADS"] = str(threads)
    peers.pin_for(threads)
    out = []
    for row in rows:
        if "library" not in row:
            continue
        try:
            result = run_row(args, row, threads)
            status = ("mlprog %9.2f ms  onnxruntime %9.2f ms  ratio %.2f  "
                      "err %.1e" % (result["ours_ms"], result["ort_ms"],
                                    result["ratio"], result["max_abs_err"]))
        except Exception as error:  # the library's or onnxruntime's
            result = dict(row, threads=threads,
                          error="run: " + first_error_line(str(error)))
            status = result["error"]
        out.append(result)
        print("%-10s b%d %dt  %s" % (row["model"], row["batch"], threads,
                                     status), flush=True)
    return out


def print_table(results):
    """Prints the results as a Markdown table; a failed row names its error
    in the mlprog column."""
    print("| model | batch | threads | mlprog ms | onnxruntime ms | "
          "mlprog / ORT | PyTorch eager ms (1t) | max abs err | import s | "
          "compile s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")

    def cell(r, key, fmt):
        return fmt % r[key] if r.get(key) is not None else "-"
    for r in results:
        if "error" in r:
            ours = "failed: " + r["error"].replace("|", "\\|")
        else:
            ours = cell(r, "ours_ms", "%.2f")
        err = cell(r, "max_abs_err", "%.1e")
        if r["model"] in INT8 and "max_abs_err" in r:
            err += " vs ORT int8"
            if r["output_step"] is not None:
                err += " (%.0f steps of %.1e)" % (
                    r["max_abs_err"] / r["output_step"], r["output_step"])
        print("| %s |" % " | ".join([
            DESCRIPTIONS[r["model"]], str(r["batch"]),
            cell(r, "threads", "%d"), ours, cell(r, "ort_ms", "%.2f"),
            cell(r, "ratio", "**%.2f**"), cell(r, "torch_eager_ms_1t", "%.2f"),
            err, cell(r, "import_s", "%.1f"), cell(r, "compile_s", "%.1f")]))


def venv_stage(venv, stage, rows, rows_path, extra=()):
    """Runs this script's `stage` on `rows` under the .venv's Python and
    returns the rows it writes back."""
    json.dump(rows, open(rows_path, "w"))
    subprocess.run([venv, os.path.abspath(__file__), "--stage", stage,
                    "--rows", rows_path] + list(extra), check=True)
    return json.load(open(rows_path))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--models", default="transformers",
                        help="comma-separated model and group names: %s; "
                        "groups %s (default: transformers)" % (
                            ", ".join(DESCRIPTIONS), ", ".join(GROUPS)))
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--batch", type=int, default=1,
                        help="batch size of every model's input")
    parser.add_argument("--quick", action="store_true",
                        help="5 repetitions, BERT and GPT only")
    parser.add_argument("--stage", choices=["quantize", "run"],
                        help=argparse.SUPPRESS)
    parser.add_argument("--rows", help=argparse.SUPPRESS)
    parser.add_argument("--json", help="also write the results here")
    parser.add_argument("--work-dir",
                        help="keep the exported models and compiled "
                        "libraries here (default: a temporary folder)")
    args = parser.parse_args()
    # PyTorch eager (stage 1) runs on Debian's OpenBLAS: its own kernels.
    peers.restart_without_forced_blas()
    if args.quick:
        args.reps = 5
        args.models = "bert,gpt"
    try:
        args.models = expand_models(args.models)
    except ValueError as error:
        parser.error(str(error))

    if args.stage:
        rows = json.load(open(args.rows))
        if args.stage == "quantize":
            quantize_stage(rows)
        else:
            results = []
            for threads in [int(t) for t in args.threads.split(",")]:
                results += run_stage(args, rows, threads)
            # Rows that never reached a library, once.
            rows = results + [r for r in rows if "library" not in r]
        json.dump(rows, open(args.rows, "w"), indent=1)
        return

    venv = os.path.join(ROOT, ".venv", "bin", "python")
    if not os.path.exists(venv):
        sys.exit("no .venv: run scripts/setup-venv.sh (onnxruntime)")
    if args.work_dir:
        os.makedirs(args.work_dir, exist_ok=True)
    with (contextlib.nullcontext(os.path.abspath(args.work_dir))
          if args.work_dir else tempfile.TemporaryDirectory()) as work:
        rows = export_stage(args, work)
        rows_path = os.path.join(work, "rows.json")
        if any(row["model"] in INT8 for row in rows):
            rows = venv_stage(venv, "quantize", rows, rows_path)
        compile_stage(args, rows)
        # One process per thread count: a thread that onnxruntime or
        # OpenMP starts while a 1-thread run pins the process to one core
        # keeps that core's mask, and a later 2-thread run in the same
        # process sometimes ran ours with both threads on that core (BERT-
        # style at 2 threads: 2.41 ms in one run of three, 1.51-1.59 in
        # the others; 1.5 in every run of its own process).
        results = []
        for threads in args.threads.split(","):
            out = venv_stage(venv, "run", rows, rows_path,
                             ["--threads", threads, "--reps", str(args.reps)])
            results += [r for r in out if "threads" in r]
        results += [r for r in rows if "library" not in r]
    print()
    print_table(results)
    if args.json:
        json.dump(results, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
