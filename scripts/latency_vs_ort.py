#!/usr/bin/env python3
"""The main job's last step: one model's latency, mlprog against onnxruntime.

  latency_vs_ort.py MODEL.onnx LIBRARY.so INPUT.npy [--reps N] [--threads T]

Runs the mlprog-compile library (through its C ABI, benchmarks/
transformers.py's Library) and an onnxruntime session (all graph
optimizations) alternately in this process with the same input and thread
count, and prints both medians and their ratio. Runs in the project's .venv
(onnxruntime); benchmarks/README.md has the full benchmark.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "benchmarks"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    parser.add_argument("model")
    parser.add_argument("library")
    parser.add_argument("input")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    os.environ["MLPROG_NUM_THREADS"] = str(args.threads)
    import numpy as np
    import onnxruntime as ort
    from transformers import Library

    x = np.load(args.input)
    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(args.model, options,
                                   providers=["CPUExecutionProvider"])
    feed = {session.get_inputs()[0].name: x}
    ours = Library(args.library)
    diff = float(np.abs(ours(x) - session.run(None, feed)[0]).max())
    times = {"mlprog": [], "onnxruntime": []}
    for _ in range(args.reps):
        for key, fn in (("mlprog", lambda: ours(x)),
                        ("onnxruntime", lambda: session.run(None, feed))):
            start = time.perf_counter()
            fn()
            times[key].append(time.perf_counter() - start)
    med = {k: 1e3 * sorted(v)[len(v) // 2] for k, v in times.items()}
    print("   %d thread(s), median of %d: mlprog %.2f ms, onnxruntime %s %.2f "
          "ms, mlprog / onnxruntime %.2f (max abs difference %.1e)"
          % (args.threads, args.reps, med["mlprog"], ort.__version__,
             med["onnxruntime"], med["mlprog"] / med["onnxruntime"], diff))


if __name__ == "__main__":
    main()
