#!/usr/bin/env python3
"""Per-token decode latency with the KV cache kept as state, against
onnxruntime and PyTorch eager (issue "State as a first-class, fast path").

  .venv/bin/python benchmarks/decode.py [--family gpt2|llama]
      [--contexts 128,512] [--threads 1,2] [--steps 16] [--reps N] [--settle S]
      [--build-dir build] [--work-dir DIR]

The model is python/tests/decoders.py's `small` size: GPT-2-small's shape
(12 layers, hidden 768, 12 heads, vocabulary 50257; transformers'
GPT2LMHeadModel, random weights) or a LLaMA of that shape. It is exported
once into the work directory (default /tmp/mlprog-decode-bench):
`decoder.onnx` with past/present pairs (torch.onnx, opset 17) and
`decoder.pt`, the scripted decoder whose caches are registered buffers.

Each thread count runs in a fresh process (MLPROG_NUM_THREADS,
OMP_NUM_THREADS, onnxruntime's intra-op threads and torch.set_num_threads
equal; one thread is pinned to one core). In it, four runners hold the same
model:

- mlprog, ONNX with `--state=auto`: the past/present pairs are mutable
  globals, so a step passes one token id and returns the logits;
- mlprog, TorchScript: the cached decoder, caches in buffers written in
  place;
- onnxruntime 1.x (all graph optimizations) on the same ONNX file, the
  present outputs fed back as the next past inputs through IO binding
  (OrtValues, no copies through numpy);
- PyTorch eager: transformers' model with its DynamicCache.

For each context C and repetition, the runners take turns (the order
rotates between repetitions); each, after a pause (--settle, so that the
previous runtime's threads stop spinning), is reset and fed the same
C-token prompt (prefill, timed once), then the same fixed tokens one at a
time, each step timed around one call. Reported: median prefill and
per-token decode times, their ratios to onnxruntime and PyTorch, and the
largest difference of the last step's logits from PyTorch's.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# benchmarks/transformers.py would shadow the transformers package.
sys.path = [p for p in sys.path if os.path.abspath(p or ".") != HERE]
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))


def export(args):
    import decoders
    import torch
    os.makedirs(args.work_dir, exist_ok=True)
    onnx_path = os.path.join(args.work_dir, args.family + ".onnx")
    pt_path = os.path.join(args.work_dir, args.family + ".pt")
    if os.path.exists(onnx_path) and os.path.exists(pt_path):
        return onnx_path, pt_path
    model = decoders.build_transformers(args.family, "small")
    decoder = decoders.CachedDecoder(model, args.family).eval()
    torch.jit.script(decoder).save(pt_path)
    decoders.export_onnx(model, onnx_path)
    return onnx_path, pt_path


def worker(args):
    threads = args.threads_one
    if threads == 1 and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    import torch
    import onnxruntime as ort
    import mlprog
    import decoders
    from transformers import DynamicCache
    torch.set_num_threads(threads)
    onnx_path = os.path.join(args.work_dir, args.family + ".onnx")
    pt_path = os.path.join(args.work_dir, args.family + ".pt")

    runners = {}
    start = time.perf_counter()
    onnx_exe = mlprog.compile(mlprog.import_onnx(onnx_path, state="auto"),
                              progress=False)
    compile_onnx = time.perf_counter() - start
    runners["mlprog ONNX --state"] = (onnx_exe.reset, onnx_exe.main)
    start = time.perf_counter()
    ts_exe = mlprog.compile(mlprog.import_torchscript(
        pt_path, input_shapes=[[1, None]], input_dtypes=["int64"]),
        progress=False)
    compile_ts = time.perf_counter() - start
    runners["mlprog TorchScript"] = (ts_exe.reset, ts_exe.forward)

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = \
        ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(onnx_path, options,
                                   providers=["CPUExecutionProvider"])
    past_inputs = [i for i in session.get_inputs()
                   if i.name.startswith("past_key_values.")]
    outputs = [o.name for o in session.get_outputs()]
    ort_state = {}

    def ort_reset():
        ort_state.clear()
        for i in past_inputs:
            ort_state[i.name] = ort.OrtValue.ortvalue_from_numpy(
                np.zeros((1, i.shape[1], 0, i.shape[3]), np.float32))

    def ort_step(ids):
        binding = session.io_binding()
        binding.bind_cpu_input("input_ids", ids)
        for name, value in ort_state.items():
            binding.bind_ortvalue_input(name, value)
        for name in outputs:
            binding.bind_output(name, "cpu")
        session.run_with_iobinding(binding)
        values = binding.get_outputs()
        for name, value in zip(outputs[1:], values[1:]):
            ort_state[name.replace("present.", "past_key_values.")] = value
        return values[0].numpy()
    runners["onnxruntime"] = (ort_reset, ort_step)

    model = decoders.build_transformers(args.family, "small")
    torch_state = {}

    def torch_reset():
        torch_state["cache"] = DynamicCache()

    def torch_step(ids):
        with torch.no_grad():
            out = model(input_ids=torch.from_numpy(ids),
                        past_key_values=torch_state["cache"], use_cache=True)
        torch_state["cache"] = out.past_key_values
        return out.logits.numpy()
    runners["PyTorch eager"] = (torch_reset, torch_step)

    rng = np.random.default_rng(0)
    rows = []
    for context in args.contexts:
        prompt = rng.integers(1, 50000, (1, context), dtype=np.int64)
        tokens = rng.integers(1, 50000, args.steps + args.warmup)
        prefill = {name: [] for name in runners}
        decode = {name: [] for name in runners}
        last = {}
        names = list(runners)
        for rep in range(args.reps):
            # Each runner runs its prefill and all its steps as one block,
            # after a pause: the runtimes' idle threads spin for a while
            # after a call (libgomp's, onnxruntime's and libomp's pools),
            # so a step that directly follows another runtime's step ran
            # beside that runtime's spinning threads (at 2 threads on 2
            # cores, mlprog's ONNX step after PyTorch's: 24.1 against
            # 18.9 ms alone). The order rotates between repetitions.
            order = names[rep % len(names):] + names[:rep % len(names)]
            for name in order:
                reset, step = runners[name]
                time.sleep(args.settle)
                reset()
                begin = time.perf_counter()
                step(prompt)
                prefill[name].append(time.perf_counter() - begin)
                for i, token in enumerate(tokens):
                    ids = np.array([[token]], np.int64)
                    begin = time.perf_counter()
                    logits = step(ids)
                    elapsed = time.perf_counter() - begin
                    if i >= args.warmup:
                        decode[name].append(elapsed)
                    last[name] = np.asarray(logits)[0, -1]
        reference = last["PyTorch eager"]
        for name in runners:
            rows.append(dict(
                runner=name, context=context, threads=threads,
                prefill_ms=1e3 * float(np.median(prefill[name])),
                decode_ms=1e3 * float(np.median(decode[name])),
                max_abs_diff=float(np.abs(last[name] - reference).max())))
    print(json.dumps(dict(rows=rows, compile_onnx_s=compile_onnx,
                          compile_ts_s=compile_ts)), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", default="gpt2", choices=["gpt2", "llama"])
    parser.add_argument("--contexts", default="128,512")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--steps", type=int, default=16)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--settle", type=float, default=0.2,
                        help="seconds of pause before each runner's block")
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("--work-dir", default="/tmp/mlprog-decode-bench")
    parser.add_argument("--worker", action="store_true",
                        help=argparse.SUPPRESS)
    parser.add_argument("--threads-one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.contexts = [int(c) for c in args.contexts.split(",")]
    if args.worker:
        return worker(args)
    onnx_path, _ = export(args)
    results = []
    for threads in [int(t) for t in args.threads.split(",")]:
        env = dict(os.environ, MLPROG_NUM_THREADS=str(threads),
                   OMP_NUM_THREADS=str(threads),
                   PYTHONPATH=os.path.join(args.build_dir, "python"))
        cmd = [sys.executable, os.path.abspath(__file__), "--worker",
               "--threads-one", str(threads), "--family", args.family,
               "--contexts", ",".join(map(str, args.contexts)),
               "--steps", str(args.steps), "--warmup", str(args.warmup),
               "--reps", str(args.reps), "--work-dir", args.work_dir]
        run = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if run.returncode:
            sys.exit("decode.py: the %d-thread run failed:\n%s"
                     % (threads, run.stderr[-3000:]))
        results.append(json.loads(run.stdout.strip().splitlines()[-1]))
    print("| context | threads | runner | prefill ms | decode ms/token "
          "| decode / ORT | decode / PyTorch | max abs diff to PyTorch |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|")
    for result in results:
        rows = result["rows"]
        for row in rows:
            peers = {r["runner"]: r for r in rows
                     if r["context"] == row["context"]}
            ort_ms = peers["onnxruntime"]["decode_ms"]
            torch_ms = peers["PyTorch eager"]["decode_ms"]
            print("| %d | %d | %s | %.1f | %.2f | %.2f | %.2f | %.1e |" % (
                row["context"], row["threads"], row["runner"],
                row["prefill_ms"], row["decode_ms"],
                row["decode_ms"] / ort_ms, row["decode_ms"] / torch_ms,
                row["max_abs_diff"]))
    for result, threads in zip(results, args.threads.split(",")):
        print("compile (%s thread(s)): ONNX %.1f s, TorchScript %.1f s" % (
            threads, result["compile_onnx_s"], result["compile_ts_s"]))


if __name__ == "__main__":
    main()
