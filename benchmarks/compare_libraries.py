"""Several mlprog libraries of one model against onnxruntime, in one process.

Times each library (mlprog-compile output, called through its C ABI like
transformers.py does) and onnxruntime alternately on the same input, and
prints each library's median latency and its ratio to onnxruntime's: the
way to compare a compiler before and after a change when the machine's
speed drifts between runs. Run with the project's .venv (onnxruntime):

  .venv/bin/python benchmarks/compare_libraries.py WORK MODEL THREADS REPS \
      before/MODEL.onnx.so after/MODEL.onnx.so

WORK holds MODEL.onnx, MODEL_x.npy and MODEL_y.npy (the input and PyTorch's
output, as transformers.py's export stage writes them).
"""

import importlib.util
import os
import sys

import numpy as np


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    work, model = sys.argv[1], sys.argv[2]
    threads, reps = int(sys.argv[3]), int(sys.argv[4])
    libs = sys.argv[5:]
    os.environ["MLPROG_NUM_THREADS"] = str(threads)
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        "bench_transformers", os.path.join(here, "transformers.py"))
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    x = np.load(os.path.join(work, model + "_x.npy"))
    ref = np.load(os.path.join(work, model + "_y.npy"))
    session = bench.ort_session(os.path.join(work, model + ".onnx"), threads)
    feed = {session.get_inputs()[0].name: x}
    runs = {"onnxruntime": lambda: session.run(None, feed)}
    for path in libs:
        lib = bench.Library(os.path.abspath(path))
        print("%s: max abs err %.1e" % (path, float(np.abs(lib(x) - ref).max())))
        runs[path] = lambda lib=lib: lib(x)
    med = bench.alternate(runs, reps, threads)
    print("%s batch %d, %d threads: onnxruntime %.1f ms; %s" % (
        model, x.shape[0], threads, med["onnxruntime"],
        "; ".join("%s %.1f ms (%.2fx)" % (p, med[p], med[p] / med["onnxruntime"])
                  for p in libs)))


if __name__ == "__main__":
    main()
