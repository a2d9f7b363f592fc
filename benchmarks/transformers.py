#!/usr/bin/env python3
"""Transformer latency: mlprog against onnxruntime, in one process.

    /usr/bin/python3 benchmarks/transformers.py [--build build] [--quick]
        [--models bert,gpt,vit_b_16,bert_base,gpt2_small] [--threads 1,2]
        [--batch N] [--reps N] [--json FILE]

Two stages, because the two peers live in different Python environments:

1. Debian's Python (torch 1.13, torchvision) exports each model to ONNX with
   random weights, records PyTorch eager's latency and output, and compiles
   the ONNX file with `mlprog-translate --import-onnx` and `mlprog-compile`
   (the default -O2 CPU pipeline) into a shared library with the C ABI of
   include/mlprog-c/Model.h.
2. The project's `.venv` Python (onnxruntime, scripts/requirements) loads
   that library with ctypes and runs it alternately with onnxruntime (all
   graph optimizations) in the same process: same inputs, same thread count
   (`MLPROG_NUM_THREADS` and `intra_op_num_threads`), medians. Our time
   includes the copy of the results out of the library. With more than one
   thread, onnxruntime's pool does not spin between calls
   (`session.intra_op.allow_spinning=0`), ours keeps its default (idle
   threads spin for 1 ms, `KMP_BLOCKTIME=1`, then sleep), and every timed
   call follows an untimed 2 ms pause, so neither pool's spinning takes the
   cores the other needs.

Outputs are compared with PyTorch's (max abs error) before timing.
"""

import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# name -> (description, builder). Builders run in stage 1 (torch).
MODELS = ["bert", "gpt", "vit_b_16", "bert_base", "gpt2_small"]
DESCRIPTIONS = {
    "bert": "BERT-style encoder (d 256, 4 layers, 4 heads, seq 64)",
    "gpt": "GPT-style decoder (d 128, 2 layers, causal, seq 64, vocab 1000)",
    "vit_b_16": "torchvision vit_b_16 (224x224)",
    "bert_base": "BERT-base encoder (d 768, 12 layers, 12 heads, seq 128)",
    "gpt2_small": "GPT-2-small shape (d 768, 12 layers, 12 heads, causal, "
                  "seq 128, vocab 50257)",
}


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
    """The model `name` in eval mode with random weights and an input of
    batch `batch`."""
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
    model = torchvision.models.vit_b_16().eval()
    # torchvision zero-initializes the head: make the output informative.
    nn.init.normal_(model.heads.head.weight, std=0.02)
    return model, torch.randn(batch, 3, 224, 224)


def timed(cmd):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - start


def export_stage(args, work):
    """Stage 1: export, PyTorch eager reference and latency, AOT compile."""
    import numpy as np
    import torch
    torch.set_num_threads(1)
    bindir = os.path.join(os.path.abspath(args.build), "bin")
    rows = []
    for name in args.models:
        model, x = build_model(name, args.batch)
        path = os.path.join(work, name + ".onnx")
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
        mlir, lib = path + ".mlir", path + ".so"
        import_s = timed([os.path.join(bindir, "mlprog-translate"),
                          "--import-onnx", path, "-o", mlir])
        compile_s = timed([os.path.join(bindir, "mlprog-compile"), mlir,
                           "-o", lib])
        rows.append({"model": name, "batch": args.batch, "onnx": path,
                     "library": lib,
                     "torch_eager_ms_1t": 1e3 * sorted(times)[len(times) // 2],
                     "import_s": import_s, "compile_s": compile_s})
        print("%s: exported, imported in %.1f s, compiled in %.1f s" %
              (name, import_s, compile_s), flush=True)
    return rows


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


def run_stage(args, rows, threads):
    """Stage 2 (in .venv): mlprog's library and onnxruntime, alternately."""
    import numpy as np
    import onnxruntime as ort
    os.environ["MLPROG_NUM_THREADS"] = str(threads)
    out = []
    for row in rows:
        work = os.path.dirname(row["onnx"])
        x = np.load(os.path.join(work, row["model"] + "_x.npy"))
        ref = np.load(os.path.join(work, row["model"] + "_y.npy"))
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = \
            ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        if threads > 1:
            # Its pool would otherwise spin on the cores our next call needs
            # (ours spins for 1 ms and the loop below pauses 2 ms).
            options.add_session_config_entry(
                "session.intra_op.allow_spinning", "0")
        session = ort.InferenceSession(row["onnx"], options,
                                       providers=["CPUExecutionProvider"])
        feed = {session.get_inputs()[0].name: x}
        ours = Library(row["library"])
        err = float(np.abs(ours(x) - ref).max())
        ort_err = float(np.abs(session.run(None, feed)[0] - ref).max())
        times = {"ours": [], "ort": []}
        for _ in range(args.reps):
            for key, fn in (("ours", lambda: ours(x)),
                            ("ort", lambda: session.run(None, feed))):
                if threads > 1:
                    time.sleep(0.002)
                start = time.perf_counter()
                fn()
                times[key].append(time.perf_counter() - start)
        med = {k: 1e3 * sorted(v)[len(v) // 2] for k, v in times.items()}
        result = dict(row, threads=threads, ours_ms=med["ours"],
                      ort_ms=med["ort"], ratio=med["ours"] / med["ort"],
                      max_abs_err=err, ort_max_abs_err=ort_err,
                      ort_version=ort.__version__)
        out.append(result)
        print("%-10s b%d %dt  mlprog %9.2f ms  onnxruntime %9.2f ms  "
              "ratio %.2f  err %.1e" % (row["model"], row["batch"], threads,
                                        med["ours"], med["ort"],
                                        result["ratio"], err), flush=True)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--batch", type=int, default=1,
                        help="batch size of every model's input")
    parser.add_argument("--quick", action="store_true",
                        help="5 repetitions, BERT and GPT only")
    parser.add_argument("--stage", choices=["export", "run"],
                        help=argparse.SUPPRESS)
    parser.add_argument("--rows", help=argparse.SUPPRESS)
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()
    if args.quick:
        args.reps = 5
        args.models = "bert,gpt"
    args.models = args.models.split(",")

    if args.stage == "run":
        rows = json.load(open(args.rows))
        results = []
        for threads in [int(t) for t in args.threads.split(",")]:
            results += run_stage(args, rows, threads)
        json.dump(results, open(args.rows, "w"), indent=1)
        return

    venv = os.path.join(ROOT, ".venv", "bin", "python")
    if not os.path.exists(venv):
        sys.exit("no .venv: run scripts/setup-venv.sh (onnxruntime)")
    with tempfile.TemporaryDirectory() as work:
        rows = export_stage(args, work)
        rows_path = os.path.join(work, "rows.json")
        json.dump(rows, open(rows_path, "w"))
        env = dict(os.environ)
        subprocess.run([venv, os.path.abspath(__file__), "--stage", "run",
                        "--rows", rows_path, "--threads", args.threads,
                        "--reps", str(args.reps)], check=True, env=env)
        results = json.load(open(rows_path))
    print()
    print("| model | batch | threads | mlprog ms | onnxruntime ms | "
          "mlprog / ORT | PyTorch eager ms (1t) | max abs err | import s | "
          "compile s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print("| %s | %d | %d | %.2f | %.2f | **%.2f** | %.2f | %.1e | %.1f | "
              "%.1f |"
              % (DESCRIPTIONS[r["model"]], r["batch"], r["threads"],
                 r["ours_ms"],
                 r["ort_ms"], r["ratio"], r["torch_eager_ms_1t"],
                 r["max_abs_err"], r["import_s"], r["compile_s"]))
    if args.json:
        json.dump(results, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()
